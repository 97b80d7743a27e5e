"""The QA methods, one module per family (found by name through the entry-point group
``textmem_gym.qa_methods``: :data:`textmem_gym.qa.api.QA_METHODS`).

- :mod:`.context`: ``bm25``, ``embedding`` (top-k paragraphs), ``full-context``, ``gold``;
- :mod:`.arigraph`: ``arigraph`` (AriGraph QA over the games' AriGraphMemory);
- :mod:`.davis`: ``davis`` (DAVIS world-model QA: temporal KG and inner monologue);
- :mod:`.memories`: ``stma`` (STMA's spatio-temporal memory), ``summary`` (a running LLM summary);
- :mod:`.base`: what they share (LLM calls, answer prompt, accounting).
"""
