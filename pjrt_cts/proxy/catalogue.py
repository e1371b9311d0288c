"""The defects the proxy plugin can inject, and which tests of the suite must notice each.

Every defect names the layer whose contract it breaks, the conformance level a plugin with it must
not reach (`breaks`), what the mutant does, the tests expected to catch it (`catchers`, test-id
patterns), and the targeted selection `pjrt-cts selftest` runs for it (`layers` + `select`: the
catchers plus a few neighbours). Patterns use the runner's id syntax: `*` is any run of characters,
`?` one character, `[` and `]` are literal.

A defect is caught when the run verdict it produces is off CONFORMANT at `breaks`: NON_CONFORMANT,
INCOMPLETE, or CONFORMANT only at a lower level (pjrt_cts.selftest.judging). `breaks` defaults to the
lowest level whose layers include the defect's layer (pjrt_cts.judgment.levels); a layer no level lists
(robustness) defaults to Core, since a bad outcome in any layer makes a run NON_CONFORMANT.

`expect` is "caught" for real defects. A "tolerated" defect is a negative control: a deviation the
contract allows (e.g. 2 ulp on a transcendental op, inside the documented tolerance); the suite is
right when the verdict stays CONFORMANT at the passthrough's level, and a test that flags it is
reported as too strict.
The C side (proxy.c) must know every name here; tests/proxy checks both lists agree.
"""
from __future__ import annotations

from dataclasses import dataclass

from pjrt_cts.judgment.levels import CORE_MID_SIZES, LEVELS

CAUGHT = "caught"
TOLERATED = "tolerated"
LEVEL_NAMES: tuple[str, ...] = tuple(level.name for level in LEVELS)


@dataclass(frozen=True)
class Defect:
    name: str
    layer: str
    description: str
    catchers: tuple[str, ...]
    layers: tuple[str, ...]
    select: tuple[str, ...] = ()  # extra neighbours run with the catchers
    expect: str = CAUGHT  # or TOLERATED
    note: str = ""  # why a catch may legitimately be missing, or how the defect is bounded
    timeout: float | None = None  # per-test timeout for this mutant's run (None: the selftest default)
    breaks: str = LEVEL_NAMES[0]  # the lowest level a plugin with this defect must not reach
    escape_hatch: bool = False  # a way issue 14 names to look CONFORMANT without working: must always be caught
    names: str = ""  # the defect id (pjrt_cts/judgment/defects/catalogue.toml) the run's diagnosis must attribute it to
    # Whether its mutant run confirms findings by a rerun (runner/controller/confirmation.py). Confirmation can only add
    # catches (a finding stays bad or becomes FLAKY), so other mutant runs skip it to save the second session.
    confirm: bool = False

    @property
    def selection(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.catchers + self.select))


def level_of_layer(layer: str) -> str:
    """The lowest level whose layers include `layer` (the lowest level for a layer no level lists)."""
    for level in LEVELS:
        if layer in level.layers:
            return level.name
    return LEVEL_NAMES[0]


def _d(name: str, layer: str, description: str, catchers: list[str], layers: list[str] | None = None,
       select: list[str] | None = None, breaks: str | None = None, **extra: object) -> Defect:
    return Defect(name, layer, description, tuple(catchers), tuple(layers or [layer]), tuple(select or []),
                  breaks=breaks or level_of_layer(layer), **extra)  # type: ignore[arg-type]  # extra holds Mutant fields by name


def _hatch(name: str, layer: str, description: str, catchers: list[str], layers: list[str] | None = None,
           select: list[str] | None = None, breaks: str | None = None, **extra: object) -> Defect:
    """A defect of issue 14's escape-hatch kinds; a negative control among them is no escape hatch itself."""
    return _d(name, layer, description, catchers, layers, select, breaks,
              escape_hatch=extra.get("expect", CAUGHT) == CAUGHT, **extra)


# Golden cases of transcendental ops over the float types the ulp mutants edit.
_TRANSCENDENTAL_GOLDEN = [f"execute.golden_cases.test_case_matches_reference[elementwise.{op}.{dtype}.*]"
                          for op in ("exponential", "tanh", "log") for dtype in ("f16", "bf16", "f32", "f64")]

# The mandatory mid-size dot_general and reduce programs (pjrt_cts.judgment.levels.CORE_MID_SIZES) a kernel wrong past its
# first tile must fail.
MID_SIZE_CATCHERS = tuple(name for name in CORE_MID_SIZES if name.startswith(("dot_general.", "reduce.")))

# A few mandatory Core tests: a defect that only turns them NOT_SUPPORTED must still cost Core.
_CORE_SMOKE = ["client.devices.test_devices_are_non_empty", "transfer.dtypes.test_round_trip_is_bit_exact[f32]",
               "execute.golden_cases.test_case_matches_reference[elementwise.add.f32.r1]"]

DEFECTS: tuple[Defect, ...] = (
    # ---- abi ------------------------------------------------------------------------------------
    _d("get_api_unstable", "abi", "GetPjrtApi returns a different PJRT_Api table on every other call",
       ["abi.entry_point.test_get_pjrt_api_is_stable_across_calls"], select=["abi.entry_point.*"]),
    _d("null_slot", "abi", "PJRT_Buffer_IsOnCpu is NULL although struct_size covers it",
       ["abi.api_slots.test_no_null_slot_within_struct_size", "abi.api_slots.test_slot_is_present[*Buffer_IsOnCpu*]"],
       select=["abi.api_slots.test_struct_size_*"]),
    _d("newer_minor_than_slots", "abi",
       "reports its real minor version but struct_size ends before the last slot that minor requires",
       ["abi.api_slots.test_struct_size_covers_slots_of_reported_minor",
        "versioning.slot_gating.test_struct_size_covers_every_slot_of_the_reported_minor"],
       layers=["abi", "versioning"], select=["abi.api_slots.test_struct_size_*", "versioning.slot_gating.test_struct_size_*"]),
    _d("extension_chain_loop", "abi", "the extension chain's last link points back to its first (a cycle)",
       ["abi.extension_chain.test_extension_chain_terminates"], select=["abi.extension_chain.*"]),
    _d("attributes_duplicated", "abi", "PJRT_Plugin_Attributes lists its first attribute twice",
       ["abi.plugin.test_plugin_attribute_names_are_unique"], select=["abi.plugin.test_plugin_attribute*"]),
    _d("initialize_not_idempotent", "abi", "a second PJRT_Plugin_Initialize fails with FAILED_PRECONDITION",
       ["abi.plugin.test_plugin_initialize_may_be_called_twice"], select=["abi.plugin.test_plugin_initialize_*"]),
    _d("api_version_struct_size_wrong", "abi", "PJRT_Api.pjrt_api_version.struct_size is 0",
       ["abi.entry_point.test_api_version_struct_size", "versioning.compatibility_window.test_api_version_struct_has_its_size"],
       layers=["abi", "versioning"], select=["abi.entry_point.test_api_*"]),
    # ---- client ---------------------------------------------------------------------------------
    _d("device_ids_duplicated", "client", "PJRT_Client_Devices lists the first device again at the end",
       ["client.devices.test_device_ids_are_unique", "client.devices.test_device_handles_are_unique"],
       select=["client.devices.test_device*", "client.devices.test_addressable_devices_are_among_devices"]),
    _d("lookup_device_returns_first", "client", "PJRT_Client_LookupDevice returns the first device whatever the id",
       ["client.devices.test_lookup_device_round_trips[*]", "client.device_descriptions.test_description_id_matches_lookup[*]"],
       select=["client.devices.test_lookup_*"]),
    _d("process_index_one", "client", "PJRT_Client_ProcessIndex reports 1 for a single-process client",
       ["client.platform.test_process_index_of_a_single_process_client_is_zero",
        "client.platform.test_process_index_matches_addressable_devices",
        "client.device_descriptions.test_description_process_index_matches_client[*]"],
       select=["client.platform.*"]),
    _d("unknown_instead_of_invalid_argument", "client",
       "PJRT_Error_GetCode reports UNKNOWN wherever the plugin said INVALID_ARGUMENT",
       ["client.devices.test_lookup_device_rejects_bad_id[*]", "client.client_create.test_unknown_option_name_is_invalid_argument[*]",
        "compile.compile_errors.test_unknown_program_format_is_invalid_argument[*]",
        "execute.argument_errors.test_too_few_arguments_is_invalid_argument[*]"],
       layers=["client", "compile", "execute"]),
    _d("error_message_empty", "client", "PJRT_Error_Message returns an empty message for every error",
       ["compile.compile_errors.test_compile_error_message_names_the_problem",
        "client.devices.test_lookup_device_rejects_bad_id[*]", "events.event_api.test_set_error_reaches_every_observer[*]"],
       layers=["client", "compile", "events"]),
    # ---- transfer -------------------------------------------------------------------------------
    _d("to_host_bitflip", "transfer", "PJRT_Buffer_ToHostBuffer flips one bit of the last element it copies",
       ["transfer.dtypes.test_round_trip_is_bit_exact[*]", "execute.programs.test_program_matches_numpy[add_f32]",
        "execute.programs.test_program_matches_numpy[xor_u8]"],
       layers=["transfer", "execute"]),
    _d("dims_off_by_one", "transfer", "PJRT_Buffer_Dimensions reports the last dimension one larger",
       ["transfer.shapes.test_dimensions_match_host_shape[*]", "transfer.shapes.test_round_trip_by_rank[*]",
        "execute.programs.test_program_matches_numpy[add_f32]"],
       layers=["transfer", "execute"]),
    _d("wrong_element_type", "transfer",
       "PJRT_Buffer_ElementType swaps same-width types (F32<->S32, F64<->S64, F16<->BF16, U8<->S8)",
       ["transfer.dtypes.test_buffer_reports_element_type[*]",
        "execute.programs.test_outputs_have_the_program_element_types[add_f32]",
        "execute.programs.test_outputs_have_the_program_element_types[subtract_f64_scalar]"],
       layers=["transfer", "execute"]),
    _d("to_host_ignores_host_layout", "transfer", "PJRT_Buffer_ToHostBuffer ignores host_layout (always row-major)",
       ["transfer.host_layout.test_to_host_buffer_honours_host_layout[*]"],
       layers=["transfer"], select=["transfer.host_layout.*"]),
    _d("from_host_ignores_byte_strides", "transfer", "PJRT_Client_BufferFromHostBuffer ignores byte_strides (reads dense)",
       ["transfer.byte_strides.test_transposed_byte_strides[*]", "transfer.byte_strides.test_padded_row_byte_strides[*]",
        "transfer.byte_strides.test_negative_byte_strides[*]"],
       layers=["transfer"], select=["transfer.byte_strides.test_explicit_dense_byte_strides[*]"]),
    _d("leak_per_buffer", "robustness",
       "PJRT_Client_BufferFromHostBuffer leaks 64 KiB of touched memory per buffer (capped at 4 GiB per process)",
       ["robustness.resource_usage.test_buffer_create_destroy_cycles_do_not_leak"],
       note="the issue's 10 MB per buffer would need ~100 GiB under the suite's 10,000-cycle RSS test; "
            "64 KiB per buffer is 10x the test's per-cycle bound (set PJRT_CTS_PROXY_LEAK_BYTES to change it)",
       timeout=300.0),
    _d("copy_to_device_returns_source", "transfer", "PJRT_Buffer_CopyToDevice returns the source buffer (and drops the copy)",
       ["transfer.device_copies.test_copy_to_device[0->1]", "transfer.device_copies.test_copy_to_device[2->3]",
        "multidevice.placement.test_copy_to_device_chain_across_all_devices"],
       layers=["transfer", "multidevice"]),
    _d("is_deleted_lies", "transfer", "PJRT_Buffer_IsDeleted always answers false",
       ["transfer.buffer_lifetime.test_delete_marks_buffer_deleted", "donation.donation.test_donated_input_is_deleted_after_execute[*]"],
       layers=["transfer", "donation"], select=["transfer.buffer_lifetime.*"]),
    # ---- events ---------------------------------------------------------------------------------
    _d("ready_event_never_fires", "events", "PJRT_Buffer_ReadyEvent returns an event that never becomes ready (hang)",
       ["events.event_api.test_buffer_ready_event_is_ready_without_error"],
       note="each catching test hangs until the per-test timeout (10 s here); "
            "transfer.buffer_queries.test_ready_event_completes[*] catches it too (left out to save time)",
       timeout=10.0),
    _d("on_ready_fires_twice", "events", "PJRT_Event_OnReady calls each callback twice",
       ["events.event_api.test_on_ready_registered_after_ready_fires_once",
        "events.event_api.test_on_ready_registered_before_set_fires_once_after_set",
        "events.event_api.test_many_on_ready_callbacks_each_fire_once"]),
    _d("event_error_swallowed", "events", "PJRT_Event_Await / PJRT_Event_Error report success for failed events",
       ["events.event_api.test_set_error_reaches_every_observer[*]", "events.execution_events.test_to_host_of_deleted_buffer_reports_error"],
       select=["events.execution_events.*"]),
    _d("event_ready_too_early", "events", "PJRT_Event_IsReady answers true before the event is set",
       ["events.event_api.test_created_event_is_not_ready_until_set"], select=["events.event_api.test_*set*"]),
    # ---- compile --------------------------------------------------------------------------------
    _d("compile_accepts_garbage_options", "compile",
       "PJRT_Client_Compile ignores compile options it cannot parse (retries with defaults) instead of INVALID_ARGUMENT",
       ["compile.compile_errors.test_garbage_compile_options_are_invalid_argument[*]",
        "compile.compile_errors.test_truncated_options_field_length_is_checked"],
       layers=["compile"]),
    # ---- execute --------------------------------------------------------------------------------
    _d("execute_aborts_third_call", "execute", "PJRT_LoadedExecutable_Execute calls abort() on its 3rd call in a process",
       ["execute.programs.test_repeated_execution_is_bitwise_identical[add_f32]",
        "execute.in_flight.test_results_of_executions_in_flight_stay_separate[add_f32]"]),
    _d("non_donatable_ignored", "donation", "PJRT_LoadedExecutable_Execute ignores non_donatable_input_indices",
       ["donation.donation.test_non_donatable_input_index_keeps_input_alive[*]"], layers=["donation"]),
    _d("donation_keeps_input", "donation", "donated inputs are never donated (Execute treats every input as non-donatable)",
       ["donation.donation.test_donated_input_is_deleted_after_execute[*]",
        "donation.donation.test_donated_input_is_rejected_by_later_execute[*]"],
       layers=["donation"], select=["donation.donation.test_output_aliases_donated_input_when_plugin_reports_alias[*]"]),
    _d("execute_device_ignored", "execute", "PJRT_LoadedExecutable_Execute ignores execute_device",
       ["execute.execute_device.test_portable_executable_runs_on_execute_device[*]",
        "multidevice.placement.test_execute_portable_executable_on_each_device"],
       layers=["execute", "multidevice"], select=["execute.execute_device.*"]),
    _d("results_reordered_between_devices", "multidevice", "multi-device Execute swaps the outputs of devices 0 and 1",
       ["multidevice.placement.test_replicas_follow_explicit_device_assignment[*]",
        "multidevice.placement.test_launch_ids_do_not_change_results",
        "multidevice.collectives.*"],
       select=["multidevice.placement.*"]),
    _d("num_outputs_plus_one", "executable", "PJRT_Executable_NumOutputs reports one output more than the program has",
       ["executable.metadata.test_num_outputs_matches_the_program[add_f32]",
        "executable.metadata.test_num_outputs_matches_the_program[mixed_outputs]"],
       select=["executable.metadata.test_output_element_types_match_the_program[add_f32]"]),
    _d("output_dims_off_by_one", "executable", "PJRT_Executable_OutputDimensions reports the first dimension one larger",
       ["executable.metadata.test_output_dimensions_match_the_program[add_f32]",
        "executable.metadata.test_output_dimensions_match_the_program[transpose_f32]"]),
    _d("transcendental_2ulp", "execute",
       "f32/f64 outputs of programs with transcendental ops are 2 ulp away from the plugin's (inside the tolerance)",
       ["execute.programs.test_program_matches_numpy[exp_f32]", *_TRANSCENDENTAL_GOLDEN],
       layers=["execute"], select=["execute.programs.test_repeated_execution_is_bitwise_identical[exp_f32]"],
       expect=TOLERATED,
       note="negative control: the transcendental tolerance is rtol=atol=8 eps, so 2 ulp on f32/f64 must pass "
            "(16-bit floats, whose tolerance is 2 of their ulps, are left alone)"),
    _d("transcendental_64ulp", "execute", "float outputs of programs with transcendental ops are 64 ulp off (beyond tolerance)",
       ["execute.programs.test_program_matches_numpy[exp_f32]", *_TRANSCENDENTAL_GOLDEN],
       layers=["execute"], select=["execute.programs.test_program_matches_numpy[add_f32]"]),
    # ---- executable -----------------------------------------------------------------------------
    _d("serialize_truncated", "executable", "PJRT_Executable_Serialize drops the last byte",
       ["executable.serialization.test_deserialize_in_same_process_gives_identical_results[add_f32]",
        "executable.serialization.test_deserialized_metadata_matches[add_f32]"],
       select=["executable.serialization.test_serialize_returns_bytes[add_f32]"]),
    _d("fingerprint_changes", "executable", "PJRT_Executable_Fingerprint differs on every call",
       ["executable.fingerprint.test_fingerprint_is_repeatable_on_one_executable[add_f32]",
        "executable.fingerprint.test_fingerprint_is_stable_for_the_same_program[add_f32]"]),
    # ---- dlpack ---------------------------------------------------------------------------------
    _d("decref_below_zero_succeeds", "dlpack", "PJRT_Buffer_DecreaseExternalReferenceCount below zero succeeds",
       ["dlpack.export.test_decrease_without_reference_is_invalid_argument",
        "dlpack.export.test_reference_count_balances_and_then_rejects_decrease"]),
    _d("on_delete_callback_never_called", "dlpack", "views from PJRT_Client_CreateViewOfDeviceBuffer never call on_delete_callback",
       ["dlpack.import.test_view_on_delete_callback_runs_exactly_once_on_destroy",
        "dlpack.import.test_view_on_delete_callback_runs_once_after_delete_then_destroy"]),
    _d("on_delete_callback_called_twice", "dlpack", "views call on_delete_callback twice",
       ["dlpack.import.test_view_on_delete_callback_runs_exactly_once_on_destroy",
        "dlpack.import.test_view_on_delete_callback_runs_once_after_delete_then_destroy"]),
    _d("opaque_pointer_offset", "dlpack", "PJRT_Buffer_OpaqueDeviceMemoryDataPointer points 8 bytes past the data",
       ["dlpack.export.test_exported_pointer_reads_buffer_bytes[*]", "dlpack.interop.test_consumer_from_dlpack_reads_exported_buffer[*]"],
       select=["dlpack.export.test_unsafe_pointer_of_referenced_buffer_reads_buffer_bytes"]),
    # ---- versioning -----------------------------------------------------------------------------
    _d("struct_size_not_checked", "versioning",
       "every function accepts an args struct shorter than its own (struct_size is widened, never checked)",
       ["versioning.args_struct_sizes.test_zero_struct_size_is_rejected[*]",
        "versioning.args_struct_sizes.test_struct_one_byte_short_is_rejected_or_read_correctly[*]"]),
    # ==== escape hatches: a plugin that does not work must not be CONFORMANT (issue 14) ============
    # A defect that only turns tests NOT_SUPPORTED is caught through the contract, so its selection holds
    # mandatory tests of the level it breaks (tests a mutant does not re-run keep the passthrough's outcome).
    # ---- client creation ------------------------------------------------------------------------
    *(_hatch(f"client_create_{kind}", "client", f"PJRT_Client_Create always fails with {code}",
         ["client.client_create.*"], layers=["client", "transfer", "execute"],
         select=_CORE_SMOKE, breaks="Core", note=note)
      for kind, code, note in (
          ("internal", "INTERNAL", "not the profile's documented no-device error: a FAIL of the client-creation test"),
          ("unimplemented", "UNIMPLEMENTED", "a plugin that cannot create a client cannot be exercised: never CONFORMANT"),
          ("invalid_argument", "INVALID_ARGUMENT",
           "what `--create-option bogus_option=1` does to a real plugin; the unknown-option rejection tests pass "
           "under it, only their control (the profile's options create a client) catches it"))),
    # ---- compile ----------------------------------------------------------------------------------
    *(_hatch(f"compile_rejects_{op}", "compile",
         f"PJRT_Client_Compile answers UNIMPLEMENTED for every MLIR program using stablehlo.{op} "
         f"(text: the op name; bytecode: its name in the dialect section)",
         [f"execute.golden_cases.test_case_matches_reference[{family}.*.f32]",
          f"compile.golden_programs.test_golden_program_compiles[{family}.*f32*]"],
         layers=["compile", "execute"],
         select=[f"compile.golden_programs.test_golden_program_compiles[{family}.*f32*]"],
         breaks="Core", note=f"{op} is in the documented core op set: its f32 golden cases are mandatory for Core")
      for op, family in (("dot_general", "dot"), ("convolution", "conv"), ("while", "control"))),
    # ---- transfers ----------------------------------------------------------------------------------
    _hatch("to_host_noop", "transfer",
       "PJRT_Buffer_ToHostBuffer succeeds (its event too) but writes nothing into the destination",
       ["transfer.dtypes.test_round_trip_is_bit_exact[*]", "execute.programs.test_program_matches_numpy[add_f32]"],
       layers=["transfer", "execute"], breaks="Core",
       note="readback into an unpoisoned destination can hold the expected bytes already"),
    _hatch("to_host_half", "transfer", "PJRT_Buffer_ToHostBuffer writes only the first half of the destination",
       ["transfer.dtypes.test_round_trip_is_bit_exact[*]", "execute.programs.test_program_matches_numpy[add_f32]"],
       layers=["transfer", "execute"], breaks="Core"),
    _hatch("to_host_unimplemented", "transfer", "PJRT_Buffer_ToHostBuffer answers UNIMPLEMENTED (size queries still work)",
       ["transfer.dtypes.test_round_trip_is_bit_exact[*]", "execute.programs.test_program_matches_numpy[add_f32]"],
       layers=["transfer", "execute"], select=["execute.golden_cases.test_case_matches_reference[elementwise.add.f32.r1]"],
       breaks="Core", note="a mandatory feature answered UNIMPLEMENTED is never waived: Core is not reached"),
    _hatch("from_host_rejects_non_default_arguments", "transfer",
       "PJRT_Client_BufferFromHostBuffer rejects (INVALID_ARGUMENT) every call giving byte_strides, a memory or a "
       "device_layout",
       ["transfer.byte_strides.test_explicit_dense_byte_strides[*]", "transfer.byte_strides.test_transposed_byte_strides[*]",
        "transfer.memory_copies.test_buffer_from_host_into_memory[*]"],
       layers=["transfer"], breaks="Core",
       note="rejection tests of these arguments pass under it; only a control (the same call with valid arguments "
            "succeeds) catches it"),
    _hatch("dtypes_rejected_as_unsupported", "transfer",
       "PJRT_Client_BufferFromHostBuffer rejects every element type but F32 with INVALID_ARGUMENT "
       "\"element type not supported\"",
       ["transfer.dtypes.test_round_trip_is_bit_exact[*]", "transfer.dtypes.test_scalar_round_trip_is_bit_exact[*]"],
       layers=["transfer"], breaks="Core",
       note="NOT_SUPPORTED decided from the message text hides it; the common element types are mandatory for Core"),
    _hatch("buffers_on_device0_only", "transfer",
       "PJRT_Client_BufferFromHostBuffer places every buffer on the first addressable device whatever device is asked "
       "(4 devices still reported)",
       ["transfer.buffer_queries.test_buffer_reports_its_device[*]",
        "multidevice.golden.test_golden_multidevice_case[replicated.replica_id.f32.d2]"],
       layers=["transfer", "multidevice"], breaks="Multi-device",
       note="uploads into an explicit memory are left alone; cases with collectives catch it too, but the XLA CPU "
            "plugin then aborts after a 60 s rendezvous timeout (left out)"),
    _hatch("buffer_delete_ignored", "transfer",
       "PJRT_Buffer_Delete does nothing but IsDeleted then says true: a deleted buffer stays readable and usable",
       ["transfer.buffer_lifetime.test_use_after_delete_is_an_error[*]",
        "events.execution_events.test_to_host_of_deleted_buffer_reports_error",
        "execute.argument_errors.test_deleted_argument_is_invalid_argument"],
       layers=["transfer", "events", "execute"], select=["transfer.buffer_lifetime.*"], breaks="Core"),
    _hatch("copy_to_device_unimplemented", "transfer", "PJRT_Buffer_CopyToDevice answers UNIMPLEMENTED",
       ["transfer.device_copies.test_copy_to_device[*]", "multidevice.placement.test_copy_to_device_chain_across_all_devices"],
       layers=["transfer", "multidevice"], breaks="Multi-device",
       note="copies across devices are mandatory for Multi-device: the run must stop below it"),
    # ---- execute ------------------------------------------------------------------------------------
    _hatch("execute_rejects_all", "execute", "every PJRT_LoadedExecutable_Execute fails with INVALID_ARGUMENT",
       ["execute.programs.test_program_matches_numpy[add_f32]",
        "execute.golden_cases.test_case_matches_reference[elementwise.add.f32.r1]"],
       layers=["execute"], select=["execute.argument_errors.*"], breaks="Core",
       note="the argument-rejection tests pass under it; the programs and golden cases (their controls) catch it"),
    _hatch("execute_unimplemented", "execute", "every PJRT_LoadedExecutable_Execute answers UNIMPLEMENTED",
       ["execute.programs.test_program_matches_numpy[add_f32]",
        "execute.golden_cases.test_case_matches_reference[elementwise.add.f32.r1]"],
       layers=["execute"], select=["execute.golden_cases.test_case_matches_reference[dot.matmul.f32]"], breaks="Core",
       note="a mandatory feature answered UNIMPLEMENTED is never waived: Core is not reached"),
    _hatch("multi_device_execute_unimplemented", "multidevice",
       "PJRT_LoadedExecutable_Execute answers UNIMPLEMENTED for more than one device (one device works)",
       ["multidevice.golden.test_golden_multidevice_case[*.d2]", "multidevice.collectives.*"],
       layers=["multidevice"], select=["multidevice.placement.*"], breaks="Multi-device",
       note="the run must stay CONFORMANT at Full at most"),
    _hatch("tiny_results_imprecise", "execute",
       "f32/f64 outputs of programs using log_plus_one / exponential_minus_one with 0 < |y| < 1e-4 get a relative "
       "error of 1e-3 (a naive log(1 + x))",
       [f"execute.golden_cases.test_case_matches_reference[{family}.{op}*.f*]"  # special.*_tiny.*: |y| < 1e-4
        for family in ("elementwise", "special") for op in ("log_plus_one", "exponential_minus_one")],
       layers=["execute"], breaks="Core",
       note="an absolute tolerance of a few eps hides it; needs golden inputs with tiny results checked relatively"),
    _d("subnormal_results_flushed", "execute",
       "f32/f64 results of every PJRT_LoadedExecutable_Execute have their subnormal values flushed to zeros of the "
       "same sign (FTZ), as XLA:CPU computes; the StableHLO spec (IEEE-754) keeps them",
       [f"execute.golden_cases.test_case_matches_reference[spec.{op}.*.f32]"  # data movement: exact, edge values
        for op in ("broadcast_in_dim", "transpose", "reverse", "slice")],
       layers=["execute"],
       note="arithmetic tolerances accept a flushed subnormal result (golden/README.md); the spec family's "
            "data-movement cases of edge values are exact", names="subnormals-flushed"),
    # ---- value deviations the diagnosis must name (issue 27): outputs recomputed from the inputs they came from ----
    _d("nan_not_propagated_by_max", "execute",
       "f32/f64 results of elementwise maximum/minimum return the other operand where one operand is NaN "
       "(IEEE-754 maximumNumber/minimumNumber; -0 < +0 kept): programs using stablehlo.maximum/minimum, outputs "
       "found by their values among the program's results",
       [f"execute.golden_cases.test_case_matches_reference[spec.{op}.{dtype}]"
        for op in ("maximum", "minimum") for dtype in ("f32", "f64")],
       layers=["execute"], select=["execute.golden_cases.test_case_matches_reference[elementwise.maximum.f32.*]"],
       note="XLA:CPU itself ignores a NaN second operand (max(x, NaN) = x) and orders -0 = +0: the mutant differs "
            "from it where the first operand is NaN and on signed zeros", names="nan-not-propagated-by-max-min"),
    _d("f64_results_rounded_to_f32", "execute",
       "every f64 result of PJRT_LoadedExecutable_Execute is rounded to the nearest f32 and widened back "
       "(f64 computed in f32)",
       [*(f"execute.golden_cases.test_case_matches_reference[spec.{op}.f64]"
          for op in ("add", "multiply", "divide", "negate", "sqrt", "transpose.perm_1_0")),
        "execute.programs.test_program_matches_numpy[subtract_f64_scalar]"],
       layers=["execute"],
       note="any f64 golden case catches it; the diagnosis recomputes spec cases only (XLA-derived f64 cases stay "
            "unclassified), so the selection is spec cases XLA computes as the spec does, plus one mandatory program",
       names="f64-computed-in-f32"),
    _d("converts_round_toward_zero", "execute",
       "f32 -> bf16/f16 and f64 -> f32 converts truncate (round toward zero) instead of rounding to nearest even: "
       "programs using stablehlo.convert, outputs found by their values among the program's results",
       [f"execute.golden_cases.test_case_matches_reference[convert.{pair}.rounding]"
        for pair in ("f32_to_bf16", "f32_to_f16", "f64_to_f32")],
       layers=["execute"], select=["execute.golden_cases.test_case_matches_reference[convert.f32_to_bf16.r1]"],
       note="an output is edited only where it equals the nearest-even convert of an f32/f64 input of its size",
       names="convert-rounds-toward-zero"),
    # ---- executable -----------------------------------------------------------------------------------
    _hatch("fingerprint_empty", "executable", "PJRT_Executable_Fingerprint succeeds with an empty fingerprint",
       ["executable.fingerprint.*"], breaks="Full",
       note="an empty fingerprint identifies nothing; a WARNING lets it through"),
    _hatch("fingerprint_unimplemented", "executable",
       "PJRT_Executable_Fingerprint answers UNIMPLEMENTED (the header allows it)",
       ["executable.fingerprint.*"], breaks="Full", expect=TOLERATED,
       note="negative control: an optional function answered UNIMPLEMENTED is NOT_SUPPORTED and costs no level"),
    _hatch("serialize_unimplemented", "executable", "PJRT_Executable_Serialize answers UNIMPLEMENTED",
       ["executable.serialization.test_serialize_returns_bytes[*]",
        "executable.serialization.test_deserialize_in_same_process_gives_identical_results[*]"],
       breaks="Full", note="serialization is mandatory for Full: the run must stay CONFORMANT at Core at most"),
    # ---- dlpack ---------------------------------------------------------------------------------------
    _hatch("external_references_unimplemented", "dlpack",
       "PJRT_Buffer_IncreaseExternalReferenceCount answers UNIMPLEMENTED",
       ["dlpack.export.test_reference_count_balances_and_then_rejects_decrease",
        "dlpack.export.test_exported_pointer_reads_buffer_bytes[*]",
        "dlpack.export.test_buffer_delete_while_referenced_keeps_memory"],
       breaks="Full", note="DLPack interchange is mandatory for Full: the run must stay CONFORMANT at Core at most"),
    # ---- versioning -----------------------------------------------------------------------------------
    _hatch("stablehlo_version_overclaimed", "versioning",
       "PJRT_Plugin_Attributes claims a stablehlo_current_version one minor newer than the plugin's, and "
       "Client_Compile rejects portable artifacts newer than the plugin's own version",
       ["versioning.stablehlo_versions.*"], layers=["versioning", "compile"],
       select=["compile.golden_programs.test_golden_artifact_version_compiles[*]"], breaks="Full",
       note="only a portable artifact at exactly the declared version shows it; older artifacts still compile"),
    # ---- one plugin, one verdict (issue 28): answers that change between cases or between runs -------------------
    _hatch("unimplemented_for_one_case", "execute",
       "PJRT_Client_Compile answers UNIMPLEMENTED for sorts whose comparator takes absolute values (the golden "
       "sort.*_cmp_absval.* cases); every other sort of the same element type compiles and runs",
       [f"execute.golden_cases.test_case_matches_reference[sort.dim{dim}_stable_cmp_absval.s32]" for dim in (0, 1)],
       layers=["execute"], select=["execute.golden_cases.test_case_matches_reference[sort.*.s32]"], breaks="Core",
       note="s32 sorts are no mandatory test: only the consistency rule (a plugin that runs other s32 sorts may not "
            "answer UNIMPLEMENTED for this one, pjrt_cts.runner.controller.consistency) turns the NOT_SUPPORTED into a FAIL"),
    _hatch("fails_every_other_time", "execute",
       "f32 results of programs using stablehlo.cosine are 1.0 off on every other execution of such a program in the "
       "run (counted across processes): the first execution is wrong, its rerun in a fresh process right",
       ["execute.golden_cases.test_case_matches_reference[elementwise.cosine.f32.*]"],
       layers=["execute"], breaks="Core",
       note="a suite that reran a failure until it passed would certify it; the confirmation pass records both "
            "answers (FLAKY, a bad outcome)", confirm=True),
    # ---- sizes the golden corpus does not reach (issue 29 item 6) ------------------------------------------------
    _d("mid_size_dot_reduce_off", "execute",
       "f32 results of programs using stablehlo.dot_general or stablehlo.reduce are 1% off (multiplied by 1.01) when "
       "the program's largest argument has 1 Ki to 16 Mi elements (a tiled kernel wrong past its first tile); "
       "smaller programs are untouched",
       [f"execute.mid_sizes.test_mid_size_matches_numpy[{name}]" for name in MID_SIZE_CATCHERS],
       layers=["execute"],
       select=["execute.mid_sizes.*", "execute.programs.test_program_matches_numpy[dot_f32]",
               "execute.programs.test_program_matches_numpy[reduce_sum_f32]",
               "execute.golden_cases.test_case_matches_reference[dot.*.f32]",
               "execute.golden_cases.test_case_matches_reference[reduce.*.f32]"],
       breaks="Core",
       note="every golden dot_general/reduce case is tiny (arguments of at most 120 elements) but large.row_sum.f32, "
            "of exactly 16 Mi: the whole golden corpus passes under it; only the mid-size tests catch it"),
    # ---- malformed programs (the robustness layer's fuzzer) ---------------------------------------------------------
    _d("compile_aborts_on_unreadable_program", "compile",
       "PJRT_Client_Compile calls abort() where it would reject a program with INVALID_ARGUMENT or UNKNOWN (XLA's "
       "parse errors: a parser that trusts its input); valid programs compile",
       ["compile.compile_errors.test_invalid_mlir_is_rejected[*]",
        "robustness.malformed_programs.test_malformed_program_text_is_rejected_cleanly[batch00]"],
       layers=["compile", "robustness"],
       note="the fuzz batch restarts its child after each crash and reruns each crashing input alone: ~100 children"),
    # ---- errors, devices, topologies (issue 50A) ----------------------------------------------------------------
    _d("for_each_payload_error", "abi",
       "PJRT_Error_ForEachPayload returns an INTERNAL error for every error (JAX's C API client aborts on it)",
       ["abi.error_payloads.test_visits_are_valid_and_repeatable[*]", "client.devices.test_lookup_device_rejects_bad_id[*]"],
       layers=["abi", "client"], select=["abi.error_payloads.*"],
       note="every test that provokes an error FAILs under it (pjrt_cts.testing.error_payloads), named "
            "error-payloads-unreadable", names="error-payloads-unreadable"),
    _d("device_attributes_null_deleter", "client",
       "PJRT_Device_GetAttributes returns its attributes with a NULL attributes_deleter (the list is leaked)",
       ["client.device_attributes.test_attributes_come_with_a_deleter[*]"], select=["client.device_attributes.*"]),
    _d("topology_fingerprint_changes", "client",
       "PJRT_TopologyDescription_Fingerprint adds the number of calls so far to the fingerprint",
       ["client.topology.test_fingerprint_is_stable", "client.topology.test_deserialized_topology_has_the_same_fingerprint",
        "aot.topology.test_fingerprint_is_stable"],
       layers=["client", "aot"], select=["client.topology.test_*fingerprint*", "aot.topology.test_*fingerprint*"],
       note="the AOT tier's topology clauses run on the CPU plugin's client topology (it creates none): its mandatory "
            "aot.topology.test_fingerprint_is_stable catches it too"),
    _d("topology_deserialize_reads_past_size", "client",
       "PJRT_TopologyDescription_Deserialize of a proper prefix of the last serialization it made reads the whole of it "
       "(serialized_topology_size ignored): truncated bytes are accepted",
       ["client.topology.test_deserialize_rejects_malformed_bytes[truncated]",
        "aot.topology.test_deserialize_rejects_malformed_bytes[truncated]"],
       layers=["client", "aot"], select=["client.topology.test_deserialize*", "aot.topology.test_deserialize*"]),
    # ---- execute context and the FFI extension (issue 50) ---------------------------------------------------------
    _d("execute_ignores_context", "execute",
       "PJRT_LoadedExecutable_Execute drops PJRT_ExecuteOptions.context: the program runs as if the caller passed none",
       ["extensions.ffi.test_user_data_is_seen_inside_an_execution"],
       layers=["execute", "extensions"],
       select=["execute.execute_context.*", "extensions.ffi.test_user_data_of_a_context_destroyed_*"],
       note="a context changes no values, so the execute layer's same-bits tests pass under it; a handler reading "
            "the user data shows it (XLA:CPU's FFI runtime dereferences the missing context: CRASH of the isolated "
            "test)"),
    _d("execute_context_destroy_leaks", "execute",
       "PJRT_ExecuteContext_Destroy returns success and never destroys the context",
       ["execute.execute_context.test_create_destroy_pairs_do_not_leak"],
       note="an XLA:CPU context holding one user datum is ~176 bytes: 50,000 pairs leak ~8 MiB against the test's "
            "2 MiB bound", timeout=300.0),
    _d("ffi_user_data_dropped", "extensions",
       "FFI.user_data_add returns success without adding the user data to the context",
       ["extensions.ffi.test_user_data_is_seen_inside_an_execution",
        "extensions.ffi.test_user_data_of_a_context_destroyed_as_execute_returns_stays_its_own"],
       layers=["extensions", "execute"],
       select=["execute.execute_context.test_execute_with_ffi_user_data_gives_the_same_bits[*]"],
       note="the custom call's handler finds no user data (NOT_FOUND from XLA's FFI runtime): the execution fails"),
    _d("ffi_handler_ignored", "extensions",
       "FFI.register_handler returns success without registering the handler",
       ["extensions.ffi.test_registered_handler_computes_in_a_custom_call[*]",
        "extensions.ffi.test_user_data_is_seen_inside_an_execution"],
       select=["extensions.ffi.test_register_null_handler_is_invalid_argument",
               "extensions.ffi.test_custom_call_to_an_unregistered_target_is_a_clean_error"],
       note="what the XLA CPU plugins do for a handler XLA's FFI registry refuses (the waived defect "
            "ffi-register-handler-drops-registration-errors), here for every handler"),
    # ---- the transfer family (issue 50, 50B) --------------------------------------------------------------------
    _d("transfer_chunks_at_offset_zero", "transfer",
       "PJRT_AsyncHostToDeviceTransferManager_TransferData writes every chunk at byte 0 of its buffer",
       ["transfer.async_host_to_device.test_chunked_transfer_reads_back_exactly[*]",
        "transfer.async_host_to_device.test_retrieved_buffer_is_ready_only_after_its_last_chunk"],
       select=["transfer.async_host_to_device.test_buffers_of_one_manager_fill_independently"],
       note="a buffer filled by one chunk at offset 0 is unaffected: only chunked transfers see it"),
    _d("uninitialized_dims_reversed", "transfer",
       "PJRT_Client_CreateUninitializedBuffer makes the shape with its dimensions reversed (f32[2,3] -> f32[3,2])",
       ["transfer.uninitialized_buffers.test_uninitialized_buffer_has_the_shape_asked[*]",
        "transfer.uninitialized_buffers.test_uninitialized_buffer_takes_a_donated_output"]),
    _d("alias_fulfilled_with_other_data", "transfer",
       "PJRT_Client_FulfillAliasBuffer fulfils the alias with a copy of the buffer given whose last byte has a bit flipped",
       ["transfer.alias_buffers.test_alias_fulfilled_with_a_buffer_reads_its_data",
        "transfer.alias_buffers.test_execution_enqueued_before_fulfilment_reads_the_data",
        "transfer.alias_buffers.test_alias_in_each_memory_reads_its_data[*]"]),
    _d("raw_copy_future_offset_ignored", "transfer",
       "PJRT_Buffer_CopyRawToHostFuture copies from byte 0 whatever offset is asked",
       ["transfer.raw_copy_future.test_copy_waits_for_its_destination_then_matches_copy_raw_to_host[*]"],
       select=["transfer.raw_copy_future.test_range_outside_the_buffer_is_an_error[*]"]),
    _d("bitcast_ignores_new_type", "transfer",
       "PJRT_Buffer_Bitcast keeps the source's element type (the dimensions and layout asked are applied)",
       ["transfer.bitcast.test_bitcast_result_reads_the_same_bytes[*]"], select=["transfer.bitcast.*"]),
    _d("dependency_ignored_by_donation", "donation",
       "PJRT_Buffer_DonateWithControlDependency completes the dependency itself at once (the new buffer is ready before "
       "the caller's dependency, and never carries its error); the callback it hands out does nothing",
       ["donation.donate_with_control_dependency.test_new_buffer_holds_the_data_once_the_dependency_is_ready",
        "donation.donate_with_control_dependency.test_dependency_error_becomes_the_new_buffers_error"]),
    _d("memory_layout_reversed", "transfer",
       "PJRT_Buffer_GetMemoryLayout reports a tiled layout's minor_to_major reversed",
       ["transfer.memory_layout.test_layout_is_the_device_layout_the_buffer_was_created_with[*]"],
       select=["transfer.memory_layout.*", "transfer.async_host_to_device.test_device_layout_asked_is_honoured"]),
    _d("dma_map_is_a_no_op", "transfer",
       "PJRT_Client_DmaMap succeeds without mapping anything; PJRT_Client_DmaUnmap is the plugin's own",
       ["transfer.dma_mapping.test_map_and_unmap_are_both_implemented_or_both_unimplemented"],
       select=["transfer.dma_mapping.*"],
       note="on a plugin without DMA mapping (XLA CPU: both UNIMPLEMENTED) the pair becomes inconsistent; on one with "
            "it, unmapping the range never mapped fails"),
    # ---- extensions (issue 50): the proxy hands out its own copy of the extension chain with one function replaced ----
    _d("layouts_serialized_garbage", "extensions",
       "LAYOUTS.MemoryLayout_Serialize answers bytes that are no XLA layout text (JAX's C API client aborts on them)",
       ["extensions.layouts.test_client_default_layouts_are_permutations[*]",
        "extensions.layouts.test_executable_layout_counts_and_ranks_match_the_program",
        "extensions.layouts.test_executable_layouts_agree_with_the_optimized_program"],
       select=["extensions.layouts.*"]),
    _d("memory_descriptions_disagree", "extensions",
       "MEMORY_DESCRIPTIONS: every device description lists one memory of its own, kind 'device' with kind id 99, as "
       "default, whatever the device's memories are",
       ["extensions.memory_descriptions.test_descriptions_list_the_device_memories"],
       select=["extensions.memory_descriptions.*"],
       note="on the CPU plugins the real answer (no description) is a waived defect; the mutant's answer is another "
            "disagreement, which the waiver's message does not cover"),
    _d("shardings_off_by_one_device", "extensions",
       "SHARDINGS: every tiled OpSharding names the next device for each tile (its device list rotated by one; a "
       "single device d becomes d + 1)",
       ["extensions.shardings.test_spmd_shardings_agree_with_the_annotations[*]",
        "extensions.shardings.test_execution_with_arguments_placed_as_reported_gives_the_reference[*]"],
       select=["extensions.shardings.*"]),
    _hatch("null_extension_function", "extensions",
       "LAYOUTS is advertised with Executable_GetOutputLayouts NULL (the rest of the extension works)",
       ["extensions.structure.test_functions_within_struct_size_are_not_null[LAYOUTS]",
        "extensions.layouts.test_executable_layout_counts_and_ranks_match_the_program",
        "extensions.layouts.test_output_buffers_have_the_executable_output_layouts"],
       select=["extensions.structure.*", "extensions.layouts.*"],
       note="a NULL function of an advertised extension is a FAIL (runtime NullExtensionFunction), never NOT_SUPPORTED"),
    _hatch("layouts_extension_dropped", "extensions",
       "the extension chain no longer lists LAYOUTS (an optional extension a plugin may lack)",
       ["extensions.layouts.*", "extensions.structure.*"], expect=TOLERATED,
       note="negative control: an extension the plugin does not advertise is NOT_SUPPORTED (kind 'extension') and "
            "costs no level"),
    # ---- declarations and reports taken on trust (issue 53) -------------------------------------------------------
    _hatch("stablehlo_window_false", "versioning",
       "PJRT_Plugin_Attributes declares the StableHLO window [0.1.0, 0.1.0], older than any portable artifact, while "
       "Client_Compile reads every program as before",
       ["versioning.stablehlo_versions.test_no_portable_artifact_beyond_the_declared_window_is_read",
        "versioning.stablehlo_versions.test_artifact_at_exactly_the_declared_current_version_compiles"],
       layers=["versioning", "execute"], select=["versioning.stablehlo_versions.*", *_CORE_SMOKE[2:]],
       note="a declared window explains a rejection only where the declaration holds: this one excludes every "
            "artifact the plugin reads, so no NOT_SUPPORTED may rest on it and the window tests FAIL"),
    _hatch("platform_renamed", "client",
       "PJRT_Client_PlatformName answers \"host\" instead of the plugin's own platform name",
       ["client.platform.test_platform_name_is_the_profiles"],
       select=["client.platform.*", "client.client_create.test_create_with_documented_option[*]",
               "client.client_create.test_cpu_device_count_sets_number_of_devices[*]"],
       breaks="Core",
       note="applicability (which documented options, which multi-node scheme) follows the profile's platform, "
            "never the reported one; only the comparison with the profile catches the rename"),
    _d("client_without_devices", "client",
       "PJRT_Client_Devices and PJRT_Client_AddressableDevices list no device",
       ["client.client_create.test_client_creates_with_profile_options"],
       layers=["client", "transfer"],
       select=["client.devices.test_devices_are_non_empty", "transfer.dtypes.test_round_trip_is_bit_exact[f32]",
               "transfer.shapes.test_round_trip_by_rank[*]"],
       note="the client-creation test FAILs once; every test that needs the client FAILs as blocked by it (no "
            "ERROR: the suite's own fixtures never index an empty device list)"),
    _d("rng_results_constant", "execute",
       "outputs of programs using stablehlo.rng that hold exactly two adjacent non-negative float values (rng UNIFORM "
       "on [a, nextafter(a))) are made constant: every element the larger one, the excluded bound",
       [f"execute.golden_cases.test_case_matches_reference[spec.rng.uniform_one_value.{dtype}]"
        for dtype in ("f16", "bf16", "f32", "f64")],
       select=[f"execute.golden_cases.test_case_matches_reference[spec.rng.uniform_one_value.{dtype}.*]"
               for dtype in ("f16", "bf16", "f32", "f64")],
       note="every element is a value XLA draws there, so 'each value is one of XLA's draws' accepted it as a "
            "deviation shared with XLA; the draws' distribution (half a, half the bound) does not match XLA's"),
    # ---- the AOT tier (issue 52) ------------------------------------------------------------------------------------
    _d("aot_executable_extra_output", "aot",
       "an executable PJRT_Compile makes for a topology (ahead of time) reports one output more than it has "
       "(PJRT_Executable_NumOutputs); PJRT_Client_Compile's executables are right",
       ["aot.executables.test_signature_is_the_programs[add_f32]",
        "compile.topology_compile.test_compile_against_topology_without_client[*]"],
       layers=["aot", "compile"], select=["aot.executables.test_signature_is_the_programs[*]",
                                          "compile.topology_compile.*"],
       note="the CPU plugin creates no topology: the AOT tier's executable tests compile for its client's topology "
            "(suites/aot/conftest.py), PJRT_Compile all the same"),
)

DEFECTS_BY_NAME: dict[str, Defect] = {defect.name: defect for defect in DEFECTS}
# The defects of issue 14 ("a plugin that does not work must not be CONFORMANT"): the selftest must catch
# every one of them, whatever its overall score.
ESCAPE_HATCHES: tuple[str, ...] = tuple(defect.name for defect in DEFECTS if defect.escape_hatch)
PASSTHROUGH = "none"


def defect(name: str) -> Defect:
    try:
        return DEFECTS_BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown defect {name!r}; known: {', '.join(DEFECTS_BY_NAME)}") from None


def all_layers(defects: tuple[Defect, ...] | list[Defect] = DEFECTS) -> list[str]:
    return list(dict.fromkeys(layer for d in defects for layer in d.layers))


def all_patterns(defects: tuple[Defect, ...] | list[Defect] = DEFECTS) -> list[str]:
    return list(dict.fromkeys(p for d in defects for p in d.selection))
