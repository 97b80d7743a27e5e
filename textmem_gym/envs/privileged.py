"""Opt-in privileged information (ground truth a policy must not see by default).

Modeled on TextWorld's ``EnvInfos``: callers name what they want, unknown names are rejected. The
privileged keys are those the ``info`` contract declares privileged
(:class:`textmem_gym.core.info.PrivilegedInfo`).

Example:
    >>> sorted(resolve_privileged(True, {"facts", "walkthrough"}))
    ['facts', 'walkthrough']
    >>> sorted(resolve_privileged(["facts"], {"facts", "walkthrough"}))
    ['facts']
    >>> resolve_privileged("belief", {"facts"})
    Traceback (most recent call last):
    ...
    ValueError: unknown privileged info ['belief']; privileged keys: ['facts', 'walkthrough']
    >>> resolve_privileged("walkthrough", {"facts"})
    Traceback (most recent call last):
    ...
    ValueError: privileged info ['walkthrough'] is not available here; supported: ['facts']
"""

from __future__ import annotations

from collections.abc import Iterable

from textmem_gym.core.info import PRIVILEGED_KEYS, FactTriple


def resolve_privileged(
    privileged: bool | str | Iterable[str] | None, supported: Iterable[str] = PRIVILEGED_KEYS
) -> frozenset[str]:
    """Turns the ``privileged`` argument of an env into the set of keys to add to ``info``.

    Args:
        privileged: ``False``/``None`` (nothing), ``True`` (every supported key), one key name,
            or an iterable of key names.
        supported: The keys this backend can provide (a subset of :data:`PRIVILEGED_KEYS`).

    Returns:
        The requested keys.

    Raises:
        ValueError: If a requested key is not a privileged key of the ``info`` contract, or this
            backend does not provide it (the message lists the valid ones).
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
    if unknown := keys - PRIVILEGED_KEYS:
        raise ValueError(f"unknown privileged info {sorted(unknown)}; privileged keys: {sorted(PRIVILEGED_KEYS)}")
    if unsupported := keys - supported:
        raise ValueError(f"privileged info {sorted(unsupported)} is not available here; supported: {sorted(supported)}")
    return keys


__all__ = ["PRIVILEGED_KEYS", "FactTriple", "resolve_privileged"]
