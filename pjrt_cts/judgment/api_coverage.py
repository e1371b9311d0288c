"""API coverage of a run: each PJRT function the plugin offers, how often the tests called it, in how many tests, the
worst outcome of those tests, and, for each one no test reached, why (`pjrt-cts coverage`, results.json
`api_coverage`, the HTML report, the matrix's "API reached" column).

From results.json alone: the records' `api_calls` (pjrt_cts.runner.api_calls) and the preflight probe's identity
card (`plugin`). The plugin offers a slot that is non-NULL within its PJRT_Api struct_size (the card's `num_slots`
and `missing_slots`), and each function of an extension it advertises that the probe found non-NULL within the
extension's struct_size (the card's `extension_functions`; PROFILER's are those of the PLUGIN_Profiler_Api it points
to). Why a function was not reached comes from the records of the tests that looked for it (0 calls: a missing or
NULL function they tried, a slot they declare they require): their most common outcome and message, e.g.
NOT_SUPPORTED "PJRT_Client_Compile: UNIMPLEMENTED: HLO opcode `recv` is not supported" for the CopyToDeviceStream
functions on XLA:CPU. A function the plugin does not offer that tests looked for (e.g. PHASE_COMPILE's NULL
functions) is listed apart, with the same why, outside both counts.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from pjrt_cts.abi.enums import ExtensionType
from pjrt_cts.abi.extensions.profiler import TABLE_FUNCTIONS
from pjrt_cts.abi.extensions.registry import EXTENSIONS
from pjrt_cts.abi.slots import SLOTS
from pjrt_cts.judgment.outcomes import Outcome, worst
from pjrt_cts.schema import Tally, TestRecord

SLOT = "slot"
NO_TEST_TRIED = "no test of the run looked for it"
_PROFILER_POINTER = "PROFILER.profiler_api"
_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class FunctionCoverage:
    """One function: `family` is `slot` or the extension's name."""

    name: str
    family: str
    offered: bool  # the plugin offers it (a non-NULL slot, a function of an advertised extension)
    calls: int = 0
    failed: int = 0  # calls that returned an error
    codes: tuple[str, ...] = ()  # the codes of those errors
    tests: int = 0  # tests that called it
    worst: Outcome | None = None  # the worst outcome of those tests
    tried: int = 0  # tests that looked for it and did not reach it
    why: str = ""  # not reached: what the records of the tests that tried say

    @property
    def reached(self) -> bool:
        return self.calls > 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"family": self.family, "offered": self.offered, "calls": self.calls,
                                "tests": self.tests}
        if self.failed:
            data.update(failed=self.failed, codes=list(self.codes))
        if self.worst is not None:
            data["worst"] = self.worst.value
        if not self.reached:
            data.update(tried=self.tried, why=self.why)
        return data


@dataclass(frozen=True)
class Reach:
    """`reached` of `offered` functions."""

    reached: int
    offered: int

    def __str__(self) -> str:
        return f"{self.reached}/{self.offered}"


@dataclass(frozen=True)
class ApiCoverage:
    functions: tuple[FunctionCoverage, ...]  # slots in header order, then each extension's in struct order
    extensions: tuple[str, ...]  # the extensions the plugin advertises, in chain order

    @property
    def slots(self) -> Reach:
        return self._reach(lambda row: row.family == SLOT)

    @property
    def extension_functions(self) -> Reach:
        return self._reach(lambda row: row.family != SLOT)

    def _reach(self, chosen: Any) -> Reach:
        offered = [row for row in self.functions if row.offered and chosen(row)]
        return Reach(sum(1 for row in offered if row.reached), len(offered))

    def unreached(self) -> list[FunctionCoverage]:
        return [row for row in self.functions if row.offered and not row.reached]

    def sought(self) -> list[FunctionCoverage]:
        """Functions the plugin does not offer that tests looked for (a NULL slot or extension function)."""
        return [row for row in self.functions if not row.offered and not row.reached]

    def figures(self) -> str:
        """The matrix's "API reached" cell: `134/138 · 28/30 ext`."""
        return f"{self.slots} · {self.extension_functions} ext"

    def line(self) -> str:
        """What `pjrt-cts run` prints before its verdict and the HTML report's header says."""
        return reached_line(self.slots, self.extension_functions)

    def to_json(self) -> dict[str, Any]:
        return {"slots": vars(self.slots), "extension_functions": vars(self.extension_functions),
                "extensions": list(self.extensions),
                "functions": {row.name: row.to_json() for row in self.functions}}


def reached_line(slots: Reach, extension_functions: Reach) -> str:
    return (f"API reached {slots} PJRT_Api functions offered · {extension_functions} extension functions offered "
            "(`pjrt-cts coverage results.json` lists them)")


def stored_line(stored: Mapping[str, Any] | None) -> str | None:
    """reached_line of results.json's `api_coverage` (None where the run has none)."""
    if not stored:
        return None
    return reached_line(Reach(**stored["slots"]), Reach(**stored["extension_functions"]))


def offered_functions(plugin: Mapping[str, Any]) -> dict[str, str]:
    """Function name -> family, for what the preflight probe's card says the plugin offers (empty where the probe
    could not read its table): the slots within `num_slots` not in `missing_slots`, and the card's
    `extension_functions` (pjrt_cts.runtime.extensions.calls.offered_functions: non-NULL, within the extension's
    struct_size; PROFILER's, those of its PLUGIN_Profiler_Api). A card written before the probe listed PROFILER's
    table has its pointer, `PROFILER.profiler_api`, standing for all of them."""
    offered: dict[str, str] = {}
    num_slots = plugin.get("num_slots")
    if isinstance(num_slots, int):
        missing = set(plugin.get("missing_slots") or ())
        offered.update((slot.name, SLOT) for slot in SLOTS[:num_slots] if slot.c_name not in missing)
    for name in plugin.get("extension_functions") or ():
        if name == _PROFILER_POINTER:  # a card from before the probe listed the table's own functions
            offered.update((f"PROFILER.{function}", "PROFILER") for function in TABLE_FUNCTIONS)
        else:
            offered[str(name)] = str(name).split(".", 1)[0]
    return offered


def advertised(plugin: Mapping[str, Any]) -> list[str]:
    """The names of the extensions of the card's chain the suite knows, in chain order."""
    found: list[str] = []
    for entry in plugin.get("extensions") or ():
        if isinstance(entry, dict) and entry.get("name") in ExtensionType.__members__:
            name = str(entry["name"])
            if ExtensionType[name] in EXTENSIONS and name not in found:
                found.append(name)
    return found


def api_coverage(tests: Iterable[TestRecord], plugin: Mapping[str, Any] | None) -> ApiCoverage | None:
    """The coverage of a run's records; None when no record says what it called (a run from before the accounting,
    or one whose tests called nothing)."""
    tests = [test for test in tests if test.api_calls]
    if not tests:
        return None
    card = plugin or {}
    offered = offered_functions(card)
    callers: dict[str, list[tuple[TestRecord, Tally]]] = {}
    for test in tests:
        for name, tally in test.api_calls.items():
            callers.setdefault(name, []).append((test, tally))
    names = list(offered) + sorted(set(callers) - set(offered), key=_family_order)
    return ApiCoverage(functions=tuple(_function(name, offered.get(name), callers.get(name, [])) for name in names),
                       extensions=tuple(advertised(card)))


def _family_order(name: str) -> tuple[int, str]:
    return (1 if "." in name else 0, name)


def _function(name: str, family: str | None, callers: list[tuple[TestRecord, Tally]]) -> FunctionCoverage:
    reached = [(test, tally) for test, tally in callers if tally.calls]
    tried = [test for test, tally in callers if not tally.calls]
    total = Tally(0)
    for _, tally in reached:
        total = total + tally
    return FunctionCoverage(
        name=name, family=family or (name.split(".", 1)[0] if "." in name else SLOT), offered=family is not None,
        calls=total.calls, failed=total.failed, codes=total.codes, tests=len(reached),
        worst=worst(test.outcome for test, _ in reached), tried=len(tried),
        why="" if reached else _why(tried))


def _why(tried: list[TestRecord]) -> str:
    """What the tests that looked for a function without reaching it say: the most common outcome and message of
    those that stopped (a test that passed without the call says nothing about it)."""
    if not tried:
        return NO_TEST_TRIED
    stopped = [test for test in tried if test.outcome is not Outcome.PASS]
    if not stopped:
        return f"the {_tests(len(tried))} that declare it passed without calling it"
    said = Counter((test.outcome, _first_line(test.message)) for test in stopped)
    (outcome, message), count = said.most_common(1)[0]
    others = f"; {len(stopped) - count} other(s) otherwise" if count < len(stopped) else ""
    return f"{outcome.value} ({_tests(count)}): {message or 'no message'}{others}"


def _tests(count: int) -> str:
    return f"{count} test" + ("" if count == 1 else "s")


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line[:_MESSAGE_CHARS]
