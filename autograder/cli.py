"""The ``autograder`` command: grade, list, check, export-gradescope."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .assignments import ASSIGNMENTS, InstructorMaterialMissing, get_assignment

DESCRIPTION = """Grade Minesweeper kit submissions against hidden tests, each in an isolated,
time-limited sandbox. Student code never runs in the grader's process: only plain data comes
back, so it cannot read the tests or forge a score."""


def _positive(value: str) -> float:
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ids = ", ".join(ASSIGNMENTS)

    grade = commands.add_parser(
        "grade", help="grade submissions and write results, feedback and a gradebook",
        description="Grade submissions: each SUBMISSION is a .py, a .ipynb, a folder of one student, "
                    "or an nbgrader submitted/ folder (one student per sub-folder). Writes "
                    "DIR/<student>/results.json (Gradescope's schema) and feedback.txt, prints a summary "
                    "table, and optionally a CSV gradebook. Finished students are skipped unless --force.")
    grade.add_argument("--assignment", required=True, choices=list(ASSIGNMENTS), metavar="ID",
                       help=f"which assignment ({ids})")
    grade.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION")
    grade.add_argument("--results-dir", type=Path, default=Path("autograder-results"), metavar="DIR",
                       help="where per-student results go (default: ./autograder-results)")
    grade.add_argument("--csv", type=Path, metavar="FILE", help="write a CSV gradebook here")
    grade.add_argument("--time-limit", type=_positive, metavar="SECONDS",
                       help="whole-submission time budget (default: the assignment's, 100 s for most)")
    grade.add_argument("--test-time-limit", type=_positive, metavar="SECONDS",
                       help="cap on every test's own time limit (default: the suite's limits)")
    grade.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                       help="parallel workers (default: the number of cores)")
    grade.add_argument("--force", action="store_true", help="regrade students that already have results")
    grade.add_argument("--dask", metavar="ADDRESS", help="run the batch on this dask.distributed scheduler")
    grade.add_argument("--seed", type=int, help="seed of the random cases (default: a fresh one, recorded)")
    grade.add_argument("--memory-mb", type=int, metavar="MB", help="memory limit of each sandbox")
    grade.add_argument("--bot-games", type=int, metavar="N",
                       help="bots assignment: games per board size (default 100)")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")

    listing = commands.add_parser("list", help="the assignments, their tests and points",
                                  description="List the assignments with their hidden tests and points.")
    listing.add_argument("--assignment", choices=list(ASSIGNMENTS), metavar="ID",
                         help="only this assignment")

    check = commands.add_parser(
        "check", help="reference scores full marks, starter scores 0, nothing hidden leaks",
        description="Check an assignment before release: the reference solution scores full marks well "
                    "inside the time budget, the starter (release) version scores 0 without crashing, "
                    "and neither the release notebook nor the feedback shows hidden tests or solutions.")
    check.add_argument("--assignment", required=True, choices=list(ASSIGNMENTS), metavar="ID",
                       help=f"which assignment ({ids})")
    check.add_argument("--seed", type=int, default=1, help="seed of the random cases")
    check.add_argument("--bot-games", type=int, metavar="N", help="bots assignment: games to play (default 100)")

    export = commands.add_parser(
        "export-gradescope", help="write a Gradescope autograder zip running this grader",
        description="Write a Gradescope autograder (setup.sh, run_autograder, the grader and the hidden "
                    "suite) for one assignment. Upload it as the assignment's autograder.")
    export.add_argument("--assignment", required=True, choices=list(ASSIGNMENTS), metavar="ID")
    export.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"), metavar="ZIP")
    return parser


def _grade(args: argparse.Namespace) -> int:
    from .batch import grade_batch
    from .report import summary_table

    if args.jobs < 1:
        raise ValueError(f"-j must be at least 1, got {args.jobs}")
    result = grade_batch(args.assignment, args.submissions, args.results_dir, csv_path=args.csv,
                         time_limit=args.time_limit, jobs=args.jobs, force=args.force,
                         dask_address=args.dask, seed=args.seed, memory_mb=args.memory_mb,
                         test_time_limit=args.test_time_limit,
                         settings={"bot_games": args.bot_games} if args.bot_games else None,
                         progress=not args.no_progress)
    print(summary_table(result.reports))
    print(f"seed {result.seed}; graded {len(result.graded)}, kept {len(result.skipped)} earlier result(s); "
          f"results in {args.results_dir}" + (f"; gradebook {args.csv}" if args.csv else ""))
    return 0


def _list(args: argparse.Namespace) -> int:
    from .grading import list_tests

    for assignment in ASSIGNMENTS.values():
        if args.assignment and assignment.id != args.assignment:
            continue
        print(f"{assignment.id}: {assignment.title} (notebook {assignment.notebook}, "
              f"budget {assignment.time_limit:g} s)")
        try:
            tests = list_tests(assignment)
        except (InstructorMaterialMissing, RuntimeError) as error:
            print(f"  (tests unavailable: {str(error).splitlines()[0]})")
            continue
        for test in tests:
            print(f"  {test.max_score:>4g}  {test.name}")
        print(f"  {sum(t.max_score for t in tests):>4g}  total")
    return 0


def _check(args: argparse.Namespace) -> int:
    from .check import check_assignment

    results = check_assignment(get_assignment(args.assignment), seed=args.seed,
                               settings={"bot_games": args.bot_games} if args.bot_games else None,
                               progress=lambda message: print(f"... {message}", flush=True))
    for result in results:
        print(f"[{'ok' if result.ok else 'FAILED'}] {result.name}: {result.detail}")
    return 0 if all(r.ok for r in results) else 1


def _export(args: argparse.Namespace) -> int:
    from .gradescope import export

    path = export(args.assignment, args.output)
    print(f"wrote {path}: upload it as the {args.assignment} autograder on Gradescope")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"grade": _grade, "list": _list, "check": _check, "export-gradescope": _export}
    try:
        return handlers[args.command](args)
    except (ValueError, InstructorMaterialMissing) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
