"""XLA_TRANSFORM (pjrt_c_api_xla_transform_extension.h): user transforms of the HloModuleProto, registered by name
at a pipeline stage, run by every compile until cleared; the HLO pass pipeline trace of a module.

What a black-box caller can see: a registered transform is handed each compiled module (a parseable
HloModuleProto); a module it returns as changed is the one that runs; once cleared it is called no more, and a
second clear of the name clears nothing. Registrations are process-wide: every test clears its own."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime.extensions.xla_transform import (POST_SCHEDULER, PRE_SCHEDULER, TransformCallbacks, clear,
                                                       pipeline_trace, register, registered_transform)
from pjrt_cts.runtime.protobuf_wire import LENGTH_DELIMITED, iter_fields
from pjrt_cts.testing import assert_same, expect_rejection, requires

pytestmark = requires(extension="XLA_TRANSFORM")
STAGES = pytest.mark.parametrize("stage", [PRE_SCHEDULER, POST_SCHEDULER], ids=["pre_scheduler", "post_scheduler"])


def _square(name: str) -> str:
    # `name` keeps every test's module distinct, so no compile cache can skip the pipeline.
    return f"""module @{name} {{
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
    %0 = stablehlo.multiply %a, %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }}
}}
"""


X = np.array([1.5, -2.0, 3.0, 0.25], np.float32)


def _run(client: Any, program: str) -> np.ndarray:
    return client.compile(program).execute([client.buffer_from_numpy(X)])[0].to_numpy()


def _is_hlo_module(module: bytes) -> bool:
    """An HloModuleProto: a name (1) and at least one computation (3)."""
    try:
        fields = {number for number, wire, _ in iter_fields(module) if wire == LENGTH_DELIMITED}
    except ValueError:
        return False
    return {1, 3} <= fields


@STAGES
def test_registered_transform_sees_every_compiled_module(plugin: Any, client: Any, stage: int) -> None:
    with registered_transform(plugin, f"pjrt_cts_sees_{stage}", lambda module: None, stage) as callbacks:
        result = _run(client, _square(f"xla_transform_sees_{stage}"))
    assert callbacks.seen, "XLA_TRANSFORM.register_xla_transform: a compile never called the registered transform"
    assert all(_is_hlo_module(module) for module in callbacks.seen), (
        "the transform was handed bytes that are no HloModuleProto (a name and computations)")
    assert_same(result, X * X, "a program compiled with an unchanging transform registered")


def test_transform_output_is_the_module_that_runs(plugin: Any, client: Any) -> None:
    """The transform rewrites multiply into subtract (same length, so the protobuf stays well formed)."""
    def to_subtract(module: bytes) -> bytes | None:
        return module.replace(b"multiply", b"subtract") if b"multiply" in module else None

    with registered_transform(plugin, "pjrt_cts_rewrites", to_subtract) as callbacks:
        rewritten = _run(client, _square("xla_transform_rewrites"))
    assert not callbacks.errors and callbacks.seen, "the transform was not called"
    assert_same(rewritten, X - X, "a program whose multiply the registered transform made a subtract")
    assert_same(_run(client, _square("xla_transform_rewrites_control")), X * X, "the same program once cleared")


def test_cleared_transform_is_called_no_more(plugin: Any, client: Any) -> None:
    callbacks = TransformCallbacks(lambda module: None)
    register(plugin, "pjrt_cts_cleared", PRE_SCHEDULER, callbacks)
    try:
        _run(client, _square("xla_transform_before_clear"))
    finally:
        cleared = clear(plugin, "pjrt_cts_cleared", PRE_SCHEDULER)
    assert cleared, "XLA_TRANSFORM.clear_xla_transform of a registered name reports cleared = false"
    calls = len(callbacks.seen)
    _run(client, _square("xla_transform_after_clear"))
    assert len(callbacks.seen) == calls, "a cleared transform was still called by a later compile"
    assert not clear(plugin, "pjrt_cts_cleared", PRE_SCHEDULER), (
        "XLA_TRANSFORM.clear_xla_transform of a name already cleared reports cleared = true")


def test_callbacks_of_another_version_are_rejected(plugin: Any) -> None:
    wrong = TransformCallbacks(lambda module: None, version=99)
    right = TransformCallbacks(lambda module: None)

    def control() -> None:
        register(plugin, "pjrt_cts_version_control", PRE_SCHEDULER, right)
        clear(plugin, "pjrt_cts_version_control", PRE_SCHEDULER)

    expect_rejection(lambda: register(plugin, "pjrt_cts_version", PRE_SCHEDULER, wrong), control=control,
                     function="XLA_TRANSFORM.register_xla_transform", what="PJRT_XlaTransform_Callbacks.version 99")


def test_unknown_pipeline_stage_is_rejected(plugin: Any) -> None:
    callbacks = TransformCallbacks(lambda module: None)

    def control() -> None:
        register(plugin, "pjrt_cts_stage_control", PRE_SCHEDULER, callbacks)
        clear(plugin, "pjrt_cts_stage_control", PRE_SCHEDULER)

    expect_rejection(lambda: register(plugin, "pjrt_cts_stage", 7, callbacks), control=control,
                     function="XLA_TRANSFORM.register_xla_transform", what="pipeline stage 7")


@pytest.fixture
def compiled_module(plugin: Any, client: Any) -> bytes:
    """An HloModuleProto as the compiler hands it to a transform."""
    with registered_transform(plugin, "pjrt_cts_capture", lambda module: None) as callbacks:
        client.compile(_square("xla_transform_capture"))
    assert callbacks.seen, "the capturing transform was not called"
    return callbacks.seen[0]


def test_pipeline_trace_lists_passes(plugin: Any, compiled_module: bytes) -> None:
    """The trace is a serialized HloModuleMetadataProto with the passes the pipeline ran (pass_metadata, 5)."""
    trace = pipeline_trace(plugin, compiled_module)
    passes = [value for number, wire, value in iter_fields(trace) if number == 5 and wire == LENGTH_DELIMITED]
    assert passes, f"XLA_TRANSFORM.get_hlo_pass_pipeline_trace returned no pass metadata ({len(trace)} bytes)"


def test_pipeline_trace_of_garbage_is_rejected(plugin: Any, compiled_module: bytes) -> None:
    expect_rejection(lambda: pipeline_trace(plugin, b"\xff\xfe not a protobuf"),
                     control=lambda: pipeline_trace(plugin, compiled_module),
                     function="XLA_TRANSFORM.get_hlo_pass_pipeline_trace", what="bytes that are no HloModuleProto")
