"""The papers' evaluation protocols, with their published numbers stored as data.

A :class:`Protocol` says what a paper ran: which games (one :class:`Cell` per column of its
table), how many instances and attempts, the step limit and how steps are counted, and how
attempts are aggregated (AriGraph: the mean of the best 3 of 5). Its published numbers live in
``protocols/data/<name>.json`` with their source (paper, table or figure) and are read by
:func:`published`. :func:`textmem_gym.protocols.run.run_protocol` plays a protocol through
:func:`textmem_gym.runner.evaluate`; ``textmem-gym reproduce NAME`` prints its table beside the
paper's. The multi-hop QA protocols (:data:`QA_PROTOCOLS`: ``arigraph-qa``, ``davis-qa``) are
:class:`~textmem_gym.qa.run.QAProtocol` objects, run by :func:`textmem_gym.qa.run.run_protocol`.

Protocols are found by name through the entry-point groups ``textmem_gym.protocols`` and
``textmem_gym.qa_protocols`` (``name = "module:attr"``, loaded on first use; :data:`PROTOCOLS` and
:data:`QA_PROTOCOLS` read them): the library declares its own in its ``setup.cfg``, so adding a
protocol, in the library or in another package, is one entry point and, when the paper published
numbers, one data file.

Example:
    >>> from textmem_gym.protocols import PROTOCOLS, QA_PROTOCOLS  # read from the entry points when imported
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

from textmem_gym.loading import declared_targets, load_declared
from textmem_gym.protocols.base import Cell, Metric, Protocol

if TYPE_CHECKING:
    from textmem_gym.qa.run import QAProtocol

DATA_DIR = Path(__file__).with_name("data")


#: The entry-point group of the protocols: name -> ``"module:attr"`` of its :class:`Protocol`.
ENTRY_POINT_GROUP = "textmem_gym.protocols"
#: The entry-point group of the multi-hop QA protocols: name -> ``"module:attr"`` of its
#: :class:`~textmem_gym.qa.run.QAProtocol`.
QA_ENTRY_POINT_GROUP = "textmem_gym.qa_protocols"
#: What each table holds, for errors: module attribute -> (kind, entry-point group).
_TABLES = {"PROTOCOLS": ("protocol", ENTRY_POINT_GROUP), "QA_PROTOCOLS": ("QA protocol", QA_ENTRY_POINT_GROUP)}


def __getattr__(name: str) -> Any:
    """``PROTOCOLS`` and ``QA_PROTOCOLS``: every declared name -> ``"module:attr"``, read from the installed
    packages' metadata when asked for (a package installed since is seen)."""
    if name in _TABLES:
        return declared_targets(*_TABLES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_protocol(name: str) -> Protocol:
    """The protocol declared as ``name`` (or named ``"module:attr"``).

    Raises:
        ValueError: If ``name`` is unknown (the message lists the known protocols).
    """
    protocol = load_declared("protocol", name, ENTRY_POINT_GROUP)
    if not isinstance(protocol, Protocol):
        raise TypeError(f"{declared_targets('protocol', ENTRY_POINT_GROUP).get(name, name)} is not a Protocol")
    return protocol


def get_qa_protocol(name: str) -> QAProtocol:
    """The multi-hop QA protocol declared as ``name`` in :data:`QA_PROTOCOLS` (or named ``"module:attr"``).

    Raises:
        ValueError: If ``name`` is unknown (the message lists the known QA protocols).
    """
    from textmem_gym.qa.run import QAProtocol  # imported here: textmem_gym.qa imports no protocol

    protocol = load_declared("QA protocol", name, QA_ENTRY_POINT_GROUP)
    if not isinstance(protocol, QAProtocol):
        raise TypeError(f"{declared_targets('QA protocol', QA_ENTRY_POINT_GROUP).get(name, name)} is not a QAProtocol")
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


__all__ = ["DATA_DIR", "ENTRY_POINT_GROUP", "QA_ENTRY_POINT_GROUP", "Cell", "Metric", "Protocol", "get_protocol",
           "get_qa_protocol", "published"]
