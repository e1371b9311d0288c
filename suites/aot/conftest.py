"""Fixtures of the aot layer: the topologies a run compiles for without a device (docs/levels.md, "The AOT tier").

`aot_topologies`: PJRT_TopologyDescription_Create of every topology the run names (the profile's `[[topology]]`
entries, or `run --topology`; the plugin's default when none), each with the topology its multi-device programs
compile for (the same one unless the profile gives it other options). A plugin that creates none (UNIMPLEMENTED, no
slot, or the profile's no-device code) makes the tests that need them NOT_SUPPORTED with its answer; any other error
FAILs them as blocked by aot.topology.test_topologies_are_created_without_a_device, which reports it.

`topology`: the first created topology, on which the topology clauses (imported from client/test_topology.py) and
the executable tests run; where the plugin creates none but a client exists, the client's own topology
(PJRT_Client_TopologyDescription) serves instead, so that those clauses and the executables' contract are judged on
every plugin (the XLA CPU plugin creates no topology). Each test records which topology served (`details.topology`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

import pytest

from pjrt_cts.judgment.outcomes import FeatureNotSupported
from pjrt_cts.testing.plugin_under_test import topology_specs
from pjrt_cts.testing.requirements import create_session_topology, unsupported_if_unimplemented


@dataclass
class AotTopology:
    """One of the run's topologies: `single` for the single-device programs, `multi` for the multi-device ones."""

    label: str
    single: Any  # pjrt_cts.runtime.Topology
    multi: Any

    @property
    def multi_devices(self) -> int:
        return len(self.multi.device_descriptions)


@pytest.fixture(scope="session")
def aot_topologies(plugin: Any) -> Iterator[list[AotTopology]]:
    created: list[AotTopology] = []
    try:
        for spec in topology_specs():
            single = create_session_topology(plugin, spec)
            multi = single if spec.multi_device_options is None else create_session_topology(plugin, spec, multi_device=True)
            created.append(AotTopology(spec.label, single, multi))
        yield created
    finally:
        for topology in created:
            topology.multi.close()
            topology.single.close()


@pytest.fixture(scope="session")
def _served_topology(request: pytest.FixtureRequest) -> tuple[Any, str]:
    """(topology, which one): the run's first created topology, else the client's (see the module's docstring)."""
    try:
        first = request.getfixturevalue("aot_topologies")[0]
        return first.single, first.label
    except FeatureNotSupported as unsupported:
        no_topology = unsupported
    try:
        client = request.getfixturevalue("client")
    except FeatureNotSupported:
        raise no_topology from None  # neither: the plugin's answer to the topology is the reason
    from pjrt_cts.runtime import Topology

    with unsupported_if_unimplemented("PJRT_Client_TopologyDescription"):
        found = Topology.of_client(client)
    assert found.handle, "PJRT_Client_TopologyDescription succeeded but returned a NULL topology"
    return found, f"the client's (PJRT_Client_TopologyDescription; {no_topology.reason})"


@pytest.fixture
def topology(_served_topology: tuple[Any, str], record_details: Callable[..., None]) -> Any:
    """The topology the clauses of one topology run on (created, else the client's); recorded in the details."""
    served, which = _served_topology
    record_details(topology=which)
    return served
