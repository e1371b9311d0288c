"""How many distinct computations the golden corpus holds: what no program layout can merge.

Packing (pjrt_cts/golden/generator/packing.py) puts many cases into one program, which removes the plugin's fixed
cost per compile but not its cost per kernel: XLA:CPU compiles every case's computation into its own kernel. Two
cases can share a kernel only when they compute the same thing on operands of the same types, i.e. when their
programs are the same text once names and locations are set aside; then one program could take both cases'
operands as rows of one argument. This counts, per family:

- argument-fed cases (every operand is an argument) and their distinct programs: the kernels a run compiles;
- constant-operand cases (no arguments: the plugin's constant folder computes them at compile time), their distinct
  programs, and the distinct programs once the constants' values are set aside (the decimal and hex forms of one
  spec case are the same computation; the issue asks for both because they reach different parsers).

No plugin is loaded and nothing is compiled; the figures describe the shipped corpus.

    python benchmarks/bench_corpus_kernels.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from typing import Any

_LOCATION = re.compile(r"\s*loc\([^)]*\)")
_SYMBOL = re.compile(r"@[\w$.]+")
_DENSE_VALUES = re.compile(r"dense<[^>]*>")
_SPACE = re.compile(r"\s+")


def computation(text: str, *, without_constant_values: bool = False) -> str:
    """The program's text with what does not change its computation set aside: symbol names, locations,
    whitespace; with `without_constant_values`, also the values of its dense constants."""
    text = _LOCATION.sub("", text)
    text = _SYMBOL.sub("@f", text)
    if without_constant_values:
        text = _DENSE_VALUES.sub("dense<...>", text)
    return _SPACE.sub(" ", text).strip()


def count(cases: Any) -> dict[str, dict[str, int]]:
    """family -> {cases, argument_fed, argument_fed_distinct, constant, constant_distinct, constant_computations}."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for case in cases:
        if case.is_multi_device:
            continue
        family, text = case.family, case.program_text()
        row, sets = rows[family], seen[family]
        row["cases"] += 1
        if case.input_specs:
            row["argument_fed"] += 1
            sets["argument_fed"].add(computation(text))
        else:
            row["constant"] += 1
            sets["constant"].add(computation(text))
            sets["constant_computations"].add(computation(text, without_constant_values=True))
    for family, sets in seen.items():
        rows[family]["argument_fed_distinct"] = len(sets["argument_fed"])
        rows[family]["constant_distinct"] = len(sets["constant"])
        rows[family]["constant_computations"] = len(sets["constant_computations"])
    return {family: dict(row) for family, row in rows.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    from pjrt_cts.golden.corpus import load_manifest

    rows = count(load_manifest().cases)
    keys = ("cases", "argument_fed", "argument_fed_distinct", "constant", "constant_distinct", "constant_computations")
    total = {key: sum(row.get(key, 0) for row in rows.values()) for key in keys}
    print("| family | single-device cases | argument-fed | distinct | constant-operand | distinct | "
          "distinct without the constants' values |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for family, row in sorted(rows.items(), key=lambda kv: -kv[1]["cases"]) + [("**all**", total)]:
        print(f"| {family} | " + " | ".join(str(row.get(key, 0)) for key in keys) + " |")
    fed, distinct = total["argument_fed"], total["argument_fed_distinct"]
    print(f"\nThe {fed} argument-fed cases are {distinct} distinct computations ({100 * distinct / max(1, fed):.1f} %): "
          f"the kernels a run compiles whatever its layout.")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump({"families": rows, "total": total}, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
