"""The web app in a real headless Chromium: play three commands, check the score shown and the
recorded files, step through the trajectory, compare; plus the app's functions directly."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("gradio")

from tests.serving.conftest import REPO, free_port, server_env  # noqa: E402
from textmem_gym.results import ResultsFile  # noqa: E402
from textmem_gym.trajectories import read_trajectory  # noqa: E402

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1200")


def test_human_episode_functions_record_and_replay(tmp_path) -> None:
    from textmem_gym.webapp.app import compare, end_episode, send_command, show_step, start_game

    episode, transcript, *_ = start_game("Cooking-v0", 0, "arigraph", str(tmp_path), None)
    for command in ("go south", "examine cookbook", "take knife from table"):
        episode, transcript, score, belief, graph, recorded, _ = send_command(command, episode, transcript)
    assert score.startswith("Score: 0/11 | Steps: 3 | Location: kitchen") and "knife" in belief
    assert Path(graph).stat().st_size > 1000
    end_episode(episode, transcript)
    trajectory = read_trajectory(recorded)
    assert trajectory.complete and [s["action"] for s in trajectory.steps][-1] == "take knife from table"
    observation, action, step_belief, picture, calls = show_step(trajectory, 1)
    assert action.startswith("go south") and "kitchen" in step_belief.lower() and "data:image/png" in picture
    page = compare(str(tmp_path / "human.jsonl"))
    assert 'id="summary-table"' in page and "human" in page and "<svg" in page
    episode.close()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()),
                    reason="needs Debian's chromium and chromium-driver (make test installs them)")
def test_play_three_commands_in_headless_chromium(tmp_path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    port, runs = free_port(), tmp_path / "runs"
    app = subprocess.Popen([sys.executable, "-m", "textmem_gym.cli", "ui", "--port", str(port), "--runs-dir",
                            str(runs)], env=server_env(GRADIO_ANALYTICS_ENABLED="False"), cwd=str(REPO),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = None
    try:
        deadline = time.monotonic() + 90
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert app.poll() is None and time.monotonic() < deadline, app.stderr.read().decode()
            time.sleep(0.2)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        wait = WebDriverWait(driver, 60)
        driver.get(f"http://127.0.0.1:{port}/")
        wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#start"))).click()
        score = lambda: driver.find_element(By.CSS_SELECTOR, "#score").text  # noqa: E731
        wait.until(lambda d: "Steps: 0" in score())
        box = driver.find_element(By.CSS_SELECTOR, "#command textarea, #command input")
        for n, command in enumerate(("go south", "examine cookbook", "take knife from table"), 1):
            box.send_keys(command)
            box.send_keys(Keys.ENTER)
            wait.until(lambda d, n=n: f"Steps: {n} " in score())
        assert score().startswith("Score: 0/11 | Steps: 3 | Location: kitchen"), score()
        transcript = driver.find_element(By.CSS_SELECTOR, "#transcript textarea").get_attribute("value")
        assert "> take knife from table" in transcript and "You take the knife" in transcript
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#graph img"))
        shot = tmp_path / "webapp.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        (trajectory_file,) = (runs / "trajectories").glob("*.jsonl")
        steps = read_trajectory(trajectory_file).steps
        assert [s["action"] for s in steps] == ["go south", "examine cookbook", "take knife from table"]
        assert "knife" in steps[-1]["belief"]
        driver.find_element(By.CSS_SELECTOR, "#end").click()
        wait.until(lambda d: "recorded" in score())
        (row,) = ResultsFile(runs / "human.jsonl").read()
        assert row["policy"] == "human" and row["steps"] == 3 and row["trajectory"] == str(trajectory_file)
    finally:
        if driver is not None:
            driver.quit()
        app.terminate()
        app.wait(timeout=30)
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)
