"""Layer names on the command line: `framework-jax` and `framework_jax` name the same layer.

The one place that turns what the user typed into layer names (the suites' directory names, which use `_`):
`run --layers` and the layer part of `run --id` patterns go through here.
"""
from __future__ import annotations

from pjrt_cts.judgment.outcomes import LAYERS


def normalize_layer(name: str) -> str:
    """`framework-jax` -> `framework_jax`; surrounding blanks dropped; case kept (layers are lower case)."""
    return name.strip().replace("-", "_")


def split_layers(text: str | None) -> list[tuple[str, str]]:
    """`"abi, framework-jax"` -> [("abi", "abi"), ("framework-jax", "framework_jax")]: (as typed, normalised)."""
    if not text:
        return []
    return [(item.strip(), normalize_layer(item)) for item in text.split(",") if item.strip()]


def normalize_id_pattern(pattern: str, known: tuple[str, ...] | list[str] | set[str] = LAYERS) -> str:
    """`framework-jax.api.*` -> `framework_jax.api.*`: only a leading component naming a known layer changes."""
    head, dot, rest = pattern.partition(".")
    normalised = normalize_layer(head)
    if normalised != head and normalised in known:
        return normalised + dot + rest
    return pattern
