"""Module proxies imported on first attribute access, so suites can name `jnp.sin` at module level
(parametrize tables) while collection stays JAX-free."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def _load(self) -> ModuleType:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return self._module

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            # pytest and inspect probe module globals (`_pytestfixturefunction`, `__wrapped__`, ...)
            # while collecting: never import the module for them. Suites use only public names.
            raise AttributeError(attribute)
        return getattr(self._load(), attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported"
        return f"<lazy module {self._name} ({state})>"


jax = LazyModule("jax")
jnp = LazyModule("jax.numpy")
lax = LazyModule("jax.lax")
