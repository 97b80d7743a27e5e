"""Multi-hop QA costs, measured side by side in one run: graph build time per paragraph and
retrieval latency as the document set grows (10, 100, 1,000 paragraphs), and prompt tokens per
question of every QA method (AriGraph QA against full context above all: the paper's argument
for graph memory is its cost).

The model is the rule-driven stand-in (:class:`textmem_gym.qa.testing.ContextReader`) behind the
real local OpenAI-compatible server, so timings are the library's own work plus one local HTTP
round trip per call, and token counts are the server's (one token per whitespace-separated word;
BPE tokenizers count ~1.3 per English word, the same factor for every method, so ratios hold).

1. **Tokens per question on the shipped set**: every method over the shipped questions
   (``--questions`` of each dataset), prompt tokens per question split into building (the
   memory's extraction) and answering (key items, monologue, the answer prompt).
   Target: AriGraph QA answering prompt tokens <= 1/3 of full context's.
   1b. The same answering prompts counted with SmolLM2's tokenizer (llama-cpp-python, vocabulary
   only, when installed), AriGraph's split into key-items prompt, template, facts and texts.
2. **Growing document sets**: one shipped question with its paragraphs plus distractors (shipped
   paragraphs of other questions, renamed copies once they run out) up to N paragraphs: AriGraph
   build time per paragraph, retrieval latency (Algorithm 1 from the key items) and BM25 top-3
   latency, and prompt tokens of AriGraph QA (answering) against full context at each N.

Run: python benchmarks/qa.py [--questions 36] [--sizes 10 100 1000]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.memory.retrieval import BM25Index  # noqa: E402
from textmem_gym.qa.api import make_method  # noqa: E402
from textmem_gym.qa.data import Paragraph, QAExample, load_dataset, shipped_data_dir  # noqa: E402
from textmem_gym.qa.methods.arigraph import AriGraphQA  # noqa: E402
from textmem_gym.qa.methods.base import paragraph_text  # noqa: E402
from textmem_gym.qa.run import MethodSpec, run_methods, summarize_qa  # noqa: E402
from textmem_gym.qa.testing import ContextReader  # noqa: E402

METHODS = ("bm25", "embedding", "full-context", "gold", "arigraph", "davis", "stma", "summary")


def shipped(questions: int) -> list[QAExample]:
    """The first ``questions`` shipped questions of each dataset."""
    return [ex for name in ("hotpotqa", "musique") for ex in load_dataset(name, shipped_data_dir())[:questions]]


def tokens_table(examples: list[QAExample], url: str) -> None:
    """Part 1: prompt tokens per question of every method, and the target's ratio."""
    rows = run_methods(examples, [MethodSpec(m, {"model": "stand-in", "base_url": url}) for m in METHODS], workers=2)
    summaries = summarize_qa(rows)
    print(f"\n## Prompt tokens per question on the shipped set ({len(examples)} questions per method)\n")
    print("| dataset | method | EM (stand-in) | prompt tokens/q | building | answering | answering / full context |")
    print("|---|---|---|---|---|---|---|")
    full = {s["dataset"]: s["answer_prompt_tokens"] for s in summaries if s["method"] == "full-context"}
    for s in summaries:
        ratio = s["answer_prompt_tokens"] / full[s["dataset"]]
        print(f"| {s['dataset']} | {s['method']} | {s['em']:.1f} | {s['prompt_tokens']:.0f} | "
              f"{s['build_prompt_tokens']:.0f} | {s['answer_prompt_tokens']:.0f} | {ratio:.2f} |")
    ari = [s for s in summaries if s["method"] == "arigraph"]
    for s in ari:
        share = s["answer_prompt_tokens"] / full[s["dataset"]]
        print(f"\nTarget (AriGraph QA answering prompt tokens <= 1/3 of full context), {s['dataset']}: "
              f"{share:.2f} -> {'met' if share <= 1 / 3 else 'NOT met'}; with building: "
              f"{s['prompt_tokens'] / full[s['dataset']]:.1f}x full context")


def bpe_table(examples: list[QAExample], reader: ContextReader, url: str) -> None:
    """Part 1b: the answering prompts of AriGraph QA and full context counted with SmolLM2's own
    tokenizer (when llama-cpp-python and the model are installed), and what AriGraph's is made of."""
    from textmem_gym.llm import LocalModelMissingError, smollm2_path

    try:
        import llama_cpp

        tokenizer = llama_cpp.Llama(str(smollm2_path()), vocab_only=True, verbose=False)
    except (ImportError, LocalModelMissingError) as error:  # an optional part: say why it is left out
        print(f"\n(SmolLM2 token counts left out: {error})")
        return

    def count(text: str) -> int:
        return len(tokenizer.tokenize(text.encode(), add_bos=False))

    parts: dict[str, dict[str, list[int]]] = {}
    for example in examples:
        row = parts.setdefault(example.dataset, {k: [] for k in ("items", "template", "facts", "texts", "full")})
        for name in ("arigraph", "full-context"):
            reader.prompts.clear()
            method = make_method(name, model="stand-in", base_url=url)
            try:
                answer = method.answer(example.question, example.paragraphs)
            finally:
                method.close()
            prompt = reader.prompts["qa_answer"][-1]
            if name == "full-context":
                row["full"].append(count(prompt))
                continue
            facts = "; ".join(answer.detail["facts"]) or "none"
            texts = prompt.split("Relevant texts from your memory:\n", 1)[1].split("\n\nAnswer the question", 1)[0]
            row["items"].append(count(reader.prompts["qa_key_items"][-1]))
            row["facts"].append(count(facts))
            row["texts"].append(count(texts))
            row["template"].append(count(prompt) - row["facts"][-1] - row["texts"][-1])
    print("\n## Answering prompt tokens per question, SmolLM2's tokenizer (AriGraph QA's split into its parts)\n")
    print("| dataset | key-items prompt | answer template + question | facts | 2 episodic texts | AriGraph answering "
          "| full context | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for dataset, row in parts.items():
        mean = {k: statistics.fmean(v) for k, v in row.items()}
        ari = mean["items"] + mean["template"] + mean["facts"] + mean["texts"]
        print(f"| {dataset} | {mean['items']:.0f} | {mean['template']:.0f} | {mean['facts']:.0f} | {mean['texts']:.0f} "
              f"| {ari:.0f} | {mean['full']:.0f} | {ari / mean['full']:.2f} |")


def grown(example: QAExample, pool: list[Paragraph], size: int) -> QAExample:
    """``example`` with distractors up to ``size`` paragraphs (renamed copies once ``pool`` runs out)."""
    own = {p.title for p in example.paragraphs}
    others = [p for p in dict.fromkeys(pool) if p.title not in own]
    extra: list[Paragraph] = []
    copy = 0
    while len(example.paragraphs) + len(extra) < size:
        for p in others:
            if len(example.paragraphs) + len(extra) >= size:
                break
            title = p.title if copy == 0 else f"{p.title} {copy + 1}"
            extra.append(replace(p, title=title, text=p.text.replace(p.title, title), is_supporting=False))
        copy += 1
    return replace(example, paragraphs=example.paragraphs + tuple(extra))


def growth_table(examples: list[QAExample], sizes: list[int], url: str) -> None:
    """Part 2: build time, retrieval latency and tokens as the document set grows."""
    example = next(ex for ex in examples if ex.dataset == "hotpotqa" and ex.kind == "bridge")
    pool = [p for ex in examples for p in ex.paragraphs]
    print(f"\n## Growing document sets (question: {example.question!r})\n")
    print("| paragraphs | build ms/paragraph | triples | Algorithm 1 retrieval ms | BM25 top-3 ms | "
          "AriGraph answering tokens | full context tokens | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for size in sizes:
        m = measure(grown(example, pool, size), url)
        print(f"| {m['paragraphs']} | {m['build_ms']:.2f} | {m['triples']} | {m['retrieve_ms']:.2f} | "
              f"{m['bm25_ms']:.2f} | {m['arigraph']} | {m['full']} | {m['arigraph'] / m['full']:.3f} |")


def measure(case: QAExample, url: str) -> dict[str, float]:
    """One document set: AriGraph build and retrieval times, BM25 time, answering tokens of both methods."""
    method = AriGraphQA(model="stand-in", base_url=url)
    try:
        started = time.perf_counter()
        method.build(case.paragraphs)
        build_ms = 1000 * (time.perf_counter() - started) / len(case.paragraphs)
        items = method.key_items(case.question)
        retrieve_ms = _median_ms(functools.partial(method.retrieve, items))
        triples = len(method.memory.believed_triples())
        arigraph = method.answer(case.question, case.paragraphs).tokens.answer_prompt
    finally:
        method.close()
    full = make_method("full-context", model="stand-in", base_url=url)
    try:
        full_tokens = full.answer(case.question, case.paragraphs).tokens.prompt
    finally:
        full.close()
    return {"paragraphs": len(case.paragraphs), "build_ms": build_ms, "triples": triples, "retrieve_ms": retrieve_ms,
            "bm25_ms": _median_ms(functools.partial(_bm25_top3, case)), "arigraph": arigraph, "full": full_tokens}


def _bm25_top3(example: QAExample) -> list[tuple[int, float]]:
    index = BM25Index()
    for i, p in enumerate(example.paragraphs):
        index.add(i, paragraph_text(p))
    return index.search(example.question, 3)


def _median_ms(run: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - started))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=36, help="shipped questions of each dataset (part 1)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000], help="document set sizes (part 2)")
    parser.add_argument("--bpe-only", action="store_true", help="only part 1b (SmolLM2 token counts)")
    args = parser.parse_args()
    examples = shipped(args.questions)
    every = [ex for name in ("hotpotqa", "musique") for ex in load_dataset(name, shipped_data_dir())]
    reader = ContextReader(every)
    with LocalOpenAIServer(reader) as server:
        print("Model: the rule-driven stand-in (textmem_gym.qa.testing.ContextReader) behind the local server; "
              "tokens are the server's (words).")
        if not args.bpe_only:
            tokens_table(examples, server.base_url)
        bpe_table(examples, reader, server.base_url)
        if not args.bpe_only:
            growth_table(every, args.sizes, server.base_url)


if __name__ == "__main__":
    main()
