"""The typed shapes of what crosses a process or file boundary (issue 30).

Inside a process the code is typed; the moment data crosses a process or file boundary it used to become
strings and dicts. This module is the one place those shapes are declared, as frozen dataclasses with
`to_json` / `from_json`, checked with mypy's strict flags:

- the run context: what a worker, an isolated child, a robustness/fuzz child, a multi-process node, a framework
  child or the proxy needs to know about the run (one context file, named by one environment variable);
- the test record: one test's outcome, as results.jsonl and results.json store it;
- the results: the whole results.json.

File formats stay compatible: `from_json` reads what earlier versions wrote.
"""
from __future__ import annotations

# -- the run context ----------------------------------------------------------------------------------------


# -- test records and results -------------------------------------------------------------------------------
