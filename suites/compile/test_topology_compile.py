"""PJRT_Compile against a PJRT_TopologyDescription: device-less (ahead-of-time) compilation.

The topology comes from PJRT_Client_TopologyDescription (client-owned), or from its serialization deserialized (the
topology a framework ships to where the devices are). A plugin without a device-less
compiler (slot absent, or UNIMPLEMENTED from PJRT_Client_TopologyDescription / PJRT_Compile) is NOT_SUPPORTED;
any other error of a present slot is a FAIL.
"""
from __future__ import annotations

from pjrt_cts.runtime import Topology
from pjrt_cts.runtime.aot import client_topology, compile_for_topology, load_executable
from pjrt_cts.testing import (ADD, assert_matches_program, expect_rejection, programs_param, requires, run,
                              unsupported_if_unimplemented)

AOT_PROGRAMS = ["add_f32", "two_outputs_f32", "dot_f32", "mixed_outputs"]
pytestmark = requires("Client_TopologyDescription", "Compile")


def _topology(client) -> int:
    with unsupported_if_unimplemented("PJRT_Client_TopologyDescription"):
        topology = client_topology(client)
    assert topology, "PJRT_Client_TopologyDescription succeeded but returned a NULL topology"
    return topology


def _aot_compile(client, code, **kwargs):
    topology = _topology(client)
    with unsupported_if_unimplemented("PJRT_Compile"):
        return compile_for_topology(client, topology, code, **kwargs)


@programs_param(AOT_PROGRAMS)
def test_compile_against_topology_without_client(client, program):
    with _aot_compile(client, program.text) as executable:
        assert executable.name == program.name, (
            f"PJRT_Executable_Name of a PJRT_Compile result: expected {program.name!r}, got {executable.name!r}"
        )
        assert executable.num_outputs == len(program.output_specs), (
            f"PJRT_Executable_NumOutputs of a PJRT_Compile result: expected {len(program.output_specs)}, "
            f"got {executable.num_outputs}"
        )


@programs_param(AOT_PROGRAMS)
def test_compile_against_topology_with_client(client, program):
    with _aot_compile(client, program.text, pass_client=True) as executable:
        dims = executable.output_dimensions
        expected = [tuple(shape) for shape, _ in program.output_specs]
        assert dims == expected, f"PJRT_Executable_OutputDimensions of a PJRT_Compile result: {dims}, expected {expected}"


@requires("Client_Load")
@programs_param(AOT_PROGRAMS)
def test_topology_executable_loads_and_runs(client, program):
    with _aot_compile(client, program.text, pass_client=True) as executable:
        with load_executable(client, executable) as loaded:
            inputs = program.inputs()
            assert_matches_program(program, run(loaded, client, inputs), inputs,
                                   "PJRT_LoadedExecutable_Execute of a PJRT_Compile result loaded with PJRT_Client_Load")


@requires("Client_Load", "TopologyDescription_Serialize", "TopologyDescription_Deserialize")
@programs_param(["add_f32", "dot_f32"])
def test_deserialized_topology_executable_loads_and_runs(client, program):
    """Ahead-of-time compilation as frameworks do it: the topology serialized, deserialized (PJRT_TopologyDescription_
    Deserialize), compiled for without a client, loaded onto the client's devices; the results are the program's."""
    _aot_compile(client, program.text).close()  # device-less compile works at all (else NOT_SUPPORTED)
    serialized = Topology.of_client(client).serialize()
    with unsupported_if_unimplemented("PJRT_TopologyDescription_Deserialize"):
        deserialized = Topology.deserialize(client.plugin, serialized)
    with deserialized, compile_for_topology(client, deserialized.handle, program.text) as executable:
        with load_executable(client, executable) as loaded:
            inputs = program.inputs()
            assert_matches_program(program, run(loaded, client, inputs), inputs,
                                   "PJRT_LoadedExecutable_Execute of a PJRT_Compile result for a deserialized topology, "
                                   "loaded with PJRT_Client_Load")


@requires("Executable_Serialize", "Executable_DeserializeAndLoad")
def test_topology_executable_serializes_and_loads(client):
    with _aot_compile(client, ADD.text, pass_client=True) as executable:
        serialized = executable.serialize()
        assert serialized, "PJRT_Executable_Serialize of a PJRT_Compile result returned no bytes"
        with client.deserialize_executable(serialized) as loaded:
            inputs = ADD.inputs()
            assert_matches_program(ADD, run(loaded, client, inputs), inputs,
                                   "PJRT_LoadedExecutable_Execute of a deserialized PJRT_Compile result")


def test_topology_compile_rejects_invalid_mlir(client):
    topology = _topology(client)
    _aot_compile(client, ADD.text).close()  # device-less compile works at all (else NOT_SUPPORTED)
    expect_rejection(lambda: compile_for_topology(client, topology, "module {"),
                     control=lambda: compile_for_topology(client, topology, ADD.text), function="PJRT_Compile",
                     tolerated=("UNKNOWN",), what="invalid MLIR")


def test_topology_compile_rejects_garbage_options(client):
    topology = _topology(client)
    _aot_compile(client, ADD.text).close()  # device-less compile works at all (else NOT_SUPPORTED)
    expect_rejection(lambda: compile_for_topology(client, topology, ADD.text, compile_options=b"\x0f"),
                     control=lambda: compile_for_topology(client, topology, ADD.text), function="PJRT_Compile",
                     what="undecodable CompileOptionsProto bytes")


def test_topology_is_stable(client):
    first = _topology(client)
    second = client_topology(client)
    assert first == second, "PJRT_Client_TopologyDescription returned different topologies for one client"
