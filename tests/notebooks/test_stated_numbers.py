"""Numbers the notebooks state agree with the grader's own: points, thresholds, time limits, import
rules, board sizes and charge ranges.

Each number is parsed out of the notebook text and compared with where the grader keeps it: the
hidden suites (read as source, never imported: their decorators, docstrings and literal
arguments), the assignments in `autograder/assignments.py`, the kit's presets and the original
assignments' data. When someone changes one side, this fails until the other side follows.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

import nbformat
import pytest

from autograder.assignments import get_assignment, originals_dir
from minesweeper_kit import game as engine
from minesweeper_kit.arena import SUBTASKS, SWEEPMINE_CHARGES, Rules, wilson_interval
from minesweeper_kit.formats import project10
from minesweeper_kit.presets import PRESETS
from notebook_tools import GRADED, HIDDEN_TESTS, NOTEBOOKS, REPO, is_visible_test, nbgrader_meta

SUITES = REPO / "autograder" / "instructor" / "suites"
TABLE_HEADER = "| hidden test (as the feedback names it) | points | visible test |"
ROW = re.compile(r"^\| (?P<name>.+?) \| (?P<points>\d+(?:\.\d+)?) \| `(?P<visible>\w+)` \|$")


# ------------------------------------------------------------------------------ the two sides


@dataclass
class HiddenTest:
    function: str
    name: str                   #: the docstring's first line: what the feedback calls it
    points: float
    time_limit: float | None    #: its own @time_limit, if any
    calls: list[ast.Call]


def hidden_tests(assignment: str) -> dict[str, HiddenTest]:
    """The suite's tests by feedback name, read from its source."""
    path = SUITES / f"test_{assignment.replace('-', '_')}.py"
    tree = ast.parse(path.read_text())
    found = {}
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        marks = {d.func.id: d.args[0].value for d in node.decorator_list
                 if isinstance(d, ast.Call) and isinstance(d.func, ast.Name)}
        name = ast.get_docstring(node).strip().splitlines()[0].strip()
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        found[name] = HiddenTest(node.name, name, marks["points"], marks.get("time_limit"), calls)
    assert found, f"no tests found in {path}"
    return found


def notebook(name: str):
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def cell(nb, cell_id: str):
    return next(c for c in nb.cells if c.get("id") == cell_id)


def text_of(nb) -> str:
    """The notebook's prose, with line breaks and emphasis folded away so sentences can be searched."""
    prose = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return re.sub(r"\s+", " ", prose.replace("**", ""))


def table(nb) -> list[dict]:
    """The rows of the notebook's "What the autograder runs" table."""
    cells = [c for c in nb.cells if c.cell_type == "markdown" and TABLE_HEADER in c.source]
    assert len(cells) == 1, "the notebook needs exactly one table of the hidden tests"
    rows = []
    for line in cells[0].source.splitlines():
        match = ROW.match(line.strip())
        if match:
            rows.append({"name": match["name"], "points": float(match["points"]), "visible": match["visible"]})
    assert rows, "the table of the hidden tests has no rows"
    return rows


def visible_tests(nb) -> dict[str, float]:
    return {nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c)["points"]) for c in nb.cells if is_visible_test(c)}


def seconds_limit(assignment: str, test: HiddenTest) -> float:
    return test.time_limit if test.time_limit is not None else get_assignment(assignment).test_time_limit


# ------------------------------------------------------------------------------ points


@pytest.mark.parametrize("name", sorted(GRADED))
def test_table_names_every_hidden_test_with_its_points(name):
    hidden = hidden_tests(GRADED[name])
    rows = table(notebook(name))
    assert sorted(r["name"] for r in rows) == sorted(hidden), (
        "the table's names differ from the suite's docstrings (what the feedback shows): "
        f"only in the notebook {sorted({r['name'] for r in rows} - set(hidden))}, "
        f"only in the suite {sorted(set(hidden) - {r['name'] for r in rows})}")
    for row in rows:
        assert row["points"] == hidden[row["name"]].points, f"{row['name']}: points differ"


@pytest.mark.parametrize("name", sorted(GRADED))
def test_each_visible_test_is_worth_its_hidden_tests(name):
    nb = notebook(name)
    rows, visible = table(nb), visible_tests(nb)
    assert {r["visible"] for r in rows} == set(visible), "every visible test matches at least one hidden test"
    for test_id, points in visible.items():
        hidden = sum(r["points"] for r in rows if r["visible"] == test_id)
        assert hidden == points, f"{name}: {test_id} is worth {points}, its hidden tests {hidden}"


@pytest.mark.parametrize("name", sorted(GRADED))
def test_visible_test_headers_state_their_points(name):
    """Each visible test cell opens with `# Visible test "<id>" (<points> points).`"""
    for c in notebook(name).cells:
        meta = nbgrader_meta(c)
        if is_visible_test(c):
            points = meta["points"]
            word = "point" if points == 1 else "points"
            first = c.source.splitlines()[0]
            assert first == f'# Visible test "{meta["grade_id"]}" ({points:g} {word}).', first


@pytest.mark.parametrize("name", sorted(GRADED))
def test_the_hidden_tests_cell_is_worth_the_suite(name):
    """The last cell, nbgrader's "autograder tests" cell for the hidden tests, is worth the suite's
    points and says so first, as the visible tests do."""
    last = notebook(name).cells[-1]
    meta = nbgrader_meta(last)
    assert meta.get("grade_id") == HIDDEN_TESTS and last.get("id") == HIDDEN_TESTS, "the last cell is not the hidden tests"
    assert meta["grade"] and meta["locked"] and not meta["solution"] and last.cell_type == "code"
    total = sum(t.points for t in hidden_tests(GRADED[name]).values())
    assert meta["points"] == total, f"{name}: the hidden-tests cell is worth {meta['points']}, the suite {total}"
    word = "point" if total == 1 else "points"
    assert last.source.splitlines()[0].startswith(f"# Hidden tests ({total:g} {word})."), last.source


def test_notebooks_readme_points_match_the_suites():
    readme = (NOTEBOOKS / "README.md").read_text()
    for name, assignment in GRADED.items():
        total = sum(t.points for t in hidden_tests(assignment).values())
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{name.removesuffix('.ipynb')}`"))
        assert row.rstrip(" |").endswith(f"| {total:g}"), f"notebooks/README.md: {row}"


# ------------------------------------------------------------------------------ step 5: the bots


def tier_shares() -> dict[str, float]:
    """Each tier test's share of the judge's win rate, from its call to `tier(..., share)`."""
    shares = {}
    for test in hidden_tests("bots").values():
        for call in test.calls:
            if isinstance(call.func, ast.Name) and call.func.id == "tier":
                [share] = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, float)]
                shares[test.name] = share
    return shares


def test_bot_tiers_match_the_suite():
    nb = notebook("05-bots.ipynb")
    shares = tier_shares()
    assert len(shares) == 4, shares
    rows = {r["name"]: r["visible"] for r in table(nb)}
    for hidden_name, share in shares.items():
        source = cell(nb, rows[hidden_name]).source
        stated = [float(x) for x in re.findall(r"below_the_judge\(([\d.]+)\)", source)]
        assert stated == [share], f"{rows[hidden_name]} asks for {stated}, the grader for {share}"
        assert f"_{round(100 * share)}_percent_" in rows[hidden_name]
    percents = sorted(round(100 * s) for s in shares.values())
    sentence = f"at least {percents[0]}%, {percents[1]}%, {percents[2]}% and {percents[3]}% of the judge's"
    assert sentence in text_of(nb)


def bots_suite_constant(name: str):
    """A module-level constant of the bots suite, evaluated with the arena's Rules at hand."""
    tree = ast.parse((SUITES / "test_bots.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return eval(compile(ast.Expression(node.value), "test_bots.py", "eval"), {"Rules": Rules})
    raise AssertionError(f"the bots suite no longer defines {name}")


def test_bot_move_time_games_and_budget_match_the_suite():
    tree = ast.parse((SUITES / "test_bots.py").read_text())
    timeouts = {k.value.value for n in ast.walk(tree) if isinstance(n, ast.Call)
                for k in n.keywords if k.arg == "move_timeout"}
    assert len(timeouts) == 1, timeouts
    timeout = timeouts.pop()
    games, board = bots_suite_constant("DEFAULT_GAMES"), bots_suite_constant("BOARD")
    budget = get_assignment("bots").test_time_limit  # all the default games' CPU time together
    nb = notebook("05-bots.ipynb")
    prose, legal, setup = text_of(nb), cell(nb, "test_next_move_legal").source, cell(nb, "setup-07").source
    assert f"a move that takes more than {timeout:g} seconds of CPU time" in prose
    assert f"no move over {timeout:g} seconds of CPU time" in prose
    assert f"timed.slowest > {timeout:g}:" in legal
    assert f"have used {budget:g} seconds of CPU time together: {budget / games:g} seconds per {board} game" in prose
    assert f"no more than {budget:g} seconds of CPU time for all {games} games together" in prose
    assert f"timed.total > {budget:g}:" in legal and f"({budget / games:g} s per game on average)" in legal
    assert f"it plays {games} games unless the instructor chooses another number" in prose
    assert f"the same {games} seeded {board} games" in prose
    assert f"def against_the_judge(games={games}, seed=1)" in setup and f'Rules.preset("{board}")' in setup


def test_bot_legality_boards_match_the_suite():
    """The visible legality test plays every board the hidden one does."""
    wanted = {Rules.preset(bots_suite_constant("BOARD")).label} | {r.label for r in bots_suite_constant("LEGAL_BOARDS")}
    legal = cell(notebook("05-bots.ipynb"), "test_next_move_legal").source
    loop = next(n for n in ast.walk(ast.parse(legal)) if isinstance(n, ast.For) and getattr(n.target, "id", "") == "rules")
    played = {r.label for r in eval(compile(ast.Expression(loop.iter), "legal", "eval"), {"Rules": Rules})}
    assert played == wanted, f"only visible: {played - wanted}, only hidden: {wanted - played}"


def test_bot_import_rule_matches_the_assignment():
    policy = get_assignment("bots").import_policy()
    prose = text_of(notebook("05-bots.ipynb"))
    stated = re.search(r"but not the arena \(`([\w.]+)`\) or the kit's solver \(`([\w.]+)`\)", prose)
    assert stated, "the sentence naming the modules a bot may not import is missing"
    assert set(stated.groups()) == set(policy.direct_denied)
    for allowed in ("numpy", "minesweeper_kit.bots"):
        assert f"import {allowed}" in prose or f"`{allowed}`" in prose or allowed in prose
        assert not policy.is_denied(allowed)


def test_charge_ranges_match_the_engine_and_the_arena():
    lo, hi = SWEEPMINE_CHARGES
    label = Rules.preset("beginner", charges=True).label
    assert f"charges[{lo}, {hi}]" in label
    for name in ("00-play.ipynb", "05-bots.ipynb"):
        prose = text_of(notebook(name)).replace("−", "-")
        assert f"from -{engine.MAX_CHARGE} to {engine.MAX_CHARGE} other than 0" in prose, name
        assert f"draws them from {lo} to {hi}" in prose or f"from {lo} to {hi}, never 0" in prose, name
    assert f"`charges[{lo}, {hi}]`" in text_of(notebook("05-bots.ipynb"))
    play = notebook("00-play.ipynb")
    low, high = map(int, re.search(r"charges=\((-?\d+), (-?\d+)\)", cell(play, "demo-13").source).groups())
    prose = text_of(play).replace("−", "-")
    assert f"Charges from {low} to {high}." in prose and f"draws its charges from {low} to {high}" in prose


def test_sweepmine_and_interval_figures_match_the_arena():
    prose = text_of(notebook("05-bots.ipynb"))
    expert = next(s for s in SUBTASKS if s.number == 3)
    assert f"where the judge wins only {expert.q:g}%" in prose
    low, high = wilson_interval(80, 100)
    assert f"a measured 80% means \"somewhere around {round(100 * low)}% to {round(100 * high)}%\"" in prose


def test_presets_match_the_kit():
    beginner = PRESETS["beginner"]
    rows, cols = beginner.shape
    assert f"Beginner size: {rows} x {cols} with {beginner.mines} mines" in text_of(notebook("00-play.ipynb"))
    assert f"A random {rows}x{cols} game with {beginner.mines} mines" in text_of(notebook("03-flood-fill.ipynb"))


# ------------------------------------------------------------------------------ time limits and imports


def test_flood_fill_limits_match_the_suite():
    hidden = hidden_tests("flood-fill")
    size_case = next(t for t in hidden.values() if t.function == "test_flood_fill_iterative_1000x1000")
    assert f"The 1000 x 1000 flood has {seconds_limit('flood-fill', size_case):g} seconds." in \
        text_of(notebook("03-flood-fill.ipynb"))
    assert get_assignment("flood-fill").import_policy().is_denied("minesweeper_kit")
    assert "but not from `minesweeper_kit`: the grader refuses that import" in text_of(notebook("03-flood-fill.ipynb"))


def test_make_board_limits_match_the_suite():
    hidden = hidden_tests("make-board")
    limits = {seconds_limit("make-board", t) for t in hidden.values()}
    assert len(limits) == 1
    assert f"Each hidden test has {limits.pop():g} seconds" in text_of(notebook("02-make-board.ipynb"))


@pytest.mark.parametrize("name", ["01-neighbors.ipynb", "02-make-board.ipynb"])
def test_itertools_rule_matches_the_assignment(name):
    assert get_assignment(GRADED[name]).import_policy().is_denied("itertools")
    assert "`itertools` cannot be imported" in text_of(notebook(name))


def test_hypermines_import_rule_matches_the_assignment():
    allowed = get_assignment("hypermines").allowed_imports
    prose = text_of(notebook("04-nd-dig.ipynb"))
    stated = re.search(r"Your class may import nothing but (.+?) \(the grader refuses any other import\)", prose)
    assert stated, "the sentence naming the allowed imports is missing"
    assert set(re.findall(r"`(\w+)`", stated.group(1))) == set(allowed)


# The timing cell of step 4 stands for these hidden tests, and builds its games like these originals.
TIMING = {
    "new 6-D game": ("test_new_small_6d", "test_newsmall6dgame", "bombs_6d"),
    "new 4-D game": ("test_new_large_4d", "test_newlarge4dgame", "bombs_4d"),
    "whole 6-D game": ("test_integration_6d", "test_integration2", "game_6d"),
    "whole 4-D game": ("test_integration_4d", "test_integration1", "game_4d"),
    "whole 5-D game": ("test_integration_5d", "test_integration3", "game_5d"),
}


def timing_cell() -> dict:
    """The literal settings of step 4's timing cell: its limits and the games it builds."""
    tree = ast.parse(cell(notebook("04-nd-dig.ipynb"), "demo-timing").source)
    found = {"games": {}, "digs": {}}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            if target in ("LIMITS", "WHOLE_SUBMISSION", "BUDGET"):
                found[target] = ast.literal_eval(node.value)
            calls = [n for n in ast.walk(node.value) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Name) and n.func.id == "random_bombs"]
            if calls:
                found["games"][target] = (ast.literal_eval(calls[0].args[0]), ast.literal_eval(calls[0].args[1]))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "digs_for":
            found["digs"][node.args[0].value.id] = node.args[1].value
    return found


def test_hypermines_time_limits_match_the_suite():
    hidden = {t.function: t for t in hidden_tests("hypermines").values()}
    timing = timing_cell()
    assert timing["WHOLE_SUBMISSION"] == get_assignment("hypermines").time_limit
    assert set(timing["LIMITS"]) == set(TIMING)
    for label, (function, _, _) in TIMING.items():
        assert timing["LIMITS"][label] == seconds_limit("hypermines", hidden[function]), label
    prose = text_of(notebook("04-nd-dig.ipynb"))
    assert f"The grader gives the whole submission {get_assignment('hypermines').time_limit:g} seconds" in prose
    longest = {seconds_limit("hypermines", t) for t in hidden.values() if t.time_limit is not None}
    default = get_assignment("hypermines").test_time_limit
    own = sorted(t.function for t in hidden.values() if seconds_limit("hypermines", t) != default)
    assert own == ["test_integration_4d", "test_integration_5d"], own
    assert f"have {max(longest):g} seconds each; every other hidden test has {default:g} seconds" in prose
    assert f"this cell's total should stay under {timing['BUDGET']} seconds" in prose


def test_hypermines_game_sizes_match_the_originals():
    timing = timing_cell()
    prose = text_of(notebook("04-nd-dig.ipynb"))
    folder = originals_dir() / "hypermines" / "test_inputs"
    for label, (_, original, variable) in TIMING.items():
        data = json.loads((folder / f"{original}.json").read_text())
        dimensions, bombs = timing["games"][variable]
        assert (dimensions, bombs) == (data["dimensions"], len(data["bombs"])), label
        if "digs" in data:
            assert timing["digs"][variable] == len(data["digs"]), label
        size = " x ".join(map(str, dimensions))
        assert f"{size} game with {len(data['bombs'])} bombs" in prose or \
            f"{size}, {_cells(dimensions):,} cells with {len(data['bombs'])} bombs" in prose or \
            f"{len(data['digs'])}-dig game on a {size} board with {len(data['bombs'])} bombs" in prose, label


def _cells(dimensions) -> int:
    total = 1
    for size in dimensions:
        total *= size
    return total


def test_text_game_limits_match_the_format_module():
    prose = text_of(notebook("01-neighbors.ipynb"))
    assert f"(width up to {project10.MAX_WIDTH}, height up to {project10.MAX_HEIGHT})" in prose
    originals = originals_dir() / "project10"
    for file, size in (("fiveByFive.txt", "a 5 x 5 one"), ("tenSquare.txt", "an 11 x 11 one")):
        lines = (originals / file).read_text().splitlines()
        rows = [line for line in lines[2:] if line.strip()]
        stated = int(re.search(r"(\d+) x", size).group(1))
        assert (int(lines[0]), int(lines[1]), len(rows)) == (stated, stated, stated), file
        assert size in prose
    assert not (originals / "tenSquare.txt").read_text().endswith("\n"), "the text says its last row has no line break"
