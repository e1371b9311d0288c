"""Every spec case again with its operands as constants in the program text (issue 29 item 5).

`spec.<op>.<suffix>.const_<form>` holds the same values as `spec.<op>.<suffix>` and expects the same results
(the spec reference's), but its `@main` takes no argument: each operand is a `stablehlo.constant` written in
the decimal dense form (`const_decimal`, every case) or the hex form (`const_hex`, where every operand type has
one; pjrt_cts.golden.spec.constants). XLA computes such a program with its
constant folder, not the compiled kernel, and the plugin's parser reads the literals; where XLA's answer
differs from the spec, spec_build records it as for any spec case (`spec_vs_xla`).

Not derived: cases whose program uses quantized types (their constants would be written in the storage type,
another program). Not kept: a variant XLA itself cannot compile or run (spec_build drops it: in the argument
form the same program is already a recorded rejection or abort, and an abort would cost every run an isolated
process).
"""
from __future__ import annotations

import dataclasses
import importlib
from typing import Iterator

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden.generator.core import CaseSpec
from pjrt_cts.golden.spec.constants import forms_for

SOURCE_MODULES = ("spec_elementwise", "spec_math", "spec_bitwise", "spec_movement", "spec_structured",
                  "spec_control", "spec_dynamic")
SUFFIX = "const_"


def constant_variants(spec: CaseSpec) -> list[CaseSpec]:
    if spec.program_text is None or "!quant" in spec.program_text or spec.mode != "single":
        return []
    inputs = spec.inputs() if callable(spec.inputs) else spec.inputs
    if not inputs:
        return []
    dtypes = [golden_dtypes.name_of(array.dtype) for array in inputs]
    return [dataclasses.replace(spec, id=f"{spec.id}.{SUFFIX}{form}", inputs=list(inputs), constant_form=form,
                                features=sorted(set(spec.features) | {"constant_operands"}), group=None)
            for form in forms_for(dtypes)]


def cases() -> Iterator[CaseSpec]:
    for name in SOURCE_MODULES:
        module = importlib.import_module(f"pjrt_cts.golden.generator.families.{name}")
        for spec in module.cases():
            yield from constant_variants(spec)
