"""Register the plugin under test into JAX, next to JAX's own CPU backend, in this process.

What JAX does (jax/jaxlib 0.10.2, observed):
- `xla_bridge.register_plugin(name, library_path=..., options=...)` dlopens the .so (the same
  instance a ctypes load of that path gets) and registers a backend factory under `name`. The
  factory runs on the first backend lookup: PJRT_Plugin_Initialize (version check), then
  PJRT_Client_Create with the options.
- Backends are keyed by the *registration name*, not by the PJRT platform name. The XLA CPU
  plugin calls itself "cpu", like jaxlib's built-in CPU client; registered as "pjrt_cts_sut",
  `jax.devices("pjrt_cts_sut")` lists the plugin's devices and `jax.devices("cpu")` still the
  built-in client's. Both kinds of device print as `CpuDevice(id=0)`, but they compare unequal
  and belong to different clients; lowering rules follow `backend.platform` ("cpu"), so JAX
  lowers for the plugin exactly as for its own CPU backend.
- A backend must be registered before JAX initializes its backends (the first `jax.devices()`),
  and only the platforms in `jax_platforms` are initialized: we set it to "cpu,<name>", so other
  registered plugins get no client and the built-in CPU backend stays the default backend.
- JAX's own plugin packages (jax_plugins.xla_cuda13, ...) register at discovery (as "cuda") and
  then register custom-call handlers (cuSOLVER, ...) for their platform. When such a package has
  registered the library under test (same PJRT_Api*, i.e. the same dlopen instance), we adopt
  its registration name and only replace its client factory with one using our create options:
  custom calls, the "gpu" alias and DLPack's device lookup then work as they do for users, and
  there is one client on the device, not two. Otherwise the plugin is registered as
  "pjrt_cts_sut"; jax.dlpack.from_dlpack resolves a capsule's device by *platform* ("cpu" for
  kDLCPU), so imports of the plugin's capsules land on the built-in backend and are then copied.
- f32 dots and convolutions are traced at HIGHEST precision (jax_default_matmul_precision) so a
  TF32-capable GPU is compared with the CPU at f32 accuracy.
- jaxlib registers its LAPACK kernels (jnp.linalg on CPU) only with its built-in CPU client; a
  CPU plugin is a separate copy of XLA without them, so those programs fail to compile there
  with NOT_FOUND "No FFI handler registered for lapack_..." (plugins/cpu*/expectations.toml).
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

SUT_BACKEND_NAME = "pjrt_cts_sut"
REFERENCE_PLATFORM = "cpu"

# JAX names GPU backends "gpu" (backend.platform, device.platform) while the PJRT plugin says "cuda" or
# "rocm"; jax.export wants the specific name. Both spellings name the same platform.
_JAX_PLATFORM_OF_PJRT = {"cuda": "gpu", "rocm": "gpu"}


def jax_platform_of(pjrt_platform_name: str) -> str:
    """The platform name JAX reports for a plugin whose PJRT_Client_PlatformName is `pjrt_platform_name`."""
    return _JAX_PLATFORM_OF_PJRT.get(pjrt_platform_name, pjrt_platform_name)


class JaxBackendError(RuntimeError):
    """JAX could not create a backend for the plugin (names the registration and JAX's error)."""


@dataclass
class JaxBackendForPlugin:
    name: str  # registration name: jax.devices(name)
    platform: str  # the PJRT platform name JAX lowers for (backend.platform)
    backend: Any  # the jaxlib Client of the plugin under test
    devices: list[Any]
    reference: Any  # jaxlib's built-in CPU client
    reference_devices: list[Any]
    library_path: str
    options: dict[str, Any]
    adopted_from_jax: bool = False  # registered by a JAX plugin package (e.g. "cuda"), options replaced

    @property
    def api_version(self) -> tuple[int, int] | None:
        major = getattr(self.backend, "pjrt_c_api_major_version", None)
        minor = getattr(self.backend, "pjrt_c_api_minor_version", None)
        return None if major is None or minor is None else (int(major), int(minor))


_lock = threading.Lock()
_registered: dict[str, JaxBackendForPlugin] = {}


def preload_libraries(libraries: Sequence[Path | str]) -> None:
    """Make the plugin's runtime libraries global before JAX dlopens it (as JAX's own plugins do)."""
    for library in libraries:
        ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)


def capsule_address(capsule: Any) -> int | None:
    """The PJRT_Api* inside a jaxlib "pjrt_c_api" capsule."""
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    try:
        return get_pointer(capsule, b"pjrt_c_api")
    except (ValueError, TypeError):
        return None


def registration_for_api(xla_bridge: Any, api_address: int) -> str | None:
    """The name under which a discovered JAX plugin package registered this very PJRT_Api*."""
    for name, registration in list(getattr(xla_bridge, "_backend_factories", {}).items()):
        c_api = getattr(registration, "c_api", None)
        if c_api is not None and capsule_address(c_api) == api_address:
            return name
    return None


def _set_platforms(xla_bridge: Any, name: str) -> None:
    import jax

    wanted = f"{REFERENCE_PLATFORM},{name}"
    if xla_bridge.backends_are_initialized():
        # Another test in this worker already started JAX without the plugin: start over. Arrays
        # made before keep their old clients; no framework test holds any across this point.
        xla_bridge._clear_backends()
        xla_bridge.get_backend.cache_clear()
    # The config, not the JAX_PLATFORMS variable: child processes of this worker must not inherit it.
    jax.config.update("jax_platforms", wanted)
    # f32 dots/convolutions at full f32 accuracy on both sides: TF32-capable GPUs would otherwise
    # be compared against CPU results at TF32 precision.
    jax.config.update("jax_default_matmul_precision", "highest")


def _adopt(xla_bridge: Any, name: str, options: dict[str, Any]) -> None:
    """Keep a JAX plugin package's registration of our library, with our client create options."""
    from functools import partial

    registration = xla_bridge._backend_factories[name]
    factory = partial(xla_bridge.make_pjrt_c_api_client, name, options=options)
    try:
        xla_bridge.register_backend_factory(name, factory, priority=registration.priority, fail_quietly=False,
                                            experimental=registration.experimental, c_api=registration.c_api)
    except TypeError:  # a JAX whose register_backend_factory takes fewer keywords
        xla_bridge.register_backend_factory(name, factory, priority=registration.priority, fail_quietly=False)


def jax_backend_for_plugin(path: Path | str, options: Mapping[str, Any] | None = None,
                           preload: Sequence[Path | str] = (), name: str = SUT_BACKEND_NAME,
                           api_address: int | None = None) -> JaxBackendForPlugin:
    """Register the plugin at `path` into JAX (once per process) and create its backend.

    `api_address` (the PJRT_Api* the plugin's GetPjrtApi returned in this process) lets a JAX
    plugin package's registration of the same library be adopted instead of registering `name`.
    Raises JaxBackendError when JAX cannot initialize it (version rejected, no device, ...).
    """
    library_path = str(Path(path).resolve())
    wanted_options = dict(options or {})
    with _lock:
        for known in _registered.values():
            if known.library_path == library_path:
                if known.options != wanted_options:
                    raise JaxBackendError(f"JAX backend {known.name!r} is already registered for {library_path} "
                                          f"with options {known.options}")
                return known
        preload_libraries(preload)
        from jax._src import xla_bridge
        from jaxlib import xla_client

        discover = getattr(xla_bridge, "_discover_and_register_pjrt_plugins", None)
        if discover is not None:
            discover()  # JAX's own plugin packages first, as for users
        adopted = registration_for_api(xla_bridge, api_address) if api_address else None
        if adopted is not None:
            name = adopted
            _set_platforms(xla_bridge, name)
            _adopt(xla_bridge, name, wanted_options)
        else:
            if xla_client.pjrt_plugin_loaded(name):
                raise JaxBackendError(f"a PJRT plugin named {name!r} is already loaded into jaxlib in this process")
            _set_platforms(xla_bridge, name)
            xla_bridge.register_plugin(name, library_path=library_path, options=wanted_options)
        try:
            backend = xla_bridge.get_backend(name)
        except Exception as error:  # JAX wraps the plugin's error in RuntimeError / JaxRuntimeError
            raise JaxBackendError(f"JAX could not initialize the plugin as backend {name!r}: "
                                  f"{type(error).__name__}: {error}") from error
        reference = xla_bridge.get_backend(REFERENCE_PLATFORM)
        if reference is backend:
            raise JaxBackendError(f"the built-in CPU backend is the plugin's backend {name!r}")
        registered = JaxBackendForPlugin(
            name=name, platform=str(backend.platform), backend=backend, devices=list(backend.local_devices()),
            reference=reference, reference_devices=list(reference.local_devices()), library_path=library_path,
            options=wanted_options, adopted_from_jax=adopted is not None,
        )
        _registered[name] = registered
        return registered
