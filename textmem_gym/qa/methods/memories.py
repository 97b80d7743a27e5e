"""The other memories of the game agents as QA methods: STMA's spatio-temporal memory and a running
LLM summary, each fed the question's paragraphs in file order, each answered with the same
chain-of-thought answer prompt (``prompts/answer_texts.txt``), schema and completion budget as the
paragraph methods, so they differ only in what the model reads.

- ``stma`` (:class:`STMAQA`): the :class:`~textmem_gym.memory.stma.memory.STMAMemory` the STMA
  agent uses, with its LLM steps (appendix D prompts): each paragraph is one update (history
  buffer, summarizer -> temporal belief, relation retriever over the belief -> dynamic KG); the
  question's context is the memory's own ``render(question)``: the temporal belief and the relation
  aggregator's description of the Algorithm 1 subgraph for the question. The memory is the games'
  as it is: its prompts speak of a robot's trajectory and extract spatial relations, so on
  documents it keeps what its summarizer keeps.
- ``summary`` (:class:`SummaryQA`): a running summary rewritten after each paragraph from the
  previous summary and the new paragraph (``prompts/summary.txt``, at most ``words`` words), the
  memory of the papers' "Summary" baselines; the answer prompt reads the final summary.

Both are told the question while they read (the goal a game agent's memory is given from the
first step); AriGraph QA builds its graph without it and meets the question at retrieval. Building
tokens (the memory's updates: ``stma_summary``, ``stma_relations``; ``qa_summary``) are reported
apart from answering tokens (``stma_aggregate``: rendering for the question; ``qa_answer``). A
summary call that fails keeps the previous summary (counted in ``detail["summary_failures"]``);
STMA falls back to its rule summarizer and rule aggregator as in the games (counted in
``detail["memory_llm_failures"]``); neither replaces the answer, which is read as for every method.

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> def reply(messages):
    ...     prompt = messages[-1]["content"]
    ...     if "keep a running summary" in prompt:
    ...         return "Vellmar Island has a lighthouse built by Orsk Glassworks."
    ...     return '{"chain_of_thought": "the summary says so", "direct_answer": "Orsk Glassworks"}'
    >>> with LocalOpenAIServer(reply) as server:
    ...     method = SummaryQA(model="m", base_url=server.base_url)
    ...     docs = ["Vellmar Lighthouse was built by Orsk Glassworks.", "Orsk is a town."]
    ...     answer = method.answer("Who built the lighthouse on Vellmar Island?", docs)
    >>> answer.text, answer.calls_by_kind["qa_summary"], answer.tokens.build_prompt > 0
    ('Orsk Glassworks', 2, True)
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.stma.memory import STMAMemory
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import PROMPTS, Final, LLMQAMethod, paragraph_text, texts_section

#: Prompt kind of the running summary's update (building tokens).
KIND_SUMMARY = "qa_summary"
#: STMA's prompt kinds that build its memory from the paragraphs (its aggregator renders for a question).
STMA_BUILD_KINDS = frozenset({"stma_summary", "stma_relations"})


class STMAQA(LLMQAMethod):
    """STMA QA: paragraphs into an :class:`STMAMemory` (LLM summarizer, relation retriever and
    aggregator), its ``render(question)`` as the answer prompt's context.

    Args:
        history: Records of the history buffer (the paper's 25; a MuSiQue item has 20 paragraphs).
        top_n: Entities of Algorithm 1's semantic filtering.
        hops: ``K`` of its relational expansion.
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.
    """

    name = "stma"
    build_kinds = STMA_BUILD_KINDS

    def __init__(self, *args: Any, history: int = 25, top_n: int = 8, hops: int = 3, **options: Any) -> None:
        super().__init__(*args, **options)
        self.memory = STMAMemory("llm", llm=self.llm.ask, history=history, top_n=top_n, hops=hops)
        self.config.update(history=history, top_n=top_n, hops=hops)

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """Feed every paragraph (the question as the memory's goal), render for the question, answer."""
        self.memory.reset()
        for paragraph in paragraphs:
            self.memory.update(paragraph_text(paragraph), "", {"objective": question})
        temporal = self.memory.temporal_belief or "nothing yet"
        spatial = self.memory.spatial_belief(question)
        texts = texts_section("texts", [f"Temporal belief: {temporal}", f"Spatial belief: {spatial}"])
        final = self.final_answer("answer_texts", question, [texts])
        final.detail.update(triples=len(self.memory.believed_triples()), memory_llm_failures=self.memory.llm_failures,
                            belief_words=len(temporal.split()) + len(spatial.split()))
        return final


class SummaryQA(LLMQAMethod):
    """Summary QA: a running LLM summary of the paragraphs, then the answer prompt over it.

    Args:
        words: Length limit the summary prompt states.
        summary_tokens: Completion limit of each summary update.
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.
    """

    name = "summary"
    build_kinds = frozenset({KIND_SUMMARY})

    def __init__(self, *args: Any, words: int = 150, summary_tokens: int = 320, **options: Any) -> None:
        super().__init__(*args, **options)
        for label, value in (("words", words), ("summary_tokens", summary_tokens)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        self.words, self.summary_tokens = words, summary_tokens
        self.config.update(words=words, summary_tokens=summary_tokens)

    def update(self, question: str, summary: str, paragraph: Paragraph) -> str | None:
        """The summary rewritten with ``paragraph`` (``None`` when the call failed or said nothing)."""
        prompt = PROMPTS.render("summary", question=question, summary=summary or "(nothing read yet)",
                                paragraph=paragraph_text(paragraph), words=str(self.words))
        raw = self.llm.ask(KIND_SUMMARY, prompt, max_tokens=self.summary_tokens)
        text = " ".join((raw or "").split())
        return text or None

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """Summarize paragraph by paragraph, then answer from the summary."""
        summary, failures = "", 0
        for paragraph in paragraphs:
            rewritten = self.update(question, summary, paragraph)
            failures += rewritten is None
            summary = rewritten if rewritten is not None else summary
        final = self.final_answer("answer_texts", question, [texts_section("texts", [summary] if summary else [])])
        final.detail.update(summary=summary, summary_words=len(summary.split()), summary_failures=failures)
        return final


__all__ = ["KIND_SUMMARY", "STMA_BUILD_KINDS", "STMAQA", "SummaryQA"]
