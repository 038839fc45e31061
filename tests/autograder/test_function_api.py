"""The function-API assignments (`mines-*`): MIT's Mines labs of 2020 to 2024, graded term by term.

A file of each supported term, written apart from the reference (the `flat-numbers` wheat, renamed
for the term, with an extra parameter given a default in `dig_nd` as many students add), earns
full marks under its term's assignment. A file written for another API, graded anyway, gets one
message naming what it defines, its API and the assignment that grades it, and no test says
"does not define"; the 2016-2017 and 2025 labs get that message too. The planted bugs of the
shared chaffs lose the tests their bug touches, in the term whose key is inverted (`hidden`).
"""

from __future__ import annotations

import ast
import zipfile

import pytest

from autograder.api_detection import other_api
from autograder.assignments import ASSIGNMENTS, get_assignment
from autograder.batch import grade_batch
from autograder.check import check_assignment
from autograder.course import Course
from autograder.instructor.chaffs import OTHERS, chaffs_for, mutate, reference_source
from autograder.instructor.wheats import wheats_for
from autograder.report import feedback_text

TERMS = ("mines-spring2020", "mines-fall2021", "mines-spring2022", "mines-fall2022", "mines-fall2023")
#: The extra parameter with a default many students give dig_nd (a recursion's bookkeeping).
DIG_ND = "def dig_nd(game, coordinates):"
DIG_ND_WITH_A_DEFAULT = "def dig_nd(game, coordinates, opened=None):"


def student_file(assignment_id: str) -> str:
    """The wheat renamed for the term, with a defaulted extra parameter in dig_nd."""
    [(_, source)] = wheats_for(assignment_id)
    assert source.count(DIG_ND) == 1
    return source.replace(DIG_ND, DIG_ND_WITH_A_DEFAULT)


def top_level_names(source: str) -> set[str]:
    return {node.name for node in ast.parse(source).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def detected(assignment_id: str, source: str) -> str | None:
    return other_api(get_assignment(assignment_id), top_level_names(source), source)


OLD_LAB = '''
def nd_new_game(dims, bombs):
    return {"dimensions": dims, "board": [], "mask": [], "state": "ongoing"}
def nd_dig(game, coords):
    game["mask"] = True
def nd_render(game, xray=False):
    return []
'''
MICE_LAB = '''
def new_game_2d(nrows, ncolumns, mice):
    return {"visible": []}
def reveal_2d(game, row, col):
    return game["visible"]
def toggle_bed_2d(game, row, col):
    pass
def render_2d(game, all_visible=False):
    return []
'''
CLASS_LAB = '''
class HyperMinesGame:
    def __init__(self, dimensions, bombs):
        self.mask = []
'''


@pytest.mark.parametrize(
    "graded_as, source, words",
    [
        pytest.param(
            "hypermines",
            OLD_LAB,
            "this file defines nd_new_game, nd_dig and nd_render with the key 'mask': the 6.009 API of 2016-2017 "
            "(boards as lists, no tuples), which the kit does not grade, not the 6.009 class API (HyperMinesGame), "
            "which this assignment (hypermines) grades; no assignment of the kit grades it",
            id="2016-2017",
        ),
        pytest.param(
            "mines-fall2023",
            MICE_LAB,
            "this file defines reveal_2d and toggle_bed_2d with the key 'visible': 6.101's 2025 Mice-sleeper lab, "
            "another game, which the kit does not grade, not the 6.101 Fall 2023 to Fall 2024 API",
            id="2025-mice",
        ),
        pytest.param(
            "mines-spring2020",
            CLASS_LAB,
            "this file defines the class HyperMinesGame: the 6.009 class API (Spring 2018 to "
            "Spring 2019), not the 6.009 Spring 2020 to Spring 2021 API, which this assignment (mines-spring2020) "
            "grades; grade it with --assignment hypermines",
            id="class-api",
        ),
        pytest.param(
            "mines-fall2023",
            "fall2022",
            "this file defines new_game_nd, dig_nd, render_nd and 4 more with the key 'hidden': the 6.101 Fall 2022 "
            "to Spring 2023 API, not the 6.101 Fall 2023 to Fall 2024 API, which this assignment (mines-fall2023) "
            "grades; grade it with --assignment mines-fall2022",
            id="another-term",
        ),
    ]
    + [
        pytest.param(
            "hypermines",
            term.removeprefix("mines-"),
            f"which this assignment (hypermines) grades; grade it with --assignment {term}",
            id=f"{term}-as-hypermines",
        )
        for term in TERMS
    ],
)
def test_a_file_for_another_api_gets_one_message_naming_it(graded_as, source, words):
    if not source.lstrip().startswith(("def", "class")):
        source = student_file(f"mines-{source}")
    message = detected(graded_as, source)
    assert message is not None and words in message, message


@pytest.mark.parametrize("term", TERMS)
def test_a_file_of_the_assignments_own_api_is_graded(term):
    assert detected(term, student_file(term)) is None
    assert detected("hypermines", CLASS_LAB) is None


def test_a_term_told_apart_only_by_its_render_flag_is_graded_not_refused():
    """Spring 2022 and Fall 2023 share names and key; a render flag named for the other term costs
    the 2-D tests that pass it by name (as that term's own tests would), not the whole file."""
    assert detected("mines-fall2023", student_file("mines-spring2022")) is None


@pytest.mark.parametrize("term", TERMS)
def test_a_file_of_each_term_earns_full_marks(tmp_path, term):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "lab.py").write_text(student_file(term))
    course = Course(None, {term: {"own_tests": False}})
    [report] = grade_batch(term, [tmp_path / "student"], tmp_path / "results", jobs=1, seed=5, progress=False,
                           course=course).reports
    failed = {t.id: t.output for t in report.tests if t.status != "passed"}
    assert report.problem is None and failed == {} and report.score == report.max_score == 24, (report.problem, failed)


def test_the_class_api_assignment_names_the_function_api_once(tmp_path):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "lab.py").write_text(student_file("mines-fall2022"))
    [report] = grade_batch("hypermines", [tmp_path / "student"], tmp_path / "results", jobs=1, seed=5,
                           progress=False).reports
    assert report.score == 0 and report.problem is not None
    assert "the 6.101 Fall 2022 to Spring 2023 API" in report.problem
    assert report.problem.endswith("grade it with --assignment mines-fall2022")
    text = feedback_text(report)
    assert text.count("grade it with --assignment mines-fall2022") == 1 and "does not define" not in text, text
    assert all(t.status == "failed" for t in report.tests if t.id != "own_tests")


def test_check_holds_the_reference_to_full_marks_and_the_starter_to_what_it_earns():
    results = check_assignment(ASSIGNMENTS["mines-fall2022"], seed=2)
    assert [r.ok for r in results] == [True, True, True], [(r.name, r.detail) for r in results]
    reference, starter, _ = results
    assert reference.detail.startswith("24/24")
    assert starter.detail.startswith("8/24") and "test_victory" in starter.detail


def test_the_gradescope_export_carries_a_function_api_term(tmp_path):
    from autograder.gradescope import export

    path = export("mines-fall2023", tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        run = archive.read("run_autograder").decode()
    assert "autograder/instructor/suites/test_mines_functions.py" in names
    assert "autograder/instructor/reference/mines_functions.py" in names
    assert "autograder/instructor/chaffs/mines_functions.py" in names
    assert "--assignment mines-fall2023 " in run


@pytest.mark.slow
def test_each_planted_bug_loses_the_tests_its_bug_touches(tmp_path):
    """Graded on the hidden suite in this process, as the other steps' chaffs are (they are the
    kit's own code: ``grade_in_process``)."""
    from grader_testkit import grade_in_process

    term = "mines-fall2022"
    reference = reference_source(term)
    sources = {chaff.name: mutate(reference, chaff) for chaff in chaffs_for(term)}
    reports = grade_in_process(term, sources, tmp_path / "students", seed=7)
    assert len(chaffs_for(term)) >= 8
    for chaff in chaffs_for(term):
        report = reports[chaff.name]
        outcome = {t.id: t for t in report.tests}
        assert report.problem is None and not report.internal_errors, (chaff.name, report.problem)
        kept = [t for t in chaff.loses if outcome[t].status == "passed"]
        assert not kept, f"{chaff.name} kept the points of {kept}"
        keeps = [t for t in outcome if t not in chaff.loses] if chaff.keeps == OTHERS else list(chaff.keeps)
        lost = {t: outcome[t].output for t in keeps if outcome[t].status != "passed"}
        assert not lost, f"{chaff.name} lost points its bug does not touch: {lost}"
        first = outcome[chaff.loses[0]].output
        assert all(text in first for text in chaff.says), (chaff.name, first)


#: A term's test.py as a student leaves it: the course's own tests (here one that reads the term's
#: data files, which the grader never has) and three tests of the student's, one per dimension
#: count the handouts suggest, each digging twice with different results.
STUDENT_TESTS = '''
import os
import pickle
import lab
import pytest

TEST_DIRECTORY = os.path.dirname(__file__)


def test_newlargegame():
    with open(os.path.join(TEST_DIRECTORY, "test_outputs", "test2d_newlargegame.pickle"), "rb") as f:
        expected = pickle.load(f)
    assert expected


def test_my_1d_game():
    game = lab.new_game_nd((5,), [(0,)])
    assert lab.dig_nd(game, (4,)) == 4
    assert game["state"] == "victory"
    assert lab.dig_nd(game, (0,)) == 0


def test_my_2d_game():
    game = lab.new_game_2d(2, 2, [(0, 0)])
    assert lab.dig_2d(game, 1, 1) == 1
    assert lab.dig_2d(game, 0, 0) == 1
    assert game["state"] == "defeat"


def test_my_3d_game():
    game = lab.new_game_nd((2, 2, 3), [(0, 0, 0)])
    assert lab.dig_nd(game, (0, 0, 1)) == 1
    assert lab.dig_nd(game, (1, 1, 2)) == 7
    assert lab.render_nd(game)[0][0] == ["_", "1", " "]
'''


def test_students_own_tests_beside_a_function_api_lab_are_graded(tmp_path):
    from autograder.own_tests import grade_own_tests, tests_source

    (tmp_path / "lab.py").write_text(student_file("mines-fall2023"))
    (tmp_path / "test.py").write_text(STUDENT_TESTS)
    assignment = get_assignment("mines-fall2023")
    tests = tests_source(assignment, "", tmp_path / "lab.py")
    assert tests is not None and tests.origin == "test.py" and "test_newlargegame" in tests.file.skip
    result = grade_own_tests(assignment, tests, seed=3)
    assert [t.name for t in result.tests] == ["test_my_1d_game", "test_my_2d_game", "test_my_3d_game"], result.problem
    assert all(t.valid for t in result.tests), [(t.name, t.failure) for t in result.tests]
    assert result.unmet == [], result.unmet
    caught = set(result.caught)
    assert {"victory_needs_mines_shown", "flood_skips_border_numbers", "render_ignores_the_key"} <= caught, caught
    assert "dimensions_as_a_list" not in caught and "text_ends_with_a_newline" not in caught
