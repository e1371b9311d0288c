"""docs/schema/: the JSON Schemas of the file formats are the generated ones, and every checked-in file of those
formats validates against its schema with a plain JSON Schema validator (what a vendor's CI would run)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pjrt_cts.cli.schema import SUFFIX, names, schema_text
from pjrt_cts.judgment.defects.catalogue import CATALOGUE_PATH
from pjrt_cts.judgment.results import load_results, write_results
from pjrt_cts.resources import plugins_dir, schemas_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
CHECKED_IN: dict[str, list[Path]] = {
    "summary": sorted((REPO / "docs" / "conformance").glob("*.json")),
    "expectations": sorted(plugins_dir().glob("*/expectations.toml")),
    "profile": sorted(plugins_dir().glob("*/profile.toml")),
    "catalogue": [CATALOGUE_PATH],
    # written by the runner (tests/report/test_schema.py); synthetic_results.json is hand-made in an older form
    "results": [REPO / "tests" / "report" / "fixtures" / "results_v1_before_typed_records.json"],
}
SYNTHETIC = REPO / "tests" / "report" / "fixtures" / "synthetic_results.json"


def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((schemas_dir() / f"{name}{SUFFIX}").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _data(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


@pytest.mark.parametrize("name", names())
def test_the_checked_in_schema_is_the_generated_one(name: str) -> None:
    path = schemas_dir() / f"{name}{SUFFIX}"
    assert path.is_file() and path.read_text(encoding="utf-8") == schema_text(name), (
        f"{path} differs from its shape: run `pjrt-cts schema --write docs/schema`")


@pytest.mark.parametrize(("name", "path"), [(name, path) for name, paths in CHECKED_IN.items() for path in paths],
                         ids=lambda value: value if isinstance(value, str) else value.relative_to(REPO).as_posix())
def test_every_checked_in_file_validates_against_its_schema(name: str, path: Path) -> None:
    errors = [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
              for error in _validator(name).iter_errors(_data(path))]
    assert not errors, f"{path} does not validate against {name}{SUFFIX}:\n" + "\n".join(errors[:10])


def test_what_the_runner_writes_validates_against_the_results_schema(tmp_path: Path) -> None:
    results = load_results(SYNTHETIC)  # records of every outcome, expectations, confirmations, api_calls
    write_results(results, tmp_path / "results.json")
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["tests"] and not list(_validator("results").iter_errors(data))


def test_every_format_has_checked_in_files_to_validate() -> None:
    assert set(CHECKED_IN) == set(names()) and all(CHECKED_IN.values())


@pytest.mark.parametrize(("name", "mistake", "where"), [
    ("expectations", {"expectation": [{"id": "client.x.test_y", "outcome": "FAIL", "reason": "r", "bug": 1}]},
     "expectation/0"),
    ("profile", {"name": "p", "description": "d", "library": [{"distribution": "d", "path": "p.so"}],
                 "expected_device_count": True}, "expected_device_count"),
    ("summary", {"format": "pjrt-cts summary", "schema_version": 2}, "schema_version"),
    ("results", {"schema_version": 1, "tests": [{"id": "a.b.test_c", "outcome": "MAYBE"}]}, "tests/0/outcome"),
])
def test_a_schema_rejects_a_typo_where_it_is(name: str, mistake: dict[str, Any], where: str) -> None:
    """The schemas do not accept anything: each names where a file departs from it."""
    paths = ["/".join(map(str, error.absolute_path)) for error in _validator(name).iter_errors(mistake)]
    assert where in paths, paths
