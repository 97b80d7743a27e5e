"""AriGraph's multi-hop QA protocol (section "Multi-hop Q&A", Table 2; costs: Table 3 of Appendix D).

200 random questions of MuSiQue answerable dev and of HotpotQA distractor dev, drawn as the paper's
script does (``RandomState(42).permutation(n)[:200]``, see :mod:`textmem_gym.qa.sampling`). Our
methods and the paper's rows they stand beside: BM25 top-3, embeddings top-3 (the paper: Ada-002),
full context, gold supporting paragraphs (the upper bound) and AriGraph QA (the paper ran GPT-4 and
GPT-4o-mini; we run whichever model ``--model`` names). AriGraph QA's settings are the script's
(:data:`ARIGRAPH_OPTIONS`): 6 triples per hop, 2 episodic vertices, a search depth per key item
equal to its relevance.

Any memory runs beside them as ``--method memory:NAME`` (``memory:bm25``, ``memory:hipporag``,
``memory:package.module:Class``: :mod:`textmem_gym.qa.methods.memory`). With ``--recall-only`` no
model is asked: the methods with a context (``bm25``, ``full-context``, ``gold``, every
``memory:NAME``; ``embedding`` given an endpoint serving embeddings) give answer recall at 256 to
2,048 tokens and supporting-paragraph recall@2 and @5 (:mod:`textmem_gym.qa.recall`), the others
are listed as not run; with a model, the same recall is shown beside EM/F1.

Example:
    >>> PROTOCOL.datasets, PROTOCOL.method_rows["arigraph"]
    (('musique', 'hotpotqa'), ('AriGraph(GPT-4)', 'AriGraph(GPT-4o-mini)'))
"""

from __future__ import annotations

from textmem_gym.qa.run import QAProtocol

#: The options of the ``arigraph`` QA method in AriGraph's script (DAVIS's protocol runs it the same way).
ARIGRAPH_OPTIONS = {"width": 6, "episodes": 2}

PROTOCOL = QAProtocol(
    name="arigraph-qa",
    title="AriGraph (Anokhin et al., 2024), Table 2: multi-hop Q&A, 200 questions of MuSiQue and of HotpotQA",
    sampling="arigraph",
    datasets=("musique", "hotpotqa"),
    methods=("bm25", "embedding", "full-context", "gold", "arigraph"),
    method_rows={"bm25": ("BM25(top-3)",), "embedding": ("Ada-002(top-3)",), "full-context": ("GPT-4 full context",),
                 "gold": ("GPT-4 + supporting facts",), "arigraph": ("AriGraph(GPT-4)", "AriGraph(GPT-4o-mini)")},
    shown_rows=("GraphRAG(GPT-4o-mini)",),
    method_options={"bm25": {"top_k": 3}, "embedding": {"top_k": 3}, "arigraph": ARIGRAPH_OPTIONS},
)
