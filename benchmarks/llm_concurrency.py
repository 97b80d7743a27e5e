"""Benchmark: concurrent LLM calls against the local server with 200 ms latency.

Runs 64 chat calls at concurrency 1 and at concurrency 16, side by side in one run, and
prints the wall times and the speed-up (target: >= 12x). Both the async path (``achat`` with
``asyncio.gather``) and the sync path (``chat_many`` on threads) are measured. The server runs
in its own process, as a real LLM server would (in-process, its threads would compete with
the client for the GIL and the benchmark would measure that instead).

Run:
    python benchmarks/llm_concurrency.py [--calls 64] [--latency 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

from textmem_gym.llm import LLMClient, LocalOpenAIServer

TARGET_SPEEDUP = 12.0
#: Each client first makes ``concurrency`` untimed calls: SDK setup and opening the pooled
#: keep-alive connections are one-time costs of a run, not what the benchmark measures.
WARM_UP = [{"role": "user", "content": "warm up"}]


def conversations(calls: int) -> list[list[dict[str, str]]]:
    """Distinct one-message prompts."""
    return [[{"role": "user", "content": f"step {i}: what do you do?"}] for i in range(calls)]


def time_async(base_url: str, concurrency: int, calls: int) -> float:
    """Wall time of ``calls`` achat calls gathered under a concurrency limit."""
    client = LLMClient(model="bench", base_url=base_url, concurrency=concurrency, max_retries=0)

    async def run() -> float:
        await asyncio.gather(*(client.achat(WARM_UP) for _ in range(concurrency)))
        started = time.perf_counter()
        results = await asyncio.gather(*(client.achat(messages) for messages in conversations(calls)))
        assert len(results) == calls and all(r.text for r in results)
        return time.perf_counter() - started

    return asyncio.run(run())


def time_threads(base_url: str, concurrency: int, calls: int) -> float:
    """Wall time of ``calls`` chat calls through ``chat_many`` (threads)."""
    client = LLMClient(model="bench", base_url=base_url, concurrency=concurrency, max_retries=0)
    client.chat_many([WARM_UP] * concurrency)
    started = time.perf_counter()
    results = client.chat_many(conversations(calls))
    assert len(results) == calls
    elapsed = time.perf_counter() - started
    client.close()
    return elapsed


def compare(name: str, runner: Callable[[str, int, int], float], base_url: str, args: argparse.Namespace) -> float:
    """Times concurrency 1 once and ``args.concurrency`` ``args.repeats`` times; prints and returns
    the speed-up against the median concurrent time (a ~1 s run is easily disturbed by other load)."""
    serial = runner(base_url, 1, args.calls)
    parallel_runs = [runner(base_url, args.concurrency, args.calls) for _ in range(args.repeats)]
    parallel = statistics.median(parallel_runs)
    ratio = serial / parallel
    runs = ", ".join(f"{t:.2f}" for t in parallel_runs)
    print(f"{name:>7}: concurrency 1 {serial:6.2f}s | concurrency {args.concurrency} median {parallel:5.2f}s "
          f"({runs}) | speed-up {ratio:5.1f}x (target >= {TARGET_SPEEDUP:.0f}x) "
          f"{'OK' if ratio >= TARGET_SPEEDUP else 'BELOW'}")
    return ratio


def serve(latency: float, conn: Connection) -> None:
    """Child process: runs the server, sends its URL, serves until told to stop."""
    with LocalOpenAIServer(latency=latency) as server:
        conn.send(server.base_url)
        conn.recv()
        conn.send(server.max_in_flight)


def main() -> None:
    """Parses arguments and runs both comparisons against one local server process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="concurrent runs (median is used)")
    args = parser.parse_args()
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=serve, args=(args.latency, child), daemon=True)
    process.start()
    base_url = parent.recv()
    print(f"{args.calls} calls, server latency {args.latency * 1000:.0f} ms, server process at {base_url}")
    ratios = [compare("async", time_async, base_url, args), compare("threads", time_threads, base_url, args)]
    parent.send("stop")
    print(f"server max in flight: {parent.recv()}")
    print(f"speed-up ratio (async, concurrency {args.concurrency} vs 1): {ratios[0]:.1f}x; "
          f"(threads): {ratios[1]:.1f}x")
    process.join(timeout=10)


if __name__ == "__main__":
    main()
