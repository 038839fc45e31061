"""One rules type: every option reaches the game from every place that starts one."""

from __future__ import annotations

import argparse
import ast
import io
import pathlib
import re

import pytest

from minesweeper_kit import Rules
from minesweeper_kit.play import add_game_options, play_terminal, rules_from_options

KIT = pathlib.Path(__file__).resolve().parents[1] / "minesweeper_kit"
EVERY_OPTION = Rules((5, 6), 7, torus=True, charges=(-3, 2), reveal="ring", first_move="opening")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(shape=(0, 3), mines=1), "axis 0 size must be at least 1"),
        (dict(shape=(3, 3), mines=1, reveal="wave"), "reveal must be one of"),
        (dict(shape=(3, 3), mines=1, first_move="lucky"), "first_move must be one of"),
        (dict(shape=(3, 3), mines=1, charges=(2, -2)), "low end 2 is above the high end -2"),
        (dict(shape=(3, 3), mines=1, charges=(0, 4)), "nonzero integer"),
        (dict(shape=(3, 3), mines=-1), "cannot be negative"),
        (dict(shape=(3, 3), mines=9), "9 mines do not fit"),  # the safe first cell leaves 8
        (dict(shape=(3, 3), mines=1, first_move="opening"), "1 mines do not fit"),  # the opening is all 9
        (dict(shape=(3, 3), mines=2.0), "must be an integer"),
    ],
)
def test_bad_rules_are_refused_when_made(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Rules(**options)


def test_every_option_reaches_the_game():
    game = EVERY_OPTION.new_game(seed=11)
    assert (game.shape, game.mine_count, game.torus) == ((5, 6), 7, True)
    assert (game.reveal, game.first_move, game.charge_range) == ("ring", "opening", (-3, 2))
    charges = set(game.charges.ravel().tolist())
    assert charges <= {-3, -2, -1, 1, 2} and len(charges) > 1
    assert Rules.of_game(game) == EVERY_OPTION


def test_rules_survive_their_json_form_and_a_preset_keeps_its_name():
    assert Rules(**EVERY_OPTION.as_dict()) == EVERY_OPTION
    expert = Rules.preset("expert", torus=True)
    assert (expert.shape, expert.mines, expert.torus, expert.label) == ((16, 30), 99, True, "expert torus")
    assert expert.with_options(torus=False).label == "16x30/99"


def test_mines_play_options_name_every_rule():
    parser = argparse.ArgumentParser()
    add_game_options(parser)
    args = parser.parse_args(
        ["--shape", "5x6", "--mines", "7", "--torus", "--charges=-3:2", "--reveal", "ring", "--first-move", "opening"]
    )
    assert rules_from_options(args) == EVERY_OPTION
    assert rules_from_options(parser.parse_args(["--preset", "intermediate"])) == Rules((16, 16), 40)


def test_a_new_game_at_the_terminal_keeps_the_charge_range():
    rules = Rules((6, 6), 3, charges=(-4, 4))
    answers = iter(["n", "q"])
    last = play_terminal(rules.new_game(seed=2), read=lambda prompt: next(answers), out=io.StringIO())
    assert last.charge_range == (-4, 4) and last.seed != 2


def test_the_web_page_builds_its_board_with_every_option():
    import nbformat

    from minesweeper_kit.widgets.web import board_notebook

    code = nbformat.reads(board_notebook(EVERY_OPTION, seed=4), as_version=4).cells[0].source
    call = ast.parse(code).body[-1].value
    assert isinstance(call, ast.Call) and call.func.id == "Board"
    rules_call = call.args[0]
    built = eval(compile(ast.Expression(rules_call), "<page>", "eval"), {"Rules": Rules})
    assert built == EVERY_OPTION
    assert any(k.arg == "seed" and ast.literal_eval(k.value) == 4 for k in call.keywords)


def test_the_board_plays_every_option_and_refuses_them_for_student_code():
    from minesweeper_kit.widgets import Board

    board = Board((5, 6), 7, torus=True, charges=(-3, 2), reveal="ring", first_move="opening", seed=1)
    assert Rules.of_game(board.game) == EVERY_OPTION
    assert Rules.of_game(Board(EVERY_OPTION).game) == EVERY_OPTION

    def new_board(shape, mines):
        raise AssertionError("not reached")

    with pytest.raises(ValueError, match="student code plays its own rules"):
        Board((5, 6), 7, torus=True, play=new_board)


def test_the_option_lists_are_written_once():
    """No module but game.py, the engine that plays them, spells out the reveal rules or the first-move rules."""
    patterns = [re.compile(r"""["']flood["'],\s*["']ring["']"""), re.compile(r"""["']any["'],\s*["']safe["']""")]
    holders = {
        path.relative_to(KIT).as_posix()
        for path in KIT.rglob("*.py")
        if any(p.search(path.read_text()) for p in patterns)
    }
    assert holders == {"game.py"}
