"""`pjrt-cts coverage` and the HTML report's "PJRT API reached" section: the API coverage of a run
(pjrt_cts.judgment.api_coverage) as a table: function × calls × tests × worst outcome, then the functions the plugin
offers that no test reached, each with why."""
from __future__ import annotations

from typing import Any

from pjrt_cts.judgment.api_coverage import ApiCoverage, FunctionCoverage
from pjrt_cts.schema import Results

_HEADER = ("function", "calls", "tests", "worst", "errors returned")


def coverage_text(coverage: ApiCoverage | None, results: Results) -> str:
    """The table `pjrt-cts coverage` prints."""
    plugin = results.plugin or {}
    lines = [f"PJRT API coverage of {plugin.get('path') or 'the plugin'} (API {plugin.get('api_version') or '?'})"]
    if coverage is None:
        return "\n".join([*lines, "the records do not say which PJRT functions their tests called (a results.json "
                          "written before pjrt-cts counted them, or no test ran)"]) + "\n"
    advertised = ", ".join(coverage.extensions) or "none"
    lines += [f"PJRT_Api functions reached: {coverage.slots} offered · extension functions reached: "
              f"{coverage.extension_functions} offered (extensions: {advertised})", ""]
    rows = [_HEADER, *(_row(function) for function in coverage.functions if function.reached)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_HEADER))]
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2]), row[3].ljust(widths[3]),
                 row[4]]
        lines.append("  ".join(cells).rstrip())
    unreached = coverage.unreached()
    lines += ["", f"offered, not reached ({len(unreached)}):" if unreached else "offered, not reached: none"]
    lines += [f"  {function.name}: {function.why}" for function in unreached]
    sought = coverage.sought()
    if sought:
        lines += ["", f"looked for, not offered ({len(sought)}; in neither count):"]
        lines += [f"  {function.name}: {function.why}" for function in sought]
    outside = [function.name for function in coverage.functions if function.reached and not function.offered]
    if outside:
        lines += ["", "called, though the identity card does not list it as offered: " + ", ".join(outside)]
    return "\n".join(lines) + "\n"


def _row(function: FunctionCoverage) -> tuple[str, str, str, str, str]:
    mark = "" if function.offered else " *"
    errors = f"{function.failed}: {', '.join(function.codes) or 'code not read'}" if function.failed else ""
    return (function.name + mark, str(function.calls), str(function.tests),
            function.worst.value if function.worst else "", errors)


def coverage_view(coverage: ApiCoverage | None) -> dict[str, Any] | None:
    """What the HTML report's section shows."""
    if coverage is None:
        return None
    return {"line": coverage.line(), "slots": str(coverage.slots),
            "extension_functions": str(coverage.extension_functions), "extensions": list(coverage.extensions),
            "reached": [{"name": f.name, "offered": f.offered, "calls": f.calls, "tests": f.tests,
                         "worst": f.worst.value if f.worst else "", "errors": _row(f)[4]}
                        for f in coverage.functions if f.reached],
            "unreached": [{"name": f.name, "why": f.why, "tried": f.tried} for f in coverage.unreached()],
            "sought": [{"name": f.name, "why": f.why, "tried": f.tried} for f in coverage.sought()]}

