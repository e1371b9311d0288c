"""Submission bundles (pjrt_cts/runner/files/bundle.py): `run --bundle` / `bundle` pack a run, `verify` checks a claim.

A real run of two layers (`run --layers abi,client --bundle`) gives an untouched bundle of an INCOMPLETE claim; a
run directory built from the synthetic records gives CONFORMANT and NON_CONFORMANT claims. Each edit is made twice
where it matters: with the manifest left alone (the manifest catches it) and with the manifest rewritten to match
(only the check that recomputes the fact catches it).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

from pjrt_cts import __version__
from pjrt_cts.cli.main import main
from pjrt_cts.judgment.results import build_results, write_results
from pjrt_cts.judgment.summary import run_summary, write_summary
from pjrt_cts.runner.binding import judge_digest
from pjrt_cts.runner.files.bundle import CLAIM, MANIFEST, RESULTS, SUMMARY, installed_suite, pack_bundle, verify_bundle
from pjrt_cts.runner.controller.expectations import Expectations, apply_expectation
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.schema import Results, TestRecord

from .conftest import load_synthetic, make_clean, recount

Members = dict[str, bytes]

# The synthetic run's one waiver (execute.golden...[control.while.bf16.r2]), as an expectations file writes it.
EXPECTATIONS_TOML = """\
[[expectation]]
id = "execute.golden.test_case_matches_reference[control.while.bf16.*]"
outcome = "FAIL"
cause = "max_abs_err=0\\\\.125"
reason = "bf16 loop accumulation drifts"
"""
# A mandatory test of every level that PASSes in the synthetic clean run.
MANDATORY_PASS = "client.client_create.test_client_creates_with_profile_options"


# -- bundles to check -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(out dir, bundle) of `pjrt-cts run --layers abi,client --bundle` against the bundled CPU plugin."""
    folder = tmp_path_factory.mktemp("bundle-run")
    out, bundle = folder / "out", folder / "claim.zip"
    run = subprocess.run(
        [sys.executable, "-m", "pjrt_cts", "run", "--layers", "abi,client", "--out", str(out), "--bundle", str(bundle),
         "-n", "1", "--no-progress", "--no-report"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 3, run.stdout[-3000:] + run.stderr[-3000:]  # two layers: INCOMPLETE
    assert f"bundle: {bundle}" in run.stdout
    return out, bundle


def synthetic_run(folder: Path, edit: Callable[[dict[str, Any]], None] = lambda record: None,
                  conditions: dict[str, Any] | None = None) -> Path:
    """A run directory as `pjrt-cts run` leaves it, from the synthetic records made clean (CONFORMANT at every
    level with one waiver); `edit` changes a record before it is judged; `conditions` adds to the binding."""
    folder.mkdir(parents=True)
    expectations_file = folder / "expectations.toml"
    expectations_file.write_text(EXPECTATIONS_TOML, encoding="utf-8")
    expectations = Expectations.load(expectations_file)
    plugin = stand_in_plugin(folder)
    raw = make_clean(load_synthetic())["tests"]
    for record in raw:
        edit(record)
    tests = [apply_expectation(TestRecord.from_json(record), expectations) for record in raw]
    binding = {**installed_suite(), "plugin_sha256": sha256(plugin), "profile": None, "create_options": "{}",
               "expectations_sha256": expectations.fingerprint(), **(conditions or {})}
    results = build_results(
        tool_version=__version__, started_at="2026-01-01T00:00:00+00:00", finished_at="2026-01-01T00:10:00+00:00",
        wall_seconds=600.0, command=["pjrt-cts", "run", str(plugin)], profile=None,
        plugin={"path": str(plugin), "sha256": sha256(plugin)},
        environment={"python": "3.11", "platform": "test", "cpu_count": 2},
        expectations=expectations.describe([], tests), compatibility={}, tests=tests, facts={"binding": binding},
    )  # fmt: skip
    write_results(results, folder / RESULTS)
    return folder


def stand_in_plugin(folder: Path) -> Path:
    plugin = folder / "libplugin.so"
    plugin.write_bytes(b"\x7fELF a stand-in: only its SHA-256 matters here")
    return plugin


@pytest.fixture
def conformant(tmp_path: Path) -> Path:
    bundle = tmp_path / "conformant.zip"
    pack_bundle(synthetic_run(tmp_path / "run"), bundle)
    assert claim_of(bundle)["line"] == "CONFORMANT · level Multi-device · 1 waived defect (1 test)"
    return bundle


@pytest.fixture
def non_conformant(tmp_path: Path) -> Path:
    def fail(record: dict[str, Any]) -> None:
        if record["id"] == MANDATORY_PASS:
            record.update(outcome="FAIL", message="PJRT_Client_Create failed")

    bundle = tmp_path / "non-conformant.zip"
    pack_bundle(synthetic_run(tmp_path / "run", fail), bundle)
    assert claim_of(bundle)["verdict"] == "NON_CONFORMANT"
    return bundle


# -- editing a bundle -----------------------------------------------------------------------------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def members_of(bundle: Path) -> Members:
    with zipfile.ZipFile(bundle) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def claim_of(bundle: Path) -> dict[str, Any]:
    return json.loads(members_of(bundle)[CLAIM])


def edited(bundle: Path, target: Path, edit: Callable[[Members], None], *, rewrite_manifest: bool) -> Path:
    """A copy of `bundle` with `edit` applied to its members; the manifest rewritten to match, or left alone."""
    members = members_of(bundle)
    edit(members)
    if rewrite_manifest:
        manifest = json.loads(members[MANIFEST])
        manifest["members"] = {name: hashlib.sha256(data).hexdigest()
                               for name, data in sorted(members.items()) if name != MANIFEST}
        members[MANIFEST] = json.dumps(manifest).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def edit_json(name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Members], None]:
    def edit(members: Members) -> None:
        data = json.loads(members[name])
        change(data)
        members[name] = json.dumps(data, indent=1).encode()

    return edit


def edit_record(test_id: str | None, **fields: Any) -> Callable[[Members], None]:
    """Change one record of results.json (`test_id` None: the first PASS), and the summary's counts with it (what
    a careful forger would do: only what recomputes the verdict can catch it)."""
    def change(results: dict[str, Any]) -> None:
        record = next(test for test in results["tests"]
                      if test["id"] == test_id or (test_id is None and test["outcome"] == "PASS"))
        record.update(fields)
        recount(results)

    return edit_json(RESULTS, change)


def verify(capsys: pytest.CaptureFixture[str], bundle: Path, *options: str) -> tuple[int, str]:
    code = main(["verify", str(bundle), *options])
    return code, capsys.readouterr().out


def failed_checks(output: str) -> list[str]:
    return [line.split()[1].rstrip(":") for line in output.splitlines() if line.startswith("FAIL")]


# -- untouched bundles hold -----------------------------------------------------------------------


def test_the_bundle_of_a_real_run_holds_its_claim(real_run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, bundle = real_run
    assert sorted(members_of(bundle)) == sorted([MANIFEST, RESULTS, CLAIM, "expectations.toml"]
                                                + ([SUMMARY] if (out / SUMMARY).is_file() else []))
    results = json.loads((out / RESULTS).read_text(encoding="utf-8"))
    claim = claim_of(bundle)
    assert claim["environment"] == results["environment"]
    assert {key: claim[key] for key in results["binding"] if key in claim} == {
        key: value for key, value in results["binding"].items() if key in claim}
    plugin = results["plugin"]["path"]
    code, output = verify(capsys, bundle, "--plugin-binary", plugin)
    assert code == 0, output
    assert output.splitlines()[-1] == f"claim holds: {results['summary']['line']}"
    assert output.splitlines()[-1].startswith("claim holds: INCOMPLETE: partial selection (abi,client)")
    assert f"ok    plugin: {plugin} is the plugin the claim is about" in output


def test_bundling_a_run_again_gives_the_same_bytes(real_run: tuple[Path, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out, bundle = real_run
    assert main(["bundle", str(out), "-o", str(tmp_path / "again.zip")]) == 0
    assert (tmp_path / "again.zip").read_bytes() == bundle.read_bytes()
    digest = hashlib.sha256(members_of(bundle)[MANIFEST]).hexdigest()
    assert f"(manifest SHA-256 {digest})" in capsys.readouterr().out  # the number to publish beside the bundle
    assert f"(manifest SHA-256 {digest})" in verify(capsys, bundle)[1]


def test_a_conformant_claim_with_a_waiver_holds(conformant: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = verify(capsys, conformant)
    assert code == 0, output
    assert "claim holds: CONFORMANT · level Multi-device · 1 waived defect (1 test)" in output
    assert "1 record(s) carry an entry" in output
    assert "note  plugin: claimed SHA-256" in output  # no binary given: said, not decided


# -- edited bundles do not --------------------------------------------------------------------------


def test_an_edited_record_breaks_the_manifest(real_run: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bundle = edited(real_run[1], tmp_path / "b.zip", edit_record(None, outcome="FAIL"), rewrite_manifest=False)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert "results.json differs from its SHA-256 in the manifest" in output
    assert output.splitlines()[-1].startswith("claim does not hold: manifest:")


def test_a_pass_turned_fail_contradicts_the_claimed_verdict(real_run: tuple[Path, Path], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    bundle = edited(real_run[1], tmp_path / "b.zip", edit_record(None, outcome="FAIL", message="edited"),
                    rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    # the manifest matches: only what is recomputed from the records catches it (the verdict, and the summary
    # a real run bundles)
    assert failed_checks(output) == ["verdict", "summary"]
    assert "the records give 'NON_CONFORMANT: 1 bad result(s) (FAIL)" in output


def test_a_conformant_claim_over_a_failing_record_does_not_hold(conformant: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    bundle = edited(conformant, tmp_path / "b.zip", edit_record(MANDATORY_PASS, outcome="FAIL", message="edited"),
                    rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert failed_checks(output) == ["verdict"]
    assert "claim.json claims 'CONFORMANT · level Multi-device" in output


def test_a_failure_turned_pass_contradicts_a_non_conformant_claim(non_conformant: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert verify(capsys, non_conformant)[0] == 0  # the true claim holds
    bundle = edited(non_conformant, tmp_path / "b.zip",
                    edit_record(MANDATORY_PASS, outcome="PASS", message="", defect=None), rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert failed_checks(output) == ["verdict"]
    assert "the records give 'CONFORMANT · level Multi-device" in output


def test_a_waiver_the_expectations_file_does_not_hold_is_rejected(real_run: tuple[Path, Path], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    waiver = {"pattern": "client.*", "outcome": "FAIL", "cause": None, "reason": "invented", "url": None,
              "actual": "FAIL"}
    bundle = edited(real_run[1], tmp_path / "b.zip", edit_record(None, outcome="XFAIL", message="boom", expected=waiver),
                    rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert "expectations" in failed_checks(output)
    assert "XFAIL recorded, FAIL from FAIL" in output


def test_an_edited_plugin_hash_is_rejected(real_run: tuple[Path, Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    other = "0" * 64

    def claim_other(claim: dict[str, Any]) -> None:
        claim["plugin_sha256"] = other

    alone = edited(real_run[1], tmp_path / "alone.zip", edit_json(CLAIM, claim_other), rewrite_manifest=False)
    assert "claim.json differs from its SHA-256" in verify(capsys, alone)[1]
    rewritten = edited(real_run[1], tmp_path / "rewritten.zip", edit_json(CLAIM, claim_other), rewrite_manifest=True)
    code, output = verify(capsys, rewritten)
    assert code == 1
    assert failed_checks(output) == ["facts"]
    assert "plugin_sha256: 000000000000… claimed" in output


def test_a_consistently_edited_plugin_hash_is_caught_by_the_binary(real_run: tuple[Path, Path], tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    other = "0" * 64

    def everywhere(members: Members) -> None:
        edit_json(CLAIM, lambda claim: claim.update(plugin_sha256=other))(members)
        edit_json(RESULTS, lambda results: (results["binding"].update(plugin_sha256=other),
                                            results["plugin"].update(sha256=other)))(members)
        edit_json(SUMMARY, lambda summary: summary.update(plugin_sha256=other))(members)

    bundle = edited(real_run[1], tmp_path / "b.zip", everywhere, rewrite_manifest=True)
    plugin = json.loads((real_run[0] / RESULTS).read_text(encoding="utf-8"))["plugin"]["path"]
    code, output = verify(capsys, bundle, "--plugin-binary", plugin)
    assert code == 1
    assert failed_checks(output) == ["plugin"]


def test_another_binary_than_the_claimed_one_is_rejected(conformant: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.so"
    other.write_bytes(b"another plugin")
    code, output = verify(capsys, conformant, "--plugin-binary", str(other))
    assert code == 1
    assert failed_checks(output) == ["plugin"]
    assert output.splitlines()[-1].startswith(f"claim does not hold: plugin: {other} has SHA-256")


def test_a_claim_of_another_suite_fails_unless_accepted(conformant: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    def older(members: Members) -> None:
        edit_json(CLAIM, lambda claim: claim.update(suites_sha256="1" * 64))(members)
        edit_json(RESULTS, lambda results: results["binding"].update(suites_sha256="1" * 64))(members)

    bundle = edited(conformant, tmp_path / "b.zip", older, rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert failed_checks(output) == ["suite"]
    assert "suites (SHA-256 of the test files): 111111111111… claimed" in output
    code, output = verify(capsys, bundle, "--other-suite-ok")
    assert code == 0, output
    assert "note  suite:" in output


def test_a_claim_judged_by_edited_code_fails_naming_the_file(conformant: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 53's reproduction: a pjrt-cts whose golden/compare.py finds every result equal made the claim; its
    binding (as such a run writes it, every hash consistent) differs from this installation's in that file."""
    def judged_elsewhere(members: Members) -> None:
        binding = json.loads(members[RESULTS])["binding"]
        files = {**binding["judge_files"], "pjrt_cts/golden/compare.py": "e" * 64}
        edit_json(RESULTS, lambda results: results["binding"].update(judge_files=files,
                                                                     judge_sha256=judge_digest(files)))(members)
        edit_json(CLAIM, lambda claim: claim.update(judge_sha256=judge_digest(files)))(members)

    bundle = edited(conformant, tmp_path / "b.zip", judged_elsewhere, rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert failed_checks(output) == ["suite"]
    assert "FAIL  suite: judging code: pjrt_cts/golden/compare.py differs;" in output
    assert verify(capsys, bundle, "--other-suite-ok")[0] == 0


def test_a_claim_from_before_the_judge_was_bound_cannot_be_bound(conformant: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A results.json written before bindings held the judge and the conditions loads and verifies as far as it
    can; the suite check says the claim cannot be bound to its judge."""
    new_facts = ("judge_sha256", "judge_files", "plugin_environment", "user_settings")

    def older(members: Members) -> None:
        edit_json(RESULTS, lambda results: [results["binding"].pop(name, None) for name in new_facts])(members)
        edit_json(CLAIM, lambda claim: claim.pop("judge_sha256"))(members)

    bundle = edited(conformant, tmp_path / "b.zip", older, rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1
    assert failed_checks(output) == ["suite"]
    assert "judge: no hashes of the code, suites, golden corpus and profiles that judged the records (claimed)" in output
    assert "cannot be bound to their judge" in output
    assert "note  conditions: the binding records no plugin environment or user settings" in output


def test_the_conditions_of_the_claim_are_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = synthetic_run(tmp_path / "run", conditions={"plugin_environment": {"XLA_FLAGS": "--xla_a"},
                                                      "user_settings": {"fuzz_seed": 0, "timeout": 120.0}})
    bundle = tmp_path / "b.zip"
    pack_bundle(out, bundle)
    code, output = verify(capsys, bundle)
    assert code == 0, output
    assert ("note  conditions: plugin environment: XLA_FLAGS='--xla_a'; user settings: fuzz_seed=0, timeout=120.0"
            in output)


def test_summary_json_is_bundled_and_held_to_the_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = synthetic_run(tmp_path / "run")
    write_summary(run_summary(Results.from_json(json.loads((out / RESULTS).read_text(encoding="utf-8")))), out / SUMMARY)
    bundle = tmp_path / "b.zip"
    pack_bundle(out, bundle)
    assert members_of(bundle)[SUMMARY] == (out / SUMMARY).read_bytes()
    assert verify(capsys, bundle)[0] == 0

    def demote(data: dict[str, Any]) -> None:
        data.update(verdict="INCOMPLETE", level=None, line="INCOMPLETE: no test passed")

    code, output = verify(capsys, edited(bundle, tmp_path / "verdict.zip", edit_json(SUMMARY, demote),
                                         rewrite_manifest=True))
    assert code == 1
    assert failed_checks(output) == ["verdict", "summary"]
    assert "summary.json claims 'INCOMPLETE: no test passed'" in output
    code, output = verify(capsys, edited(bundle, tmp_path / "plugin.zip",
                                         edit_json(SUMMARY, lambda data: data.update(plugin_sha256="0" * 64)),
                                         rewrite_manifest=True))
    assert code == 1
    assert failed_checks(output) == ["facts", "summary"]
    assert "000000000000… in summary.json" in output
    code, output = verify(capsys, edited(bundle, tmp_path / "defects.zip",
                                         edit_json(SUMMARY, lambda data: data.update(defects=[])),
                                         rewrite_manifest=True))
    assert code == 1
    assert failed_checks(output) == ["summary"]
    assert "summary.json differs from the records' summary in defects" in output


# -- what is no bundle ----------------------------------------------------------------------------


def test_a_file_that_is_no_bundle_does_not_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "claim.zip"
    text.write_text("not a zip", encoding="utf-8")
    code, output = verify(capsys, text)
    assert code == 1
    assert output.splitlines()[-1].startswith("claim does not hold: bundle:")
    assert main(["verify", str(tmp_path / "missing.zip")]) == 2


def test_a_run_directory_without_results_or_with_a_changed_expectations_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bundle", str(tmp_path), "-o", str(tmp_path / "b.zip")]) == 2
    out = synthetic_run(tmp_path / "run")
    (out / "expectations.toml").write_text(EXPECTATIONS_TOML + "# edited after the run\n", encoding="utf-8")
    assert main(["bundle", str(out), "-o", str(tmp_path / "b.zip")]) == 2
    assert "changed since the run" in capsys.readouterr().err
    assert not (tmp_path / "b.zip").exists()


def test_verify_bundle_reports_every_check_in_order(conformant: Path) -> None:
    found = verify_bundle(conformant)
    assert [check.name for check in found.checks] == ["manifest", "facts", "expectations", "records", "verdict", "plugin",
                                                      "suite", "conditions"]
    assert found.holds


# -- one-field forgeries (issue 53 item 7) ----------------------------------------------------------

GOLDEN_FAILURES = ("execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]",
                   "execute.golden.test_case_matches_reference[linalg.convolution.f16.r2]")


def failing_run(folder: Path) -> Path:
    """A run directory whose golden cases fail as a wrong kernel makes them: a message, a numeric diff."""
    def wrong_values(record: dict[str, Any]) -> None:
        if record["id"] in GOLDEN_FAILURES:
            record.update(outcome="FAIL", message="output 0: 12 of 16 values differ (bf16): max abs err 0.5",
                          details=dict(record["details"], max_abs_err=0.5, max_rel_err=0.25, num_mismatches=12,
                                       first_mismatch_index=[0, 1]))

    return synthetic_run(folder, wrong_values)


def forge(out: Path, change: Callable[[TestRecord], TestRecord]) -> Path:
    """`out`'s results with `change` applied to each record and every summary recomputed by the project's own
    functions (build_results, run_summary): a forgery only the records themselves can give away."""
    real = Results.from_json(json.loads((out / RESULTS).read_text(encoding="utf-8")))
    tests = [change(test) for test in real.tests]
    forged = build_results(
        tool_version=__version__, started_at=str(real.started_at), finished_at=str(real.finished_at),
        wall_seconds=float(real.wall_seconds or 0), command=list(real.command or []), profile=real.profile,
        plugin=dict(real.plugin or {}), environment=dict(real.environment or {}),
        expectations=dict(real.expectations or {}), compatibility={}, tests=tests,
        facts={"binding": real.binding})
    write_results(forged, out / RESULTS)
    write_summary(run_summary(forged), out / SUMMARY)
    return out


def flip_failures_to_pass(test: TestRecord) -> TestRecord:
    return dataclasses.replace(test, outcome=Outcome.PASS) if test.outcome is Outcome.FAIL else test


def test_failures_flipped_to_pass_with_their_summaries_recomputed_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reproduction of issue 53 item 7: only `outcome` of the FAIL records changed, every summary recomputed
    with the project's own functions, the bundle packed by `pjrt-cts bundle`: verify refuses it."""
    out = failing_run(tmp_path / "run")
    honest = tmp_path / "honest.zip"
    pack_bundle(out, honest)
    assert verify(capsys, honest)[0] == 0 and claim_of(honest)["verdict"] == "NON_CONFORMANT"
    forged = tmp_path / "forged.zip"
    pack_bundle(forge(out, flip_failures_to_pass), forged)
    assert claim_of(forged)["verdict"] == "NON_CONFORMANT"  # the records give themselves away to the verdict too
    code, output = verify(capsys, forged)
    assert code == 1
    assert failed_checks(output) == ["records"]
    assert f"{GOLDEN_FAILURES[0]}: PASS attributed to the defect" in output
    assert "2 record(s) contradict themselves" in claim_of(forged)["line"]


def test_a_pass_carrying_only_a_failure_message_and_its_numeric_diff_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same forgery with the defect cleared too: the message and the numeric diff still say FAIL."""
    out = failing_run(tmp_path / "run")
    forged = tmp_path / "forged.zip"
    pack_bundle(forge(out, lambda test: dataclasses.replace(flip_failures_to_pass(test), defect=None)), forged)
    code, output = verify(capsys, forged)
    assert code == 1 and failed_checks(output) == ["records"]
    assert "PASS with a failure's details (max_abs_err, max_rel_err, first_mismatch_index, num_mismatches)" in output


def test_summary_counts_that_do_not_add_up_are_refused(conformant: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    def inflate(results: dict[str, Any]) -> None:
        results["summary"]["totals"]["PASS"] += 100

    bundle = edited(conformant, tmp_path / "b.zip", edit_json(RESULTS, inflate), rewrite_manifest=True)
    code, output = verify(capsys, bundle)
    assert code == 1 and failed_checks(output) == ["records"]
    assert 'summary totals {"PASS": ' in output and "are not the records'" in output
