"""The processes that load the plugin and run tests: xdist workers, the fork server and the children forked from it
(isolated tests, reruns), and a bare `pytest suites/`. plugin.py is the `-p` entry that registers, in
pytest_configure, the plugin objects of the process it finds itself in."""
