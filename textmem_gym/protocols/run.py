"""Playing a paper's protocol through :func:`textmem_gym.runner.evaluate` and printing its table beside the paper's.

:func:`plan_protocol` decides what each cell plays (the paper's own game file when it can be
obtained, else our generated id; which instances; each instance's walkthrough length and whether
it fits in the step limit, read by the driver from the privileged walkthrough, never by the
policy). :func:`run_protocol` evaluates the plan and :func:`format_report` renders the table.
The ``limit`` arguments run a subset (for tests and quick looks).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from textmem_gym.downloads import ChecksumError
from textmem_gym.envs.instances import instance_info, instance_seeds
from textmem_gym.loading import load_object
from textmem_gym.protocols import published
from textmem_gym.protocols.base import Cell, Metric, Protocol
from textmem_gym.protocols.restarts import RestartWithinBudget
from textmem_gym.results import summarize


@dataclass
class PlannedCell:
    """What one cell plays.

    Attributes:
        cell: The protocol's cell.
        env_id: The id played (the published id, or the fallback).
        env_kwargs: Its extra ``gym.make`` arguments (``game_file`` of a published game).
        game_seeds: The instances played.
        instances: Game seed -> :func:`~textmem_gym.envs.instances.instance_info`.
        skipped: Instances passed over because they cannot be won within the step limit.
        note: What was played and why.
        unavailable: Why the cell cannot be played here (a missing game file), or ``""``.
    """

    cell: Cell
    env_id: str
    env_kwargs: dict[str, Any]
    game_seeds: list[int | None]
    instances: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)
    note: str = ""
    unavailable: str = ""


@dataclass
class CellResult:
    """A played cell: its plan, its episodes and their summary row."""

    plan: PlannedCell
    results: list[dict[str, Any]]
    summary: dict[str, Any]


def plan_protocol(protocol: Protocol, *, cells: list[str] | None = None, limit_cells: int | None = None,
                  limit_instances: int | None = None, winnable_only: bool | None = None,
                  download: bool = True, max_steps: int | None = None) -> list[PlannedCell]:
    """What each cell of ``protocol`` plays.

    Args:
        protocol: The protocol.
        cells: Play only the cells with these labels (the paper's column names).
        limit_cells: Play only the first ``limit_cells`` cells (after ``cells``).
        limit_instances: At most this many instances per cell.
        winnable_only: Override the protocol's choice to skip unwinnable instances.
        download: Whether published game files may be downloaded.
        max_steps: Override every cell's step limit (a quick look; instances are then checked
            against it: fewer can be won in time).

    Raises:
        ValueError: If a label of ``cells`` is not a cell of the protocol (the message lists them).
    """
    chosen = list(protocol.cells)
    if cells:
        labels = [c.label for c in chosen]
        unknown = [label for label in cells if label not in labels]
        if unknown:
            raise ValueError(f"{protocol.name} has no cell {unknown[0]!r}; its cells: {', '.join(labels)}")
        chosen = [c for c in chosen if c.label in cells]
    chosen = chosen[:limit_cells] if limit_cells is not None else chosen
    if max_steps is not None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        chosen = [dataclasses.replace(cell, max_steps=max_steps) for cell in chosen]
    only_winnable = protocol.winnable_only if winnable_only is None else winnable_only
    planned = []
    for cell in chosen:
        try:
            planned.append(_plan_cell(cell, limit_instances, only_winnable, download))
        except FileNotFoundError as error:  # a missing ROM or game file
            if not protocol.skip_unavailable:
                raise
            planned.append(PlannedCell(cell, cell.env_id, dict(cell.env_kwargs), [], unavailable=str(error)))
    return planned


def _plan_cell(cell: Cell, limit_instances: int | None, winnable_only: bool, download: bool) -> PlannedCell:
    env_id, env_kwargs, note = _choose_game(cell, download)
    env_kwargs = {**cell.env_kwargs, **env_kwargs}
    count = min(cell.instances, limit_instances) if limit_instances else cell.instances
    skipped: list[int] = []
    if cell.game_seeds:
        seeds: list[int | None] = list(cell.game_seeds[:count] if limit_instances else cell.game_seeds)
    elif "default_game_seed" in gym.spec(env_id).kwargs:
        seeds = list(instance_seeds(env_id, count, winnable=winnable_only, max_steps=cell.max_steps))
        first = int(gym.spec(env_id).kwargs["default_game_seed"])
        skipped = [s for s in range(first, max(s for s in seeds if s is not None)) if s not in seeds]
    else:
        seeds = [None]
    instances = {seed: instance_info(env_id, seed, cell.max_steps, env_kwargs) for seed in seeds}
    return PlannedCell(cell, env_id, env_kwargs, seeds, instances, skipped, note)


def _choose_game(cell: Cell, download: bool) -> tuple[str, dict[str, Any], str]:
    if cell.published_game is None:
        return cell.env_id, {}, cell.note or "generated"
    from textmem_gym.envs.textworld.published import PublishedGameNotFoundError, find_published_game

    try:
        path = find_published_game(cell.published_game, download=download)
    except (PublishedGameNotFoundError, ChecksumError) as error:
        if cell.fallback_id is None:
            raise
        return cell.fallback_id, {}, f"generated {cell.fallback_id}: the paper's file is unavailable ({error})"
    return cell.env_id, {"game_file": str(path)}, f"the paper's own game file ({Path(path).name})"


def run_protocol(protocol: Protocol, policy: str, *, plan: list[PlannedCell] | None = None,
                 policy_kwargs: dict[str, Any] | None = None, attempts: int | None = None,
                 out: str | Path | None = None, workers: int = 1, progress: bool = False,
                 **plan_options: Any) -> list[CellResult]:
    """Plays ``protocol`` with ``policy`` (a registry name or ``module:Factory``).

    Args:
        protocol: The protocol.
        policy: The policy's name.
        plan: The cells to play (default: :func:`plan_protocol` with ``plan_options``).
        policy_kwargs: Constructor arguments of the policy.
        attempts: Override the protocol's attempts per instance (fewer for a quick look; the
            best-k-of-n aggregation then takes the best ``k`` of what was played).
        out: JSONL results file (resumable: a re-run skips the episodes it holds).
        workers: Episodes run in parallel (worker processes; see :func:`textmem_gym.runner.evaluate`).
        progress: Show progress bars.
        **plan_options: Passed to :func:`plan_protocol`.

    Returns:
        One :class:`CellResult` per cell. Each episode's results row, in ``out`` as in the
        returned results, carries its instance's ``walkthrough_steps``, ``step_limit`` and
        ``winnable`` (added by the driver: the policy never sees them), so ``textmem-gym summary``
        marks unwinnable instances from the file alone.
    """
    from textmem_gym.runner import EvalConfig, evaluate

    cells = plan if plan is not None else plan_protocol(protocol, **plan_options)
    wrap = RestartWithinBudget if protocol.restart_within_budget else None
    played = []
    for planned in cells:
        if planned.unavailable:
            played.append(CellResult(planned, [], {}))
            continue
        instances = {(planned.env_id, seed): info for seed, info in planned.instances.items()}
        results = evaluate(planned.env_id, policy, EvalConfig(episodes=attempts or protocol.attempts, seed=0,
                           max_steps=planned.cell.max_steps, out=out, game_seeds=planned.game_seeds,
                           env_kwargs=planned.env_kwargs, policy_kwargs=dict(policy_kwargs or {}),
                           progress=progress, workers=workers, row_extra=instances, wrap=wrap))
        rows = summarize(results, best_of=protocol.best_of)
        played.append(CellResult(planned, results, rows[0]))
    return played


def paper_rows(protocol: Protocol, policy: str, chosen: list[str] | None = None) -> list[str]:
    """The published rows to show: ``chosen``, else the policy's own row and the paper's method.

    Raises:
        ValueError: If a chosen row is not in the paper's data (the message lists its rows).
    """
    rows = published(protocol.name)["rows"]
    if chosen:
        unknown = [name for name in chosen if name not in rows]
        if unknown:
            raise ValueError(f"the {protocol.name} data has no row {unknown[0]!r}; rows: {', '.join(rows)}")
        return list(chosen)
    names = [protocol.policy_rows.get(policy), protocol.own_row, *protocol.baseline_rows]
    return [name for i, name in enumerate(names) if name is not None and name in rows and name not in names[:i]]


def format_report(protocol: Protocol, played: list[CellResult], policy: str,
                  rows: list[str] | None = None) -> str:
    """The protocol's table: our numbers beside the paper's (in the paper's unit), then notes.

    Columns: the paper's column, what was played, how many instances fit in the step limit, our
    score (best k of n where the protocol says so), our success rate where the paper reports one,
    then one ``paper: ROW`` column per published row (``-`` where the paper has no number). A
    protocol with :class:`~textmem_gym.protocols.base.Metric`\\ s has one of our columns per
    metric (mean ± std over the cell's episodes) and one ``paper: ROW metric`` column per
    published row and metric.
    """
    if protocol.report is not None:
        return str(load_object(protocol.report)(protocol, played, policy, rows))
    data = published(protocol.name)
    shown = paper_rows(protocol, policy, rows)
    if protocol.metrics:
        return _format_metrics_report(protocol, played, policy, shown, data)
    aggregation = f"best {protocol.best_of[0]} of {protocol.best_of[1]}" if protocol.best_of else "mean ± std"
    header = ["column", "played", "winnable", f"{policy}: score ({aggregation})"]
    header += [f"{policy}: success"] if protocol.reports_success else []
    header += [f"paper: {name}" for name in shown]
    source = data["source"] or "nowhere (none published)"
    lines = [protocol.title, f"paper: {data['paper']}; numbers from {source}",
             f"metric: {data['metric'] or 'normalized score'}; steps: {protocol.step_accounting}", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    for item in played:
        summary, planned = item.summary, item.plan
        if planned.unavailable:
            lines.append(f"| {planned.cell.label} | not played | - | - |" + " - |" * (len(header) - 4))
            notes.append(f"- {planned.cell.label}: NOT PLAYED, {planned.unavailable}")
            continue
        mean, std = ((summary["score_best_mean"], summary["score_best_std"]) if protocol.best_of
                     else (summary["score_mean"], summary["score_std"]))
        cells = [planned.cell.label, _played(planned), _winnable(planned),
                 f"{mean * protocol.scale:.3g} ± {std * protocol.scale:.3g} (n={summary['episodes']})"]
        if protocol.reports_success:
            cells.append(f"{summary['success_rate'] * 100:.1f}")
        cells += [_published_cell(data["rows"][name].get(planned.cell.label), protocol) for name in shown]
        lines.append("| " + " | ".join(cells) + " |")
        notes.append(f"- {planned.cell.label}: {planned.env_id}, {planned.note}" + _instance_note(planned))
    if not data["rows"]:
        notes.append(f"- the paper published no numbers ({data.get('note', 'no data file')})")
    return "\n".join(lines + ["", "instances:"] + notes)


def _format_metrics_report(protocol: Protocol, played: list[CellResult], policy: str, shown: list[str],
                           data: dict[str, Any]) -> str:
    """:func:`format_report` for a protocol with metrics: ours and the paper's, one column per metric."""
    spread = "sample std" if protocol.sample_std else "std"
    header = ["column", "played", "winnable"]
    header += [f"{policy}: {m.label} (mean ± {spread})" for m in protocol.metrics]
    header += [f"paper: {name} {m.label}" for name in shown for m in protocol.metrics]
    lines = [protocol.title, f"paper: {data['paper']}; numbers from {data['source'] or 'nowhere (none published)'}",
             f"metric: {data['metric'] or ', '.join(m.label for m in protocol.metrics)}; "
             f"steps: {protocol.step_accounting}", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    for item in played:
        planned = item.plan
        cells = [planned.cell.label, _played(planned), _winnable(planned)]
        cells += [_metric_cell(item.results, metric, protocol.sample_std) for metric in protocol.metrics]
        cells += [_published_metric(data["rows"][name].get(planned.cell.label), metric)
                  for name in shown for metric in protocol.metrics]
        lines.append("| " + " | ".join(cells) + " |")
        notes.append(f"- {planned.cell.label}: {planned.env_id}, {planned.note}" + _instance_note(planned))
    if not data["rows"]:
        notes.append(f"- the paper published no numbers ({data.get('note', 'no data file')})")
    return "\n".join(lines + ["", "instances:"] + notes)


def metric_values(results: list[dict[str, Any]], metric: Metric) -> list[float]:
    """The metric's values over the episodes that ended without an error (rows lacking the field are skipped)."""
    return [float(r[metric.field]) for r in results
            if not r.get("error") and isinstance(r.get(metric.field), int | float)]


def _metric_cell(results: list[dict[str, Any]], metric: Metric, sample_std: bool) -> str:
    values = metric_values(results, metric)
    if not values:
        return "-"
    spread = (statistics.stdev if sample_std else statistics.pstdev)(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.2f} ± {spread:.2f} (n={len(values)})"


def _published_metric(value: dict[str, float] | None, metric: Metric) -> str:
    if not value or not isinstance(value.get(metric.published), int | float) or math.isnan(value[metric.published]):
        return "-"
    std = value.get(metric.published_std) if metric.published_std else None
    return f"{value[metric.published]:.2f}" + (f" ± {std:.2f}" if std is not None else "")


def _played(planned: PlannedCell) -> str:
    seeds = [s for s in planned.game_seeds if s is not None]
    return f"{planned.env_id} ({len(planned.game_seeds)} instance{'s' * (len(planned.game_seeds) > 1)}" + \
        (f": {', '.join(map(str, seeds))})" if seeds else ")")


def _winnable(planned: PlannedCell) -> str:
    flags = [instance.get("winnable") for instance in planned.instances.values()]
    if all(flag is None for flag in flags):
        return "? (no walkthrough)"
    unwinnable = sum(1 for flag in flags if flag is False)
    mark = f"{len(flags) - unwinnable} of {len(flags)}"
    return mark + (" ✗" if unwinnable else " ✓")


def _instance_note(planned: PlannedCell) -> str:
    parts = []
    for seed, instance in planned.instances.items():
        steps, limit = instance.get("walkthrough_steps"), instance.get("step_limit")
        where = "default game" if seed is None else f"game_seed={seed}"
        if steps is None:
            parts.append(f"{where}: no walkthrough to check against {limit} steps")
        elif instance.get("winnable") is False:
            parts.append(f"{where}: UNWINNABLE, walkthrough {steps} > {limit} steps")
    if planned.skipped:
        parts.append(f"skipped (walkthrough longer than {planned.cell.max_steps} steps): game_seed "
                     + ", ".join(map(str, planned.skipped)))
    return "; " + "; ".join(parts) if parts else ""


def _published_cell(value: dict[str, float] | None, protocol: Protocol) -> str:
    if not value:
        return "-"
    text = f"{value['score']:.3g}" + (f" ± {value['std']:.3g}" if "std" in value else "")
    return text + (f" (SR {value['success']:.3g})" if "success" in value else "")


__all__ = ["CellResult", "PlannedCell", "format_report", "metric_values", "paper_rows", "plan_protocol",
           "run_protocol"]
