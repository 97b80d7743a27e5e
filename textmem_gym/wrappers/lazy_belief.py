"""The observation of :class:`~textmem_gym.wrappers.MemoryGraphWrapper` with the belief rendered when read.

Rendering the belief (a retrieval over the whole memory, then text) is most of a memory's cost per
step, and many steps never read it: an RL agent that uses the memory's ``go to`` macros only, a
benchmark, a policy that builds its own prompt. :class:`BeliefObservation` is the
``{"observation", "belief"}`` dict whose ``belief`` is rendered on first read. What is read is
what an eager wrapper would have returned: the wrapper renders a belief still unread, from the
memory as it was at that step, before it changes the memory again, if the observation is still
held by anyone (:class:`UnreadBelief`); an observation nobody holds any more is never rendered.

It is a real ``dict`` (Gymnasium's ``Dict`` space, ``check_env``, ``json`` and the vector envs see
one); every way of reading the values renders first, and it pickles and copies as a plain
``dict`` of the rendered text.

Example:
    >>> calls = []
    >>> obs = BeliefObservation("You see a door.", lambda: calls.append(1) or "Current location: hall")
    >>> sorted(obs), len(calls)
    (['belief', 'observation'], 0)
    >>> obs["belief"], len(calls)
    ('Current location: hall', 1)
    >>> obs == {"observation": "You see a door.", "belief": "Current location: hall"}, len(calls)
    (True, 1)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any


class BeliefObservation(dict[str, str]):
    """``{"observation": text, "belief": rendered when first read}`` (see the module docstring).

    Args:
        observation: The game's text.
        render: Renders the belief; called at most once.
    """

    def __init__(self, observation: str, render: Callable[[], str]) -> None:
        super().__init__(observation=observation, belief="")
        self._render: Callable[[], str] | None = render

    @property
    def rendered(self) -> bool:
        """Whether the belief has been rendered yet."""
        return self._render is None

    def settle(self) -> None:
        """Renders the belief now, if it was not yet."""
        render, self._render = self._render, None
        if render is not None:
            dict.__setitem__(self, "belief", render())

    # -- reading renders first -------------------------------------------------------------
    def __getitem__(self, key: str) -> str:
        self.settle()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.settle()
        return dict.get(self, key, default)

    def items(self) -> Any:
        self.settle()
        return dict.items(self)

    def values(self) -> Any:
        self.settle()
        return dict.values(self)

    def __iter__(self) -> Iterator[str]:
        # the keys only; defined so that dict(obs), {**obs} and update(obs) read the values through
        # __getitem__ (CPython copies a dict subclass's storage directly when it keeps dict's __iter__)
        return dict.__iter__(self)

    def copy(self) -> dict[str, str]:
        """A plain ``dict`` of the rendered values."""
        self.settle()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self.settle()
        if isinstance(other, BeliefObservation):
            other.settle()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __or__(self, other: Any) -> Any:
        return self.copy() | other

    def __ror__(self, other: Any) -> Any:
        return other | self.copy()

    def __repr__(self) -> str:
        self.settle()
        return dict.__repr__(self)

    def __reduce__(self) -> tuple[type, tuple[dict[str, str]]]:
        """Pickles and (deep-)copies as a plain ``dict`` of the rendered values."""
        return (dict, (self.copy(),))

    # -- writing renders first (a value set is never overwritten by a late rendering) -------
    def __setitem__(self, key: str, value: str) -> None:
        self.settle()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self.settle()
        dict.__delitem__(self, key)

    def __ior__(self, other: Any) -> BeliefObservation:  # type: ignore[override]
        self.update(other)
        return self

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.settle()
        dict.update(self, *args, **kwargs)

    def setdefault(self, key: str, default: str = "") -> str:
        self.settle()
        return dict.setdefault(self, key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self.settle()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, str]:
        self.settle()
        return dict.popitem(self)

    def clear(self) -> None:
        self.settle()
        dict.clear(self)


class UnreadBelief:
    """The wrapper's note of its last :class:`BeliefObservation` whose belief is still unread.

    :meth:`settle` is called before the memory changes (a step, a reset): the belief is rendered
    then if the observation is still held somewhere (a runner's variable, a replay buffer), so a
    later read sees the memory of its own step; an observation no one holds is dropped unrendered.

    Example:
        >>> unread = UnreadBelief()
        >>> kept = unread.track(BeliefObservation("text", lambda: "belief"))
        >>> unread.settle(); kept.rendered
        True
        >>> dropped = unread.track(BeliefObservation("text", lambda: 1 / 0))
        >>> del dropped  # nobody holds it any more: never rendered
        >>> unread.settle()
    """

    def __init__(self) -> None:
        self._last: weakref.ref[BeliefObservation] | None = None

    def track(self, observation: BeliefObservation) -> BeliefObservation:
        """Notes ``observation`` (the previous one must have been settled) and returns it."""
        self._last = weakref.ref(observation)
        return observation

    def settle(self) -> None:
        """Renders the last observation's belief if it is still held and unread."""
        last, self._last = (self._last() if self._last is not None else None), None
        if last is not None:
            last.settle()

