"""The notebooks' solution cells are the reference solutions: they must reproduce the originals.

The original assignments' own test data, the kit's copy in autograder/instructor/data/originals:
6.009 HyperMines and Project 10's scripted games.
"""
import contextlib
import io
import json
from pathlib import Path

import nbformat
import pytest

from notebook_tools import NOTEBOOKS, nbgrader_meta

ORIGINALS = Path(__file__).resolve().parents[2] / "autograder" / "instructor" / "data" / "originals"


def solution_namespace(name: str) -> dict:
    """Execute only the solution cells of a notebook, as the autograder sees a submission."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    namespace: dict = {}
    for cell in nb.cells:
        if nbgrader_meta(cell).get("solution"):
            exec(compile(cell.source, f"{name}:{cell.id}", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def originals() -> Path:
    assert ORIGINALS.is_dir(), f"the original test data is missing at {ORIGINALS}"
    return ORIGINALS


def load(originals, case):
    inputs = json.loads((originals / "hypermines" / "test_inputs" / f"{case}.json").read_text())
    outputs = json.loads((originals / "hypermines" / "test_outputs" / f"{case}.json").read_text())
    return inputs, outputs


def attributes(game):
    return {"dimensions": game.dimensions, "board": game.board, "mask": game.mask, "state": game.state}


@pytest.mark.parametrize("case", ["test_newsmall6dgame", "test_newlarge4dgame"])
def test_hypermines_new_game_matches_6009(originals, case):
    game_class = solution_namespace("04-nd-dig.ipynb")["HyperMinesGame"]
    inputs, outputs = load(originals, case)
    game = game_class(inputs["dimensions"], inputs["bombs"])
    assert attributes(game) == outputs


@pytest.mark.parametrize("case", ["test_digongoing", "test_digdefeat"])
def test_hypermines_dig_matches_6009(originals, case):
    game_class = solution_namespace("04-nd-dig.ipynb")["HyperMinesGame"]
    inputs, outputs = load(originals, case)
    game = game_class(inputs["game"]["dimensions"], [])
    game.board, game.mask, game.state = inputs["game"]["board"], inputs["game"]["mask"], inputs["game"]["state"]
    revealed = game.dig(inputs["coordinates"])
    assert {"game": attributes(game), "revealed": revealed} == outputs


def test_hypermines_render_matches_6009(originals):
    game_class = solution_namespace("04-nd-dig.ipynb")["HyperMinesGame"]
    inputs, outputs = load(originals, "test_render")
    game = game_class(inputs["dimensions"], [])
    game.board, game.mask, game.state = inputs["board"], inputs["mask"], inputs["state"]
    assert {"no_xray": game.render(), "xray": game.render(True)} == outputs


@pytest.mark.parametrize("case", ["test_integration1", "test_integration2", "test_integration3"])
def test_hypermines_integration_matches_6009(originals, case):
    game_class = solution_namespace("04-nd-dig.ipynb")["HyperMinesGame"]
    inputs, outputs = load(originals, case)
    game = game_class(inputs["dimensions"], inputs["bombs"])
    for step, (dig, expected) in enumerate(zip(inputs["digs"], outputs)):
        revealed = game.dig(dig)
        got = [revealed, attributes(game), game.render(), game.render(True)]
        assert got == expected, f"{case}: dig {step} at {dig} differs"
    assert len(outputs) == len(inputs["digs"])


@pytest.mark.parametrize("outcome", ["win", "lose"])
def test_text_game_matches_project10(originals, outcome, tmp_path):
    ns = solution_namespace("01-neighbors.ipynb")
    moves = (originals / "project10" / f"full_game_{outcome}.moves.txt").read_text().split()
    expected = (originals / "project10" / f"full_game_{outcome}.expected_stdout.txt").read_text()
    grid = ns["read_file"](str(originals / "project10" / "fiveByFive.txt"))
    view = ns["make_empty_grid"](grid)
    ns["update_grid"](grid)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        index = 0
        while ns["determine_game_status"](grid, view) and index < len(moves):
            ns["dig"](grid, moves[index], view)
            index += 1
    assert out.getvalue() == expected


def test_print_grid_matches_project10_tall_board(originals):
    ns = solution_namespace("01-neighbors.ipynb")
    grid = ns["read_file"](str(originals / "project10" / "tenSquare.txt"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ns["print_grid"](ns["make_empty_grid"](grid))
    lines = out.getvalue().splitlines()
    assert len(grid) == 11 and len(grid[0]) == 11
    assert lines[0] == "10" + "[ ]" * 11 and lines[10] == " 0" + "[ ]" * 11
    assert lines[11] == "   " + "".join(f"{letter}  " for letter in "abcdefghijk")
