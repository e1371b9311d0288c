def test_never_collected():
    pass
