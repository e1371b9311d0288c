"""pjrt_cts.testing resolves its exported names lazily: every name resolves, and a child that runs one submodule
does not pay for pytest and the corpus code."""
from __future__ import annotations

import subprocess
import sys

import pjrt_cts.testing as testing


def test_every_exported_name_resolves_to_its_submodule() -> None:
    assert sorted(testing.__all__) == sorted(testing._SOURCES)
    for name in testing.__all__:
        assert getattr(testing, name) is getattr(sys.modules[testing._SOURCES[name]], name)


def test_a_robustness_child_does_not_import_pytest() -> None:
    code = "import sys, pjrt_cts.testing.robustness_cases; print(sorted({'pytest', 'pjrt_cts.testing.corpus'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
