"""Jericho text for memory: the Jericho envs' text parser and the matching ground truth.

The Jericho env hands this parser over (:attr:`~textmem_gym.envs.jericho.env.JerichoEnv.text_parser`
names :class:`JerichoRules`; :class:`~textmem_gym.wrappers.MemoryGraphWrapper` passes it to the
memory's extractor), so no memory guesses that it plays an Infocom game; nothing in the memories
imports this module.

Infocom's games (and Inform's, which copied them) print a room as a title line followed by its
description and a list of what lies there; feedback is terse. The parser reads the parts those
games print the same way in every game, with the names as the game prints them:

=====================================================  ===================================================
Jericho text                                           triples
=====================================================  ===================================================
a title line after a move, ``look``, a lamp lit        the believed room (``location``): ``West of House``,
                                                       ``<< Closet >>``
``There is a small mailbox here.``                     ``("small mailbox", "is at", "west of house")``
(also ``A X is here.``, ``You can see X here.``)
``The glass bottle contains:`` + indented lines        ``("quantity of water", "is in", "glass bottle")``
``Sitting on the table is:`` + indented lines          ``(x, "is on", "table")``
``Opening the small mailbox reveals a leaflet.``       ``("small mailbox", "is", "open")``,
                                                       ``("leaflet", "is in", "small mailbox")``
(Inform: ``You open the box, revealing a key.``)
``Taken.`` / ``Dropped.``, ``lamp: Taken.``            ``(x, "is in", "inventory")`` / ``(x, "is at", room)``
                                                       (x: the command's object, when the game printed
                                                       that name plainly before; for ``Taken.``, else
                                                       the player's word as the last room printed it)
(Inform's ``Removed.``: taken from a container;
Inform's ``(first taking the trenchcoat)``;
``(putting the book into the sack to make room)``:
in the sack; ``torch: Done.``, ``put all in box``)
``You are carrying:`` + indented lines (nested; a      ``(x, "is in", "inventory")``, ``(y, "is in", x)``
line indented under a thing is in it; first person:
``I am carrying:``)
a move that printed another room's title               ``(room b, "is north of", room a)``,
                                                       ``(room a, "has exit", "north")``
``Opened.`` / ``The lid is now open.``                 ``("lid", "is", "open")``
a room's prose saying where a thing rests              ``("tardis", "is at", room)``,
(:data:`~.prose.LOCATIVE`): ``The TARDIS sits          ``("workbench", "is at", room)``,
reassuringly nearby.``, ``Your workbench dominates     ``("trapdoor", "is at", room)``,
the center of the room.``, ``A large golden cluster    ``("tarry liquid", "is in", "vat")``
sits on the floor.``, ``There is an open trapdoor in
the floor.``, ``The vat contains a tarry liquid.``
(a posture first: ``Leaning in the corner is an old    ``("old broom", "is at", room)``,
broom.``, ``Sitting at a terminal is a hacker whom     ``("hacker", "is at", room)``
you recognize.``; fixed in place: ``An old electrical
panel is mounted on the wall.``, ``A typewritten
notice has been attached to the front door.``; ``A
battered old dustbin sits to one side of the porch.``)
=====================================================  ===================================================

A room described again is a snapshot: believed things of the room that it no longer lists are
invalidated, as are believed contents of a container whose list was printed; an inventory answer
replaces the believed inventory. A move into the dark ("It is pitch black") makes the believed room
:data:`~textmem_gym.memory.extractors.rules.DARK_PLACE`: what happens there has no believed room.

With the game's own words (``info["vocabulary"]`` at reset, its dictionary: :class:`Vocabulary`; not
privileged, it says which words can name a thing, never where one is) it also reads holders a room's
description puts something on or in as things of that room (unless a holder of that name showed up in
another room), places about a room (``in the corner``) as the room, a thing here named by one word of
the game's (``A skeleton ... lies here.``), and a list naming no holder as the room's one holder's;
outside a room's own first paragraph, a prose phrase all of the game's words names a thing (``Above
the trophy case hangs an elvish sword``: ``elvish sword``, learned, so that ``get sword`` names it).
A title a walk led from and to (``Maze``) names several rooms: describing one is no snapshot of
another. Things leave the inventory in a game's own words (``Safely deposited.``, a ``give`` not
refused) or vanish (``the moldy scroll vanishes``, a ``drink`` not refused). A command's ``it`` is the last
command's one object; of two known names ending with the player's word, the one the last room printed
names it; a listing of several things each after an article names each (and Inform's ``(in which is a
little bird)``); the holder a title puts the player in (``Your Quarters, in the bed``) is the room's. A game
that prints its titles in sentence case (Goldilocks is a FOX!'s ``In the enchanted forest``) is read so once its
opening text or a ``look`` shows it (:class:`~textmem_gym.memory.extractors.jericho.titles.TitleStyle`), and its
first person (``I can also see``, ``I am carrying:``) as the second. Inform's remarks in a listing put things in
or on the listed holder, nested ones too (``a keyring (on which are two keys (a key to the house and a key to
the cellar))``), and make it a supporter (``on which``) or a container (``in which``) for the parser and the
truth alike. A thing dropped where no room is believed (the dark, an untitled room) is at least no longer
carried. A name that says where its thing lies is cut to the thing (``small metal box attached to the wall``,
``shovel lying``) and a pronoun names nothing; a put or a drop the game answers in its own words (``You put the
gear on the peg.``, ``The battery pops into place.``, ``You drop the pipe.``) takes the thing out of the inventory;
``Taken.`` for a word the room did not print names the one believed thing within reach that holds it (``get
homing``: the homing device in the toolkit); someone the text has come along or in (``Charles comes with you.``)
is at the room, and someone who leaves (``wanders off``) is believed nowhere. Titles keep a short abbreviation
(``N. Main Street``) and a number after a word (``Hall Near Room 7``).

What it cannot see: the object tree's short name where the prose prints a longer phrase (``an elvish
sword of great antiquity``: ``sword``; every word is the game's, so the dictionary cannot pick): it keeps
the printed name, which belief accuracy aligns with the tree's (below); scenery named only in a room's
first paragraph (the front door of the white house); holders that share a name; exits not
walked; rooms of one title until a walk between two of them; things leaving the inventory in other
prose; anything carried by someone else. Of a room's prose it reads only the sentences above (short names, no
title-case subject: ``The Magick Shoppe stands nearby`` is a place; nothing of a sentence about what lies far off:
``in the distance``, ``to the north``); not what a room's first paragraph places in passing (``papers scattered
across the top of the desk``), a place first (``Against one wall, you can see a disposal unit.``), things worn
(``you're wearing a wristwatch``), things another holds (``The statue is holding a jewelled dagger.``), nor
``You see X on the Y`` (Sherlock's): measured on issue #39's tuning and regression games, each added fewer
than 19 true beliefs per false one (the object tree names the thing otherwise, or moves it unseen).

The ground truth (:class:`JerichoObservedTruth`) is the Z-machine object tree
(:func:`~textmem_gym.memory.ground_truth.map_jericho_facts`) restricted to what the text showed: a
thing counts once its name (as the tree prints it) and its holder's name appear in one observation
(the room by its title), once it moved into the inventory or a described room on a command naming
it, or once the inventory listed it; a move's two rooms once walked (both ways, until a walk shows
otherwise); a thing on a holder the text never named is at the room once the room's list says it is
``here``. A thing the text put in or on a holder the whole tree lacks (no tree name ends with the holder's
head word: Planetfall's ``upper shelf``, the tree has the metal bar in the tool room) is scored at the
holder's believed room, and the holder's own place is unverifiable (:meth:`JerichoObservedTruth.rehome`).
Both names in one text do not show a thing at a room the text never titled (Pentari's ``topics``, where the
tree keeps conversation topics). Rooms the tree keeps under a named object are rooms (Trinity's ``that``:
:func:`~textmem_gym.memory.ground_truth.map_jericho_facts`); a room the tree names otherwise is named by the one
title printed as the player enters it (Trinity's ``Halfway Up``), and a line that is the tree's name of the room is
its title whatever its case (Goldilocks' ``In the enchanted forest``), but never an indented one (a status line);
on a thing the text never titled (a bed, a garbage can) the player is at its room; ``it`` in a command is read as
the parser reads it (:class:`~.commands.Pronoun`); a room whose object has no name in the tree (Theatre's Tight
Stairway) is named by the one title printed there; and where the tree does not place the player at all (Party
Foul's Inform 7 rooms have no short names) every belief is unverifiable.
Containers and supporters are one relation in the tree: a holder counts as a supporter
(``is on``) once the text printed "on the <holder>". Open/closed states are not in the tree: the
tracker declares the ``state`` class unchecked, and belief accuracy counts believed states as
unverifiable. The tree's short names are often the tail of what the prose printed (``sword`` for "an
elvish sword", ``gold coffin`` for "the solid-gold coffin"): the tracker aligns names
(:class:`~textmem_gym.memory.belief_metrics.AlignsNames`), so belief accuracy reads a believed name
whose words end with a tree name's, or the other way round, as that tree name when the pair is unique
among the names in view (:func:`~textmem_gym.memory.belief_metrics.head_phrase_alignment`).

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> rules = JerichoRules()
    >>> out = rules.extract("West of House\\nYou are standing in an open field west of a white house.\\n"
    ...                     "There is a small mailbox here.", "", {}, TripleStore())
    >>> out.location, out.triples
    ('west of house', [('small mailbox', 'is at', 'west of house')])
    >>> rules.extract("Opening the small mailbox reveals a leaflet.", "open mailbox", {}, TripleStore()).triples
    [('leaflet', 'is in', 'small mailbox'), ('small mailbox', 'is', 'open')]
"""

from __future__ import annotations

from textmem_gym.memory.extractors.jericho.holders import HolderKinds
from textmem_gym.memory.extractors.jericho.names import bare, printed, split_things
from textmem_gym.memory.extractors.jericho.parser import JerichoRules
from textmem_gym.memory.extractors.jericho.reading import JerichoView, read_jericho
from textmem_gym.memory.extractors.jericho.titles import room_titles
from textmem_gym.memory.extractors.jericho.truth import JerichoObservedTruth
from textmem_gym.memory.extractors.jericho.vocabulary import Vocabulary

__all__ = ["HolderKinds", "JerichoObservedTruth", "JerichoRules", "JerichoView", "Vocabulary", "bare", "printed",
           "read_jericho", "room_titles", "split_things"]
