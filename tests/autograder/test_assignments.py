"""Every assignment is ready: reference full marks, starter 0, no leaks; the original file shapes."""

from __future__ import annotations

import dataclasses

import nbformat

import autograder.check as check_module
import autograder.references as references
from autograder.assignments import get_assignment
from autograder.batch import grade_batch
from autograder.check import check_assignment, reference_submission
from autograder.notebook import notebook_code


# That `autograder check` passes on every assignment is tested once, through the command line, in
# tests/test_stands_alone.py.


def test_check_catches_a_release_that_keeps_the_solutions(monkeypatch):
    """The check fails a release that still holds the solutions. The students' own tests are not
    graded here, as for the reference file in check.py: the subject is the release, and the check
    grades the model answer's own tests in tests/test_stands_alone.py."""
    assignment = dataclasses.replace(get_assignment("make-board"), own_tests=False)
    uncleared = nbformat.read(str(assignment.notebook_path), as_version=4)
    monkeypatch.setattr(check_module, "release_notebook", lambda a: uncleared)
    monkeypatch.setattr(references, "release_notebook", lambda a: uncleared)  # what the starter is made from
    results = {r.name: r for r in check_assignment(assignment, seed=3)}
    assert not results["starter version scores 0 without crashing"].ok
    leak = results["release notebook and feedback contain no hidden tests or solution code"]
    assert not leak.ok and "release notebook shows solution code" in leak.detail


def test_the_check_holds_the_reference_to_half_the_budget_in_cpu_time():
    """The budget counts the hidden tests' CPU seconds, and so does the check's "well inside the
    limit": a reference graded slowly on the clock (a busy machine, its own tests' grading) passes
    while its hidden tests use under half the budget, and fails once they use more."""
    from autograder.grading import OWN_TESTS, OWN_TESTS_ID, GradeReport, TestOutcome

    def graded(hidden_seconds: float) -> GradeReport:
        tests = [TestOutcome("a test", 10, "test_a", 10, "passed", seconds=hidden_seconds / 2),
                 TestOutcome("another", 10, "test_b", 10, "passed", seconds=hidden_seconds / 2),
                 TestOutcome(OWN_TESTS, 0, OWN_TESTS_ID, 0, "passed", seconds=40.0)]
        return GradeReport("reference", "make-board", 20, 20, execution_time=95.0, seed=1, tests=tests)

    def check(hidden_seconds: float):
        return check_module._check_reference("well inside", lambda: None, lambda _: graded(hidden_seconds), 100.0)[0]

    inside, over = check(49.0), check(51.0)
    assert inside.ok, inside.detail
    assert not over.ok, over.detail
    assert inside.detail.startswith("20/20 in 49.0 s of CPU time (budget 100 s, must stay under half; 95.0 s on the clock")


def test_a_project10_minesweeper_py_earns_the_game_part(tmp_path):
    source = reference_submission(get_assignment("neighbors")).source
    game_part = source.split("def neighbors_1d")[0]
    script = game_part + "\n\ndef main():\n    grid = read_file(input('board file: '))\n\n\nif __name__ == '__main__':\n    main()\n"
    (tmp_path / "minesweeper.py").write_text(script)
    report = grade_batch("neighbors", [tmp_path / "minesweeper.py"], tmp_path / "results", jobs=1, seed=4,
                         progress=False).reports[0]
    by_id = {t.id: t for t in report.tests}
    game = ["test_read_file", "test_update_grid_and_empty_grid", "test_print_grid", "test_original_scripted_games",
            "test_random_games"]
    assert all(by_id[t].status == "passed" for t in game), [(t, by_id[t].output) for t in game]
    assert by_id["test_neighbors_nd"].output == "your code does not define neighbors"
    assert report.score == sum(by_id[t].max_score for t in game)


def test_an_original_lab_py_is_graded_as_it_is(tmp_path, reference_source):
    lab = reference_source.replace("from __future__ import annotations\n",
                                   "from __future__ import annotations\n\nimport doctest\n", 1) + (
        "\n\nif __name__ == '__main__':\n    doctest.testmod()\n    g = HyperMinesGame([2, 2], [[0, 0]])\n    g.dump()\n")
    (tmp_path / "lab.py").write_text(lab)
    report = grade_batch("hypermines", [tmp_path], tmp_path / "results", jobs=1, seed=4, progress=False).reports[0]
    assert report.score == report.max_score == 20
    assert report.submission == "Graded file lab.py."


NOTEBOOK = nbformat.v4.new_notebook(cells=[
    nbformat.v4.new_markdown_cell("# intro"),
    nbformat.v4.new_code_cell("%matplotlib inline\nimport math\nfrom ipywidgets import IntSlider\nLIMIT = 3"),
    nbformat.v4.new_code_cell("def area(r):\n    return math.pi * r * r\n\nprint(area(2))\nassert area(1) > 3"),
    nbformat.v4.new_code_cell("!ls\nwidget = IntSlider()\nwidget"),
])


def test_a_notebook_without_nbgrader_metadata_keeps_top_level_definitions():
    source, cells, selection, notes, line_map = notebook_code(nbformat.writes(NOTEBOOK).encode())
    assert selection == "all code cells" and cells == [2, 3]
    assert source.split() == "import math LIMIT = 3 def area(r): return math.pi * r * r".split()
    assert "2 magic or shell line(s) were left out." in notes
    assert any("5 top-level statement(s)" in n for n in notes)
    assert line_map[source.splitlines().index("def area(r):")] == (3, 1)


def test_solution_cells_are_used_when_nbgrader_marks_them():
    notebook = nbformat.v4.new_notebook(cells=[c.copy() for c in NOTEBOOK.cells])
    notebook.cells[2].metadata["nbgrader"] = {"solution": True, "grade": False, "locked": False}
    source, cells, selection, _, _ = notebook_code(nbformat.writes(notebook).encode(), keep_import=lambda n: n == "math")
    assert selection == "cells marked as solutions" and cells == [3]
    assert source.split()[:2] == ["import", "math"] and "LIMIT" not in source and "def area(r):" in source
