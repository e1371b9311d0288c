import os
import time

import pytest


@pytest.mark.parametrize("n", range(8))
def test_slow(n):
    with open(os.environ["RUNNER_TEST_TRACE"], "a") as trace:
        trace.write(f"{n}\n")
    time.sleep(0.6)
