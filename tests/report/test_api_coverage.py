"""API coverage of a run (pjrt_cts.judgment.api_coverage): what the plugin offers, what the records say their tests
called, why an offered function was not reached; shown by `pjrt-cts coverage`, the HTML report, results.json, the
run summary and the matrix's "API reached" column."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions.registry import EXTENSIONS
from pjrt_cts.abi.slots import SLOTS
from pjrt_cts.cli.main import main
from pjrt_cts.judgment.api_coverage import NO_TEST_TRIED, Reach, api_coverage, stored_line
from pjrt_cts.judgment.outcomes import Outcome
from pjrt_cts.judgment.results import build_results, write_results
from pjrt_cts.judgment.summary import run_summary
from pjrt_cts.report.html import render_report
from pjrt_cts.report.matrix import api_reached, render_matrix_markdown
from pjrt_cts.schema import Results, RunSummary, Tally, TestRecord

LAYOUTS = EXTENSIONS[ExtensionType.LAYOUTS]
RECV = "PJRT_Client_Compile: UNIMPLEMENTED: HLO opcode `recv` is not supported by XLA:CPU ThunkEmitter"
PLUGIN = {
    "path": "/plugins/libcpu.so", "api_version": "0.115", "num_slots": len(SLOTS),
    "missing_slots": ["PJRT_Client_DmaMap"],  # NULL: not offered
    "extensions": [{"type": int(ExtensionType.LAYOUTS), "name": "LAYOUTS", "struct_size": LAYOUTS.size},
                   {"type": 999, "name": "UNKNOWN_999", "struct_size": 24}],  # a type the suite does not know
    # what the probe found non-NULL (runtime.extensions.calls.offered_functions): all of LAYOUTS but one
    "extension_functions": [f"LAYOUTS.{f.name}" for f in LAYOUTS.functions if f.name != "Buffer_MemoryLayout"],
}
LAYOUTS_OFFERED = len(LAYOUTS.functions) - 1


def _record(test_id: str, outcome: Outcome, message: str = "", **calls: Tally) -> TestRecord:
    return TestRecord(id=test_id, layer=test_id.split(".")[0], outcome=outcome, message=message,
                      api_calls={name.replace("__", "."): tally for name, tally in calls.items()})


RECORDS = (
    _record("compile.a.test_ok", Outcome.PASS, Client_Compile=Tally(2), Client_Create=Tally(1)),
    _record("compile.a.test_bad", Outcome.FAIL, "wrong", Client_Compile=Tally(1, 1, ("INVALID_ARGUMENT",))),
    _record("transfer.streams.test_recv", Outcome.NOT_SUPPORTED, RECV, Client_Compile=Tally(1, 1, ("UNIMPLEMENTED",)),
            CopyToDeviceStream_AddChunk=Tally(0)),
    _record("transfer.streams.test_null", Outcome.PASS, CopyToDeviceStream_Destroy=Tally(1),
            CopyToDeviceStream_AddChunk=Tally(0)),
    _record("extensions.layouts.test_default", Outcome.PASS, LAYOUTS__Client_GetDefaultLayout=Tally(4)),
    _record("extensions.layouts.test_null", Outcome.FAIL, "LAYOUTS.Buffer_MemoryLayout: the function is NULL",
            LAYOUTS__Buffer_MemoryLayout=Tally(0)),
    _record("client.x.test_nothing", Outcome.PASS),
)


def _results() -> Results:
    return Results(tests=RECORDS, plugin=PLUGIN)


def test_each_function_has_its_calls_tests_worst_outcome_and_error_codes() -> None:
    coverage = api_coverage(RECORDS, PLUGIN)
    assert coverage is not None
    rows = {row.name: row for row in coverage.functions}
    compile_ = rows["Client_Compile"]
    assert (compile_.calls, compile_.failed, compile_.tests, compile_.worst) == (4, 2, 3, Outcome.FAIL)
    assert compile_.codes == ("INVALID_ARGUMENT", "UNIMPLEMENTED") and compile_.offered
    assert rows["LAYOUTS.Client_GetDefaultLayout"].family == "LAYOUTS"
    assert rows["LAYOUTS.Client_GetDefaultLayout"].worst is Outcome.PASS
    assert "Client_DmaMap" not in rows  # a NULL slot is not offered (nor called)


def test_offered_is_what_the_probe_recorded_non_null_slots_and_extension_functions() -> None:
    coverage = api_coverage(RECORDS, PLUGIN)
    assert coverage is not None
    assert coverage.slots.offered == len(SLOTS) - 1
    assert coverage.slots.reached == 3  # Client_Compile, Client_Create, CopyToDeviceStream_Destroy
    assert coverage.extension_functions.offered == LAYOUTS_OFFERED
    assert coverage.extension_functions.reached == 1
    assert coverage.extensions == ("LAYOUTS",)
    assert coverage.figures() == f"3/{len(SLOTS) - 1} · 1/{LAYOUTS_OFFERED} ext"
    shorter = dict(PLUGIN, num_slots=10)  # an older minor: the slots past its struct_size are not offered
    older = api_coverage(RECORDS, shorter)
    assert older is not None and older.slots.offered == 10


def test_a_null_function_tests_looked_for_is_listed_apart_with_why_in_neither_count() -> None:
    coverage = api_coverage(RECORDS, PLUGIN)
    assert coverage is not None
    sought = {row.name: row for row in coverage.sought()}
    assert list(sought) == ["LAYOUTS.Buffer_MemoryLayout"]
    assert sought["LAYOUTS.Buffer_MemoryLayout"].why.startswith("FAIL (1 test): LAYOUTS.Buffer_MemoryLayout")
    assert "LAYOUTS.Buffer_MemoryLayout" not in {row.name for row in coverage.unreached()}


def test_profilers_table_pointer_stands_for_the_functions_of_its_table() -> None:
    card = dict(PLUGIN, extension_functions=["PROFILER.profiler_api"])
    records = (_record("extensions.profiler.test_session", Outcome.PASS, PROFILER__create=Tally(1)),)
    coverage = api_coverage(records, card)
    assert coverage is not None
    offered = {row.name for row in coverage.functions if row.family == "PROFILER" and row.offered}
    assert {"PROFILER.create", "PROFILER.start", "PROFILER.stop", "PROFILER.collect_data"} <= offered
    assert "PROFILER.profiler_api" not in offered
    assert coverage.extension_functions == Reach(1, len(offered))


def test_why_an_offered_function_was_not_reached_comes_from_the_tests_that_tried() -> None:
    coverage = api_coverage(RECORDS, PLUGIN)
    assert coverage is not None
    why = {row.name: row for row in coverage.unreached()}
    # the test that passed without calling it says nothing; the one that stopped says why
    assert why["CopyToDeviceStream_AddChunk"].why == f"NOT_SUPPORTED (1 test): {RECV}"
    assert why["CopyToDeviceStream_AddChunk"].tried == 2
    assert why["Event_Await"].why == NO_TEST_TRIED and why["Event_Await"].tried == 0
    assert "Client_DmaMap" not in why and "Client_Compile" not in why


def test_no_coverage_where_the_records_do_not_say_what_they_called() -> None:
    old = tuple(dataclasses.replace(record, api_calls={}) for record in RECORDS)
    assert api_coverage(old, PLUGIN) is None
    assert run_summary(Results(tests=old, plugin=PLUGIN)).api_slots is None


def test_results_json_summary_and_matrix_carry_the_figures(tmp_path: Path) -> None:
    results = build_results(tool_version="0", started_at="", finished_at="", wall_seconds=1.0, command=[],
                            profile=None, plugin=PLUGIN, environment={}, expectations={}, compatibility={},
                            tests=RECORDS)
    assert results.api_coverage is not None
    assert results.api_coverage["slots"] == {"reached": 3, "offered": len(SLOTS) - 1}
    stored = results.api_coverage["functions"]["CopyToDeviceStream_AddChunk"]
    assert stored == {"family": "slot", "offered": True, "calls": 0, "tests": 0, "tried": 2,
                      "why": f"NOT_SUPPORTED (1 test): {RECV}"}
    summary = run_summary(results)
    assert summary.api_slots == (3, len(SLOTS) - 1)
    assert summary.api_extension_functions == (1, LAYOUTS_OFFERED)
    assert RunSummary.from_json(json.loads(summary.dumps())) == summary
    assert api_reached(summary) == f"3/{len(SLOTS) - 1} · 1/{LAYOUTS_OFFERED} ext"
    before = dataclasses.replace(summary, api_slots=None, api_extension_functions=None)  # a summary from before
    legacy = {key: value for key, value in before.to_json().items()
              if key not in ("api_slots", "api_extension_functions")}
    assert RunSummary.from_json(legacy) == before and api_reached(before) == "–"
    page = render_matrix_markdown([summary, dataclasses.replace(before, distribution="other")])
    assert "| API reached |" in page and f"| 3/{len(SLOTS) - 1} · 1/" in page and "| – |" in page
    assert "API reached `–`: the row's summary.json was written before pjrt-cts counted" in page  # says why
    assert "was written before" not in render_matrix_markdown([summary])


def test_cli_prints_the_table_and_its_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.json"
    write_results(_results(), path)
    assert main(["coverage", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"PJRT_Api functions reached: 3/{len(SLOTS) - 1} offered" in text
    line = next(line for line in text.splitlines() if line.startswith("Client_Compile"))
    assert line.split()[:4] == ["Client_Compile", "4", "3", "FAIL"] and "INVALID_ARGUMENT, UNIMPLEMENTED" in line
    assert f"  CopyToDeviceStream_AddChunk: NOT_SUPPORTED (1 test): {RECV}" in text
    assert "looked for, not offered (1; in neither count):\n  LAYOUTS.Buffer_MemoryLayout: FAIL (1 test)" in text
    assert main(["coverage", str(path), "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert data["functions"]["Client_Compile"]["worst"] == "FAIL"
    assert data["extension_functions"] == {"reached": 1, "offered": LAYOUTS_OFFERED}


def test_the_html_report_lists_unreached_functions_with_why() -> None:
    page = render_report(_results())
    section = page[page.index('<section id="api-coverage">'):]
    section = section[:section.index("</section>")]
    assert "CopyToDeviceStream_AddChunk" in section and "HLO opcode `recv`" in section.replace("&#96;", "`")
    assert "LAYOUTS.Client_GetDefaultLayout" in section and 'id="api-sought"' in section
    line = f"API reached 3/{len(SLOTS) - 1} PJRT_Api functions offered · 1/{LAYOUTS_OFFERED} extension functions"
    header = page[page.index('<header class="top">'):page.index("</header>")]
    assert line in header


def test_the_run_prints_the_figures_from_results_json_before_its_verdict() -> None:
    results = build_results(tool_version="0", started_at="", finished_at="", wall_seconds=1.0, command=[],
                            profile=None, plugin=PLUGIN, environment={}, expectations={}, compatibility={},
                            tests=RECORDS)
    line = stored_line(results.api_coverage)
    assert line is not None and line.startswith(f"API reached 3/{len(SLOTS) - 1} PJRT_Api functions offered · "
                                                f"1/{LAYOUTS_OFFERED} extension functions offered")
    assert stored_line(None) is None
