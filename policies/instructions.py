"""Instructions an agent reads in the game text, for the non-LLM explorer.

:func:`read_directions` takes ``<verb> the <thing>`` lines from a text (a recipe's directions);
:func:`read_tool_rules` takes ``<verb> ... only with the <tool>`` rules (the kitchen rules);
:class:`Directions` says which admissible command carries out a pending direction.

Example:
    >>> d = Directions()
    >>> d.read("Directions:\\n  slice the red potato\\n  fry the red potato\\n  prepare meal",
    ...        "Rules: fry food only with the stove.")
    >>> d.command_for(["cook red potato with oven", "cook red potato with stove", "look"])
    'cook red potato with stove'
    >>> d.command_for(["cook red potato with oven"]) is None
    True
"""

from __future__ import annotations

import re

_DIRECTION = re.compile(r"^\s*([a-z]+) the ([a-z][a-z \-]*?)\s*$", re.M)
_RULE = re.compile(r"\b([a-z]+) (?:food|\w+) only with the ([a-z][a-z \-]*?)(?=[,.;]| and |$)", re.I)
_INGREDIENTS = re.compile(r"ingredients:\s*(.*?)\s*directions:", re.S)
_COOK = re.compile(r"^cook (.+) (?:with|in) (.+)$")
_TOOL_USE = re.compile(r"^([a-z]+) (.+) with (.+)$")
#: Verbs that apply a heat source through ``cook X with Y``.
HEAT_VERBS = ("fry", "roast", "grill", "bake", "boil", "toast")
#: Verb -> how the game describes a thing it was done to ("fried carrot").
PARTICIPLES = {"fry": "fried", "roast": "roasted", "grill": "grilled", "bake": "baked", "boil": "boiled",
               "toast": "toasted", "slice": "sliced", "dice": "diced", "chop": "chopped"}
#: Verbs that cut with a knife.
CUT_VERBS = ("slice", "dice", "chop")
#: The usual appliance of a heat verb, used when no rule was read (TextWorld Express states none;
#: its ``cook X in Y`` follows the same kitchen rules as TextWorld's cooking games, and its kitchens
#: without a barbeque grill in the toaster: "You grill the pork chop with the toaster").
USUAL_TOOLS: dict[str, tuple[str, ...]] = {"fry": ("stove",), "roast": ("oven",),
                                           "grill": ("barbeque", "bbq", "toaster")}


def read_directions(text: str) -> list[tuple[str, str]]:
    """``(verb, thing)`` for every ``verb the thing`` line of ``text`` (lower-cased)."""
    return [(v, t.strip()) for v, t in _DIRECTION.findall(text.lower())]


def read_tool_rules(text: str) -> dict[str, str]:
    """``verb -> tool`` from sentences like ``grill food only with the BBQ``."""
    return {v.lower(): t.strip().lower() for v, t in _RULE.findall(text)}


class Directions:
    """Pending directions and the tools their verbs need.

    Example:
        >>> d = Directions()
        >>> d.read("chop the carrot")
        >>> d.things(), d.needs_knife({"carrot"})
        ({'carrot'}, True)
    """

    def __init__(self) -> None:
        self.pending: list[tuple[str, str]] = []
        self.tools: dict[str, str] = {}
        self.finale: list[str] = []
        self.named: set[str] = set()

    def read(self, text: str, rules_text: str = "") -> None:
        """Learns the directions of ``text`` and the tool rules of both texts."""
        self.tools.update(read_tool_rules(f"{rules_text}\n{text}"))
        for direction in read_directions(text):
            if direction not in self.pending:
                self.pending.append(direction)
                self.named.add(direction[1])
        listed = _INGREDIENTS.search(text.lower())
        if listed:  # a recipe's ingredient list: needed in hand for the meal
            self.named |= {line.strip() for line in listed.group(1).splitlines() if line.strip()}
        if "prepare meal" in text.lower() and "prepare meal" not in self.finale:
            self.finale += ["prepare meal", "eat meal"]

    def _matches(self, command: str, verb: str, thing: str) -> bool:
        cook = _COOK.match(command)
        if verb in HEAT_VERBS or verb in self.tools:
            tools = (self.tools[verb],) if verb in self.tools else USUAL_TOOLS.get(verb, ())
            return cook is not None and cook.group(1) == thing and cook.group(2) in tools
        use = _TOOL_USE.match(command)
        bare = verb in CUT_VERBS and command == f"{verb} {thing}"  # TWX cuts without naming the knife
        return bare or (use is not None and use.group(1) == verb and use.group(2) == thing)

    def command_for(self, commands: list[str], ready: bool = True) -> str | None:
        """The admissible command that carries out a pending direction (the finale last, once
        ``ready``: e.g. every ingredient in hand)."""
        lowered = {c.lower(): c for c in commands}
        for verb, thing in self.pending:
            for low, command in lowered.items():
                if self._matches(low, verb, thing):
                    return command
        if not self.pending and ready:
            return next((lowered[f] for f in self.finale if f in lowered), None)
        return None

    def notice(self, text: str) -> None:
        """Drops pending directions the text shows already done (``a fried carrot``)."""
        low = text.lower()
        self.pending = [(v, t) for v, t in self.pending if f"{PARTICIPLES.get(v, v + 'ed')} {t}" not in low]

    def done(self, command: str) -> None:
        """Marks the direction ``command`` carried out (after it earned a reward)."""
        low = command.lower()
        self.pending = [(v, t) for v, t in self.pending if not self._matches(low, v, t)]
        if low in self.finale:
            self.finale.remove(low)

    def things(self) -> set[str]:
        """Things named by pending directions."""
        return {t for _, t in self.pending}

    @property
    def active(self) -> bool:
        """Whether directions were read and are not all carried out."""
        return bool(self.pending or self.finale)

    def needs_knife(self, held: set[str] | None = None) -> bool:
        """Whether a pending direction cuts something (of ``held`` things, when given)."""
        return any(v in CUT_VERBS and (held is None or t in held) for v, t in self.pending)

    def tools_needed(self) -> list[tuple[str, str]]:
        """``(thing, tool)`` for the pending heat directions whose tool is known."""
        return [(t, self.tools[v] if v in self.tools else USUAL_TOOLS[v][0]) for v, t in self.pending
                if v in self.tools or v in USUAL_TOOLS]
