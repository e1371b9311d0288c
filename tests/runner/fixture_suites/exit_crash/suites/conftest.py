"""Every worker aborts after its last test, as a plugin that crashes while being unloaded would."""
import os


def pytest_sessionfinish(session):
    os.write(2, b"plugin: crashing at unload\n")
    os.abort()
