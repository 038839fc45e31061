"""What a student uploads is data, on Gradescope as anywhere: it can neither stop the run nor keep
the grader reading it for hours.

* A Gradescope upload holding an ``nbgrader_config.py`` (or a ``gradebook.db``) beside a link named
  ``submitted`` is taken for an nbgrader course whose ``submitted/`` is a link, which stops a batch
  "with a message (the course is the instructor's)". On Gradescope the upload is the student's: the
  run ends with a traceback, exit status 1 and no ``results.json``, so the student's code, which
  scores 0, gets no score at all. The README: everything a student hands in "can fail only that
  student's tests, never make the grader raise or turn a grade into 'not graded'", and on
  Gradescope "an upload holding a link ... is graded 0 naming the link".
* A notebook of many code cells marked as solutions is read in time that grows with the square of
  their number (every cell is looked for among the solutions with a linear scan), before any limit
  on the code applies: 20,000 empty cells (1.3 MB) cost the grader some 17 s of CPU time, a 20 MB
  notebook (333,000 cells) more than an hour, in the batch's own process, before any sandbox starts
  and outside every budget. The README bounds reading "in size and time".
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.gradescope import export


@pytest.fixture(scope="module")
def gradescope_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gradescope")
    archive = export("hypermines", root / "autograder.zip")
    zipfile.ZipFile(archive).extractall(root / "source")
    return root


def _run_autograder(root: Path, home: Path) -> subprocess.CompletedProcess:
    (root / "results").mkdir(exist_ok=True)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable, "HOME": str(home)}
    return subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env=env, timeout=600, cwd=home)


@pytest.mark.parametrize("marker", ["nbgrader_config.py", "gradebook.db"])
def test_an_upload_that_looks_like_a_course_with_a_linked_submitted_folder_is_still_scored(
    tmp_path, gradescope_root, marker
):
    upload = gradescope_root / "submission"
    upload.mkdir()
    try:
        (upload / "lab.py").write_text("x = 1\n")
        (upload / marker).write_text("c = get_config()\n")
        (upload / "submitted").symlink_to("/nonexistent")
        done = _run_autograder(gradescope_root, tmp_path)
        results = gradescope_root / "results" / "results.json"
        assert done.returncode == 0 and results.is_file(), (
            f"exit status {done.returncode}, no results.json: Gradescope posts no score\n{done.stderr[-1500:]}"
        )
        assert json.loads(results.read_text())["score"] == 0
    finally:
        subprocess.run(["rm", "-rf", str(upload), str(gradescope_root / "results")], check=True)


#: One empty code cell marked as a solution, as nbgrader marks them.
SOLUTION_CELL = '{"cell_type":"code","metadata":{"nbgrader":{"solution":true}}}'
#: Reads the notebook named on the command line as the batch does, and prints the problem found.
READ = r'''
import sys
from pathlib import Path
from autograder.assignments import get_assignment
from autograder.submission import read_submission

assignment = get_assignment("hypermines")
found = read_submission("mallory", Path(sys.argv[1]), keep_import=assignment.keeps_import,
                        course_cells=assignment.course_cells())
print(found.problem)
'''


def test_a_notebook_of_many_solution_cells_is_read_in_bounded_time(tmp_path):
    """150,000 empty solution cells, 9.5 MB (under the 20 MB a file may be): read as a batch reads
    it, in a process allowed 30 s of CPU time. A reader linear in the cells needs about a second; the
    quadratic scan needs some 15 minutes and is stopped by the limit (SIGXCPU)."""
    notebook = tmp_path / "mallory.ipynb"
    cells = ",".join([SOLUTION_CELL] * 150_000)
    notebook.write_text('{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[' + cells + "]}")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (30, 30))

    done = subprocess.run([sys.executable, "-c", READ, str(notebook)], capture_output=True, text=True,
                          timeout=600, preexec_fn=limit)
    assert done.returncode == 0, (
        f"reading a {notebook.stat().st_size >> 20} MB notebook took more than 30 s of the grader's CPU time "
        f"(exit status {done.returncode}); {done.stderr[-800:]}"
    )
    assert "too much code" in done.stdout or "could not be read" in done.stdout, done.stdout


def test_a_huge_test_py_is_refused_before_parsing_and_the_grader_stays_small(tmp_path):
    """The 512 KB limit on a ``.py`` file's code is the graded file's: the ``test.py`` beside it is
    read up to 2 MB (``own_tests.MAX_TEST_FILE``) and parsed in the grader's own process (for the
    imports to preload, and again for the import rule as each tests' sandbox starts): 2 MB of
    one-line statements take the grader past 800 MB, where the README keeps reading a submission
    "within a few hundred MB". The grader's processes must stay under 400 MB, as for a 20 MB
    ``lab.py`` (``test_redteam_inputs.py``)."""
    import os

    from redteam_harness import GraderWatch

    folder = tmp_path / "submitted" / "mallory"
    folder.mkdir(parents=True)
    (folder / "lab.py").write_text("x = 1\n")
    line = "x = 1\n"
    tiny = "\nimport unittest\n\n\nclass TestTiny(unittest.TestCase):\n    def test_one(self):\n        pass\n"
    (folder / "test.py").write_text(line * ((2 << 20) // len(line) - 20) + tiny)
    watch = GraderWatch(os.getpid(), include_root=False, only_new=True)  # not servers other tests started
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines",
                           str(folder.parent), "--results-dir", str(tmp_path / "results"), "--no-progress", "-j", "1",
                           "--seed", "3"], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    peak, _ = watch.stop()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert peak < 400, f"a grader process reached {peak:.0f} MB reading a 2 MB test.py"
