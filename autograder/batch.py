"""Grade many submissions: parallel workers or a dask cluster, resumable, never stopped by one.

Each submission is read in this process and graded by :func:`grade_job`, a plain function of
plain data, so the same job runs inline, in a local process pool or on a dask.distributed
worker. A student graded before is skipped unless ``force`` is set, and only when the signed
record in the results folder verifies for this assignment and the same source file (see
:mod:`autograder.report`); anything else is graded again.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import secrets
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from tqdm import tqdm

from .assignments import Assignment, InstructorMaterialMissing, get_assignment
from .grading import GradeReport, grade_submission, list_tests
from .report import grader_key, read_student, write_csv, write_student
from .submission import Submission, discover, read_submission

__all__ = ["grade_job", "grade_batch", "BatchResult"]


@dataclass
class BatchResult:
    """What :func:`grade_batch` did: every report in the students' order, who was graded now, who
    kept an earlier result, and the seed that replays the run."""

    reports: list[GradeReport]
    graded: list[str]
    skipped: list[str]
    seed: int


def grade_job(job: dict) -> dict:
    """Grade one submission given as plain data; never raises (a failure becomes a report)."""
    assignment = get_assignment(job["assignment"])
    submission = Submission(
        **{k: v for k, v in job["submission"].items() if k != "path"}, path=Path(job["submission"]["path"])
    )
    submission.line_map = [(cell, line) for cell, line in submission.line_map]
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
        report = _failed_report(assignment.id, submission, job["seed"], traceback.format_exc())
    return report.to_dict()


def _failed_report(assignment_id: str, submission: Submission, seed: int, error: str) -> GradeReport:
    try:
        tests = list_tests(get_assignment(assignment_id))
    except Exception:  # noqa: BLE001
        tests = []
    for test in tests:
        test.output = "not graded: the grader failed on this submission (reported to the instructor)"
    return GradeReport(
        submission.student,
        assignment_id,
        0.0,
        sum(t.max_score for t in tests),
        0.0,
        seed,
        tests,
        submission.describe(),
        "the grader failed on this submission",
        internal_errors=[error[-4000:]],
    )


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
            }
        )
    return jobs


def _run_local(jobs: list[dict], workers: int, done: Callable[[dict, dict], None]) -> None:
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            done(job, grade_job(job))
        return
    context = multiprocessing.get_context("spawn")
    pending = list(jobs)
    while pending:
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=context) as pool:
            futures = {pool.submit(grade_job, job): job for job in pending}
            pending = []
            broken = False
            for future in concurrent.futures.as_completed(futures):
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


def _crash(job: dict) -> dict:
    submission = Submission(job["submission"]["student"], Path(job["submission"]["path"]))
    return _failed_report(job["assignment"], submission, job["seed"], traceback.format_exc()).to_dict()


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
) -> BatchResult:
    """Grade every submission under ``paths`` and write results, feedback and the gradebook.

    ``isolation="bwrap"`` (the default) stops at once with a clear message on a machine that
    cannot isolate untrusted code; ``"none"`` grades anyway (trusted code only)."""
    assignment = _ready_assignment(assignment_id, isolation)
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    seed = secrets.randbits(31) if seed is None else int(seed)
    paths = [Path(p) for p in paths]
    students = discover(paths, assignment.preferred_files())  # ValueError before anything is graded
    grader_key(results_dir)  # an unusable key stops the batch now, not after grading
    reports, skipped, todo = _kept_and_todo(assignment, students, results_dir, force=force, isolation=isolation)
    hidden = [str(results_dir.resolve())] + [str(p.resolve()) for p in paths] + list(hide or [])
    job_list = _jobs(assignment.id, todo, seed, time_limit, hidden, memory_mb, test_time_limit, settings, isolation)
    workers = jobs or os.cpu_count() or 1
    _grade_jobs(job_list, assignment.id, results_dir, reports, workers, dask_address, progress)
    ordered = [reports[s] for s, _ in students if s in reports]
    if csv_path is not None:
        write_csv(ordered, Path(csv_path))
    return BatchResult(ordered, [j["submission"]["student"] for j in job_list], skipped, seed)


def _ready_assignment(assignment_id: str, isolation: str) -> Assignment:
    """The assignment, once this machine can isolate as asked and its hidden suite is there."""
    from minesweeper_kit.sandbox.isolation import require_isolation

    require_isolation(isolation)
    assignment = get_assignment(assignment_id)
    if not assignment.suite_path.is_file():  # raises first when the instructor folder is missing
        raise InstructorMaterialMissing(f"the hidden suite {assignment.suite_path} does not exist")
    return assignment


def _kept_and_todo(
    assignment: Assignment, students: list[tuple[str, Path | None]], results_dir: Path, *, force: bool, isolation: str
) -> tuple[dict[str, GradeReport], list[str], list[Submission]]:
    """Read every student's submission and split them: the earlier results kept (signed for the
    same file, graded with the same isolation, and not ``force``), and the submissions to grade."""
    reports: dict[str, GradeReport] = {}
    skipped, todo = [], []
    for student, path in students:
        submission = read_submission(student, path, keep_import=assignment.keeps_import)
        previous = (
            None
            if force
            else read_student(
                results_dir, student, assignment.id, source_name=submission.source_file, source_sha256=submission.sha256
            )
        )
        if previous is not None and previous.isolation == isolation:  # never keep an unisolated grade
            reports[student] = previous
            skipped.append(student)
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
) -> None:
    """Run the jobs locally or on dask; each result is written to ``results_dir`` and added to
    ``reports`` as it arrives, under a progress bar."""
    bar = tqdm(
        total=len(job_list), desc=f"grading {assignment_id}", unit="submission", disable=not progress or not job_list
    )

    def done(job: dict, result: dict) -> None:
        report = GradeReport.from_dict(result)
        write_student(
            report, results_dir, source_name=job["submission"]["source_file"], source_sha256=job["submission"]["sha256"]
        )
        reports[report.student] = report
        bar.update(1)
        bar.set_postfix_str(f"{report.student}: {report.score:g}/{report.max_score:g}")

    try:
        if dask_address:
            _run_dask(job_list, dask_address, done)
        else:
            _run_local(job_list, workers, done)
    finally:
        bar.close()
