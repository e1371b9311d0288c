"""What a set of NodeReports says: did every node get a client, do they share one global topology."""
from __future__ import annotations

from typing import Any, Sequence

from pjrt_cts.multiprocess.launcher import NodeReport


def clients_by_node(reports: Sequence[NodeReport]) -> dict[int, dict[str, Any]]:
    return {r.node_id: event for r in reports if (event := r.event("client")) is not None}


def client_failures(reports: Sequence[NodeReport]) -> list[str]:
    """One line per node that has no client (its error, or how it ended)."""
    failures = []
    for report in reports:
        if report.event("client") is not None:
            continue
        error = report.event("error")
        if error is not None:
            failures.append(f"node {report.node_id}: {error.get('function') or error.get('stage')} failed with "
                            f"{error.get('code')}: {error.get('message')}")
        else:
            failures.append(report.summary())
    return failures


def _ids(devices: Sequence[dict[str, Any]]) -> list[int]:
    return sorted(int(d["id"]) for d in devices)


def topology_observation(reports: Sequence[NodeReport]) -> str:
    """What each node saw, for NOT_SUPPORTED reasons and failure messages."""
    parts = []
    for node_id, event in sorted(clients_by_node(reports).items()):
        parts.append(f"node {node_id}: process_index {event['process_index']}, {len(event['devices'])} devices "
                     f"{_ids(event['devices'])}, {len(event['addressable'])} addressable {_ids(event['addressable'])}")
    return "; ".join(parts)


def kv_call_count(reports: Sequence[NodeReport]) -> int:
    """KV callback calls the plugin made across nodes (from each node's last report)."""
    total = 0
    for report in reports:
        events = [e for e in report.events if "kv" in e]
        if events:
            total += len(events[-1]["kv"]["calls"])
    return total


def global_topology_problem(reports: Sequence[NodeReport]) -> str | None:
    """None when every node sees one global device list made of all nodes' addressable devices."""
    clients = clients_by_node(reports)
    if len(clients) != len(reports):
        return "not every node created a client: " + " | ".join(client_failures(reports))
    union = sorted(i for event in clients.values() for i in _ids(event["addressable"]))
    if len(set(union)) != len(union):
        return f"nodes' addressable device ids overlap: {union} ({topology_observation(reports)})"
    for node_id, event in sorted(clients.items()):
        if _ids(event["devices"]) != union:
            return (f"node {node_id} sees devices {_ids(event['devices'])}, the union of every node's addressable "
                    f"devices is {union} ({topology_observation(reports)})")
    return None
