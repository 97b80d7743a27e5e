"""The ``llm`` extractor: AriGraph's triplet-extraction and outdated-triplet prompts
(appendix E, stored as ``llm_triplets.txt`` and ``llm_outdated.txt``) through
:class:`~textmem_gym.llm.LLMClient`.

The room header and movement (``-= Kitchen =-`` after ``go north``) are still read
deterministically, as the paper's graph agent does for exits ("expert knowledge about what
elements of the semantic graph can represent locations and exits"), so routes and ``go to``
work with LLM extraction too. Relations are mapped to the memory's vocabulary by
:func:`~textmem_gym.memory.arigraph.parse.canonical`.

Example:
    >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
    >>> from textmem_gym.memory.triples import TripleStore
    >>> with LocalOpenAIServer(script=["apple, is on, table"]) as server:
    ...     extractor = LLMExtractor(LLMClient(model="m", base_url=server.base_url))
    ...     extractor.extract("An apple lies on the table.", "look", {}, TripleStore()).triples
    [('apple', 'is on', 'table')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textmem_gym.llm.errors import LLMError
from textmem_gym.memory.arigraph.parse import canonical, parse_replacements, parse_triplets
from textmem_gym.memory.extractors.base import Extraction, exclusive_conflicts
from textmem_gym.memory.extractors.room_text import room_name
from textmem_gym.memory.extractors.rules import move_direction
from textmem_gym.memory.relations import direction_relation
from textmem_gym.memory.spatial import SpatialMap
from textmem_gym.memory.triples import Triple, TripleKey, TripleStore
from textmem_gym.prompts import PromptFolder

#: This package's prompt templates (``prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

REPLACEMENT_MODES = ("llm", "llm+structural", "structural")


class LLMExtractor:
    """Triplet extraction and outdated-triplet detection by an LLM.

    Args:
        client: An :class:`~textmem_gym.llm.LLMClient`; by default one is built from
            ``model``/``base_url``/``api_key`` or the ``OPENAI_*`` environment variables.
        model, base_url, api_key: Used when ``client`` is not given.
        replacement: ``"llm"`` (the paper: the outdated-triplet prompt), ``"llm+structural"``
            (also the deterministic one-location/one-state rule) or ``"structural"`` (no
            second LLM call).
        examples: Recently extracted triples shown as examples in the extraction prompt.
        max_tokens: Completion limit per call.
    """

    def __init__(self, client: Any = None, *, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, replacement: str = "llm", examples: int = 10,
                 max_tokens: int = 512):
        if replacement not in REPLACEMENT_MODES:
            raise ValueError(f"replacement must be one of {REPLACEMENT_MODES}, got {replacement!r}")
        if client is None:
            from textmem_gym.llm import LLMClient

            client = LLMClient(model=model, base_url=base_url, api_key=api_key)
        self.client, self.replacement = client, replacement
        self.examples, self.max_tokens = examples, max_tokens
        self.reset()

    def reset(self) -> None:
        """Forgets the current room and the example triples."""
        self.location: str | None = None
        self._recent: list[TripleKey] = []
        self.failures = 0

    def _ask(self, prompt: str) -> str:
        """The model's answer; ``""`` (counted in ``failures``) when the call failed after its
        retries. Other exceptions are bugs and propagate."""
        try:
            return self.client.chat([{"role": "user", "content": prompt}], max_tokens=self.max_tokens).text or ""
        except LLMError:
            self.failures += 1
            return ""

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Asks the triplet-extraction prompt; adds the movement triple from the header."""
        example = "; ".join(", ".join(t) for t in self._recent[-self.examples:]) or "none yet"
        answer = self._ask(PROMPTS.render("triplets", example=example, observation=observation))
        rooms = set(SpatialMap(store).locations())
        room = room_name(observation)
        if room:
            rooms.add(room)
        triples = [canonical(t, rooms) for t in parse_triplets(answer)]
        direction = move_direction(action)
        if room and self.location and direction and room != self.location:
            triples.append((room, direction_relation(direction), self.location))
        if room:
            self.location = room
        self._recent = (self._recent + triples)[-self.examples:]
        return Extraction(triples=triples, location=self.location)

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """The outdated-triplet prompt over the triples incident to the new ones."""
        if not existing or not new:
            return []
        found = exclusive_conflicts(existing, new) if self.replacement != "llm" else []
        if self.replacement == "structural":
            return found
        prompt = PROMPTS.render("outdated", ex_triplets="; ".join(f'"{t.text()}"' for t in existing),
                      new_triplets="; ".join(f'"{", ".join(t)}"' for t in new))
        by_key = {t.as_tuple(): t for t in existing}
        for old, _ in parse_replacements(self._ask(prompt)):
            triple = by_key.get(old) or by_key.get(canonical(old))
            if triple is not None and triple not in found:
                found.append(triple)
        return found
