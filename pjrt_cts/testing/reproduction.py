"""Reproduction scripts: a file a vendor runs as it is (`python <script>`), that calls one function of pjrt_cts by
name with literal arguments.

What the script runs is package code, imported, linted, type-checked and tested like the rest; the script itself
holds no code but the call (`script_calling`). Every script the suite writes is made here: the robustness cases
(testing.robustness_cases) and the write-beyond-struct_size check (testing.struct_size_cases).

A script runs the plugin it was written for, with the client options the run used, unless the person running it
names others on its command line (`chosen_plugin`): `python <script> [PLUGIN [CREATE_OPTIONS_JSON]]`.
"""
from __future__ import annotations

import ast
import importlib
import json
import sys
from typing import Any, Callable, Mapping, Sequence

OVERRIDES_NOTE = "(PLUGIN, a path, and CREATE_OPTIONS_JSON, a JSON object, select another plugin / client options.)"


def chosen_plugin(plugin_path: str, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(plugin, client create options) a reproduction script runs: the ones written into it, unless the
    person running it names others on the script's command line (`python <script> [PLUGIN [OPTIONS_JSON]]`)."""
    argv = sys.argv[1:]
    return (argv[0] if argv and argv[0] else plugin_path,
            dict(json.loads(argv[1])) if len(argv) > 1 and argv[1] else dict(options))


def script_calling(function: Callable[..., int | None], args: Sequence[Any] = (),
                   kwargs: Mapping[str, Any] | None = None, *, doc: str, comment: str = "") -> str:
    """The text of a script that imports `function` by name, calls it with `args` / `kwargs` written as Python
    literals and exits with what it returns (None: 0). `doc` becomes the script's docstring, `comment` (if any)
    a block of `#` lines before the call."""
    module, name = function.__module__, function.__qualname__
    if getattr(importlib.import_module(module), name, None) is not function:
        raise ValueError(f"{module}.{name} cannot be imported by name: a reproduction script could not call it")
    arguments = [_literal(value) for value in args] + [f"{key}={_literal(value)}" for key, value in (kwargs or {}).items()]
    quoted = "".join(("# " + line).rstrip() + "\n" for line in comment.rstrip().splitlines())
    return (f'"""{_docstring_body(doc)}\n"""\n'
            "import sys\n\n"
            f"from {module} import {name}\n\n"
            + (f"{quoted}\n" if quoted else "")
            + f"sys.exit({name}({', '.join(arguments)}))\n")


def _literal(value: Any) -> str:
    """`value` as Python source; refused unless it reads back as the same value (str, bytes, numbers, None,
    and lists / tuples / dicts of them)."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError):
        same = False
    if not same:
        raise ValueError(f"a reproduction script takes literal arguments only, not {text[:80]}")
    return text


def _docstring_body(doc: str) -> str:
    return doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
