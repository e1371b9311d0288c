"""`pjrt-cts plugins`: every profile listed, installed or not, with the API version read in a subprocess."""
from __future__ import annotations

import json

import pytest

from pjrt_cts import profiles
from pjrt_cts.cli.main import main
from pjrt_cts.cli.plugins import probe_api_version


def test_no_probe_table_lists_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--no-probe"]) == 0
    out = capsys.readouterr().out
    for profile in profiles.list_profiles():
        row = next(line for line in out.splitlines() if line.startswith(profile.name + " "))
        if profile.is_installed():
            assert "installed" in row and str(profile.resolve_library()) in row
        else:
            assert "not installed" in row and profile.install_hint() in row


def test_json_output_carries_the_profile_facts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--no-probe", "--json", "cpu", "intel-gpu"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["cpu"]["create_options"] == {"cpu_device_count": 4}
    assert rows["cpu"]["expected_device_count"] == 4
    assert rows["cpu"]["api_version"] is None  # not probed
    assert rows["intel-gpu"]["needs_hardware"].startswith("Intel GPU")
    if not rows["intel-gpu"]["installed"]:
        assert "pjrt-cts[intel-gpu]" in rows["intel-gpu"]["problems"][0]


def test_unknown_profile_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--no-probe", "nope"]) == 2
    assert "unknown plugin profile 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("name, version", [("cpu", "0.115"), ("cpu-legacy", "0.81")])
def test_probe_reads_the_api_version_in_a_subprocess(name: str, version: str) -> None:
    profile = profiles.get_profile(name)
    try:
        path = profile.resolve_library()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    assert probe_api_version(str(path), profile.create_options, profile.worker_environment(), timeout=120) == version


def test_probe_of_a_non_plugin_reports_the_error(tmp_path) -> None:
    bogus = tmp_path / "bogus.so"
    bogus.write_text("not a library")
    result = probe_api_version(str(bogus), {}, {}, timeout=60)
    assert result.startswith("error (exit 2")


def test_a_pinned_sha256_is_checked_against_the_installed_file(plugins_tree, fake_distribution, tmp_path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import hashlib

    site = tmp_path / "site-packages"
    content = b"the validated build"
    fake_distribution(site, "pinned-pjrt", {"pinned/plugin.so": content}, version="1.0")
    profile = ('name = "{name}"\ndescription = "pinned"\n[[library]]\ndistribution = "pinned-pjrt"\n'
               'path = "pinned/plugin.so"\nsha256 = "{digest}"\n')
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    plugins_tree("same", profile.format(name="same", digest=hashlib.sha256(content).hexdigest()))
    plugins_tree("other", profile.format(name="other", digest="0" * 64))
    assert main(["plugins", "--no-probe", "--json", "same", "other"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["same"]["sha256"] == rows["same"]["sha256_pinned"] and rows["same"]["problems"] == []
    assert rows["other"]["problems"] == [f"plugin.so has SHA-256 {hashlib.sha256(content).hexdigest()}, not the "
                                         f"{'0' * 64} this profile was validated with (another build under the same "
                                         "version)"]


def test_the_bundled_cpu_profiles_pin_their_validated_builds() -> None:
    for name in ("cpu", "cpu-legacy"):
        profile = profiles.get_profile(name)
        assert profile.pinned_sha256() is not None, name
