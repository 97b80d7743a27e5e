"""A list computed on first use, for ``info["admissible_commands"]`` where it is expensive.

Example:
    >>> calls = []
    >>> commands = LazyCommands(lambda: calls.append(1) or ["look", "north"])
    >>> calls
    []
    >>> "look" in commands, len(commands), calls
    (True, 2, [1])
"""

from __future__ import annotations

from collections import UserList
from collections.abc import Callable, Iterable


class LazyCommands(UserList[str]):
    """A ``list``-like sequence of commands whose content is computed when first read.

    It behaves like a list for reading, comparing, iterating and copying (``list(x)`` gives a
    plain list). It is not a ``list`` subclass on purpose: ``json`` would silently write a
    ``list`` subclass as ``[]``; this object makes it raise instead, so nothing is lost.

    Args:
        compute: Called once, on first access, to produce the commands; an iterable gives an
            already computed sequence (as ``UserList`` does when it builds new instances).
    """

    def __init__(self, compute: Callable[[], list[str]] | Iterable[str] = ()):
        self._compute: Callable[[], list[str]] | None = compute if callable(compute) else None
        self._data: list[str] | None = None if callable(compute) else list(compute)

    @property
    def data(self) -> list[str]:
        if self._data is None:
            compute, self._compute = self._compute, None
            self._data = list(compute()) if compute is not None else []
        return self._data

    @data.setter
    def data(self, value: list[str]) -> None:
        self._data, self._compute = list(value), None

    @property
    def computed(self) -> bool:
        """Whether the commands have been computed yet."""
        return self._data is not None

    def __reduce__(self) -> tuple[type, tuple[list[str]]]:
        """Pickles (e.g. across SubprocVecEnv pipes) and deep-copies as the computed list."""
        return (type(self), (list(self.data),))

    def __repr__(self) -> str:
        return repr(self.data)
