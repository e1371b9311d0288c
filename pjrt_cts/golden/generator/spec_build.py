"""Building a spec-reference case: three sources per case, the spec's value kept.

1. the spec reference (pjrt_cts.golden.spec) computes the expected outputs from the inputs;
2. XLA (JAX's CPU backend, in a child process: `xla_child`) compiles and runs the same program text;
3. numpy, where the case names an independent numpy computation (`numpy_ref`), must agree with (1).

When XLA disagrees with the spec (a wrong value, a rejected or aborting compile of a valid program) the
case keeps the spec's value and records the difference in `spec_vs_xla`; the manifest's
`expected_source` says which sources the stored outputs agree with ("spec+xla" or "spec"). Where XLA computes
another value (`wrong_result`), its outputs are stored too, as XLA returned them (data keys `xla.0.<i>`): a
plugin returning them shares XLA's deviation rather than failing on its own.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
"""
from __future__ import annotations

import atexit
from typing import Any

import numpy as np

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden.compare import compare
from pjrt_cts.golden.corpus import xla_output_key
from pjrt_cts.golden.generator.core import (BuiltCase, CaseSpec, GenerationError, _finite_max_abs, _spec_json,
                                            array_features, loosest_tolerance, program_files, program_ops, serialize,
                                            sha256_bytes)
from pjrt_cts.golden.generator.xla_child import XlaOracle, XlaOutcome
from pjrt_cts.golden.npzio import npz_bytes
from pjrt_cts.golden.spec import registry
from pjrt_cts.golden.spec.registry import TensorType
from pjrt_cts.golden.tolerance import RULES, Tolerance

_ORACLE: XlaOracle | None = None
MESSAGE_LIMIT = 600  # characters of an XLA error kept in the manifest


def _oracle() -> XlaOracle:
    global _ORACLE
    if _ORACLE is None:
        _ORACLE = XlaOracle()
        atexit.register(_ORACLE.close)
    return _ORACLE


def _short(message: str) -> str:
    """The informative part of an XLA error: its first line that says `error`, else its start."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() or "failed" in line.lower():
            return line[:MESSAGE_LIMIT]
    return (lines[0] if lines else message)[:MESSAGE_LIMIT]


def spec_tolerance(spec: CaseSpec, op: registry.SpecOp, outputs: list[np.ndarray]) -> Tolerance:
    """The op class's rule (golden/tolerance.py) for the outputs' types; S from the spec on |inputs|."""
    if spec.tolerance is not None:
        return spec.tolerance
    op_class = spec.op_class if spec.op_class != "exact" else op.op_class
    rule = RULES[op_class]
    scale = None
    if rule.atol_basis == "max_abs_output":
        scale = _finite_max_abs([o for o in outputs if o.dtype.kind in "fc" or golden_dtypes.is_floating(
            golden_dtypes.name_of(o.dtype))])
    elif rule.atol_basis == "sum_abs_terms":
        assert spec.spec is not None
        # every term with its magnitude (in the operand's own type); selectors and rank-0 operands (init values:
        # |-inf| would turn a max's identity into +inf) are kept as they are
        magnitudes = [np.abs(x).astype(x.dtype) if i not in spec.selector_inputs and x.ndim > 0 and (
            golden_dtypes.is_floating(golden_dtypes.name_of(x.dtype))
            or golden_dtypes.is_complex(golden_dtypes.name_of(x.dtype))) else x
            for i, x in enumerate(spec.inputs)]
        with np.errstate(all="ignore"):
            scale = _finite_max_abs(registry.evaluate(op.name, magnitudes, spec.spec.get("attributes", {}),
                                                      _results(spec)))
    reduced = int(spec.spec.get("reduced_elements", 1)) if spec.spec else 1
    return loosest_tolerance([golden_dtypes.name_of(o.dtype) for o in outputs], op_class, reduced, scale,
                             spec.tolerance_precision)


def _results(spec: CaseSpec) -> list[TensorType]:
    assert spec.spec is not None
    return [TensorType.from_json(r) for r in spec.spec["results"]]


def _difference(spec: CaseSpec, op: registry.SpecOp, xla: XlaOutcome, expected: list[np.ndarray],
                tolerance: Tolerance) -> dict[str, Any] | None:
    """None when XLA computes the spec's values; else what differs, for the manifest's `spec_vs_xla`."""
    assert spec.spec is not None
    rule = spec.spec.get("rule") or f"the spec's definition of {op.name}"
    if xla.status != "ok":
        kinds = {"compile_error": "XLA rejects a valid program", "runtime_error": "XLA fails to run a valid program",
                 "abort": "XLA's compile or run of a valid program kills the process",
                 "hang": "XLA does not finish a valid program"}
        return {"kind": xla.status, "explanation": f"{kinds[xla.status]}: {_short(xla.message)}",
                "spec": rule, "section": op.url}
    if len(xla.outputs) != len(expected):
        return {"kind": "wrong_result", "explanation": f"XLA returns {len(xla.outputs)} results, the spec "
                f"{len(expected)}", "spec": rule, "section": op.url}
    for index, (got, want) in enumerate(zip(xla.outputs, expected)):
        mismatch = compare(got, want, tolerance)
        if mismatch is not None:
            return {"kind": "wrong_result", "output": index, "explanation": f"XLA's result {index}: {mismatch}",
                    "spec": rule, "section": op.url}
    return None


def _constant_program(spec: CaseSpec, inputs: list[np.ndarray]) -> str | None:
    """The case's program with its operands as constants (spec.constant_form), checked to hold exactly them:
    a module returning only those constants must give the inputs back bit for bit on XLA. None when XLA cannot
    run that module (it aborts on f6 constants): the variant cannot be checked and is not kept."""
    from pjrt_cts.golden.spec import constants

    assert spec.program_text is not None and spec.constant_form is not None
    names = [golden_dtypes.name_of(a.dtype) for a in inputs]
    try:
        text = constants.with_constant_operands(spec.program_text, inputs, names, spec.constant_form)
        echo = constants.echo_module(inputs, names, spec.constant_form)
    except ValueError as exc:
        raise GenerationError(f"{spec.id}: cannot write its operands as constants: {exc}") from None
    echoed = _oracle().run(echo, [])
    if echoed.status != "ok":
        return None
    if any(got.dtype != want.dtype or got.tobytes() != want.tobytes() for got, want in zip(echoed.outputs, inputs)):
        raise GenerationError(f"{spec.id}: the constants' text does not hold the operands")
    return text


def build_spec_case(spec: CaseSpec) -> BuiltCase | None:
    """The case's files and entry; None for a constant-operand variant XLA cannot compile or run (not kept)."""
    if spec.spec is None or spec.program_text is None or spec.mode != "single":
        raise GenerationError(f"{spec.id}: a spec-reference case needs program_text and spec, single-device")
    inputs = list(spec.inputs)  # build_case has materialized a lazy input list
    text = spec.program_text if spec.constant_form is None else _constant_program(spec, inputs)
    if text is None:
        return None
    arguments = inputs if spec.constant_form is None else []
    try:
        op = registry.lookup(spec.spec["op"])
        expected = registry.evaluate(op.name, inputs, spec.spec.get("attributes", {}), _results(spec))
    except Exception as exc:
        raise GenerationError(f"{spec.id}: the spec reference failed: {type(exc).__name__}: {exc}") from exc
    tolerance = spec_tolerance(spec, op, expected)
    if spec.numpy_ref is not None:  # an independent numpy computation must agree with the spec reference
        with np.errstate(all="ignore"):
            reference = [np.asarray(r) for r in spec.numpy_ref(inputs)]
        for index, (want, other) in enumerate(zip(expected, reference)):
            mismatch = compare(other.astype(want.dtype) if other.dtype != want.dtype else other, want, tolerance)
            if mismatch is not None:
                raise GenerationError(f"{spec.id}: numpy ({spec.numpy_ref_name}) disagrees with the spec reference "
                                      f"on output {index}: {mismatch}")
    xla = _oracle().run(text, arguments)
    difference = _difference(spec, op, xla, expected, tolerance)
    if spec.constant_form is not None and difference is not None and difference["kind"] != "wrong_result":
        return None
    ops = program_ops(text)
    if f"stablehlo.{op.name}" not in ops:
        raise GenerationError(f"{spec.id}: program lacks stablehlo.{op.name} (has {ops})")
    try:
        artifacts, skipped, recorded = serialize(text)
    except GenerationError as exc:
        raise GenerationError(f"{spec.id}: {exc}") from None
    family, stem = spec.id.split(".", 1)
    files, file_entries = program_files(f"{family}/{stem}", text, artifacts)
    arrays = {f"in.0.{i}": golden_dtypes.to_storable(a) for i, a in enumerate(arguments)}
    arrays.update({f"out.0.{i}": golden_dtypes.to_storable(a) for i, a in enumerate(expected)})
    if difference is not None and difference["kind"] == "wrong_result":
        # element types as XLA gave them (they may differ from the declared results): the reader decodes with these
        arrays.update({xla_output_key(i): golden_dtypes.to_storable(a) for i, a in enumerate(xla.outputs)})
        difference["xla_outputs"] = len(xla.outputs)
        difference["xla_dtypes"] = [golden_dtypes.name_of(a.dtype) for a in xla.outputs]
    files[f"{family}/{stem}.npz"] = npz_bytes(arrays)
    file_entries["data"] = f"{family}/{stem}.npz"
    all_arrays = inputs + expected
    features = set(spec.features) | {"spec_reference"} | array_features(all_arrays)
    if difference is not None:
        features.add("spec_vs_xla")
    dtype_names = sorted({golden_dtypes.name_of(a.dtype) for a in all_arrays})
    entry: dict[str, Any] = {
        "id": spec.id,
        "family": family,
        "ops": ops,
        "dtypes": dtype_names,
        "inputs": [_spec_json(a) for a in arguments],
        "outputs": [_spec_json(a) for a in expected],
        "program_inputs": None,
        "tolerance": tolerance.to_json(),
        "features": sorted(features),
        "num_replicas": 1,
        "num_partitions": 1,
        "use_spmd_partitioning": False,
        "donation": None,
        "layouts": None,
        "numpy_reference": spec.numpy_ref_name if spec.numpy_ref is not None else None,
        "bytecode_versions": recorded,
        "bytecode_skipped": skipped,
        "large": None,
        "files": {kind: {"path": path, "sha256": sha256_bytes(files[path])} for kind, path in file_entries.items()},
        "op": f"stablehlo.{op.name}",
        "attributes": dict(spec.spec.get("attributes", {})),
        "spec": {"op": op.name, "section": op.url, "exact": op.exact, "results": spec.spec["results"],
                 "rule": spec.spec.get("rule"), **({"constant_operands": spec.constant_form,
                                                     "operands_of": spec.id.rsplit(".", 1)[0]}
                                                    if spec.constant_form is not None else {})},
        "expected_source": "spec" if difference is not None else "spec+xla",
        "spec_vs_xla": difference,
    }
    # Packed with others unless XLA cannot compile or run it (packing.packable); a pack is checked against XLA's own
    # values for a case XLA computes differently (xla_outputs).
    return BuiltCase(entry, files, xla_outputs=list(xla.outputs) if difference is not None and xla.outputs else None)
