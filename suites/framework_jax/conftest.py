"""framework_jax: the plugin under test loaded into JAX, compared with JAX's built-in CPU backend.

The plugin is registered into JAX once per worker as backend "pjrt_cts_sut", or under the name a
JAX plugin package already gave the same library ("cuda"), with the profile's create options; see
pjrt_cts/framework/jax_backend.py for what JAX does with a plugin whose platform is also "cpu".
Every test here is a SKIP (test environment) when JAX is not installed or when the installed jaxlib does not
accept the plugin's PJRT API version; when JAX cannot create a backend for the plugin, the dependent tests FAIL
as blocked (framework_jax.discovery.test_jax_initializes_the_plugin says why). An error of the plugin under JAX
is NOT_SUPPORTED only with status UNIMPLEMENTED. JAX is imported only inside fixtures and tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from pjrt_cts.framework import JAX_MISSING_REASON, jax_installed
from pjrt_cts.testing import BlockedByFailure, environment_lacks, profile_name, unsupported_if_unimplemented


@dataclass
class Registration:
    """What registering the plugin into JAX gave: the backend, or JAX's error."""

    backend: Any = None  # pjrt_cts.framework.jax_backend.JaxBackendForPlugin
    error: str | None = None
    policy: Any = None  # pjrt_cts.framework.compat.JaxlibApiPolicy
    plugin_version: tuple[int, int] | None = None
    preload: tuple[str, ...] = ()


@pytest.fixture(scope="session")
def framework_preload() -> tuple[str, ...]:
    """Checks JAX is installed, then preloads the profile's runtime libraries (GPU plugins)."""
    if not jax_installed():
        environment_lacks(JAX_MISSING_REASON)
    name = profile_name()
    if not name:
        return ()
    from pjrt_cts.framework.jax_backend import preload_libraries
    from pjrt_cts.profiles import get_profile

    libraries = tuple(str(p) for p in get_profile(name).preload_libraries())
    preload_libraries(libraries)
    return libraries


@pytest.fixture(scope="session", autouse=True)
def jax_registration(framework_preload: tuple[str, ...], plugin: Any, client: Any,
                     create_options: dict[str, Any]) -> Registration:
    """Registers the plugin into JAX once per worker. `client` comes first: a plugin without a
    usable device (no GPU here) is NOT_SUPPORTED in every layer, this one included. A jaxlib that does not load
    the plugin's API version is the test environment's limit (SKIP); versioning checks the version itself."""
    from pjrt_cts.framework import compat
    from pjrt_cts.framework.jax_backend import JaxBackendError, jax_backend_for_plugin

    plugin_version = tuple(plugin.api_version)
    policy = compat.JaxlibApiPolicy(compat.installed_jaxlib_version(), compat.compatibility_enabled())
    if not policy.compatibility:
        probe = compat.probe_framework_api_version(plugin.path, plugin_version, framework_preload)
        policy = compat.JaxlibApiPolicy(policy.jaxlib_version, False, probe.framework_version)
    rejection = policy.rejection(plugin_version)
    if rejection:
        environment_lacks(rejection)
    registration = Registration(policy=policy, plugin_version=plugin_version, preload=framework_preload)
    try:
        registration.backend = jax_backend_for_plugin(plugin.path, create_options, api_address=plugin.api_address)
    except JaxBackendError as error:
        registration.error = str(error)
    return registration


@pytest.fixture(scope="session")
def jax_sut(jax_registration: Registration) -> Any:
    """The plugin's JAX backend (JaxBackendForPlugin); dependent tests FAIL as blocked if JAX could not create
    it (framework_jax.discovery.test_jax_initializes_the_plugin FAILs with JAX's error then)."""
    if jax_registration.error:
        raise BlockedByFailure(f"blocked: JAX has no backend for the plugin: {jax_registration.error} "
                               "(see framework_jax.discovery.test_jax_initializes_the_plugin)")
    return jax_registration.backend


@pytest.fixture(scope="session")
def sut_devices(jax_sut: Any) -> list[Any]:
    return jax_sut.devices


@pytest.fixture(scope="session")
def sut_device(jax_sut: Any) -> Any:
    return jax_sut.devices[0]


@pytest.fixture(scope="session")
def cpu_device(jax_sut: Any) -> Any:
    """A device of JAX's built-in CPU backend: the reference."""
    return jax_sut.reference_devices[0]


@pytest.fixture
def matches_cpu(sut_device: Any, cpu_device: Any) -> Callable[..., Any]:
    """`matches_cpu(fn, *args, kind=..., exact=..., what=...)`: jit `fn` on the plugin and on the
    built-in CPU backend with the same inputs, assert the results agree; returns the plugin's."""
    from pjrt_cts.framework.compare import assert_matches_reference
    from pjrt_cts.framework.execution import run_on

    def check(fn: Callable[..., Any], *args: Any, kind: str = "elementwise", exact: bool = False,
              what: str | None = None, jit: bool = True) -> Any:
        name = what or str(getattr(fn, "__name__", "program"))
        with unsupported_if_unimplemented(f"{name} on the plugin (JAX)"):
            actual = run_on(sut_device, fn, *args, jit=jit, what=name)
        expected = run_on(cpu_device, fn, *args, jit=jit, what=name)
        assert_matches_reference(actual, expected, name, kind=kind, exact=exact)
        return actual

    return check
