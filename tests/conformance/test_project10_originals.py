"""Project 10's two scripted games, reproduced byte for byte.

From the board file, the moves and nothing else, the engine (ring rule) and the Project 10 print
format must give exactly the stdout the assignment page shows. The data is the kit's own copy in
autograder/instructor/data/originals/project10 (see the README there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from minesweeper_kit.formats import project10

ORIGINALS = Path(__file__).resolve().parents[2] / "autograder" / "instructor" / "data" / "originals" / "project10"


def original(name: str) -> str:
    assert ORIGINALS.is_dir(), f"the original Project 10 data is missing: {ORIGINALS}"
    with open(ORIGINALS / name, encoding="utf-8", newline="") as f:
        return f.read()


@pytest.mark.parametrize("script, final_state", [("full_game_win", "victory"),
                                                 ("full_game_lose", "defeat")])
def test_scripted_game_prints_exactly_the_original_stdout(script: str, final_state: str) -> None:
    game = project10.read_board(ORIGINALS / "fiveByFive.txt")
    moves = original(f"{script}.moves.txt").split()
    expected = original(f"{script}.expected_stdout.txt")
    assert project10.play_script(game, moves) == expected
    assert game.state == final_state


def test_the_lost_game_stops_at_the_mine() -> None:
    """b2 is a mine: the script's loop ends there, so three moves are never played."""
    game = project10.read_board(ORIGINALS / "fiveByFive.txt")
    moves = original("full_game_lose.moves.txt").split()
    printed = project10.play_script(game, moves)
    assert printed.count("   a  b  c  d  e  \n") == moves.index("b2") + 1 == 4
    assert " 2[ ][X][1][1][ ]\n" in printed


def test_untouched_board_format() -> None:
    game = project10.read_board(ORIGINALS / "fiveByFive.txt")
    assert project10.render_board(game) == (
        " 4[ ][ ][ ][ ][ ]\n"
        " 3[ ][ ][ ][ ][ ]\n"
        " 2[ ][ ][ ][ ][ ]\n"
        " 1[ ][ ][ ][ ][ ]\n"
        " 0[ ][ ][ ][ ][ ]\n"
        "   a  b  c  d  e  \n"
    )


def test_ring_rule_opens_the_cell_and_its_safe_neighbours_only() -> None:
    """The first move of both scripts, b0: b0 and its five neighbours a0..c1 minus the mine a0."""
    game = project10.read_board(ORIGINALS / "fiveByFive.txt")
    assert game.dig(project10.parse_coordinate("b0", game)) == 5
    assert game.state == "ongoing"


@pytest.mark.parametrize("text, expected", [("a0", (4, 0)), ("e4", (0, 4)), ("c2", (2, 2)),
                                            ("b3", (1, 1))])
def test_coordinates_count_rows_from_the_bottom(text: str, expected: tuple[int, int]) -> None:
    game = project10.read_board(ORIGINALS / "fiveByFive.txt")
    assert project10.parse_coordinate(text, game) == expected


@pytest.mark.parametrize("name, size, mines", [("fiveByFive.txt", 5, 6), ("tenSquare.txt", 11, 27)])
def test_board_files_load(name: str, size: int, mines: int) -> None:
    """Both original boards load (the first file row is the top row; "0 ,0" spacing is fine)."""
    game = project10.read_board(ORIGINALS / name)
    assert game.shape == (size, size)
    assert game.mine_count == mines
    assert game.reveal == "ring"
    assert game.mines[0, 0] and not game.mines[0, 1]
    assert game.mines[size - 1, size - 1] == (name == "fiveByFive.txt")
