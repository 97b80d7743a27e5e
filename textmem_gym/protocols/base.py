"""What a protocol is: :class:`Cell` (one column of a paper's table) and :class:`Protocol`.

The protocol modules (``protocols/<paper>.py``) build these; :mod:`textmem_gym.protocols` lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Cell:
    """One column of a paper's table: a game (or level, or task) and how it is played.

    Attributes:
        label: The paper's column name (``"Treasure Hunt"``, ``"Level 3"``, ``"1-1"``).
        env_id: The registered id played.
        max_steps: Step limit of every episode.
        instances: How many instances (game seeds from
            :func:`~textmem_gym.envs.instances.instance_seeds`) when ``game_seeds`` is not given.
        game_seeds: The instances to play (``None`` in the tuple: the id's default game); when
            empty, ``instances`` seeds of a generated id, or the default game.
        published_game: Name of the paper's own game file
            (:data:`~textmem_gym.envs.textworld.published.PUBLISHED_GAMES`) that ``env_id`` plays;
            ``fallback_id`` is played instead when the file cannot be obtained.
        fallback_id: Our generated id standing for the paper's game.
        note: Why this cell plays what it plays (shown under the table).
        env_kwargs: More ``gym.make`` arguments of this cell (a game's parameters, a simplification).
    """

    label: str
    env_id: str
    max_steps: int
    instances: int = 1
    game_seeds: tuple[int | None, ...] = ()
    published_game: str | None = None
    fallback_id: str | None = None
    note: str = ""
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Metric:
    """A number a paper's table reports per cell, other than the normalized score.

    Attributes:
        field: The results-row field averaged over the cell's episodes (``"score"``: the game's
            own score; ``"max_dungeon_level"``: a backend's headline metric, see
            :func:`textmem_gym.runner.run_episode`).
        label: Its column name (``"deepest level"``).
        published: Its key in the published values of a cell.
        published_std: The key of the published standard deviation (``None``: none published).
    """

    field: str
    label: str
    published: str
    published_std: str | None = None


@dataclass(frozen=True)
class Protocol:
    """A paper's evaluation protocol.

    Attributes:
        name: Registry name (``textmem-gym reproduce NAME``) and data file stem.
        title: One line naming the paper and its table.
        cells: The table's columns, in the paper's order.
        attempts: Episodes per instance (reset seeds ``0 .. attempts-1``).
        best_of: ``(k, n)`` when the paper reports the mean of the best ``k`` of ``n`` attempts.
        winnable_only: Play only instances whose walkthrough fits in the step limit (the
            instances skipped are listed under the table).
        step_accounting: How the paper counted steps against the limit (shown with the table).
        scale: Factor from our normalized score to the paper's unit (100 for percentages).
        reports_success: The paper reports a success rate beside the score.
        own_row: The paper's own method (its row of published numbers is always shown).
        baseline_rows: More published rows always shown (the paper's baselines).
        policy_rows: Our policy name -> the paper's row for the same agent.
        metrics: What the table reports per cell; empty: the normalized score (``scale``d, best k
            of n where ``best_of`` says). Each metric is shown as mean ± std over the cell's episodes.
        sample_std: The paper's ± is the sample standard deviation (n - 1); else the population one.
        restart_within_budget: Each episode is one budget of ``max_steps`` commands in which the game
            restarts after every win or loss, scored as the best score reached (TALES; see
            :class:`~textmem_gym.protocols.restarts.RestartWithinBudget`).
        skip_unavailable: Cells whose game files cannot be found (a missing ROM) are listed as not
            played instead of stopping the run.
        report: ``"module:attr"`` of the function rendering the played cells (same arguments as
            :func:`~textmem_gym.protocols.run.format_report`); ``None``: the paper-table layout.
    """

    name: str
    title: str
    cells: tuple[Cell, ...]
    attempts: int = 1
    best_of: tuple[int, int] | None = None
    winnable_only: bool = False
    step_accounting: str = "every command sent to the game counts one step"
    scale: float = 1.0
    reports_success: bool = False
    own_row: str | None = None
    baseline_rows: tuple[str, ...] = ()
    policy_rows: dict[str, str] = field(default_factory=dict)
    metrics: tuple[Metric, ...] = ()
    sample_std: bool = False
    restart_within_budget: bool = False
    skip_unavailable: bool = False
    report: str | None = None
