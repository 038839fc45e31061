"""Round trips and bad input for every file format the kit reads and writes."""

import json

import pytest

from minesweeper_kit import Face, Game
from minesweeper_kit.formats import gamejson, jsonlog, mit6009, project10, sweepmine


def played_game():
    game = Game.new((9, 9), 10, seed=3)
    game.dig((4, 4)); game.cycle_mark((0, 0)); game.cycle_mark((8, 8)); game.cycle_mark((8, 8))
    return game


def test_game_dict_round_trips_through_json():
    game = played_game()
    data = json.loads(json.dumps(gamejson.game_to_dict(game)))
    again = gamejson.game_from_dict(data)
    assert (again.faces() == game.faces()).all() and (again.mines == game.mines).all()
    assert again.state == game.state and again.history == game.history


def test_unplaced_game_dict_keeps_seed_and_rules():
    game = Game.new((4, 4, 4), 6, torus=True, first_move="opening", seed=9)
    again = gamejson.game_from_dict(gamejson.game_to_dict(game))
    game.dig((0, 0, 0)); again.dig((0, 0, 0))
    assert (again.mines == game.mines).all()


@pytest.mark.parametrize("data, message", [
    ({}, "format"), ({"format": "minesweeper-kit/game"}, "lacks the field"),
])
def test_bad_game_dicts(data, message):
    with pytest.raises(ValueError, match=message):
        gamejson.game_from_dict(data)


def test_json_lines_log_replays_move_by_move():
    game = played_game()
    log = jsonlog.read(jsonlog.record(game))
    positions = list(log.positions())
    assert len(positions) == len(game.history) + 1
    assert positions[0].revealed.sum() == 0
    assert (positions[-1].faces() == game.faces()).all()


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("{", "not JSON"), ('{"format": "x"}', "header"),
    ('{"format": "minesweeper-kit/log", "shape": [2, 2], "torus": false, "reveal": "flood", "mines": [[0, 0]]}\n{"action": "jump", "at": [0, 0]}', "line 2"),
    ('{"format": "minesweeper-kit/log", "shape": [2, 2], "torus": false, "reveal": "flood", "mines": [[5, 0]]}', "off the board"),
])
def test_bad_json_logs(text, message):
    with pytest.raises(ValueError, match=message):
        jsonlog.read(text)


@pytest.mark.parametrize("text, message", [
    ("5\n", "two lines"), ("x\n2\n", "width"), ("2\n2\n0, 1\n", "height says 2"),
    ("2\n1\n0, 1, 0\n", "3 cells"), ("2\n1\n0, 2\n", "0 or 1"), ("27\n1\n" + ", ".join("0" * 27) + "\n", "at most 26"),
])
def test_bad_project10_board_files(text, message):
    with pytest.raises(ValueError, match=message):
        project10.parse_board(text)


def test_project10_coordinates_count_rows_from_the_bottom():
    game = project10.board_game([[False] * 3 for _ in range(4)])
    assert project10.parse_coordinate("a0", game) == (3, 0)
    assert project10.parse_coordinate("c3", game) == (0, 2)
    assert project10.format_coordinate((0, 2), game) == "c3"
    for bad in ("d0", "a4", "0a", ""):
        with pytest.raises(ValueError):
            project10.parse_coordinate(bad, game)


def test_project10_coordinates_from_a_row_count_alone():
    # Written by hand: on a 4-row board the top row is 3 and the bottom row 0.
    assert project10.format_coordinate((0, 0), 4) == "a3"
    assert project10.format_coordinate((3, 0), 4) == "a0"
    assert project10.format_coordinate((1, 25), 4) == "z2"
    assert project10.format_coordinate((0, 1), 1) == "b0"
    for bad, rows in (((4, 0), 4), ((-1, 0), 4), ((0, 26), 4)):
        with pytest.raises(ValueError, match="off a board"):
            project10.format_coordinate(bad, rows)


COVERED, OPEN, MINE = Face.COVERED, Face.OPEN, Face.MINE


def test_6009_render_of_a_game_written_by_hand():
    # Mines at (0, 0) and (1, 2) on a 2x3 board; digging (1, 0) opens only that cell.
    game = Game.from_mines((2, 3), [(0, 0), (1, 2)])
    game.dig((1, 0))
    assert mit6009.write_board(game) == [[".", 2, 1], [1, 2, "."]]
    assert mit6009.write_render(game) == [["_", "_", "_"], ["1", "_", "_"]]
    assert mit6009.write_render(game, xray=True) == [[".", "2", "1"], ["1", "2", "."]]
    empty = Game.from_mines((1, 2), [])
    empty.dig((0, 0))
    assert mit6009.write_render(empty) == [[" ", " "]]


@pytest.mark.parametrize("rendered, shape, faces, numbers", [
    ([["_", "."], [" ", "3"]], (2, 2), [[COVERED, MINE], [OPEN, OPEN]], [[0, 0], [0, 3]]),
    ([[1, 0], ["0", 8]], (2, 2), [[OPEN, OPEN], [OPEN, OPEN]], [[1, 0], [0, 8]]),
    (["_", "12", "-2"], (3,), [COVERED, OPEN, OPEN], [0, 12, -2]),
    ([[["_"], ["2"]]], (1, 2, 1), [[[COVERED], [OPEN]]], [[[0], [2]]]),
    ((("_", " "),), (1, 2), [[COVERED, OPEN]], [[0, 0]]),
])
def test_6009_read_render(rendered, shape, faces, numbers):
    got_faces, got_numbers = mit6009.read_render(rendered, shape)
    assert got_faces.shape == got_numbers.shape == shape
    assert got_faces.tolist() == faces
    assert got_numbers.tolist() == numbers


@pytest.mark.parametrize("rendered, shape, message", [
    ([["_", "x"]], (1, 2), r"^render\[0\]\[1\] is 'x'; expected '_', '\.', ' '"),
    ([["_", "_"], ["_", None]], (2, 2), r"^render\[1\]\[1\] is None \(NoneType\); expected"),
    ([["_", True]], (1, 2), r"^render\[0\]\[1\] is True \(bool\)"),
    ([["_", "1.5"]], (1, 2), r"^render\[0\]\[1\] is '1\.5'"),
    ([["_", "_"]], (2, 2), r"^render has 1 entries; expected 2 \(axis 0 of shape \[2, 2\]\)"),
    ([["_", "_"], ["_"]], (2, 2), r"^render\[1\] has 1 entries; expected 2 \(axis 1"),
    (["_", "_"], (2, 2), r"^render\[0\] is '_' \(str\); expected a list of 2 \(axis 1"),
    ([[["_"], ["_"]]], (1, 2), r"^render\[0\]\[0\] is a list of 1; expected one cell"),
    ("__", (2,), r"^render is '__' \(str\); expected a list of 2 \(axis 0"),
])
def test_bad_6009_renders_name_the_first_bad_place(rendered, shape, message):
    with pytest.raises(ValueError, match=message):
        mit6009.read_render(rendered, shape)


def test_bad_6009_render_names_the_caller():
    with pytest.raises(ValueError, match=r"^Game\.render\(\)\[2\] is '\?'"):
        mit6009.read_render(["_", " ", "?"], [3], what="Game.render()")


def test_sweepmine_log_of_a_played_game_round_trips():
    game = Game.new((9, 9), 10, seed=21)
    game.dig((0, 0)); game.toggle_flag((8, 8))
    text = sweepmine.write_log(sweepmine.log_from_game(game))
    log = sweepmine.read_log(text)
    assert sweepmine.write_log(log) == text
    assert (log.replay().faces() == game.faces()).all()


def test_sweepmine_log_positions_step_through_the_moves():
    # 2x2, one mine at (1, 1) (grid 1-indexed rows): dig the top-left cell, then flag the mine.
    text = "2 2 1 0 0 0\n1 1 \n1 101 \n1 1 \n1 1 \n0 1 1\n1 2 2\n"
    log = sweepmine.read_log(text)
    positions = list(log.positions())
    assert len(positions) == 3
    assert [p.revealed[0, 0] for p in positions] == [False, True, True]
    assert [int(p.marks[1, 1]) for p in positions] == [0, 0, 1]
    assert log.move_labels() == ["dig (0, 0)", "flag (1, 1)"]
    assert (log.replay().faces() == positions[-1].faces()).all()


@pytest.mark.parametrize("text, message", [
    ("3 3 1 0 0\n", "6 integers"),
    ("3 3 1 0 0 0\n1 1 1\n1 101 1\n1 1\n", "grader grid row 3"),
    ("2 2 1 0 0 0\n101 1 \n1 5 \n1 1 \n1 1 \n", "says 5"),
    ("2 2 1 0 0 0\n101 1 \n1 1 \n1 1 \n1 1 \n7 1 1\n", "0 \\(uncover\\) or 1"),
    ("2 2 1 0 0 0\n101 1 \n1 1 \n1 1 \n1 1 \nWIN\n0 1 1\n", "nothing may follow"),
])
def test_bad_sweepmine_logs(text, message):
    with pytest.raises(ValueError, match=message):
        sweepmine.read_log(text).to_game()


def test_sweepmine_charges_make_numbers():
    text = "2 2 1 1 1 0\n101 -4 \n-4 -4 \n-4 1 \n1 1 \n"
    game = sweepmine.read_log(text).to_game()
    assert game.numbers[1, 1] == -4 and game.effective_reveal == "single"


def test_a_game_as_each_function_api_writes_it():
    """The function APIs' dict and text picture of a hand-checked 2x4 game: dimensions a tuple, the
    visibility key True where shown (inverted for `hidden`), rows joined by newlines, none at the end."""
    from minesweeper_kit.formats.mit6009 import function_api, write_game, write_text

    game = Game.from_mines((2, 4), [(0, 0), (1, 0), (1, 1)])
    assert game.dig((0, 3)) == 4
    shown = [[False, False, True, True], [False, False, True, True]]
    board = [[".", 3, 1, 0], [".", ".", 1, 0]]
    assert write_game(game, function_api("fall2023")) == {
        "dimensions": (2, 4), "board": board, "visible": shown, "state": "ongoing"}
    hidden = write_game(game, function_api("fall2022"))
    assert hidden["hidden"] == [[True, True, False, False], [True, True, False, False]] and "visible" not in hidden
    assert write_game(game, function_api("spring2020"))["mask"] == shown
    assert write_text(game) == "__1 \n__1 "
    assert write_text(game, xray=True) == ".31 \n..1 "
    with pytest.raises(ValueError, match="unknown function API"):
        function_api("fall2025")
