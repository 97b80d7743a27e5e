"""The HTML report: written from real results and trajectories, opened in a real headless Chromium."""

from __future__ import annotations

import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from policies import make_policy
from textmem_gym.cli import main
from textmem_gym.report import build_report, load_trajectories, summary_table
from textmem_gym.results import ResultsFile
from textmem_gym.runner import run_episode
from textmem_gym.trajectories import read_trajectory, trajectory_path

GAME = "TextMem/CookingRL-L1-v0"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1280,2000")


def alternating(messages):
    """A model that names ``look`` on even calls and writes nothing readable on odd ones."""
    alternating.calls = getattr(alternating, "calls", 0) + 1
    return '{"reason_for_action": "x", "action_to_take": "look"}' if alternating.calls % 2 else "Hmm."


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A results file and trajectories of explorer and random, two short episodes each, and of react
    through a local model that answers half of its prompts unreadably (so some actions are fallbacks)."""
    from textmem_gym.llm import LocalOpenAIServer

    folder = tmp_path_factory.mktemp("run")
    store = ResultsFile(folder / "results.jsonl")
    with LocalOpenAIServer(responder=alternating) as server:
        for name in ("explorer", "random", "react"):
            for seed in (0, 1):
                meta = {"env_id": GAME, "policy": name, "seed": seed, "episode": seed, "game_seed": None}
                policy = make_policy(name, **({"model": "m", "base_url": server.base_url, "cache": "off",
                                               "structured_output": "off"} if name == "react" else {}))
                env = policy.wrap_env(gym.make(GAME, max_episode_steps=8))
                result = run_episode(env, policy, seed=seed,
                                     trajectory=trajectory_path(folder / "trajectories", {**meta, **result_config(policy)}),
                                     trajectory_header=meta)
                env.close()
                store.append({**result, **meta})
    return folder


def result_config(policy) -> dict:
    return {"policy_config": policy.policy_config()}


def test_report_command_writes_a_self_contained_page(run, capsys):
    output = run / "report.html"
    assert main(["report", str(run / "results.jsonl"), "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "| TextMem/CookingRL-L1-v0 | explorer | 2 |" in printed and str(output.resolve()) in printed
    page = output.read_text()
    assert page.count('<tr><td>TextMem/CookingRL-L1-v0</td>') == 3
    assert 'id="score-vs-step"' in page and 'id="memory-growth"' in page and "data:image/png;base64," in page
    assert "src=\"http" not in page and "href=\"http" not in page and "<script" not in page
    assert "<th>model actions</th>" in page and "<th>fallbacks</th>" in page


def test_summary_table_shows_every_aggregate_the_summary_carries():
    rows = [{"env_id": "E", "policy": "p", "episodes": 5, "score_mean": 0.4, "score_std": 0.1, "success_rate": 0.2,
             "steps_mean": 12.0, "best_3_of_5_mean": 0.55, "model_action_share": 0.875, "cost_usd_mean": 0.0123}]
    table = summary_table(rows)
    assert "0.400 ± 0.100" in table and "best_3_of_5_mean" in table and "0.55" in table
    assert "model_action_share" in table and "0.875" in table and "0.0123" in table


def test_report_without_trajectories_says_how_to_get_them(run):
    rows = [r for r in ResultsFile(run / "results.jsonl").read()]
    page = build_report(rows, [])
    assert "<table" in page and "run with --trajectories DIR" in page and "<svg" not in page


def test_trajectories_are_grouped_by_the_results_key_policy(tmp_path):
    store = ResultsFile(tmp_path / "results.jsonl")
    meta = {"env_id": GAME, "policy": "explorer-nomemory", "seed": 0, "episode": 0, "game_seed": None}
    policy = make_policy("explorer-nomemory")  # its object is named "explorer"
    env = policy.wrap_env(gym.make(GAME, max_episode_steps=4))
    store.append({**run_episode(env, policy, seed=0, trajectory=trajectory_path(tmp_path, meta)), **meta})
    env.close()
    (trajectory,) = load_trajectories(store.read())
    assert trajectory.header["policy"] == "explorer-nomemory" and trajectory.header["memory"] is None


def test_episode_sections_come_from_the_trajectories(run):
    trajectory = read_trajectory(trajectory_path(run / "trajectories", (GAME, "explorer", 0, 0, None)))
    page = build_report(ResultsFile(run / "results.jsonl").read(), [trajectory])
    assert all(step["action"] in page for step in trajectory.steps)
    assert page.count('<details class="episode"') == 1 and "Memory graph at the end" in page


def test_episode_steps_say_whether_the_model_or_a_fallback_chose_each_action(run):
    rows = [r for r in ResultsFile(run / "results.jsonl").read() if r["policy"] == "react"]
    (trajectory, _) = load_trajectories(rows)
    sources = [step.get("action_source") for step in trajectory.steps]
    stats = rows[0]["policy_stats"]
    assert sources.count("model") == round(stats["model_actions"] * stats["env_actions"])
    assert sorted(s for s in sources if s != "model") == sorted(
        cause for cause, n in stats["fallbacks"].items() for _ in range(n))
    page = build_report(rows, [trajectory])
    assert "<th>action from</th>" in page and page.count('class="source model">model<') == sources.count("model")
    assert page.count('class="source fallback"') == len(sources) - sources.count("model") > 0


@pytest.mark.browser
@pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                    reason="needs Debian's chromium and chromium-driver (make test installs them)")
def test_report_renders_in_headless_chromium(run, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    output = run / "browser-report.html"
    assert main(["report", str(run / "results.jsonl"), "-o", str(output), "--episodes", "2"]) == 0
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.get(output.resolve().as_uri())
        rows = driver.find_elements(By.CSS_SELECTOR, "#summary-table tbody tr")
        assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == ["explorer", "random", "react"]
        headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#summary-table thead th")]
        share = [r.find_elements(By.TAG_NAME, "td")[headings.index("model actions")].text for r in rows]
        assert share[:2] == ["-", "-"] and 0.0 < float(share[2]) < 1.0
        causes = rows[2].find_elements(By.TAG_NAME, "td")[headings.index("fallbacks")].text
        assert "unparseable" in causes or "invalid" in causes
        for figure in ("score-vs-step", "memory-growth"):
            svg = driver.find_element(By.CSS_SELECTOR, f"#{figure} svg")
            assert svg.size["width"] > 200 and svg.size["height"] > 100
        episodes = driver.find_elements(By.CSS_SELECTOR, "details.episode")
        assert len(episodes) == 2 and episodes[0].get_attribute("open") is not None
        graph = driver.find_element(By.CSS_SELECTOR, "details.episode img.memory-graph")
        assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", graph) > 100
        steps = episodes[0].find_elements(By.CSS_SELECTOR, "table.steps tbody tr")
        assert len(steps) >= 2 and steps[0].find_elements(By.TAG_NAME, "td")[1].text == "(start)"
        resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert [name for name in resources if not name.startswith(("data:", "file:"))] == []
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)
