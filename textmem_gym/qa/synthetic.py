"""A small multi-hop QA set that textmem_gym writes itself, in both official formats.

Everything in it is invented: a world of towns, rivers, people, companies and landmarks with made-up
names and dates, so no model can answer from what it learned in pre-training. Each fact is stated in
exactly one paragraph, so the supporting paragraphs of a question are exactly the ones its chain
reads.

Paragraphs are as long as the official files' (:data:`DETAILS`): each entity's paragraph states
its facts in two or three sentences, then adds background sentences (a census, a fair, a fire, a
marriage, a restoration...) with further invented names and years, as Wikipedia's first
paragraphs do. Measured on the official files: HotpotQA distractor paragraphs hold 3.7 sentences
and 76 words on average (the 20 paragraphs of the dev file's first two records); MuSiQue
paragraphs 5.4 sentences and 121 words (median 110; the 404 paragraphs AriGraph's published
MuSiQue log shows as retrieved, a sample leaning to long paragraphs). The shipped set averages
about 4.3 sentences / 73 words (HotpotQA) and 5.7 / 103 (MuSiQue); a MuSiQue item's 20 paragraphs
(about 2,100 words, ~3,300 SmolLM2 tokens) still fit an 8k context with the answer prompt.

- ``hotpot_dev_distractor_v1.json`` (HotpotQA distractor format): 36 questions, 10 paragraphs each
  (the supporting ones plus distractors from the same world, shuffled); ``type`` ``bridge`` (two- and
  three-hop chains such as "Who founded the company that built the lighthouse on Vellmar Island?")
  or ``comparison`` (two or three entities, including yes/no questions); ``supporting_facts`` point
  at the sentence stating each fact; ``level`` is ``hard`` as in the official dev set.
- ``musique_ans_v1.0_dev.jsonl`` (MuSiQue-Answerable format): 36 chain questions, 20 paragraphs
  each, ids ``2hop__...`` and ``3hop1__...`` with their ``question_decomposition`` (``#1`` refers to
  the previous hop's answer) and ``answer_aliases`` (a person's full name, a town's long name, a
  river's bare name).

Both files are generated from fixed seeds with :class:`random.Random`: the same code writes
byte-identical files (a test regenerates them and compares). They ship in
``textmem_gym/qa/data/synthetic/`` (:func:`shipped_data_dir`); regenerate with
``python -m textmem_gym.qa.synthetic OUT_DIR``.

Example:
    >>> from textmem_gym.qa.data import read_hotpotqa
    >>> examples = read_hotpotqa(shipped_data_dir() / "hotpot_dev_distractor_v1.json")
    >>> len(examples), sorted({e.kind for e in examples}), sorted({e.hops for e in examples})
    (36, ['bridge', 'comparison'], [2, 3])
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from textmem_gym.qa.data import shipped_data_dir

__all__ = ["DETAILS", "FILES", "build_world", "hotpot_text", "musique_text", "shipped_data_dir", "write_synthetic"]

HOTPOT_FILE = "hotpot_dev_distractor_v1.json"
MUSIQUE_FILE = "musique_ans_v1.0_dev.jsonl"
HOTPOT_SEED = 2201
MUSIQUE_SEED = 2202
#: Background sentences added to each paragraph (one of these counts, drawn per paragraph), per file:
#: HotpotQA's paragraphs are shorter than MuSiQue's (see the module docstring).
DETAILS: dict[str, tuple[int, ...]] = {"hotpotqa": (1, 2, 2, 2, 3), "musique": (2, 3, 3, 3, 4)}
#: Added to a world's seed for the generator of background sentences (so the facts, names and
#: questions of a seed do not depend on how much background its paragraphs get).
DETAIL_SEED_OFFSET = 100_003

_SYLLABLES = ("val", "mor", "en", "tis", "kar", "ul", "ves", "dra", "lin", "oss", "rin", "ka", "bel",
              "quen", "ith", "vor", "dun", "mir", "zel", "ko", "fen", "lo", "tar", "ev", "gal", "ris",
              "pel", "wyn", "dor", "ny", "cal", "ae", "thu", "bra", "sel", "um", "ord", "ix", "jas", "hel")
_JOBS = ("shipwright", "glassmaker", "engineer", "cartographer", "botanist", "printer", "clockmaker", "architect")
_DEEDS = ("kept weather journals for forty years", "trained more than sixty apprentices",
          "wrote a handbook on tide tables", "restored an old city gate", "collected over a thousand beetles",
          "drew the first survey of the northern marshes", "taught night classes in arithmetic",
          "designed a folding harbour crane")
_INDUSTRIES = (("glassmaking", "Glassworks"), ("shipbuilding", "Shipwrights"), ("iron-founding", "Ironworks"),
               ("rope-making", "Ropeworks"), ("printing", "Press"), ("clockmaking", "Clockmakers"),
               ("stone-cutting", "Stoneworks"), ("lamp-making", "Lampworks"))
_LANDMARKS = ("lighthouse", "bridge", "observatory", "clock tower", "dam")
_MATERIALS = ("granite", "brick", "limestone", "cast-iron", "sandstone")
#: Real words and names the syllables can spell (checked by eye over both worlds); never used.
BLOCKED_WORDS = frozenset({"solar", "melon", "kalo", "tarot", "lotar", "rival", "koran", "fennel", "salon", "dune",
                      "helen", "helix", "endor", "lorin", "kalin", "caldor", "taren", "loko", "gallin", "kodra",
                      "calves", "tarka"})
E = TypeVar("E", "Company", "Person")


# --- the invented world ------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    """One paragraph about one entity: its sentences and which sentence states which fact."""

    title: str
    sentences: tuple[str, ...]
    facts: dict[str, int]

    def official_sentences(self) -> list[str]:
        """The sentences as HotpotQA stores them: each one after the first starts with a space."""
        return [self.sentences[0], *(" " + s for s in self.sentences[1:])]


@dataclass(frozen=True)
class Town:
    """An invented town: its river, province and charter year."""

    name: str
    river: str
    province: str
    chartered: int

    @property
    def long_name(self) -> str:
        """The town's other name, ``<town>-on-<river>`` (a MuSiQue answer alias)."""
        return f"{self.name}-on-{self.river}"


@dataclass(frozen=True)
class Person:
    """An invented person: names, life dates, birthplace, trade.

    Attributes:
        first: The first name.
        middle: The middle name (only in the birth name, :attr:`full_name`).
        last: The family name.
        born: The year of birth.
        died: The year of death.
        town: The birthplace.
        job: The trade (``"shipwright"``...).
        pronoun: ``"he"`` or ``"she"`` (the paragraph's later sentences start with it).
        deed: What the person is remembered for (a clause: ``"restored an old city gate"``).
    """

    first: str
    middle: str
    last: str
    born: int
    died: int
    town: Town
    job: str
    pronoun: str
    deed: str

    @property
    def name(self) -> str:
        """First and last name."""
        return f"{self.first} {self.last}"

    @property
    def full_name(self) -> str:
        """Birth name with the middle name (a MuSiQue answer alias)."""
        return f"{self.first} {self.middle} {self.last}"


@dataclass(frozen=True)
class Company:
    """An invented company: founder, home town, founding year, former name."""

    name: str
    alias: str
    industry: str
    founder: Person
    town: Town
    founded: int
    renamed: int
    staff: int


@dataclass(frozen=True)
class Landmark:
    """An invented structure and the company that built it."""

    title: str
    phrase: str
    material: str
    builder: Company
    completed: int


@dataclass
class World:
    """The invented entities and one paragraph per entity (keyed by title)."""

    towns: list[Town]
    people: list[Person]
    companies: list[Company]
    landmarks: list[Landmark]
    docs: dict[str, Doc] = field(default_factory=dict)


class _Names:
    """Unique invented words built from syllables (never a blocked real word, never twice)."""

    def __init__(self, rng: random.Random, used: set[str] | None = None) -> None:
        self.rng = rng
        self.used: set[str] = set() if used is None else used

    def word(self, syllables: int) -> str:
        while True:
            parts = [self.rng.choice(_SYLLABLES) for _ in range(syllables)]
            word = "".join(parts).capitalize()
            doubled = any(a == b for a, b in zip(parts, parts[1:]))
            if not doubled and word.lower() not in self.used and word.lower() not in BLOCKED_WORDS:
                self.used.add(word.lower())
                return word


def _towns(rng: random.Random, names: _Names, count: int) -> list[Town]:
    provinces = [names.word(3) for _ in range(4)]
    return [Town(name=names.word(rng.choice((2, 3))), river=names.word(2), province=rng.choice(provinces),
                 chartered=rng.randint(1310, 1690)) for _ in range(count)]


def _people(rng: random.Random, names: _Names, towns: list[Town], count: int) -> list[Person]:
    people = []
    for i in range(count):
        born = rng.randint(1760, 1890)
        people.append(Person(first=names.word(2), middle=names.word(2), last=names.word(3), born=born,
                             died=born + rng.randint(48, 91), town=towns[i % len(towns)], job=rng.choice(_JOBS),
                             pronoun=rng.choice(("he", "she")), deed=rng.choice(_DEEDS)))
    rng.shuffle(people)
    return people


def _companies(rng: random.Random, names: _Names, founders: Sequence[Person], towns: list[Town]) -> list[Company]:
    companies = []
    for founder in founders:
        industry, suffix = rng.choice(_INDUSTRIES)
        stem, founded = names.word(2), founder.born + rng.randint(22, 45)
        companies.append(Company(name=f"{stem} {suffix}", alias=f"{stem} & {names.word(2)}", industry=industry,
                                 founder=founder, town=rng.choice(towns), founded=founded,
                                 renamed=founded + rng.randint(20, 60), staff=rng.randrange(40, 900, 10)))
    return companies


def _landmark(rng: random.Random, names: _Names, kind: str, builder: Company) -> Landmark:
    stem = names.word(2)
    title, phrase = ((f"{stem} Lighthouse", f"the lighthouse on {stem} Island") if kind == "lighthouse" else
                     (f"{stem} {kind.title()}", f"the {stem} {kind.title()}"))
    return Landmark(title=title, phrase=phrase, material=rng.choice(_MATERIALS), builder=builder,
                    completed=builder.founded + rng.randint(3, 40))


def build_world(seed: int, details: Sequence[int] = (0,)) -> World:
    """The invented world of one seed: 14 towns, 20 people (14 of them company founders), 14 companies,
    12 landmarks, and one paragraph per entity.

    Args:
        seed: Seed of the entities, their names and facts.
        details: Background sentences added to a paragraph, one count drawn per paragraph from
            these (:data:`DETAILS`); ``(0,)``: the fact sentences alone.

    Example:
        >>> world = build_world(1)
        >>> len(world.docs), world.companies[0].founder in world.people
        (60, True)
        >>> long = build_world(1, details=(3,))
        >>> [len(d.sentences) - len(world.docs[t].sentences) for t, d in long.docs.items()] == [3] * 60
        True
    """
    rng = random.Random(seed)
    names = _Names(rng)
    towns = _towns(rng, names, 14)
    people = _people(rng, names, towns, 20)
    companies = _companies(rng, names, people[:14], towns)
    landmarks = [_landmark(rng, names, _LANDMARKS[i % len(_LANDMARKS)], rng.choice(companies)) for i in range(12)]
    world = World(towns, people, companies, landmarks)
    for doc in (*map(_town_doc, towns), *map(_person_doc, people), *map(_company_doc, companies),
                *map(_landmark_doc, landmarks)):
        world.docs[doc.title] = doc
    if any(details):
        _add_details(world, names, details, random.Random(seed + DETAIL_SEED_OFFSET))
    return world


def _town_doc(town: Town) -> Doc:
    return Doc(town.name, (
        f"{town.name} is a market town in the province of {town.province}.",
        f"The {town.river} River flows through its old quarter, which is why it is also called {town.long_name}.",
        f"It received its town charter in {town.chartered}.",
    ), {"province": 0, "river": 1, "chartered": 2})


def _person_doc(person: Person) -> Doc:
    return Doc(person.name, (
        f"{person.name} (born {person.full_name}; {person.born}–{person.died}) was a {person.job} "
        f"born in {person.town.name}.",
        f"{person.pronoun.capitalize()} {person.deed}.",
    ), {"born": 0, "birthplace": 0})


def _company_doc(company: Company) -> Doc:
    return Doc(company.name, (
        f"{company.name} is a {company.industry} company based in {company.town.name}.",
        f"It was founded in {company.founded} by the {company.founder.job} {company.founder.name}.",
        f"Until {company.renamed} it traded as {company.alias}, and at its height it employed {company.staff} people.",
    ), {"town": 0, "founded": 1, "founder": 1})


def _landmark_doc(landmark: Landmark) -> Doc:
    return Doc(landmark.title, (
        f"{landmark.phrase[0].upper()}{landmark.phrase[1:]} is a {landmark.material} structure.",
        f"It was built by {landmark.builder.name} and completed in {landmark.completed}.",
        "It is listed as a protected monument.",
    ), {"builder": 1, "completed": 1})


# --- background sentences ------------------------------------------------------------------------------
# Each fills its fields from the entity (years after the entity's own) and from new invented words;
# none restates a fact a question reads, so each fact stays in exactly one paragraph.

_TOWN_DETAILS = (
    "At the census of {year} it had {count} inhabitants, most of whom worked in the workshops of the lower town "
    "or on the farms of the surrounding valley.",
    "Its best-known building is {word} Hall, a covered market built around a cobbled courtyard, which now houses "
    "the town archive and a small museum of local history.",
    "Every autumn the town holds the {word2} Fair, a week of horse trading, music and boat races on the river that "
    "draws visitors from all over the province.",
    "The old post road to {word3} crosses the valley here, and a stone milestone giving the distance still stands "
    "beside the parish church of Saint {word4}.",
    "The hills around the town are known for their pear and plum orchards, and its cider was once shipped "
    "downriver in barrels stamped with the town seal.",
)
_PERSON_DETAILS = (
    "{Pronoun} was the {ordinal} of {children} children of a weaver and a schoolteacher, and left school at the "
    "age of {age} to work in a workshop near the harbour.",
    "After an apprenticeship in the port of {word}, {pronoun} travelled for several years through the northern "
    "provinces before settling down with a set of borrowed tools.",
    "{Possessive} notebooks, letters and drawings are kept in the archive of the {word2} Society, which published "
    "a selection of them in {year}.",
    "A street and a primary school were later named after {object}, and a bronze bust by the sculptor {person} "
    "stands in the public garden near the old quay.",
    "{Pronoun} married {person2} in {year2}; the couple had {children2} children and lived for most of their lives "
    "in a narrow house above {possessive} workshop.",
)
_COMPANY_DETAILS = (
    "Its first workshop stood on {word} Lane close to the quay, and in {year} the firm moved to a larger site "
    "with its own wharf on the edge of town.",
    "Its goods were sold as far away as {word2} and {word3}, and several early pieces are kept in the "
    "collections of the provincial museum.",
    "A fire in {year2} destroyed most of its stock and all of its order books, but the works reopened within a "
    "year with new machinery.",
    "The firm was known for training its own workers, and many later masters of the trade in the province began "
    "as apprentices in its yard.",
    "In {year3} it was bought by the {word4} Trading Company, and its old buildings were later turned into flats "
    "and a museum of local industry.",
)
_LANDMARK_DETAILS = (
    "It rises {count} metres and was designed by the engineer {person}, whose original drawings and cost books "
    "survive in the provincial archive.",
    "Its construction took {children} years and was paid for by a public subscription organised by the merchants "
    "and ship owners of the nearby harbour.",
    "A storm badly damaged it in {year}, and it was restored in {year2}, when its walls were cleaned and the upper "
    "stages rebuilt.",
    "Guided tours are held on summer weekends, and a small exhibition inside tells the story of the workers who "
    "built it and of the families who kept it.",
    "It appears on the coat of arms of the district and on a postage stamp issued in {year3} to mark the "
    "centenary of the province.",
)
_PRONOUNS = {"he": ("he", "him", "his"), "she": ("she", "her", "her"), "it": ("it", "it", "its")}


def _detail_fields(rng: random.Random, names: _Names, start: int, pronoun: str = "it",
                   count: tuple[int, int] = (900, 9000), end: int | None = None) -> dict[str, str]:
    """Values for the background templates: invented words and people, three years after ``start``
    (before ``end``: a person's background happens in their lifetime)."""
    subject, obj, possessive = _PRONOUNS[pronoun]
    years = sorted(rng.sample(range(start + 1, end if end is not None else start + 90), 3))
    return {"word": names.word(2), "word2": names.word(2), "word3": names.word(2), "word4": names.word(2),
            "person": f"{names.word(2)} {names.word(3)}", "person2": f"{names.word(2)} {names.word(3)}",
            "year": str(years[0]), "year2": str(years[1]), "year3": str(years[2]),
            "count": f"{rng.randint(*count):,}", "children": str(rng.randint(3, 9)),
            "children2": str(rng.randint(2, 6)),
            "age": str(rng.randint(11, 15)), "ordinal": rng.choice(("second", "third", "fourth", "youngest")),
            "pronoun": subject, "Pronoun": subject.capitalize(), "object": obj, "possessive": possessive,
            "Possessive": possessive.capitalize()}


#: Entity list of :class:`World` -> (its paragraph's title, its background templates, its template fields).
_DETAIL_KINDS: tuple[tuple[str, Callable[[Any], str], tuple[str, ...],
                           Callable[[Any, random.Random, _Names], dict[str, str]]], ...] = (
    ("towns", lambda t: t.name, _TOWN_DETAILS, lambda t, rng, n: _detail_fields(rng, n, t.chartered)),
    ("people", lambda p: p.name, _PERSON_DETAILS,
     lambda p, rng, n: _detail_fields(rng, n, p.born + 18, p.pronoun, end=p.died)),
    ("companies", lambda c: c.name, _COMPANY_DETAILS, lambda c, rng, n: _detail_fields(rng, n, c.founded)),
    ("landmarks", lambda lm: lm.title, _LANDMARK_DETAILS,
     lambda lm, rng, n: _detail_fields(rng, n, lm.completed, count=(18, 95))),
)


def _add_details(world: World, names: _Names, details: Sequence[int], rng: random.Random) -> None:
    """Appends background sentences to every paragraph (a count drawn from ``details``, templates in order)."""
    names = _Names(rng, used=names.used)
    for pool, title, templates, fields in _DETAIL_KINDS:
        for entity in getattr(world, pool):
            doc = world.docs[title(entity)]
            chosen = sorted(rng.sample(range(len(templates)), rng.choice(details)))
            values = fields(entity, rng, names)
            extra = tuple(templates[i].format(**values) for i in chosen)
            world.docs[doc.title] = Doc(doc.title, doc.sentences + extra, doc.facts)


# --- questions -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    """One step of a question: the paragraph it reads, the fact, and its single-hop question."""

    title: str
    fact: str
    question: str
    answer: str


@dataclass(frozen=True)
class Question:
    """A multi-hop question over the world, with its answer, aliases and the hops that answer it."""

    text: str
    answer: str
    aliases: tuple[str, ...]
    hops: tuple[Hop, ...]
    kind: str


def _builder_founder(lm: Landmark) -> Question:
    c, p = lm.builder, lm.builder.founder
    return Question(f"Who founded the company that built {lm.phrase}?", p.name, (p.full_name,), (
        Hop(lm.title, "builder", f"Which company built {lm.phrase}?", c.name),
        Hop(c.name, "founder", "Who founded #1?", p.name)), "bridge")


def _founder_birthplace(c: Company) -> Question:
    p = c.founder
    return Question(f"In which town was the founder of {c.name} born?", p.town.name, (p.town.long_name,), (
        Hop(c.name, "founder", f"Who founded {c.name}?", p.name),
        Hop(p.name, "birthplace", "In which town was #1 born?", p.town.name)), "bridge")


def _birthplace_river(p: Person) -> Question:
    t = p.town
    return Question(f"Which river flows through the town where {p.name} was born?", f"{t.river} River", (t.river,), (
        Hop(p.name, "birthplace", f"In which town was {p.name} born?", t.name),
        Hop(t.name, "river", "Which river flows through #1?", f"{t.river} River")), "bridge")


def _builder_founded(lm: Landmark) -> Question:
    c = lm.builder
    return Question(f"In what year was the company that built {lm.phrase} founded?", str(c.founded), (), (
        Hop(lm.title, "builder", f"Which company built {lm.phrase}?", c.name),
        Hop(c.name, "founded", "In what year was #1 founded?", str(c.founded))), "bridge")


def _builder_founder_birthplace(lm: Landmark) -> Question:
    c, p = lm.builder, lm.builder.founder
    return Question(f"In which town was the founder of the company that built {lm.phrase} born?", p.town.name,
                    (p.town.long_name,), (
        Hop(lm.title, "builder", f"Which company built {lm.phrase}?", c.name),
        Hop(c.name, "founder", "Who founded #1?", p.name),
        Hop(p.name, "birthplace", "In which town was #2 born?", p.town.name)), "bridge")


def _builder_town_river(lm: Landmark) -> Question:
    c, t = lm.builder, lm.builder.town
    return Question(f"Which river flows through the town where the company that built {lm.phrase} is based?",
                    f"{t.river} River", (t.river,), (
        Hop(lm.title, "builder", f"Which company built {lm.phrase}?", c.name),
        Hop(c.name, "town", "In which town is #1 based?", t.name),
        Hop(t.name, "river", "Which river flows through #2?", f"{t.river} River")), "bridge")


def _founder_birthplace_river(c: Company) -> Question:
    p, t = c.founder, c.founder.town
    return Question(f"Which river flows through the birthplace of the founder of {c.name}?", f"{t.river} River",
                    (t.river,), (
        Hop(c.name, "founder", f"Who founded {c.name}?", p.name),
        Hop(p.name, "birthplace", "In which town was #1 born?", t.name),
        Hop(t.name, "river", "Which river flows through #2?", f"{t.river} River")), "bridge")


def _founded_first(companies: Sequence[Company]) -> Question:
    first = min(companies, key=lambda c: c.founded)
    names = [c.name for c in companies]
    listed = f"{names[0]} or {names[1]}" if len(names) == 2 else f"{', '.join(names[:-1])} or {names[-1]}"
    return Question(f"Which company was founded first, {listed}?", first.name, (), tuple(
        Hop(c.name, "founded", f"In what year was {c.name} founded?", str(c.founded)) for c in companies), "comparison")


def _born_later(people: Sequence[Person]) -> Question:
    a, b = people
    later = a if a.born > b.born else b
    return Question(f"Who was born later, {a.name} or {b.name}?", later.name, (later.full_name,), tuple(
        Hop(p.name, "born", f"In what year was {p.name} born?", str(p.born)) for p in people), "comparison")


def _same_birthplace(people: Sequence[Person]) -> Question:
    a, b = people
    return Question(f"Were {a.name} and {b.name} born in the same town?", "yes" if a.town == b.town else "no", (),
                    tuple(Hop(p.name, "birthplace", f"In which town was {p.name} born?", p.town.name) for p in people),
                    "comparison")


def _distinct_years(rng: random.Random, items: Sequence[E], k: int, year: Callable[[E], int],
                    count: int) -> Iterator[list[E]]:
    """``count`` different groups of ``k`` items whose years all differ (so the comparison has one answer)."""
    seen: set[tuple[int, ...]] = set()
    while len(seen) < count:
        group = rng.sample(list(items), k)
        key = tuple(sorted(id(x) for x in group))
        if len({year(x) for x in group}) == k and key not in seen:
            seen.add(key)
            yield group


def _same_town_pairs(rng: random.Random, people: Sequence[Person], count: int) -> list[list[Person]]:
    pairs = [[a, b] for i, a in enumerate(people) for b in people[i + 1:] if a.town == b.town]
    others = [[a, b] for i, a in enumerate(people) for b in people[i + 1:] if a.town != b.town]
    half = count // 2
    return rng.sample(pairs, half) + rng.sample(others, count - half)


#: Chain templates and how many questions each asks: (template, the world's list it draws from, HotpotQA count,
#: MuSiQue count).
_CHAINS: tuple[tuple[Callable[[Any], Question], str, int, int], ...] = (
    (_builder_founder, "landmarks", 4, 5),
    (_founder_birthplace, "companies", 4, 5),
    (_birthplace_river, "people", 4, 5),
    (_builder_founded, "landmarks", 4, 5),
    (_builder_founder_birthplace, "landmarks", 4, 6),
    (_builder_town_river, "landmarks", 3, 5),
    (_founder_birthplace_river, "companies", 3, 5),
)


def _chain_questions(world: World, rng: random.Random, column: int) -> list[Question]:
    return [template(subject) for template, pool, *counts in _CHAINS
            for subject in rng.sample(getattr(world, pool), counts[column])]


def hotpot_questions(world: World, rng: random.Random) -> list[Question]:
    """36 questions: 16 two-hop and 10 three-hop bridges, 8 two-entity and 2 three-entity comparisons,
    in shuffled order (file order mixes the kinds, as the official files do)."""
    comparisons = [*map(_founded_first, _distinct_years(rng, world.companies, 2, lambda c: c.founded, 3)),
                   *map(_same_birthplace, _same_town_pairs(rng, world.people, 3)),
                   *map(_born_later, _distinct_years(rng, world.people, 2, lambda p: p.born, 2)),
                   *map(_founded_first, _distinct_years(rng, world.companies, 3, lambda c: c.founded, 2))]
    return _shuffled(rng, _chain_questions(world, rng, 0) + comparisons)


def musique_questions(world: World, rng: random.Random) -> list[Question]:
    """36 chain questions: 20 two-hop (``2hop``) and 16 three-hop (``3hop1``), in shuffled order."""
    return _shuffled(rng, _chain_questions(world, rng, 1))


def _shuffled(rng: random.Random, questions: list[Question]) -> list[Question]:
    rng.shuffle(questions)
    return questions


# --- the official formats ----------------------------------------------------------------------------


def _context(world: World, question: Question, rng: random.Random, size: int) -> list[Doc]:
    gold = list(dict.fromkeys(hop.title for hop in question.hops))
    others = [title for title in world.docs if title not in gold]
    titles = gold + rng.sample(others, size - len(gold))
    rng.shuffle(titles)
    return [world.docs[title] for title in titles]


def hotpot_record(world: World, question: Question, rng: random.Random) -> dict[str, object]:
    """One record in HotpotQA's distractor format (10 paragraphs)."""
    docs = _context(world, question, rng, 10)
    facts = list(dict.fromkeys((hop.title, world.docs[hop.title].facts[hop.fact]) for hop in question.hops))
    return {"_id": hashlib.sha1(question.text.encode()).hexdigest()[:24], "answer": question.answer,
            "question": question.text, "supporting_facts": [list(fact) for fact in facts],
            "context": [[doc.title, doc.official_sentences()] for doc in docs], "type": question.kind, "level": "hard"}


def musique_record(world: World, question: Question, rng: random.Random, first_id: int) -> dict[str, object]:
    """One record in MuSiQue-Answerable's format (20 paragraphs); hop ids count up from ``first_id``."""
    docs = _context(world, question, rng, 20)
    index = {doc.title: i for i, doc in enumerate(docs)}
    ids = [first_id + i for i in range(len(question.hops))]
    prefix = {2: "2hop", 3: "3hop1"}[len(question.hops)]
    return {"id": f"{prefix}__{'_'.join(map(str, ids))}",
            "paragraphs": [{"idx": i, "title": doc.title, "paragraph_text": "".join(doc.official_sentences()),
                            "is_supporting": doc.title in {hop.title for hop in question.hops}}
                           for i, doc in enumerate(docs)],
            "question": question.text,
            "question_decomposition": [{"id": hop_id, "question": hop.question, "answer": hop.answer,
                                        "paragraph_support_idx": index[hop.title]}
                                       for hop_id, hop in zip(ids, question.hops, strict=True)],
            "answer": question.answer, "answer_aliases": list(question.aliases), "answerable": True}


def hotpot_text(seed: int = HOTPOT_SEED) -> str:
    """The content of the synthetic ``hotpot_dev_distractor_v1.json`` (one JSON list, as the official file)."""
    world, rng = build_world(seed, DETAILS["hotpotqa"]), random.Random(seed + 1)
    return json.dumps([hotpot_record(world, q, rng) for q in hotpot_questions(world, rng)], ensure_ascii=False)


def musique_text(seed: int = MUSIQUE_SEED) -> str:
    """The content of the synthetic ``musique_ans_v1.0_dev.jsonl`` (one JSON record per line)."""
    world, rng = build_world(seed, DETAILS["musique"]), random.Random(seed + 1)
    records = [musique_record(world, q, rng, 910001 + 10 * i) for i, q in enumerate(musique_questions(world, rng))]
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


#: Official file name -> the function writing its content.
FILES: dict[str, Callable[[], str]] = {HOTPOT_FILE: hotpot_text, MUSIQUE_FILE: musique_text}


def write_synthetic(out_dir: str | Path) -> list[Path]:
    """Writes both synthetic files into ``out_dir`` (created) under their official names.

    Example:
        >>> import tempfile
        >>> [p.name for p in write_synthetic(tempfile.mkdtemp())]
        ['hotpot_dev_distractor_v1.json', 'musique_ans_v1.0_dev.jsonl']
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in FILES.items():
        (folder / name).write_text(content(), encoding="utf-8")
        written.append(folder / name)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m textmem_gym.qa.synthetic OUT_DIR``: writes the synthetic QA files."""
    parser = argparse.ArgumentParser(description="Write textmem_gym's synthetic HotpotQA and MuSiQue files.")
    parser.add_argument("out_dir", type=Path, help="folder to write into (created)")
    for path in write_synthetic(parser.parse_args(argv).out_dir):
        print(path)


if __name__ == "__main__":
    main()
