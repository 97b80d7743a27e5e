"""Which questions of an official file a protocol asks: the papers' samples, by name.

A protocol draws ``numpy.random.RandomState(seed).permutation(n)[:size]`` over the ``n`` records of
the file as loaded (file order) and asks them in that order. ``limit`` keeps the first ``limit`` of
that sample, so a short run is a prefix of the full one (resumable, comparable).

What is known and what had to be chosen:

``arigraph`` (AriGraph, Table 2: 200 questions of each dataset) -- known exactly. The published
script ``musique_test_big.py`` of github.com/AIRI-Institute/AriGraph (``get_data``) loads every line
of ``musique_ans_v1.0_dev.jsonl`` (or the list in ``hotpot_dev_distractor_v1.json``) into a list in
file order and keeps ``tasks[i] for i in np.random.RandomState(seed=42).permutation(len(tasks))[:200]``,
in permutation order. On the official dev files ``n`` is 2,417 (MuSiQue-Answerable) and 7,405
(HotpotQA distractor). (The published script's HotpotQA branch turns each record into a joined
string before sampling, which does not run as published; only ``n`` matters for the indices, and
it is the number of records either way.)

``davis`` (DAVIS, section 4.4 and Table 3: "400 randomly sampled instances, following the evaluation
protocol of Li et al. (2024)", i.e. GraphReader) -- the size 400 per dataset is known (DAVIS's EM
values 56.25 and 33.8 are multiples of 1/400 up to rounding). Not published: DAVIS's code link is
anonymised, and no GraphReader (arXiv 2406.14550) code or question list was found (searched: its
paper page and public repositories). As we read GraphReader's paper, its HotpotQA and MuSiQue numbers
(the ones AriGraph's and DAVIS's tables copy) come from LongBench's subsets, which hold 200 questions
each (LongBench's task table) -- not checked against the paper's full text here. So no 400-question
list exists to follow. Chosen here: the same generator as AriGraph,
``RandomState(42).permutation(n)[:400]`` over the official dev file, so DAVIS's sample holds
AriGraph's 200 as its first 200 and the two protocols are comparable on their overlap.

Example:
    >>> PROTOCOLS["arigraph"].indices(10)
    [8, 1, 5, 0, 7, 2, 9, 4, 3, 6]
    >>> sample(list("abcdefghij"), "arigraph", limit=3)
    ['i', 'b', 'f']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from textmem_gym.loading import lookup

T = TypeVar("T")


@dataclass(frozen=True)
class SamplingProtocol:
    """A paper's sample of an official file: ``RandomState(seed).permutation(n)[:size]``.

    Attributes:
        name: The protocol's name (a key of :data:`PROTOCOLS`).
        size: How many records the paper asks (all of them when the file is smaller).
        seed: The seed of ``numpy.random.RandomState``.
        known: What the paper or its code says about the sample.
        chosen: What this library had to choose where the paper is silent (empty when nothing).
    """

    name: str
    size: int
    seed: int
    known: str
    chosen: str = ""

    def indices(self, n: int) -> list[int]:
        """The indices of the records asked, in the order asked, for a file of ``n`` records."""
        if n < 0:
            raise ValueError(f"a file has a record count >= 0, got {n}")
        return [int(i) for i in np.random.RandomState(self.seed).permutation(n)[: self.size]]


#: Protocol name -> the sample it asks.
PROTOCOLS: dict[str, SamplingProtocol] = {
    "arigraph": SamplingProtocol(
        name="arigraph", size=200, seed=42,
        known="AriGraph musique_test_big.py get_data: np.random.RandomState(seed=42).permutation(len(tasks))[:200] "
              "over the records in file order"),
    "davis": SamplingProtocol(
        name="davis", size=400, seed=42,
        known="DAVIS section 4.4: 400 randomly sampled instances per dataset, following GraphReader (Li et al. 2024)",
        chosen="seed and generator not published: RandomState(42).permutation(n)[:400] as AriGraph's, "
               "so its first 200 are AriGraph's sample"),
}


def protocol_info(protocol: str | SamplingProtocol) -> SamplingProtocol:
    """The protocol named ``protocol`` (a :class:`SamplingProtocol` is returned as is).

    Raises:
        ValueError: ``protocol`` is not a key of :data:`PROTOCOLS` (the message lists the known ones).
    """
    if isinstance(protocol, SamplingProtocol):
        return protocol
    return lookup("QA sampling protocol", protocol, PROTOCOLS)


def sample(examples: Sequence[T], protocol: str | SamplingProtocol, *, limit: int | None = None) -> list[T]:
    """The records a protocol asks, in the order it asks them.

    Args:
        examples: All records of the official file, in file order (as :func:`~textmem_gym.qa.data.load_dataset`
            returns them).
        protocol: A key of :data:`PROTOCOLS` (``"arigraph"``, ``"davis"``) or a :class:`SamplingProtocol`.
        limit: Keep only the first ``limit`` of the sample (``None``: all of it).

    Raises:
        ValueError: Unknown protocol, or a negative ``limit``.

    Example:
        >>> len(sample(range(7405), "arigraph")), len(sample(range(7405), "davis"))
        (200, 400)
        >>> sample(range(7405), "davis")[:200] == sample(range(7405), "arigraph")
        True
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0 or None, got {limit}")
    chosen = protocol_info(protocol).indices(len(examples))
    return [examples[i] for i in chosen[:limit]]
