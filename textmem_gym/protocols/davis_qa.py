"""DAVIS's world-model QA protocol (section 4.4, Table 3).

400 random questions of HotpotQA distractor dev and of MuSiQue answerable dev, "following the
evaluation protocol of Li et al. (2024)" (GraphReader); the generator is not published, so the
sample is ``RandomState(42).permutation(n)[:400]`` (its first 200 are AriGraph's: see
:mod:`textmem_gym.qa.sampling`). Our methods: DAVIS QA (temporal KG built from the paragraphs,
inner-monologue retrieval, graph QA), beside full context (the table's plain GPT-4o and
GPT-4-turbo rows read the documents) and AriGraph QA (the table has no AriGraph row; it shows
what the other graph memory does on the same sample, with AriGraph's settings).

Any memory runs beside them, with or without a model, as in AriGraph's protocol
(:mod:`textmem_gym.protocols.arigraph_qa`): ``--method memory:NAME``, ``--recall-only``.

Example:
    >>> PROTOCOL.datasets, PROTOCOL.method_rows["davis"]
    (('hotpotqa', 'musique'), ('DAVIS (GPT-4o)', 'DAVIS (GPT-4-turbo)'))
"""

from __future__ import annotations

from textmem_gym.protocols.arigraph_qa import ARIGRAPH_OPTIONS
from textmem_gym.qa.run import QAProtocol

PROTOCOL = QAProtocol(
    name="davis-qa",
    title="DAVIS, Table 3: world-model multi-hop QA, 400 questions of HotpotQA and of MuSiQue",
    sampling="davis",
    datasets=("hotpotqa", "musique"),
    methods=("full-context", "arigraph", "davis"),
    method_rows={"davis": ("DAVIS (GPT-4o)", "DAVIS (GPT-4-turbo)"), "full-context": ("GPT-4o", "GPT-4-turbo")},
    shown_rows=("GraphReader (GPT-4)", "HOLMES (GPT-4)", "GraphRAG (GPT-4o-mini)"),
    method_options={"davis": {"turns": 3, "hops": 1}, "arigraph": ARIGRAPH_OPTIONS},
)
