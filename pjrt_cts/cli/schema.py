"""`pjrt-cts schema`: the JSON Schemas of the suite's file formats, generated from their shapes.

docs/schema/ holds them (a wheel ships them as pjrt_cts/_data/schema/; pjrt_cts.resources.schemas_dir), so that a
vendor's CI validates a results.json, summary.json, expectations.toml, profile.toml or defect catalogue without
pjrt-cts (any JSON Schema 2020-12 validator; a TOML file as the JSON object its TOML parser gives). They are
generated here from the shapes the suite itself decodes these files into (pjrt_cts.schema and the TOML models),
by msgspec; tests/house/test_schemas.py keeps the checked-in files equal to what this writes.
"""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SUFFIX = ".schema.json"


def _formats() -> dict[str, tuple[type, str]]:
    """Each published format: its shape and what the schema's title says it is."""
    from pjrt_cts.judgment.defects.catalogue import CatalogueFile
    from pjrt_cts.profiles import ProfileFile
    from pjrt_cts.runner.expectations import ExpectationsFile
    from pjrt_cts.schema import Results, RunSummary

    return {
        "results": (Results, "results.json: one pjrt-cts run, every test's record (docs/ARCHITECTURE.md)"),
        "summary": (RunSummary, "summary.json: a run's identity, verdict and defects (docs/conformance.md)"),
        "expectations": (ExpectationsFile, "plugins/<profile>/expectations.toml: the failures a plugin's profile "
                         "accepts, as the JSON object a TOML parser gives (docs/ARCHITECTURE.md)"),
        "profile": (ProfileFile, "plugins/<profile>/profile.toml: how to find, load and run a plugin, as the JSON "
                    "object a TOML parser gives (README.md, \"Profiles\")"),
        "catalogue": (CatalogueFile, "pjrt_cts/judgment/defects/catalogue.toml: the named defects, as the JSON "
                      "object a TOML parser gives"),
    }


def names() -> tuple[str, ...]:
    return tuple(_formats())


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of format `name`: msgspec's, each property described by its field's doc (the shapes keep the
    one-line meanings docs/ARCHITECTURE.md shows) and the constants the readers require."""
    import msgspec

    from pjrt_cts.schema import Tally, schema_constraints

    shape, title = _formats()[name]
    generated = msgspec.json.schema(shape, schema_hook=_schema_hook)
    definitions = generated.get("$defs", {})
    for definition_name, definition in definitions.items():
        kind = _kinds(shape).get(definition_name)
        if kind is not None and dataclasses.is_dataclass(kind):
            _describe(definition, kind)
    for definition_name, constraint in schema_constraints().items():
        if definition_name in definitions:
            _constrain(definitions[definition_name], constraint)
    assert Tally.__name__ not in definitions
    return {"$schema": SCHEMA_DIALECT, "title": title, **generated}


def schema_text(name: str) -> str:
    from pjrt_cts.schema import encode

    return encode(json_schema(name), indent=1).decode("utf-8") + "\n"


def _schema_hook(kind: type) -> dict[str, Any]:
    from pjrt_cts.schema import TALLY_SCHEMA, Tally

    if kind is Tally:
        return dict(TALLY_SCHEMA)
    raise NotImplementedError(kind)


def _kinds(shape: type) -> dict[str, type]:
    """Every class reachable from `shape`'s fields, by name (msgspec names its $defs so)."""
    import typing

    found: dict[str, type] = {}

    def visit(kind: Any) -> None:
        for argument in typing.get_args(kind):
            visit(argument)
        if isinstance(kind, type) and kind.__name__ not in found:
            found[kind.__name__] = kind
            if dataclasses.is_dataclass(kind) or hasattr(kind, "__struct_fields__"):
                for hint in typing.get_type_hints(kind).values():
                    visit(hint)

    visit(shape)
    return found


def _describe(definition: dict[str, Any], kind: type) -> None:
    properties = definition.get("properties", {})
    for item in dataclasses.fields(kind):
        doc = item.metadata.get("doc")
        if doc and item.name in properties:
            properties[item.name]["description"] = doc


def _constrain(definition: dict[str, Any], constraint: dict[str, Any]) -> None:
    properties = definition.get("properties", {})
    for key in constraint.get("drop", ()):
        properties.pop(key, None)
    for key, value in constraint.get("const", {}).items():
        properties[key]["const"] = value
    if constraint.get("closed"):
        definition["additionalProperties"] = False


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names():
        path = directory / f"{name}{SUFFIX}"
        path.write_text(schema_text(name), encoding="utf-8")
        written.append(path)
    return written


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schema", help="print or write the JSON Schemas of the suite's file formats",
        description="The JSON Schema (2020-12) of a file format the suite writes or reads: results, summary, "
        "expectations, profile, catalogue (TOML files as the object a TOML parser gives). docs/schema/ holds them; "
        "a wheel ships them as pjrt_cts/_data/schema/.")
    parser.add_argument("name", nargs="?", choices=names(), help="the format whose schema to print")
    parser.add_argument("--write", type=Path, metavar="DIR", help="write every schema to DIR/<name>.schema.json")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError

    if args.write is not None:
        for path in write_schemas(args.write):
            print(path)
        return 0
    if args.name is None:
        raise UsageError("name a format (" + ", ".join(names()) + ") or give --write DIR")
    print(schema_text(args.name), end="")
    return 0
