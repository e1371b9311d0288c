"""The ELF reader (checked against readelf/nm) and the Level Zero shim built on demand."""
from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from pjrt_cts import native, profiles
from pjrt_cts.native import elf

ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003
SHIM_SYMBOLS = ("zeCommandListHostSynchronize", "zeDeviceGetRootDevice", "zeImageViewCreateExt")
needs_cc = pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on this host")


def _default_plugin() -> Path:
    try:
        return profiles.get_profile("cpu").resolve_library()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.mark.skipif(not shutil.which("readelf"), reason="readelf (binutils) not installed")
def test_needed_and_runpath_match_readelf() -> None:
    plugin = _default_plugin()
    dynamic = subprocess.run(["readelf", "-d", str(plugin)], capture_output=True, text=True, check=True).stdout
    expected_needed = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    info = elf.dynamic_info(plugin)
    assert info.needed == expected_needed and expected_needed
    expected_runpath = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(RUNPATH)" in line or "(RPATH)" in line]
    assert ":".join(info.runpath) == ":".join(expected_runpath)


@pytest.mark.skipif(not shutil.which("nm"), reason="nm (binutils) not installed")
def test_defined_symbols_match_nm() -> None:
    library = profiles.find_system_library("libz.so.1")
    if library is None:
        pytest.skip("no libz.so.1 on this host")
    listing = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True).stdout
    expected = {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()}
    assert elf.defined_dynamic_symbols(library) == expected


def test_not_an_elf_file_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "plugin.so"
    text.write_text("not a library")
    with pytest.raises(elf.NotElfError):
        elf.dynamic_info(text)


@needs_cc
def test_shim_is_built_once_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path))
    first = native.build_shared_library("ze_shim")
    assert first.is_relative_to(tmp_path / "native") and first.name == "libze_shim.so"
    assert set(SHIM_SYMBOLS) <= elf.defined_dynamic_symbols(first)
    mtime = first.stat().st_mtime_ns
    assert native.build_shared_library("ze_shim") == first and first.stat().st_mtime_ns == mtime
    assert [p.name for p in first.parent.iterdir()] == ["libze_shim.so"], "no temporary files left behind"


@needs_cc
def test_shim_answers_unsupported_feature_without_a_loader_that_has_the_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path))
    loader = profiles.find_system_library("libze_loader.so.1")
    if loader is not None and "zeDeviceGetRootDevice" in elf.defined_dynamic_symbols(loader):
        pytest.skip("this host's Level Zero loader has the function: the shim would forward to it")
    shim = ctypes.CDLL(str(native.build_shared_library("ze_shim")))
    root = ctypes.c_void_p()
    assert shim.zeDeviceGetRootDevice(None, ctypes.byref(root)) == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    assert shim.zeCommandListHostSynchronize(None, ctypes.c_uint64(0)) == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE


@needs_cc
def test_shim_is_needed_only_when_the_system_library_lacks_its_symbols(plugins_tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    plugins_tree("shimmed", """\
        name = "shimmed"
        description = "x"
        [[library]]
        distribution = "nothing-installed"
        path = "p.so"
        [[runtime.shim]]
        name = "ze_shim"
        patches = "libfakeze.so.1"
        symbols = ["zeCommandListHostSynchronize", "zeDeviceGetRootDevice", "zeImageViewCreateExt"]
    """)
    old, new = tmp_path / "old", tmp_path / "new"
    for directory, symbols in ((old, ["zeInit"]), (new, ["zeInit", *SHIM_SYMBOLS])):
        directory.mkdir()
        source = directory / "fake.c"
        source.write_text("".join(f"int {name}(void) {{ return 0; }}\n" for name in symbols))
        subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libfakeze.so.1", "-o", str(directory / "libfakeze.so.1"), str(source)], check=True)
    profile = profiles.get_profile("shimmed")

    monkeypatch.setenv("LD_LIBRARY_PATH", str(old))
    assert [s.name for s in profile.needed_shims()] == ["ze_shim"]
    assert profile.worker_environment()["LD_PRELOAD"].endswith("libze_shim.so")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(new))
    assert profile.needed_shims() == []
    assert "LD_PRELOAD" not in profile.worker_environment()


def test_ze_shim_source_ships_with_the_package() -> None:
    source = native.source_path("ze_shim")
    text = source.read_text()
    for name in SHIM_SYMBOLS:
        assert f"{name}(" in text
    assert not list(source.parent.glob("*.so")), "binaries are built into the cache, never shipped"


def _cc_library(directory: Path, name: str, source: str, *link: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.c").write_text(source)
    target = directory / name
    subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{name}", "-o", str(target), str(directory / f"{name}.c"), *link], check=True)
    return target


@needs_cc
def test_bundle_loads_libraries_that_need_each_other_without_saying_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PJRT_CTS_CACHE_DIR", str(tmp_path / "cache"))
    # Like MKL's layers: each calls into the other, neither lists the other in DT_NEEDED.
    libs = tmp_path / "libs"
    first = _cc_library(libs, "libcyclea.so.1", "int cycle_b(void);\nint cycle_a(void) { return 1; }\nint call_b(void) { return cycle_b(); }\n")
    second = _cc_library(libs, "libcycleb.so.1", "int cycle_a(void);\nint cycle_b(void) { return 2; }\nint call_a(void) { return cycle_a(); }\n")
    with pytest.raises(OSError, match="undefined symbol: cycle_b"):
        ctypes.CDLL(str(first), mode=ctypes.RTLD_GLOBAL)  # ctypes binds immediately: one by one cannot work
    bundle = native.build_needed_bundle([first, second])
    assert elf.dynamic_info(bundle).needed[:2] == ["libcyclea.so.1", "libcycleb.so.1"]
    ctypes.CDLL(str(bundle), mode=ctypes.RTLD_GLOBAL)
    assert ctypes.CDLL(str(first)).call_b() == 2
    assert ctypes.CDLL(str(second)).call_a() == 1
