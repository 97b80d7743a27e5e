"""``textmem-gym replay`` and ``report``: look at finished runs (trajectories, results files).

Example:
    $ textmem-gym replay runs/trajectories/TextMem_Cooking-v0.explorer.s0.e0.gdefault.jsonl
    $ textmem-gym report runs/make-run.jsonl -o runs/report.html
"""

from __future__ import annotations

import argparse

from textmem_gym.cli.checks import NON_NEGATIVE, POSITIVE, existing_dir, existing_file, writable_file


def cmd_replay(args: argparse.Namespace) -> int:
    """Prints a trajectory step by step."""
    from textmem_gym.trajectories import format_step, read_trajectory

    if args.steps is not None and args.steps[0] > args.steps[1]:
        raise ValueError(f"replay: --steps FIRST LAST needs FIRST <= LAST, got {args.steps[0]} {args.steps[1]}")
    trajectory = read_trajectory(args.trajectory)
    header = trajectory.header
    print(f"{trajectory.label}  (episode {header.get('episode')}, game seed {header.get('game_seed')}, "
          f"memory {header.get('memory')}, step limit {header.get('max_episode_steps')})")
    records = trajectory.records
    if args.steps is not None:
        records = [r for r in records if args.steps[0] <= r.get("step", 0) <= args.steps[1]]
    for record in records:
        print(format_step(record, width=args.width))
        if args.belief and record.get("belief"):
            print("    belief: " + record["belief"].replace("\n", "\n            "))
    if trajectory.result is not None:
        from textmem_gym.results import score_text

        r = trajectory.result
        print(f"\nresult: score {score_text(r.get('score'))}/{score_text(r.get('max_score'))} "
              f"(normalized {r.get('normalized_score', 0):.3f}), won {r.get('won')}, {r.get('steps')} steps, "
              f"{r.get('primitive_steps')} primitive")
    else:
        print("\n(unfinished episode: the trajectory stops here)")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Writes the HTML report of results files, prints their summary table and the report's path
    (a file with lines that are not rows gets a warning line; one with no row ends the command)."""
    from textmem_gym.cli.evaluation import format_results, read_results
    from textmem_gym.report import write_report

    rows = read_results(args.results)
    path = write_report(args.results, args.output, trajectories=args.trajectories, episodes=args.episodes)
    print(format_results(rows))
    print(f"\nreport: {path.resolve()}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``replay`` and ``report``."""
    replay = sub.add_parser("replay", help="print a trajectory (JSONL) step by step")
    replay.add_argument("trajectory", type=existing_file, help="a trajectory file written with --trajectories")
    replay.add_argument("--belief", action="store_true", help="also print the belief text of each step")
    replay.add_argument("--steps", type=NON_NEGATIVE, nargs=2, metavar=("FIRST", "LAST"), default=None,
                        help="only these steps")
    replay.add_argument("--width", type=POSITIVE, default=100, help="cut observation lines to this width")
    replay.set_defaults(handler=cmd_replay)
    report = sub.add_parser("report", help="write a self-contained HTML report of results files")
    report.add_argument("results", nargs="+", type=existing_file, help="JSONL results files")
    report.add_argument("-o", "--output", type=writable_file, default="report.html", help="HTML file to write")
    report.add_argument("--trajectories", type=existing_dir, default=None,
                        help="folder of trajectories (else the paths recorded in the results rows)")
    report.add_argument("--episodes", type=NON_NEGATIVE, default=None,
                        help="most episode sections to render (default: one per env id and policy)")
    report.set_defaults(handler=cmd_report)
