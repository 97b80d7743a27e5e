"""The ``info`` contract: every key a TextMem env or wrapper writes into ``info``, declared once.

Four groups of keys, composed into :class:`StepInfo` (the ``info`` of ``reset``/``step`` and of a
policy's ``act(observation, info)``):

- :class:`GameInfo`: always present, set by every backend (the base class
  :class:`~textmem_gym.envs.text_game.TextGameEnv` builds them).
- :class:`PrivilegedInfo`: ground truth, present only when the env was made with ``privileged=``
  naming the key (:data:`PRIVILEGED_KEYS`); nothing a policy sees by default comes from them.
- :class:`BackendInfo`: set by one backend (Jericho, ScienceWorld, NetHack).
- :class:`WrapperInfo`: added by a wrapper (``MemoryGraphWrapper``, ``TextEncodingWrapper``).

The docstring under each key says what it means and who sets it. ``python -m textmem_gym.core.info``
prints the table of README's "The info keys" section from these declarations (the tests check that
the two agree, and that the library reads no literal key declared nowhere here).

Gymnasium types ``info`` as ``dict[str, Any]``; :func:`step_info` and :func:`gym_info` change the
static type of the same object at that boundary, and :func:`contract_violations` checks one at run
time (for a new backend's tests).

Example:
    >>> sorted(ALWAYS_KEYS)
    ['admissible_commands', 'lost', 'max_score', 'moves', 'normalized_score', 'objective', 'score', 'won']
    >>> sorted(PRIVILEGED_KEYS)
    ['facts', 'walkthrough']
    >>> info: StepInfo = {"score": 1, "max_score": 2, "normalized_score": 0.5, "won": False, "lost": False,
    ...                   "moves": 3, "objective": "Eat.", "admissible_commands": ["eat"]}
    >>> contract_violations(info)
    []
    >>> contract_violations({**info, "won": "no", "facts": [("knife", "on")]})
    ["facts: [('knife', 'on')] is not a list[tuple[str, str, str]]", "won: 'no' is not a bool"]
"""

from __future__ import annotations

import ast
import inspect
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Union, cast, get_args, get_origin, get_type_hints, is_typeddict

#: A ground-truth fact ``(subject, relation, object)`` (not a memory edge: see
#: :class:`textmem_gym.memory.semantic.Triple`).
FactTriple = tuple[str, str, str]


class StepCounts(TypedDict):
    """``info["steps"]``: agent decisions and the primitive game moves they took."""

    decisions: int
    primitive: int
    counted: int
    limit: int | None


class MacroSummary(TypedDict):
    """``info["macro"]``: how a ``go to`` macro ran."""

    target: str
    actions: list[str]
    primitive_steps: int
    completed: bool
    reason: str


class SkillSummary(TypedDict):
    """``info["skill"]``: how a NetHack skill command ran."""

    name: str
    argument: str
    primitive_steps: int
    completed: bool
    reason: str


class GameInfo(TypedDict):
    """The keys every TextMem env puts in ``info`` at every ``reset`` and ``step``."""

    score: float
    """The game's cumulative score."""
    max_score: float
    """The highest reachable score; 0 or less when unknown (NetHack, unsupported Jericho games)."""
    normalized_score: float
    """``score / max_score``; 0.0 when the maximum is unknown."""
    won: bool
    """The game was won (``terminated`` is ``won or lost``)."""
    lost: bool
    """The game was lost."""
    moves: int
    """The game's own move counter."""
    objective: str
    """The task text (the paper's goal where the game states none)."""
    admissible_commands: Sequence[str]
    """The valid commands now: a list, or a ``LazyCommands`` computed on first read where that is expensive (Jericho,
    ScienceWorld). ``MemoryGraphWrapper(goto=True)`` appends its ``go to <room>`` macros."""


class PrivilegedInfo(TypedDict, total=False):
    """Ground truth, only when asked for with ``gym.make(id, privileged=True | "facts" | [...])``."""

    facts: list[tuple[str, str, str]]
    """The true world state as ``(subject, relation, object)`` triples (TextWorld's predicate names, e.g.
    ``("knife", "in", "I")``); every step. All backends."""
    walkthrough: list[str]
    """Commands that win from the initial state; at ``reset`` only. TextWorld, Jericho, ScienceWorld."""


class BackendInfo(TypedDict, total=False):
    """Keys one backend adds (``GameState.extra``)."""

    world_state_hash: str
    """A hash of the game's world state (Jericho), for loop detection and the admissible-command cache."""
    state_visits: int
    """How many times this episode reached ``world_state_hash`` (Jericho)."""
    location_id: str | None
    """``"z<N>"``: the Z-machine object the player is in, a room's stable identity whatever name it
    prints (Jericho; ``None`` where Jericho knows no player object, e.g. lgop)."""
    interpreter_error: str
    """Why the interpreter was stopped; the step is then truncated (Jericho)."""
    vocabulary: list[str]
    """The words the game's parser knows (its dictionary, cut as the story file stores them); at ``reset``
    only. Not privileged: any word may be typed, and it tells nothing of where things are (Jericho)."""
    vocabulary_letters: int
    """How many Z-characters the dictionary keeps of a word (6 in story file versions 1-3, 9 later); at
    ``reset`` only, with ``vocabulary`` (Jericho)."""
    scienceworld_score: int
    """ScienceWorld's raw score in [-100, 100] (``score`` is it clipped at 0)."""
    task: str
    """The ScienceWorld task name."""
    variation: int
    """The ScienceWorld task variation."""
    dungeon_level: int
    """The current dungeon depth (NetHack)."""
    max_dungeon_level: int
    """The deepest level reached this episode (NetHack)."""
    experience_level: int
    """The hero's experience level (NetHack)."""
    metrics: dict[str, float]
    """Backend measures the runner copies into the results row (NetHack: ``max_dungeon_level``,
    ``dungeon_level``, ``experience_level``)."""
    skill: SkillSummary | None
    """How the last skill command ran (NetHack); ``None`` after a plain key."""
    steps: StepCounts
    """Decisions and primitive moves. Set by NetHack (a skill is one decision of many keys) and by
    ``MemoryGraphWrapper`` (a ``go to`` macro is one decision of many moves; ``limit`` is its step budget)."""


class WrapperInfo(TypedDict, total=False):
    """Keys a wrapper adds on top of its env's."""

    location: str | None
    """The room the memory believes the agent is in (``MemoryGraphWrapper``)."""
    known_locations: list[str]
    """The rooms the memory knows (``MemoryGraphWrapper``)."""
    unexplored_exits: dict[str, list[str]]
    """Room -> exits whose destination is unknown (``MemoryGraphWrapper``, AriGraph's Algorithm 3)."""
    memory: dict[str, int]
    """What the last update changed and the totals: ``added``, ``invalidated``, ``believed``, ``total``,
    ``episodes`` (``MemoryGraphWrapper``)."""
    macro: MacroSummary
    """How the last ``go to`` macro ran: ``target``, ``actions`` sent, ``completed``, ``reason``; only after one
    (``MemoryGraphWrapper``)."""
    belief_accuracy: dict[str, dict[str, float]]
    """Precision, recall and F1 of the believed triples against ``facts``, per relation class and ``overall``;
    only with privileged ``facts`` (``MemoryGraphWrapper``)."""
    command: str
    """The command the chosen action index stood for (``TextEncodingWrapper``)."""
    invalid_action: bool
    """The chosen index was masked, so the safe command was sent (``TextEncodingWrapper``)."""
    episode_steps: int
    """Steps of the episode; in its last ``info`` only (RLlib's env wrapper, ``baselines_rl.rllib_module``)."""
    episode_reward: float
    """Training reward of the episode, novelty bonus included; in its last ``info`` only (RLlib's env wrapper)."""
    episode_invalid_actions: int
    """Masked indices chosen in the episode; in its last ``info`` only (RLlib's env wrapper)."""


class StepInfo(GameInfo, PrivilegedInfo, BackendInfo, WrapperInfo):
    """The whole ``info`` contract: what ``reset``/``step`` return and a policy's ``act`` reads."""


#: Group name -> its declaration, in README order.
GROUPS: dict[str, type] = {"always": GameInfo, "privileged": PrivilegedInfo, "backend": BackendInfo,
                           "wrapper": WrapperInfo}
#: Keys in every ``info``.
ALWAYS_KEYS: frozenset[str] = frozenset(GameInfo.__annotations__)
#: Keys only ``privileged=`` adds (what :func:`textmem_gym.envs.privileged.resolve_privileged` accepts).
PRIVILEGED_KEYS: frozenset[str] = frozenset(PrivilegedInfo.__annotations__)
#: Every declared key.
INFO_KEYS: frozenset[str] = frozenset(StepInfo.__annotations__)


def step_info(info: Mapping[str, Any]) -> StepInfo:
    """Gymnasium's ``info`` typed as :class:`StepInfo` (the same object; nothing is checked or copied)."""
    return cast(StepInfo, info)


def gym_info(info: StepInfo) -> dict[str, Any]:
    """A :class:`StepInfo` typed as Gymnasium's ``dict[str, Any]`` (the same object)."""
    return cast(dict[str, Any], info)


def observation_text(observation: Any) -> str:
    """The raw game text of an observation (plain string or a memory wrapper's ``Dict``).

    Example:
        >>> observation_text({"observation": "You see a fridge.", "belief": "..."})
        'You see a fridge.'
    """
    if isinstance(observation, Mapping):
        return str(observation.get("observation", ""))
    return str(observation or "")


def admissible(info: Mapping[str, Any]) -> list[str]:
    """``info["admissible_commands"]`` as a list (empty when absent).

    Example:
        >>> admissible({"admissible_commands": ["look", "go east"]}), admissible({})
        (['look', 'go east'], [])
    """
    return [str(c) for c in (info.get("admissible_commands") or [])]


# -- run-time check ------------------------------------------------------------------------------
def contract_violations(info: Mapping[str, Any]) -> list[str]:
    """What in ``info`` breaks the contract: missing always-present keys, declared keys of another type.

    Reading a lazy ``admissible_commands`` to check it computes it. Undeclared keys are not reported.
    """
    hints = get_type_hints(StepInfo)
    problems = [f"{key}: missing" for key in sorted(ALWAYS_KEYS - set(info))]
    for key in sorted(set(info) & INFO_KEYS):
        if not conforms(info[key], hints[key]):
            problems.append(f"{key}: {info[key]!r} is not a {_type_text(hints[key])}")
    return problems


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` (``float`` admits ``int``; ``bool`` counts only as ``bool``)."""
    origin = get_origin(hint) or hint
    return _CHECKS.get(origin, _is_instance)(value, hint)


def _is_instance(value: Any, hint: Any) -> bool:
    if is_typeddict(hint):
        fields = get_type_hints(hint)
        return isinstance(value, Mapping) and all(k in value and conforms(value[k], fields[k]) for k in fields)
    return isinstance(value, hint) and not (isinstance(value, bool) and hint is int)


def _is_number(value: Any, hint: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_union(value: Any, hint: Any) -> bool:
    return any(conforms(value, arm) for arm in get_args(hint))


def _is_sequence(value: Any, hint: Any) -> bool:
    (item,) = get_args(hint) or (Any,)
    return isinstance(value, get_origin(hint) or hint) and not isinstance(value, str) and \
        all(conforms(v, item) for v in value)


def _is_tuple(value: Any, hint: Any) -> bool:
    items = get_args(hint)
    return isinstance(value, tuple) and len(value) == len(items) and all(map(conforms, value, items))


def _is_mapping(value: Any, hint: Any) -> bool:
    key, item = get_args(hint) or (Any, Any)
    return isinstance(value, Mapping) and all(conforms(k, key) and conforms(v, item) for k, v in value.items())


_CHECKS: dict[Any, Callable[[Any, Any], bool]] = {
    Any: lambda value, hint: True, type(None): lambda value, hint: value is None, float: _is_number,
    Union: _is_union, types.UnionType: _is_union, list: _is_sequence, Sequence: _is_sequence, tuple: _is_tuple,
    dict: _is_mapping, Mapping: _is_mapping,
}


# -- documentation -------------------------------------------------------------------------------
@dataclass(frozen=True)
class KeyDoc:
    """One declared key: its name, group (a key of :data:`GROUPS`), type as written, and docstring."""

    key: str
    group: str
    type: str
    doc: str


def key_docs() -> list[KeyDoc]:
    """Every declared key with its documentation, group by group in declaration order."""
    return [KeyDoc(key, group, annotation, doc)
            for group, declaration in GROUPS.items() for key, annotation, doc in _fields(declaration)]


def _fields(declaration: type) -> list[tuple[str, str, str]]:
    """``(key, annotation text, docstring)`` of a TypedDict, read from its source."""
    body = cast(ast.ClassDef, ast.parse(inspect.getsource(declaration)).body[0]).body
    fields = []
    for statement, following in zip(body, [*body[1:], None]):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            doc = following.value.value if isinstance(following, ast.Expr) and \
                isinstance(following.value, ast.Constant) else ""
            fields.append((statement.target.id, ast.unparse(statement.annotation), inspect.cleandoc(str(doc))))
    return fields


def markdown_table() -> str:
    """README's table of the info keys (one row per key: key, when present, type, meaning)."""
    rows = ["| key | present | type | meaning |", "|---|---|---|---|"]
    for doc in key_docs():
        meaning, kind = (" ".join(text.split()).replace("``", "`").replace("|", "\\|") for text in (doc.doc, doc.type))
        rows.append(f"| `{doc.key}` | {doc.group} | `{kind}` | {meaning} |")
    return "\n".join(rows) + "\n"


def _type_text(hint: Any) -> str:
    """``hint`` as written in code (``list[str]``, ``bool``)."""
    plain = get_origin(hint) is None and isinstance(hint, type)
    return hint.__name__ if plain else str(hint).replace("typing.", "").replace("collections.abc.", "")


if __name__ == "__main__":
    sys.stdout.write(markdown_table())
