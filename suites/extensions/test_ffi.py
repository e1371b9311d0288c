"""The FFI extension (PJRT_Extension_Type_FFI): XLA FFI type ids, user data on an execute context, handlers.

Who calls it: JAX's C API client adds its host callbacks as FFI user data to the PJRT_ExecuteContext of every
execution (FFI.user_data_add; `jax.debug.print`, `pure_callback`, `io_callback` reach Python through it);
FFI.register_handler (API 0.73) is the C API's way to add a typed XLA FFI custom call to a plugin. So:

- type_register gives a name a non-zero id, each name its own, confirms an id given back and refuses another;
- user_data_add needs a context (INVALID_ARGUMENT without one, with a control); the deleter of the user data runs
  once when the context is destroyed (the header says so);
- a handler the suite compiles at run time against the XLA FFI C ABI (jaxlib's xla/ffi/api/c_api.h), registered
  for the plugin's platform, runs from a `stablehlo.custom_call` with `api_version = 4`: y = 2 x + 1 comes out
  right, and a handler reading the context's user data sees it during the execution, also when the caller
  destroyed the context as Execute returned (JAX does; a plugin reading the context later reads freed memory);
- a custom call to a target nobody registered is a clean error (at compile or at execute: XLA's choice), a NULL
  handler is INVALID_ARGUMENT, and a handler the FFI runtime refuses to register is reported, not dropped.

Tests that run a handler reading a context are isolated: a plugin that loses or frees the context may crash (a
finding). Without a C compiler or jaxlib's FFI header, or when the handlers do not compile against it, the handler
tests are SKIP "test environment".
"""
from __future__ import annotations

import uuid
from typing import Any

import numpy as np
import pytest

from pjrt_cts.runtime import ExecuteContext, ExtensionType, FfiExtension, PjrtError
from pjrt_cts.testing import (FeatureProbe, assert_bit_exact, expect_rejection, first_line, requires,
                              unsupported_if_unimplemented)
from pjrt_cts.testing.ffi_handlers import (AFFINE, NEVER_REGISTERED, UNSUPPORTED_VERSION, USER_DATA, Datum,
                                          affine_program, datum_type_id, ffi_handlers, register_handler,
                                          require_handler_platform, user_data_program)

pytestmark = requires(feature="ffi")

USER_DATA_ELEMENTS = 8
# An execution still running when Execute returns: XLA:CPU runs programs of 1,000 flops or more on its thread pool
# (the add over 2,048 elements); the handler then sleeps before it reads the context, long after the test destroyed
# it and created others in the freed memory. A plugin that runs the program inside Execute passes trivially.
RUNNING_ELEMENTS = 2048
HANDLER_DELAY_MS = 200
REUSERS = 8
VALUE, OTHER_VALUE = 4.5, -3.25


@pytest.fixture(scope="module")
def feature_ffi(plugin: Any) -> FeatureProbe:
    found = plugin.find_extension(ExtensionType.FFI)
    return FeatureProbe("the FFI extension", found is not None,
                        "advertised" if found else "PJRT_Api's extension chain has no PJRT_Extension_Type_FFI")


@pytest.fixture
def ffi(plugin: Any) -> FfiExtension:
    return FfiExtension(plugin)


@pytest.fixture
def platform(client: Any) -> str:
    """The platform name custom calls are registered for: the plugin's own (PJRT_Client_PlatformName)."""
    name: str = client.platform_name
    require_handler_platform(name)
    ffi_handlers()  # SKIP "test environment" before any call when the handlers cannot be built
    return name


def _unique(kind: str) -> str:
    """A name no registry of this process has seen (type and handler registries live as long as the process)."""
    return f"pjrt_cts.{kind}.{uuid.uuid4().hex}"


def _run(client: Any, text: str, inputs: list[np.ndarray], **options: Any) -> list[np.ndarray]:
    executable = client.compile(text)
    device = executable.addressable_devices[0]
    outputs = executable.execute([client.buffer_from_numpy(x, device) for x in inputs], **options)
    return [output.to_numpy() for output in outputs]


# ---- type ids ---------------------------------------------------------------------------------------------------


def test_type_register_assigns_a_non_zero_id(ffi: FfiExtension) -> None:
    type_id = ffi.register_type(_unique("type"))
    assert type_id != 0, "FFI.type_register with type_id 0 should assign a non-zero id, but answered 0"


def test_type_register_gives_each_name_its_own_id(ffi: FfiExtension) -> None:
    ids = [ffi.register_type(_unique("type")) for _ in range(3)]
    assert len(set(ids)) == len(ids), f"FFI.type_register gave three new names the ids {ids}: each needs its own"


def test_type_register_confirms_the_id_it_assigned(ffi: FfiExtension) -> None:
    name = _unique("type")
    assigned = ffi.register_type(name)
    confirmed = ffi.register_type(name, assigned)
    assert confirmed == assigned, (f"FFI.type_register of {name!r} with the id it assigned ({assigned}) should "
                                   f"confirm it, but answered {confirmed}")


def test_type_register_of_a_registered_name_is_consistent(ffi: FfiExtension, record_details: Any) -> None:
    """Asking again for an id (type_id 0) may be refused or answered with the same id, never with another."""
    name = _unique("type")
    first = ffi.register_type(name)
    try:
        again = ffi.register_type(name)
    except PjrtError as error:
        record_details(second_registration=f"{error.code}: {first_line(error.message)}")
        assert error.message.strip(), f"FFI.type_register refused a registered name with {error.code} and no message"
        return
    record_details(second_registration=f"id {again}")
    assert again == first, (f"FFI.type_register gave {name!r} the id {first}, then {again} when asked again: a "
                            "type's id must not change")


def test_type_register_with_another_id_for_a_registered_name_is_rejected(ffi: FfiExtension) -> None:
    name = _unique("type")
    assigned = ffi.register_type(name)
    expect_rejection(lambda: ffi.register_type(name, assigned + 1000), control=lambda: ffi.register_type(name, assigned),
                     function="FFI.type_register", codes=("INVALID_ARGUMENT", "ALREADY_EXISTS", "FAILED_PRECONDITION"),
                     tolerated=("INTERNAL", "UNKNOWN"),
                     what=f"the id {assigned + 1000} for {name!r}, registered with the id {assigned}")


# ---- user data ---------------------------------------------------------------------------------------------------


def _context(plugin: Any) -> ExecuteContext:
    """A PJRT_ExecuteContext; UNIMPLEMENTED (libtpu: "ExecuteContext not supported for TPU execution") is
    NOT_SUPPORTED: the user data tests need one."""
    with unsupported_if_unimplemented("PJRT_ExecuteContext_Create"):
        return ExecuteContext.create(plugin)



def test_user_data_add_without_a_context_is_invalid_argument(plugin: Any, ffi: FfiExtension) -> None:
    payload = np.zeros(1, np.int64)
    type_id = datum_type_id(ffi)

    def control() -> None:
        with _context(plugin) as context:
            ffi.add_user_data(context, type_id, payload.ctypes.data)

    expect_rejection(lambda: ffi.add_user_data(None, type_id, payload.ctypes.data), control=control,
                     function="FFI.user_data_add", what="a NULL context")


@requires("ExecuteContext_Create", "ExecuteContext_Destroy")
def test_user_data_deleter_runs_once_when_its_context_is_destroyed(plugin: Any, ffi: FfiExtension) -> None:
    """The header: "Deleter will be called when the context is destroyed"."""
    datum = Datum.holding(VALUE)
    context = _context(plugin)
    ffi.add_user_data(context, datum_type_id(ffi), datum.address, ffi_handlers().deleter)
    assert datum.deleter_calls == 0, "FFI.user_data_add called the user data's deleter while its context is alive"
    context.close()
    assert datum.deleter_calls == 1, (f"PJRT_ExecuteContext_Destroy should call the deleter of the user data added "
                                      f"with FFI.user_data_add once, but it was called {datum.deleter_calls} times")


# ---- handlers ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(8,), (3, 5)], ids=["8", "3x5"])
def test_registered_handler_computes_in_a_custom_call(client: Any, ffi: FfiExtension, platform: str,
                                                      shape: tuple[int, ...]) -> None:
    register_handler(ffi, platform, AFFINE)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    (y,) = _run(client, affine_program(shape), [x])
    assert_bit_exact(y, x * np.float32(2) + np.float32(1),
                     f"a custom call (api_version 4) to the handler registered with FFI.register_handler for "
                     f"platform {platform!r} (y = 2 x + 1)")


@pytest.mark.isolated
@requires("ExecuteContext_Create", "ExecuteContext_Destroy")
def test_user_data_is_seen_inside_an_execution(client: Any, plugin: Any, ffi: FfiExtension, platform: str) -> None:
    register_handler(ffi, platform, USER_DATA)
    type_id = datum_type_id(ffi)
    datum = Datum.holding(VALUE)
    zeros = np.zeros(USER_DATA_ELEMENTS, np.float32)
    with _context(plugin) as context:
        ffi.add_user_data(context, type_id, datum.address)
        (out,) = _run(client, user_data_program(type_id, USER_DATA_ELEMENTS), [zeros], context=context)
    assert datum.handler_calls == 1, (f"the custom call ran {datum.handler_calls} times with the user data of its "
                                      "PJRT_ExecuteOptions.context, once expected")
    assert_bit_exact(out, np.full_like(zeros, VALUE), "the user data a handler read from the execution's context "
                                                      "(FFI.user_data_add, PJRT_ExecuteOptions.context)")


@pytest.mark.isolated
@requires("ExecuteContext_Create", "ExecuteContext_Destroy")
def test_user_data_of_a_context_destroyed_as_execute_returns_stays_its_own(client: Any, plugin: Any,
                                                                            ffi: FfiExtension, platform: str,
                                                                            record_details: Any) -> None:
    """JAX destroys the context as Execute returns. The handler reads it 200 ms later; by then the test has
    created other contexts holding another value in the memory the destroyed one freed."""
    register_handler(ffi, platform, USER_DATA)
    type_id = datum_type_id(ffi)
    executable = client.compile(user_data_program(type_id, RUNNING_ELEMENTS, HANDLER_DELAY_MS))
    zeros = np.zeros(RUNNING_ELEMENTS, np.float32)
    argument = client.buffer_from_numpy(zeros, executable.addressable_devices[0])
    datum, others = Datum.holding(VALUE), [Datum.holding(OTHER_VALUE) for _ in range(REUSERS)]
    context = _context(plugin)
    ffi.add_user_data(context, type_id, datum.address)
    (output,) = executable.execute([argument], context=context)
    context.close()
    record_details(handler_ran_before_destroy=datum.handler_calls > 0)
    reusers = [_context(plugin) for _ in others]
    for reuser, other in zip(reusers, others):
        ffi.add_user_data(reuser, type_id, other.address)
    out = output.to_numpy()
    for reuser in reusers:
        reuser.close()
    read_others = [i for i, other in enumerate(others) if other.handler_calls]
    assert not read_others, ("the custom call read the user data of a PJRT_ExecuteContext created after its own was "
                             "destroyed (its caller destroyed it as PJRT_LoadedExecutable_Execute returned): the "
                             "plugin reads the context after Execute returns, i.e. freed memory")
    assert_bit_exact(out, np.full_like(zeros, VALUE), "the user data a handler read from the context of an execution "
                                                      "whose caller destroyed it as Execute returned")


@pytest.mark.isolated
def test_custom_call_to_an_unregistered_target_is_a_clean_error(client: Any, ffi: FfiExtension, platform: str,
                                                                record_details: Any) -> None:
    """Whether compile or execute refuses it is XLA's choice (XLA:CPU: compile, NOT_FOUND); running it and
    returning values is not. The control: the same program calling a registered target compiles and runs."""
    register_handler(ffi, platform, AFFINE)
    x = np.ones(4, np.float32)
    (control,) = _run(client, affine_program((4,)), [x])
    assert_bit_exact(control, np.full_like(x, 3.0), "the control: a custom call to a registered handler")
    try:
        outputs = _run(client, affine_program((4,), NEVER_REGISTERED), [x])
    except PjrtError as error:
        record_details(refused_by=error.function, code=error.code)
        assert error.message.strip(), f"{error.function} refused a custom call to an unregistered target with " \
                                      f"{error.code} and no message"
        return
    raise AssertionError(f"a custom call to {NEVER_REGISTERED!r}, for which no handler is registered, compiled, ran "
                         f"and returned {outputs[0]!r}: it should fail at compile or execute")


def test_register_null_handler_is_invalid_argument(ffi: FfiExtension, platform: str) -> None:
    expect_rejection(lambda: ffi.register_handler(_unique("null_handler"), None, platform),
                     control=lambda: ffi.register_handler(AFFINE, ffi_handlers().address(AFFINE), platform),
                     function="FFI.register_handler", what="a NULL handler")


def test_handler_the_ffi_runtime_refuses_is_not_reported_registered(client: Any, ffi: FfiExtension,
                                                                     platform: str) -> None:
    """A handler declaring XLA FFI API 99.0 cannot be registered; register_handler must say so rather than
    succeed and leave the target unregistered ("No FFI handler registered" at compile time). The control: the
    suite's y = 2 x + 1 handler registers and runs."""
    register_handler(ffi, platform, AFFINE)
    (control,) = _run(client, affine_program((4,)), [np.ones(4, np.float32)])
    assert_bit_exact(control, np.full(4, 3.0, np.float32), "the control: a custom call to a registered handler")
    target = _unique("unsupported_version").replace(".", "_")
    try:
        ffi.register_handler(target, ffi_handlers().address(UNSUPPORTED_VERSION), platform)
    except PjrtError as error:
        assert error.message.strip(), f"FFI.register_handler refused the handler with {error.code} and no message"
        return
    try:
        _run(client, affine_program((4,), target), [np.ones(4, np.float32)])
    except PjrtError as error:
        raise AssertionError(
            f"FFI.register_handler reported success for a handler declaring XLA FFI API 99.0, which the FFI runtime "
            f"refuses, and the target is not registered: {error.function} failed with {error.code}: "
            f"{first_line(error.message)}") from None
    raise AssertionError("FFI.register_handler accepted a handler declaring XLA FFI API 99.0 and a custom call ran it")
