"""A suite tree whose conftest kills any process that imports it: only workers ever should."""
import os

os.write(2, b"conftest: aborting at import\n")
os.abort()
