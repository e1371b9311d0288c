"""The one place that knows each plugin's multi-node client create options, keyed by platform name."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MultiNodeScheme:
    platform: str
    # True where the plugin documents multi-process clients (its nodes must then build one global
    # topology: a node that does not is a FAIL); False where it may ignore them (then NOT_SUPPORTED).
    documented: bool
    description: str

    def node_options(self, node_id: int, num_nodes: int, local_device_count: int) -> dict[str, Any]:
        """Create options for node `node_id`; `local_device_count` is what one single-process client addresses."""
        if self.platform in ("cuda", "rocm"):
            per_node = max(1, local_device_count // num_nodes)
            visible = list(range(node_id * per_node, (node_id + 1) * per_node))
            return {"node_id": node_id, "num_nodes": num_nodes, "visible_devices": visible}
        if self.platform == "cpu":
            return {"process_id": node_id}
        raise KeyError(self.platform)

    def devices_per_node(self, num_nodes: int, local_device_count: int) -> int:
        if self.platform in ("cuda", "rocm"):
            return max(1, local_device_count // num_nodes)
        return local_device_count


_GPU = ("XLA GPU plugin given node_id / num_nodes (int64), visible_devices (one slice of the host's GPUs per node) "
        "and KV callbacks")
SCHEMES: dict[str, MultiNodeScheme] = {
    "cuda": MultiNodeScheme("cuda", True, _GPU),
    "rocm": MultiNodeScheme("rocm", True, _GPU),
    # The XLA CPU plugin (0.115) accepts process_id (it sets process_index and device ids); the
    # legacy 0.81 one accepts any option name. Neither documents a multi-process topology.
    "cpu": MultiNodeScheme("cpu", False, "XLA CPU plugin given process_id (int64) and KV callbacks"),
}


def scheme_for_platform(platform_name: str) -> MultiNodeScheme | None:
    return SCHEMES.get(platform_name.lower())
