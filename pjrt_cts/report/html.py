"""results.json -> one self-contained HTML report (inline CSS/SVG, readable without JavaScript).

The report speaks in defects: the verdict line (pjrt_cts.judgment.verdict) and, ahead of the per-test tables, one row
per defect (pjrt_cts.judgment.defects.defect_table: what it is, its scope, its tests by outcome and the smallest
reproduction), so a reader sees a few named defects before several hundred test ids.
"""
from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from pjrt_cts.bench.section import render_bench_section
from pjrt_cts.judgment.defects import defect_table
from pjrt_cts.judgment.levels import ALL_LEVELS
from pjrt_cts.judgment.verdict import CONFORMANT, RunVerdict, judge_results
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, DISPLAY_ORDER, SEVERITY_ORDER, STYLE_ORDER, Outcome
from pjrt_cts.judgment.api_coverage import api_coverage
from pjrt_cts.judgment.summary import recorded_distribution
from pjrt_cts.report.api_coverage import coverage_view
from pjrt_cts.report.coverage import (AttributeRow, CoverageMatrix, build_attribute_coverage, build_matrix,
                                      load_golden_manifest)
from pjrt_cts.judgment.results import anchor_for, counts_by_layer, outcome_counts
from pjrt_cts.schema import Expected, Results, TestRecord

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"

ALWAYS_SHOWN = (Outcome.PASS, Outcome.FAIL, Outcome.CRASH)
DIFF_KEYS = ("case_id", "op", "dtype", "max_abs_err", "max_rel_err", "first_mismatch_index", "tolerance")
SPECIAL_DETAIL_KEYS = set(DIFF_KEYS) | {"stderr_tail", "repro_file"}
SLOWEST_COUNT = 15
SCOPE_TEXT = {"xla": "inherited from XLA", "plugin": "this plugin's own", "unknown": "unknown"}


def render_report(results: Results, *, link_base: str = "") -> str:
    """The report as one HTML string. `link_base` prefixes relative links to files under the run's out dir."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2").render(**_context(results, link_base))


def write_report(results: Results, path: Path, *, results_dir: Path | None = None) -> None:
    """Write the report to `path`; repro-file links are made relative to it from `results_dir` (the out dir)."""
    path = Path(path)
    link_base = ""
    if results_dir is not None:
        rel = os.path.relpath(Path(results_dir).resolve(), path.resolve().parent)
        link_base = "" if rel == "." else rel.replace(os.sep, "/") + "/"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(results, link_base=link_base), encoding="utf-8")


def _context(results: Results, link_base: str) -> dict[str, Any]:
    tests = list(results.tests)
    totals = outcome_counts(tests)
    by_layer = counts_by_layer(tests)
    columns = [o for o in DISPLAY_ORDER if totals.get(o) or o in ALWAYS_SHOWN]
    judged = judge_results(Results(tests=results.tests, summary=results.summary or {}))
    levels = judged.levels
    verdict = judged.verdict
    plugin = results.plugin or {}
    manifest = load_golden_manifest()
    matrix = build_matrix(tests, manifest)
    attribute_rows = build_attribute_coverage(tests, manifest)
    findings = _findings(tests, link_base)
    defects = _defects(results, tests)
    bench = results.others.get("bench")  # written by `pjrt-cts bench` into a run's results.json (docs/bench.md)
    return {
        "bench_section": Markup(render_bench_section(bench)) if bench else None,
        "title": _title(plugin, results.environment or {}),
        "tool": results.tool or {},
        "started_at": results.started_at or "",
        "finished_at": results.finished_at or "",
        "wall_seconds": results.wall_seconds,
        "command": shlex.join(str(part) for part in results.command or []),
        "profile": results.profile or "",
        "verdict": verdict,
        "verdict_ok": verdict == CONFORMANT,
        "level": judged.level,
        "verdict_line": judged.line(),
        "confirmation": results.confirmation,  # the second observations of the findings (runner/controller/confirmation.py)
        "spec_mark": _spec_mark(judged),
        "waivers": [dict(w, defect_anchor=defect_anchor(str(w["defect"])) if w.get("defect") else "")
                    for w in judged.waivers],
        "waived_defects": judged.waived_defects,
        # the line already holds the first reason
        "verdict_reasons": judged.reasons[1:] if judged.verdict != CONFORMANT else judged.reasons,
        "defects": defects,
        "defects_bad": sum(1 for row in defects if row["bad"]),
        "levels": levels,
        "level_names": [level.name for level in ALL_LEVELS],
        "total_tests": len(tests),
        "totals": [(o, totals.get(o, 0)) for o in DISPLAY_ORDER if totals.get(o)],
        "bad_total": sum(count for outcome, count in totals.items() if outcome in BAD_OUTCOMES),
        "outcome_bar": _outcome_bar(totals, len(tests)),
        "columns": columns,
        "layer_rows": _layer_rows(by_layer, columns, findings),
        "column_totals": [totals.get(o, 0) for o in columns],
        "colors": {o.value: o.colour for o in STYLE_ORDER},
        "outcome_help": {o.value: o.help for o in DISPLAY_ORDER},
        "bad_outcomes": {o.value for o in BAD_OUTCOMES},
        "plugin": _plugin_card(plugin),
        "matrix": _matrix_view(matrix),
        "api_coverage": coverage_view(api_coverage(tests, plugin)),
        "attributes": _attribute_view(attribute_rows),
        "findings": findings,
        "robustness": _robustness(tests, link_base),
        "slowest": _slowest(tests),
        "layer_durations": _layer_durations(tests),
        "expectations": _expectations(results.expectations or {}, tests),
        "environment": results.environment or {},
        "compatibility": results.compatibility or {},
    }


def _spec_mark(judged: RunVerdict) -> dict[str, Any] | None:
    """The spec mark beside the level: None when no spec case ran."""
    mark = judged.spec_mark()
    if mark is None:
        return None
    return {"exact": judged.spec_exact, "text": mark, "detail": "" if judged.spec_exact else judged.spec_mark_detail()}


def _defects(results: Results, tests: list[TestRecord]) -> list[dict[str, Any]]:
    """The Defects section's rows: the results file's own table if it carries one, else diagnosed now."""
    stored = results.defects
    rows = stored if isinstance(stored, list) else defect_table(tests)
    return [_defect_row(row) for row in rows if isinstance(row, dict)]


def _defect_row(row: dict[str, Any]) -> dict[str, Any]:
    defect_id = str(row.get("id") or "unclassified")
    outcomes = row.get("outcomes") or {}
    known = [(Outcome(name), count) for name, count in outcomes.items() if name in Outcome.__members__]
    example = str(row.get("example") or "")
    return {
        "id": defect_id,
        "anchor": defect_anchor(defect_id),
        "title": str(row.get("title") or ""),
        "explanation": str(row.get("explanation") or ""),
        "scope": SCOPE_TEXT.get(str(row.get("scope")), str(row.get("scope") or "")),
        "tests": int(row.get("tests") or 0),
        "outcomes": [(o.value, n) for o, n in sorted(known, key=lambda item: item[0].severity)],
        "bad": int(row.get("bad") or 0),
        "waived": int(row.get("waived") or 0),
        "shared": int(row.get("shared") or 0),
        "rule": str(row.get("rule") or ""),
        "section": _web_url(row.get("section")),
        "upstream": str(row.get("upstream") or ""),
        "upstream_url": _web_url(row.get("upstream")),
        "command": str(row.get("command") or ""),
        "example": example,
        "example_anchor": anchor_for(example) if example else "",
    }


def defect_anchor(defect_id: str) -> str:
    """The fragment id of a defect's row in the Defects section (`#defect-subnormals-flushed`)."""
    return "defect-" + re.sub(r"[^a-z0-9-]+", "-", defect_id.lower()).strip("-")


def _web_url(value: Any) -> str:
    text = str(value or "")
    return text if text.startswith(("https://", "http://")) else ""


def _title(plugin: dict[str, Any], environment: dict[str, Any]) -> str:
    """`PJRT conformance report: lammps-jax-pjrt-cpu 0.11.2, pjrt_c_api_cpu_plugin.so (cpu, PJRT C API 0.115)`:
    the plugin a reader installed (its distribution and version) and the file, then what the plugin says it is."""
    distribution = recorded_distribution(plugin, environment)
    file = Path(str(plugin.get("path") or "")).name
    names = [" ".join(part for part in distribution if part)] if distribution else []
    names += [file] if file else []
    api = plugin.get("api_version")
    facts = [fact for fact in (str(plugin.get("platform_name") or ""), f"PJRT C API {api}" if api else "") if fact]
    name = ", ".join(names) or "unknown plugin"
    return f"PJRT conformance report: {name}" + (f" ({', '.join(facts)})" if facts else "")


def _outcome_bar(totals: Counter[Outcome], total: int) -> list[dict[str, Any]]:
    segments, x = [], 0.0
    for outcome in DISPLAY_ORDER:
        count = totals.get(outcome, 0)
        if not count or not total:
            continue
        width = 100.0 * count / total
        segments.append({"outcome": outcome.value, "count": count, "x": round(x, 3), "width": round(width, 3)})
        x += width
    return segments


def _layer_rows(by_layer: dict[str, Counter[Outcome]], columns: list[Outcome], findings: list[dict[str, Any]]):
    anchors = {layer["anchor"] for group in findings for layer in group["layers"]}
    rows = []
    for layer, counts in by_layer.items():
        cells = []
        for outcome in columns:
            count = counts.get(outcome, 0)
            anchor = _findings_anchor(outcome, layer)
            cells.append({"outcome": outcome.value, "count": count, "href": anchor if anchor in anchors else None})
        bad = sum(c for o, c in counts.items() if o in BAD_OUTCOMES)
        rows.append({"layer": layer, "cells": cells, "total": sum(counts.values()), "bad": bad})
    return rows


def _plugin_card(plugin: dict[str, Any]) -> dict[str, Any]:
    return {
        "path": plugin.get("path") or "",
        "sha256": plugin.get("sha256") or "",
        "api_version": plugin.get("api_version") or "",
        "struct_size": plugin.get("struct_size"),
        "num_slots": plugin.get("num_slots"),
        "missing_slots": list(plugin.get("missing_slots") or []),
        "platform_name": plugin.get("platform_name") or "",
        "platform_version": plugin.get("platform_version") or "",
        "attributes": sorted((plugin.get("attributes") or {}).items()),
        "extensions": list(plugin.get("extensions") or []),
        "devices": list(plugin.get("devices") or []),
        "client_error": plugin.get("client_error"),
        # the preflight child died (crash/hang) in a step: says which, and how
        "failure": (plugin.get("failure") or {}).get("summary") or "",
        "create_options": sorted((plugin.get("create_options") or {}).items()),
    }


def _attribute_view(rows: list[AttributeRow]) -> list[dict[str, Any]]:
    view = []
    for row in rows:
        outcome = row.outcome
        problems = [case for case in row.cases if case.outcome is not Outcome.PASS]
        view.append({
            "op": row.op, "attribute": row.attribute, "value_count": len(row.values),
            "passed_values": len(row.passed_values), "cases": len(row.cases),
            "passed": row.counts.get(Outcome.PASS, 0), "state": outcome.value if outcome else "notrun",
            "title": "values: " + ", ".join(sorted(row.values))[:600],
            "href": "#" + problems[0].anchor if problems else None,
        })
    return view


def _matrix_view(matrix: CoverageMatrix) -> dict[str, Any]:
    rows = []
    for op in matrix.ops:
        cells = []
        for dtype in matrix.dtypes:
            cell = matrix.cell(op, dtype)
            if cell is None:
                not_run = (op, dtype) in matrix.not_run
                cells.append({"state": "notrun" if not_run else "none", "title": f"{op} × {dtype}: "
                              + ("in the golden corpus, not run" if not_run else "no case"), "href": None, "label": ""})
                continue
            outcome = cell.outcome
            lines = [f"{op} × {dtype}: {outcome.value if outcome else ''}"]
            lines += [f"{case.outcome.value:<13} {case.case_id}" for case in cell.cases]
            problem = cell.first_problem
            counts = cell.counts
            passed = counts.get(Outcome.PASS, 0)
            cells.append({
                "state": outcome.value if outcome else "none",
                "title": "\n".join(lines),
                "href": "#" + problem.anchor if problem else None,
                "label": f"{passed}/{len(cell.cases)}",
            })
        rows.append({"op": op, "cells": cells, "source": matrix.sources.get(op, "")})
    return {
        "dtypes": matrix.dtypes,
        "rows": rows,
        "pairs": len(matrix.cells),
        "covered": matrix.covered_pairs,
        "not_run": len(matrix.not_run),
        "unmapped": matrix.unmapped,
    }


def _finding(test: TestRecord, link_base: str) -> dict[str, Any]:
    details = test.details
    outcome = test.outcome
    test_id = test.id
    stderr_tail = _lines(details.get("stderr_tail"))
    message = _without_stderr(test.message, stderr_tail)
    return {
        "id": test_id,
        "anchor": anchor_for(test_id),
        "layer": test.layer,
        "outcome": outcome.value,
        "bad": outcome in BAD_OUTCOMES,
        "duration": test.duration,
        "message": message,
        "headline": message.strip().splitlines()[0] if message.strip() else "",
        "nodeid": test.nodeid,
        "diff": [(key, _fmt(details[key])) for key in DIFF_KEYS if key in details],
        "stderr_tail": stderr_tail,
        "repro_file": details.get("repro_file") or "",
        "repro_href": _file_href(details.get("repro_file"), link_base),
        "other_details": [
            (key, _fmt(value)) for key, value in sorted(details.items()) if key not in SPECIAL_DETAIL_KEYS
        ],
        "expected": _expected_text(test.expected),
        "expected_url": _expected_url(test.expected),
        "tags": list(test.tags),
        "repro": test.repro,
        "defect": test.defect or "",
        "defect_anchor": defect_anchor(test.defect) if test.defect else "",
    }


def _findings_anchor(outcome: Outcome, layer: str) -> str:
    """The fragment id of a layer's findings of one outcome (`#findings-fail-client`)."""
    return f"findings-{outcome.value.lower()}-{layer}"


def _findings(tests: list[TestRecord], link_base: str) -> list[dict[str, Any]]:
    """Every non-PASS test grouped by outcome (worst first), then by layer."""
    groups = []
    for outcome in SEVERITY_ORDER:
        if outcome is Outcome.PASS:
            continue
        matching = [test for test in tests if test.outcome is outcome]
        if not matching:
            continue
        layers: dict[str, list[dict[str, Any]]] = {}
        for test in sorted(matching, key=lambda t: t.id):
            layers.setdefault(test.layer, []).append(_finding(test, link_base))
        groups.append({
            "outcome": outcome.value,
            "bad": outcome in BAD_OUTCOMES,
            "count": len(matching),
            "anchor": f"findings-{outcome.value.lower()}",
            "layers": [
                {"layer": layer, "anchor": _findings_anchor(outcome, layer), "tests": entries}
                for layer, entries in layers.items()
            ],
        })
    return groups


def _robustness(tests: list[TestRecord], link_base: str) -> dict[str, Any]:
    in_layer = [test for test in tests if test.layer == "robustness"]
    with_files = [
        _finding(test, link_base)
        for test in sorted(in_layer, key=lambda t: (t.outcome.severity, t.id))
        if test.details.get("repro_file") and test.outcome is not Outcome.PASS
    ]
    return {"ran": len(in_layer), "counts": outcome_counts(in_layer), "inputs": with_files}


def _slowest(tests: list[TestRecord]) -> list[dict[str, Any]]:
    top = sorted(tests, key=lambda t: t.duration, reverse=True)[:SLOWEST_COUNT]
    longest = top[0].duration if top and top[0].duration > 0 else 1.0
    return [
        {"id": t.id, "layer": t.layer, "outcome": t.outcome.value,
         "duration": t.duration, "pct": round(100.0 * t.duration / longest, 2),
         "anchor": anchor_for(t.id) if t.outcome is not Outcome.PASS else None}
        for t in top
    ]


def _layer_durations(tests: list[TestRecord]) -> list[dict[str, Any]]:
    totals: dict[str, float] = {}
    for test in tests:
        totals[test.layer] = totals.get(test.layer, 0.0) + test.duration
    longest = max(totals.values(), default=0.0) or 1.0
    return [{"layer": layer, "seconds": seconds, "pct": round(100.0 * seconds / longest, 2)}
            for layer, seconds in sorted(totals.items(), key=lambda item: item[1], reverse=True)]


def _expectations(expectations: dict[str, Any], tests: list[TestRecord]) -> dict[str, Any]:
    applied = [
        {"id": t.id, "outcome": t.outcome.value, "expected": _expected_text(t.expected),
         "url": _expected_url(t.expected), "anchor": anchor_for(t.id)}
        for t in tests
        if t.expected is not None
    ]
    extra = {k: v for k, v in expectations.items() if k not in ("file", "unknown_patterns", "entries")}
    entries = [entry for entry in expectations.get("entries") or [] if isinstance(entry, dict)]
    return {
        "file": expectations.get("file") or "",
        "unknown_patterns": list(expectations.get("unknown_patterns") or []),
        "over_matching": [entry for entry in entries if entry.get("passed")],
        "other_failure": [entry for entry in entries if entry.get("other_failure")],
        "applied": applied,
        "extra": [(key, _fmt(value)) for key, value in sorted(extra.items())],
    }


def _expected_url(expected: Expected | None) -> str:
    return _web_url(expected.url) if expected is not None else ""


def _expected_text(expected: Expected | None) -> str:
    if expected is None:
        return ""
    parts = [expected.outcome.value]
    if expected.reason:
        parts.append(f"— {expected.reason}")
    context = [f"pattern {expected.pattern}"] if expected.pattern else []
    if expected.defect:
        context.append(f"defect {expected.defect}")
    if expected.cause:
        context.append(f"cause /{expected.cause}/")
    context.append(f"raw outcome {expected.actual.value}")
    if expected.mismatch:
        context.append(expected.mismatch)
    parts.append(f"({'; '.join(context)})")
    return " ".join(part for part in parts if part)


def _lines(value: Any) -> str:
    """stderr tails come as one string or as a list of lines."""
    if not value:
        return ""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(line) for line in value)
    return str(value)


def _without_stderr(message: str, stderr_tail: str) -> str:
    """A crash message that embeds the stderr tail shown next to it, cut before the tail (no duplicate)."""
    first = next((line for line in stderr_tail.splitlines() if line.strip()), "")
    index = message.find(first) if first else -1
    if index <= 0:
        return message
    head = message[:index].rstrip().splitlines()
    if head and head[-1].startswith("---") and "stderr" in head[-1]:
        head = head[:-1]  # the runner's "--- last N lines of stderr ---" banner
    return "\n".join(head).rstrip() or message


def _file_href(path: Any, link_base: str) -> str:
    if not path:
        return ""
    text = str(path).replace(os.sep, "/")
    if text.startswith("/"):
        return "file://" + text
    return link_base + text


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_fmt(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_fmt(v)}" for k, v in value.items())
    return str(value)
