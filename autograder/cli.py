"""The ``autograder`` command: grade, list, check, doctor, export-gradescope."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from minesweeper_kit.sandbox.isolation import IsolationUnavailable
from minesweeper_kit.shutdown import Terminated, exit_status, stop_on_sigterm
from minesweeper_kit.terminal import escaping_output
from minesweeper_kit.terminal import shown as safe

from .assignments import ASSIGNMENTS, ORIGINALS_VARIABLE, InstructorMaterialMissing, get_assignment
from .course import Course, find_course_file, load_course
from .statuses import NOT_GRADED

if TYPE_CHECKING:
    from .grading import GradeReport

DESCRIPTION = """Grade Minesweeper kit submissions against hidden tests, each in a sandbox the
operating system isolates (bubblewrap) with limits in CPU seconds. Student code never runs in the
grader's process: only plain data comes back, so it cannot read the tests or forge a score.
`autograder doctor` says what isolation this machine gives."""

ISOLATION_HELP = (
    "bwrap (default): every submission in a bubblewrap sandbox; grading stops with a "
    "message if this machine cannot make one. none: no isolation at all, for code you "
    "trust (every feedback file then says so)"
)


_IDS = ", ".join(ASSIGNMENTS)
#: The exit status of ``autograder grade`` when any submission was not graded (the grader failed).
EXIT_NOT_GRADED = 3
#: Graded, but an nbgrader course's gradebook could not be written (the results folder holds everything).
EXIT_GRADEBOOK = 4

#: The optional packages commands import, and the extra of minesweeper-kit that installs each: the
#: command is installed with the kit itself, so a lighter install must say what to add.
EXTRA_OF = {
    "pytest": "grader",
    "distributed": "grader",
    "dask": "grader",
    "tomli": "grader",
    "IPython": "grader",
    "nbgrader": "lab",
    "matplotlib": "report",
    "jinja2": "report",
    "markupsafe": "report",
}


def missing_package(error: ModuleNotFoundError) -> str | None:
    """What to install for a missing optional package (one line), or None when it is not one."""
    package = (error.name or "").partition(".")[0]
    if package not in EXTRA_OF:
        return None
    extra = EXTRA_OF[package]
    return (
        f"this command needs {package}, which is not installed here: run "
        f"`{sys.executable} -m pip install 'minesweeper-kit[{extra}]'` "
        f"(in the kit's checkout: `.venv/bin/pip install -e '.[{extra}]'`)"
    )


def _positive(value: str) -> float:
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The ``autograder`` command line: one sub-command per job, each declared by its own function."""
    parser = argparse.ArgumentParser(prog="autograder", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_grade(commands)
    _add_list(commands)
    _add_check(commands)
    _add_doctor(commands)
    _add_export(commands)
    _add_report(commands)
    return parser


def _add_grade(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder grade``: the submissions, where results go, the time and memory limits, how to run."""
    grade = commands.add_parser(
        "grade",
        help="grade submissions and write results, feedback and a gradebook",
        description="Grade submissions: each SUBMISSION is a .py, a .ipynb, a folder of one student, a "
        "folder of student folders, or an nbgrader course (its folder, submitted/, or one student's folder "
        "there), read as nbgrader lays it out: submitted/<student>/<assignment>/, the assignment folder named "
        "by the course (course.toml). A student with nothing there is 'not submitted'. Writes "
        "DIR/students/<student>/results.json (Gradescope's schema) and feedback.txt, prints a summary table, "
        "optionally a CSV gradebook, and inside an nbgrader course records the results in its gradebook.db. Finished "
        "students are skipped unless --force; the batch's seed is recorded in DIR and a resume keeps it. "
        "Ctrl+C stops within seconds, keeping every finished result (exit status 130). A problem on the "
        "grader's side (missing instructor material, a hidden test that fails on its own, a sandbox that "
        "cannot start) is never a score: those submissions are marked not graded, the causes are printed "
        "once each, and the exit status is 3; 4 when everything was graded but a gradebook could not be "
        "written.",
    )
    grade.add_argument(
        "--assignment", required=True, choices=list(ASSIGNMENTS), metavar="ID", help=f"which assignment ({_IDS})"
    )
    grade.add_argument("submissions", nargs="+", type=Path, metavar="SUBMISSION")
    grade.add_argument(
        "--results-dir",
        type=Path,
        default=Path("autograder-results"),
        metavar="DIR",
        help="where per-student results go (default: ./autograder-results)",
    )
    grade.add_argument("--csv", type=Path, metavar="FILE", help="write a CSV gradebook here")
    grade.add_argument(
        "--time-limit",
        type=_positive,
        metavar="SECONDS",
        help="whole-submission budget in CPU seconds of the student's code (default: the assignment's, 100 s for most)",
    )
    grade.add_argument(
        "--test-time-limit",
        type=_positive,
        metavar="SECONDS",
        help="cap on every test's own limit, in CPU seconds (default: the suite's limits)",
    )
    grade.add_argument(
        "--wall-limit",
        type=_positive,
        metavar="SECONDS",
        help="whole-submission budget of wall-clock seconds for the hidden tests, against code that sleeps or "
        "blocks in every call (default: the course's wall_limit, else 5 times the CPU budget plus 60 s)",
    )
    grade.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="parallel workers (default: the number of cores)",
    )
    grade.add_argument("--force", action="store_true", help="regrade students that already have results")
    grade.add_argument("--dask", metavar="ADDRESS", help="run the batch on this dask.distributed scheduler")
    grade.add_argument("--seed", type=int, help="seed of the random cases (default: a fresh one, recorded)")
    grade.add_argument("--memory-mb", type=int, metavar="MB", help="memory limit of each sandbox")
    grade.add_argument("--bot-games", type=int, metavar="N", help="bots assignment: games per board size (default 100)")
    grade.add_argument("--isolation", choices=["bwrap", "none"], default="bwrap", help=ISOLATION_HELP)
    grade.add_argument(
        "--tournament",
        type=Path,
        metavar="DIR",
        help="bots assignment: after grading, play every student's bot and the judge on the "
        "same seeded games (sandboxed, paired) and write the ranked leaderboard to DIR "
        "(CSV, JSON, a self-contained HTML page); the same as `mines tournament`",
    )
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    grade.add_argument(
        "--group-readable",
        action="store_true",
        help="let the group of DIR read the results: folders 0750 and files 0640 (the gradebook CSV too), "
        "for course staff sharing a group; by default only their owner can, 0700 and 0600 (DIR itself "
        "when the grader makes it; a DIR that exists keeps its mode unless it is 0700 or 0750). The results "
        "kept from an earlier run get the same modes; .grader-key stays 0600",
    )
    grade.add_argument(
        "--no-gradebook",
        action="store_true",
        help="inside an nbgrader course (SUBMISSION is the course, its submitted/ folder or a student's folder "
        "there), a student's only notebook under another name is first copied under the release's name, where "
        "nbgrader reads it; then the grades and feedback are written into the course's gradebook.db (each "
        "notebook's hidden-tests cell, worth the course's points + own_tests_points) with the course's late "
        "policy and import rule applied to each whole notebook (students `nbgrader autograde` has not run for "
        "are named). This leaves the course alone: no copy, no recording",
    )
    _add_course_option(grade)
    _add_originals_option(grade)


def _add_course_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the course's settings (course.toml: assignment names, points, limits, import rule, late "
        "policy, visibility, seed); default: course.toml in the current folder, else in the nbgrader "
        "course being graded, else the kit's defaults",
    )


def _course(args: argparse.Namespace) -> Course:
    """The course settings the command uses, said on stderr when they come from a file."""
    from .students import find_course, inside_submitted

    places = [find_course(p) for p in getattr(args, "submissions", None) or []]
    here = Path.cwd()
    students_folder = inside_submitted(here)  # a student's folder: nothing there is the course's
    if students_folder and args.course is None and (here / "course.toml").is_file():
        print(
            f"autograder: {safe(here / 'course.toml')} is in a student's folder (inside the course's submitted/): "
            "not read as the course's settings",
            file=sys.stderr,
        )
    path = find_course_file(args.course, *places, here=None if students_folder else here)
    course = load_course(path)
    if path is not None:
        print(f"autograder: course settings from {path}", file=sys.stderr)
    return course


def _add_originals_option(parser: argparse.ArgumentParser) -> None:
    """``--originals``: the one way, with ``AUTOGRADER_ORIGINALS``, to grade with data other than the kit's own."""
    parser.add_argument(
        "--originals",
        type=Path,
        metavar="DIR",
        help="the original assignments' test data to grade with, laid out as the copy the kit ships "
        "in autograder/instructor/data/originals (the default; the same as AUTOGRADER_ORIGINALS=DIR)",
    )


def _add_list(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder list``: the assignments with their tests and points."""
    listing = commands.add_parser(
        "list",
        help="the assignments, their tests and points",
        description="List the assignments with their hidden tests and points.",
    )
    listing.add_argument("--assignment", choices=list(ASSIGNMENTS), metavar="ID", help="only this assignment")


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder check``: one assignment's reference, starter and leaks."""
    check = commands.add_parser(
        "check",
        help="reference scores full marks, starter scores 0, nothing hidden leaks",
        description="Check an assignment before release: the reference solution scores full marks well "
        "inside the time budget, the starter (release) version scores 0 without crashing, "
        "and neither the release notebook nor the feedback shows hidden tests or solutions; all under the "
        "course's settings. With --course FILE and no --assignment, only check the course file and show "
        "what it sets for each assignment.",
    )
    check.add_argument("--assignment", choices=list(ASSIGNMENTS), metavar="ID", help=f"which assignment ({_IDS})")
    check.add_argument("--seed", type=int, default=1, help="seed of the random cases")
    check.add_argument("--bot-games", type=int, metavar="N", help="bots assignment: games to play (default 100)")
    check.add_argument("--isolation", choices=["bwrap", "none"], default="bwrap", help=ISOLATION_HELP)
    _add_course_option(check)
    _add_originals_option(check)


def _add_doctor(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder doctor``: what isolation this machine gives; with ``--dask``, every worker too."""
    doctor = commands.add_parser(
        "doctor",
        help="what isolation this machine gives untrusted code, and why",
        description="Probe this machine: is bubblewrap installed, does a sandbox really start, as root "
        "or in a user namespace, and which protections hold. Exit status 0 when untrusted "
        "code can be graded here, 1 when not (the message says how to fix it).",
    )
    doctor.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="also check every worker of this dask.distributed scheduler: a sandbox starts there, one "
        "thread per worker, the same kit version and code, the same hidden suites and original data as "
        "here; one line per worker, exit status 1 if any cannot grade, 2 if the scheduler does not answer",
    )
    _add_originals_option(doctor)


def _add_export(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder export-gradescope``: the zip and the isolation it asks Gradescope for."""
    export = commands.add_parser(
        "export-gradescope",
        help="write a Gradescope autograder zip running this grader",
        description="Write a Gradescope autograder (setup.sh, run_autograder, the grader and the hidden "
        "suite) for one assignment. Upload it as the assignment's autograder.",
    )
    export.add_argument("--assignment", required=True, choices=list(ASSIGNMENTS), metavar="ID")
    export.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"), metavar="ZIP")
    export.add_argument(
        "--isolation",
        choices=["bwrap", "none"],
        default="bwrap",
        help="bwrap (default): setup.sh installs bubblewrap and every submission runs in "
        "it; if Gradescope's container forbids it, the submission is not graded: the run "
        "fails, posting no score, and its output says why. none: the container is the only "
        "boundary (the student's code could then read the suite shipped in it and write its own results)",
    )
    _add_course_option(export)


def _add_report(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``autograder report``: the page over a graded batch, or the class page over several."""
    report = commands.add_parser(
        "report",
        help="one HTML page and a summary over a graded batch, or over a class's batches",
        description="Read the folder `autograder grade --results-dir` wrote and write one self-contained "
        "HTML page (no server or network needed): how many students were graded, did not load, were "
        "not graded (the grader failed) or did not submit, each counted apart; the score histogram; "
        "each test's pass rate worst first, over the submissions that loaded, with its most common "
        "failure messages; time per submission and who hit a time limit; who failed to load and why; "
        "and every student (file graded, score, lateness and penalty, seed, a link to their feedback) "
        "in a table sorted by clicking a column header. Prints a short summary. Given several "
        "RESULTS_DIRs (one per assignment), writes each one's RESULTS_DIR/report.html and a class page "
        "with one row per student and one column per assignment, and a total.",
    )
    report.add_argument(
        "results_dirs",
        nargs="+",
        type=Path,
        metavar="RESULTS_DIR",
        help="the --results-dir of a graded batch; several: one per assignment, for the class page",
    )
    report.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="HTML",
        help="where to write the page (default: RESULTS_DIR/report.html; with several RESULTS_DIRs, the "
        "class page, by default class-report.html in the first RESULTS_DIR's parent folder)",
    )


def _grade(args: argparse.Namespace) -> int:
    from .batch import BatchInterrupted, grade_batch
    from .report import summary_table

    if args.jobs < 1:
        raise ValueError(f"-j must be at least 1, got {args.jobs}")
    if args.tournament and get_assignment(args.assignment).id != "bots":  # refused before anything is graded
        raise ValueError("--tournament is for the bots assignment")
    course = _course(args)
    if args.wall_limit is not None:
        course = course.with_setting(args.assignment, "wall_limit", args.wall_limit)
    try:
        result = grade_batch(
            args.assignment,
            args.submissions,
            args.results_dir,
            csv_path=args.csv,
            time_limit=args.time_limit,
            jobs=args.jobs,
            force=args.force,
            dask_address=args.dask,
            seed=args.seed,
            memory_mb=args.memory_mb,
            test_time_limit=args.test_time_limit,
            settings={"bot_games": args.bot_games} if args.bot_games else None,
            progress=not args.no_progress,
            isolation=args.isolation,
            course=course,
            group_readable=args.group_readable,
            for_nbgrader=not args.no_gradebook,
            warn=lambda warning: print(f"autograder: warning: {safe(warning)}", file=sys.stderr),
        )
    except BatchInterrupted as stop:
        what = "SIGTERM" if stop.signal_number == signal.SIGTERM else "SIGINT (Ctrl+C)"
        csv = f" and {args.csv}" if args.csv else ""
        print(
            f"autograder: stopped by {what}: {stop.done} of {stop.total} submission(s) graded in this run; their "
            f"results in {args.results_dir}{csv} are kept. Run the same command again to grade the rest "
            f"(it resumes with seed {stop.seed}, recorded in {args.results_dir})",
            file=sys.stderr,
        )
        return exit_status(stop)
    print(summary_table(result.reports))
    not_graded = _report_not_graded(result.reports)
    recorded = True if args.no_gradebook else _record_in_gradebooks(args, course, result.reports)
    if args.tournament:
        _class_tournament(args, result.seed)
    print(
        f"seed {result.seed}; graded {len(result.graded)}, kept {len(result.skipped)} earlier result(s); "
        f"results in {args.results_dir}" + (f"; gradebook {args.csv}" if args.csv else "")
    )
    if not_graded:
        return EXIT_NOT_GRADED
    return 0 if recorded else EXIT_GRADEBOOK


def _record_in_gradebooks(args: argparse.Namespace, course: Course, reports: list[GradeReport]) -> bool:
    """Write the results into the gradebook of every nbgrader course the submissions lie in; False
    when one of them could not be written at all (the results folder has everything regardless)."""
    from .gradebook import record_in_gradebook
    from .report import write_gradebook_totals
    from .students import find_course

    roots = {root for root in (find_course(p) for p in args.submissions) if root is not None}
    assignment = course.assignment(args.assignment)
    written = True
    totals = {}
    for root in sorted(roots):
        summary = record_in_gradebook(root, assignment.folder, reports, late_policy=assignment.late, due=assignment.due)
        lines = summary.lines()
        if summary.problem is not None:
            written = False
            print(f"autograder: {safe(lines[0])}", file=sys.stderr)
        else:
            print("\n".join(safe(line) for line in lines))
            totals.update({student: total.to_dict() for student, total in summary.totals.items()})
    if roots:
        by_id = {r.handed_in_as or r.student: r.student for r in reports}
        write_gradebook_totals(
            args.results_dir,
            assignment.folder,
            {by_id.get(student, student): total for student, total in totals.items()},
            group_readable=args.group_readable,
        )
    return written


def _report_not_graded(reports: list[GradeReport]) -> int:
    """Tell the instructor, on stderr, why submissions were not graded: each distinct cause once,
    with the students it stopped. Returns how many were not graded."""
    from .report import not_graded_causes

    causes = not_graded_causes(reports)
    if not causes:
        return 0
    count = sum(r.status == NOT_GRADED for r in reports)
    lines = [
        f"autograder: {count} submission(s) NOT GRADED because of a problem on the grader's side (no score "
        "was given; their feedback says so). Fix the cause and grade again:"
    ]
    for cause, students in causes:
        shown = ", ".join(students[:10]) + (f" and {len(students) - 10} more" if len(students) > 10 else "")
        lines += [f"  - {safe(cause)}", f"    ({len(students)} submission(s): {safe(shown)})"]
    print("\n".join(lines), file=sys.stderr)
    return count


def _class_tournament(args: argparse.Namespace, seed: int) -> None:
    """Every graded bot (its code as graded: a notebook's kept cells, or the file) against the judge."""
    from minesweeper_kit.tournament import leaderboard_text, run_tournament

    from .students import discover
    from .submission import read_submission

    assignment = get_assignment(args.assignment)  # the bots assignment: _grade refuses any other
    folder = Path(args.tournament) / "bots"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for entry in discover(args.submissions, assignment.layout()):
        if entry.file is None:
            continue
        student = entry.student
        submission = read_submission(
            student, entry.file, keep_import=assignment.keeps_import, course_cells=assignment.course_cells()
        )
        if submission.problem or not submission.source.strip():
            continue
        target = folder / f"{student}.py"
        target.write_text(submission.source, encoding="utf-8")
        files.append(target)
    standings = run_tournament(
        [*files, "reference"],
        games=args.bot_games or 100,
        seed=seed,
        jobs=args.jobs,
        dask=args.dask,
        results_dir=args.tournament,
        progress=not args.no_progress,
    )
    print(leaderboard_text(standings))
    print(f"tournament: {len(files)} bot(s) and the judge; leaderboard in {args.tournament}")


def _list(args: argparse.Namespace) -> int:
    from .grading import list_tests

    listed: dict[str, str] = {}  # a suite already listed -> the assignment it was listed for
    for assignment in ASSIGNMENTS.values():
        if args.assignment and assignment.id != args.assignment:
            continue
        handed_in = f"notebook {assignment.notebook}" if assignment.notebook else assignment.handed_in
        print(f"{assignment.id}: {assignment.title} ({handed_in}, budget {assignment.time_limit:g} s)")
        try:
            tests = list_tests(assignment)
        except (InstructorMaterialMissing, RuntimeError) as error:
            print(f"  (tests unavailable: {str(error).splitlines()[0]})")
            continue
        suite = str(assignment.suite_path)
        if suite in listed:
            print(f"  {sum(t.max_score for t in tests):>4g}  total: the tests of {listed[suite]}, for this API")
            continue
        listed[suite] = assignment.id
        for test in tests:
            print(f"  {test.max_score:>4g}  {test.name}")
        print(f"  {sum(t.max_score for t in tests):>4g}  total")
    return 0


def _check(args: argparse.Namespace) -> int:
    from .check import check_assignment

    if args.assignment is None and args.course is None:
        raise ValueError("give --assignment ID (and optionally --course FILE), or --course FILE to check the file")
    course = _course(args)
    for assignment_id in [args.assignment] if args.assignment else list(ASSIGNMENTS):
        changes = course.describe(assignment_id)
        print(f"[ok] course settings for {assignment_id}: " + ("; ".join(changes) if changes else "the kit's defaults"))
    if args.assignment is None:
        return 0
    results = check_assignment(
        course.assignment(args.assignment),
        seed=args.seed,
        settings={"bot_games": args.bot_games} if args.bot_games else None,
        isolation=args.isolation,
        progress=lambda message: print(f"... {message}", flush=True),
    )
    for result in results:
        print(f"[{'ok' if result.ok else 'FAILED'}] {result.name}: {result.detail}")
    return 0 if all(r.ok for r in results) else 1


def _doctor(args: argparse.Namespace) -> int:
    from minesweeper_kit.sandbox.isolation import status

    found = status()
    print(found.describe())
    if not args.dask:
        return 0 if found.available else 1
    from .scaleout import ClusterUnreachable, check_cluster

    try:
        cluster = check_cluster(args.dask)
    except ClusterUnreachable as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    print(cluster.describe())
    return 0 if found.available and cluster.ok else 1


def _export(args: argparse.Namespace) -> int:
    from .gradescope import export

    path = export(args.assignment, args.output, args.isolation, course=_course(args))
    print(f"wrote {path}: upload it as the {args.assignment} autograder on Gradescope")
    return 0


def _report(args: argparse.Namespace) -> int:
    from .batch_report import report_command

    return report_command(args.results_dirs, args.output)


def main(argv: list[str] | None = None) -> int:
    """The ``autograder`` entry point: run one command; a user's mistake prints one line and returns
    2, not a traceback."""
    args = build_parser().parse_args(argv)
    if getattr(args, "originals", None) is not None:  # read by the suites' fixture, here and in workers
        os.environ[ORIGINALS_VARIABLE] = str(args.originals.resolve())
    handlers = {
        "grade": _grade,
        "list": _list,
        "check": _check,
        "doctor": _doctor,
        "export-gradescope": _export,
        "report": _report,
    }
    if args.command == "grade":  # SIGTERM stops the batch in order, as Ctrl+C does (see batch._grade_or_stop)
        stop_on_sigterm()
    with escaping_output():  # what students named and wrote reaches the terminal as text
        return _run(args, handlers)


def _run(args: argparse.Namespace, handlers: Mapping[str, Callable[[argparse.Namespace], int]]) -> int:
    try:
        return handlers[args.command](args)
    except (ValueError, InstructorMaterialMissing, IsolationUnavailable) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        advice = missing_package(error)
        if advice is None:
            raise
        print(f"autograder: error: {advice}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        what = "SIGTERM" if isinstance(stop, Terminated) else "SIGINT (Ctrl+C)"
        kept = "; the results written so far are kept: run it again to resume" if args.command == "grade" else ""
        print(f"autograder: stopped by {what}{kept}", file=sys.stderr)
        return exit_status(stop)


if __name__ == "__main__":
    sys.exit(main())
