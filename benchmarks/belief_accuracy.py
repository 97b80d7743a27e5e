"""Belief accuracy of AriGraph memory extractors against privileged ground truth.

For every TextWorld-backed TextMem id (cooking, treasure hunt, cleaning), several game
instances and two kinds of episodes (the walkthrough, and random exploration with admissible
commands), the memory is updated by each extractor on the same trajectory and scored per
step (precision / recall / F1 of believed triples vs the ground truth restricted to what the
agent observed; see textmem_gym.memory.ground_truth for the predicate table). Totals are
micro-averaged over steps, overall and per relation class.

Targets: rules precision >= 0.98 and recall >= 0.95; oracle should be 1.0. The ``llm``
extractor runs when an LLM is configured (``OPENAI_MODEL``, ``OPENAI_BASE_URL``...), on the
first ``--llm-episodes`` episodes only.

Run: python benchmarks/belief_accuracy.py [--game-seeds default,1,2] [--random-steps 60]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
import zlib
from collections import defaultdict

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.registration import ENV_IDS
from textmem_gym.envs.textworld.ids import TEXTWORLD_ENTRY
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.belief_metrics import BeliefAccuracy, Counts
from textmem_gym.memory.ground_truth import RELATION_CLASSES

CLASSES = (*RELATION_CLASSES, "overall")


def textworld_ids() -> list[str]:
    """Registered ids backed by TextWorld that need no user file."""
    return [i for i, e in ENV_IDS.items() if e.entry_point == TEXTWORLD_ENTRY and not e.needs]


def trajectory(env: gym.Env, kind: str, steps: int, seed: int):
    """Yields ``(action, observation, info)`` from the reset on, for one episode."""
    observation, info = env.reset(seed=0)
    yield "", observation, info
    rng = random.Random(seed)
    plan = list(info["walkthrough"]) if kind == "walkthrough" else []
    for _ in range(len(plan) if plan else steps):
        action = plan.pop(0) if plan else rng.choice(sorted(info["admissible_commands"]))
        observation, _, terminated, truncated, info = env.step(action)
        yield action, observation, info
        if terminated or truncated:
            return


def run_episode(env: gym.Env, kind: str, steps: int, seed: int,
                extractors: dict[str, dict]) -> dict[str, BeliefAccuracy]:
    memories = {name: AriGraphMemory(extractor=name, extractor_options=options) for name, options in extractors.items()}
    metrics = {name: BeliefAccuracy() for name in extractors}
    for action, observation, info in trajectory(env, kind, steps, seed):
        for name, memory in memories.items():
            memory.update(observation, action, info)
            metrics[name].step(info["facts"], action, memory.believed_triples(), observation)
    return metrics


def llm_extractors(limit: int) -> dict[str, dict]:
    if not os.environ.get("OPENAI_MODEL") or limit <= 0:
        return {}
    from textmem_gym.llm import LLMClient

    return {"llm": {"client": LLMClient(cache="readwrite")}}


def fmt(c: Counts) -> str:
    return f"{c.precision:6.4f}/{c.recall:6.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ids", default=",".join(textworld_ids()))
    parser.add_argument("--game-seeds", default="default,1,2", help="'default' = the id's own instance")
    parser.add_argument("--random-steps", type=int, default=60)
    parser.add_argument("--llm-episodes", type=int, default=4)
    parser.add_argument("--json", help="write the totals here")
    args = parser.parse_args()
    totals: dict[str, dict[str, Counts]] = defaultdict(lambda: {c: Counts() for c in CLASSES})
    per_env: dict[tuple[str, str], dict[str, Counts]] = defaultdict(lambda: {c: Counts() for c in CLASSES})
    llm = llm_extractors(args.llm_episodes)
    llm_left, episodes, steps, start = args.llm_episodes, 0, 0, time.time()
    for env_id in args.ids.split(","):
        for seed_text in args.game_seeds.split(","):
            kwargs = {} if seed_text == "default" else {"game_seed": int(seed_text)}
            env = gym.make(env_id, privileged=True, max_episode_steps=10_000, **kwargs)
            for kind in ("walkthrough", "random"):
                extractors: dict[str, dict] = {"rules": {}, "oracle": {}}
                if llm and llm_left > 0:
                    extractors.update(llm)
                    llm_left -= 1
                episode_seed = zlib.crc32(f"{env_id}/{seed_text}".encode())
                metrics = run_episode(env, kind, args.random_steps, episode_seed, extractors)
                episodes += 1
                for name, metric in metrics.items():
                    steps += metric.steps if name == "rules" else 0
                    for cls in CLASSES:
                        totals[name][cls] += metric.totals[cls]
                        per_env[(env_id, name)][cls] += metric.totals[cls]
            env.close()
        print(f"{env_id:32s} rules P/R overall {fmt(per_env[(env_id, 'rules')]['overall'])}  "
              f"oracle {fmt(per_env[(env_id, 'oracle')]['overall'])}", flush=True)
    print(f"\n{episodes} episodes, {steps} scored steps, {time.time() - start:.0f} s")
    print(f"{'extractor':10s}" + "".join(f"{c + ' P/R':>18s}" for c in CLASSES) + "   overall TP/FP/FN")
    for name, counts in totals.items():
        total = counts["overall"]
        cells = "".join(f"{fmt(counts[c]):>18s}" for c in CLASSES)
        print(f"{name:10s}{cells}   {total.tp}/{total.fp}/{total.fn}")
    rules = totals["rules"]["overall"]
    ok = rules.precision >= 0.98 and rules.recall >= 0.95
    print(f"rules target (precision >= 0.98, recall >= 0.95): {'OK' if ok else 'MISSED'}; "
          f"oracle overall F1 {totals['oracle']['overall'].f1:.3f}" + ("" if llm else "; llm: not configured"))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({n: {c: v.as_dict() for c, v in t.items()} for n, t in totals.items()}, handle, indent=1)


if __name__ == "__main__":
    main()
