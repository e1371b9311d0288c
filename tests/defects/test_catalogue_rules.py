"""A catalogue rule pins its defect, or the catalogue is not read (issue 53 item 1): the checks of
pjrt_cts.judgment.defects.catalogue on rules written the ways the audit found them."""
from __future__ import annotations

from pathlib import Path

import pytest

from pjrt_cts.judgment.defects import CatalogueError, load_catalogue

HEAD = '[[defect]]\nid = "some-defect"\ntitle = "t"\nscope = "plugin"\nrule = "r"\n'
GOLDEN = "execute.golden_cases.test_case_matches_reference"


def _load(tmp_path: Path, rule: str, head: str = HEAD) -> None:
    path = tmp_path / "catalogue.toml"
    path.write_text(head + "[[defect.match]]\n" + rule)
    load_catalogue.cache_clear()
    try:
        load_catalogue(path)
    finally:
        load_catalogue.cache_clear()


@pytest.mark.parametrize(("rule", "complaint"), [
    (f'id = ["{GOLDEN}[conv.*_rev*]"]\nmessage = "window"\n', "missing required field `outcome`"),
    ('id = ["*[spec.sort.*dim_minus*]"]\noutcome = ["FAIL", "CRASH", "TIMEOUT"]\n', "pins nothing"),
    (f'id = ["{GOLDEN}[conv.*_rev*]"]\noutcome = ["FAIL"]\nmessage = "differs from the reference"\n',
     "accepts a failure any test can show"),
    (f'id = ["{GOLDEN}[conv.*_rev*]"]\noutcome = ["FAIL"]\nmessage = "elements differ"\n', "any test can show"),
    ('id = ["*[spec.uniform_*]"]\noutcome = ["FAIL"]\nmessage = "PJRT_Client_Compile"\n', "any test can show"),
    ('id = ["*[spec.sort.*.f4e2m1fn]"]\noutcome = ["FAIL"]\nuniform = true\n', "any test can show"),  # all zeros
    ('id = ["*[spec.cbrt.f64]"]\noutcome = ["FAIL"]\nmax_rel_err = 2.0\n', "any test can show"),
    ('id = ["*[spec.*]"]\noutcome = ["FAIL"]\nmessage = "failed to legalize operation"\n', "over the whole family"),
    ('id = ["*"]\noutcome = ["FAIL", "ERROR"]\nmessage = "CUDA_ERROR_ILLEGAL_ADDRESS"\n', "over the whole family"),
    ('id = ["execute.*"]\noutcome = ["FAIL"]\nmessage = "some text"\n', "over the whole family"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["CRASH"]\nsignal = ["SIGABRT"]\n', "a CRASH rule pins the crash"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["CRASH"]\nfunction = ["PJRT_Client_Compile"]\n', "a CRASH rule pins"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["FAIL"]\nsignal = ["SIGABRT"]\n', "'signal' and 'function' are for"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["FAIL", "TIMEOUT"]\nmismatch = ["1:0"]\n', "value evidence"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["FAIL"]\nmismatch = ["one:zero"]\n', "element kinds"),
    ('id = ["*[spec.rng.*]"]\noutcome = ["CRASH"]\nsignal = ["SIGWHAT"]\nfunction = ["PJRT_X"]\n', "names signals"),
])
def test_a_rule_that_does_not_pin_its_defect_is_rejected(tmp_path: Path, rule: str, complaint: str) -> None:
    with pytest.raises(CatalogueError, match=complaint):
        _load(tmp_path, rule)


@pytest.mark.parametrize("rule", [
    'id = ["*[spec.sort.*.f4e2m1fn]"]\noutcome = ["FAIL"]\nreordered = true\n',
    'id = ["*[spec.*.subnormal.*]"]\noutcome = ["FAIL"]\nmismatch = ["0:subnormal", "subnormal:0"]\n',
    'id = ["*[spec.rng.*]"]\noutcome = ["CRASH"]\nsignal = ["SIGABRT"]\nfunction = ["PJRT_Client_Compile"]\n',
    'id = ["robustness.malformed_programs.*"]\noutcome = ["TIMEOUT"]\nfunction = ["PJRT_Client_Compile"]\n',
    'id = ["*[spec.triangular_solve.*.f16*]"]\noutcome = ["FAIL"]\nmessage = "Invalid type for triangular solve"\n',
    'id = ["*[spec.cbrt.f64]"]\noutcome = ["FAIL"]\nmismatch = ["finite:finite"]\nmax_rel_err = 1e-12\n',
    'id = ["*[spec.maximum.*]"]\noutcome = ["FAIL"]\nmismatch = ["*:nan", "0:-0"]\nmismatch_including = ["*:nan"]\n',
])
def test_a_rule_pinning_its_defect_is_read(tmp_path: Path, rule: str) -> None:
    _load(tmp_path, rule)


def test_plugin_text_over_a_whole_family_is_read_for_a_defect_named_for_triage_only(tmp_path: Path) -> None:
    rule = 'id = ["*"]\noutcome = ["FAIL", "ERROR"]\nmessage = "CUDA_ERROR_ILLEGAL_ADDRESS"\n'
    _load(tmp_path, rule, HEAD + "waivable = false\n")


def test_the_defect_outcomes_are_its_rules_and_a_recomputed_deviations() -> None:
    known = {defect.id: defect for defect in load_catalogue()}
    assert {o.value for o in known["rng-expander-aborts"].outcomes} == {"CRASH"}
    assert {o.value for o in known["f64-computed-in-f32"].outcomes} == {"FAIL", "SHARED_DEVIATION"}
    assert {o.value for o in known["narrow-float-sort-wrong"].outcomes} == {"FAIL", "SHARED_DEVIATION"}
