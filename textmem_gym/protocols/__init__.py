"""The papers' evaluation protocols, with their published numbers stored as data.

A :class:`Protocol` says what a paper ran: which games (one :class:`Cell` per column of its
table), how many instances and attempts, the step limit and how steps are counted, and how
attempts are aggregated (AriGraph: the mean of the best 3 of 5). Its published numbers live in
``protocols/data/<name>.json`` with their source (paper, table or figure) and are read by
:func:`published`. :func:`textmem_gym.protocols.run.run_protocol` plays a protocol through
:func:`textmem_gym.runner.evaluate`; ``textmem-gym reproduce NAME`` prints its table beside the
paper's. The multi-hop QA protocols (:data:`QA_PROTOCOLS`: ``arigraph-qa``, ``davis-qa``) are
:class:`~textmem_gym.qa.run.QAProtocol` objects, run by :func:`textmem_gym.qa.run.run_protocol`.

Adding a protocol is one entry of :data:`PROTOCOLS` (``name -> "module:attr"``, loaded on first
use) and, when the paper published numbers, one data file.

Example:
    >>> sorted(PROTOCOLS), sorted(QA_PROTOCOLS)
    (['arigraph', 'arigraph-nethack', 'davis', 'stma', 'tales', 'text-adventure-agent'], ['arigraph-qa', 'davis-qa'])
    >>> protocol = get_protocol("stma")
    >>> [cell.label for cell in protocol.cells], protocol.attempts, protocol.cells[0].max_steps
    (['Level 1', 'Level 2', 'Level 3', 'Level 4'], 1, 50)
    >>> published("stma")["rows"]["STMA(GPT-4o)"]["Level 2"]
    {'success': 75.0, 'score': 91.1, 'std': 15.9}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textmem_gym.loading import load_named
from textmem_gym.protocols.base import Cell, Metric, Protocol

if TYPE_CHECKING:
    from textmem_gym.qa.run import QAProtocol

DATA_DIR = Path(__file__).with_name("data")


#: Protocol name -> ``"module:attr"`` of its :class:`Protocol`.
PROTOCOLS: dict[str, str] = {
    "arigraph": "textmem_gym.protocols.arigraph:PROTOCOL",
    "arigraph-nethack": "textmem_gym.protocols.arigraph_nethack:PROTOCOL",
    "stma": "textmem_gym.protocols.stma:PROTOCOL",
    "davis": "textmem_gym.protocols.davis:PROTOCOL",
    "text-adventure-agent": "textmem_gym.protocols.text_adventure_agent:PROTOCOL",
    "tales": "textmem_gym.protocols.tales:PROTOCOL",
}

#: Multi-hop QA protocol name -> ``"module:attr"`` of its :class:`~textmem_gym.qa.run.QAProtocol`.
QA_PROTOCOLS: dict[str, str] = {
    "arigraph-qa": "textmem_gym.protocols.arigraph_qa:PROTOCOL",
    "davis-qa": "textmem_gym.protocols.davis_qa:PROTOCOL",
}


def get_protocol(name: str) -> Protocol:
    """The protocol registered as ``name``.

    Raises:
        ValueError: If ``name`` is unknown (the message lists the known protocols).
    """
    protocol = load_named("protocol", name, PROTOCOLS)
    if not isinstance(protocol, Protocol):
        raise TypeError(f"{PROTOCOLS[name]} is not a Protocol")
    return protocol


def get_qa_protocol(name: str) -> QAProtocol:
    """The multi-hop QA protocol registered as ``name`` in :data:`QA_PROTOCOLS`.

    Raises:
        ValueError: If ``name`` is unknown (the message lists the known QA protocols).
    """
    from textmem_gym.qa.run import QAProtocol  # imported here: textmem_gym.qa imports no protocol

    protocol = load_named("QA protocol", name, QA_PROTOCOLS)
    if not isinstance(protocol, QAProtocol):
        raise TypeError(f"{QA_PROTOCOLS[name]} is not a QAProtocol")
    return protocol


def published(name: str) -> dict[str, Any]:
    """The paper's published numbers of protocol ``name``: ``paper``, ``source``, ``metric``,
    ``columns`` and ``rows`` (paper row -> column label -> ``{"score", "std"?, "success"?}`` plus
    the ``published`` keys of the protocol's :class:`Metric` list), in the paper's unit. A
    protocol without a data file has no rows."""
    path = DATA_DIR / f"{name}.json"
    if not path.is_file():
        return {"paper": name, "source": "", "metric": "", "columns": [], "rows": {}}
    return json.loads(path.read_text(encoding="utf-8"))


__all__ = ["DATA_DIR", "PROTOCOLS", "Cell", "Metric", "Protocol", "QA_PROTOCOLS", "get_protocol", "get_qa_protocol",
           "published"]
