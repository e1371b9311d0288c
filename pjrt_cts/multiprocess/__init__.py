"""Run a PJRT plugin in N processes (nodes) sharing one key-value store, and collect what each saw.

The launcher (this process) serves a KeyValueStore on 127.0.0.1 and spawns
`python -m pjrt_cts.multiprocess.node` once per node; each node loads the plugin, creates a client
with the plugin's multi-node options (pjrt_cts.multiprocess.schemes) and KV callbacks, runs one
scenario and reports JSON lines. Every wait is bounded; leftover nodes are killed.
"""
from pjrt_cts.multiprocess.launcher import LaunchSpec, NodeReport, run_nodes
from pjrt_cts.multiprocess.schemes import SCHEMES, MultiNodeScheme, scheme_for_platform

__all__ = ["LaunchSpec", "MultiNodeScheme", "NodeReport", "SCHEMES", "run_nodes", "scheme_for_platform"]
