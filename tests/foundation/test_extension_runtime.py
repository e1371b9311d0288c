"""pjrt_cts.runtime.extensions: the readers of what extension functions return (layout text, OpSharding, an HLO
module's entry layouts) and how extension calls fail and are seen (NullExtensionFunction, the call hooks)."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from pjrt_cts.runtime import ExtensionType, MissingFunction, NullExtensionFunction, Plugin, default_plugin_path
from pjrt_cts.runtime.extensions import op_sharding
from pjrt_cts.runtime.extensions.layouts import parse_layout_text
from pjrt_cts.runtime.extensions.phase_compile import PhaseCompiler
from pjrt_cts.runtime.extensions.shardings import parameter_shardings
from pjrt_cts.runtime.hooks import CallHook
from pjrt_cts.runtime.protobuf_wire import bytes_field, packed_varints_field, varint_field
from pjrt_cts.testing.hlo_program_shape import entry_layouts


@pytest.mark.parametrize("text, minor_to_major, attributes", [
    ("{}", (), ""), ("{0}", (0,), ""), ("{1,0}", (1, 0), ""), ("{0,2,1}", (0, 2, 1), ""),
    ("{1,0:T(8,128)(2,1)}", (1, 0), "T(8,128)(2,1)"), ("{ 1, 0 }", (1, 0), ""),
])
def test_layout_text_is_parsed(text: str, minor_to_major: tuple[int, ...], attributes: str) -> None:
    parsed = parse_layout_text(text)
    assert (parsed.minor_to_major, parsed.attributes) == (minor_to_major, attributes)


@pytest.mark.parametrize("text", ["", "1,0", "{1,0", "\x01garbage{layout", "{a,b}", "[1,0]"])
def test_text_that_is_no_layout_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_layout_text(text)


def test_op_sharding_explicit_and_iota_forms() -> None:
    explicit = varint_field(1, op_sharding.OTHER) + packed_varints_field(3, [2]) + packed_varints_field(4, [1, 0])
    assert op_sharding.decode(explicit).tile_devices(1) == {(0,): [1], (1,): [0]}
    # iota([4]).reshape(2, 2).transpose(1, 0) -> devices 0, 2, 1, 3
    iota = (varint_field(1, op_sharding.OTHER) + packed_varints_field(3, [2, 2]) + packed_varints_field(9, [2, 2])
            + packed_varints_field(10, [1, 0]))
    assert op_sharding.decode(iota).tile_assignment_devices == (0, 2, 1, 3)
    replicated_last = (varint_field(1, op_sharding.OTHER) + packed_varints_field(3, [2, 2])
                       + packed_varints_field(4, [0, 1, 2, 3]) + varint_field(6, 1))
    assert op_sharding.decode(replicated_last).tile_devices(1) == {(0,): [0, 1], (1,): [2, 3]}
    assert op_sharding.decode(b"").type == op_sharding.REPLICATED
    nested = varint_field(1, op_sharding.TUPLE) + bytes_field(5, explicit) + bytes_field(5, b"")
    assert [s.type for s in op_sharding.decode(nested).tuple_shardings] == [op_sharding.OTHER, op_sharding.REPLICATED]


def test_op_sharding_that_is_no_proto_or_no_tiling_is_refused() -> None:
    with pytest.raises(ValueError):
        op_sharding.decode(b"\x0f\xff")
    with pytest.raises(ValueError, match="has no tiles"):
        op_sharding.decode(b"").tile_devices(1)
    with pytest.raises(ValueError, match="does not tile"):
        op_sharding.decode(varint_field(1, op_sharding.OTHER) + packed_varints_field(3, [2])
                           + packed_varints_field(4, [0])).tile_devices(1)


def _shape(minor_to_major: list[int] | None, tuple_of: tuple[bytes, ...] = ()) -> bytes:
    layout = bytes_field(5, packed_varints_field(1, minor_to_major)) if minor_to_major is not None else b""
    return varint_field(2, 11) + layout + b"".join(bytes_field(4, element) for element in tuple_of)


def test_entry_layouts_of_an_hlo_module() -> None:
    program_shape = (bytes_field(1, _shape([1, 0])) + bytes_field(1, _shape([0]))
                     + bytes_field(2, _shape(None, (_shape([0, 1]), _shape([])))))
    module = bytes_field(1, b"m") + bytes_field(4, program_shape)
    assert entry_layouts("hlo", module) == ([(1, 0), (0,)], [(0, 1), ()])
    assert entry_layouts("hlo_with_config", bytes_field(1, module)) == ([(1, 0), (0,)], [(0, 1), ()])


@pytest.fixture(scope="module")
def plugin() -> Plugin:
    return Plugin.load(default_plugin_path())


def test_null_function_of_an_advertised_extension_is_no_missing_feature(plugin: Plugin) -> None:
    with pytest.raises(NullExtensionFunction, match="PHASE_COMPILE.get_compiler"):
        PhaseCompiler(plugin)  # the bundled CPU plugin advertises PHASE_COMPILE with get_compiler NULL
    with pytest.raises(MissingFunction) as raised:
        plugin.extension_function(ExtensionType.STREAM, "get_stream", 24)
    assert not isinstance(raised.value, NullExtensionFunction)


class _Recorder(CallHook):
    def __init__(self) -> None:
        self.names: list[str] = []

    def slot_function(self, plugin: Any, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        self.names.append(name)
        return function


def test_extension_calls_go_through_the_call_hooks(plugin: Plugin) -> None:
    recorder = _Recorder()
    Plugin.add_call_hook(recorder)
    try:
        with plugin.create_client({"cpu_device_count": 1}) as client:
            executable = client.compile("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                        "  return %a : tensor<2xf32>\n}")
            parameter_shardings(executable.executable)
    finally:
        Plugin.remove_call_hook(recorder)
    assert "SHARDINGS.Executable_ParameterShardings" in recorder.names
