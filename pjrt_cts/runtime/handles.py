"""Deterministic ownership of plugin handles: freed once, by close()/context manager or finalizer."""
from __future__ import annotations

import weakref
from typing import Any, Callable


class OwnedHandle:
    """A handle this process owns. `close()` frees it exactly once; a finalizer covers forgotten ones.

    Children (buffers, executables) register with their client so that closing the client frees
    them first: a plugin must never see a buffer destroyed after its client.
    """

    _handle: int

    def _own(self, handle: int, destroy: Callable[[int], None], parent: "OwnedHandle | None" = None) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, destroy, handle)
        self._children: weakref.WeakSet[OwnedHandle] | None = None
        if parent is not None:
            if parent._children is None:
                parent._children = weakref.WeakSet()
            parent._children.add(self)

    @property
    def handle(self) -> int:
        if not self._finalizer.alive:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        if self._children:
            for child in list(self._children):
                child.close()
        self._finalizer()  # runs destroy at most once

    def detach(self) -> int:
        """Give up ownership without freeing (the plugin took it, e.g. donated or destroyed elsewhere)."""
        self._finalizer.detach()
        return self._handle

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
