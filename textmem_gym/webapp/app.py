"""``textmem-gym ui``: the Gradio web app.

Three tabs:

- **Play**: any id as a human, the belief text and a picture of the memory graph beside the game
  text; every episode is recorded (:class:`~textmem_gym.webapp.human.HumanEpisode`: trajectory +
  results row of policy ``human`` in ``RUNS/human.jsonl``), so human baselines sit in the same
  tables as agents.
- **Trajectory**: open a trajectory file and step through it: observation, action, belief, the
  memory graph at that step (rebuilt from the final export: facts keep the steps they held) and
  the step's LLM calls with prompts and answers.
- **Compare**: results files side by side: the summary table and the score-vs-step plot.

Listens on 127.0.0.1 unless told otherwise; any other address needs a bearer token (browsers open
``/?token=...`` once; see :mod:`textmem_gym.serving.auth`). No share link, no analytics.
"""

from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from textmem_gym.memory.registry import available_memories  # noqa: E402
from textmem_gym.serving.games import GameError  # noqa: E402
from textmem_gym.webapp.human import RESULTS_FILE, HumanEpisode  # noqa: E402


def score_line(episode: HumanEpisode | None) -> str:
    """The score shown above the game text."""
    if episode is None:
        return "Score: - (start a game)"
    s = episode.game.status()
    end = " | GAME OVER: " + ("won" if s["won"] else "lost" if s["lost"] else "recorded") if episode.over else ""
    return f"Score: {s['score']:g}/{s['max_score']:g} | Steps: {s['steps']} | Location: {s['location']}{end}"


def graph_picture(episode: HumanEpisode) -> str | None:
    """A PNG of the current memory graph (path); ``None`` for a memory that offers no ``export`` part (no picture)."""
    export = episode.game.adopted.export
    if export is None:
        return None
    return str(export.draw(Path(tempfile.mkdtemp(prefix="textmem-ui-")) / "memory.png", size=8.0))


def _view(episode: HumanEpisode, transcript: str) -> tuple[Any, ...]:
    return (episode, transcript, score_line(episode), episode.game.belief(), graph_picture(episode),
            str(episode.path), "")


def start_game(env_id: str, seed: float, memory: str, runs_dir: str, old: HumanEpisode | None) -> tuple[Any, ...]:
    """Starts (and records) a new episode; the previous one is finished."""
    if old is not None:
        old.close()
    try:
        episode = HumanEpisode(env_id, seed=int(seed), memory=memory, runs_dir=runs_dir)
    except GameError as error:
        return None, f"Error: {error}", score_line(None), "", None, "", ""
    return _view(episode, episode.game.observation)


def send_command(command: str, episode: HumanEpisode | None, transcript: str) -> tuple[Any, ...]:
    """Plays one command of the human."""
    if episode is None:
        return None, "Start a game first.", score_line(None), "", None, "", ""
    if not command.strip():
        return _view(episode, transcript)
    if episode.over:
        return _view(episode, transcript + "\n\n(The episode is over: start a new game.)")
    try:
        episode.command(command)
        answer = episode.game.observation
    except GameError as error:
        answer = f"Error: {error}"
    return _view(episode, f"{transcript}\n\n> {command}\n{answer}")


def end_episode(episode: HumanEpisode | None, transcript: str) -> tuple[Any, ...]:
    """Records the episode as it stands (a results row)."""
    if episode is None:
        return None, transcript, score_line(None), "", None, "", ""
    row = episode.finish()
    return _view(episode, f"{transcript}\n\n(Episode recorded: score {row['score']:g}, {row['steps']} steps.)")


# -- trajectory stepping ------------------------------------------------------------------
def export_at(export: dict[str, Any], step: int) -> dict[str, Any]:
    """The memory's JSON export as it was after memory update ``step`` (facts keep their steps)."""
    triples = []
    for triple in export.get("triples", []):
        if triple["start"] <= step:
            triples.append({**triple, "end": triple["end"] if triple["end"] is not None and triple["end"] <= step
                            else None})
    episodes = [e for e in export.get("episodes", []) if e.get("step", 0) <= step]
    return {**export, "triples": triples, "episodes": episodes, "step": step}


def open_trajectory(path: str) -> tuple[Any, ...]:
    """Reads a trajectory file; the slider then walks its records."""
    import gradio as gr

    from textmem_gym.trajectories import read_trajectory

    try:
        trajectory = read_trajectory(path.strip())
    except (OSError, ValueError) as error:
        return None, gr.update(maximum=1, value=0), f"Cannot open {path!r}: {error}"
    last = max(len(trajectory.records) - 1, 0)
    state = "finished" if trajectory.complete else "unfinished"
    return trajectory, gr.update(maximum=max(last, 1), value=0), f"{trajectory.label} ({state}, {last} steps)"


def show_step(trajectory: Any, index: float) -> tuple[str, str, str, str, str]:
    """Observation, action, belief, memory graph (HTML) and LLM calls (Markdown) of record ``index``."""
    from textmem_gym.report.figures import memory_graph_png

    if trajectory is None or not trajectory.records:
        return "", "", "", "", ""
    index = min(int(index), len(trajectory.records) - 1)
    record = trajectory.records[index]
    graph = "<p><i>The memory graph is drawn from the episode's final export (finished episodes only).</i></p>"
    if trajectory.memory_graph:
        updates = sum(len(r.get("commands") or [r.get("action")]) for r in trajectory.steps[:index])
        picture = memory_graph_png(export_at(trajectory.memory_graph, updates))
        graph = f'<img id="step-graph" src="data:image/png;base64,{picture}" style="max-width:100%">' if picture \
            else "<p>(empty memory)</p>"
    calls = "\n\n".join(f"**{c.get('kind')}** ({c.get('prompt_tokens')} + {c.get('completion_tokens')} tokens)\n\n"
                        f"```\n{c.get('prompt', c.get('prompt_key'))}\n```\n\nAnswer:\n\n```\n"
                        f"{c.get('answer', c.get('answer_key'))}\n```" for c in record.get("llm_calls") or [])
    action = record.get("action") or "(start)"
    score = f"{action}  [score {record.get('score')}/{record.get('max_score')}, reward {record.get('reward')}]"
    return record.get("observation", ""), score, record.get("belief") or "", graph, calls or "No LLM calls."


# -- comparing runs -----------------------------------------------------------------------
def compare(paths_text: str) -> str:
    """Summary table and score-vs-step plot (HTML) of the results files listed one per line."""
    from textmem_gym.report import load_rows, load_trajectories, summary_table
    from textmem_gym.report.figures import curves_svg
    from textmem_gym.results import summarize

    paths = [p.strip() for p in paths_text.splitlines() if p.strip()]
    missing = [p for p in paths if not Path(p).is_file()]
    if not paths or missing:
        return f"<p>No such results file: {html.escape(', '.join(missing) or '(none given)')}</p>"
    rows = load_rows(paths)
    groups: dict[tuple[str, str], list[Any]] = {}
    for trajectory in load_trajectories(rows):
        groups.setdefault((str(trajectory.header.get("env_id")), str(trajectory.header.get("policy"))),
                          []).append(trajectory)
    plot = curves_svg(groups, lambda r: r.get("normalized_score"), ylabel="normalized score",
                      title="Score vs step") if groups else None
    if plot is None:
        return summary_table(summarize(rows)) + "<p>No trajectories recorded for these rows (the plot needs them).</p>"
    return summary_table(summarize(rows)) + f'<div id="score-vs-step">{plot}</div>'


# -- the app ------------------------------------------------------------------------------
def build_app(runs_dir: str | Path = "runs", memory: str = "arigraph", game: str = "TextMem/Cooking-v0") -> Any:
    """The Gradio ``Blocks`` of the web app."""
    import gradio as gr

    runs_dir = str(runs_dir)
    with gr.Blocks(title="textmem-gym") as app:
        gr.Markdown("# textmem-gym")
        with gr.Tab("Play"):
            with gr.Row():
                env_id = gr.Textbox(game, label="Game (TextMem id or Jericho game)", elem_id="game-id")
                seed = gr.Number(0, label="Seed", precision=0)
                memory_name = gr.Dropdown(list(available_memories()), value=memory, label="Memory")
                start = gr.Button("Start game", elem_id="start", variant="primary")
            score = gr.Markdown(score_line(None), elem_id="score")
            with gr.Row():
                with gr.Column(scale=3):
                    transcript = gr.Textbox(label="Game", lines=18, max_lines=40, interactive=False,
                                            elem_id="transcript", autoscroll=True)
                    with gr.Row():
                        command = gr.Textbox(label="Command", placeholder="go north", elem_id="command", scale=4)
                        send = gr.Button("Send", elem_id="send", scale=1)
                    end = gr.Button("End and record episode", elem_id="end")
                    recorded = gr.Textbox(label="Trajectory file", interactive=False, elem_id="recorded")
                with gr.Column(scale=2):
                    belief = gr.Textbox(label="Belief (memory)", lines=10, interactive=False, elem_id="belief")
                    graph = gr.Image(label="Memory graph", type="filepath", elem_id="graph")
            episode = gr.State(None, delete_callback=lambda e: e.close() if e is not None else None)
            runs = gr.State(runs_dir)
            outputs = [episode, transcript, score, belief, graph, recorded, command]
            start.click(start_game, [env_id, seed, memory_name, runs, episode], outputs)
            send.click(send_command, [command, episode, transcript], outputs)
            command.submit(send_command, [command, episode, transcript], outputs)
            end.click(end_episode, [episode, transcript], outputs)
        with gr.Tab("Trajectory"):
            with gr.Row():
                path = gr.Textbox(label="Trajectory file (.jsonl)", elem_id="trajectory-path", scale=4)
                open_button = gr.Button("Open", elem_id="open-trajectory", scale=1)
            title = gr.Markdown()
            step = gr.Slider(0, 1, step=1, value=0, label="Step", elem_id="step")
            trajectory = gr.State(None)
            with gr.Row():
                with gr.Column():
                    action = gr.Textbox(label="Action", interactive=False)
                    observation = gr.Textbox(label="Observation", lines=8, interactive=False)
                    step_belief = gr.Textbox(label="Belief", lines=8, interactive=False)
                step_graph = gr.HTML(label="Memory graph at this step")
            calls = gr.Markdown(label="LLM calls")
            shown = [observation, action, step_belief, step_graph, calls]
            open_button.click(open_trajectory, [path], [trajectory, step, title]).then(
                show_step, [trajectory, step], shown)
            step.change(show_step, [trajectory, step], shown)
        with gr.Tab("Compare"):
            files = gr.Textbox(str(Path(runs_dir) / RESULTS_FILE), label="Results files (one per line)", lines=3,
                               elem_id="results-files")
            compare_button = gr.Button("Compare", elem_id="compare")
            comparison = gr.HTML(elem_id="comparison")
            compare_button.click(compare, [files], [comparison])
    return app


def launch(*, host: str = "127.0.0.1", port: int = 7860, token: str | None = None, runs_dir: str | Path = "runs",
           memory: str = "arigraph") -> None:
    """Serves the web app until stopped (loopback unless ``token`` is set; never a share link)."""
    import gradio as gr
    import uvicorn
    from fastapi import FastAPI

    from textmem_gym.serving.auth import TOKEN_ENV, BearerGuard, check_exposure

    token = token or os.environ.get(TOKEN_ENV) or None
    check_exposure(host, token)
    app = gr.mount_gradio_app(FastAPI(), build_app(runs_dir, memory), path="/")
    print(f"textmem-gym ui: http://{host}:{port}/" + ("?token=..." if token else ""), flush=True)
    uvicorn.run(BearerGuard(app, token, cookie=True), host=host, port=port, log_level="warning")
