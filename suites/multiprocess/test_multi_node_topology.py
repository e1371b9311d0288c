"""N plugin processes (nodes) with the plugin's multi-node options and shared KV callbacks: every node
gets a client, the nodes agree on one global device list, and each addresses only its own devices."""
from __future__ import annotations

from typing import Any

from pjrt_cts.multiprocess.checks import client_failures, clients_by_node
from pjrt_cts.testing import requires

pytestmark = requires(feature="nodes")


def test_every_node_creates_a_client(topology_reports: list[Any]) -> None:
    failures = client_failures(topology_reports)
    assert not failures, "PJRT_Client_Create with multi-node options failed on some nodes:\n" + "\n".join(failures)


@requires(feature="node_ids")  # the probe runs the check; documented schemes FAIL there, others are NOT_SUPPORTED
def test_process_indices_are_distinct_per_node(topology_reports: list[Any]) -> None:
    """Each node's PJRT_Client_ProcessIndex differs (the node id the scheme passed must be honoured)."""
    clients = clients_by_node(topology_reports)
    assert clients, "no node created a client: " + "; ".join(client_failures(topology_reports))
    indices = {node: event["process_index"] for node, event in clients.items()}
    assert len(set(indices.values())) == len(indices), f"PJRT_Client_ProcessIndex per node is not distinct: {indices}"


@requires(feature="multi_node_topology")
def test_every_node_sees_the_same_global_device_list(topology_reports: list[Any]) -> None:
    clients = clients_by_node(topology_reports)
    lists = {node: [(d["id"], d["process_index"], d["kind"]) for d in sorted(e["devices"], key=lambda d: d["id"])]
             for node, e in clients.items()}
    reference_node, reference = next(iter(sorted(lists.items())))
    for node, devices in lists.items():
        assert devices == reference, (
            f"PJRT_Client_Devices differs between node {reference_node} ({reference}) and node {node} ({devices})")


@requires(feature="multi_node_topology")
def test_global_device_process_indices_name_their_owner(topology_reports: list[Any]) -> None:
    """A device's PJRT_DeviceDescription_ProcessIndex is the process index of the node that addresses it."""
    clients = clients_by_node(topology_reports)
    owner = {d["id"]: e["process_index"] for e in clients.values() for d in e["addressable"]}
    for node, event in clients.items():
        for device in event["devices"]:
            assert device["process_index"] == owner[device["id"]], (
                f"node {node}: device {device['id']} has process_index {device['process_index']}, but it is "
                f"addressable on the node with process_index {owner[device['id']]}")


def test_addressable_devices_are_the_local_ones(topology_reports: list[Any], scheme: Any, num_nodes: int,
                                                local_device_count: int) -> None:
    """Addressable devices belong to the node's own process and are among its devices; with the scheme's
    visible-device split each node addresses exactly its share."""
    clients = clients_by_node(topology_reports)
    assert clients, "no node created a client: " + "; ".join(client_failures(topology_reports))
    for node, event in clients.items():
        device_ids = {d["id"] for d in event["devices"]}
        for device in event["addressable"]:
            assert device["id"] in device_ids, (
                f"node {node}: addressable device {device['id']} is not in PJRT_Client_Devices {sorted(device_ids)}")
            assert device["process_index"] == event["process_index"], (
                f"node {node}: addressable device {device['id']} has process_index {device['process_index']}, "
                f"PJRT_Client_ProcessIndex is {event['process_index']}")
        if scheme.documented:
            expected = scheme.devices_per_node(num_nodes, local_device_count)
            assert len(event["addressable"]) == expected, (
                f"node {node}: {len(event['addressable'])} addressable devices, its visible_devices share is {expected}")


def test_is_addressable_matches_the_addressable_device_list(topology_reports: list[Any]) -> None:
    """PJRT_Device_IsAddressable is true exactly for the devices PJRT_Client_AddressableDevices lists."""
    clients = clients_by_node(topology_reports)
    assert clients, "no node created a client: " + "; ".join(client_failures(topology_reports))
    for node, event in clients.items():
        addressable = {d["id"] for d in event["addressable"]}
        for device in event["devices"]:
            assert device["is_addressable"] is (device["id"] in addressable), (
                f"node {node}: PJRT_Device_IsAddressable of device {device['id']} is {device['is_addressable']}, "
                f"PJRT_Client_AddressableDevices is {sorted(addressable)}")
