"""The topologies a plugin describes without a device (PJRT_TopologyDescription_Create), as JAX's
`jax.experimental.topologies` and PyTorch/XLA's ahead-of-time compile use them.

Every topology the run names is created (with its multi-device variant where the profile gives one): it succeeds,
its platform is the profile's and it lists its devices. The clauses that hold for any topology (platform, device
descriptions, attributes, fingerprint, Serialize -> Deserialize, memory kinds, canonical shapes) are the client
layer's, imported here and run on this layer's `topology` (suites/aot/conftest.py: the first created topology, else
the client's own).
"""
from __future__ import annotations

from typing import Any, Callable

from client.test_topology import (  # noqa: F401 - collected here, on this layer's `topology` fixture
    test_attributes_are_unique_typed_and_stable, test_canonical_shape_accepts_an_explicit_layout,
    test_canonical_shape_keeps_type_and_dimensions, test_deserialize_rejects_malformed_bytes,
    test_deserialized_topology_describes_the_same_devices, test_deserialized_topology_has_the_same_fingerprint,
    test_device_description_attributes_are_unique_and_typed, test_device_descriptions_are_listed,
    test_device_descriptions_keep_their_order, test_fingerprint_is_stable, test_memory_space_kind_ids_are_unique,
    test_platform_name_and_version_are_stable, test_platform_name_is_non_empty, test_serialize_returns_bytes)

from pjrt_cts.testing.plugin_under_test import expected_platform, topology_specs
from pjrt_cts.testing.requirements import create_topology_under_test


def test_topologies_are_created_without_a_device(plugin: Any, record_details: Callable[..., None]) -> None:
    """PJRT_TopologyDescription_Create of each of the run's topologies (and its multi-device variant) succeeds with a
    topology that lists devices, of the platform the profile names."""
    platform = expected_platform()
    seen: dict[str, Any] = {}
    for spec in topology_specs():
        for multi_device in (False, True) if spec.multi_device_options is not None else (False,):
            label = spec.label + (" (multi-device)" if multi_device else "")
            with create_topology_under_test(plugin, spec, multi_device=multi_device) as created:
                assert created.handle, f"PJRT_TopologyDescription_Create of {label} succeeded with a NULL topology"
                devices = [(d.id, d.kind) for d in created.device_descriptions]
                name = created.platform_name
            seen[label] = {"platform": name, "devices": len(devices), "kinds": sorted({kind for _, kind in devices})}
            assert devices, f"the topology {label} made by PJRT_TopologyDescription_Create lists no device description"
            assert platform is None or name.lower() == platform.lower(), (
                f"PJRT_TopologyDescription_PlatformName of the topology {label} is {name!r}; the profile says the "
                f"plugin's platform is {platform!r}")
    record_details(topologies=seen)
