"""What a compiled golden program reports about itself: its outputs as the manifest records them
(PJRT_Executable_NumOutputs, OutputDimensions, OutputElementTypes) and its name, whether it was compiled for the
client's devices (the compile layer) or for a topology without a device (the aot layer).

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why)."""
from __future__ import annotations

import re
from typing import Any

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.judgment.outcomes import SharedDeviation
from pjrt_cts.runtime import buffer_type_of
from pjrt_cts.testing.corpus import read_case

_MODULE_NAME = re.compile(r"^\s*module\s+@([\w.$-]+)")


def check_output_signature(program: Any, executable: Any, how: str) -> None:
    """NumOutputs, OutputDimensions and OutputElementTypes are the manifest's; element types that are XLA's own where
    XLA ignores the declared result type (spec_vs_xla) are SHARED_DEVIATION."""
    __tracebackhide__ = True
    expected_dims = [tuple(spec["shape"]) for spec in program.output_specs]
    expected_types = [buffer_type_of(golden_dtypes.dtype_of(spec["dtype"])) for spec in program.output_specs]
    assert executable.num_outputs == len(program.output_specs), (
        f"PJRT_Executable_NumOutputs of golden program {program.id} ({how}): {executable.num_outputs}, the program "
        f"returns {len(program.output_specs)}"
    )
    assert executable.output_dimensions == expected_dims, (
        f"PJRT_Executable_OutputDimensions of golden program {program.id} ({how}): {executable.output_dimensions}, "
        f"the manifest says {expected_dims}"
    )
    if executable.output_element_types != expected_types and executable.output_element_types == _xla_types(program):
        raise SharedDeviation(
            f"PJRT_Executable_OutputElementTypes of golden program {program.id} ({how}): "
            f"{[getattr(t, 'name', t) for t in executable.output_element_types]}, the spec's result types are "
            f"{[t.name for t in expected_types]}; XLA returns the same types as the plugin (spec_vs_xla): a deviation "
            "from the spec shared with XLA")
    assert executable.output_element_types == expected_types, (
        f"PJRT_Executable_OutputElementTypes of golden program {program.id} ({how}): "
        f"{[getattr(t, 'name', t) for t in executable.output_element_types]}, "
        f"the manifest says {[t.name for t in expected_types]}"
    )


def _xla_types(program: Any) -> list[Any]:
    """The result types XLA gives `program`: the manifest's, except where a member case records XLA's own
    (`spec_vs_xla.xla_dtypes`: XLA ignored the declared result type)."""
    types = [buffer_type_of(golden_dtypes.dtype_of(spec["dtype"])) for spec in program.output_specs]
    for case in program.cases:
        xla_dtypes = (case.spec_vs_xla or {}).get("xla_dtypes") if case.spec is not None else None
        if xla_dtypes:
            for index, name in zip(program.output_range(case), xla_dtypes):
                types[index] = buffer_type_of(golden_dtypes.dtype_of(name))
    return types


def check_name(program: Any, executable: Any, how: str) -> None:
    """PJRT_Executable_Name is the program module's name (`module @name`); a module without one leaves the name to
    the plugin, which must still give one."""
    __tracebackhide__ = True
    found = _MODULE_NAME.match(read_case(program, "program text", program.program_text))
    name = executable.name
    expected = found.group(1) if found else None
    assert name and (expected is None or name == expected), (
        f"PJRT_Executable_Name of golden program {program.id} ({how}) is {name!r}; the module is "
        + (f"named {expected!r}" if expected else "unnamed (any non-empty name)"))
