"""The likely misconception in implementation feedback: a submission whose hidden tests fail the way
one of the step's chaffs fails gets one line naming the chaff's bug and its hint, chosen by what
the code did, never by reading it.

First the rule on results built here (which tests lost, what the first one said); then real
gradings of the hidden suites (in this process, as the chaffs' are: ``grade_in_process``): files
written by hand, each with the mistake of one chaff but in code of
their own, get that chaff's line; correct files (the wheats, one written here) and a file failing
in a way no chaff does get none. (Each chaff itself getting its own line, and each step's
reference getting none, are checked where the chaffs are graded, with the same seed and settings
as here: ``test_each_mutant_loses_points_where_its_bug_is`` and
``test_the_reference_scores_full_marks`` in ``test_mutants.py``.)
"""

from __future__ import annotations

import pytest

from autograder.grading import GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.instructor.chaffs import Chaff, chaffs_for, reference_source
from autograder.misconceptions import likely_misconception, matches, misconception_for
from autograder.report import feedback_text, gradescope_results

STEPS = ("neighbors", "make-board", "flood-fill", "hypermines", "bots")


def line(chaff: Chaff) -> str:
    """The line the feedback must hold, written out from the chaff's own texts."""
    return f"Likely misconception: {chaff.bug}. Hint: {chaff.hint}"


def chaff(step: str, name: str) -> Chaff:
    return next(c for c in chaffs_for(step) if c.name == name)


# ----------------------------------------------------------------------------- the library's hints
@pytest.mark.parametrize("step", STEPS)
def test_every_chaff_has_a_hint_in_plain_words(step):
    for c in chaffs_for(step):
        assert c.hint and c.hint.endswith(".") and 40 <= len(c.hint) <= 400, (c.name, c.hint)
        assert not c.bug.endswith("."), (c.name, c.bug)
        # Where to look, never the fix: none of the replacement's new code is quoted in the hint.
        for _, new in c.replacements:
            for code_line in new.splitlines():
                code = code_line.strip()
                if len(code) > 12:
                    assert code not in c.hint, (c.name, code)


def test_the_tuned_bot_has_a_hint_too():
    from autograder.instructor.chaffs.bots import NEAR_A_TIER

    assert NEAR_A_TIER.hint.endswith(".")


# ----------------------------------------------------------------------------- the rule
SUITE = ("test_a", "test_b", "test_c", "test_d")


def results(lost: dict[str, str], own_tests: str | None = None) -> list[Outcome]:
    """Outcomes of the four tests of ``SUITE``: those in ``lost`` failed with that output."""
    tests = [
        Outcome(
            name,
            1.0,
            id=name,
            score=0.0 if name in lost else 1.0,
            status="failed" if name in lost else "passed",
            output=lost.get(name, "passed"),
        )
        for name in SUITE
    ]
    if own_tests is not None:
        tests.append(Outcome("Your own tests", 2.0, id="own_tests", status=own_tests, output="..."))
    return tests


EXACT = Chaff(
    "exact", "a loses exactly test_a", (("x", "y"),), loses=("test_a",), says=("at [1]: expected 1",), hint="Look at a."
)
NAMED = Chaff(
    "named",
    "b loses test_b and keeps test_c",
    (("x", "y"),),
    loses=("test_b",),
    keeps=("test_c",),
    says=("case 2",),
    hint="Look at b.",
)


def test_a_chaff_that_keeps_every_other_test_matches_exactly_its_lost_tests():
    assert matches(EXACT, results({"test_a": "case 1: at [1]: expected 1, got 0"}))
    # Another test lost too, the first difference not the chaff's, or the test kept: no match.
    assert not matches(EXACT, results({"test_a": "case 1: at [1]: expected 1, got 0", "test_d": "wrong"}))
    assert not matches(EXACT, results({"test_a": "case 1: at [0]: expected 0, got 1"}))
    assert not matches(EXACT, results({}))
    # The student's own tests are not a hidden test: failing them changes nothing.
    assert matches(EXACT, results({"test_a": "case 1: at [1]: expected 1, got 0"}, own_tests="failed"))


def test_a_chaff_that_names_its_kept_tests_leaves_the_others_open():
    assert matches(NAMED, results({"test_b": "case 2 is wrong"}))
    assert matches(NAMED, results({"test_b": "case 2 is wrong", "test_d": "anything"}))
    assert not matches(NAMED, results({"test_b": "case 2 is wrong", "test_c": "anything"}))
    assert not matches(NAMED, results({"test_d": "case 2 is wrong"}))


def test_several_matches_give_one_chaff_the_same_each_time():
    loose = Chaff("loose", "loose", (("x", "y"),), loses=("test_a",), keeps=(), says=("case",), hint="Loose.")
    pinned = Chaff(
        "pinned", "pinned", (("x", "y"),), loses=("test_a",), keeps=("test_b",), says=("case",), hint="Pinned."
    )
    longer = Chaff(
        "longer", "longer", (("x", "y"),), loses=("test_a",), keeps=("test_b",), says=("case 1: at",), hint="Longer."
    )
    tests = results({"test_a": "case 1: at [1]: expected 1, got 0"})
    # The lists that pin down more of the suite win, then the longer (more specific) texts, then
    # the library's order.
    assert likely_misconception([loose, pinned], tests) is pinned
    assert likely_misconception([pinned, longer, loose], tests) is longer
    assert likely_misconception([EXACT, loose, pinned, longer], tests) is EXACT
    twin = Chaff("twin", "twin", (("x", "y"),), loses=("test_a",), says=("at [1]: expected 1",), hint="Twin.")
    assert likely_misconception([EXACT, twin], tests) is EXACT
    assert likely_misconception([twin, EXACT], tests) is twin
    assert likely_misconception([NAMED], tests) is None


def report(step: str, outcomes: list[Outcome], **fields) -> GradeReport:
    return GradeReport(
        "ada",
        step,
        sum(t.score for t in outcomes),
        float(len(outcomes)),
        1.0,
        7,
        outcomes,
        submission="Graded file lab.py.",
        **fields,
    )


def make_board_outcomes(lost: dict[str, str]) -> list[Outcome]:
    names = (
        "test_make_board",
        "test_make_board_has_no_aliasing",
        "test_get_and_set_coords",
        "test_all_coords",
        "test_neighbors",
        "test_new_board",
        "test_large_board",
    )
    return [
        Outcome(
            n,
            1.0,
            id=n,
            score=0.0 if n in lost else 1.0,
            status="failed" if n in lost else "passed",
            output=lost.get(n, "passed"),
        )
        for n in names
    ]


SET_COORDS = "set_board = ... : set_coords should change the board in place and return nothing, got [[0, 1]]"


def test_the_feedback_adds_one_line_for_a_report_that_fails_like_a_chaff():
    graded = report("make-board", make_board_outcomes({"test_get_and_set_coords": SET_COORDS}))
    graded.misconception = misconception_for(graded)
    expected = line(chaff("make-board", "set_coords_returns_the_board"))
    assert graded.misconception["chaff"] == "set_coords_returns_the_board"
    text = feedback_text(graded)
    assert text.count("Likely misconception:") == 1 and expected in text.splitlines()
    assert expected in gradescope_results(graded)["output"]
    again = GradeReport.from_dict(graded.to_dict())  # the record keeps it
    assert expected in feedback_text(again)


def test_no_line_without_failures_without_a_grade_or_without_a_load():
    passing = report("make-board", make_board_outcomes({}))
    assert misconception_for(passing) == {}
    failing = make_board_outcomes({"test_get_and_set_coords": SET_COORDS})
    not_graded = report("make-board", failing, status="not graded")
    not_graded.score = None
    assert misconception_for(not_graded) == {}
    assert misconception_for(report("make-board", failing, problem="the submission could not be loaded")) == {}
    # A step without chaffs, and results no chaff has: no line.
    assert misconception_for(report("no-such-step", failing)) == {}
    other = report("make-board", make_board_outcomes({"test_get_and_set_coords": "IndexError: list index"}))
    assert misconception_for(other) == {}
    assert "Likely misconception" not in feedback_text(other)
    # An older record without the entry reads as none.
    old = report("make-board", failing).to_dict()
    del old["misconception"]
    assert "Likely misconception" not in feedback_text(GradeReport.from_dict(old))


def test_a_bot_out_of_its_budget_gets_its_line_whatever_the_budget():
    """A bot whose games used up their CPU budget fails like the chaff that thinks a second a move
    whatever the budget is: a real grading's own figure and rule, not the chaff's test setting."""
    from autograder.instructor.chaffs.bots import LEGAL, TIERS

    spent = ("11 of 11 games were lost to timeout (11) (a move may use 5 s of CPU time; all the games together "
             "52.3 s); first: beginner game 0 (seed 1): the bot's games used up their 52.3 s of CPU time (0.5 s "
             "per beginner game, in proportion to the cells on other boards)")
    lost = {LEGAL: spent, **{tier: "your bot won 0 of 100 beginner games" for tier in TIERS}}
    outcomes = [Outcome(n, 2.0, id=n, status="failed", output=text) for n, text in lost.items()]
    assert misconception_for(report("bots", outcomes))["chaff"] == "thinks_a_second_a_move"


# ----------------------------------------------------------------------------- real gradings
#: A correct make-board step written by hand, in another way than the reference (loops where it
#: recurses, offsets for the neighbours). Each buggy file below replaces one of its functions.
MAKE_BOARD = {
    "make_board": """
def make_board(dimensions, elem):
    if len(dimensions) == 1:
        return [elem] * dimensions[0]
    board = []
    for _ in range(dimensions[0]):
        board.append(make_board(dimensions[1:], elem))
    return board
""",
    "get_coords": """
def get_coords(board, coordinates):
    value = board
    for c in coordinates:
        value = value[c]
    return value
""",
    "set_coords": """
def set_coords(board, coordinates, value):
    inner = board
    for c in coordinates[:-1]:
        inner = inner[c]
    inner[coordinates[-1]] = value
""",
    "all_coords": """
def all_coords(dimensions):
    result = [()]
    for size in dimensions:
        result = [prefix + (i,) for prefix in result for i in range(size)]
    return result
""",
    "neighbors": """
def neighbors(dimensions, coordinates):
    found = []
    for offset in all_coords([3] * len(dimensions)):
        cell = tuple(c + o - 1 for c, o in zip(coordinates, offset))
        if cell == tuple(coordinates):
            continue
        if all(0 <= v < size for v, size in zip(cell, dimensions)):
            found.append(cell)
    return found
""",
    "new_board": """
def new_board(dimensions, bombs):
    board = make_board(dimensions, 0)
    for bomb in bombs:
        set_coords(board, bomb, ".")
    for bomb in bombs:
        for cell in neighbors(dimensions, bomb):
            if get_coords(board, cell) != ".":
                set_coords(board, cell, get_coords(board, cell) + 1)
    return board
""",
}

#: The same mistake as a chaff, in code of its own: (the function replaced, its text, the chaff).
SAME_MISTAKE = {
    "aliased_rows": (
        "make_board",
        """
def make_board(dimensions, elem):
    if len(dimensions) == 1:
        return [elem for _ in range(dimensions[0])]
    row = make_board(dimensions[1:], elem)
    board = []
    for _ in range(dimensions[0]):
        board.append(row)
    return board
""",
        "make_board_repeats_one_row",
    ),
    "no_zero_position": (
        "neighbors",
        """
def neighbors(dimensions, coordinates):
    found = []
    for offset in all_coords([3] * len(dimensions)):
        cell = tuple(c + o - 1 for c, o in zip(coordinates, offset))
        if cell != tuple(coordinates) and min(cell) > 0:
            if all(v < size for v, size in zip(cell, dimensions)):
                found.append(cell)
    return found
""",
        "neighbors_edge_off_by_one",
    ),
    "counts_itself": (
        "neighbors",
        """
def neighbors(dimensions, coordinates):
    found = []
    for offset in all_coords([3] * len(dimensions)):
        cell = tuple(c + o - 1 for c, o in zip(coordinates, offset))
        if all(0 <= v < size for v, size in zip(cell, dimensions)):
            found.append(cell)
    return found
""",
        "neighbors_includes_itself",
    ),
    "columns_first": (
        "all_coords",
        """
def all_coords(dimensions):
    result = [()]
    for size in dimensions:
        result = [prefix + (i,) for i in range(size) for prefix in result]
    return result
""",
        "all_coords_column_major",
    ),
    "set_returns_board": (
        "set_coords",
        """
def set_coords(board, coordinates, value):
    inner = board
    for c in coordinates[:-1]:
        inner = inner[c]
    inner[coordinates[-1]] = value
    return board
""",
        "set_coords_returns_the_board",
    ),
    "skips_last_bomb": (
        "new_board",
        """
def new_board(dimensions, bombs):
    board = make_board(dimensions, 0)
    for bomb in bombs:
        set_coords(board, bomb, ".")
    for index in range(len(bombs) - 1):
        for cell in neighbors(dimensions, bombs[index]):
            if get_coords(board, cell) != ".":
                set_coords(board, cell, get_coords(board, cell) + 1)
    return board
""",
        "new_board_forgets_the_last_bomb",
    ),
}

#: Wrong, but in a way no chaff is: no line.
NO_CHAFF = {
    "counts_twice": (
        "new_board",
        """
def new_board(dimensions, bombs):
    board = make_board(dimensions, 0)
    for bomb in bombs:
        set_coords(board, bomb, ".")
    for bomb in bombs:
        for cell in neighbors(dimensions, bomb):
            if get_coords(board, cell) != ".":
                set_coords(board, cell, get_coords(board, cell) + 2)
    return board
""",
    ),
    "one_too_many": (
        "make_board",
        """
def make_board(dimensions, elem):
    if len(dimensions) == 1:
        return [elem] * (dimensions[0] + 1)
    return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]
""",
    ),
}


def make_board_file(**replaced: str) -> str:
    return "\n".join(replaced.get(name, text) for name, text in MAKE_BOARD.items())


@pytest.fixture(scope="module")
def make_board_reports(tmp_path_factory):
    """Every make-board file of this module and the wheats, graded in this process (they are the
    kit's own code: ``grade_in_process``)."""
    from grader_testkit import grade_in_process

    from autograder.instructor.wheats import wheats_for

    sources = {"by_hand_correct": make_board_file()}
    for name, source in wheats_for("make-board"):
        sources[f"wheat_{name}"] = source
    for name, (function, text, _) in SAME_MISTAKE.items():
        sources[name] = make_board_file(**{function: text})
    for name, (function, text) in NO_CHAFF.items():
        sources[name] = make_board_file(**{function: text})
    return grade_in_process("make-board", sources, tmp_path_factory.mktemp("make-board"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SAME_MISTAKE))
def test_a_hand_written_file_with_a_chaffs_mistake_gets_its_line(make_board_reports, name):
    graded = make_board_reports[name]
    assert graded.graded and graded.problem is None, (graded.problem, graded.causes)
    expected = chaff("make-board", SAME_MISTAKE[name][2])
    lost = {t.id: t.output for t in graded.tests if t.status != "passed"}
    assert graded.misconception.get("chaff") == expected.name, lost
    text = feedback_text(graded)
    assert line(expected) in text.splitlines() and text.count("Likely misconception:") == 1, text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["by_hand_correct", "wheats", *sorted(NO_CHAFF)])
def test_correct_files_and_other_mistakes_get_no_line(make_board_reports, name):
    names = [n for n in make_board_reports if n.startswith("wheat_")] if name == "wheats" else [name]
    assert names
    for student in names:
        graded = make_board_reports[student]
        assert graded.graded and graded.problem is None, (student, graded.problem, graded.causes)
        hidden = [t for t in graded.tests if t.id != "own_tests"]
        if name in NO_CHAFF:
            assert any(t.status != "passed" for t in hidden), f"{student} should lose points"
        else:
            assert all(t.status == "passed" for t in hidden), [(t.id, t.output) for t in hidden]
        assert graded.misconception == {}, (student, graded.misconception)
        assert "Likely misconception" not in feedback_text(graded)


#: Step 1, written by hand: neighbors_1d lists the cell itself (a range over three cells), added
#: after the reference's definitions as a student's cell run later would.
NEIGHBORS_1D_ITSELF = """

def neighbors_1d(length, x):
    return [n for n in range(x - 1, x + 2) if n >= 0 and n < length]
"""


@pytest.mark.slow
@pytest.mark.parametrize("step", ["neighbors", "flood-fill", "hypermines"])
def test_other_steps_wheats_get_no_line_and_a_mistake_does(tmp_path, step):
    from grader_testkit import grade_in_process

    from autograder.instructor.wheats import wheats_for

    sources = {}
    for name, source in wheats_for(step):
        sources[f"wheat_{name}"] = source
    if step == "neighbors":
        sources["itself_1d"] = reference_source(step) + NEIGHBORS_1D_ITSELF
    reports = grade_in_process(step, sources, tmp_path, {"flood_size": 300} if step == "flood-fill" else {})
    for student, graded in reports.items():
        assert graded.graded and graded.problem is None, (student, graded.problem, graded.causes)
        if student == "itself_1d":
            expected = chaff(step, "neighbors_1d_includes_itself")
            assert line(expected) in feedback_text(graded).splitlines(), feedback_text(graded)
            continue
        hidden = [t for t in graded.tests if t.id != "own_tests"]
        assert all(t.status == "passed" for t in hidden), (student, [(t.id, t.output) for t in hidden])
        assert graded.misconception == {} and "Likely misconception" not in feedback_text(graded), student
