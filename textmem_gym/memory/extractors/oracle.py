"""The ``oracle`` extractor: privileged ground truth, FOR ABLATIONS ONLY.

It reads ``info["facts"]`` (the env must be made with ``privileged=True``) and believes
exactly the true triples the agent has observed (see
:class:`~textmem_gym.memory.ground_truth.ObservedTruth`, or the tracker of the text parser an env
backend handed over), so it bounds what a perfect
extractor could give. Nothing it produces may be shown to an agent in a fair comparison.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> facts = [("P", "at", "hall"), ("chest", "at", "hall")]
    >>> OracleExtractor().extract("", "", {"facts": facts}, TripleStore()).triples
    [('chest', 'is at', 'hall')]
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.extractors.base import BaseExtractor, Extraction, TextParser
from textmem_gym.memory.ground_truth import ObservedTruth, Truth
from textmem_gym.memory.semantic import TripleStore


class OracleExtractor(BaseExtractor):
    """Believes the observed ground truth; invalidates whatever stopped being true."""

    privileged = True
    reads_text = False

    def __init__(self) -> None:
        self.truth: Truth = ObservedTruth()

    def reset(self) -> None:
        """New episode."""
        self.truth.reset()

    def use_parser(self, parser: TextParser | None) -> None:
        """Reads the facts as the backend's parser does (its observed truth)."""
        super().use_parser(parser)
        self.truth = ObservedTruth() if parser is None else parser.observed_truth()

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """The observed truth after this step (needs ``info["facts"]``)."""
        if "facts" not in info:
            raise ValueError("the oracle extractor needs privileged facts: make the env with "
                             "gym.make(env_id, privileged=True)")
        truth = self.truth.step(info["facts"], action, observation)
        outdated = [t for t in store.active_keys() if t not in truth]
        return Extraction(sorted(truth), sorted(outdated), self.truth.room)
