"""Turning a case spec into corpus files: lower with JAX, serialize, run the reference, cross-check."""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from pjrt_cts.golden import dtypes as golden_dtypes
from pjrt_cts.golden import synth
from pjrt_cts.golden.compare import compare
from pjrt_cts.golden.corpus import FORMAT_VERSION, write_manifest_json
from pjrt_cts.golden.npzio import npz_bytes
from pjrt_cts.golden.tolerance import RULES, Tolerance, tolerance_for
from pjrt_cts.golden.generator.env import jax  # noqa: F401  (configures jax first)

from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402 - imported after env has configured JAX
from jaxlib.mlir.dialects import stablehlo as stablehlo_bindings  # noqa: E402 - imported after env has configured JAX

# One version between the oldest and the newest the bindings serialize to (used by the versioning layer).
INTERMEDIATE_VERSION = "1.0.0"

NumpyRef = Callable[[Sequence[np.ndarray]], Sequence[np.ndarray]]


class GenerationError(Exception):
    """A case cannot be generated (lowering failed, reference disagrees with numpy...)."""


@dataclasses.dataclass
class CaseSpec:
    id: str
    fn: Callable[..., Any]
    inputs: list[np.ndarray] | Callable[[], list[np.ndarray]]  # global inputs; a callable builds them lazily
    op_class: str = "exact"
    numpy_ref: NumpyRef | None = None
    numpy_ref_name: str | None = None
    features: list[str] = dataclasses.field(default_factory=list)
    mode: str = "single"  # "single" | "spmd" | "replicated"
    num_devices: int = 1
    in_specs: tuple | None = None  # spmd: PartitionSpec per input
    out_specs: Any = None  # spmd: PartitionSpec (tree) for outputs
    reference_fn: Callable[..., Any] | None = None  # replicated: JAX function computing stacked outputs
    donate_argnums: tuple[int, ...] = ()
    large_seed: int | None = None
    large_reference: str | None = None
    tolerance: Tolerance | None = None  # overrides the op-class rule
    tolerance_precision: str | None = None  # the type whose precision the op is known to compute at
    selector_inputs: tuple[int, ...] = ()  # inputs that choose terms: kept as-is when computing sum|terms|
    jit_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    expect_ops: tuple[str, ...] = ()  # ops the program must contain (guards against JAX rewriting)
    zero_inputs_ok: tuple[int, ...] = ()  # control operands (a false predicate, branch index 0)
    # The attribute family the case belongs to (family modules name it; `Grouper` numbers it). Programs are not
    # built from it: the corpus is packed by family and element-type class once every case is built (packing.py).
    group: str | None = None
    # The main op's attribute settings this case exercises (name -> value), for the report's op x attribute
    # coverage, e.g. {"index_vector_dim": 1, "collapsed_slice_dims": [0], "mode": "clip"}.
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    # Spec-reference cases (issue 18, families/spec_*.py): the program is written as text, not lowered from
    # `fn`, and the expected outputs are the spec reference's (pjrt_cts.golden.spec), XLA's compared with them.
    program_text: str | None = None
    spec: dict[str, Any] | None = None  # {"op", "attributes", "results": [{"shape", "dtype"}], "rule"}
    # "decimal" | "hex": the program's operands are constants in its text in that dense form, not arguments
    # (families/spec_constants.py); the inputs are still the reference's operands.
    constant_form: str | None = None

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]


def seed_for(case_id: str) -> int:
    return zlib.crc32(case_id.encode())


def rng_for(case_id: str) -> np.random.Generator:
    return np.random.default_rng(seed_for(case_id))


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_MAIN_ARG = re.compile(r"%arg(\d+): ")


def _main_arguments(text: str) -> dict[int, str]:
    """Argument number -> its declaration text (type and attributes) in the public main's signature."""
    main = next((line for line in text.splitlines() if "func.func public @main" in line), "")
    signature = main.split(") -> ", 1)[0]
    starts = list(_MAIN_ARG.finditer(signature))
    return {int(m.group(1)): signature[m.end(): starts[i + 1].start() if i + 1 < len(starts) else len(signature)]
            for i, m in enumerate(starts)}


def donation_info(text: str) -> dict | None:
    aliases: dict[str, int] = {}
    donors: list[int] = []
    for number, declaration in _main_arguments(text).items():
        alias = re.search(r"tf\.aliasing_output = (\d+)", declaration)
        if alias:
            aliases[str(number)] = int(alias.group(1))
        if "jax.buffer_donor = true" in declaration:
            donors.append(number)
    if not aliases and not donors:
        return None
    kinds = (["tf.aliasing_output"] if aliases else []) + (["jax.buffer_donor"] if donors else [])
    return {"kinds": kinds, "aliases": aliases, "buffer_donors": donors}


_LAYOUT_MODE = re.compile(r'mhlo\.layout_mode = "\{([0-9,]*)\}"')


def layouts_info(text: str, num_inputs: int, num_outputs: int) -> dict | None:
    """minor_to_major per main argument/result where the program fixes a layout (mhlo.layout_mode)."""
    main = next((line for line in text.splitlines() if "func.func public @main" in line), "")
    arguments, _, results = main.partition(") -> ")
    def parse(part: str, count: int, marker: str) -> list:
        found: list = [None] * count
        pieces = re.split(marker, part)[1:]
        for index, piece in enumerate(pieces[:count]):
            match = _LAYOUT_MODE.search(piece.split("%arg")[0] if marker.startswith("%") else piece)
            if match:
                found[index] = [int(v) for v in match.group(1).split(",") if v != ""]
        return found
    inputs = parse(arguments, num_inputs, r"%arg\d+: ")
    outputs = parse(results, num_outputs, r"tensor<")
    if not any(inputs) and not any(outputs):
        return None
    return {"inputs": inputs, "outputs": outputs}


def program_ops(text: str) -> list[str]:
    """StableHLO (and other non-builtin) op names in the program, from the parsed module."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    names: set[str] = set()
    with mlir.make_ir_context():
        try:
            module = ir.Module.parse(text)
        except Exception:  # noqa: BLE001 - JAX's context lacks the quant dialect (`!quant.uniform` types of the
            # spec family's hand-written programs, which the StableHLO serializer reads): their generic-form names
            return sorted(set(re.findall(r'"((?:stablehlo|chlo|sdy|mhlo)\.[a-z_0-9]+)"', text)))

        def visit(op: Any) -> Any:
            names.add(op.name)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return sorted(n for n in names if n.startswith(("stablehlo.", "chlo.", "sdy.", "mhlo.")))


@contextlib.contextmanager
def _captured_stderr() -> Iterator[list[str]]:
    """MLIR prints conversion diagnostics to fd 2: capture them for the manifest's skip reasons."""
    sys.stderr.flush()
    saved = os.dup(2)
    lines: list[str] = []
    with tempfile.TemporaryFile() as capture:
        try:
            os.dup2(capture.fileno(), 2)
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            lines.extend(capture.read().decode("utf-8", "replace").splitlines())


def _first_error(diagnostics: list[str]) -> str:
    """The first MLIR error without its location prefix and operand dump, e.g. which VHLO op has no older form."""
    for line in diagnostics:
        if "error:" in line:
            message = line.split("error:", 1)[1].strip()
            return re.split(r': [%"]', message, maxsplit=1)[0][:200]
    return ""


def serialize(text: str) -> tuple[dict[str, bytes], dict[str, str], dict[str, str | None]]:
    versions = stablehlo_versions()
    artifacts: dict[str, bytes] = {}
    skipped: dict[str, str] = {}
    recorded: dict[str, str | None] = {}
    for label, version in versions.items():
        try:
            with _captured_stderr() as diagnostics:
                artifacts[label] = bytes(stablehlo_bindings.serialize_portable_artifact_str(text, version))
            recorded[label] = version
        except Exception as exc:  # the bindings raise a bare ValueError/RuntimeError
            detail = _first_error(diagnostics) or str(exc).strip()
            skipped[label] = f"serialize_portable_artifact to {version} failed: {detail}"
            recorded[label] = None
    if "current" not in artifacts:
        raise GenerationError(f"cannot serialize at the current version: {skipped['current']}")
    return artifacts, skipped, recorded


def program_files(prefix: str, text: str, artifacts: dict[str, bytes]) -> tuple[dict[str, bytes], dict[str, str]]:
    """A program's files under logical path `prefix` (text `.mlir`, bytecode `.<version>.mlirbc`): path -> bytes,
    and the manifest's file kind -> path."""
    files: dict[str, bytes] = {f"{prefix}.mlir": text.encode("utf-8")}
    kinds = {"mlir": f"{prefix}.mlir"}
    for label, data in artifacts.items():
        files[f"{prefix}.{label}.mlirbc"] = data
        kinds[f"mlirbc.{label}"] = f"{prefix}.{label}.mlirbc"
    return files, kinds


def stablehlo_versions() -> dict[str, str]:
    return {
        "current": str(stablehlo_bindings.get_current_version()),
        "intermediate": INTERMEDIATE_VERSION,
        "minimum": str(stablehlo_bindings.get_minimum_version()),
    }


def _flatten(outputs: Any) -> list[Any]:
    return list(jax.tree.leaves(outputs))


def _as_numpy(value: Any) -> np.ndarray:
    return np.asarray(value)


def _spec_json(array: np.ndarray) -> dict:
    return {"shape": list(array.shape), "dtype": golden_dtypes.name_of(array.dtype)}


@dataclasses.dataclass
class BuiltCase:
    entry: dict[str, Any]
    files: dict[str, bytes]  # relative path -> bytes
    # What JAX's CPU backend computed for the case alone, where that is not the stored expectation (a spec case
    # XLA gets wrong): a pack is checked against it (packing.build_pack). None: the stored outputs.
    xla_outputs: list[np.ndarray] | None = None


def _lower_and_run(spec: CaseSpec) -> tuple[str, list[list[np.ndarray]], list[list[np.ndarray]]]:
    """Program text, per-device input rows and per-device expected rows (JAX CPU reference)."""
    if spec.mode == "single":
        jitted = jax.jit(spec.fn, donate_argnums=spec.donate_argnums, **spec.jit_kwargs)
        text = jitted.lower(*spec.inputs).as_text()
        device_inputs = [jax.device_put(x) for x in spec.inputs]
        outputs = [_as_numpy(o) for o in _flatten(jitted(*device_inputs))]
        return text, [list(spec.inputs)], [outputs]
    devices = jax.devices()[: spec.num_devices]
    mesh = Mesh(np.array(devices), ("x",))
    if spec.mode == "spmd":
        in_shardings = tuple(NamedSharding(mesh, s) for s in spec.in_specs)
        out_shardings = jax.tree.map(lambda s: NamedSharding(mesh, s), spec.out_specs,
                                     is_leaf=lambda s: isinstance(s, PartitionSpec))
        jitted = jax.jit(spec.fn, in_shardings=in_shardings, out_shardings=out_shardings,
                         donate_argnums=spec.donate_argnums)
        text = jitted.lower(*spec.inputs).as_text()
        placed = [jax.device_put(x, s) for x, s in zip(spec.inputs, in_shardings)]
        input_rows = [[None] * len(placed) for _ in devices]
        for i, array in enumerate(placed):
            for shard in array.addressable_shards:
                input_rows[shard.device.id][i] = np.asarray(shard.data)
        outputs = _flatten(jitted(*placed))
        output_rows = [[None] * len(outputs) for _ in devices]
        for i, array in enumerate(outputs):
            for shard in array.addressable_shards:
                output_rows[shard.device.id][i] = np.asarray(shard.data)
        return text, input_rows, output_rows
    if spec.mode == "replicated":
        # Program: one replica's computation; inputs are stacked along a leading device axis.
        per_replica = [x[0] for x in spec.inputs]
        text = jax.jit(spec.fn).lower(*per_replica).as_text()
        marker = "mhlo.num_replicas = 1 : i32"
        if marker not in text:
            raise GenerationError("lowered module has no num_replicas attribute to set")
        text = text.replace(marker, f"mhlo.num_replicas = {spec.num_devices} : i32", 1)
        stacked = [_as_numpy(o) for o in _flatten(spec.reference_fn(mesh, *spec.inputs))]
        input_rows = [[x[d] for x in spec.inputs] for d in range(spec.num_devices)]
        output_rows = [[o[d] for o in stacked] for d in range(spec.num_devices)]
        return text, input_rows, output_rows
    raise GenerationError(f"unknown mode {spec.mode!r}")


def _reduced_elements(spec: CaseSpec, outputs: list[np.ndarray]) -> int:
    """Inputs per output element of a reduction (first input over first output); 1 for other ops."""
    if spec.op_class != "reduction" or callable(spec.inputs) or not spec.inputs or not outputs:
        return 1
    return max(1, int(np.asarray(spec.inputs[0]).size) // max(1, int(np.asarray(outputs[0]).size)))


def _is_inexact(array: np.ndarray) -> bool:
    name = golden_dtypes.name_of(np.asarray(array).dtype)
    return golden_dtypes.is_floating(name) or golden_dtypes.is_complex(name)


def _finite_max_abs(arrays: Sequence[np.ndarray]) -> float:
    values = [np.abs(np.asarray(a).astype(np.complex128 if np.iscomplexobj(a) else np.float64)).ravel() for a in arrays]
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    return float(finite.max()) if finite.size else 0.0


def _atol_scale(spec: CaseSpec, output_rows: list[list[np.ndarray]]) -> float | None:
    """The magnitude S the op class scales its atol by (tolerance.RULES[...].atol_basis), or None."""
    rule = RULES[spec.op_class]
    if rule.atol_basis == "max_abs_output":
        return _finite_max_abs([o for row in output_rows for o in row if _is_inexact(o)])
    if rule.atol_basis != "sum_abs_terms":
        return None
    if spec.numpy_ref is None:
        raise GenerationError(f"{spec.id}: op class {spec.op_class} needs a numpy reference to compute sum|terms|")
    # The op on |inputs|: every term of a sum (of products) counted with its magnitude. Exact for sums,
    # dot/conv and the DFT (whose coefficients have modulus 1); |result| for products.
    magnitudes = [x if i in spec.selector_inputs or not _is_inexact(x) else np.abs(x)
                  for i, x in enumerate(spec.inputs)]
    try:
        with np.errstate(all="ignore"):
            terms = [np.asarray(r) for r in spec.numpy_ref(magnitudes)]
    except Exception as exc:
        raise GenerationError(f"{spec.id}: numpy reference on |inputs| failed: {type(exc).__name__}: {exc}") from exc
    return _finite_max_abs(terms)


def _global_outputs_for_check(spec: CaseSpec, output_rows: list[list[np.ndarray]]) -> list[np.ndarray]:
    if spec.mode == "single":
        return output_rows[0]
    # Cross-checks of multi-device cases compare per-device outputs stacked on a new leading axis.
    return [np.stack([row[i] for row in output_rows]) for i in range(len(output_rows[0]))]


def loosest_tolerance(names: Sequence[str], op_class: str, reduced: int, scale: float | None,
                      precision: str | None) -> Tolerance:
    """The loosest rule over the outputs' element types (an exact output of a mixed op stays exact in compare,
    which always compares integers exactly)."""
    candidates = [tolerance_for(name, op_class, reduced, scale, precision) for name in names] \
        or [tolerance_for("f32", "exact")]
    return max(candidates, key=lambda t: (t.kind != "exact", t.ulps, t.rtol, t.atol))


def array_features(arrays: Sequence[np.ndarray]) -> set[str]:
    """The manifest features the arrays of a case (one device's inputs and outputs) carry by themselves."""
    features = set()
    if any(a.size == 0 for a in arrays):
        features.add("zero_size")
    if any(a.ndim == 0 for a in arrays):
        features.add("rank0")
    if any(golden_dtypes.name_of(a.dtype) in golden_dtypes.FP8_NAMES + ("f6e2m3fn", "f6e3m2fn") for a in arrays):
        features.add("fp8")  # the sub-byte floats: fp8, fp6, fp4
    return features


def build_case(spec: CaseSpec) -> BuiltCase | None:
    if callable(spec.inputs):
        spec.inputs = spec.inputs()
    if spec.program_text is not None:
        from pjrt_cts.golden.generator.spec_build import build_spec_case

        return build_spec_case(spec)
    for i, array in enumerate(spec.inputs):
        if array.size and not np.any(array != 0) and i not in spec.zero_inputs_ok:
            raise GenerationError(f"{spec.id}: input {i} is all zeros")
    try:
        text, input_rows, output_rows = _lower_and_run(spec)
    except GenerationError:
        raise
    except Exception as exc:
        raise GenerationError(f"{spec.id}: JAX failed: {type(exc).__name__}: {exc}") from exc
    ops = program_ops(text)
    for op in spec.expect_ops:
        if op not in ops:
            raise GenerationError(f"{spec.id}: program lacks {op} (has {ops})")
    if any(op.startswith(("chlo.", "sdy.", "mhlo.")) for op in ops):
        raise GenerationError(f"{spec.id}: program uses non-StableHLO ops {ops}")
    try:
        artifacts, skipped, recorded = serialize(text)
    except GenerationError as exc:
        raise GenerationError(f"{spec.id}: {exc}") from None

    out_names = [golden_dtypes.name_of(o.dtype) for o in output_rows[0]]
    if spec.tolerance is not None:
        tolerance = spec.tolerance
    else:
        reduced = _reduced_elements(spec, output_rows[0])
        scale = _atol_scale(spec, output_rows)
        tolerance = loosest_tolerance(out_names, spec.op_class, reduced, scale, spec.tolerance_precision)
    if spec.numpy_ref is not None:
        try:
            reference = [np.asarray(r) for r in spec.numpy_ref(spec.inputs)]
        except Exception as exc:
            raise GenerationError(f"{spec.id}: numpy reference failed: {type(exc).__name__}: {exc}") from exc
        produced = _global_outputs_for_check(spec, output_rows)
        if len(reference) != len(produced):
            raise GenerationError(f"{spec.id}: numpy reference gives {len(reference)} outputs, JAX {len(produced)}")
        for i, (jax_out, np_out) in enumerate(zip(produced, reference)):
            with np.errstate(all="ignore"):
                np_out = np_out.astype(jax_out.dtype) if np_out.dtype != jax_out.dtype else np_out
            mismatch = compare(jax_out, np_out.reshape(jax_out.shape) if np_out.size == jax_out.size else np_out,
                               tolerance)
            if mismatch is not None:
                raise GenerationError(f"{spec.id}: JAX output {i} disagrees with numpy ({spec.numpy_ref_name}): {mismatch}")

    family, stem = spec.id.split(".", 1)
    files, file_entries = program_files(f"{family}/{stem}", text, artifacts)
    large = None
    if spec.large_seed is not None:
        large = {"seed": spec.large_seed, "reference": spec.large_reference}
        regenerated = synth.synthesize_inputs(spec.large_seed, [_spec_json(x) for x in spec.inputs])
        if any(not np.array_equal(a, b) for a, b in zip(regenerated, spec.inputs)):
            raise GenerationError(f"{spec.id}: inputs do not regenerate from the seed")
    else:
        arrays: dict[str, np.ndarray] = {}
        for d, row in enumerate(input_rows):
            for i, array in enumerate(row):
                arrays[f"in.{d}.{i}"] = golden_dtypes.to_storable(array)
        for d, row in enumerate(output_rows):
            for i, array in enumerate(row):
                arrays[f"out.{d}.{i}"] = golden_dtypes.to_storable(array)
        path = f"{family}/{stem}.npz"
        files[path] = npz_bytes(arrays)
        file_entries["data"] = path

    features = list(spec.features)
    donation = donation_info(text)
    if donation:
        features.append("donation")
    if spec.num_devices > 1:
        features.append(f"num_devices:{spec.num_devices}")
        features.append(spec.mode)
    if large:
        features.append("large")
    all_arrays = list(input_rows[0]) + list(output_rows[0])
    features.extend(array_features(all_arrays))
    dtype_names = sorted({golden_dtypes.name_of(a.dtype) for a in all_arrays})
    entry = {
        "id": spec.id,
        "family": family,
        "ops": ops,
        "dtypes": dtype_names,
        "inputs": [_spec_json(a) for a in input_rows[0]],
        "outputs": [_spec_json(a) for a in output_rows[0]],
        "program_inputs": [_spec_json(a) for a in spec.inputs] if spec.mode == "spmd" else None,
        "tolerance": tolerance.to_json(),
        "features": sorted(set(features)),
        "num_replicas": spec.num_devices if spec.mode == "replicated" else 1,
        "num_partitions": spec.num_devices if spec.mode == "spmd" else 1,
        "use_spmd_partitioning": spec.mode == "spmd",
        "donation": donation,
        "layouts": layouts_info(text, len(input_rows[0]), len(output_rows[0])),
        "numpy_reference": spec.numpy_ref_name if spec.numpy_ref is not None else spec.large_reference,
        "bytecode_versions": recorded,
        "bytecode_skipped": skipped,
        "large": large,
        "files": {kind: {"path": path, "sha256": sha256_bytes(files[path])} for kind, path in file_entries.items()},
    }
    if spec.attributes:
        entry["attributes"] = spec.attributes
        if spec.expect_ops:  # the op whose attributes the case sets (the program may contain others)
            entry["op"] = spec.expect_ops[0]
    return BuiltCase(entry, files)


class Grouper:
    """Assigns `<family>.<attribute family><n>.<dtype>` groups of at most `size` cases, in call order."""

    def __init__(self, size: int = 24) -> None:
        self.size = size
        self.counts: dict[str, int] = {}

    def __call__(self, family: str, attr_family: str, dtype: str) -> str:
        key = f"{family}.{attr_family}.{dtype}"
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return f"{family}.{attr_family}{n // self.size}.{dtype}"


def combine_programs(texts: Sequence[str]) -> str:
    """One module whose public @main takes every member program's arguments and returns every member's
    results, in order: each member's functions are moved in under a `g<i>_` prefix (made private) and @main
    calls each member's main. Built from the members' lowered text, so the group is exactly its members."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import func

    with mlir.make_ir_context(), ir.Location.unknown():
        combined = ir.Module.create()
        members: list[tuple[str, ir.FunctionType]] = []
        for index, text in enumerate(texts):
            module = ir.Module.parse(text)
            if index == 0:  # mhlo.num_replicas / num_partitions etc.: the same for every single-device member
                attributes = module.operation.attributes
                for index_in in range(len(attributes)):
                    named = attributes[index_in]
                    if named.name != "sym_name":
                        combined.operation.attributes[named.name] = named.attr
            main_type = None
            functions = list(module.body.operations)
            for op in functions:  # rename every symbol (and its uses) before moving any function out
                name = ir.StringAttr(op.attributes["sym_name"]).value
                renamed = f"g{index}_{name}"
                ir.SymbolTable.replace_all_symbol_uses(name, renamed, module.operation)
                op.attributes["sym_name"] = ir.StringAttr.get(renamed)
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
                if name == "main":
                    main_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                    for attribute in ("arg_attrs", "res_attrs"):  # jax.result_info etc. belong to the old main
                        if attribute in op.attributes:
                            del op.attributes[attribute]
            for op in functions:
                combined.body.append(op.detach_from_parent())
            if main_type is None:
                raise GenerationError(f"member {index} of a group has no @main")
            members.append((f"g{index}_main", main_type))
        inputs = [t for _, main_type in members for t in main_type.inputs]
        results = [t for _, main_type in members for t in main_type.results]
        with ir.InsertionPoint(combined.body):
            main = func.FuncOp("main", (inputs, results))
            main.attributes["sym_visibility"] = ir.StringAttr.get("public")
            block = main.add_entry_block()
            with ir.InsertionPoint(block):
                outputs: list[ir.Value] = []
                position = 0
                for name, main_type in members:
                    count = len(main_type.inputs)
                    call = func.CallOp(list(main_type.results), ir.FlatSymbolRefAttr.get(name),
                                       list(block.arguments)[position:position + count])
                    outputs.extend(call.results)
                    position += count
                func.ReturnOp(outputs)
        if not combined.operation.verify():
            raise GenerationError("the combined module does not verify")
        return combined.operation.get_asm(enable_debug_info=False)


def compile_on_jax_cpu(text: str) -> Any:
    """A StableHLO module compiled by JAX's own CPU backend (the corpus's reference), default options."""
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    device = jax.devices("cpu")[0]
    return xla_bridge.get_backend("cpu").compile_and_load(text, xla_client.DeviceList((device,)))


def execute_on_jax_cpu(executable: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """One run of a `compile_on_jax_cpu` executable on the first CPU device."""
    device = jax.devices("cpu")[0]
    arguments = [jax.device_put(np.asarray(x), device) for x in inputs]
    results = executable.execute_sharded(arguments).disassemble_into_single_device_arrays()
    return [_as_numpy(per_device[0]) for per_device in results]


def _run_on_jax_cpu(text: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Compile a StableHLO module with JAX's own CPU backend and run it once."""
    return execute_on_jax_cpu(compile_on_jax_cpu(text), inputs)


def manifest_of(entries: list[dict], programs: Sequence[dict] = ()) -> dict[str, Any]:
    import jaxlib
    import ml_dtypes

    manifest = {
        "format_version": FORMAT_VERSION,
        "stablehlo_versions": stablehlo_versions(),
        "generator": {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__,
                      "ml_dtypes": ml_dtypes.__version__},
        "num_cases": len(entries),
        "num_programs": len(programs),
        "cases": entries,
        "programs": list(programs),
    }
    return manifest


def manifest_text(manifest: dict) -> str:
    """Compact JSON with one case or program per line: small on disk, and a regeneration diffs by entry."""
    def compact(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), sort_keys=False)

    head = {key: value for key, value in manifest.items() if key not in ("cases", "programs")}
    lines = ["{" + ",\n".join(f"{compact(key)}:{compact(value)}" for key, value in head.items()) + ","]
    for key in ("cases", "programs"):
        entries = manifest[key]
        lines.append(f"{compact(key)}:[" + ",\n".join(compact(entry) for entry in entries) + "]"
                     + ("," if key == "cases" else ""))
    return "\n".join(lines) + "}\n"


def write_corpus(out_dir: Path, built: list[BuiltCase], programs: Sequence[BuiltCase] = ()) -> None:
    """Write the archives and the manifest. Entries built without files (kept from the existing corpus by a
    partial regeneration) take their files' bytes from the corpus in `out_dir`."""
    from pjrt_cts.golden.archive import read_member, write_archives

    files: dict[str, bytes] = {}
    for unit in list(built) + list(programs):
        for entry in unit.entry["files"].values():
            relative = entry["path"]
            files[relative] = unit.files[relative] if relative in unit.files else read_member(out_dir, relative)
    write_archives(out_dir, files, prune=True)
    write_manifest_json(out_dir, manifest_text(manifest_of([case.entry for case in built],
                                                           [program.entry for program in programs])))
