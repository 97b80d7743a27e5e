"""RLlib PPO on a real two-node Ray cluster: runners on both nodes, a killed runner restarted, a full run.

The cluster is two ``ray start`` processes on this machine (a head and a second node, one CPU each,
so the two env runners must land on different nodes), with Ray's temp files in the test's tmp dir.
Each ``ray start`` runs in its own session, so teardown stops exactly the processes it started (by
session id) and checks that none survives, even when a test fails. Run with ``make test-cluster``
(marked ``cluster``: left out of ``make test``; 2 min at load 5, 5.3 min at load 20 on 2 cores).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from baselines_rl.callbacks import read_csv  # noqa: E402
from baselines_rl.rllib_ppo import RLlibPPOArgs, build_config  # noqa: E402
from baselines_rl.storage import evaluate_model, load_model  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.cluster]

L1 = "TextMem/CookingRL-L1-v0"
#: A tiny run: 2 runners x 32 steps per update, 10-step episodes, a small DRRN.
TINY = ["--env-id", L1, "--n-envs", "2", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1",
        "--max-episode-steps", "10", "--embedding-dim", "8", "--hidden-dim", "16", "--no-progress"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _session_processes(sessions: set[int]) -> list[int]:
    """Pids of live processes in the given session ids (what our ``ray start`` calls spawned)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getsid(int(entry.name)) in sessions and "(Z)" not in (entry / "stat").read_text()[:80]:
                    pids.append(int(entry.name))
            except (ProcessLookupError, PermissionError, FileNotFoundError):
                continue
    return pids


def _stop(sessions: set[int]) -> list[int]:
    """SIGTERM then SIGKILL every process of ``sessions``; returns the survivors (should be none)."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for pid in _session_processes(sessions):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while _session_processes(sessions) and time.monotonic() < deadline:
            time.sleep(0.2)
    return _session_processes(sessions)


def _ray_start(args: list[str], env: dict[str, str], sessions: set[int]) -> None:
    process = subprocess.Popen([str(Path(sys.executable).parent / "ray"), "start", *args,
                                "--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"],
                               env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    sessions.add(process.pid)  # the session's id is its first process's pid
    output, _ = process.communicate(timeout=300)
    assert process.returncode == 0, output


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: Any) -> Iterator[str]:
    """A head and a second node (one CPU each); yields the head's address; stops both afterwards."""
    temp_dir = tmp_path_factory.mktemp("ray")  # short: Ray's socket paths must stay under 107 bytes
    address = f"127.0.0.1:{_free_port()}"
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    saved = {key: os.environ.get(key) for key in ("RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update({"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"})  # this driver too
    sessions: set[int] = set()
    try:
        _ray_start(["--head", f"--port={address.split(':')[1]}", f"--temp-dir={temp_dir}",
                    "--include-dashboard=false", f"--ray-client-server-port={_free_port()}",
                    f"--dashboard-agent-listen-port={_free_port()}"], env, sessions)
        _ray_start([f"--address={address}", f"--dashboard-agent-listen-port={_free_port()}"], env, sessions)
        yield address
    finally:
        ray.shutdown()
        survivors = _stop(sessions)
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)
        assert not survivors, f"Ray processes left running: {survivors}"
    assert any(temp_dir.iterdir()), "Ray's temp files should be in the test's tmp dir"


def _runners(algo: Any) -> list[tuple[str, int]]:
    """``(node id, pid)`` of every healthy remote env runner."""
    return sorted(algo.env_runner_group.foreach_env_runner(
        lambda runner: (ray.get_runtime_context().get_node_id(), os.getpid()), local_env_runner=False))


def test_runners_on_both_nodes_and_a_killed_runner_is_restarted(cluster: str, tmp_path: Path) -> None:
    import tyro
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from ray.tune.registry import register_env

    from baselines_rl.rllib_module import ENV_NAME, make_rllib_env

    args = tyro.cli(RLlibPPOArgs, args=[*TINY, "--out-dir", str(tmp_path)])
    ray.init(address=cluster, log_to_driver=False)
    register_env(ENV_NAME, make_rllib_env)
    nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(nodes) == 2
    algo = build_config(args, args.env_spec()).build_algo()
    try:
        steps = [int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])]
        before = _runners(algo)
        assert {node for node, _ in before} == nodes  # one runner on each node
        os.kill(before[0][1], signal.SIGKILL)  # a runner's process dies mid-training
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            steps.append(int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME]))
            if len(steps) >= 3 and algo.env_runner_group.num_healthy_remote_workers() == 2:
                break
        after = _runners(algo)
    finally:
        algo.stop()
        ray.shutdown()
    assert steps == sorted(steps) and steps[-1] > steps[0], steps  # training went on
    assert len(after) == 2 and before[0][1] not in {pid for _, pid in after}, (before, after)  # restarted


def test_script_trains_on_the_cluster_and_writes_the_run(cluster: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    # The command as a user types it (its own process: one Ray job, as on a real cluster).
    done = subprocess.run([sys.executable, "-m", "baselines_rl.rllib_ppo", *TINY, "--address", cluster,
                           "--total-timesteps", "128", "--eval-freq", "64", "--eval-episodes", "1",
                           "--out-dir", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(f"saved {out / 'checkpoint'}")
    evals = read_csv(out / "eval.csv")
    assert [row["timesteps"] for row in evals] == [64.0, 128.0]
    assert all(0.0 <= row["mean_normalized_score"] <= 1.0 for row in evals)
    episodes = read_csv(out / "episodes.csv")
    assert episodes and all(1 <= row["steps"] <= 10 for row in episodes)
    assert {row["env"] for row in episodes} == {1.0, 2.0}  # both runners reported episodes
    assert (out / "checkpoint" / "textmem.json").is_file() and (out / "checkpoint" / "rllib_checkpoint.json").is_file()
    model, algorithm, spec = load_model(out / "checkpoint")  # what rl:PATH loads for textmem-gym eval
    assert algorithm == "rllib_ppo" and spec.env_id == L1
    [episode] = evaluate_model(model, spec, episodes=1)
    assert 1 <= episode["steps"] <= 10 and episode["invalid_actions"] == 0
