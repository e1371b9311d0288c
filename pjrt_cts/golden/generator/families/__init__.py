"""One module per case family: each `cases()` yields the CaseSpecs of its family (see generator/__init__.py)."""
