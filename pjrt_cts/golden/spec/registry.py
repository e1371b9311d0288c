"""The spec reference's op table: `@spec_op` registers one function per StableHLO op."""
from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable, Mapping, Sequence

import numpy as np

SPEC_URL = "https://openxla.org/stablehlo/spec"


@dataclasses.dataclass(frozen=True)
class TensorType:
    """A value's type: shape and corpus element-type name (`s32`, `f8e4m3fn`, `pred`, ...)."""

    shape: tuple[int, ...]
    dtype: str

    def to_json(self) -> dict:
        return {"shape": list(self.shape), "dtype": self.dtype}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "TensorType":
        return cls(tuple(data["shape"]), data["dtype"])


# operands, attributes (JSON values), result types -> results
Evaluate = Callable[[Sequence[np.ndarray], Mapping[str, Any], Sequence[TensorType]], Sequence[np.ndarray]]


@dataclasses.dataclass(frozen=True)
class SpecOp:
    name: str  # the op's mnemonic: "add", "compare", "dot_general"
    section: str  # its section of the spec: f"{SPEC_URL}#{section}"
    classes: frozenset[str]  # element type classes the spec allows (types.CLASSES keys)
    op_class: str  # tolerance class when XLA is compared with it (golden/tolerance.py RULES)
    exact: bool  # the spec defines every result bit (IEEE-754 correctly rounded, integer, data movement)
    evaluate: Evaluate

    @property
    def url(self) -> str:
        return f"{SPEC_URL}#{self.section}"


SPEC_OPS: dict[str, SpecOp] = {}

# Modules under pjrt_cts.golden.spec.ops that register ops (imported on first use).
OP_MODULES = ("elementwise", "math", "bitwise", "movement", "structured", "control", "dynamic")


def spec_op(name: str, *, classes: Sequence[str], op_class: str = "exact", exact: bool | None = None,
            section: str | None = None) -> Callable[[Evaluate], Evaluate]:
    """Register `fn(operands, attributes, result_types) -> results` as the spec's definition of `name`."""

    def register(fn: Evaluate) -> Evaluate:
        if name in SPEC_OPS:
            raise ValueError(f"spec op {name!r} registered twice")
        SPEC_OPS[name] = SpecOp(name=name, section=section or name, classes=frozenset(classes), op_class=op_class,
                                exact=(op_class == "exact") if exact is None else exact, evaluate=fn)
        return fn

    return register


def load_all() -> dict[str, SpecOp]:
    for module in OP_MODULES:
        try:
            importlib.import_module(f"pjrt_cts.golden.spec.ops.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pjrt_cts.golden.spec.ops.{module}":
                raise
    return SPEC_OPS


def lookup(name: str) -> SpecOp:
    ops = load_all()
    try:
        return ops[name]
    except KeyError:
        raise KeyError(f"the spec reference has no op {name!r}") from None


def evaluate(name: str, operands: Sequence[np.ndarray], attributes: Mapping[str, Any],
             results: Sequence[TensorType]) -> list[np.ndarray]:
    """The op's results per the spec, checked against the declared result types."""
    outputs = [np.asarray(o) for o in lookup(name).evaluate(operands, attributes, results)]
    if len(outputs) != len(results):
        raise ValueError(f"spec {name}: {len(outputs)} results, the program declares {len(results)}")
    from pjrt_cts.golden import dtypes

    for i, (out, declared) in enumerate(zip(outputs, results)):
        if tuple(out.shape) != tuple(declared.shape) or out.dtype != dtypes.dtype_of(declared.dtype):
            raise ValueError(f"spec {name}: result {i} is {out.dtype}{list(out.shape)}, "
                             f"the program declares {declared.dtype}{list(declared.shape)}")
    return outputs
