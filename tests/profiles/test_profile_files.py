"""The shipped plugins/ tree: every profile and expectations file is valid and complete."""
from __future__ import annotations

import re
import sys

import pytest

from pjrt_cts import profiles
from pjrt_cts.resources import plugins_dir

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REQUIRED_PROFILES = {"cpu", "cpu-legacy", "cuda", "intel-gpu", "intel-gpu-itex", "tpu", "rocm"}
EXPECTATION_OUTCOMES = {"FAIL", "CRASH", "TIMEOUT", "NOT_SUPPORTED", "WARNING"}


def test_every_required_profile_is_listed_default_first() -> None:
    names = [p.name for p in profiles.list_profiles()]
    assert REQUIRED_PROFILES <= set(names)
    assert names[0] == profiles.DEFAULT_PROFILE == "cpu"
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", sorted(REQUIRED_PROFILES))
def test_profile_is_complete(name: str) -> None:
    profile = profiles.get_profile(name)
    assert profile.description
    assert profile.libraries, "a profile must say which distribution ships the plugin"
    for candidate in profile.libraries:
        assert candidate.path.endswith(".so")
    assert profile.expectations_path is not None, f"plugins/{name}/expectations.toml is missing"
    assert profile.install_hint().startswith("pip install")
    if profile.needs_hardware is None:
        assert profile.expected_device_count is not None  # CPU profiles know their device count


@pytest.mark.parametrize("path", sorted(plugins_dir().glob("*/expectations.toml")), ids=lambda p: p.parent.name)
def test_expectations_file_has_the_documented_format(path) -> None:
    """Every bundled file is read by the runner's own parser (which rejects catch-all ids, causes that pin nothing
    and unknown defects), starts with a header, and waives defects of the catalogue."""
    from pjrt_cts.judgment.defects import defect_ids
    from pjrt_cts.runner.controller.expectations import Expectations

    text = path.read_text()
    assert text.startswith("#"), "expectations files start with a header comment"
    data = tomllib.loads(text)
    assert set(data) <= {"expectation"}
    entries = Expectations.load(path).entries
    for entry in entries:
        assert entry.reason.strip()
        assert entry.defect is None or entry.defect in defect_ids()
        if entry.defect is None and entry.outcome.value in {"FAIL", "CRASH", "ERROR"}:
            assert entry.cause and re.compile(entry.cause)


def test_gpu_profiles_use_their_plugins_create_options() -> None:
    assert profiles.get_profile("cuda").create_options == {"platform_name": "cuda", "preallocate": False, "allocator": "bfc"}
    assert profiles.get_profile("intel-gpu").create_options == {"platform_name": "SYCL"}
    assert profiles.get_profile("cpu").create_options == {"cpu_device_count": 4}


def test_unknown_profile_is_a_key_error_naming_the_known_ones() -> None:
    with pytest.raises(KeyError) as caught:
        profiles.get_profile("no-such-plugin")
    assert "no-such-plugin" in str(caught.value) and "intel-gpu" in str(caught.value)
    with pytest.raises(KeyError):
        profiles.get_profile("../cpu")
