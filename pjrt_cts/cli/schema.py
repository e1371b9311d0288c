"""`pjrt-cts schema`: the JSON Schemas of the suite's file formats, generated from their shapes.

docs/schema/ holds them (a wheel ships them as pjrt_cts/_data/schema/; pjrt_cts.resources.schemas_dir), so that a
vendor's CI validates a results.json, summary.json, expectations.toml, profile.toml or defect catalogue without
pjrt-cts (any JSON Schema 2020-12 validator; a TOML file as the JSON object its TOML parser gives). They are
generated here from the shapes the suite itself decodes these files into (pjrt_cts.schema and the TOML models),
by msgspec; tests/house/test_schemas.py keeps the checked-in files equal to what this writes.

PYTEST_DONT_REWRITE: its asserts stay as written (tests/house/test_asserts_as_written.py says why).
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
    from pjrt_cts.runner.controller.expectations import ExpectationsFile
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
    shape, title = _formats()[name]
    return {"$schema": SCHEMA_DIALECT, "title": title, **shape_schema(shape)}


def shape_schema(shape: type) -> dict[str, Any]:
    """The JSON Schema of one shape (its `$defs` hold it and every shape it holds)."""
    import msgspec

    from pjrt_cts.schema import Tally, schema_constraints

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
    return generated


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


# -- the tables of docs/ARCHITECTURE.md and docs/conformance.md, rendered from the schemas ------------------------


def _documented() -> tuple[tuple[str, type], ...]:
    """The shapes docs/ARCHITECTURE.md documents in its results.json section, with the heading of each table."""
    from pjrt_cts.schema import Confirmation, Expected, Observation, Results, TestRecord

    return (("results.json (`Results`)", Results),
            ("a test record (`TestRecord`): each entry of `tests`, each line of results.jsonl", TestRecord),
            ("`expected` (`Expected`)", Expected),
            ("`confirmation` (`Confirmation`)", Confirmation),
            ("each of `details.observations` of a FLAKY record (`Observation`)", Observation))


def summary_documented() -> tuple[tuple[str, type], ...]:
    """The shapes docs/conformance.md documents."""
    from pjrt_cts.schema import DefectCount, RunSummary

    return (("summary.json (`RunSummary`)", RunSummary), ("each of `defects` (`DefectCount`)", DefectCount))


DOC_BEGIN = "<!-- generated from docs/schema/ by `pjrt-cts schema --doc`: edit the fields' docs in the shapes -->"
DOC_END = "<!-- end of the generated schema -->"


def schema_doc(documented: tuple[tuple[str, type], ...] | None = None) -> str:
    """The generated part of docs/ARCHITECTURE.md's "results.json" section (or, given summary_documented(), of
    docs/conformance.md's summary.json section), markers included: one table per shape, rendered from its JSON
    Schema (key, JSON type, what a reader takes for an absent key, meaning)."""
    parts = [DOC_BEGIN]
    for heading, shape in documented or _documented():
        parts += ["", f"{heading}:", "", field_table(shape)]
    return "\n".join([*parts, "", DOC_END])


def field_table(shape: type) -> str:
    from pjrt_cts.schema import encode

    schema = shape_schema(shape)
    definitions = schema["$defs"]
    definition = definitions[shape.__name__]
    required = set(definition.get("required", ()))
    rows = ["| key | type | absent | meaning |", "| --- | --- | --- | --- |"]
    for key, spec in definition["properties"].items():
        absent = "required" if key in required else f"`{encode(spec['default']).decode()}`" if "default" in spec else ""
        rows.append(f"| `{key}` | {_type_words(spec, definitions)} | {absent} | {spec.get('description', '')} |")
    return "\n".join(rows)


def _type_words(spec: dict[str, Any], definitions: dict[str, Any]) -> str:
    """How a property's schema reads: `{"anyOf": [{"type": "object"}, {"type": "null"}]}` -> `object or null`."""
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        target = definitions[name]
        return f"`{name}` name" if "enum" in target else f"object (`{name}`)"
    if "const" in spec:
        return f"`{spec['const']}`"
    if "anyOf" in spec:
        words = [_type_words(option, definitions) for option in spec["anyOf"]]
        if "integer" in words and "number" in words:  # an integer is a number
            words.remove("integer")
        return " or ".join(dict.fromkeys(words))
    kind = spec.get("type")
    if kind == "array":
        items = spec.get("items")
        return f"array of {_type_words(items, definitions)}" if isinstance(items, dict) and items else "array"
    if "enum" in spec:
        return "one of " + ", ".join(f"`{value}`" for value in spec["enum"])
    return str(kind) if kind else "any"


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
    parser.add_argument("--doc", choices=("architecture", "conformance"),
                        help="print the tables docs/ARCHITECTURE.md (results.json) or docs/conformance.md "
                        "(summary.json) show between their markers, rendered from the schemas")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from pjrt_cts.cli.main import UsageError

    if args.doc is not None:
        print(schema_doc(summary_documented() if args.doc == "conformance" else None))
        return 0
    if args.write is not None:
        for path in write_schemas(args.write):
            print(path)
        return 0
    if args.name is None:
        raise UsageError("name a format (" + ", ".join(names()) + ") or give --write DIR")
    print(schema_text(args.name), end="")
    return 0
