"""Opt-in privileged information (ground truth a policy must not see by default).

Modeled on TextWorld's ``EnvInfos``: callers name what they want, unknown names are rejected.

Example:
    >>> sorted(resolve_privileged(True, {"facts", "walkthrough"}))
    ['facts', 'walkthrough']
    >>> sorted(resolve_privileged(["facts"], {"facts", "walkthrough"}))
    ['facts']
"""

from __future__ import annotations

from collections.abc import Iterable

#: A ground-truth fact ``(subject, relation, object)`` (not a memory edge: see
#: :class:`textmem_gym.memory.triples.Triple`).
FactTriple = tuple[str, str, str]

#: Privileged keys every TextMem backend supports.
PRIVILEGED_KEYS: frozenset[str] = frozenset({"facts", "walkthrough"})


def resolve_privileged(
    privileged: bool | str | Iterable[str] | None, supported: Iterable[str] = PRIVILEGED_KEYS
) -> frozenset[str]:
    """Turns the ``privileged`` argument of an env into the set of keys to add to ``info``.

    Args:
        privileged: ``False``/``None`` (nothing), ``True`` (every supported key), one key name,
            or an iterable of key names.
        supported: The keys this backend can provide.

    Returns:
        The requested keys.

    Raises:
        ValueError: If a requested key is not supported (the message lists the supported ones).
        TypeError: If ``privileged`` is of another type.
    """
    supported = frozenset(supported)
    if privileged is None or privileged is False:
        return frozenset()
    if privileged is True:
        return supported
    if isinstance(privileged, str):
        privileged = [privileged]
    if not isinstance(privileged, Iterable):
        raise TypeError(f"privileged must be a bool or key names, got {privileged!r}")
    keys = frozenset(privileged)
    unknown = keys - supported
    if unknown:
        raise ValueError(
            f"unknown privileged info {sorted(unknown)}; supported: {sorted(supported)}"
        )
    return keys
