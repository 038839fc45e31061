"""One click, one reading of the student's code: the board asks each of the student's functions at
most once per action, and the x-ray does not rebuild anything per update."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from student_code import CORRECT, MineField, VisibleField, dig_2d, new_game_2d, render_2d

from minesweeper_kit import Game
from minesweeper_kit.widgets import Board, FieldDriver, FunctionsDriver, TextGameDriver, engine
from minesweeper_kit.widgets.codes import CellCode, decode_cells


def counted(calls: Counter, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, counting its calls under `name` (and named so, as the student's would be)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    wrapper.__name__ = name
    return wrapper


def click(board: Board, action: str, at: tuple[int, ...] = ()) -> None:
    """What a click in the browser does: one custom message to the widget."""
    board._on_message(board, {"action": action, "at": list(at)}, [])


def covered_safe_cell(board: Board) -> tuple[int, ...]:
    shown = decode_cells(board.cells, board.shape)
    mines = board.game.mines if isinstance(board.game, Game) else board.driver.mine_mask
    return next(tuple(map(int, at)) for at in np.argwhere((shown == CellCode.COVERED) & ~mines))


def student_functions(calls: Counter) -> FunctionsDriver:
    return FunctionsDriver(
        counted(calls, "new_game", new_game_2d),
        counted(calls, "dig", dig_2d),
        counted(calls, "render", render_2d),
        (8, 9),
        10,
        seed=5,
    )


def test_a_click_on_a_student_board_calls_each_student_function_once():
    calls: Counter = Counter()
    board = Board(play=student_functions(calls))
    assert calls == Counter()  # nothing is asked before the first dig
    click(board, "dig", (4, 4))
    assert calls == Counter(new_game=1, dig=1, render=1)
    calls.clear()
    click(board, "dig", covered_safe_cell(board))
    assert calls == Counter(dig=1, render=1)
    calls.clear()
    click(board, "mark", covered_safe_cell(board))  # the widget keeps these marks: no student call
    assert (board.board_view() == CellCode.FLAG).sum() == 1
    board.xray = True  # the x-ray shows the student's numbers: one render(game, True), read once
    assert calls == Counter(render=1)
    board.compare = True  # compare holds that same x-ray against the engine's: nothing asked again
    assert calls == Counter(render=1)
    calls.clear()
    click(board, "dig", covered_safe_cell(board))  # with both on, a click still reads each once
    assert calls == Counter(dig=1, render=2)  # the view, and the x-ray


def test_a_failing_render_is_called_once_and_shown():
    calls: Counter = Counter()

    def render(game, xray=False):
        raise RuntimeError("not yet")

    driver = student_functions(calls)
    driver._render = counted(calls, "render", render)
    board = Board(play=driver)
    click(board, "dig", (0, 0))
    assert board.error["message"] == "RuntimeError: not yet"
    assert calls["render"] == 1


def test_a_click_on_a_field_board_reads_each_cell_once():
    calls: Counter = Counter()

    class Counted(VisibleField):
        pass

    for name in ("uncover", "get_status", "is_game_over", "num_mines_left", "cycle_guess"):
        setattr(Counted, name, counted(calls, name, getattr(VisibleField, name)))
    board = Board(play=FieldDriver(MineField, Counted, (5, 6), 4, seed=3))
    click(board, "mark", (0, 0))  # before the first dig: kept by the widget, handed over at the start
    click(board, "dig", (4, 5))
    assert calls == Counter(cycle_guess=1, uncover=1, get_status=30, is_game_over=1, num_mines_left=1)
    calls.clear()
    click(board, "mark", covered_safe_cell(board))
    assert calls == Counter(cycle_guess=1, get_status=30, is_game_over=1, num_mines_left=1)


def test_a_click_on_a_text_game_calls_dig_and_the_status_once():
    calls: Counter = Counter()
    functions = {name: counted(calls, name, function) for name, function in CORRECT.items()}
    board = Board(play=TextGameDriver(functions, (6, 7), 5, seed=2))
    click(board, "dig", (5, 0))
    assert calls == Counter(read_file=1, update_grid=1, make_empty_grid=1, dig=1, determine_game_status=1)
    calls.clear()
    click(board, "dig", covered_safe_cell(board))
    assert calls == Counter(dig=1, determine_game_status=1)


@pytest.fixture
def games_built(monkeypatch) -> Counter:
    """Counts the engine games built from a mine list (the student board's reference)."""
    built: Counter = Counter()
    from_mines = Game.from_mines.__func__  # type: ignore[attr-defined]

    def counting(cls, *args, **kwargs):
        built["from_mines"] += 1
        return from_mines(cls, *args, **kwargs)

    monkeypatch.setattr(Game, "from_mines", classmethod(counting))
    return built


def test_the_x_ray_of_a_student_board_builds_no_game_per_update(games_built):
    board = Board(play=student_functions(Counter()))
    board.xray = True
    assert board.xray_cells == b""  # no mines yet
    click(board, "dig", (4, 4))
    for _ in range(3):
        click(board, "mark", covered_safe_cell(board))
        click(board, "dig", covered_safe_cell(board))
    board.xray = False
    board.xray = True
    assert games_built["from_mines"] == 1  # the reference, once, when the mines are placed
    xray = decode_cells(board.xray_cells, board.shape)
    mask = np.zeros(board.shape, dtype=bool)
    mask[tuple(np.array(board.driver.mine_list).T)] = True
    assert (xray[mask] == CellCode.MINE).all()
    reference = Game.from_mines(board.shape, board.driver.mine_list)
    assert (xray[~mask] == reference.numbers[~mask]).all()


def test_the_x_ray_of_an_engine_board_is_worked_out_once(monkeypatch):
    worked: Counter = Counter()
    original = engine.full_board_codes

    def counting(*args):
        worked["x-ray"] += 1
        return original(*args)

    monkeypatch.setattr(engine, "full_board_codes", counting)
    board = Board((9, 9), 10, seed=4)
    board.xray = True
    click(board, "dig", (4, 4))
    for _ in range(3):
        click(board, "mark", covered_safe_cell(board))
    assert worked["x-ray"] == 1
    xray = decode_cells(board.xray_cells, board.shape)
    assert ((xray == CellCode.MINE) == board.game.mines).all()
