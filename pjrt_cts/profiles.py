"""Plugin profiles: how to find, prepare and judge each real PJRT plugin.

A profile is `plugins/<name>/profile.toml` (format: plugins/README.md). It names the Python
distribution that ships the plugin's .so, the distributions that ship the shared libraries it
needs, native shims to build, client create options, the hardware it needs and its known
deviations; `plugins/<name>/expectations.toml` says which test outcomes are known.

Nothing here loads a plugin: resolving paths reads package metadata and ELF headers only.
"""
from __future__ import annotations

import fnmatch
import importlib.metadata as metadata
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Union

import msgspec
from msgspec import Meta, Struct

from pjrt_cts import native
from pjrt_cts.native import elf
from pjrt_cts.resources import plugins_dir
from pjrt_cts.schema import TopologySpec, convert_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_PROFILE = "cpu"
# Extra site-packages directories searched for plugin and runtime distributions after sys.path,
# so a plugin installed in another environment can be tested from this one.
SITE_PACKAGES_ENV = "PJRT_CTS_SITE_PACKAGES"

CreateOptionValue = Union[str, int, float, bool, list]
_VERSIONED_LIBRARY = re.compile(r"^lib.*\.so\.\d+(\.\d+)*$")
_DEFAULT_LIBRARY_DIRS = ("/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib")


PjrtErrorCodeName = Literal[
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]
CreateOption = Union[str, int, float, bool, list[int]]  # a PJRT_NamedValue's kinds


# ---- profile.toml as its TOML parser gives it (docs/schema/profile.schema.json is generated from these) ------------
class LibraryEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[library]]`: where a distribution keeps the plugin."""

    distribution: str
    path: str
    sha256: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")] | None = None


class ShimEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[runtime.shim]]`: a pjrt_cts/native/<name>.c library preloaded when `patches` lacks `symbols`."""

    name: str
    patches: str
    symbols: list[str] = []
    reason: str = ""


class RuntimeTable(Struct, forbid_unknown_fields=True, kw_only=True):
    """`[runtime]`: the plugin's runtime libraries."""

    distributions: list[str] = []
    preload: list[str] = []
    shim: list[ShimEntry] = []
    system_libraries: dict[str, str] = {}


class DeviationEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[deviation]]`: a documented way the plugin departs from the C API."""

    summary: str
    reason: str
    url: str | None = None


class TopologyEntry(Struct, forbid_unknown_fields=True, kw_only=True):
    """A `[[topology]]`: one the aot layer compiles for without a device."""

    label: Annotated[str, Meta(min_length=1)]
    name: str | None = None  # absent: the label
    options: dict[str, CreateOption] = {}
    multi_device_options: dict[str, CreateOption] | None = None
    target_config_file: str | None = None


class ProfileFile(Struct, forbid_unknown_fields=True, kw_only=True):
    """plugins/<name>/profile.toml: how to find, load and run one plugin."""

    name: str
    description: str
    needs_hardware: str | None = None
    expected_device_count: int | None = None
    platform: str | None = None
    pip_extras: list[str] = []
    install: str | None = None
    notes: str = ""
    library: Annotated[list[LibraryEntry], Meta(min_length=1)]
    create_options: dict[str, CreateOption] = {}
    runtime: RuntimeTable = msgspec.field(default_factory=RuntimeTable)
    environment: dict[str, str] = {}
    deviation: list[DeviationEntry] = []
    no_device_error_codes: list[PjrtErrorCodeName] = []
    topology: list[TopologyEntry] = []



class ProfileError(ValueError):
    """A profile.toml is malformed (names the file and the offending key)."""


@dataclass(frozen=True)
class LibraryCandidate:
    distribution: str  # PyPI name, e.g. "jax-oneapi-pjrt"
    path: str  # the .so inside the distribution, relative to its site-packages directory
    # The SHA-256 of the .so the suite was validated with, where the profile pins one: `pjrt-cts plugins` says
    # when the installed file differs (another build under the same version number).
    sha256: str | None = None


@dataclass(frozen=True)
class Shim:
    """A pjrt_cts/native/<name>.c library preloaded when the system's `patches` lacks `symbols`."""

    name: str
    patches: str  # soname of the library the shim completes
    symbols: tuple[str, ...]
    reason: str = ""


@dataclass(frozen=True)
class Deviation:
    summary: str
    reason: str
    url: str | None = None


@dataclass(frozen=True)
class ProfileTopology:
    """A `[[topology]]` of a profile: PJRT_TopologyDescription_Create(`name`, `options`), named `label` by the run."""

    label: str
    name: str
    options: dict[str, CreateOptionValue]
    multi_device_options: dict[str, CreateOptionValue] | None  # the topology of the multi-device programs, if other
    target_config_file: str | None  # beside profile.toml; its text is the create option `target_config` (CUDA)


class TopologyUnavailable(FileNotFoundError):
    """A profile topology's target file is missing (says how to make it)."""


@dataclass
class SonameReport:
    """Where each soname the plugin needs (transitively, through runtime libraries) resolves."""

    resolved: dict[str, Path] = field(default_factory=dict)
    unresolved: dict[str, str] = field(default_factory=dict)  # soname -> hint (how to get it)
    # The runtime closure, dependencies first, when part of it is reachable only through the runtime
    # distributions (not through any RUNPATH); empty when the plugin finds its runtime by itself.
    needs_preload: list[Path] = field(default_factory=list)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _search_paths(first: str | None = None) -> list[str]:
    extra = [p for p in os.environ.get(SITE_PACKAGES_ENV, "").split(os.pathsep) if p]
    return [*([first] if first else []), *sys.path, *extra]


def find_distribution(name: str) -> metadata.Distribution | None:
    """The first installed distribution called `name` on sys.path (+ $PJRT_CTS_SITE_PACKAGES)."""
    wanted = _normalize(name)
    for dist in metadata.distributions(path=_search_paths()):
        if _normalize(dist.metadata["Name"] or "") == wanted:
            return dist
    return None



def distribution_of_file(path: str | Path) -> tuple[str, str] | None:
    """(name, version) of the installed distribution whose RECORD lists the file `path` (a plugin .so), if any:
    a run names the plugin's distribution whether it came from a profile or a bare path."""
    target = Path(os.path.realpath(path))
    for dist in metadata.distributions(path=_search_paths()):
        root = Path(os.path.realpath(str(dist.locate_file(""))))
        try:
            relative = target.relative_to(root).as_posix()
        except ValueError:
            continue
        if any(entry.as_posix() == relative for entry in dist.files or ()):
            return str(dist.metadata["Name"]), dist.version
    return None

def _find_distributions(patterns: Iterable[str], first: str | None = None) -> list[metadata.Distribution]:
    """Installed distributions whose names match any fnmatch pattern, in pattern order, each once;
    a distribution in the `first` directory wins over one of the same name elsewhere."""
    normalized = [_normalize(p) for p in patterns]
    installed: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions(path=_search_paths(first)):
        installed.setdefault(_normalize(dist.metadata["Name"] or ""), dist)
    found: list[metadata.Distribution] = []
    for pattern in normalized:
        for name in sorted(installed):
            if fnmatch.fnmatchcase(name, pattern) and installed[name] not in found:
                found.append(installed[name])
    return found


def _library_dirs_of(dist: metadata.Distribution) -> list[Path]:
    """Directories holding the distribution's versioned shared libraries (lib*.so.N, from its RECORD):
    where sonames live; directories of plugins, toolchain runtimes or Python extensions are left out."""
    dirs: list[Path] = []
    for entry in dist.files or ():
        if _VERSIONED_LIBRARY.match(entry.name):
            directory = Path(os.path.normpath(str(dist.locate_file(entry)))).parent
            if directory not in dirs:
                dirs.append(directory)
    return dirs


_ldconfig_cache: dict[str, Path] | None = None


def _ldconfig_libraries() -> dict[str, Path]:
    """soname -> path from the dynamic linker cache (`ldconfig -p`), read once per process."""
    global _ldconfig_cache
    if _ldconfig_cache is None:
        _ldconfig_cache = {}
        for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"):
            try:
                output = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=10).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            entries = [m.groups() for m in re.finditer(r"^\s*(\S+) \(([^)]*)\) => (\S+)$", output, re.M)]
            # 64-bit entries first: a 32-bit copy of a soname must not shadow the one we can load.
            entries.sort(key=lambda e: not any(mark in e[1] for mark in ("x86-64", "AArch64", "64bit")))
            for soname, _flags, path in entries:
                _ldconfig_cache.setdefault(soname, Path(path))
            break
    return _ldconfig_cache


def _expand_origin(entries: Iterable[str], library: Path) -> list[Path]:
    origin = str(library.parent)
    return [Path(os.path.normpath(e.replace("$ORIGIN", origin).replace("${ORIGIN}", origin))) for e in entries]


def _find_in(dirs: Iterable[Path], soname: str) -> Path | None:
    """`soname` in the first directory that has it, as a normalized absolute path (symlinks kept:
    the name is what the dynamic linker matches)."""
    for directory in dirs:
        candidate = directory / soname
        if candidate.exists():
            return Path(os.path.normpath(os.path.abspath(candidate)))
    return None


def find_system_library(soname: str) -> Path | None:
    """Where the dynamic linker would find `soname` outside any RUNPATH: LD_LIBRARY_PATH, cache, defaults."""
    env_dirs = [Path(p) for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    return _find_in(env_dirs, soname) or _ldconfig_libraries().get(soname) or _find_in(map(Path, _DEFAULT_LIBRARY_DIRS), soname)


class Profile:
    """One plugins/<name>/profile.toml. Cheap to construct; resolution happens on demand."""

    def __init__(self, directory: Path, data: dict[str, Any]) -> None:
        self.directory = directory
        self.file = directory / "profile.toml"
        where = str(self.file)
        spec = convert_file(data, ProfileFile, where, ProfileError)
        self.name: str = spec.name
        if self.name != directory.name:
            raise ProfileError(f"{where}: name {self.name!r} differs from its directory {directory.name!r}")
        self.description: str = spec.description
        self.needs_hardware: str | None = spec.needs_hardware
        self.expected_device_count: int | None = spec.expected_device_count
        # What PJRT_Client_PlatformName must answer (the client layer checks it); what applies to the plugin (its
        # documented options, its multi-node scheme) follows it, never the reported name. None: not known.
        self.platform: str | None = spec.platform
        self.pip_extras: tuple[str, ...] = tuple(spec.pip_extras)
        self.install: str | None = spec.install
        self.notes: str = spec.notes
        self.libraries = tuple(LibraryCandidate(entry.distribution, entry.path, entry.sha256) for entry in spec.library)
        self.create_options: dict[str, CreateOptionValue] = dict(spec.create_options)
        self.runtime_distributions: tuple[str, ...] = tuple(spec.runtime.distributions)
        self.preload_sonames: tuple[str, ...] = tuple(spec.runtime.preload)
        self.shims = tuple(_shim(entry, where) for entry in spec.runtime.shim)
        self.system_libraries: dict[str, str] = dict(spec.runtime.system_libraries)
        self.environment: dict[str, str] = dict(spec.environment)
        self.deviations = tuple(Deviation(entry.summary, entry.reason, entry.url) for entry in spec.deviation)
        # PJRT error codes with which Client_Create says "this host has no device of mine": the run is then
        # INCOMPLETE (documented exit code), not a FAIL of client creation. Decided by code, never by text.
        self.no_device_error_codes: tuple[str, ...] = tuple(spec.no_device_error_codes)
        # The topologies the aot layer compiles for without a device (`[[topology]]`, in order; the first is the one
        # the topology clauses examine): docs/levels.md, "The AOT tier".
        self.topologies: tuple[ProfileTopology, ...] = _topologies(spec.topology, where)

    def __repr__(self) -> str:
        return f"Profile({self.name!r})"

    # ---- the plugin library ------------------------------------------------------------------
    @property
    def expectations_path(self) -> Path | None:
        path = self.directory / "expectations.toml"
        return path if path.is_file() else None

    @property
    def distribution_names(self) -> list[str]:
        return [candidate.distribution for candidate in self.libraries]

    def install_hint(self) -> str:
        """How to install the plugin and its runtime: the profile's own words, else its pip extras."""
        if self.install:
            return self.install
        if self.pip_extras:
            return " or ".join(f"pip install 'pjrt-cts[{extra}]'" for extra in self.pip_extras)
        return " or ".join(f"pip install {name}" for name in self.distribution_names)

    def _installed_candidate(self) -> tuple[metadata.Distribution, LibraryCandidate] | None:
        for candidate in self.libraries:
            dist = find_distribution(candidate.distribution)
            if dist is not None:
                return dist, candidate
        return None

    def is_installed(self) -> bool:
        try:
            self.resolve_library()
        except FileNotFoundError:
            return False
        return True

    def pinned_sha256(self) -> str | None:
        """The SHA-256 the profile pins for the installed candidate's .so (None: none pinned, or not installed)."""
        found = self._installed_candidate()
        return found[1].sha256 if found else None

    def installed_distribution(self) -> tuple[str, str] | None:
        """(name, version) of the distribution that provides the plugin, if installed."""
        found = self._installed_candidate()
        if found is None:
            return None
        return found[0].metadata["Name"], found[0].version

    def resolve_library(self) -> Path:
        """Path of the plugin .so; FileNotFoundError saying what to install when it is absent."""
        found = self._installed_candidate()
        if found is None:
            raise FileNotFoundError(
                f"plugin profile {self.name!r} needs the Python distribution "
                f"{' or '.join(self.distribution_names)}, which is not installed; install it with: {self.install_hint()}"
            )
        dist, candidate = found
        path = Path(os.path.normpath(str(dist.locate_file(candidate.path))))
        if not path.is_file():
            raise FileNotFoundError(
                f"plugin profile {self.name!r}: {dist.metadata['Name']} {dist.version} is installed but has no "
                f"{candidate.path} (expected at {path}); reinstall it with: {self.install_hint()}"
            )
        return path

    # ---- the runtime it needs ---------------------------------------------------------------
    @cached_property
    def _runtime_dists(self) -> list[metadata.Distribution]:
        if not self.runtime_distributions:
            return []
        # Prefer the runtime installed next to the plugin (same environment) over any other.
        found = self._installed_candidate()
        plugin_site = str(found[0].locate_file("")) if found else None
        return _find_distributions(self.runtime_distributions, first=plugin_site)

    def runtime_library_dirs(self) -> list[Path]:
        """Directories of the installed runtime distributions' shared libraries, in profile order."""
        dirs: list[Path] = []
        for dist in self._runtime_dists:
            for directory in _library_dirs_of(dist):
                if directory not in dirs:
                    dirs.append(directory)
        return dirs

    def missing_runtime_distributions(self) -> list[str]:
        """Runtime distribution patterns that match nothing installed."""
        installed = [_normalize(d.metadata["Name"] or "") for d in self._runtime_dists]
        return [p for p in self.runtime_distributions
                if not any(fnmatch.fnmatchcase(n, _normalize(p)) for n in installed)]

    def soname_report(self) -> SonameReport:
        """Resolve every soname the plugin needs, the way the dynamic linker would (RUNPATH, then
        the runtime distributions, then the system), following dependencies through runtime libraries.

        When some runtime library is reachable only through the runtime distributions (not through
        a RUNPATH), loading the plugin in-process needs them preloaded: then all runtime libraries of
        the closure are listed in `needs_preload`, each after its own dependencies."""
        report = SonameReport()
        runtime_dirs = self.runtime_library_dirs()
        runtime_deps: dict[Path, list[Path]] = {}  # runtime library -> runtime libraries it needs
        only_via_runtime_dirs = False
        queue = [self.resolve_library()]
        seen: set[Path] = set(queue)
        while queue:  # breadth first, like the dynamic linker
            library = queue.pop(0)
            try:
                info = elf.dynamic_info(library)
            except (OSError, elf.NotElfError):
                continue
            own_dirs = _expand_origin(info.runpath, library)
            deps = runtime_deps.setdefault(library, [])
            for soname in info.needed:
                loaded = report.resolved.get(soname)
                if loaded is not None:  # already loaded by then: the linker matches it by soname
                    if loaded in seen:
                        deps.append(loaded)
                    continue
                via_runpath = _find_in(own_dirs, soname)
                via_runtime = via_runpath or _find_in(runtime_dirs, soname)
                if via_runtime is None:
                    path = find_system_library(soname)
                    if path is not None:
                        report.resolved[soname] = path
                    elif soname not in report.unresolved:
                        report.unresolved[soname] = self.system_libraries.get(soname, "not found")
                    continue
                report.resolved[soname] = via_runtime
                only_via_runtime_dirs |= via_runpath is None
                deps.append(via_runtime)
                if via_runtime not in seen:
                    seen.add(via_runtime)
                    queue.append(via_runtime)
        if only_via_runtime_dirs:
            plugin = self.resolve_library()
            ordered: list[Path] = []
            done: set[Path] = set()

            def place(library: Path) -> None:  # post-order: dependencies first; cycles cut
                if library in done:
                    return
                done.add(library)
                for dep in runtime_deps.get(library, []):
                    place(dep)
                if library != plugin:
                    ordered.append(library)

            place(plugin)
            report.needs_preload = ordered
        return report

    def needed_shims(self) -> list[Shim]:
        """Shims whose patched system library lacks some of their symbols (older than the plugin expects)."""
        needed = []
        for shim in self.shims:
            library = _find_in(self.runtime_library_dirs(), shim.patches) or find_system_library(shim.patches)
            if library is None:
                continue  # reported as an unresolved soname instead
            try:
                exported = elf.defined_dynamic_symbols(library)
            except (OSError, elf.NotElfError):
                continue
            if any(symbol not in exported for symbol in shim.symbols):
                needed.append(shim)
        return needed

    def shim_libraries(self) -> list[Path]:
        """Build (once, cached) and return the shims this machine needs."""
        return [native.build_shared_library(shim.name) for shim in self.needed_shims()]

    def preload_libraries(self) -> list[Path]:
        """Libraries to ctypes.CDLL(..., RTLD_GLOBAL) before loading the plugin in-process, in order:
        needed shims, the profile's explicit preloads, then (only when the plugin's RUNPATH cannot
        reach its runtime) one generated library that pulls in the whole runtime closure at once."""
        libraries = list(self.shim_libraries())
        runtime_dirs = self.runtime_library_dirs()
        for soname in self.preload_sonames:
            path = _find_in(runtime_dirs, soname)
            if path is not None and path not in libraries:
                libraries.append(path)
        if self.is_installed():
            closure = self.soname_report().needs_preload
            if closure:
                libraries.append(native.build_needed_bundle(closure))
        return libraries

    def topology_spec(self, topology: ProfileTopology) -> TopologySpec:
        """The run's spec of one of the profile's topologies, its target file read (TopologyUnavailable when absent:
        made on a host with the device by `pjrt-cts aot export-target`)."""
        options: dict[str, Any] = dict(topology.options)
        multi = dict(topology.multi_device_options) if topology.multi_device_options is not None else None
        if topology.target_config_file is not None:
            path = self.directory / topology.target_config_file
            if not path.is_file():
                raise TopologyUnavailable(
                    f"topology {topology.label!r} of profile {self.name!r} needs {path}, which does not exist: make it "
                    f"on a host with the device with `pjrt-cts aot export-target --plugin {self.name} -o {path}`")
            options["target_config"] = path.read_text(encoding="utf-8")
            if multi is not None:
                multi["target_config"] = options["target_config"]
        return TopologySpec(label=topology.label, name=topology.name, options=options, multi_device_options=multi)

    def find_topology(self, label: str) -> ProfileTopology | None:
        return next((topology for topology in self.topologies if topology.label == label), None)

    def worker_environment(self) -> dict[str, str]:
        """Variables to add to a worker process's environment (merge over os.environ): runtime library
        dirs prepended to LD_LIBRARY_PATH, shims prepended to LD_PRELOAD, and the profile's
        [environment] defaults where the user has not set them. Never loads the plugin."""
        env: dict[str, str] = {}
        dirs = [str(d) for d in self.runtime_library_dirs()]
        if dirs:
            env["LD_LIBRARY_PATH"] = _prepend_path(dirs, os.environ.get("LD_LIBRARY_PATH", ""), ":")
        shims = [str(p) for p in self.shim_libraries()]
        if shims:
            env["LD_PRELOAD"] = _prepend_path(shims, os.environ.get("LD_PRELOAD", ""), " ")
        for key, value in self.environment.items():
            if key not in os.environ:
                env[key] = value
        return env


def _prepend_path(entries: list[str], existing: str, separator: str) -> str:
    old = [e for e in re.split(r"[: ]" if separator == " " else ":", existing) if e]
    return separator.join([*entries, *[e for e in old if e not in entries]])


# ---- what the file's shape does not say -----------------------------------------------------------------
def _shim(entry: ShimEntry, where: str) -> Shim:
    try:
        native.source_path(entry.name)  # a profile must not name a shim that does not exist
    except native.NativeBuildError as exc:
        raise ProfileError(f"{where}: {exc}") from None
    return Shim(entry.name, entry.patches, tuple(entry.symbols), entry.reason)


def _topologies(entries: list[TopologyEntry], where: str) -> tuple[ProfileTopology, ...]:
    labels = [entry.label for entry in entries]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ProfileError(f"{where} [[topology]]: label {repeated[0]!r} is repeated")
    return tuple(ProfileTopology(entry.label, entry.label if entry.name is None else entry.name, dict(entry.options),
                                 None if entry.multi_device_options is None else dict(entry.multi_device_options),
                                 entry.target_config_file) for entry in entries)


# ---- discovery --------------------------------------------------------------------------------
def load_profile(directory: Path) -> Profile:
    file = directory / "profile.toml"
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{file}: invalid TOML: {exc}") from None
    return Profile(directory, data)


def list_profiles() -> list[Profile]:
    """Every profile under plugins/, the default first, then by name."""
    root = plugins_dir()
    directories = sorted(p.parent for p in root.glob("*/profile.toml"))
    profiles = [load_profile(d) for d in directories]
    return sorted(profiles, key=lambda p: (p.name != DEFAULT_PROFILE, p.name))


def get_profile(name: str) -> Profile:
    directory = plugins_dir() / name
    if not name or "/" in name or not (directory / "profile.toml").is_file():
        known = ", ".join(p.name for p in list_profiles())
        raise KeyError(f"unknown plugin profile {name!r} (known: {known})")
    return load_profile(directory)
