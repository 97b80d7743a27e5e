"""Mem0 as a memory, through its own package (``mem0ai``, the ``mem0`` extra).

Each :meth:`Mem0Memory.update` is one ``Memory.add`` of the step (``passage_text``: the action and
the observation, or one QA paragraph) as a user message: mem0 asks the model to extract memories
from it and stores them. :meth:`Mem0Memory.context` is ``Memory.search(question)``: the stored
memories ranked by mem0 (semantic similarity, with its keyword and entity boosts where it can),
fit to the token budget. Mem0 is configured to run locally:

- **vector store**: qdrant in local mode under ``<path>/qdrant-<n>`` (a new folder at each reset;
  ``path``: a directory the caller gives, else a temporary one removed by :meth:`Mem0Memory.close`);
  its history database is ``<path>/history.db``. Nothing goes under the user's home: ``MEM0_DIR``
  (mem0's own folder, read once when mem0 is first imported) is set, unless already set, to a
  temporary folder removed at exit;
- **embeddings**: mem0's ``huggingface`` embedder on the shipped all-MiniLM-L6-v2 model
  (:func:`~textmem_gym.memory.embeddings.minilm_path`), loaded with ``local_files_only``
  (the Hugging Face hub is never asked);
- **LLM**: mem0's ``openai`` provider on an OpenAI-compatible endpoint (``base_url``, ``model``,
  ``api_key``, else ``OPENAI_BASE_URL``, ``OPENAI_MODEL``, ``OPENAI_API_KEY``). Without an endpoint
  and a model the constructor fails at once with one line;
- **telemetry off**: ``MEM0_TELEMETRY=False`` is set before mem0 is imported (if mem0 was imported
  earlier with telemetry on, the constructor refuses to run);
- **no run-time downloads**: mem0 lemmatises and finds entities with spaCy's ``en_core_web_sm`` and
  pip-installs it on first use when spaCy is there without the model. When the model is not
  installed, mem0 is told its spaCy load failed (its module flags ``_load_failed_full`` and
  ``_load_failed_lemma``), so it takes its documented no-spaCy path (plain text for its keyword
  scoring, no entity boosts) instead of downloading. Without ``fastembed`` (not in the extra) mem0's
  qdrant store has no BM25 keyword scoring either: search is then by semantic similarity alone.

Build tokens are the usage the endpoint reports for mem0's calls (read from each response by an
HTTP response hook on the OpenAI client mem0's LLM uses); ``sources`` are the update indices stored as
metadata with each memory (the updates whose extracted memories rank best).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from textmem_gym.llm.client import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.retrieval import passage_text

#: Dimensions of the shipped MiniLM embeddings.
EMBEDDING_DIMS = 384


def _environment() -> None:
    """Telemetry off and mem0's own folder out of the home directory, before mem0 is imported."""
    os.environ["MEM0_TELEMETRY"] = "False"
    if not os.environ.get("MEM0_DIR"):
        home = tempfile.mkdtemp(prefix="textmem-mem0-home-")
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        os.environ["MEM0_DIR"] = home


def _no_spacy_download() -> None:
    """Keeps mem0 from pip-installing spaCy's model at run time (see the module docstring)."""
    if importlib.util.find_spec("spacy") is None:
        return
    import spacy
    from mem0.utils import spacy_models

    if not spacy.util.is_package("en_core_web_sm"):
        spacy_models._load_failed_full = True
        spacy_models._load_failed_lemma = True


class Mem0Memory:
    """Mem0 (``mem0ai``) with a local qdrant store, the shipped MiniLM embeddings and an endpoint.

    Args:
        base_url, model, api_key: The OpenAI-compatible endpoint (default: ``OPENAI_BASE_URL``,
            ``OPENAI_MODEL``, ``OPENAI_API_KEY``).
        path: Directory for mem0's stores (default: a temporary directory, removed by :meth:`close`).
        user_id: The mem0 user the steps are stored under.
        top_k: Memories asked from ``search`` before the budget is applied.
        threshold: mem0's minimum search score.
        max_tokens, temperature: Completion settings of mem0's calls.

    Raises:
        ValueError: No endpoint or no model, given or in the environment (one line).
        ImportError: ``mem0ai`` (or the embeddings) not installed (one line naming the extra).
        RuntimeError: mem0 was imported earlier with telemetry on.
    """

    name = "mem0"

    def __init__(self, *, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 path: str | Path | None = None, user_id: str = "player", top_k: int = 50,
                 threshold: float = 0.1, max_tokens: int = 1024, temperature: float = 0.0) -> None:
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url or not model:
            raise ValueError(f"mem0 needs an OpenAI-compatible endpoint: pass base_url= and model= or set "
                             f"{ENV_BASE_URL} and {ENV_MODEL}")
        if importlib.util.find_spec("mem0") is None:
            raise ImportError("mem0ai is not installed: pip install 'textmem-gym[mem0]'")
        from textmem_gym.memory.embeddings import minilm_path

        self.model_path = minilm_path()
        self.base_url = base_url
        self.model = model
        self.api_key = api_key or os.environ.get(ENV_API_KEY) or "none"
        self._owns_path = path is None
        self.path = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="textmem-mem0-"))
        self.user_id, self.top_k, self.threshold = user_id, top_k, threshold
        self.max_tokens, self.temperature = max_tokens, temperature
        self._usage = {"prompt_tokens": 0, "completion_tokens": 0}
        #: Updates whose extraction failed, by cause (the endpoint's error class, e.g. ``BadRequestError``);
        #: kept across resets, like the tokens spent.
        self.failed_updates: Counter[str] = Counter()
        self._memory: Any = None
        self._collection = 0
        self.reset()

    def config(self) -> dict[str, Any]:
        """The ``Memory.from_config`` dictionary (a new qdrant folder at each :meth:`reset`)."""
        return {
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "textmem", "path": str(self.path / f"qdrant-{self._collection}"),
                "embedding_model_dims": EMBEDDING_DIMS, "on_disk": False}},
            "embedder": {"provider": "huggingface", "config": {
                "model": self.model_path, "embedding_dims": EMBEDDING_DIMS,
                "model_kwargs": {"device": "cpu", "local_files_only": True}}},
            "llm": {"provider": "openai", "config": {
                "model": self.model, "openai_base_url": self.base_url, "api_key": self.api_key,
                "temperature": self.temperature, "max_tokens": self.max_tokens}},
            "history_db_path": str(self.path / "history.db"),
        }

    def _count_usage(self, response: Any) -> None:
        """HTTP response hook: adds the usage a chat completion reports to the build tokens."""
        if not str(response.url).endswith("/chat/completions") or response.status_code != 200:
            return
        response.read()
        usage = json.loads(response.content or b"{}").get("usage") or {}
        self._usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        self._usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)

    def reset(self) -> None:
        """Starts an empty mem0 memory (a new collection; the tokens spent are kept)."""
        _environment()
        from mem0 import Memory
        from mem0.memory import telemetry
        from openai import DefaultHttpxClient, OpenAI

        if telemetry.MEM0_TELEMETRY:
            raise RuntimeError("mem0 was imported with telemetry on; set MEM0_TELEMETRY=False before importing it")
        _no_spacy_download()
        self.close_store()
        self._collection += 1
        from transformers.utils import logging as transformers_logging

        bars = transformers_logging.is_progress_bar_enabled()
        transformers_logging.disable_progress_bar()  # no "Loading weights" bar when mem0 loads the embedder
        try:
            self._memory = Memory.from_config(self.config())
        finally:
            if bars:
                transformers_logging.enable_progress_bar()
        # mem0's openai LLM keeps its OpenAI client in `llm.client`: the same client, with a hook
        # that reads the usage of every answer
        self._memory.llm.client = OpenAI(base_url=self.base_url, api_key=self.api_key,
                                         http_client=DefaultHttpxClient(event_hooks={"response": [self._count_usage]}))
        self.updates = 0

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """``Memory.add`` of the step, with its update index as metadata. A step whose extraction the
        endpoint refuses or botches (a prompt longer than the model's window, an answer mem0 cannot read)
        adds nothing and is counted by cause in :attr:`failed_updates`; a server that cannot be reached
        still raises."""
        from mem0.exceptions import LLMError
        from openai import APIConnectionError

        text = passage_text(observation, action)
        if text:
            try:
                self._memory.add([{"role": "user", "content": text}], user_id=self.user_id,
                                 metadata={"update": self.updates})
            except LLMError as error:
                cause = error.__cause__
                if isinstance(cause, APIConnectionError):
                    raise
                self.failed_updates[type(cause or error).__name__] += 1
        self.updates += 1

    def search(self, question: str) -> list[dict[str, Any]]:
        """mem0's ranked results for ``question`` (``memory``, ``score``, ``metadata``...)."""
        if not question.strip():
            return []
        found = self._memory.search(question, top_k=self.top_k, filters={"user_id": self.user_id},
                                    threshold=self.threshold)
        return list(found.get("results", []))

    def context(self, question: str, budget: int) -> list[str]:
        """The memories mem0 finds for ``question``, best first, within ``budget`` tokens."""
        if budget <= 0:
            return []
        return fit_budget([str(row["memory"]) for row in self.search(question)], budget)

    def sources(self, question: str, k: int) -> list[int]:
        """The updates whose memories rank best for ``question``, best first, at most ``k``."""
        found: list[int] = []
        for row in self.search(question):
            update = (row.get("metadata") or {}).get("update")
            if isinstance(update, int) and update not in found:
                found.append(update)
        return found[:max(k, 0)]

    def build_tokens(self) -> dict[str, int]:
        """Prompt and completion tokens the endpoint reported for mem0's calls."""
        return dict(self._usage)

    def close_store(self) -> None:
        """Closes the current mem0 memory (its store and history database)."""
        if self._memory is not None:
            self._memory.close()
            self._memory.vector_store.client.close()  # local qdrant holds a lock on its folder
            self._memory = None

    def close(self) -> None:
        """Closes mem0 and removes the temporary directory it made (a given ``path`` is kept)."""
        self.close_store()
        if self._owns_path:
            shutil.rmtree(self.path, ignore_errors=True)


__all__ = ["EMBEDDING_DIMS", "Mem0Memory"]
