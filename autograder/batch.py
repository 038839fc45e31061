"""Grade many submissions: parallel workers or a dask cluster, resumable, never stopped by one.

Each submission is read in this process and graded by :func:`grade_job`, a plain function of
plain data, so the same job runs inline, in a local process pool or on a dask.distributed
worker. A student graded before is skipped unless ``force`` is set, and only when the signed
record in the results folder verifies for this assignment and the same source file (see
:mod:`autograder.report`); anything else is graded again, and so is a submission the grader
failed on ("not graded"). A failure that concerns the whole batch (no bubblewrap, no hidden suite)
is found once, before any job, and leaves every submission to grade not graded.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import copy
import datetime as dt
import functools
import json
import multiprocessing
import os
import secrets
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from tqdm import tqdm

from minesweeper_kit.owntests.source import CodeCell
from minesweeper_kit.sandbox.lifecycle import remove_orphaned_folders
from minesweeper_kit.shutdown import Terminated, exit_status, stops_requested

from .assignments import ORIGINALS_VARIABLE, Assignment, get_assignment, originals_from
from .course import Course, apply_settings
from .grading import (
    GradeReport,
    TestOutcome,
    grade_submission,
    list_tests,
    not_graded_report,
    not_submitted_report,
    suite_problem,
)
from .report import (
    BATCH_RECORD,
    grader_key,
    make_results_dir,
    read_student,
    results_modes,
    set_modes,
    write_csv,
    write_results_file,
    write_student,
)
from .scale import Scale, on_course_scale
from .students import Found, discover, read_timestamp
from .submission import Submission, read_submission

__all__ = ["grade_job", "grade_batch", "BatchResult"]


@dataclass
class BatchResult:
    """What :func:`grade_batch` did: every report in the students' order, who was graded now, who
    kept an earlier result, and the seed that replays the run."""

    reports: list[GradeReport]
    graded: list[str]
    skipped: list[str]
    seed: int


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl+C or SIGTERM stopped a batch; what was finished is written (results and the CSV)."""

    def __init__(self, stop: KeyboardInterrupt, done: int, total: int, seed: int):
        super().__init__()
        self.signal_number = int(getattr(stop, "signal_number", signal.SIGINT))
        self.done, self.total, self.seed = done, total, seed


def grade_job(job: dict) -> dict:
    """Grade one submission given as plain data; never raises (a failure becomes a report)."""
    with originals_from(job.get("originals")):
        return _grade_job(job)


def _grade_job(job: dict) -> dict:
    assignment = apply_settings(get_assignment(job["assignment"]), job.get("course") or {})
    submission = Submission(
        **{k: v for k, v in job["submission"].items() if k != "path"}, path=Path(job["submission"]["path"])
    )
    submission.line_map = [(cell, line) for cell, line in submission.line_map]
    submission.test_cells = [CodeCell(**cell) if isinstance(cell, dict) else cell for cell in submission.test_cells]
    try:
        report = grade_submission(
            assignment,
            submission,
            seed=job["seed"],
            time_limit=job.get("time_limit"),
            hide=job.get("hide", []),
            memory_mb=job.get("memory_mb"),
            test_time_limit=job.get("test_time_limit"),
            settings=job.get("settings"),
            isolation=job.get("isolation", "bwrap"),
        )
    except Exception:  # noqa: BLE001 - one broken submission never stops the batch
        report = _failed_report(
            assignment.id, submission, job["seed"], traceback.format_exc(), job.get("isolation", "bwrap")
        )
    return report.to_dict()


def _failed_report(
    assignment_id: str, submission: Submission, seed: int, error: str, isolation: str = "bwrap"
) -> GradeReport:
    """The grader itself failed on this submission (an exception, a worker that died): not graded."""
    last = [line for line in error.strip().splitlines() if line.strip()][-1:] or ["no message"]
    cause = f"the grader failed on this submission: {last[0].strip()[:300]}"
    return not_graded_report(
        assignment_id,
        submission,
        seed,
        [cause],
        tests=_known_tests(assignment_id),
        internal_errors=[error[-4000:]],
        isolation=isolation,
    )


def _suite_points(assignment_id: str) -> float | None:
    """The hidden suite's own total, or None when it cannot be listed."""
    tests = _known_tests(assignment_id)
    return sum(t.max_score for t in tests) if tests else None


def _known_tests(assignment_id: str) -> list[TestOutcome]:
    """The hidden suite's tests, for the maximum score of a report the grader could not make; none
    when the suite cannot even be listed."""
    try:
        return list_tests(get_assignment(assignment_id))
    except Exception:  # noqa: BLE001 - the cause is reported elsewhere
        return []


def _jobs(
    assignment_id: str,
    submissions: list[Submission],
    seed: int,
    time_limit: float | None,
    hide: list[str],
    memory_mb: int | None,
    test_time_limit: float | None,
    settings: dict | None = None,
    isolation: str = "bwrap",
    course: dict | None = None,
) -> list[dict]:
    jobs = []
    for submission in submissions:
        data = asdict(submission)
        data["path"] = str(submission.path)
        jobs.append(
            {
                "assignment": assignment_id,
                "submission": data,
                "seed": seed,
                "time_limit": time_limit,
                "hide": hide,
                "memory_mb": memory_mb,
                "test_time_limit": test_time_limit,
                "settings": dict(settings or {}),
                "isolation": isolation,
                "course": dict(course or {}),
                # --originals: a dask worker is another process, maybe another machine; it reads the
                # same path (a shared folder), and doctor --dask checks it holds the same files
                "originals": os.environ.get(ORIGINALS_VARIABLE),
            }
        )
    return jobs


def _run_local(jobs: list[dict], workers: int, done: Callable[[dict, dict], None]) -> None:
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            done(job, _grade_or_stop(job))
        return
    try:
        _run_in_pools(jobs, workers, done)
    finally:  # a worker killed, or ended by the pool, leaves its sandboxes' folders behind
        remove_orphaned_folders()


#: How often, in seconds, the batch looks for a pool worker that died without its pool noticing.
_WATCH_SECONDS = 2.0
_LOST_WORKER = "a grading worker process ended while grading (killed, or out of memory)"


def _run_in_pools(jobs: list[dict], workers: int, done: Callable[[dict, dict], None]) -> None:
    """The jobs on a pool of ``workers`` processes; a pool a crash broke is replaced for the jobs
    it had not finished. Ctrl+C or SIGTERM, wherever it lands (a pool starting, jobs being handed
    out, a broken pool being replaced, the last results coming in), stops every worker: no pool is
    ever left to finish its jobs first.

    A worker that dies does not always break its pool: under load, CPython's pool (3.11) can miss
    the death and wait for that job for ever. So the batch also watches the workers itself, and a
    pool with a dead worker is treated as broken."""
    context = multiprocessing.get_context("spawn")
    pending = list(jobs)
    asked_before = len(stops_requested())
    while pending:
        _stop_if_asked(asked_before)
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=min(workers, len(pending)),
            mp_context=context,
            initializer=_start_worker,
            initargs=(tempfile.gettempdir(),),
        )
        try:
            futures = {pool.submit(_pool_job, job): job for job in pending}
            order = {future: index for index, future in enumerate(futures)}
            pending = []
            broken = False
            waiting = set(futures)
            while waiting:
                finished, waiting = concurrent.futures.wait(
                    waiting, timeout=_WATCH_SECONDS, return_when=concurrent.futures.FIRST_COMPLETED
                )
                _stop_if_asked(asked_before)
                for future in sorted(finished, key=order.__getitem__):
                    job = futures[future]
                    try:
                        done(job, future.result())
                    except concurrent.futures.process.BrokenProcessPool:
                        if broken:
                            pending.append(job)
                        else:
                            broken = True
                            done(job, _crash(job))
                    except Exception:  # noqa: BLE001
                        done(job, _crash(job))
                if not finished and waiting and _lost_a_worker(pool):
                    lost = sorted(waiting, key=order.__getitem__)
                    if not broken:
                        done(futures[lost[0]], _crash(futures[lost[0]], _LOST_WORKER))
                        lost = lost[1:]
                    pending += [futures[future] for future in lost]
                    waiting = set()
                    _stop_workers(pool)
            pool.shutdown(wait=True)
        except BaseException:  # Ctrl+C or SIGTERM: no worker or sandbox may outlive the batch
            _stop_workers(pool)
            raise


def _stop_if_asked(asked_before: int) -> None:
    """Raise the interrupt of a stop asked since the batch began whose own exception never came
    out (raised inside a finalizer, say, where Python drops it): the batch still stops."""
    asked = stops_requested()[asked_before:]
    if asked:
        raise _interrupt(asked[0])


def _lost_a_worker(pool: concurrent.futures.ProcessPoolExecutor) -> bool:
    """Whether a worker of a pool still at work has ended (its pool may not have noticed)."""
    return any(worker.exitcode is not None for worker in list((pool._processes or {}).values()))


def _grade_or_stop(job: dict) -> dict:
    """:func:`grade_job`, which Ctrl+C and SIGTERM stop as a whole. The hidden suite runs under
    pytest, which ends its session on the KeyboardInterrupt they raise (closing the sandbox) and
    then returns, so grade_job would return a report of the interrupted grading and the batch go
    on; here the interrupt is raised again once grading has stopped. A second signal meanwhile is
    ignored, so the sandbox's clean-up is not cut short."""
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        return grade_job(job)
    caught: list[int] = []

    def stop(number: int, frame: FrameType | None) -> None:
        if not caught:
            caught.append(number)
            raise _interrupt(number)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = grade_job(job)
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
    if caught:
        raise _interrupt(caught[0])
    return result


def _interrupt(number: int) -> KeyboardInterrupt:
    return Terminated() if number == signal.SIGTERM else KeyboardInterrupt()


def _start_worker(temporary_folder: str) -> None:
    """In each pool worker, before its first job: SIGTERM or Ctrl+C between jobs ends the worker
    quietly, its exit handlers run (while grading, :func:`_grade_or_stop` handles them). The
    temporary folder is the batch's own, given rather than looked up: Python looks it up by
    writing and removing a probe file there, and a worker killed in the middle (SIGKILL, or a
    signal between the two steps) would leave that file behind."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _end_idle_worker)
    tempfile.tempdir = temporary_folder


def _end_idle_worker(number: int, frame: FrameType | None) -> None:
    _ignore_signals()
    raise SystemExit(128 + number)  # the pool's worker loop lets it through, and the process ends


def _ignore_signals() -> None:
    """A worker that is ending ignores SIGINT and SIGTERM (the pool and the batch may both send
    one), so they cannot cut its exit handlers short. A handler, not SIG_IGN, which children keep."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda number, frame: None)


def _pool_job(job: dict) -> dict:
    """A job in a pool worker. Stopped by SIGTERM or Ctrl+C, the worker has closed the sandbox by
    the time the interrupt reaches here; it then ends at once, rather than let the pool give it
    another submission."""
    try:
        return _grade_or_stop(job)
    except KeyboardInterrupt as stop:
        _ignore_signals()
        try:
            atexit._run_exitfuncs()  # what a normal exit runs: the sandbox runtime's and cgroups' removal
        finally:
            os._exit(exit_status(stop))


def _stop_workers(pool: concurrent.futures.ProcessPoolExecutor, grace: float = 60.0) -> None:
    """Cancel the jobs not started and stop every worker: SIGTERM ends the grading under way in
    order and then the worker (see :func:`_pool_job`); one still there after ``grace`` seconds is
    killed, and bubblewrap ends its sandbox with it. The workers are the pool's and every other
    process this one started through multiprocessing: a broken pool forgets its own."""
    workers: dict[int, multiprocessing.process.BaseProcess] = {
        id(w): w
        for w in (pool._processes or {}).values()  # the pool gives no public handle on them
    }
    workers.update((id(w), w) for w in multiprocessing.active_children())
    manager, wakeup = pool._executor_manager_thread, pool._executor_manager_thread_wakeup  # gone after shutdown
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers.values():
        with contextlib.suppress(OSError, ValueError):
            worker.terminate()
    deadline = time.monotonic() + grace
    for worker in workers.values():
        with contextlib.suppress(ValueError):
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.exitcode is None:
                worker.kill()
                worker.join()
    _release_manager(manager, wakeup)


def _release_manager(manager: Any, wakeup: Any) -> None:
    """Let a stopped pool's manager thread end: with every worker gone, the results of the jobs
    they were running never come, and a manager that missed a worker's death (see
    :func:`_run_in_pools`) would wait for them for ever, and the interpreter with it at exit."""
    if manager is None or not manager.is_alive():
        return
    with contextlib.suppress(Exception):  # the pool's internals: whatever their state, never raise
        while True:  # the jobs not handed out yet: the manager would look each one up
            manager.work_ids_queue.get_nowait()
    with contextlib.suppress(Exception):
        manager.pending_work_items.clear()
        wakeup.wakeup()


def _crash(job: dict, error: str | None = None) -> dict:
    """The report of a job whose grading failed in the grader (the exception being handled, or
    ``error``): not graded."""
    submission = Submission(job["submission"]["student"], Path(job["submission"]["path"]))
    error = error or traceback.format_exc()
    return _failed_report(job["assignment"], submission, job["seed"], error, job.get("isolation", "bwrap")).to_dict()


def _run_dask(jobs: list[dict], address: str, done: Callable[[dict, dict], None]) -> None:
    from distributed import Client, as_completed

    with Client(address) as client:
        futures = client.map(grade_job, jobs, pure=False)
        index = {future.key: job for future, job in zip(futures, jobs)}
        for future in as_completed(futures):
            job = index[future.key]
            try:
                done(job, future.result())
            except Exception:  # noqa: BLE001
                done(job, _crash(job))


def grade_batch(
    assignment_id: str,
    paths: Iterable[Path],
    results_dir: Path,
    *,
    csv_path: Path | None = None,
    time_limit: float | None = None,
    jobs: int | None = None,
    force: bool = False,
    dask_address: str | None = None,
    seed: int | None = None,
    memory_mb: int | None = None,
    progress: bool = True,
    hide: list[str] | None = None,
    test_time_limit: float | None = None,
    settings: dict | None = None,
    isolation: str = "bwrap",
    course: Course | None = None,
    warn: Callable[[str], None] | None = None,
    group_readable: bool = False,
    for_nbgrader: bool = False,
    upload: bool = False,
) -> BatchResult:
    """Grade every submission under ``paths`` and write results, feedback and the gradebook.

    ``course`` holds the course's settings (names, points, limits, import rule, late policy,
    seed); without it the kit's defaults apply. The seed and settings are recorded in the
    results folder: a later run resumes with them, and refuses a different ``seed`` or changed
    settings unless ``force`` regrades everything. A student with nothing to grade is "not
    submitted". ``isolation="bwrap"`` (the default) grades nothing on a machine that cannot
    isolate untrusted code: every submission to grade is then "not graded", with the reason as
    its cause, as when the hidden suite is missing; ``"none"`` grades anyway (trusted code only).
    Ctrl+C or SIGTERM raises :class:`BatchInterrupted` once the finished results and the CSV of
    them are written. What is written is its owner's only (folders 0700, files 0600, the results
    folder too when made here); ``group_readable`` makes it 0750 and 0640, results kept from an
    earlier run included. ``warn`` is told, before grading, of each group of students whose names
    collide (each is graded under an id of its own). ``for_nbgrader``: in an nbgrader course, a
    student's only notebook under another name is copied under the release's name first, where
    nbgrader's autograde reads it, and the copy is graded (see ``gradebook.place_for_nbgrader``)."""
    course_settings = (course or Course(None, {})).settings(assignment_id)
    assignment = apply_settings(get_assignment(assignment_id), course_settings)
    results_dir = Path(results_dir)
    make_results_dir(results_dir, group_readable=group_readable)
    set_modes(results_dir, group_readable=group_readable)
    paths = [Path(p) for p in paths]
    found = discover(paths, assignment.layout(), upload=upload)  # ValueError before anything is graded
    if for_nbgrader:
        from .gradebook import place_for_nbgrader

        found = [place_for_nbgrader(entry, assignment.handed_in) for entry in found]
    for warning in dict.fromkeys(entry.warning for entry in found if entry.warning):  # each collision once
        if warn is not None:
            warn(warning)
    for entry in found:
        problem = read_timestamp(entry.timestamp)[1] if entry.timestamp else ""
        if problem and warn is not None:
            warn(f"{entry.student}: {problem}: read as no timestamp (lateness not counted)")
    grader_key(results_dir)  # an unusable key stops the batch now, not after grading
    seed = _batch_seed(results_dir, assignment, seed, course_settings, force, results_modes(group_readable)[1])
    maximum = functools.cache(lambda: Scale.of(assignment, _suite_points(assignment.id)).maximum)
    reports, skipped, todo = _kept_and_todo(
        assignment,
        found,
        results_dir,
        seed,
        force=force,
        isolation=isolation,
        group_readable=group_readable,
        finish=lambda report, entry: finish_report(report, assignment, entry, maximum),
    )
    origin = {entry.student: entry for entry in found}
    hidden = [str(results_dir.resolve())] + [str(p.resolve()) for p in paths] + list(hide or [])
    job_list = _jobs(
        assignment.id, todo, seed, time_limit, hidden, memory_mb, test_time_limit, settings, isolation, course_settings
    )
    workers = jobs or os.cpu_count() or 1
    cause = _batch_problem(assignment, isolation) if job_list else None

    def finish(report: GradeReport) -> GradeReport:
        return finish_report(report, assignment, origin.get(report.student), maximum)

    try:
        if cause is not None:  # nothing can be graded: say so for each submission, with no job run
            tests = _known_tests(assignment.id)
            for job, submission in zip(job_list, todo):
                report = not_graded_report(
                    assignment.id, submission, seed, [cause], tests=copy.deepcopy(tests), isolation=isolation
                )
                _write(job, finish(report), results_dir, reports, group_readable)
        else:
            _grade_jobs(
                job_list,
                assignment.id,
                results_dir,
                reports,
                workers,
                dask_address,
                progress,
                finish,
                group_readable=group_readable,
            )
    except KeyboardInterrupt as stop:
        ordered = [reports[e.student] for e in found if e.student in reports]
        if csv_path is not None:
            write_csv(ordered, Path(csv_path), group_readable=group_readable)
        graded_now = sum(j["submission"]["student"] in reports for j in job_list)
        raise BatchInterrupted(stop, graded_now, len(job_list), seed) from None
    ordered = [reports[e.student] for e in found if e.student in reports]
    if csv_path is not None:
        write_csv(ordered, Path(csv_path), group_readable=group_readable)
    return BatchResult(ordered, [j["submission"]["student"] for j in job_list], skipped, seed)


def _batch_seed(
    results_dir: Path, assignment: Assignment, seed: int | None, course_settings: dict, force: bool, mode: int = 0o600
) -> int:
    """The seed of this batch, recorded in the results folder before anything is graded.

    A results folder that already graded this assignment resumes with its seed and settings:
    one gradebook never mixes two seeds. A different ``seed`` (or the course's) or changed
    settings are refused unless ``force`` regrades everyone."""
    record_path = results_dir / BATCH_RECORD
    record: dict = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(record_path.read_text(encoding="utf-8"))
        record = loaded if isinstance(loaded, dict) else {}
    earlier = record.get(assignment.id)
    chosen = seed if seed is not None else assignment.seed
    if isinstance(earlier, dict) and isinstance(earlier.get("seed"), int) and not force:
        if chosen is not None and chosen != earlier["seed"]:
            raise ValueError(
                f"{results_dir} holds {assignment.id} results graded with seed {earlier['seed']}; seed {chosen} "
                "would mix two seeds in one gradebook. Grade again without --seed (or with the same one) to "
                "resume, or add --force to regrade everyone with the new seed"
            )
        if earlier.get("course", {}) != course_settings:
            raise ValueError(
                f"{results_dir} holds {assignment.id} results graded under other course settings "
                f"({earlier.get('course', {})}); add --force to regrade everyone under the current ones"
            )
        return int(earlier["seed"])
    chosen = secrets.randbits(31) if chosen is None else int(chosen)
    record[assignment.id] = {"seed": chosen, "course": course_settings}
    write_results_file(record_path, (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8"), mode)
    return chosen


def finish_report(
    report: GradeReport, assignment: Assignment, found: Found | None, maximum: Callable[[], float] | None = None
) -> GradeReport:
    """The course's view of a report the hidden suite made: the file graded and the note on it,
    the course's name of the assignment, points on the course's scale (``scale.py``; ``maximum``
    gives the scale's maximum for a report without tests, such as a student who submitted
    nothing), the tests' visibility, and lateness with its penalty."""
    if found is not None:
        report.file = found.relative
        if found.origin.name != report.student:
            report.handed_in_as = found.origin.name
        if found.note and found.note not in report.notes:
            report.notes.append(found.note)
    report.assignment_name = assignment.folder
    on_course_scale(report, assignment)
    if not report.tests and maximum is not None:
        report.max_score = maximum()
    report.visibility = assignment.visibility
    for test in report.tests:
        test.visibility = assignment.visibility
    when, problem = read_timestamp(found.timestamp) if found is not None and found.timestamp else (None, "")
    if problem:
        note = f"Lateness was not counted: {problem}."
        if note not in report.notes:
            report.notes.append(note)
    if when is not None:
        report.submitted_at = when.isoformat()
        due = dt.datetime.fromisoformat(assignment.due) if assignment.due else None
        report.late_by = max(0.0, (when - due).total_seconds()) if due else 0.0
        report.late = report.late_by > assignment.late.grace_minutes * 60
        if report.late and report.score is not None:
            report.penalty = assignment.late.penalty(report.late_by, report.score, report.max_score)
            report.score = round(report.score - report.penalty, 4)
    return report


def _batch_problem(assignment: Assignment, isolation: str) -> str | None:
    """Why no submission of this batch can be graded (this machine cannot isolate as asked, the
    hidden suite is missing or unreadable), or None."""
    from minesweeper_kit.sandbox.isolation import IsolationUnavailable, require_isolation

    try:
        require_isolation(isolation)
    except IsolationUnavailable as error:
        return f"the sandbox could not start: {error}"
    return suite_problem(assignment)


def _kept_and_todo(
    assignment: Assignment,
    found: list[Found],
    results_dir: Path,
    seed: int,
    *,
    force: bool,
    isolation: str,
    group_readable: bool = False,
    finish: Callable[[GradeReport, Found], GradeReport],
) -> tuple[dict[str, GradeReport], list[str], list[Submission]]:
    """Read every student's submission and split them: the earlier results kept (signed for the
    same file, graded with the same seed and isolation, and not ``force``), and the submissions
    to grade. A student with nothing to grade gets a "not submitted" report, written now."""
    reports: dict[str, GradeReport] = {}
    skipped, todo = [], []
    for entry in found:
        if entry.file is None:
            report = not_submitted_report(assignment.id, entry.student, seed, entry.missing)
            write_student(finish(report, entry), results_dir, group_readable=group_readable)
            reports[entry.student] = report
            continue
        submission = read_submission(
            entry.student, entry.file, keep_import=assignment.keeps_import, course_cells=assignment.course_cells()
        )
        previous = (
            None
            if force
            else read_student(
                results_dir,
                entry.student,
                assignment.id,
                source_name=submission.source_file,
                source_sha256=submission.sha256,
            )
        )
        # never keep an unisolated grade, nor a submission the grader failed on
        if previous is not None and previous.isolation == isolation and previous.graded and previous.seed == seed:
            reports[entry.student] = previous
            skipped.append(entry.student)
        else:
            todo.append(submission)
    return reports, skipped, todo


def _grade_jobs(
    job_list: list[dict],
    assignment_id: str,
    results_dir: Path,
    reports: dict[str, GradeReport],
    workers: int,
    dask_address: str | None,
    progress: bool,
    finish: Callable[[GradeReport], GradeReport] = lambda report: report,
    *,
    group_readable: bool = False,
) -> None:
    """Run the jobs locally or on dask; each result, put in the course's terms by ``finish``, is
    written to ``results_dir`` and added to ``reports`` as it arrives, under a progress bar."""
    bar = tqdm(
        total=len(job_list), desc=f"grading {assignment_id}", unit="submission", disable=not progress or not job_list
    )

    def done(job: dict, result: dict) -> None:
        report = finish(GradeReport.from_dict(result))
        _write(job, report, results_dir, reports, group_readable)
        bar.update(1)
        score = "not graded" if report.score is None else f"{report.score:g}/{report.max_score:g}"
        bar.set_postfix_str(f"{report.student}: {score}")

    try:
        if dask_address:
            _run_dask(job_list, dask_address, done)
        else:
            _run_local(job_list, workers, done)
    finally:
        bar.close()


def _write(
    job: dict, report: GradeReport, results_dir: Path, reports: dict[str, GradeReport], group_readable: bool = False
) -> None:
    """Write one student's results (signed for the file graded) and keep the report; a Ctrl+C or
    SIGTERM meanwhile takes effect once both are done, so the CSV written on the way out has a row
    for every student whose results are on disk."""
    with _signals_held():
        write_student(
            report,
            results_dir,
            source_name=job["submission"]["source_file"],
            source_sha256=job["submission"]["sha256"],
            group_readable=group_readable,
        )
        reports[report.student] = report


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends, then act as they would have (in the main
    thread, the only one Python's handlers run in; elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    numbers = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, lambda number, frame: held.append(number)) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if held:
            signal.raise_signal(held[0])
