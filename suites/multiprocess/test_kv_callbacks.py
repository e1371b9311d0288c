"""The KV store callbacks as the plugin uses them: accepted single-process, and in an N-node run every
value the plugin gets is freed exactly once through the deleter, with its own user_arg and callback_error."""
from __future__ import annotations

from typing import Any

from pjrt_cts.multiprocess.checks import client_failures
from pjrt_cts.testing import requires


def test_client_create_accepts_kv_callbacks_in_one_process(plugin: Any, client: Any,
                                                           create_options: dict[str, Any]) -> None:
    from pjrt_cts.kvstore import KeyValueCallbacks, KeyValueStore

    callbacks = KeyValueCallbacks(KeyValueStore(), namespace="single/", max_get_timeout_s=10)
    with plugin.create_client(create_options, kv_callbacks=callbacks) as with_callbacks:
        assert [d.id for d in with_callbacks.devices] == [d.id for d in client.devices], (
            "PJRT_Client_Create with KV callbacks sees a different device list than without")
    assert callbacks.outstanding_values == 0, f"{callbacks.outstanding_values} KV values never given back to the deleter"
    assert callbacks.stats.problems == [], "; ".join(callbacks.stats.problems)


def _final_kv(report: Any) -> dict[str, Any]:
    events = [e for e in report.events if "kv" in e]
    assert events, f"node {report.node_id} reported no KV statistics: {report.summary()}"
    return events[-1]["kv"]


@requires(feature=("nodes", "kv_callbacks"))
def test_every_value_the_plugin_gets_is_freed_once(topology_reports: list[Any]) -> None:
    assert not client_failures(topology_reports), "; ".join(client_failures(topology_reports))
    for report in topology_reports:
        kv = _final_kv(report)
        assert kv["outstanding"] == 0 and kv["allocations"] == kv["frees"], (
            f"node {report.node_id}: {kv['allocations']} KV values handed to the plugin, {kv['frees']} freed through "
            f"value_deleter_callback after the client was destroyed")


@requires(feature=("nodes", "kv_callbacks"))
def test_plugin_passes_user_args_and_callback_error_back(topology_reports: list[Any]) -> None:
    for report in topology_reports:
        kv = _final_kv(report)
        assert kv["problems"] == [], f"node {report.node_id}: " + "; ".join(kv["problems"])


@requires(feature=("nodes", "kv_callbacks"))
def test_get_timeouts_the_plugin_asks_for_are_positive(topology_reports: list[Any]) -> None:
    for report in topology_reports:
        for op, key, timeout_ms, _code in _final_kv(report)["calls"]:
            if op == "get":
                assert timeout_ms is not None and timeout_ms > 0, (
                    f"node {report.node_id}: KV get of {key!r} with timeout_in_ms={timeout_ms}")
