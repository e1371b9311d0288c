from __future__ import annotations

from collections import Counter
from pathlib import Path

from pjrt_cts.schema import Results
from pjrt_cts.judgment.outcomes import BAD_OUTCOMES, Outcome
from pjrt_cts.report.html import render_report, write_report
from pjrt_cts.judgment.results import anchor_for
from pjrt_cts.judgment.verdict import judge_results

from .conftest import record_of, set_outcome
from .html_probe import Probe

TANH_FAIL = "execute.golden.test_case_matches_reference[elementwise.tanh.bf16.r2]"
FUZZ_CRASH = "robustness.fuzz.test_compile_survives_mutated_program[seed6]"


def bad_tests(results: dict) -> list[dict]:
    return [t for t in results["tests"] if Outcome(t["outcome"]) in BAD_OUTCOMES]


def test_title_verdict_and_sections(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    # no distribution recorded and none in the environment's packages: the plugin is known by its file
    assert page.title == "PJRT conformance report: pjrt_c_api_cpu_plugin.so (cpu, PJRT C API 0.115)"
    assert page.by_id("verdict").text.strip() == "NON_CONFORMANT"
    assert page.by_id("level").text.strip() == "none"
    for section in ("defects", "plugin", "levels", "summary", "coverage", "findings", "robustness", "durations",
                    "expectations", "environment"):
        page.by_id(section)
    ids = page.ids()
    assert ids.index("defects") < ids.index("summary") < ids.index("findings")  # defects ahead of per-test tables
    assert page.by_id("coverage-matrix").tag == "table"


def test_title_names_the_plugins_distribution_version_and_file(synthetic) -> None:
    synthetic["plugin"]["distribution"] = {"name": "lammps-jax-pjrt-cpu", "version": "0.11.2"}
    page = Probe(render_report(Results.from_json(synthetic)))
    title = "PJRT conformance report: lammps-jax-pjrt-cpu 0.11.2, pjrt_c_api_cpu_plugin.so (cpu, PJRT C API 0.115)"
    assert page.title == title
    assert page.by_id("title").text.strip() == title


def test_clean_run_is_conformant_at_top_level(clean) -> None:
    page = Probe(render_report(Results.from_json(clean)))
    assert page.by_id("verdict").text.strip() == "CONFORMANT"
    assert page.by_id("level").text.strip() == "Multi-device"
    assert page.by_id("verdict-line").text.strip() == judge_results(Results.from_json(clean)).line()
    assert "spec-mark" not in page.ids()  # no spec case ran


SPEC_NAN = "execute.golden_cases.test_case_matches_reference[spec.maximum.nan.f32]"
SPEC_SUB = "execute.golden_cases.test_case_matches_reference[spec.add.subnormal.f32]"
WHILE = "execute.golden.test_case_matches_reference[control.while.bf16.r2]"  # XFAIL in the synthetic run


def _spec(test_id: str, outcome: str, defect: str | None) -> dict:
    return {"id": test_id, "nodeid": "", "layer": "execute", "outcome": outcome, "duration": 0.01,
            "message": f"returns XLA's value ({defect})" if defect else "", "details": {}, "tags": [],
            "expected": None, "repro": "", "defect": defect}


def _with_defects(clean: dict) -> dict:
    """Two deviations shared with XLA (one defect) and the synthetic waiver attributed to a defect."""
    clean["tests"] += [_spec(SPEC_NAN, "SHARED_DEVIATION", "nan-not-propagated-by-max-min"),
                       _spec(SPEC_NAN.replace("f32", "f64"), "SHARED_DEVIATION", "nan-not-propagated-by-max-min"),
                       _spec(SPEC_SUB, "PASS", None)]
    waived = record_of(clean, WHILE)
    waived["defect"] = "subnormals-flushed"
    return clean


def test_defects_section_has_one_row_per_defect(clean) -> None:
    results = _with_defects(clean)
    page = Probe(render_report(Results.from_json(results)))
    rows = {e.attrs["id"]: e for e in page.elements if e.tag == "tr" and str(e.attrs.get("id", "")).startswith("defect-")}
    assert set(rows) == {"defect-nan-not-propagated-by-max-min", "defect-subnormals-flushed"}
    nan = " ".join(rows["defect-nan-not-propagated-by-max-min"].text.split())
    assert "nan-not-propagated-by-max-min" in nan and "SHARED_DEVIATION 2" in nan and "2 shared" in nan
    shortest = min((SPEC_NAN, SPEC_NAN.replace("f32", "f64")), key=lambda i: (len(i), i))
    assert f"pjrt-cts run PLUGIN --id '{shortest}'" in nan  # the smallest reproduction
    example = [link.attrs["href"] for link in page.links() if rows["defect-nan-not-propagated-by-max-min"] in link.ancestors]
    assert "#" + anchor_for(shortest) in example
    page.by_id(anchor_for(shortest))  # ... which is the finding's entry
    sub = " ".join(rows["defect-subnormals-flushed"].text.split())
    assert "XFAIL 1" in sub and "1 waived" in sub
    # the order: waived before shared (bad first, none here)
    ids = page.ids()
    assert ids.index("defect-subnormals-flushed") < ids.index("defect-nan-not-propagated-by-max-min")
    # the verdict speaks in defects; the spec mark sits beside the level
    line = page.by_id("verdict-line").text.strip()
    assert line.startswith("CONFORMANT · level Multi-device · spec ✗ (1 deviation shared with XLA, 2 tests)")
    assert line.endswith("1 waived defect (1 test)")
    assert page.by_id("spec-mark").text.strip().startswith("spec ✗")
    # a finding and a waiver link to their defect's row
    finding = page.by_id(anchor_for(SPEC_NAN))
    assert "#defect-nan-not-propagated-by-max-min" in [link.attrs["href"] for link in page.links() if finding in link.ancestors]
    waivers = [link.attrs["href"] for link in page.links() if any(a.attrs.get("id") == "levels" for a in link.ancestors)]
    assert "#defect-subnormals-flushed" in waivers


def test_shared_deviation_is_a_good_outcome_in_the_tables(clean) -> None:
    page = Probe(render_report(Results.from_json(_with_defects(clean))))
    assert "deviates from the spec as XLA does (shared)" in page.by_id("summary").text
    group = page.by_id("findings-shared_deviation")
    assert "open" not in group.attrs  # collapsed like the other good outcomes
    assert not page.by_id(anchor_for(SPEC_NAN)).visible_without_clicks()
    assert page.by_id("verdict").text.strip() == "CONFORMANT"


def test_defects_section_uses_the_results_files_table(clean) -> None:
    """A results.json that carries `defects` is shown as written (the runner diagnosed it)."""
    results = _with_defects(clean)
    results["defects"] = [{"id": "made-up-defect", "title": "a defect the file says", "scope": "plugin",
                           "rule": "rule text", "section": "https://openxla.org/stablehlo/spec#maximum",
                           "upstream": "https://github.com/openxla/xla/issues/1", "tests": 3,
                           "outcomes": {"FAIL": 3}, "waived": 0, "shared": 0, "bad": 3, "example": WHILE,
                           "repro": "", "command": f"pjrt-cts run PLUGIN --id '{WHILE}'"}]
    page = Probe(render_report(Results.from_json(results)))
    row = page.by_id("defect-made-up-defect")
    assert "a defect the file says" in row.text and "this plugin's own" in row.text
    hrefs = [link.attrs["href"] for link in page.links() if row in link.ancestors]
    assert "https://openxla.org/stablehlo/spec#maximum" in hrefs and "https://github.com/openxla/xla/issues/1" in hrefs
    assert "defect-nan-not-propagated-by-max-min" not in page.ids()


def test_run_without_findings_says_so(clean) -> None:
    clean["tests"] = [t for t in clean["tests"] if t["outcome"] == "PASS"]
    assert "No finding" in Probe(render_report(Results.from_json(clean))).by_id("defects").text


def test_identity_card_shows_plugin_facts(synthetic) -> None:
    text = Probe(render_report(Results.from_json(synthetic))).by_id("plugin").text
    plugin = synthetic["plugin"]
    for fact in (plugin["path"], plugin["sha256"], "0.115", "1144", "PJRT_Executable_GetCompiledMemoryStats",
                 "Layouts", "MemoryDescriptions", "xla_version", "pinned_host"):
        assert fact in text, fact


def test_every_bad_test_message_is_one_click_from_the_layer_table(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    summary_links = {
        link.attrs["href"] for link in page.links() if any(a.attrs.get("id") == "summary" for a in link.ancestors)
    }
    for test in bad_tests(synthetic):
        entry = page.by_id(anchor_for(test["id"]))
        assert test["message"] in entry.text
        assert entry.visible_without_clicks(), test["id"]
        group = f"#findings-{test['outcome'].lower()}-{test['layer']}"
        assert group in summary_links, f"no link from the layer table to {group}"
        page.by_id(group[1:])


def test_matrix_cell_links_to_the_failing_case(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    target = "#" + anchor_for(TANH_FAIL)
    cells = [link for link in page.links() if link.attrs["href"] == target and
             any(a.attrs.get("id") == "coverage-matrix" for a in link.ancestors)]
    assert len(cells) == 1
    title = cells[0].attrs["title"]
    assert "elementwise.tanh.bf16.r2" in title and "elementwise.tanh.bf16.scalar" in title
    assert "c-FAIL" in cells[0].attrs["class"]


def test_numeric_diff_and_repro_are_shown(synthetic) -> None:
    entry = Probe(render_report(Results.from_json(synthetic))).by_id(anchor_for(TANH_FAIL))
    record = record_of(synthetic, TANH_FAIL)
    assert "max_abs_err 0.0234375" in " ".join(entry.text.split())
    assert "first_mismatch_index (3, 7)" in " ".join(entry.text.split())
    assert record["repro"] in entry.text


def test_crash_shows_stderr_tail_and_robustness_links_the_input(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    crash = record_of(synthetic, "compile.program.test_empty_compile_options_are_rejected")
    assert crash["details"]["stderr_tail"].splitlines()[0] in page.by_id(anchor_for(crash["id"])).text
    robustness_links = [link.attrs["href"] for link in page.links()
                        if any(a.attrs.get("id") == "robustness" for a in link.ancestors)]
    assert "repro/robustness/compile_mutated_seed6.mlir" in robustness_links
    assert "#" + anchor_for(FUZZ_CRASH) in robustness_links


def test_repro_links_are_relative_to_the_report(synthetic, tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_report(Results.from_json(synthetic), tmp_path / "site" / "report.html", results_dir=out)
    html = (tmp_path / "site" / "report.html").read_text(encoding="utf-8")
    assert 'href="../out/repro/robustness/compile_mutated_seed6.mlir"' in html


def test_every_non_pass_test_is_listed_once(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    findings = [e for e in page.elements if e.tag == "article"]
    expected = Counter(t["outcome"] for t in synthetic["tests"] if t["outcome"] != "PASS")
    assert len(findings) == sum(expected.values())
    ids = [e.attrs["id"] for e in findings]
    assert len(set(ids)) == len(ids)


def test_expectations_section_lists_applied_and_stale_patterns(synthetic) -> None:
    text = Probe(render_report(Results.from_json(synthetic))).by_id("expectations").text
    assert "plugins/cpu/expectations.toml" in text
    assert "execute.golden.*[stale.case.*]" in text
    assert "bf16 loop accumulation drifts (b/1234)" in text
    assert "raw outcome FAIL" in text
    assert "donation.donation.test_donation_of_aliased_buffer_is_rejected" in text


def test_slowest_tests_are_sorted(synthetic) -> None:
    text = Probe(render_report(Results.from_json(synthetic))).by_id("durations").text
    slowest = max(synthetic["tests"], key=lambda t: t["duration"])
    assert slowest["id"] in text
    assert text.index(slowest["id"]) < text.index("Time per layer")


def test_report_is_self_contained(synthetic) -> None:
    page = Probe(render_report(Results.from_json(synthetic)))
    external = ("http:", "https:", "//")
    for element in page.elements:
        # nothing is fetched: no external src, and only plain <a> links (e.g. an expectation's issue) go out
        assert not (element.attrs.get("src") or "").startswith(external), element.attrs
        if element.tag != "a":
            assert not (element.attrs.get("href") or "").startswith(external), element.attrs
        assert not (element.tag == "script" and element.attrs.get("src"))
        assert not (element.tag == "link" and element.attrs.get("rel") == "stylesheet")
        assert not (element.tag == "style" and "@import" in element.text)


def test_messages_are_escaped(synthetic) -> None:
    test_id = "abi.table.test_api_version_is_reported"
    set_outcome(synthetic, test_id, Outcome.FAIL, "<script>alert('x')</script> & <b>")
    html = render_report(Results.from_json(synthetic))
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;b&gt;" in html


def test_minimal_and_empty_results_render() -> None:
    empty = Probe(render_report(Results.from_json({"schema_version": 1, "tests": []})))
    assert empty.by_id("verdict").text.strip() == "INCOMPLETE"
    odd = {"schema_version": 1, "tests": [{"id": "client.x.test_y", "outcome": "WEIRD"}]}
    page = Probe(render_report(Results.from_json(odd)))
    assert page.by_id("verdict").text.strip() == "NON_CONFORMANT"  # unknown outcome counts as ERROR
    assert page.by_id(anchor_for("client.x.test_y")).visible_without_clicks()


def test_crash_message_does_not_repeat_the_stderr_tail(synthetic) -> None:
    test_id = "compile.program.test_empty_compile_options_are_rejected"
    record = record_of(synthetic, test_id)
    tail = ["F0000 compile.cc:88] Check failed: options != nullptr", "*** SIGSEGV received ***"]
    banner = "worker gw0 killed by SIGSEGV while running this test\n--- last 2 lines of stderr ---\n"
    record["message"] = banner + "\n".join(tail)
    record["details"]["stderr_tail"] = tail  # the runner writes a list of lines
    page = Probe(render_report(Results.from_json(synthetic)))
    entry = page.by_id(anchor_for(test_id))
    blocks = {e.attrs.get("class"): e for e in page.elements if e.tag == "pre" and entry in e.ancestors}
    message, stderr = blocks["msg"], blocks["stderr"]
    assert message.text == "worker gw0 killed by SIGSEGV while running this test"
    assert stderr.text == "\n".join(tail)


def test_identity_card_shows_the_preflight_failure(synthetic) -> None:
    summary = "PJRT_Client_Create crashed (SIGABRT) in the preflight child: TT_FATAL No chips detected"
    results = {**synthetic, "plugin": {**synthetic["plugin"], "failure": {"step": "client_create", "summary": summary}}}
    assert summary in Probe(render_report(Results.from_json(results))).by_id("plugin").text
    assert "plugin-failure" not in Probe(render_report(Results.from_json(synthetic))).ids()


def test_attribute_coverage_counts_values_as_numbers(synthetic) -> None:
    """The attribute view's cells are counts: a key named like a dict method ("values") once rendered the method."""
    html = render_report(Results.from_json(synthetic))
    assert "built-in method" not in html
