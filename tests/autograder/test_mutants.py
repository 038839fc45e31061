"""Every hidden suite catches wrong code.

For each of the five assignments, plausible student bugs (the chaffs of ``autograder/instructor/chaffs/``, made from the reference's
own text by small named replacements) are graded with the hidden suite. Each must lose points in
the tests that name its bug, keep them in the tests its bug does not touch, and get feedback that
names the failing case and its first difference, without any error on the grader's side, and
one line naming its misconception and where to look (the reference, none). The reference itself
scores full marks. The notebook's visible tests, run on each mutant, agree with the hidden suite:
no visible failure without a hidden loss, no hidden loss without its visible test failing (or a
stated reason). For the bots, a bot placed near a tier's boundary is graded
with two seeds: its grade may move by one tier at most, as the suite's stated margin allows.
"""

from __future__ import annotations

import importlib
import json
import re

import pytest
from grader_testkit import grade_in_process
from visible_tests import TIMED_OUT, hidden_to_visible, run_visible

from autograder.batch import grade_batch
from autograder.grading import OWN_TESTS
from autograder.instructor.chaffs import OTHERS, Chaff, chaffs_for, mutate, reference_source
from autograder.report import feedback_text

pytestmark = pytest.mark.slow

ASSIGNMENTS = ("neighbors", "make-board", "flood-fill", "hypermines", "bots")
MUTANTS = {a: importlib.import_module(f"autograder.instructor.chaffs.{a.replace('-', '_')}").CHAFFS for a in ASSIGNMENTS}
SEED = 7
#: Grading settings of the tests, to keep them short: fewer bot games than a real run (100), and a
#: 300x300 size case for the flood (a real run floods 1000x1000, some 7 s of CPU for each of the
#: fifteen gradings; 300x300 still overflows a recursive flood, as one mutant must).
SETTINGS = {"bots": {"bot_games": 30}, "flood-fill": {"flood_size": 300}}
#: The visible cells the mutants' agreement test runs at the size of ``SETTINGS`` (grade id -> (old
#: text, new text), see `run_visible`): the size case floods 300x300 as the hidden suite does, which
#: fails the same mutants as the notebook's 1000x1000 at a tenth of its CPU time. The reference's
#: own run of the visible tests keeps the notebook's cell as it is.
VISIBLE_SETTINGS = {"flood-fill": {"test_flood_fill_iterative_1000x1000": ("size = 1000\n", "size = 300\n")}}
GRADER_ERROR = "grader could not finish"


def step_group(assignment: str) -> pytest.MarkDecorator:
    """The tests of one step share its graded batch (the module fixture `graded`): under
    pytest-xdist they form a group of their own (tests/conftest.py), so each batch is graded once,
    on one worker, and the five steps' batches are graded side by side."""
    return pytest.mark.xdist_group(f"mutants-{assignment}")


def by_step(*values):
    """A test's parameters, the step first, in that step's group."""
    return pytest.param(*values, marks=step_group(values[0]))


def grade(assignment: str, sources: dict[str, str], folder, settings: dict, seed: int = SEED) -> dict:
    """Grade named sources as one batch, in sandboxes, as a course grades them; the reports by name."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source)
    result = grade_batch(assignment, sorted(folder.glob("*.py")), folder / "results", jobs=2, seed=seed,
                         progress=False, settings=settings or None)
    return {r.student: r for r in result.reports}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """``graded(assignment)``: the reports of its reference and every mutant, graded once, on the
    hidden suite alone and in this process (`grade_in_process`). The hidden suite's strength is
    what these tests measure: its verdicts on trusted code are a sandbox's (test_inprocess_box.py),
    and how the sandbox meets wrong code is its own tests' and the red team's subject. The students'
    own tests are another grading, and the references' own tests are graded where they are the
    subject (test_planted_bugs.py, and the clone's check on the course's scale)."""
    cache: dict[str, dict] = {}

    def reports(assignment: str) -> dict:
        if assignment not in cache:
            reference = reference_source(assignment)
            groups: dict[str, dict[str, str]] = {}
            base = SETTINGS.get(assignment, {})
            groups[json.dumps(base, sort_keys=True)] = {"reference": reference}
            for mutant in MUTANTS[assignment]:
                key = json.dumps({**base, **mutant.settings}, sort_keys=True)
                groups.setdefault(key, {})[mutant.name] = mutate(reference, mutant)
            cache[assignment] = {}
            for number, (key, sources) in enumerate(sorted(groups.items())):
                folder = tmp_path_factory.mktemp(f"{assignment}-{number}")
                cache[assignment].update(grade_in_process(assignment, sources, folder, json.loads(key), SEED))
        return cache[assignment]

    return reports


def test_each_mutant_applies_to_the_current_reference():
    for assignment in ASSIGNMENTS:
        reference = reference_source(assignment)
        names = [m.name for m in MUTANTS[assignment]]
        assert len(names) == len(set(names)), f"{assignment}: two mutants share a name"
        assert len(names) >= 8, f"{assignment}: only {len(names)} mutants"
        for mutant in MUTANTS[assignment]:
            assert mutate(reference, mutant) != reference


@pytest.mark.parametrize("assignment", [by_step(a) for a in ASSIGNMENTS])
def test_the_reference_scores_full_marks(graded, assignment):
    report = graded(assignment)["reference"]
    assert report.problem is None and not report.internal_errors, (report.problem, report.internal_errors)
    assert report.score == report.max_score > 0, [(t.id, t.output) for t in report.tests if t.status != "passed"]
    assert report.misconception == {} and "Likely misconception" not in feedback_text(report)


def check_mutant(report, mutant: Chaff) -> None:
    outcome = {t.id: t for t in report.tests}
    assert report.problem is None, report.problem
    assert not report.internal_errors, report.internal_errors
    unknown = (set(mutant.loses) | (set(mutant.keeps) - set(OTHERS))) - set(outcome)
    assert not unknown, f"no such hidden tests: {sorted(unknown)}"
    kept = [t for t in mutant.loses if outcome[t].status == "passed"]
    assert not kept, f"{mutant.name} ({mutant.bug}) kept the points of {kept}"
    keeps = [t for t in outcome if t not in mutant.loses] if mutant.keeps == OTHERS else list(mutant.keeps)
    lost = {t: outcome[t].output for t in keeps if outcome[t].status != "passed"}
    assert not lost, f"{mutant.name} ({mutant.bug}) lost points its bug should not touch: {lost}"
    first = outcome[mutant.loses[0]].output
    missing = [text for text in mutant.says if text not in first]
    assert not missing, f"{mutant.name}: the feedback {first!r} does not say {missing}"
    for test in report.tests:
        assert GRADER_ERROR not in test.output, f"{test.id}: {test.output}"


@pytest.mark.parametrize("assignment,mutant", [by_step(a, m) for a in ASSIGNMENTS for m in MUTANTS[a]],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_each_mutant_loses_points_where_its_bug_is(graded, assignment, mutant):
    check_mutant(graded(assignment)[mutant.name], mutant)
    check_misconception(graded(assignment)[mutant.name], mutant)


#: Chaffs whose results another chaff of the step may show as well (same tests lost, same texts):
#: the feedback may name either's misconception (chaff name -> the others it may be taken for).
SHARED: dict[str, set[str]] = {}


def check_misconception(report, mutant: Chaff) -> None:
    """A submission failing exactly as the chaff does gets one line of feedback naming its bug and
    where to look (``autograder/misconceptions.py``), written out here from the chaff's texts."""
    step = {c.name: c for c in chaffs_for(report.assignment)}
    allowed = [mutant] + [step[name] for name in sorted(SHARED.get(mutant.name, ()))]
    lines = [f"Likely misconception: {c.bug}. Hint: {c.hint}" for c in allowed]
    text = feedback_text(report)
    assert text.count("Likely misconception:") == 1, f"{mutant.name}: {text}"
    assert any(expected in text.splitlines() for expected in lines), f"{mutant.name}: {report.misconception}"


def test_without_the_setting_the_size_case_floods_1000x1000(tmp_path):
    """The mutants above flood 300x300 (``SETTINGS``); a grading run without settings, as every
    student's, floods the 1000x1000 field the notebook states."""
    recurses = next(m for m in MUTANTS["flood-fill"] if m.name == "iterative_flood_recurses")
    report = grade_in_process("flood-fill", {recurses.name: mutate(reference_source("flood-fill"), recurses)},
                              tmp_path, {}, SEED)
    size_case = next(t for t in report[recurses.name].tests if t.id == "test_flood_fill_iterative_1000x1000")
    assert size_case.status == "failed", size_case
    assert "1000x1000 field with one mine in the far corner" in size_case.output, size_case.output


WINS = re.compile(r"your bot won \d+ of 30 beginner games, the judge \d+ of the same boards.*: \d+% of the judge's "
                  r"win rate, \+-\d+ points at 95% confidence for this run")
ASKS = {"test_a_fifth_of_the_judge": 20, "test_two_fifths_of_the_judge": 40, "test_three_fifths_of_the_judge": 60,
        "test_three_quarters_of_the_judge": 75}


@step_group("bots")
def test_passing_bot_tests_show_the_wins_against_the_judge(graded):
    """Notebook 05 promises the wins against the judge in the feedback: passing tests give them too."""
    report = graded("bots")["reference"]
    for test in report.tests:
        assert test.status == "passed" and test.output.startswith("passed: ") and WINS.search(test.output), test
        if test.id in ASKS:
            assert test.output.endswith(f"; this test asks for {ASKS[test.id]}%"), test.output
        else:
            assert test.output.startswith("passed: all ") and " games played to the end, without a crash, an illegal " \
                "move or a time-out; your bot won " in test.output, test.output


# ------------------------------------------------------------------------------- bots: stability

RATIO = re.compile(r"(\d+)% of the judge's win rate, \+-(\d+) points at 95% confidence")
TIER_POINTS = 2


def test_a_bot_near_a_tier_moves_at_most_one_tier_between_seeds(tmp_path):
    """The near-60% bot graded with two seeds: each run states its ratio and margin; the two
    ratios agree within their margins and the scores differ by one tier (2 points) at most."""
    from autograder.instructor.chaffs.bots import NEAR_A_TIER

    source = mutate(reference_source("bots"), NEAR_A_TIER)
    runs = []
    for seed in (11, 12):
        report = grade("bots", {NEAR_A_TIER.name: source}, tmp_path / str(seed), {"bot_games": 50}, seed=seed)
        report = report[NEAR_A_TIER.name]
        check_mutant(report, NEAR_A_TIER)
        stated = [RATIO.search(t.output) for t in report.tests if t.status == "failed"]
        assert stated and all(stated), [t.output for t in report.tests]
        ratio, margin = (int(x) for x in stated[0].groups())
        assert abs(ratio - 60) <= max(margin, 15), f"seed {seed}: {ratio}% +- {margin} is not near the 60% tier"
        runs.append((report.score, ratio, margin))
    (score1, ratio1, margin1), (score2, ratio2, margin2) = runs
    assert abs(ratio1 - ratio2) <= margin1 + margin2, runs
    assert abs(score1 - score2) <= TIER_POINTS, runs


# ------------------------------------------------------------------------------- bots: paired boards


PAIRED_BOARDS_CHECK = """
import importlib.util, sys
import numpy as np
from autograder.assignments import instructor_dir
from minesweeper_kit.arena import Rules

spec = importlib.util.spec_from_file_location("hidden_bots_suite", instructor_dir() / "suites" / "test_bots.py")
suite = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = suite
spec.loader.exec_module(suite)
boards = suite.PairedBoards(Rules.preset("beginner"))
same = moved = 0
for index in range(200):
    seed = suite.game_seed(5, 0, index)
    corner, centre = boards.new_game(seed), boards.new_game(seed)
    corner.dig((0, 0))
    centre.dig((4, 4))
    assert corner.state != "defeat" and centre.state != "defeat", index
    assert corner.mines.sum() == centre.mines.sum() == 10, index
    differ = {tuple(int(v) for v in cell) for cell in np.argwhere(corner.mines != centre.mines)}
    if not differ:
        same += 1
    else:  # a mine moved away from a first dig: that dig's cell is among the cells that differ
        assert len(differ) in (2, 4) and differ & {(0, 0), (4, 4)}, (index, differ)
        moved += 1
print(same, moved)
"""


def test_the_bot_and_the_judge_face_the_same_board_whatever_their_first_dig():
    """Paired boards: two players digging different first cells of a game meet the same mines,
    unless a first dig lands on a mine of the layout, which then moves (and only that one). The
    suite is read in a plain interpreter, as the grader reads it (outside this pytest run)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", PAIRED_BOARDS_CHECK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    same, moved = map(int, done.stdout.split())
    # Each first dig hits a mine of the layout with chance 10/81: about 23% of the games differ.
    assert same + moved == 200 and same > 120 and moved > 20, (same, moved)


# ------------------------------------------------------------------------------- visible and hidden agree

#: Mutants that lose a hidden test although the visible test the notebook's table matches with it
#: passes, each with the reason (mutant name -> why). In each, another visible test fails.
HIDDEN_ONLY: dict[str, str] = {
    "print_grid_one_digit_labels": "dig prints the view with print_grid: the hidden random games on boards 11 or "
                                   "more rows high compare what dig prints (visible: test_print_grid fails)",
    "make_board_one_short": "the hidden get/set test builds its boards with the submission's make_board "
                            "(visible: test_make_board fails)",
    "flood_opens_questions": "the hidden random games flood around questioned cells, which the visible test of "
                             "marks never does (visible: test_guesses_block_the_flood fails)",
    "uncover_counts_twice": "the hidden test of the iterative flood uncovers every safe cell after it, cells already "
                            "open included, which the visible one never does (visible: "
                            "test_VisibleField_marks_and_end fails)",
    "print_grid_square_only": "dig prints the view with print_grid: the hidden random games on boards wider than "
                              "high compare what dig prints (visible: test_print_grid fails)",
    "print_grid_space_after_label": "dig prints the view with print_grid: the hidden random games compare what dig "
                                    "prints (visible: test_print_grid fails)",
}
#: Mutants whose visible tests stop at the CPU limit of `run_visible` (and why that is right).
STOPPED: dict[str, str] = {
    "thinks_a_second_a_move": "one second of CPU time on every move: the games of the legality test would take "
                              "hours, and nbgrader stops the cell after 180 s",
    "waits_for_a_safe_guess": "a loop that never ends: nbgrader stops the cell after 180 s",
}
VISIBLE_LIMIT = 60.0  # CPU seconds for one visible test cell; the reference needs under 15
#: The limit for the mutants of STOPPED, which no limit lets finish: each stop costs its whole limit
#: in CPU time, and 5 s already shows a cell that would run for hours (or forever), where every
#: visible cell of the reference's bot, set-up cells included, takes about 2 s together.
STOPPED_LIMIT = 5.0


@pytest.mark.parametrize("assignment", [by_step(a) for a in ASSIGNMENTS])
def test_the_reference_passes_every_visible_test(assignment):
    """The notebook's visible cells as they are (the 1000x1000 flood included)."""
    results = run_visible(assignment, reference_source(assignment), VISIBLE_LIMIT)
    assert results and not any(results.values()), results


@pytest.mark.parametrize("assignment,mutant", [by_step(a, m) for a in ASSIGNMENTS for m in MUTANTS[a]],
                         ids=lambda value: value if isinstance(value, str) else value.name)
def test_visible_tests_and_the_hidden_suite_agree(graded, assignment, mutant):
    """The notebook's visible tests, run on the mutant as a student runs them, and the hidden suite
    agree: a visible failure always costs hidden points, and each hidden test lost has its visible
    test (the one the notebook's table names for it) failing too, or a reason in HIDDEN_ONLY. The
    visible cells run at the hidden suite's settings (``VISIBLE_SETTINGS``)."""
    report = graded(assignment)[mutant.name]
    limit = STOPPED_LIMIT if mutant.name in STOPPED else VISIBLE_LIMIT
    source = mutate(reference_source(assignment), mutant)
    visible = run_visible(assignment, source, limit, VISIBLE_SETTINGS.get(assignment))
    failed = {name: why for name, why in visible.items() if why}
    stopped = sorted(name for name, why in failed.items() if why == TIMED_OUT)
    assert bool(stopped) == (mutant.name in STOPPED), f"{mutant.name}: visible tests stopped at the limit: {stopped}"
    matches = hidden_to_visible(assignment)
    hidden = [t for t in report.tests if t.name != OWN_TESTS]  # the notebook's own tests: graded apart
    assert {t.name for t in hidden} == set(matches), "the notebook's table names every hidden test"
    lost = {t.name: t.output for t in hidden if t.status != "passed"}
    if failed:
        assert lost, f"{mutant.name} ({mutant.bug}) fails visible tests {failed} and keeps every hidden point"
    unmatched = {name: matches[name] for name in lost if not failed.get(matches[name])}
    if mutant.name in HIDDEN_ONLY:
        assert unmatched, f"{mutant.name} is in HIDDEN_ONLY, yet every hidden test it loses has its visible test failing"
        assert failed, f"{mutant.name} loses hidden points ({sorted(lost)}) and fails no visible test"
    else:
        assert not unmatched, (
            f"{mutant.name} ({mutant.bug}) loses hidden tests whose visible tests pass (hidden test: visible "
            f"test): {unmatched}; hidden feedback: {[lost[name] for name in unmatched]}"
        )
