"""Finding a profile's plugin and runtime libraries, and the environment its workers get."""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pjrt_cts import profiles
from pjrt_cts.native import elf

FAKE_PROFILE = """\
    name = "fake"
    description = "a plugin that exists only in this test"
    needs_hardware = "a fake accelerator"
    pip_extras = ["fake"]

    [[library]]
    distribution = "fake-pjrt"
    path = "fake_plugin/plugin.so"

    [create_options]
    platform_name = "fake"
    visible_devices = [0, 1]

    [runtime]
    distributions = ["fake-runtime-*"]

    [environment]
    FAKE_DEVICE_SELECTOR = "fake:gpu"
"""


@pytest.mark.parametrize("name", ["cpu", "cpu-legacy"])
def test_cpu_profiles_resolve_to_a_pjrt_plugin(name: str) -> None:
    profile = profiles.get_profile(name)
    try:
        path = profile.resolve_library()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    assert profile.is_installed()
    assert path.is_file() and path.suffix == ".so"
    assert "GetPjrtApi" in elf.defined_dynamic_symbols(path)
    assert profile.soname_report().unresolved == {}
    assert profile.worker_environment() == {}  # nothing to prepare for the CPU plugins
    assert profile.preload_libraries() == []


def test_absent_distribution_says_which_extra_to_install(plugins_tree) -> None:
    plugins_tree("fake", FAKE_PROFILE)
    profile = profiles.get_profile("fake")
    assert not profile.is_installed()
    with pytest.raises(FileNotFoundError, match=r"fake-pjrt.*pip install 'pjrt-cts\[fake\]'"):
        profile.resolve_library()


def test_plugin_and_runtime_found_in_extra_site_packages(plugins_tree, fake_distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "venv" / "lib" / "python3" / "site-packages"
    fake_distribution(site, "fake-pjrt", {"fake_plugin/plugin.so": b"not really ELF"}, version="2.5")
    fake_distribution(site, "fake-runtime-core", {"../../libfake_rt.so.3": b"", "fake_runtime/_ext.so": b""})
    plugins_tree("fake", FAKE_PROFILE)
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    monkeypatch.setenv("LD_LIBRARY_PATH", "/already/there")
    monkeypatch.delenv("FAKE_DEVICE_SELECTOR", raising=False)
    profile = profiles.get_profile("fake")

    assert profile.resolve_library() == site / "fake_plugin" / "plugin.so"
    assert profile.installed_distribution() == ("fake-pjrt", "2.5")
    assert profile.create_options == {"platform_name": "fake", "visible_devices": [0, 1]}
    lib_dir = (tmp_path / "venv" / "lib").resolve()
    assert profile.runtime_library_dirs() == [lib_dir]  # the Python extension's directory is not a library dir
    env = profile.worker_environment()
    assert env["LD_LIBRARY_PATH"] == f"{lib_dir}:/already/there"
    assert env["FAKE_DEVICE_SELECTOR"] == "fake:gpu"
    assert "LD_PRELOAD" not in env

    monkeypatch.setenv("FAKE_DEVICE_SELECTOR", "user:choice")
    assert "FAKE_DEVICE_SELECTOR" not in profile.worker_environment(), "the user's own setting wins"


def test_installed_distribution_without_the_library_is_reported(plugins_tree, fake_distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"
    fake_distribution(site, "fake-pjrt", {"fake_plugin/__init__.py": b""})
    plugins_tree("fake", FAKE_PROFILE)
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    with pytest.raises(FileNotFoundError, match="is installed but has no fake_plugin/plugin.so"):
        profiles.get_profile("fake").resolve_library()


@pytest.mark.parametrize(
    "body, message",
    [
        ('name = "bad"\ndescription = "x"\n[[library]]\ndistribution = "d"\npath = "p.so"\nbogus = 1\n',
         r"unknown field `bogus` - at `\$\.library\[0\]`"),
        ('name = "bad"\ndescription = "x"\n', "missing required field `library`"),
        ('name = "bad"\ndescription = "x"\nlibrary = []\n', r"Expected `array` of length >= 1 - at `\$\.library`"),
        ('name = "other"\ndescription = "x"\n[[library]]\ndistribution = "d"\npath = "p.so"\n', "differs from its directory"),
        ('name = "bad"\ndescription = "x"\n[[library]]\ndistribution = "d"\npath = "p.so"\n[create_options]\nx = {a = 1}\n',
         r"got `object` - at `\$\.create_options"),
        ('name = "bad"\ndescription = "x"\nexpected_device_count = true\n[[library]]\ndistribution = "d"\npath = "p.so"\n',
         r"Expected `int \| null`, got `bool` - at `\$\.expected_device_count`"),
        ('name = "bad"\ndescription = "x"\nno_device_error_codes = ["NO_DEVICE"]\n[[library]]\ndistribution = "d"\npath = "p.so"\n',
         r"Invalid enum value 'NO_DEVICE' - at `\$\.no_device_error_codes\[0\]`"),
        ('name = "bad"\ndescription = "x"\n[[library]]\ndistribution = "d"\npath = "p.so"\n[[runtime.shim]]\nname = "nope"\npatches = "l.so.1"\nsymbols = []\n', "no native helper source"),
        ('name = "bad"\ndescription = ', "invalid TOML"),
    ],
)
def test_malformed_profiles_are_rejected_with_the_file_named(plugins_tree, body: str, message: str) -> None:
    directory = plugins_tree("bad", body)
    with pytest.raises(profiles.ProfileError, match=message) as caught:
        profiles.get_profile("bad")
    assert str(caught.value).startswith(str(directory / "profile.toml"))


@pytest.mark.parametrize("name", ["cpu", "cpu-legacy", "intel-gpu"])
def test_preparing_a_worker_does_not_load_the_plugin(name: str) -> None:
    """Run in a fresh interpreter, so that no other test has loaded the plugin into it."""
    profile = profiles.get_profile(name)
    if not profile.is_installed():
        pytest.skip(f"{name} is not installed")
    script = (
        "import sys; from pjrt_cts.profiles import get_profile\n"
        f"p = get_profile({name!r}); p.worker_environment(); p.soname_report(); p.needed_shims()\n"
        "path = str(p.resolve_library().resolve())\n"
        "print('LOADED' if path in open('/proc/self/maps').read() else 'NOT LOADED')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "NOT LOADED"


def _installed_intel_profile() -> profiles.Profile:
    profile = profiles.get_profile("intel-gpu")
    if not profile.is_installed():
        pytest.skip("jax-oneapi-pjrt is not installed (pip install 'pjrt-cts[intel-gpu]', "
                    f"or point {profiles.SITE_PACKAGES_ENV} at an environment that has it)")
    return profile


def test_intel_gpu_worker_environment_points_at_its_oneapi_runtime() -> None:
    profile = _installed_intel_profile()
    report = profile.soname_report()
    if report.unresolved:
        pytest.skip(f"sonames missing on this host: {report.unresolved}")
    env = profile.worker_environment()
    library_dirs = env["LD_LIBRARY_PATH"].split(":")
    assert any((Path(d) / "libsycl.so.8").exists() for d in library_dirs)
    assert any((Path(d) / "libur_loader.so.0").exists() for d in library_dirs)
    assert env.get("ONEAPI_DEVICE_SELECTOR", os.environ.get("ONEAPI_DEVICE_SELECTOR")) is not None
    loader = profiles.find_system_library("libze_loader.so.1")
    assert loader is not None
    lacks_symbols = "zeDeviceGetRootDevice" not in elf.defined_dynamic_symbols(loader)
    preloaded = env.get("LD_PRELOAD", "")
    assert ("libze_shim.so" in preloaded) == lacks_symbols
    if lacks_symbols:
        assert Path(preloaded.split(" ")[0]).is_file()
        assert profile.preload_libraries()[0].name == "libze_shim.so"


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on this host")
def test_runtime_out_of_the_plugins_runpath_is_preloaded_as_one_bundle(plugins_tree, fake_distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin needing libfakert.so.1, which only the runtime distribution provides (not its RUNPATH):
    the report says so, and the preload makes the plugin loadable in-process."""
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    build = tmp_path / "build"
    build.mkdir()
    (build / "rt.c").write_text("int fake_rt_answer(void) { return 42; }\n")
    (build / "plugin.c").write_text("int fake_rt_answer(void);\nint GetPjrtApi(void) { return fake_rt_answer(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libfakert.so.1", "-o", str(build / "libfakert.so.1"), str(build / "rt.c")], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(build / "plugin.so"), str(build / "plugin.c"),
                    "-L", str(build), "-l:libfakert.so.1"], check=True)
    site = tmp_path / "venv" / "lib" / "python3" / "site-packages"
    fake_distribution(site, "fake-pjrt", {"fake_plugin/plugin.so": (build / "plugin.so").read_bytes()})
    fake_distribution(site, "fake-runtime-core", {"../../libfakert.so.1": (build / "libfakert.so.1").read_bytes()})
    plugins_tree("fake", FAKE_PROFILE)
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    profile = profiles.get_profile("fake")

    report = profile.soname_report()
    runtime_lib = (tmp_path / "venv" / "lib" / "libfakert.so.1").resolve()
    assert report.resolved["libfakert.so.1"] == runtime_lib
    assert report.needs_preload == [runtime_lib]
    with pytest.raises(OSError, match="libfakert.so.1"):
        ctypes.CDLL(str(profile.resolve_library()))  # not loadable on its own
    preload = profile.preload_libraries()
    assert len(preload) == 1 and preload[0].name == "libpjrt_cts_bundle.so"
    for library in preload:
        ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    assert ctypes.CDLL(str(profile.resolve_library())).GetPjrtApi() == 42


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on this host")
def test_unresolvable_soname_is_reported_with_the_profiles_hint(plugins_tree, fake_distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = tmp_path / "build"
    build.mkdir()
    (build / "gone.c").write_text("int gone(void) { return 0; }\n")
    (build / "plugin.c").write_text("int gone(void);\nint GetPjrtApi(void) { return gone(); }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libgonefake.so.7", "-o", str(build / "libgonefake.so.7"), str(build / "gone.c")], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(build / "plugin.so"), str(build / "plugin.c"), "-L", str(build), "-l:libgonefake.so.7"], check=True)
    site = tmp_path / "site-packages"
    fake_distribution(site, "fake-pjrt", {"fake_plugin/plugin.so": (build / "plugin.so").read_bytes()})
    plugins_tree("fake", FAKE_PROFILE + '\n[runtime.system_libraries]\n"libgonefake.so.7" = "apt-get install gonefake"\n')
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    report = profiles.get_profile("fake").soname_report()
    assert report.unresolved == {"libgonefake.so.7": "apt-get install gonefake"}
    assert "libgonefake.so.7" not in report.resolved


def test_the_distribution_of_a_plugin_file_is_the_one_whose_record_lists_it(fake_distribution, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"
    fake_distribution(site, "fake-pjrt", {"fake_plugin/plugin.so": b"not really ELF"}, version="2.5")
    fake_distribution(site, "fake-other", {"fake_plugin/other.so": b""}, version="1.0")
    monkeypatch.setenv(profiles.SITE_PACKAGES_ENV, str(site))
    assert profiles.distribution_of_file(site / "fake_plugin" / "plugin.so") == ("fake-pjrt", "2.5")
    (site / "fake_plugin" / "copied.so").write_bytes(b"")
    assert profiles.distribution_of_file(site / "fake_plugin" / "copied.so") is None  # no RECORD lists it


def test_profile_topologies_give_the_runs_topology_specs(plugins_tree, capsys: pytest.CaptureFixture[str]) -> None:
    """`[[topology]]`: a target file beside profile.toml becomes the create option target_config (the multi-device
    variant's too); `run` leaves out one whose file is missing with a warning naming the command that makes it, and
    refuses it when the user names it."""
    from pjrt_cts.cli.main import UsageError
    from pjrt_cts.cli.run import run_topologies

    directory = plugins_tree("fake", FAKE_PROFILE + """
    [[topology]]
    label = "big"
    target_config_file = "targets/big.txtpb"
    options = { topology = "1x1x1" }
    multi_device_options = { topology = "1x1x2" }

    [[topology]]
    label = "v9:2x2"
    """)
    profile = profiles.get_profile("fake")
    assert [topology.label for topology in profile.topologies] == ["big", "v9:2x2"]
    assert [spec.label for spec in run_topologies(profile, [], [])] == ["v9:2x2"]
    assert "pjrt-cts aot export-target --plugin fake" in capsys.readouterr().err
    with pytest.raises(UsageError, match="big.txtpb, which does not exist"):
        run_topologies(profile, ["big"], [])
    (directory / "targets").mkdir()
    (directory / "targets" / "big.txtpb").write_text("gpu_device_info { core_count: 1 }\n")
    big, small = run_topologies(profile, [], ["seed=7"])
    assert big.options == {"topology": "1x1x1", "target_config": "gpu_device_info { core_count: 1 }\n", "seed": 7}
    assert big.multi_device_options == {**big.options, "topology": "1x1x2"}
    assert (small.name, small.options, small.multi_device_options) == ("v9:2x2", {"seed": 7}, None)
    assert run_topologies(profile, ["v4:2x2x1"], [])[0].name == "v4:2x2x1"  # not the profile's: the plugin's name
