"""The suites' hooks end to end (a throwaway pytest session per test), the outcome mapping of the support
package's exceptions, and the "one way" rules the tree keeps."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pjrt_cts.runner.worker.outcomes import classify_exception
from pjrt_cts.testing.outcomes import BlockedByFailure, CorpusUnreadable

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]

FAKE_CONFTEST = '''
import pytest
from pjrt_cts.runtime import MissingFunction
from pjrt_cts.testing import requirements


class Plugin:
    version_string = "0.81"
    api_version = (0, 81)

    def function(self, name):
        raise MissingFunction("PJRT_" + name, "0.81", "slot 95 is NULL")


class Device:
    id = 0
    memories = []


class Client:
    addressable_devices = [Device()]
    plugin = Plugin()


@pytest.fixture(scope="session")
def plugin():
    return Plugin()


@pytest.fixture(scope="session")
def client():
    return Client()


@pytest.fixture(autouse=True)
def _declared_requirements(request):
    requirements.resolve_requirements(request)
'''

REQUIRING_TESTS = '''
import pytest
from pjrt_cts.testing import device_index_params, requires


@pytest.mark.parametrize("index", device_index_params(2))
def test_per_device(client, index):
    assert client.addressable_devices[index]


@requires("Executable_Fingerprint")
def test_fingerprint(plugin):
    raise AssertionError("must not run")
'''


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "pjrt_cts.runner.worker.plugin", "-rsE", *args)


def test_requires_marker_on_params_and_functions_is_not_supported_before_the_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FAKE_CONFTEST)
    pytester.makepyfile(test_requiring=REQUIRING_TESTS)
    result = _run(pytester)
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines([
        "*NOT_SUPPORTED: requires 2 addressable devices; the plugin has 1*",
        "*NOT_SUPPORTED: requires PJRT_Executable_Fingerprint: missing slot (API 0.81): slot 95 is NULL*",
    ])


UNREADABLE_CONFTEST = '''
import pjrt_cts.golden
from pjrt_cts.testing import corpus


def _broken(root=None):
    raise pjrt_cts.golden.CorpusError("manifest.json: Expecting value: line 1 column 1 (char 0)")


pjrt_cts.golden.load_manifest = _broken


def pytest_runtest_setup(item):
    corpus.raise_if_unreadable(item)
'''

GOLDEN_TESTS = '''
from pjrt_cts.testing import golden_param, golden_version_param, one_case_per_family


@golden_param()
def test_case(case):
    raise AssertionError("must not run")


@golden_version_param(one_case_per_family())
def test_version(case, version):
    raise AssertionError("must not run")
'''


def test_unreadable_corpus_is_one_error_per_golden_test_function(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(UNREADABLE_CONFTEST)
    pytester.makepyfile(test_golden=GOLDEN_TESTS)
    result = _run(pytester)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*test_case?golden_corpus_unreadable?*", "*test_version?golden_corpus_unreadable?*",
                                 "*the golden corpus could not be read: */manifest.json.gz: CorpusError: manifest.json*"])


def test_blocked_and_suite_errors_have_their_own_outcomes() -> None:
    assert classify_exception(BlockedByFailure("blocked: PJRT_Client_Create failed")) == (
        "FAIL", "blocked: PJRT_Client_Create failed")
    assert classify_exception(CorpusUnreadable("cannot read golden/x.npz")) == ("ERROR", "cannot read golden/x.npz")


def test_an_unexpected_unimplemented_error_is_not_not_supported() -> None:
    from pjrt_cts.runtime import PjrtError, MissingFunction

    assert classify_exception(PjrtError("PJRT_Client_Compile", "UNIMPLEMENTED", "no dot_general")) == (None, "")
    missing = MissingFunction("PJRT_Executable_Fingerprint", "0.81", "slot 95 is NULL")
    assert classify_exception(missing) == (
        "NOT_SUPPORTED", "requires PJRT_Executable_Fingerprint: missing slot (API 0.81): slot 95 is NULL")


def _python_files(*directories: str) -> list[Path]:
    return [path for directory in directories for path in (ROOT / directory).rglob("*.py")]


def test_not_supported_is_raised_only_by_the_requirements_module() -> None:
    allowed = {ROOT / "pjrt_cts/testing/requirements.py"}
    offenders = [str(path.relative_to(ROOT)) for path in _python_files("suites", "pjrt_cts/testing")
                 if path not in allowed
                 and re.search(r"FeatureNotSupported\(|skip\(\s*f?[\"']NOT_SUPPORTED", path.read_text(encoding="utf-8"))]
    assert not offenders, f"NOT_SUPPORTED produced outside pjrt_cts/testing/requirements.py: {offenders}"


def test_suites_keep_one_support_package() -> None:
    offenders = [str(path.relative_to(ROOT)) for path in _python_files("suites")
                 if re.search(r"sys\.path|^def assert_same|from _programs|suite_support", path.read_text(encoding="utf-8"),
                              re.M)]
    assert not offenders, f"suites must import helpers from pjrt_cts.testing only: {offenders}"


BLOCKED_TESTS = '''
import pytest
from pjrt_cts.testing import BlockedByFailure


@pytest.fixture(scope="session")
def client():
    raise BlockedByFailure("blocked: no device (see client.client_create.test_x)", "client.client_create.test_x")


def test_one(client):
    pass


def test_two(client):
    pass
'''


def test_a_blocked_test_records_the_test_that_reports_its_cause(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_blocked=BLOCKED_TESTS)
    reports = pytester.inline_run("-p", "pjrt_cts.runner.worker.plugin").getreports("pytest_runtest_logreport")
    setups = [report for report in reports if report.when == "setup"]
    assert len(setups) == 2 and all(report.failed for report in setups)
    assert [report.pjrt_cts["details"]["blocked_by"] for report in setups] == ["client.client_create.test_x"] * 2
    assert {report.pjrt_cts["outcome"] for report in setups} == {"FAIL"}
