"""Submission bundles: one run's claim in one file that a third party can check without rerunning it.

`pjrt-cts run --bundle FILE` and `pjrt-cts bundle OUT_DIR -o FILE` pack (`pack_bundle`); `pjrt-cts verify FILE`
checks (`verify_bundle`). A bundle is a zip with fixed timestamps and member order (the same run gives the same
bytes) holding:

- results.json: the run's records, as written;
- summary.json: when the run wrote one;
- expectations.toml: the expectations file the records were judged by (absent when the run had none);
- claim.json: what the bundle claims: the verdict, level and verdict line, and the facts the claim rests on
  (the plugin's SHA-256, the suite version, the suites' and the golden corpus's hashes, the expectations
  file's hash, the profile) and the machine (results.json `environment`);
- MANIFEST.json: the SHA-256 of every other member.

A bundle is not signed: whoever can edit it can rewrite it consistently. What verify guarantees is that the claim
is the one its records support (the verdict is recomputed from them with the one verdict function, the waivers
from the bundled expectations file), that no record contradicts itself and the stored counts are the records'
(an outcome edited alone, its message, defect, numeric diff and confirmation left saying otherwise, is refused),
that the facts agree with one another and with this installation of pjrt-cts, and, given the binary, that the
claim is about that plugin. docs/bundles.md.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pjrt_cts import __version__
from pjrt_cts.judgment.contradictions import contradicting_records, count_problems
from pjrt_cts.judgment.results import ResultsError, parse_results
from pjrt_cts.judgment.summary import run_summary
from pjrt_cts.judgment.verdict import judge_results
from pjrt_cts.runner.binding import (RunBinding, corpus_digest, describe_conditions, file_digest, installed_judge,
                                     judge_differences, short_fact, tree_digest)
from pjrt_cts.runner.controller.expectations import Expectations, ExpectationsError, apply_expectation
from pjrt_cts.schema import BundleManifest, Results, decode, encode

FORMAT = "pjrt-cts-bundle"
FORMAT_VERSION = 1
MANIFEST = "MANIFEST.json"
RESULTS = "results.json"
SUMMARY = "summary.json"
EXPECTATIONS = "expectations.toml"
CLAIM = "claim.json"
_REQUIRED = (RESULTS, CLAIM)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no member carries the time it was packed
_MAX_MEMBER_BYTES = 1 << 30  # a full run's results.json is ~12 MB: a larger member is no bundle's

# The binding's facts a claim repeats; a bundle holds the rest of the binding in results.json.
_CLAIMED_FACTS = ("plugin_sha256", "suite_version", "suites_sha256", "corpus_sha256", "expectations_sha256",
                  "profile", "judge_sha256")
# The facts that say which pjrt-cts judged the run: what this installation must share to recompute its verdict.
_SUITE_FACTS = {"suite_version": "pjrt-cts version", "suites_sha256": "suites (SHA-256 of the test files)",
                "corpus_sha256": "golden corpus (SHA-256 of its manifest)"}


class BundleError(ValueError):
    """A run directory that cannot be bundled, or a file that is no bundle."""


# -- packing --------------------------------------------------------------------------------------


def pack_bundle(out_dir: Path, bundle: Path) -> str:
    """Pack the run in `out_dir` into `bundle`; returns the bundle's digest (the SHA-256 of its manifest)."""
    if bundle.resolve() in {(out_dir / name).resolve() for name in (RESULTS, SUMMARY)}:
        raise BundleError(f"the bundle {bundle} would overwrite the run's own {bundle.name}: write it elsewhere")
    results_bytes = _read(out_dir / RESULTS)
    results = _parse_results(results_bytes, str(out_dir / RESULTS))
    binding = RunBinding.from_dict(results.binding or {})
    if binding is None:
        raise BundleError(f"{out_dir / RESULTS} records no binding (plugin, suite and corpus hashes): "
                          "it was written by an older pjrt-cts and cannot be bundled")
    summary = results.summary or {}
    if "verdict" not in summary:
        raise BundleError(f"{out_dir / RESULTS} has no verdict (an interrupted run?): nothing to claim")
    members = {RESULTS: results_bytes}
    if (out_dir / SUMMARY).is_file():
        members[SUMMARY] = _read(out_dir / SUMMARY)
    if binding.expectations_sha256:
        members[EXPECTATIONS] = _expectations_bytes(results, binding.expectations_sha256)
    claim = {"verdict": summary["verdict"], "level": summary.get("level"), "line": summary.get("line"),
             **{name: getattr(binding, name) for name in _CLAIMED_FACTS},
             "environment": results.environment}
    members[CLAIM] = _json_bytes(claim)
    manifest = _json_bytes(BundleManifest(FORMAT, FORMAT_VERSION,
                                          {name: _sha256(data) for name, data in sorted(members.items())}))
    _write_zip(bundle, {MANIFEST: manifest, **dict(sorted(members.items()))})
    return _sha256(manifest)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BundleError(f"cannot read {path}: {exc.strerror}") from exc


def _parse_results(data: bytes, origin: str) -> Results:
    try:
        return parse_results(data, origin)
    except ResultsError as exc:
        raise BundleError(f"{origin} is not a readable results file: {exc}") from exc


def _expectations_bytes(results: Results, digest: str) -> bytes:
    """The expectations file the run was judged by, as long as it is unchanged since."""
    name = (results.expectations or {}).get("file")
    if not name:
        raise BundleError("results.json names no expectations file, yet its binding has one's hash")
    data = _read(Path(name))
    if _sha256(data) != digest:
        raise BundleError(f"the expectations file {name} changed since the run (its SHA-256 is not the one the run "
                          "recorded): the bundle would not hold the file the records were judged by")
    return data


def _json_bytes(data: Any) -> bytes:
    return encode(data, indent=1, sort_keys=True) + b"\n"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_zip(path: Path, members: dict[str, bytes]) -> None:
    """Members in the given order, each with the same time and mode; written whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            for name, data in members.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# -- verifying ------------------------------------------------------------------------------------


OK, FAILED, NOTE = "ok", "FAIL", "note"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # OK, FAILED, or NOTE (reported, does not decide)
    detail: str

    def line(self) -> str:
        return f"{self.status:<4}  {self.name}: {self.detail}"


@dataclass
class Verification:
    checks: list[Check] = field(default_factory=list)
    claim_line: str = ""  # the claimed verdict line
    digest: str = ""  # the SHA-256 of the manifest

    @property
    def holds(self) -> bool:
        return bool(self.checks) and all(check.status != FAILED for check in self.checks)

    def conclusion(self) -> str:
        if self.holds:
            return f"claim holds: {self.claim_line}"
        return "claim does not hold: " + "; ".join(f"{c.name}: {c.detail}" for c in self.checks if c.status == FAILED)

    def add(self, name: str, problems: list[str], ok_detail: str, *, status: str = FAILED) -> None:
        self.checks.append(Check(name, status, "; ".join(problems)) if problems else Check(name, OK, ok_detail))


def verify_bundle(bundle: Path, plugin_binary: Path | None = None, other_suite_ok: bool = False) -> Verification:
    """Every check of docs/bundles.md, in order; a bundle that cannot be read stops at the first."""
    found = Verification()
    try:
        members = _read_zip(bundle)
        manifest_bytes = members.pop(MANIFEST)
        manifest = decode(manifest_bytes, BundleManifest)
        if manifest.format != FORMAT:
            raise BundleError(f"{MANIFEST} is not a {FORMAT} manifest")
        if manifest.version != FORMAT_VERSION:
            raise BundleError(f"bundle format version {manifest.version!r}; this pjrt-cts reads {FORMAT_VERSION}")
    except (BundleError, KeyError, ValueError) as exc:
        reason = f"no {MANIFEST}" if isinstance(exc, KeyError) else str(exc)
        found.checks.append(Check("bundle", FAILED, reason))
        return found
    found.digest = _sha256(manifest_bytes)  # the number `run --bundle` printed
    found.add("manifest", _manifest_problems(manifest.members, members),
              f"{len(members)} members match their SHA-256")
    missing = [name for name in _REQUIRED if name not in members]
    if missing:
        found.checks.append(Check("bundle", FAILED, f"no {', '.join(missing)}"))
        return found
    try:
        results = _parse_results(members[RESULTS], RESULTS)
        claim = _json_object(members[CLAIM], CLAIM)
        summary = _json_object(members[SUMMARY], SUMMARY) if SUMMARY in members else None
    except (BundleError, ValueError) as exc:
        found.checks.append(Check("bundle", FAILED, str(exc)))
        return found
    found.claim_line = str(claim.get("line") or claim.get("verdict"))
    found.add("facts", _fact_problems(claim, results, summary), "the claim's plugin, suite, corpus, expectations "
              "and machine are the ones results.json records")
    found.add("expectations", *_expectation_check(members.get(EXPECTATIONS), claim.get("expectations_sha256"), results))
    found.add("records", _record_problems(results), f"no record contradicts itself; the summary's counts are the "
              f"{len(results.tests)} records'")
    found.add("verdict", *_verdict_check(claim, results, summary))
    if summary is not None:
        found.add("summary", _summary_problems(summary, results), f"{SUMMARY} is the summary of the bundled records")
    found.checks.append(_plugin_check(claim.get("plugin_sha256"), plugin_binary))
    here = installed_suite()
    problems = _suite_problems(claim, results, here)
    found.add("suite", problems, f"judged by this pjrt-cts {__version__} (its code, suites, golden corpus and "
              f"profiles alike: {len(here['judge_files'] or {})} files)", status=NOTE if other_suite_ok else FAILED)
    found.checks.append(Check("conditions", NOTE, describe_conditions(results.binding or {})))
    return found


def _json_object(data: bytes, name: str) -> dict[str, Any]:
    value = decode(data, Any)
    if not isinstance(value, dict):
        raise BundleError(f"{name} is not a JSON object")
    return value


def _read_zip(path: Path) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if len(set(names)) != len(names):
                raise BundleError("a member name occurs twice")
            too_large = [info.filename for info in archive.infolist() if info.file_size > _MAX_MEMBER_BYTES]
            if too_large:
                raise BundleError(f"{too_large[0]} unpacks to more than {_MAX_MEMBER_BYTES >> 20} MiB")
            return {name: archive.read(name) for name in names}
    except (zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:  # not a zip, a damaged member
        raise BundleError(f"{path} is not a readable zip file: {exc}") from exc
    except OSError as exc:
        raise BundleError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _manifest_problems(listed: Any, members: dict[str, bytes]) -> list[str]:
    if not isinstance(listed, dict):
        return [f"{MANIFEST} lists no members"]
    problems = [f"{name} is missing" for name in sorted(set(listed) - set(members))]
    problems += [f"{name} is not listed" for name in sorted(set(members) - set(listed))]
    problems += [f"{name} differs from its SHA-256 in the manifest" for name in sorted(set(listed) & set(members))
                 if _sha256(members[name]) != listed[name]]
    return problems


def _fact_problems(claim: dict[str, Any], results: Results, summary: dict[str, Any] | None) -> list[str]:
    """The claim.json facts against results.json (its binding, the probe's plugin hash, the tool, the machine)
    and against the facts summary.json repeats."""
    binding = results.binding or {}
    problems = [f"{name}: {short_fact(claim.get(name))} claimed, {short_fact(binding.get(name))} in results.json"
                for name in _CLAIMED_FACTS if claim.get(name) != binding.get(name)]
    probed = (results.plugin or {}).get("sha256")
    if probed is not None and probed != claim.get("plugin_sha256"):
        problems.append(f"plugin_sha256: {short_fact(claim.get('plugin_sha256'))} claimed, {short_fact(probed)} probed "
                        "(results.json plugin)")
    tool = (results.tool or {}).get("version")
    if tool is not None and tool != claim.get("suite_version"):
        problems.append(f"suite_version: {claim.get('suite_version')!r} claimed, results.json written by {tool!r}")
    if claim.get("environment") != results.environment:
        problems.append("environment: the claimed machine is not the one results.json records")
    problems += [f"{name}: {short_fact(claim.get(name))} claimed, {short_fact(summary[name])} in {SUMMARY}"
                 for name in _CLAIMED_FACTS if summary is not None and name in summary and summary[name] != claim.get(name)]
    return problems


def _expectation_check(content: bytes | None, claimed: Any, results: Results) -> tuple[list[str], str]:
    """The bundled file is the one claimed, and applying it to what each test did gives the recorded outcome
    (no record is XFAIL without a waiver of the file that covers it)."""
    if not claimed:
        expectations = Expectations()
        if content is not None:
            return [f"{EXPECTATIONS} is bundled but the claim names no expectations file"], ""
    else:
        if content is None:
            return [f"no {EXPECTATIONS} in the bundle, yet the claim names one ({short_fact(claimed)})"], ""
        if _sha256(content) != claimed:
            return [f"{EXPECTATIONS} is not the file claimed ({short_fact(_sha256(content))} bundled, "
                    f"{short_fact(claimed)} claimed)"], ""
        try:
            expectations = _load_expectations(content)
        except ExpectationsError as exc:
            return [f"{EXPECTATIONS} does not load: {exc}"], ""
    differ = [(test, apply_expectation(test, expectations).outcome) for test in results.tests]
    differ = [(test, outcome) for test, outcome in differ if outcome is not test.outcome]
    if differ:
        test, outcome = differ[0]
        return [f"{len(differ)} record(s) are not what the expectations make of them, first {test.id}: "
                f"{test.outcome.value} recorded, {outcome.value} from {test.actual_outcome.value}"], ""
    waived = sum(1 for test in results.tests if test.expected is not None)
    what = f"{EXPECTATIONS} ({short_fact(claimed)})" if claimed else "no expectations file"
    return [], f"{what} gives every record its outcome ({waived} record(s) carry an entry)"


def _load_expectations(content: bytes) -> Expectations:
    with tempfile.TemporaryDirectory(prefix="pjrt-cts-bundle-") as folder:
        path = Path(folder) / EXPECTATIONS
        path.write_bytes(content)
        return Expectations.load(path)


_LISTED_CONTRADICTIONS = 3


def _record_problems(results: Results) -> list[str]:
    """Records that contradict themselves (pjrt_cts.judgment.contradictions: a PASS with a failure's message,
    defect or numeric diff, a confirmation of another outcome ...) and results.json summary counts that are not the
    records': what an outcome edited alone leaves behind."""
    contradictions = contradicting_records(results.tests)
    problems = [f"{test.id}: {why}" for test, why in contradictions[:_LISTED_CONTRADICTIONS]]
    if len(contradictions) > _LISTED_CONTRADICTIONS:
        problems.append(f"and {len(contradictions) - _LISTED_CONTRADICTIONS} more record(s) that contradict themselves")
    return problems + count_problems(results)


def _verdict_check(claim: dict[str, Any], results: Results, summary: dict[str, Any] | None) -> tuple[list[str], str]:
    """The verdict, level and verdict line recomputed from the records (judge_results) against every place that
    claims them (a place without a line is held to the verdict and level)."""
    judged = judge_results(results)
    claims = {CLAIM: _claimed(claim), f"{RESULTS} summary": _claimed(results.summary or {})}
    if summary is not None:
        claims[SUMMARY] = _claimed(summary)
    wrong = [f"{where} claims {_verdict_words(verdict, level, line)}" for where, (verdict, level, line) in claims.items()
             if (verdict, level) != (judged.verdict, judged.level) or line not in (None, judged.line())]
    if wrong:
        return [f"the records give {judged.line()!r}, but " + ", ".join(wrong)], ""
    return [], f"recomputed from {len(results.tests)} records: {judged.line()}"


def _summary_problems(summary: dict[str, Any], results: Results) -> list[str]:
    """summary.json against the summary the records give (judgment.summary.run_summary): every field, so that
    defect counts or identity edited in the summary alone (the file a matrix reads) are caught too."""
    expected = run_summary(results).to_json()
    differing = sorted(key for key in set(summary) | set(expected) if summary.get(key) != expected.get(key))
    return [f"{SUMMARY} differs from the records' summary in {', '.join(differing)}"] if differing else []


def _claimed(data: dict[str, Any]) -> tuple[Any, Any, Any]:
    return data.get("verdict"), data.get("level"), data.get("line")


def _verdict_words(verdict: Any, level: Any, line: Any) -> str:
    return repr(line) if line else f"{verdict} · level {level}" if level else str(verdict)


def _plugin_check(claimed: Any, binary: Path | None) -> Check:
    if binary is None:
        return Check("plugin", NOTE, f"claimed SHA-256 {claimed}; not compared with a binary (--plugin-binary)")
    actual = file_digest(binary)
    if actual is None:
        return Check("plugin", FAILED, f"cannot read {binary}")
    if actual != claimed:
        return Check("plugin", FAILED, f"{binary} has SHA-256 {short_fact(actual)}, the claim is about {short_fact(claimed)}")
    return Check("plugin", OK, f"{binary} is the plugin the claim is about ({short_fact(actual)})")


def installed_suite() -> dict[str, Any]:
    """This installation's suite facts, as a run's binding records them (the judge file by file included)."""
    from pjrt_cts.resources import golden_dir, suites_dir

    return {"suite_version": __version__, "suites_sha256": tree_digest(suites_dir()),
            "corpus_sha256": corpus_digest(golden_dir()), **installed_judge()}


def _suite_problems(claim: dict[str, Any], results: Results, here: dict[str, Any]) -> list[str]:
    """The claim's judge against this installation: the version, the suites' and corpus's digests, and every
    judging file (named when it differs; a claim whose results.json binds no judge cannot be held to this one)."""
    problems = [f"{label}: {short_fact(claim.get(name))} claimed, {short_fact(here[name])} installed"
                for name, label in _SUITE_FACTS.items() if claim.get(name) != here[name]]
    problems += judge_differences(results.binding or {}, here, mine="claimed", theirs="installed")
    if problems:
        problems.append("the claim was judged by another pjrt-cts (code, suites, corpus or profiles) than this one; "
                        "its verdict is recomputed with this one's levels and mandatory lists")
    return problems

