"""Benchmark: parallel and distributed evaluation of an LLM-bound policy, and its fault tolerance.

A policy makes one chat call per step to a :class:`~textmem_gym.llm.LocalOpenAIServer` (run in
its own process) that answers after a fixed latency (500 ms);
``--episodes`` episodes of ``--steps`` steps on ``TextMem/CookingRL-L1-v0``. Printed side by side:

1. ``--workers 16`` vs ``--workers 1`` (local processes): speed-up in episodes per second
   (target >= 12x on 2 cores). The one-worker run plays ``--serial-episodes`` of the episodes
   (its throughput is steady; pass ``--serial-episodes 64`` to time all of them).
2. The Ray backend on a local Ray instance with 16 CPUs vs the local pool: throughput ratio
   (target >= 0.8x), once with fresh Ray workers (they import the env backends on their first
   task) and once warm; Ray's own start-up time is printed apart.
3. ``textmem-gym eval --workers 16 --out F`` killed with SIGKILL mid-run, then run again:
   episodes lost / written twice (target 0 / 0), and worker processes left behind by the kill.
4. One worker process killed with SIGKILL mid-episode: its episode is played again; episodes
   lost / written twice (target 0 / 0) and the LLM calls the re-run repeated.

Both the one-worker and the parallel runs are measured warm (a one-step evaluation first imports
the env backend in this process).

Run (about 4 minutes with the defaults, when the machine is otherwise idle):
    python benchmarks/eval_scaling.py [--episodes 64] [--steps 10] [--latency 0.5] [--workers 16]
                                      [--serial-episodes 16] [--skip-ray]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, ClassVar

import textmem_gym
from policies import BasePolicy
from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.results import ResultsFile, episode_key

ENV = "TextMem/CookingRL-L1-v0"
POLICY = "eval_scaling:OneCallPolicy"
HERE = Path(__file__).resolve().parent
TARGET_SPEEDUP, TARGET_RAY = 12.0, 0.8


class OneCallPolicy(BasePolicy):
    """One chat call per step (the answer is ignored); plays a seeded random admissible command."""

    name: ClassVar[str] = "one-call"

    def __init__(self, base_url: str, concurrency: int = 16) -> None:
        self.client = LLMClient(model="bench", base_url=base_url, api_key="unused", concurrency=concurrency,
                                max_retries=3, backoff_base=0.05)
        self.rng = random.Random(0)

    def seed(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        self.client.chat([{"role": "user", "content": f"{observation}\nWhat do you do?"}], max_tokens=8)
        return self.rng.choice(sorted(info["admissible_commands"]))


def serve(latency: float, conn: Connection) -> None:
    """Child process: runs the server, sends its URL, then answers ``"calls"`` with its request count."""
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (the tracebacks of connections reset by killed workers)
    with LocalOpenAIServer(latency=latency) as server:
        conn.send(server.base_url)
        while conn.recv() == "calls":
            conn.send(server.calls)


class Server:
    """The LLM server in its own process (in-process, its threads would compete for the GIL)."""

    def __init__(self, latency: float) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("fork").Process(target=serve, args=(latency, child), daemon=True)
        self.process.start()
        self.base_url: str = self.conn.recv()

    def calls(self) -> int:
        """Requests answered so far."""
        self.conn.send("calls")
        calls: int = self.conn.recv()
        return calls

    def stop(self) -> None:
        self.conn.send("stop")
        self.process.join(timeout=10)


def timed(args: argparse.Namespace, base_url: str, episodes: int, **kwargs: Any) -> float:
    """Episodes per second of one evaluation (no results file)."""
    started = time.perf_counter()
    config = textmem_gym.EvalConfig(episodes=episodes, max_steps=args.steps, policy_kwargs={"base_url": base_url},
                                    max_concurrent_requests=args.workers, **kwargs)
    results = textmem_gym.evaluate(ENV, POLICY, config)
    elapsed = time.perf_counter() - started
    assert len(results) == episodes
    return episodes / elapsed


def count(out: Path, planned: int) -> tuple[int, int]:
    """Episodes lost and episodes written more than once in ``out``."""
    keys = [episode_key(row) for row in ResultsFile(out).read()]
    return planned - len(set(keys)), len(keys) - len(set(keys))


def children(pid: int) -> set[int]:
    """Child process ids of ``pid`` (Linux ``/proc``)."""
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def killed_driver(args: argparse.Namespace, base_url: str, folder: Path) -> None:
    """SIGKILLs ``textmem-gym eval --workers N`` once a third of the episodes are written, then resumes."""
    out = folder / "killed.jsonl"
    command = [sys.executable, "-m", "textmem_gym.cli", "eval", ENV, "--policy", POLICY, "--episodes",
               str(args.episodes), "--max-steps", str(args.steps), "--workers", str(args.workers),
               "--max-concurrent-requests", str(args.workers), "--policy-arg", f"base_url={base_url}",
               "--quiet", "--out", str(out)]
    driver = subprocess.Popen(command, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while len(ResultsFile(out).read()) < args.episodes // 3 and driver.poll() is None:
        time.sleep(0.05)
    workers = children(driver.pid)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    before = len(ResultsFile(out).read())
    time.sleep(1.0)
    stray = sum(alive(pid) for pid in workers)
    subprocess.run(command, cwd=HERE, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lost, twice = count(out, args.episodes)
    print(f"driver SIGKILLed with {before}/{args.episodes} episodes written, then resumed: "
          f"{lost} lost, {twice} written twice (target 0/0); processes left after the kill: {stray}")


def killed_worker(args: argparse.Namespace, server: Server, folder: Path) -> None:
    """SIGKILLs one worker process mid-episode while an evaluation runs in this process."""
    out = folder / "worker.jsonl"
    victims: list[int] = []

    def kill_one() -> None:
        while len(ResultsFile(out).read()) < args.episodes // 4:
            time.sleep(0.05)
        time.sleep(args.steps * args.latency / 2)  # episodes that just started are half-way now
        workers = [p for p in multiprocessing.active_children() if p.name.startswith("local-worker-")]
        if workers and workers[0].pid is not None:
            victims.append(workers[0].pid)
            os.kill(workers[0].pid, signal.SIGKILL)

    calls_before = server.calls()
    killer = threading.Thread(target=kill_one, daemon=True)
    killer.start()
    config = textmem_gym.EvalConfig(episodes=args.episodes, max_steps=args.steps, out=out, workers=args.workers,
                                    policy_kwargs={"base_url": server.base_url},
                                    max_concurrent_requests=args.workers)
    results = textmem_gym.evaluate(ENV, POLICY, config)
    killer.join(timeout=1)
    lost, twice = count(out, args.episodes)
    repeated = server.calls() - calls_before - sum(r["steps"] for r in results)  # one call per step
    print(f"worker {victims or '(none found)'} SIGKILLed mid-episode: {lost} lost, {twice} written twice "
          f"(target 0/0); LLM calls played again by the re-run: {repeated}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--serial-episodes", type=int, default=16, help="episodes of the one-worker run")
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    server = Server(args.latency)
    base_url = server.base_url
    try:
        # imports the env backend: both runs measured warm
        textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(max_steps=1))
        print(f"{ENV}: {args.episodes} episodes x {args.steps} steps, one LLM call per step, "
              f"{args.latency * 1000:.0f} ms latency, {os.cpu_count()} CPUs")
        serial = timed(args, base_url, args.serial_episodes)
        pool = timed(args, base_url, args.episodes, workers=args.workers)
        print(f"local: workers 1 {serial:.3f} episodes/s ({args.serial_episodes} episodes) | workers {args.workers} "
              f"{pool:.3f} episodes/s | speed-up {pool / serial:.1f}x (target >= {TARGET_SPEEDUP:.0f}x)")
        if not args.skip_ray:
            import ray

            started = time.perf_counter()
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            print(f"ray: local instance with {args.workers} CPUs started in {time.perf_counter() - started:.1f}s")
            cold = timed(args, base_url, args.episodes, workers=args.workers, backend="ray")
            warm = timed(args, base_url, args.episodes, workers=args.workers, backend="ray")
            ray.shutdown()
            print(f"ray: fresh workers {cold:.3f} episodes/s ({cold / pool:.2f}x the local pool) | warm workers "
                  f"{warm:.3f} episodes/s ({warm / pool:.2f}x; target >= {TARGET_RAY}x)")
        with tempfile.TemporaryDirectory() as folder:
            killed_driver(args, base_url, Path(folder))
            killed_worker(args, server, Path(folder))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
