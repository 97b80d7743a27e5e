"""Deterministic answers to Graphiti's extraction prompts, for the local test server.

Graphiti sends each prompt with a JSON-schema ``response_format``; the server makes any answer valid for
the schema (:func:`textmem_gym.llm.testing.profiles.constrain`), so only the two prompts that build the
graph need real answers here:

- entity extraction (``<TEXT>`` or ``<CURRENT MESSAGE>`` beside ``<ENTITY TYPES>``): every noun phrase after "the", "a" or "an" in the message,
  and the room of a ``-= Room =-`` header;
- fact extraction (``<CURRENT_MESSAGE>`` and ``<ENTITIES>``): each sentence that names two of the
  entities given is a fact from the first to the second.

- node resolution (``<EXISTING ENTITIES>``): an entity is the existing one of the same name;
- edge resolution (``<NEW FACT>``): the same sentence is a duplicate; a new "<thing> is ..." fact
  contradicts an older one about the same thing (so the older one gets an end: the ``history`` part).

- timestamps (``<FACT>``, ``<REFERENCE TIME>``): a fact holds from the reference time (the step).

Every other prompt (summaries) gets ``{}``, which the server fills with the schema's empty
or first values.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

STOP = frozenset("is are was in on from to into with and of at here there by under inside that which you it".split())
PHRASE = re.compile(r"\b(?:the|a|an)\s+([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})", re.I)


def section(prompt: str, tag: str) -> str | None:
    """The text between ``<tag>`` and ``</tag>`` (``None``: no such section)."""
    found = re.search(rf"<{re.escape(tag)}>\n?(.*?)\n?</{re.escape(tag)}>", prompt, re.S)
    return found.group(1).strip() if found else None


def noun_phrases(text: str) -> list[str]:
    """The room of a header and the noun phrases after an article, in order, each once."""
    found = [m.group(1).strip() for m in re.finditer(r"-=\s*(.+?)\s*=-", text)]
    for match in PHRASE.finditer(text):
        words = []
        for word in match.group(1).lower().split():
            if word in STOP:
                break
            words.append(word)
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split at ``.``, ``!``, ``?``, ``|`` and new lines)."""
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+|\n+|\s\|\s", text) if part.strip()]


def entities_answer(message: str) -> dict[str, Any]:
    """Graphiti's ``ExtractedEntities``."""
    return {"extracted_entities": [{"name": name, "entity_type_id": 0, "episode_indices": [0]}
                                   for name in noun_phrases(message)]}


def edges_answer(message: str, entities: list[str]) -> dict[str, Any]:
    """Graphiti's ``ExtractedEdges``: one fact per sentence naming two entities."""
    edges = []
    for sentence in sentences(message):
        lowered = sentence.lower()
        named = sorted((lowered.find(name.lower()), name) for name in entities if name.lower() in lowered)
        if len(named) >= 2:
            (first, source), (second, target) = named[0], named[1]
            between = lowered[first + len(source):second].split()
            relation = "_".join(word.upper() for word in between if word.isalpha()) or "RELATES_TO"
            edges.append({"source_entity_name": source, "target_entity_name": target, "relation_type": relation,
                          "fact": sentence, "episode_indices": [0]})
    return {"edges": edges}


def resolutions_answer(prompt: str) -> dict[str, Any]:
    """Graphiti's ``NodeResolutions``: an entity is a duplicate of an existing one of the same name."""
    existing = {str(e["name"]).lower(): e["candidate_id"] for e in json.loads(section(prompt, "EXISTING ENTITIES") or "[]")}
    return {"entity_resolutions": [
        {"id": entity["id"], "name": entity["name"], "duplicate_candidate_id": existing.get(entity["name"].lower(), -1)}
        for entity in json.loads(section(prompt, "ENTITIES") or "[]")]}


def facts(prompt: str, tag: str) -> list[dict[str, Any]]:
    """A list of ``{"idx", "fact"}`` of the prompt (Graphiti writes some as Python literals)."""
    listed = ast.literal_eval(section(prompt, tag) or "[]")
    return [fact for fact in listed if isinstance(fact, dict)]


def subject(fact: str) -> str | None:
    """The first noun phrase of a fact."""
    phrases = noun_phrases(fact)
    return phrases[0] if phrases else None


def duplicates_answer(prompt: str) -> dict[str, Any]:
    """Graphiti's ``EdgeDuplicate``: the same sentence is a duplicate; a sentence saying where the same
    thing "is" contradicts an older one that did."""
    new = section(prompt, "NEW FACT") or ""
    existing = facts(prompt, "EXISTING FACTS")
    candidates = existing + facts(prompt, "FACT INVALIDATION CANDIDATES")
    states = [fact for fact in candidates if " is " in f" {fact['fact']} " and " is " in f" {new} "]
    return {"duplicate_facts": [fact["idx"] for fact in existing if fact["fact"] == new],
            "contradicted_facts": [fact["idx"] for fact in states
                                   if fact["fact"] != new and subject(fact["fact"]) == subject(new)]}


def graphiti_responder(messages: list[dict[str, Any]]) -> str:
    """Answers one Graphiti request by rule (see the module docstring)."""
    prompt = str(messages[-1]["content"])
    message = section(prompt, "TEXT") or section(prompt, "CURRENT MESSAGE")  # text or message episodes
    if message is not None and "<ENTITY TYPES>" in prompt:
        return json.dumps(entities_answer(message))
    message, listed = section(prompt, "CURRENT_MESSAGE"), section(prompt, "ENTITIES")
    if message is not None and listed is not None and "extract" in prompt.lower() and "fact" in prompt.lower():
        names = [entity["name"] for entity in json.loads(listed or "[]") if isinstance(entity, dict)]
        return json.dumps(edges_answer(message, names))
    if "<EXISTING ENTITIES>" in prompt:
        return json.dumps(resolutions_answer(prompt))
    if "<NEW FACT>" in prompt:
        return json.dumps(duplicates_answer(prompt))
    if "<FACT>" in prompt and "<REFERENCE TIME>" in prompt:  # a present-tense fact holds from the step on
        return json.dumps({"valid_at": section(prompt, "REFERENCE TIME"), "invalid_at": None})
    return "{}"
