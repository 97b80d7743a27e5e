"""A rule-driven stand-in model for the QA methods, served by the real
:class:`~textmem_gym.llm.LocalOpenAIServer` (tests, ``benchmarks/qa.py``, offline demos).

:class:`ContextReader` answers every prompt kind of the QA methods by rule, never by knowing
more than the prompt shows it:

* **extraction** (AriGraph's triplet prompt, DAVIS's transition prompt): triples read from the
  paragraph's sentences: the subject is the paragraph's title (for a sentence opening with it or
  with a pronoun) or the sentence's first capitalised name; each later name or number is an
  object, related by the sentence's verb and the words just before the object;
* **key items**: the capitalised names of the question, relevance 3;
* **graph QA** (DAVIS): the two candidate entities sharing most words with the question, then
  the retrieved facts as the answer;
* **inner monologue** (DAVIS): the question itself as the first sub-question, then the next entity
  of the chain (an object of a fact whose subject was named), then a direct answer once the
  conversation holds one;
* **summaries** (the ``summary`` method's update, STMA's summarizer): the lead (first two)
  sentences of each paragraph read, a summary that never looks at the question; the running
  summary drops its oldest sentences to stay within the word limit its prompt states;
* **STMA's relation retriever and aggregator**: the extraction rule above over the temporal
  belief, as RDF lists; the triples given, as ``subject relation object.`` sentences;
* **answers**: a question's gold answer (or alias) when the context the prompt gives holds it
  (the question text itself left out), else ``Unknown``. So the stand-in's EM measures whether a
  method put the answer in front of the model, which is what retrieval is for; it is no model of
  reading, and its EM is no estimate of a real model's.

``garble=("qa_answer",)`` makes it answer those kinds with text no parser reads (to test that
an unparseable answer is counted, never replaced).

Example:
    >>> from textmem_gym.qa.data import Paragraph, QAExample
    >>> p = Paragraph("Vellmar Island", "Vellmar Island lies in Tallow Bay. It was settled in 1904.", (), True)
    >>> ex = QAExample("q", "hotpotqa", "When was Vellmar Island settled?", ("1904",), (p,), (), 2, None)
    >>> reader = ContextReader([ex])
    >>> paragraph_triples(p.title, p.text)
    [('vellmar island', 'lies in', 'tallow bay'), ('vellmar island', 'was settled in', '1904')]
    >>> prompt = ('Answer the following question: "When was Vellmar Island settled?"\\nRelevant texts: It was '
    ...           'settled in 1904.\\nAnswer with a chain of thoughts, then a direct answer.')
    >>> reader([{"role": "user", "content": prompt}])
    '{"chain_of_thought": "the context says 1904", "direct_answer": "1904"}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textmem_gym.qa.data import QAExample
from textmem_gym.qa.scoring import normalize_answer

_NAME = re.compile(r"\b(?:[A-Z][\w'-]*|\d{3,4})(?:\s+(?:on|of|de|&)?\s*[A-Z][\w'-]*)*")
_PRONOUNS = ("It ", "He ", "She ", "They ", "Its ", "His ", "Her ")
_STOP = frozenset("a an the this that of it he she they its his her".split())
_QUESTION = re.compile(r'question:?\s*"([^"]+)"', re.I)

#: Prompt kind -> a phrase only that kind's prompt holds (the QA prompts and the memories' prompts).
KINDS: dict[str, str] = {
    "arigraph_triplets": "Guidelines for Building the Knowledge Graph",
    "davis_extract": "You build the temporal knowledge graph",
    "qa_key_items": "Assign a relevance score from 1 to 3",
    "davis_qa_select": "Step 1: choose the entity types",
    "davis_qa": "answer a question about a text environment from a temporal knowledge graph",
    "qa_monologue": "by talking with your world model",
    "qa_summary": "keep a running summary of them",
    "stma_summary": "This summary will be referred to as the robots",
    "stma_relations": "extracting only the spatial relationships between objects",
    "stma_aggregate": "reconstruct the environment and describe it in plain text",
    "qa_answer": "with a chain of thoughts, then a direct answer",
}


def prompt_kind(prompt: str) -> str:
    """The kind of a QA prompt (a key of :data:`KINDS`), ``other`` when none matches."""
    return next((kind for kind, phrase in KINDS.items() if phrase in prompt), "other")


def paragraph_triples(title: str, text: str) -> list[tuple[str, str, str]]:
    """Triples read from ``text`` by rule (see the module docstring), lower case."""
    triples: list[tuple[str, str, str]] = []
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        triples += _sentence_triples(title, sentence.rstrip(".!? "))
    return list(dict.fromkeys(triples))


def _sentence_triples(title: str, sentence: str) -> list[tuple[str, str, str]]:
    names = [m for m in _NAME.finditer(sentence) if m.group().split()[0] not in ("It", "He", "She", "The", "They")]
    starts_with_title = bool(title) and title.lower() in sentence[: len(title) + 8].lower()
    if sentence.startswith(_PRONOUNS) or starts_with_title or not names:
        subject, rest_from = title, (sentence.lower().find(title.lower()) + len(title) if starts_with_title else 0)
    else:
        subject, rest_from = names[0].group(), names[0].end()
    found, previous = [], rest_from
    verb = ""
    for match in names:
        if match.start() < rest_from or not subject:
            continue
        words = [w for w in re.findall(r"[a-z][a-z-]*", sentence[previous:match.start()].lower()) if w not in _STOP]
        verb = verb or " ".join(words[:2])
        relation = " ".join(dict.fromkeys([*verb.split(), *words[-2:]])) or "is related to"
        found.append((subject.lower(), relation, match.group().lower()))
        previous = match.end()
    return found


class ContextReader:
    """``messages -> answer`` by the rules of the module docstring.

    Args:
        examples: The questions asked (their gold answers are given only when the context holds them).
        garble: Prompt kinds answered with unreadable text.

    Attributes:
        prompts: Prompt kind -> prompts received, in order.
    """

    def __init__(self, examples: Iterable[QAExample], garble: Sequence[str] = ()) -> None:
        self.answers = {normalize_answer(ex.question): ex.answers for ex in examples}
        self.garble = frozenset(garble)
        self.prompts: dict[str, list[str]] = {}
        self._rules: dict[str, Callable[[str], str]] = {
            "arigraph_triplets": self._triplets, "davis_extract": self._tuples, "qa_key_items": self._items,
            "davis_qa_select": self._select, "davis_qa": self._facts, "qa_monologue": self._monologue,
            "qa_answer": self._answer, "qa_summary": self._summary, "stma_summary": self._stma_summary,
            "stma_relations": self._stma_relations, "stma_aggregate": self._stma_aggregate}

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        kind = prompt_kind(prompt)
        self.prompts.setdefault(kind, []).append(prompt)
        if kind in self.garble:
            return "Let me think about it.\nThe texts mention many things.\nIt is hard to say."
        return self._rules.get(kind, lambda _: "Unknown")(prompt)

    # -- building ------------------------------------------------------------------------------
    def _triplets(self, prompt: str) -> str:
        title, text = _titled(prompt.rsplit("Observation:", 1)[-1])
        triplets = [dict(zip(("subject", "relation", "object"), t)) for t in paragraph_triples(title, text)]
        return json.dumps({"triplets": triplets})  # the QA methods ask for it structured

    def _tuples(self, prompt: str) -> str:
        title, text = _titled(prompt.rsplit("Observation after:", 1)[-1])
        rows = [[s, r, o, "object", "object"] for s, r, o in paragraph_triples(title, text)]
        return json.dumps({"summary": text.split(". ")[0], "tuples": rows})

    # -- retrieving ------------------------------------------------------------------------------
    def _items(self, prompt: str) -> str:
        question = prompt.rsplit("Problem:", 1)[-1].split("\n")[0]
        names = [m.group() for m in _NAME.finditer(question) if m.group() not in ("Which", "Who", "In", "What", "Were")]
        return json.dumps({"entities": [{"entity": n, "relevance": 3} for n in dict.fromkeys(names)]})

    def _select(self, prompt: str) -> str:
        question = prompt.split("Question:", 1)[-1].split("\n")[0].lower()
        listing = prompt.split("Candidate entities by type:", 1)[-1]
        names = [n.strip() for line in listing.splitlines() if ":" in line for n in line.split(":", 1)[1].split(",")]
        words = set(re.findall(r"[a-z0-9]+", question))
        ranked = sorted((n for n in names if n), key=lambda n: -len(words & set(n.split())))
        return json.dumps({"types": ["object", "location", "person"], "entities": ranked[:2]})

    def _facts(self, prompt: str) -> str:
        block = prompt.split("Time-ordered facts:", 1)[-1].split("Question:", 1)[0]
        facts = [re.sub(r"^\[[^\]]*\]\s*", "", line).strip() for line in block.splitlines() if line.strip()]
        return "; ".join(facts) or "nothing known"

    def _monologue(self, prompt: str) -> str:
        question = _question(prompt)
        said = prompt.split("Conversation with the world model so far:", 1)[-1].split("If you still miss", 1)[0]
        answer = self._known(question, said)
        if answer:
            return json.dumps({"thought": "the world model told me", "sub_question": "", "direct_answer": answer})
        asked = re.findall(r"^Q: (.*)$", said, re.M)
        follow = _next_entity(question, said, asked)
        sub_question = question if not asked else f"What is known about {follow}?" if follow else ""
        return json.dumps({"thought": "I miss a fact", "sub_question": sub_question,
                           "direct_answer": "" if sub_question else "Unknown"})

    # -- summarizing (the summary and STMA methods) ------------------------------------------------
    def _summary(self, prompt: str) -> str:
        previous = prompt.split("Your summary so far:", 1)[-1].split("New paragraph:", 1)[0].strip()
        _, text = _titled(prompt.split("New paragraph:", 1)[-1].split("Rewrite your summary", 1)[0])
        limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", prompt)) else 150
        sentences = ([] if previous.startswith("(") else _sentences(previous)) + _sentences(text)[:2]
        while len(sentences) > 1 and sum(len(x.split()) for x in sentences) > limit:
            sentences.pop(0)
        return " ".join(sentences)

    def _stma_summary(self, prompt: str) -> str:
        block = prompt.split("**Trajectory:**", 1)[-1]
        observations = re.findall(r"Observation:\n(.*?)\n(?:Action|FeedBack):", block, re.S)
        return " ".join(s for o in observations for s in _sentences(_titled(o)[1])[:2])

    def _stma_relations(self, prompt: str) -> str:
        paragraph = prompt.rsplit("Paragraph:", 1)[-1].rsplit("Entity:", 1)[0]
        rows = [json.dumps(list(t)) for t in paragraph_triples("", paragraph)]
        return "```\n[\n" + ",\n".join(rows) + "\n]\n```"

    def _stma_aggregate(self, prompt: str) -> str:
        given = prompt.rsplit("**Input:**", 1)[-1]
        rows = re.findall(r'\[\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*"([^"]+)"\s*\]', given)
        return " ".join(f"{s} {r} {o}." for s, r, o in rows) or "Nothing is known."

    # -- answering ---------------------------------------------------------------------------------
    def _answer(self, prompt: str) -> str:
        question = _question(prompt)
        answer = self._known(question, prompt.replace(question, " "))
        if not answer:
            return json.dumps({"chain_of_thought": "the context does not say", "direct_answer": "Unknown"})
        return json.dumps({"chain_of_thought": f"the context says {answer}", "direct_answer": answer})

    def _known(self, question: str, context: str) -> str:
        """The question's first gold answer or alias the context holds ("" when none does)."""
        text = f" {normalize_answer(context)} "
        for answer in self.answers.get(normalize_answer(question), ()):
            if f" {normalize_answer(answer)} " in text:
                return answer
        return ""


def _next_entity(question: str, said: str, asked: list[str]) -> str:
    """The chain's next entity: an object of a fact (``a, relation, b`` in the world model's
    answers) whose subject the question or an earlier sub-question names, not asked about yet."""
    named = normalize_answer(" ".join([question, *asked]))
    facts = [[part.strip() for part in fact.split(",")] for fact in re.split(r"[;\n]", said)]
    for fact in facts:
        if len(fact) == 3 and fact[0] and fact[0] in named and not fact[2].isdigit() and fact[2] not in named:
            return fact[2]
    return ""


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _titled(paragraph: str) -> tuple[str, str]:
    """``(title, text)`` of a paragraph shown as ``title: text``."""
    first = paragraph.strip().split("\n", 1)[0]
    title, sep, text = first.partition(": ")
    return (title, text) if sep and len(title.split()) <= 6 else ("", first)


def _question(prompt: str) -> str:
    match = _QUESTION.search(prompt)
    return match.group(1) if match else ""


__all__ = ["KINDS", "ContextReader", "paragraph_triples", "prompt_kind"]
