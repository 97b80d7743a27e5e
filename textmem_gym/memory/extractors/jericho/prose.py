"""Sentences of a game's prose that place a thing: :data:`PLACED` (names the text also printed plainly: ``The X is
here``, ``On the Y is a X``), and :data:`LOCATIVE`, below, as games across authors word a room's prose.

A thing that rests ``here`` or ``nearby`` (``The TARDIS sits reassuringly nearby.``), that ``dominates the room``,
that rests on the floor, the ground or a wall (``A crudely drawn map hangs upon the wall.``); ``There is X in the
Y`` (``There is an open trapdoor in the floor.``: a place about the room, or a holder); a holder's content told in a
sentence (``The vat contains a tarry liquid.``); a posture first (``Leaning in the corner is an old broom.``,
``Sitting at a terminal is a hacker whom you recognize.``); a thing fixed in place (``An old electrical panel is
mounted on the wall.``, ``A typewritten notice has been attached to the front door.``, ``A signpost has been erected
here.``); a thing to one side or between others (``A battered old dustbin sits to one side of the porch.``). A
sentence about what lies far off (``in the distance``, ``to the north``) places nothing here (:data:`DISTANT`).
Names are short (up to four words, no verb or preposition among them), a state word before them is no part of them
(``an open trapdoor``: ``trapdoor``), and a subject in title case names a place, not a thing (``The Magick Shoppe
stands nearby.``).

Example:
    >>> [(relation, match.group("thing")) for pattern, relation in LOCATIVE
    ...  for match in [pattern.match("There is an open trapdoor in the floor.")] if match]
    [('is in', 'trapdoor')]
    >>> any(pattern.match("The Magick Shoppe stands nearby.") for pattern, _ in LOCATIVE)
    False
"""

from __future__ import annotations

import re

from textmem_gym.memory.semantic import AT, IN, ON

#: An article or a count before a thing's name (``a``, ``two``).
ARTICLE = r"(?:an?|the|some|two|three|four|five|\d+)"
#: A thing after its article or count (``a brass lantern``, ``two gold coins``).
THING = rf"{ARTICLE}\s+(?P<thing>.+?)"
#: A short name: up to four words, none a verb, preposition or conjunction (``pile of refuse``, not ``piece of rope
#: is dangling down from the cliff``).
_NAME = r"(?:(?!(?:is|are|and|or|in|on|at|from|above|below|with|to|by|near|behind|leading|through)\b)[\w'-]+ ?){1,4}"
#: A state word before a name: no part of it.
_STATE = r"(?:open |closed )?"
#: A sentence's subject: a thing named after an article, not in title case (``The Magick Shoppe``: a place).
_SUBJECT = rf"^(?:An?|The|Some|Your) (?!(?:[A-Z][a-z]+ )*[A-Z][a-z]+ ){_STATE}(?P<thing>{_NAME}?)"
#: A holder named after an article (``in the floor``).
_HOLDER = rf"(?:the|a|an|your) (?P<holder>{_NAME}?)(?: here)?"
#: A thing after ``There is``, and how it rests (``There is a huge diamond lying on the ground!``).
_THERE = rf"^There(?: is| are|'s) (?:an?|the|some) {_STATE}(?P<thing>{_NAME}?)(?: (?:lying|sitting|standing|set))?"
#: A place about the room a thing rests on (``A crudely drawn map hangs upon the wall.``).
_PLACE = r"(?:[a-z]+ )?(?:floor|ground|wall)"
#: Verbs of a thing's rest.
_RESTS = r"(?:is|are|lies|sits|stands|rests|hangs|leans|lie|sit|stand|rest|hang|lean|squats|looms|waits|perches)"
#: An adverb or a posture between the verb and the place (``sits reassuringly nearby``, ``is lying here``).
_ADVERB = r"(?: (?:[a-z]+ly|still|open|closed|lying|sitting|standing|resting|hanging|leaning|parked))?"

#: A posture first (``Leaning in the corner is an old broom.``, ``Sitting at a terminal is a hacker``).
_POSTURE = r"^(?:Leaning|Lying|Sitting|Standing|Resting|Hanging|Propped|Perched)"
#: What a sentence may say of a thing after naming it (``a hacker whom you recognize``).
_CLAUSE = r"(?:\s*\b(?:whom|who|which|that) [^.!]*)?[.!]$"
#: A thing fixed in place (``An old electrical panel is mounted on the wall.``, ``A signpost has been erected here.``).
_FIXED = (r"(?:is|are|has been|have been) (?:mounted|fixed|attached|bolted|nailed|pinned|tacked|propped|erected|hung|"
          r"stuck|planted|embedded)")
#: A corner of the room (``Leaning in the corner``).
_CORNER = r"(?:[a-z]+ )?(?:corner|floor|ground|wall|sand|grass|dirt|mud|snow|dust|rubble)"

#: Prose about a thing here, on or in a holder (names resolved against plainly printed ones): ``(pattern,
#: relation)``; groups ``thing`` and ``holder`` or ``beside`` (none: the room).
PLACED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^The (?P<thing>.+?) (?:is|are) here[.!]$"), AT),
    (re.compile(rf"^(?:Sitting|Lying|Resting) on (?:the|a|an) (?P<holder>.+?) is {THING}[.!]$"), ON),
    (re.compile(rf"^On (?:the|a|an) (?P<holder>.+?) (?:is|are|sits|lies|stands|rests|hangs|hang) {THING}[.!]$"), ON),
    (re.compile(rf"^In (?:the|a|an) (?P<holder>.+?) (?:is|are|sits|lies|stands|rests|hangs|hang) {THING}[.!]$"), IN),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?),? (?:lies|sits|stands|rests|hangs|lie|sit|stand|rest|hang) "
                r"here[.!]$"), AT),
    # Wishbringer's "A gnarled tree trunk stands nearby, a lone branch its only adornment."
    (re.compile(r"^(?:An?|The|Some) (?P<thing>[^,]+?) (?:lies|sits|stands|rests|hangs|lie|sit|stand|rest|hang) "
                r"(?:here|nearby), .+[.!]$"), AT),
    (re.compile(rf"^(?:Directly (?=[a-z]))?(?i:beside|near|next to|behind|below|beneath|under|above|at) "
                rf"(?:the|a|an|you)\b.*? "
                rf"(?:is|are|lies|sits|stands|rests|hangs) {THING}[.!]$"), AT),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?) (?:is|are) (?:sitting |lying |resting )?on (?:the|a|an) "
                r"(?P<holder>.+?)[.!]$"), ON),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?) (?:is|are) (?:sitting |lying )?(?:in|inside) (?:the|a|an) "
                r"(?P<holder>.+?)[.!]$"), IN),
    # "An old gravedigger is resting under a willow tree.": both here
    (re.compile(r"^(?:An?|The|Some) (?P<thing>[^,]+?),? (?:is|are|stands|sits|lies|rests|hangs|leans|waits)"
                r"(?: [a-z]+ing)? (?:in the middle of|in front of|under|beneath|beside|near|next to|behind|against"
                r"|by) (?:the|a|an|your) (?P<beside>.+)[.!]$"), AT),
)
#: Prose placing a thing: ``(pattern, relation)``; groups ``thing`` and ``holder`` (none: the room).
LOCATIVE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"{_SUBJECT} {_RESTS}{_ADVERB} (?:here|nearby)[.!]$"), AT),  # "The TARDIS sits reassuringly nearby."
    (re.compile(rf"{_SUBJECT} dominates (?:the|this) (?:room|area|center|centre|middle)\b.*[.!]$"), AT),
    (re.compile(rf"{_SUBJECT} {_RESTS}{_ADVERB} (?:on|upon|against) (?:the|a|an) {_PLACE}[.!]$"), AT),
    (re.compile(rf"{_POSTURE} (?:in|on|against|amid|amidst|among) (?:the|a|an) {_CORNER} (?:is|are) (?:an?|the|some) "
                rf"(?P<thing>{_NAME}?){_CLAUSE}"), AT),
    (re.compile(rf"{_POSTURE} (?:at|by|near|beside|behind|before|next to|in front of) (?:the|a|an|you)\b[^,]*? "
                rf"(?:is|are) (?:an?|the|some) (?P<thing>{_NAME}?){_CLAUSE}"), AT),
    # "A typewritten notice has been attached to the front door.", "A printed notice is stuck into the grass."
    (re.compile(rf"{_SUBJECT} {_FIXED}(?: here| (?:on|against) (?:the|a|an) {_PLACE}| (?:in|into) (?:the|a|an) "
                rf"{_CORNER}| to (?:the|a|an) {_NAME}?)[.!]$"), AT),
    # "A battered old dustbin sits to one side of the porch.", "An abstract sculpture stands between the tunnels."
    (re.compile(rf"{_SUBJECT} {_RESTS}{_ADVERB} (?:to one side|at one end|in one corner|between the)\b[^.!]*[.!]$"),
     AT),
    (re.compile(rf"{_THERE} (?:in|inside) {_HOLDER}[.!]$"), IN),  # the floor: the room's (a place about it)
    (re.compile(rf"^(?:The|Your) (?P<holder>[^,]+?) contains? {THING}[.!]$"), IN),  # "The vat contains a liquid."
)
#: A sentence about something far off or out of reach: it places nothing in the room.
DISTANT = re.compile(r"\b(?:distance|distant|far (?:away|off|below|above)|beyond|horizon|skyline|overhead|"
                     r"to the (?:north|south|east|west|northeast|northwest|southeast|southwest)|across the)\b", re.I)
