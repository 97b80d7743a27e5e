"""The Jericho envs' text parser, :class:`JerichoRules` (see the package docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from textmem_gym.memory import semantic as sem
from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.extractors.jericho.commands import PUT_VERBS, TIE_VERBS, Pronoun, command_object, command_verb
from textmem_gym.memory.extractors.jericho.holders import HolderKinds
from textmem_gym.memory.extractors.jericho.names import printed, thing_name
from textmem_gym.memory.extractors.jericho.reading import JerichoView, read_jericho
from textmem_gym.memory.extractors.jericho.titles import TitleStyle
from textmem_gym.memory.extractors.jericho.truth import JerichoObservedTruth
from textmem_gym.memory.extractors.jericho.vocabulary import NAME_STARTS, PLACE_NOUNS, Vocabulary
from textmem_gym.memory.extractors.rules import DARK_PLACE, move_direction
from textmem_gym.memory.semantic import AT, HAS_EXIT, IN, INVENTORY, IS, ON, Triple, TripleKey, TripleStore, normalize


class JerichoRules:
    """The Jericho envs' :class:`~textmem_gym.memory.extractors.base.TextParser` (see the package docstring).

    Attributes:
        location: The room the agent is in, as the text last showed it (:data:`DARK_PLACE` in the dark).
        names: Things the game printed by their plain names (in a list, ``There is a X here``,
            ``lamp: Taken.``, an inventory): prose and commands are resolved against them.
        holders: Holders the text named (``Sitting on the pedestal``): ``put`` commands are resolved
            against them too.
        vocabulary: The game's own words (:class:`Vocabulary`, from ``info["vocabulary"]`` at reset; empty
            until then, and the readings that need it are not made).
        title_style: How the game prints its room titles (:class:`TitleStyle`: sentence case, learned from
            the opening text or a ``look``; its banners, from the opening).
        pronoun: How ``it`` in a command is read (:class:`~.commands.Pronoun`, as the truth reads it).
        fixtures: Holder -> the room whose description put something on or in it (believed there).
        ambiguous: Holders of one name seen in two rooms (believed in neither).
        shared_titles: Titles a walk led from and to (Zork's ``Maze``): several rooms print them, so a
            description of one is no snapshot of what the others hold.
    """

    def __init__(self) -> None:
        self.location: str | None = None
        self.names: set[str] = set()
        self.holders: set[str] = set()
        self.kinds = HolderKinds()
        self.typed: set[str] = set()
        self.fixtures: dict[str, str] = {}
        self.ambiguous: set[str] = set()
        self.shared_titles: set[str] = set()
        self.vocabulary = Vocabulary(())
        self.title_style = TitleStyle()
        self._room_text = ""
        self.pronoun = Pronoun()

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step and the believed ones it shows to be gone."""
        out = Extraction()
        if "vocabulary" in info:  # at reset: the game's own words
            self.vocabulary = Vocabulary(info["vocabulary"], info.get("vocabulary_letters"))
        action = self.pronoun.resolve(action)
        self.title_style.learn(observation, action)
        view = _things_named(read_jericho(observation, action, self.title_style))
        self.kinds.read(observation.lower())
        if view.rooms:
            self._room_text = observation.lower()
        self._learn_names(out, view, store)
        previous = self.location
        if view.rooms:
            self._walked(out, previous, normalize(view.rooms[0]), action)
            self.location = normalize(view.rooms[-1])
        elif view.dark:
            self.location = DARK_PLACE
        self._things(out, view, store)
        self._feedback(out, view, observation, action, store)
        self._let_go(out, view, observation, action, store)
        self._comings_and_goings(out, observation, store)
        out.triples = _last_places(out.triples)
        out.location = self.location
        return out

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Structural replacement (one location per thing, one state, one neighbour per direction)."""
        return sem.exclusive_conflicts(existing, new)

    @staticmethod
    def observed_truth() -> JerichoObservedTruth:
        """The ground truth of the Jericho envs' object tree in this parser's vocabulary."""
        return JerichoObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Every name comes from the game's text as printed (none is built)."""
        return False

    # -- reading --------------------------------------------------------------------------
    def _learn_names(self, out: Extraction, view: JerichoView, store: TripleStore) -> None:
        """Learns the plain names ``view`` prints; a longer name believed before that ends with a new
        one (``exquisite jade figurine``, then ``A jade figurine``) was the same thing described: its
        believed places are dropped (the short name is the game's own)."""
        view.things = [(self._game_name(t), r, h, b, plain) if plain else (t, r, h, b, plain)
                       for t, r, h, b, plain in view.things]
        new = {normalize(t) for t, _, _, _, plain in view.things if plain}
        new |= {normalize(t) for t in (*view.taken, *view.dropped, *(view.inventory or ())) if t}
        new |= {normalize(t) for t in view.states if t}
        for name in new - self.names:
            for other in [n for n in self.names if n.endswith(" " + name)]:  # a longer name: the thing described
                self.names.discard(other)
                out.outdated += [t.as_tuple() for t in store.incident(other)
                                 if t.subject == other and t.relation in sem.LOCATION_RELATIONS]
            for other in [n for n in self.typed if name.endswith(" " + n) or name.startswith(n + " of ")]:
                # the player's word for this thing (``coffin``: ``gold coffin``; ``pot``: ``pot of gold``)
                self.names.discard(other)
                self.typed.discard(other)
                places = [t.as_tuple() for t in store.incident(other)
                          if t.subject == other and t.relation in sem.LOCATION_RELATIONS]
                out.outdated += places
                out.triples += [(name, relation, holder) for _, relation, holder in places]
        self.names |= new
        self.holders |= {normalize(h) for _, _, h, _, _ in view.things if h and h != INVENTORY and _holder_name(h)}

    def _game_name(self, name: str) -> str:
        """A listed name without leading words the game does not know (``folded pile of plastic``, when
        ``folded`` is no word of the game's); itself when none of it is."""
        return self.vocabulary.game_words(name) or name

    def resolve(self, phrase: str) -> str | None:
        """The plainly printed name ``phrase`` stands for (itself, or the longest known name it
        ends with: ``battery-powered brass lantern`` -> ``brass lantern``), else ``None``.

        Example:
            >>> rules = JerichoRules(); rules.names = {"brass lantern", "lantern"}
            >>> rules.resolve("battery-powered brass lantern"), rules.resolve("sword")
            ('brass lantern', None)
        """
        phrase = normalize(phrase)
        if phrase in self.names:
            return phrase
        ends = [n for n in self.names | self.holders if phrase.endswith(" " + n)]
        return max(ends, key=len) if ends else None

    def _game_phrase(self, phrase: str, opening: bool, relation: str) -> str | None:
        """A prose thing named in words all the game's: one word here (``A skeleton ... lies here``), the
        one known name ending with it (``bottle``: ``glass bottle``), else the word; a phrase outside a
        room's own description (``Above the trophy case hangs an elvish sword``, ``Sitting on the pedestal
        is a flaming torch``), the phrase, learned as a name (``take sword`` then names it). ``None`` for
        anything else: a place about the room; a word the game does not know; a phrase of the room's
        ``opening`` paragraph (it names scenery in passing); a coined compound or a trailing participle
        (``nasty-looking knife``, ``large egg encrusted``: the game's own name is likely another); and
        anything, for a game whose words are not known."""
        words = phrase.split()
        if not words or not self.vocabulary.words or words[-1] in PLACE_NOUNS or words[0] in NAME_STARTS \
                or not self.vocabulary.knows(phrase):
            return None
        if len(words) > 1:
            if opening or _COINED.search(phrase):
                return None
            self.names.add(phrase)
            return phrase
        if relation != AT or _first_adjective(phrase, self._room_text, self.vocabulary):
            return None
        ends = [n for n in self.names | self.holders if n.endswith(" " + phrase)]
        return ends[0] if len(ends) == 1 else (phrase if not ends else None)

    def _named(self, phrase: str, typed: bool = False) -> str | None:
        """The known thing a command's object names (``egg`` -> ``jewel-encrusted egg``, when one
        known name alone ends with it); with ``typed`` (``Taken.``), else the one name of the last room's
        text holding the word (``toner``: ``toner cartridge``), else the command's own words when
        the last room description printed them (``get rope`` after ``A large coil of rope is lying in
        the corner.``: ``rope``, learned as a name until a plain name ending with it is printed); else
        ``None``."""
        phrase = normalize(re.sub(r"^(?:the|a|an)\s+", "", phrase.strip(), flags=re.I))
        if not phrase or phrase in ("all", "everything", "it", "them"):
            return None
        known = self.names | self.holders
        if phrase in known:
            return phrase
        ends = [n for n in known if n.endswith(" " + phrase)]
        if len(ends) > 1:  # ``get trident`` after ``You can see a jeweled trident here.``: the one the room printed
            ends = [n for n in ends if printed(n, self._room_text)] or ends
        if ends or not typed:
            return ends[0] if len(ends) == 1 else None
        within = [n for n in self.names if printed(phrase, n) and printed(n, self._room_text)]
        if within:  # ``take toner`` after ``You can see a Toner Cartridge here.``: one of the room's names
            return within[0] if len(within) == 1 else None
        if len(phrase) > 2 and _bare_noun(phrase, self._room_text) and self._whole_name(phrase):
            # the room's prose printed the player's word, with no word of the game's before it
            self.names.add(phrase)
            self.typed.add(phrase)
            return phrase
        return None

    def _whole_name(self, word: str) -> bool:
        """Whether the last room's prose prints ``word`` after no word the game knows but an article
        (``a large coil of rope``: ``rope``; ``a large black book``: the game's name may be ``black book``).
        Always, for a game whose words are not known."""
        before = re.findall(rf"([\w'-]+)\s+{re.escape(word)}(?![\w-])", self._room_text)
        return not any(w not in NAME_STARTS and self.vocabulary.words and self.vocabulary.knows_word(w)
                       for w in before)

    def _walked(self, out: Extraction, previous: str | None, room: str, action: str) -> None:
        direction = move_direction(action)
        if previous and previous != DARK_PLACE and direction and previous != room:
            out.triples += [(room, sem.direction_relation(direction), previous), (previous, HAS_EXIT, direction)]
        elif direction and previous == room:  # a walk from a title to the same title: several rooms print it
            self.shared_titles.add(room)

    def _things(self, out: Extraction, view: JerichoView, store: TripleStore) -> None:
        rooms = [normalize(r) for r in view.rooms]
        shown: dict[str, set[str]] = {}
        for index, (thing, relation, holder, block, plain) in enumerate(view.things):
            where = normalize(holder) if holder else (rooms[block] if block >= 0 else "")
            if holder == "" and rooms:  # Zork's "Your collection of treasures consists of:": the room's one holder
                where = self._one_fixture(rooms[-1])
            name: str | None = normalize(thing)
            if not plain:  # prose: resolved against plainly printed names, else named in the game's words
                name = self.resolve(thing) or self._game_phrase(normalize(thing), index in view.opening, relation)
                where = (self.resolve(holder) or normalize(holder)) if holder else where
            if holder and block >= 0 and self._place(where):  # ``in the corner``: the room
                holder, where, relation = None, rooms[block], AT
            if holder and block >= 0 and self._fixture(where, rooms[block], view, out):
                out.triples.append((where, AT, rooms[block]))
                shown.setdefault(rooms[block], set()).add(where)
            if name and where and name != where and (not holder or _holder_name(where)):
                if holder is not None and holder != INVENTORY:
                    relation = self.kinds.relation(where, relation)
                out.triples.append((name, relation, where))
                shown.setdefault(where, set()).add(name)
        for holder, block in view.postures:  # "Your Quarters, in the bed": a thing of the room, kept by its lists
            self.fixtures[normalize(holder)] = rooms[block]  # (a boat carries the player on: its last room)
            out.triples.append((normalize(holder), AT, rooms[block]))
            shown.setdefault(rooms[block], set()).add(normalize(holder))
        out.triples += [(normalize(t), IS, state) for t, state in view.states.items() if t]
        for room in [r for r in rooms if r not in self.shared_titles]:
            self._snapshot(out, store, room, shown.get(room, set()) | set(self.fixtures))
        for holder in view.listed - {INVENTORY}:
            self._snapshot(out, store, normalize(holder), shown.get(normalize(holder), set()), relations=(IN, ON))

    def _one_fixture(self, room: str) -> str:
        """The one holder believed in ``room`` (``""``: none, or several)."""
        held = [holder for holder, at in self.fixtures.items() if at == room and holder not in self.ambiguous]
        return held[0] if len(held) == 1 else ""

    def _place(self, holder: str) -> bool:
        """Whether ``holder`` names a place about the room (``corner of the room``, ``ground``, ``floor below the
        lowest shelf``) rather than a thing."""
        words = holder.split()
        return bool(self.vocabulary.words) and (not _holder_name(holder) or words[-1] in PLACE_NOUNS
                                                or (len(words) > 2 and words[0] in PLACE_NOUNS))

    def _fixture(self, holder: str, room: str, view: JerichoView, out: Extraction) -> bool:
        """Whether ``holder``, which a line of ``room``'s description puts something on or in (``On the
        altar is``), is a thing of that room by a name the game knows: not a place about the room (``on the
        ground``), not listed in or on something else, every word the game's (only with its words), and no
        holder of the same name seen in another room (Zork's kitchen table and attic table: neither is
        believed)."""
        if not (self.vocabulary.words and holder and holder != room and self.vocabulary.knows(holder)) \
                or holder in self.ambiguous or any(normalize(t) == holder and h for t, _, h, _, _ in view.things):
            return False
        other = self.fixtures.setdefault(holder, room)
        if other != room:
            self.ambiguous.add(holder)
            out.outdated.append((holder, AT, other))
            return False
        return True

    @staticmethod
    def _snapshot(out: Extraction, store: TripleStore, holder: str, shown: set[str],
                  relations: Iterable[str] = (AT,)) -> None:
        """Invalidates what ``holder``'s listing no longer shows."""
        relations = set(relations)
        out.outdated += [t.as_tuple() for t in store.incident(holder)
                         if t.object == holder and t.relation in relations and t.subject not in shown]

    def _feedback(self, out: Extraction, view: JerichoView, observation: str, action: str,
                  store: TripleStore) -> None:
        obj = command_object(action)
        for thing in view.taken:
            name = normalize(thing) if thing else (self._named(obj, typed=True) or self._within_reach(obj, store)
                                                    if len(view.taken) == 1 else None)
            if name:
                out.triples.append((name, IN, INVENTORY))
        taken_from = None if view.taken else self._taken_from(action, observation, store)
        if taken_from:
            out.triples.append((taken_from, IN, INVENTORY))
        for thing in view.dropped:
            name = normalize(thing) if thing else \
                (self._named(obj) or _carried_within(obj, store) if len(view.dropped) == 1 else None)
            if name:  # "(first taking the old gas mask off)", then "Dropped.": not carried
                out.triples = [t for t in out.triples if t != (name, IN, INVENTORY)]
            self._let_fall(out, name, store)
        if "" in view.states and command_verb(action) in ("open", "close", "shut"):
            name = self._named(obj)
            if name:
                out.triples.append((name, IS, view.states[""]))
        if (view.done or self._put_told(action, observation)) and command_verb(action) in PUT_VERBS:
            self._put(out, action, store)
        elif not (view.dropped or view.done or view.put or None in view.taken):
            self._told(out, view, _answer(observation), action, store)
        for thing in view.put if command_verb(action) in PUT_VERBS else ():  # "put all in toolkit"
            self._put(out, action, store, thing)
        if view.inventory is not None:
            carried = {normalize(t) for t in view.inventory}
            out.triples += [(t, IN, INVENTORY) for t in sorted(carried)]
            out.outdated += [t.as_tuple() for t in store.incident(INVENTORY)
                             if t.relation == IN and t.object == INVENTORY and t.subject not in carried]


    def _let_go(self, out: Extraction, view: JerichoView, observation: str, action: str, store: TripleStore) -> None:
        """A carried thing the text lets go of is no longer believed carried: ``tie rope to railing``
        answered with the rope's name (``The rope drops over the side``: tied to something else); ``The
        bell ... falls to the ground``; ``give food to bear`` answered without a refusal in its first line
        (``The bear eagerly wolfs down your food``; what Inform's ``(first taking the candygram)`` took for a
        ``give``). A thing the text makes vanish is no longer believed anywhere: ``the moldy scroll
        vanishes``, ``The magic amulet disappears into the chute``, ``drink ochre potion`` answered without
        a refusal (consumed)."""
        carried = _FALLS.findall(observation)
        gone = _VANISHES.findall(observation)
        verb, obj = command_verb(action), command_object(action)
        if verb in TIE_VERBS:
            name = self._named(obj)
            carried += [obj] if name and printed(name.split()[-1], observation.lower()) else []
        answer = _answer(observation)
        answered = bool(answer.strip()) and not _REFUSED.search(answer)  # its first line: the rest may go on
        if verb in _GIVING and answered and len(view.taken) == 1 and view.taken[0]:
            obj = normalize(view.taken[0])  # "(first taking the candygram)", then given: not carried
            out.triples = [t for t in out.triples if t != (obj, IN, INVENTORY)]
        carried += [obj] if verb in _GIVING and answered else []
        gone += [obj] if verb in _CONSUMING and answered else []
        for phrases, anywhere in ((carried, False), (gone, True)):
            for phrase in phrases:
                name = self._named(phrase) or _carried_within(phrase, store)
                if name:
                    out.outdated += [t.as_tuple() for t in _places(store, name)
                                     if anywhere or (t.relation == IN and t.object == INVENTORY)]

    def _told(self, out: Extraction, view: JerichoView, answer: str, action: str, store: TripleStore) -> None:
        """A drop or put the game answers in its own words (``answer``: its first line) rather than its library's:
        ``You drop the pipe.`` (at the room), ``You put the gear on the peg.`` (on it; under it, or a holder
        unknown: at least no longer carried); and a put answered without a refusal that names the thing (``The
        battery pops into place.``, or what Inform's ``(first taking the strange black disk)`` took for it): no
        longer carried."""
        verb, obj = command_verb(action), command_object(action)
        holder = _command_holder(action)
        if verb in PUT_VERBS and holder in ("", "floor", "ground") and (told := _TOLD_DROP.match(answer)):
            self._let_fall(out, self.resolve(told.group("thing")) or self._named(told.group("thing"))
                           or self._named(obj) or _carried_within(obj, store), store)
        elif verb in PUT_VERBS | _PLACING and holder and not _REFUSED.search(answer):
            self._placed(out, view, answer, obj, store)

    def _placed(self, out: Extraction, view: JerichoView, answer: str, obj: str, store: TripleStore) -> None:
        """``put X in Y`` answered without a refusal: X in Y when the answer says so (``You put the gear on the
        peg.``), else no longer carried when the answer names it."""
        told = _TOLD_PUT.match(answer)
        taken = [t for t in view.taken if t]
        thing = normalize(taken[0]) if len(taken) == 1 else (
            told and (self.resolve(told.group("thing")) or self._named(told.group("thing")))
            or self._named(obj) or _carried_within(obj, store))
        if not thing or not (told or printed(thing.split()[-1], answer.lower())):
            return
        out.triples = [t for t in out.triples if t != (thing, IN, INVENTORY)]
        phrase = _POCKET.sub("", told.group("holder")) if told and (told.group("on") or told.group("in")) else ""
        holder = self.resolve(phrase) or self._named(phrase) if phrase else None
        if holder and holder != thing:
            out.triples.append((thing, self.kinds.relation(holder, ON if told and told.group("on") else IN), holder))
        else:
            out.outdated += _carried(store, thing)

    def _let_fall(self, out: Extraction, name: str | None, store: TripleStore) -> None:
        """``name``, dropped: at the believed room, or at least no longer carried (none believed)."""
        if name and self.location and self.location != DARK_PLACE:
            out.triples.append((name, AT, self.location))
        elif name:
            out.outdated += _carried(store, name)

    def _comings_and_goings(self, out: Extraction, observation: str, store: TripleStore) -> None:
        """Someone believed somewhere whom the text has come along or in (``Charles comes with you.``, ``K9 trundles
        in.``, ``Floyd follows you.``) is at the believed room; one the text has leave (``The janitor wanders
        off``, ``He heads for the stairs`` is no name) is believed nowhere. Someone is named by a word of the
        believed name (``Charles``: ``charles bristow``), when one believed thing alone has it."""
        for match in _COMES_OR_GOES.finditer(observation):
            who = self._somebody(match.group("who"), store)
            if who is None:
                continue
            if match.group("goes"):
                out.outdated += [t.as_tuple() for t in _places(store, who)]
            elif not (match.group("follows") or _HERE_NOW.match(match.group("how"))):
                continue
            elif self.location and self.location != DARK_PLACE:
                out.triples.append((who, AT, self.location))

    @staticmethod
    def _somebody(phrase: str, store: TripleStore) -> str | None:
        """The one thing believed in a room or a holder whose name starts or ends with the last word of ``phrase``
        (``The janitor``: ``janitor``; ``Charles``: ``charles bristow``)."""
        word = phrase.lower().split()[-1]
        named = {t.subject for t in store.active() if t.relation in sem.LOCATION_RELATIONS and t.object != INVENTORY
                 and word in (t.subject.split()[0], t.subject.split()[-1])}
        return named.pop() if len(named) == 1 else None

    def _within_reach(self, phrase: str, store: TripleStore) -> str | None:
        """The one believed thing whose name holds every word of ``phrase`` (``get homing``: ``homing device``)
        and that is believed here: at the believed room, or in or on something there or carried."""
        words = set(normalize(phrase).split())
        here = {self.location, INVENTORY}
        reach = [t.subject for t in store.active() if t.relation in sem.LOCATION_RELATIONS and words
                 and words <= set(t.subject.split()) and self._reaches(t.object, here, store)]
        return reach[0] if len(set(reach)) == 1 else None

    @staticmethod
    def _reaches(holder: str, here: set[str | None], store: TripleStore) -> bool:
        """Whether ``holder`` is one of ``here`` or believed (within at most four holders) in one of them."""
        for _ in range(5):
            if holder in here:
                return True
            places = [t.object for t in _places(store, holder)]
            if len(places) != 1:
                return False
            holder = places[0]
        return False

    def _taken_from(self, action: str, observation: str, store: TripleStore) -> str | None:
        """``take X from Y`` answered in the game's own words, without a refusal (Balances' ``The scales come
        into balance.``), when X is believed in or on Y: X, now carried."""
        parts = re.split(r"\s+from\s+", action.strip().lower(), maxsplit=1)
        if command_verb(action) not in _TAKING or len(parts) != 2 or _REFUSED.search(observation):
            return None
        thing, holder = self._named(command_object(action)), self._named(parts[1])
        held = thing is not None and holder is not None and any(
            t.object == holder and t.relation in (IN, ON) for t in _places(store, thing))
        return thing if held else None

    @staticmethod
    def _put_told(action: str, observation: str) -> bool:
        """Whether the game answered ``put X in Y`` by telling it in its own words (``When you plug the fuse
        into the generator, it springs to life``): the last words of X and Y, in that order, joined by
        ``in``/``into``/``on``/``onto``; or X the subject of a sentence saying it is ``now`` somewhere that names Y
        (Planetfall's ``The battery is now resting in the depression, attached to the laser.``)."""
        parts = re.split(r"\s+(?:in|into|inside|on|onto)\s+", action.strip().lower(), maxsplit=1)
        if len(parts) != 2 or not parts[0].split()[1:] or not parts[1].split():
            return False
        thing, holder = re.escape(parts[0].split()[-1]), re.escape(parts[1].split()[-1])
        told = (rf"\b{thing} (?:in|into|inside|on|onto) (?:the |your )?(?:[\w'-]+ )?{holder}\b",
                rf"^(?:the|your) (?:[\w'-]+ )?{thing} (?:is|are) now\b[^.!?]*\b{holder}\b")
        return any(re.search(pattern, observation.strip().lower()) for pattern in told) \
            and not _REFUSED.search(observation)

    def _put(self, out: Extraction, action: str, store: TripleStore, done: str | None = None) -> None:
        """``put X in Y`` answered ``Done.``: X is in (on) Y, or at least no longer carried (``done``: the
        thing a ``put all`` answered ``X: Done.`` for)."""
        parts = re.split(r"\s+(in|into|inside|on|onto)\s+", action.strip().split(maxsplit=1)[-1], maxsplit=1,
                         flags=re.I)
        thing = self._named(done or parts[0])
        if thing is None:
            return
        holder = self._named(parts[2]) if len(parts) == 3 else None
        if holder is not None:
            out.triples.append((thing, self.kinds.relation(holder, ON if parts[1].lower() in ("on", "onto") else IN),
                                holder))
        else:
            out.outdated += [t.as_tuple() for t in store.incident(thing)
                             if t.subject == thing and t.relation == IN and t.object == INVENTORY]


#: A coined compound or a trailing participle in a prose phrase (``nasty-looking knife``, ``egg encrusted``).
_COINED = re.compile(r"-|\b\w+(?:ed|ing)$")
#: Verbs that take a thing.
_TAKING = frozenset({"take", "get", "remove"})
#: Someone the text has come along or in (``Charles comes walking behind you.``, ``Floyd follows you.``, ``K9 trundles
#: in.``), or leave (``The janitor wanders off, mopping as he goes.``, ``The Dark Elf leaves.``).
_COMES_OR_GOES = re.compile(
    r"(?:^|(?<=[.!?] ))(?:The |the )?(?P<who>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?|(?<=he )[a-z][\w'-]*(?: [a-z][\w'-]*)?) "
    r"(?:(?P<follows>follows you|comes with you)"
    r"|(?P<goes>leaves|departs|wanders (?:off|away)|walks (?:off|away|out)|heads (?:off|away|out)|runs (?:off|away)"
    r"|goes (?:off|away|out)|slips away|scurries (?:off|away)|flies (?:off|away))\b"
    r"|(?:comes|walks|wanders|trundles|strolls|runs|hurries|bounds|rolls|floats|flies|steps|trails|arrives|enters)"
    r"(?P<how>[^.!?]*))", re.M)
#: How someone comes that puts them here (``in``, ``behind you``, ``into the room``, ``up to you``).
_HERE_NOW = re.compile(r"^(?: [a-z]+ing)?(?:$| in\b| into the room| behind you| after you| with you| along| up to you"
                       r"| over to you| towards you)")
#: Verbs that put a thing in or on another, besides :data:`~.commands.PUT_VERBS`.
_PLACING = frozenset({"jam", "wedge", "slide", "slip", "hang", "stuff", "push", "plug", "lay", "set"})
#: A drop the game tells in its own words (``You drop the pipe.``, ``You toss the light switch onto the floor.``).
_TOLD_DROP = re.compile(r"^(?:You|I) (?:drop|put down|set down|lay down|toss down|throw down|toss|throw|put)"
                        r" (?:the |your |a |an |some )?(?P<thing>[^.,;!?]+?)"
                        r"(?: down| on(?:to)? the (?:floor|ground))?(?:[.,;!]| and | which |$)")
#: A put the game tells in its own words (``You put the gear on the peg.``, ``I put the pumpkin into the dustbin.``).
_TOLD_PUT = re.compile(r"^(?:You|I) (?:put|place|slip|slide|insert|drop|set|hang|lay|drape|jam|wedge|hide|stuff"
                       r"|plug|toss|throw) (?:the |your |a |an |some )?(?P<thing>[^.,;!?]+?) "
                       r"(?:(?P<on>on|onto|upon|over)|(?P<in>in|into|inside)|under|underneath|beneath|behind) "
                       r"(?:the |your |a |an )?(?P<holder>[^.,;!?]+?)(?:[.,;!]| and |$)")
#: The part of a holder named before it (``the pocket of your trenchcoat``: the trenchcoat).
_POCKET = re.compile(r"^(?:pocket|inside|top|bottom|back) of (?:the |your )?")
#: Verbs whose object leaves the inventory when the game does not refuse (given away).
_GIVING = frozenset({"give", "offer", "feed"})
#: Verbs whose object is gone when the game does not refuse (consumed).
_CONSUMING = frozenset({"eat", "drink", "consume", "swallow"})
#: A thing the text makes vanish (``the moldy scroll vanishes``, ``The magic amulet disappears into the chute``,
#: ``the scroll on which it was written vanishes``).
_VANISHES = re.compile(r"\b(?:[Tt]he|[Yy]our) ([a-z][\w'-]*(?: [a-z][\w'-]*)??)(?: on which it was written)? "
                       r"(?:vanishes|disappears)\b")
#: Words of an answer that refuses.
_REFUSED = re.compile(r"\b(?:can't|cannot|won't|isn't|aren't|don't|doesn't|haven't|no room|not|too|"
                      r"refuses?|declines?|ignores?)\b", re.I)
#: A thing the game lets fall (``The bell suddenly becomes red hot and falls to the ground``).
_FALLS = re.compile(r"\b(?:The|the|Your|your) ([a-z][\w'-]*(?: [a-z][\w'-]*)??) (?:[\w ,'-]+? and )?(?:falls?|drops?) "
                    r"to the (?:ground|floor)\b")
_PLACES = re.compile(r"^(?:front|middle|center|centre|corner|end|side|top|bottom|edge|back|rest|two ends)\b|\bof the\b")


def _things_named(view: JerichoView) -> JerichoView:
    """``view`` with its names read as names of things (:func:`~.names.thing_name`: ``small metal box attached to
    the wall`` is the box); what names no thing (``(first taking them off)``) is dropped.

    Example:
        >>> view = _things_named(read_jericho("(first taking them off)", "fill coat with clothes"))
        >>> view.taken
        []
    """
    things = []
    for thing, relation, holder, block, plain in view.things:
        name, held = thing_name(thing), thing_name(holder) if holder else holder
        if name and (held or not holder):
            things.append((name, relation, held, block, plain))
    view.things = things
    view.taken, view.dropped = _named_or_bare(view.taken), _named_or_bare(view.dropped)
    view.put = [put for t in view.put if (put := thing_name(t))]
    if view.inventory is not None:
        view.inventory = [carried for t in view.inventory if (carried := thing_name(t))]
    view.states = {thing_name(t) if t else t: state for t, state in view.states.items() if not t or thing_name(t)}
    return view


def _named_or_bare(names: list[str | None]) -> list[str | None]:
    """``names`` as names of things (``None``, a bare ``Taken.``, kept), those that name no thing dropped."""
    return [name for t in names if (name := thing_name(t) if t else None) != ""]


#: A word printed before a comma and one to three more words ending a phrase (``a heavy, dog-eared register,``).
_FIRST_OF_TWO = (r"\b(?:an?|the|some) {word}, (?P<rest>(?:[\w'-]+ ){{0,2}}[\w'-]+)"
                 r"(?=[,.;:!?]| (?:is|are|sits|lies|stands|rests|hangs|and)\b)")
#: Words that start a clause or an aside after a comma rather than name a thing (``a table, on which``).
_ASIDE = frozenset({"a", "an", "the", "some", "on", "in", "at", "by", "of", "to", "with", "from", "under", "near",
                    "which", "who", "whose", "that", "this", "its", "his", "her", "their", "and", "or", "but", "now",
                    "still", "just", "here", "there", "all", "each"})


def _first_adjective(word: str, text: str, vocabulary: Vocabulary) -> bool:
    """Whether ``text`` prints ``word`` as the first of two adjectives (``a heavy, dog-eared register``): after an
    article and before a comma and a short phrase, no aside (``a table, on which``, ``some shelves, mostly
    vacant``), that ends with a word of the game's.

    Example:
        >>> words = Vocabulary(["heavy", "register", "shelves", "vacant", "table"])
        >>> _first_adjective("heavy", "beneath the sign sits a heavy, dog-eared register, and a bell.", words)
        True
        >>> _first_adjective("shelves", "there are some shelves, mostly vacant, here.", words)
        False
        >>> _first_adjective("table", "there is a table, on which you see a lamp.", words)
        False
    """
    for match in re.finditer(_FIRST_OF_TWO.format(word=re.escape(word)), text):
        rest = match.group("rest").split()
        if not any(w in _ASIDE or w.endswith("ly") for w in rest) and vocabulary.knows_word(rest[-1]):
            return True
    return False


def _bare_noun(word: str, text: str) -> bool:
    """Whether ``text`` prints ``word`` as a noun with at most a plain modifier (``elvish sword``, ``coil of
    rope``), not within a longer compound that is likely the game's own name (``nasty-looking knife``,
    ``egg encrusted with jewels``: ``jewel-encrusted egg``).

    Example:
        >>> _bare_noun("rope", "a large coil of rope is lying here."), _bare_noun("knife", "a nasty-looking knife.")
        (True, False)
    """
    found = False
    pattern = rf"(?<![\w-])(?P<before>[\w'-]+\s+)?{re.escape(word)}(?![\w-])(?P<after>\s+[\w'-]+)?"
    for match in re.finditer(pattern, text):
        before, after = (match.group("before") or "").strip(), (match.group("after") or "").strip()
        if "-" in before or re.fullmatch(r"\w+(?:ed|ing)", after):
            return False
        found = True
    return found


def _carried_within(phrase: str, store: TripleStore) -> str | None:
    """The one believed carried thing whose name holds the command's words, as the game's parser takes
    them: the phrase, or each word among the name's (``drop pile``: ``pile of plastic``; ``drop kitchen
    card``: ``kitchen access card``).

    Example:
        >>> store = TripleStore(); _ = store.add("pile of plastic", IN, INVENTORY, 0)
        >>> for card in ("kitchen access card", "shuttle access card"):
        ...     _ = store.add(card, IN, INVENTORY, 0)
        >>> _carried_within("the pile", store), _carried_within("plastic bag", store)
        ('pile of plastic', None)
        >>> _carried_within("kitchen card", store), _carried_within("access card", store)
        ('kitchen access card', None)
    """
    phrase = normalize(re.sub(r"^(?:the|a|an)\s+", "", phrase.strip(), flags=re.I))
    carried = [t.subject for t in store.incident(INVENTORY) if t.relation == IN and t.object == INVENTORY]
    words = set(phrase.split())
    within = [name for name in carried if phrase and (printed(phrase, name) or words <= set(name.split()))]
    return within[0] if len(within) == 1 else None


def _last_places(triples: list[TripleKey]) -> list[TripleKey]:
    """``triples`` with one place per thing, the last one read (``tin`` carried was the ``old tin``, which the same
    text slipped into a pocket).

    Example:
        >>> _last_places([("tin", IN, INVENTORY), ("tin", ON, "coat"), ("coat", IS, "open")])
        [('tin', 'is on', 'coat'), ('coat', 'is', 'open')]
    """
    last = {s: i for i, (s, r, _) in enumerate(triples) if r in sem.LOCATION_RELATIONS}
    return [(s, r, o) for i, (s, r, o) in enumerate(triples) if r not in sem.LOCATION_RELATIONS or last[s] == i]


def _answer(observation: str) -> str:
    """The first line of the game's answer (after Inform's parenthesized notes: ``(first taking the lamp)``)."""
    return next((line.strip() for line in observation.splitlines() if line.strip() and not line.startswith("(")), "")


def _command_holder(action: str) -> str:
    """The holder a command names after ``in``/``on``/``under`` (``put gear on post``: ``post``; ``""``: none).

    Example:
        >>> _command_holder("put the gear on the post"), _command_holder("drop pipe"), _command_holder("put lamp down")
        ('post', '', '')
    """
    parts = re.split(r"\s+(?:in|into|inside|on|onto|upon|under|underneath|beneath|over)\s+", action.strip().lower(),
                     maxsplit=1)
    return re.sub(r"^(?:the|a|an|your)\s+", "", parts[1]).strip() if len(parts) == 2 else ""


def _carried(store: TripleStore, name: str) -> list[TripleKey]:
    """The believed triples that ``name`` is carried (to outdate: no longer carried)."""
    return [t.as_tuple() for t in _places(store, name) if t.object == INVENTORY]


def _places(store: TripleStore, name: str) -> list[Triple]:
    """The believed places of ``name`` (its ``is at`` / ``is in`` / ``is on`` triples)."""
    return [t for t in store.incident(name) if t.subject == name and t.relation in sem.LOCATION_RELATIONS]


def _holder_name(name: str) -> bool:
    """Whether ``name`` names a holder rather than a place about one (``front of the machine``)."""
    return bool(name) and not _PLACES.search(name)

