"""Hidden suite of the `neighbors` assignment (notebook 01-neighbors).

The Project 10 text game (original boards and the two scripted games, byte for byte; random
board files written in the styles the notebook allows; make_empty_grid's rows each a new list;
update_grid in place, returning nothing; grids up to 26 wide and 100 high; boards tall enough for
two-digit row numbers), then neighbours in 1, 2, 3 and N dimensions against the engine on random
cells of this grading run's seed, smallest first, given as lists and as tuples. A Project 10
`minesweeper.py` earns the game part.

Time: every test has the assignment's default 30 s of CPU time; the reference needs under 0.1 s
for any of them (over 300 times less), so only a runaway loop meets the limit.
"""

from __future__ import annotations

import random
import string
from contextlib import contextmanager

from autograder.suite import Mismatch, check_coordinates, check_equal, describe, points, require
from minesweeper_kit import Game
from minesweeper_kit.sandbox import StudentError

GAME_FUNCTIONS = (
    "read_file",
    "make_empty_grid",
    "update_grid",
    "print_grid",
    "dig",
    "count_total_moves",
    "determine_game_status",
)


def board_text(rows):
    return f"{len(rows[0])}\n{len(rows)}\n" + "\n".join(", ".join(str(v) for v in row) for row in rows) + "\n"


def parse_board(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return [[int(v) for v in line.replace(" ", "").split(",")] for line in lines[2:]]


def expected_print(view):
    height, width = len(view), len(view[0])
    lines = [f"{height - 1 - i:>2}" + "".join(f"[{cell}]" for cell in row) for i, row in enumerate(view)]
    lines.append("   " + "".join(f"{letter}  " for letter in string.ascii_lowercase[:width]))
    return "\n".join(lines) + "\n"


def engine_game(rows):
    mines = [(r, c) for r, row in enumerate(rows) for c, v in enumerate(row) if v]
    return Game.from_mines((len(rows), len(rows[0])), mines, reveal="ring")


def engine_view(game):
    view = []
    for r in range(game.shape[0]):
        row = []
        for c in range(game.shape[1]):
            if not game.revealed[r, c]:
                row.append(" ")
            elif game.mines[r, c]:
                row.append("X")
            else:
                row.append(str(int(game.numbers[r, c])))
        view.append(row)
    return view


def start(box, rows, name="board.txt"):
    box.put_file(name, board_text(rows))
    grid = box.call("read_file", name, keep=True)
    view = box.call("make_empty_grid", grid, keep=True)
    box.call("update_grid", grid)
    return grid, view


def label(rows, r, c):
    return f"{string.ascii_lowercase[c]}{len(rows) - 1 - r}"


def random_boards(seed, count, salt="boards", tall=0):
    """Random boards, smallest first; ``tall`` of them 11 to 14 rows high (two-digit row numbers)."""
    rng = random.Random(f"{seed}:{salt}")
    boards = []
    for index in range(count):
        if index < tall:
            height, width = rng.randint(11, 14), rng.randint(2, 5)
        else:
            height, width = rng.randint(2, 8), rng.randint(2, 8)
        rows = [[1 if rng.random() < 0.15 else 0 for _ in range(width)] for _ in range(height)]
        boards.append(rows)
    return sorted(boards, key=lambda b: len(b) * len(b[0]))


@contextmanager
def during(case):
    """An exception raised by the student's code becomes a Mismatch that names the case
    (``case`` may be a function, asked only then, so that it names the very last move)."""
    try:
        yield
    except StudentError as error:
        raise Mismatch(f"{case() if callable(case) else case}: {error}") from None


def kept_call(box, handle, name, *args):
    """Call method ``name`` of an object in the sandbox and leave the result there (a Handle),
    so the test can change that very object afterwards."""
    return box.call_method(handle, name, *args, keep=True)


#: How a board file may be written (the notebook: commas, stray spaces around them, blank lines,
#: a last row without a line break). Each style: (its description, the separator, what follows).
FILE_STYLES = [
    ("with a space after each comma", ", ", "\n"),
    ("without spaces", ",", "\n"),
    ("with stray spaces around the commas", " , ", "\n"),
    ("with a blank line after every row", ", ", "\n\n"),
    ("whose last row ends without a line break", ",", ""),
]


def board_file(rows, separator, end):
    lines = [separator.join(str(v) for v in row) for row in rows]
    if end == "\n\n":
        return f"{len(rows[0])}\n{len(rows)}\n" + "".join(line + "\n\n" for line in lines)
    return f"{len(rows[0])}\n{len(rows)}\n" + "\n".join(lines) + end


@points(2)
def test_read_file(box, originals, seed):
    """read_file reads the original boards and files in every style step 1 allows (first file row first)"""
    require(box, "read_file")
    for name in ("fiveByFive.txt", "tenSquare.txt"):
        text = (originals / "project10" / name).read_text()
        box.put_file(name, text)
        expected = [["X" if v else "0" for v in row] for row in parse_board(text)]
        with during(f"read_file of the original {name}"):
            got = box.call("read_file", name)
        check_equal(got, expected, what="read_file's grid", case=f"the original {name}")
    rng = random.Random(f"{seed}:files")
    boards = random_boards(seed, 5, salt="files")
    for rows, (style, separator, end) in zip(boards, FILE_STYLES):
        if len(rows) == len(rows[0]):  # a square board would hide width and height swapped
            rows = rows + [[1 if rng.random() < 0.15 else 0 for _ in rows[0]]]
        box.put_file("board.txt", board_file(rows, separator, end))
        expected = [["X" if v else "0" for v in row] for row in rows]
        case = f"a {len(rows[0])}-wide, {len(rows)}-high board file written {style}, board {rows}"
        with during(f"read_file of {case}"):
            got = box.call("read_file", "board.txt")
        check_equal(got, expected, what="read_file's grid", case=case)


@points(2)
def test_update_grid_and_empty_grid(box, seed):
    """make_empty_grid and update_grid (counts as strings, in place)"""
    require(box, "read_file", "make_empty_grid", "update_grid")
    for number, rows in enumerate(random_boards(seed, 6), start=1):
        case = f"random board {number} {rows}"
        box.put_file("board.txt", board_text(rows))
        with during(case):
            grid = box.call("read_file", "board.txt", keep=True)
            view = box.call("make_empty_grid", grid, keep=True)
        check_equal(box.fetch(view), [[" "] * len(rows[0]) for _ in rows], what="make_empty_grid's grid", case=case)
        with during(case):
            returned = box.call("update_grid", grid)
        if returned is not None:
            raise Mismatch(
                f"{case}: update_grid should change the grid in place and return nothing, "
                f"it returned {describe(returned)}"
            )
        game = engine_game(rows)
        expected = [
            ["X" if v else str(int(game.numbers[r, c])) for c, v in enumerate(row)] for r, row in enumerate(rows)
        ]
        check_equal(box.fetch(grid), expected, what="the grid after update_grid", case=case)
        # Every row of the empty grid is its own list: changing the bottom-left cell changes no other row.
        bottom = len(rows) - 1
        changed = f"{case}, after its bottom-left cell was set to '1' (every row a new list)"
        with during(changed):
            box.call_method(kept_call(box, view, "__getitem__", bottom), "__setitem__", 0, "1")
        wanted = [[" "] * len(rows[0]) for _ in rows]
        wanted[bottom][0] = "1"
        check_equal(box.fetch(view), wanted, what="make_empty_grid's grid", case=changed)


@points(2)
def test_print_grid(box, seed):
    """print_grid prints the exact Project 10 format"""
    require(box, "print_grid")
    rng = random.Random(f"{seed}:print")
    views = [
        [[" ", "1"], ["X", "0"]],
        [[" ", "1", "X"]],
        [[" "] for _ in range(11)],
        [[rng.choice([" ", "0", "1", "X"]) for _ in range(26)] for _ in range(100)],
    ]
    for _ in range(4):
        height, width = rng.randint(1, 11), rng.randint(1, 11)
        views.append([[rng.choice([" ", "0", "1", "2", "X"]) for _ in range(width)] for _ in range(height)])
    for view in sorted(views, key=lambda v: len(v) * len(v[0])):
        with during(f"print_grid of a {len(view)}x{len(view[0])} grid"):
            _, printed = box.call_captured("print_grid", view)
        expected = expected_print(view)
        if printed != expected:
            lines, wanted = printed.splitlines(), expected.splitlines()
            for index, line in enumerate(wanted):
                got = lines[index] if index < len(lines) else "(nothing)"
                if got != line:
                    raise Mismatch(
                        f"print_grid of a {len(view)}x{len(view[0])} grid: printed line {index + 1} is "
                        f"{got!r}, expected {line!r}"
                    )
            raise Mismatch(
                f"print_grid of a {len(view)}x{len(view[0])} grid printed extra text: "
                f"{describe(printed[len(expected) :])}"
            )


def play(box, rows, moves, case):
    grid, view = start(box, rows)
    printed_all = []
    for move in moves:
        _, printed = box.call_captured("dig", grid, move, view)
        printed_all.append(printed)
        if box.call("determine_game_status", grid, view) is not True:
            break
    return "".join(printed_all), grid, view


@points(3)
def test_original_scripted_games(box, originals):
    """The two scripted games of the original assignment, byte for byte"""
    require(box, *GAME_FUNCTIONS)
    for name in ("full_game_win", "full_game_lose"):
        rows = parse_board((originals / "project10" / "fiveByFive.txt").read_text())
        moves = (originals / "project10" / f"{name}.moves.txt").read_text().split()
        expected = (originals / "project10" / f"{name}.expected_stdout.txt").read_text()
        with during(f"the original {name.replace('_', ' ')} ({' '.join(moves)})"):
            printed, _, _ = play(box, rows, moves, name)
        if printed != expected:
            got, wanted = printed.splitlines(), expected.splitlines()
            for index, line in enumerate(wanted):
                if index >= len(got) or got[index] != line:
                    raise Mismatch(
                        f"the original {name.replace('_', ' ')} ({' '.join(moves)}): output line "
                        f"{index + 1} is {got[index] if index < len(got) else '(nothing)'!r}, "
                        f"expected {line!r}"
                    )
            raise Mismatch(f"the original {name.replace('_', ' ')}: more output than expected")


@points(3)
def test_random_games(box, seed):
    """Random games dug cell by cell agree with the engine (view, moves left, status)"""
    require(box, *GAME_FUNCTIONS)
    rng = random.Random(f"{seed}:games")
    for number, rows in enumerate(random_boards(seed, 8, tall=2), start=1):
        game = engine_game(rows)
        with during(f"random board {number} {rows}"):
            grid, view = start(box, rows)
        digs: list[str] = []
        cells = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))]
        for _ in range(rng.randint(2, 6)):
            covered = [(r, c) for r, c in cells if not game.revealed[r, c]]
            if len(rows) > 10 and not digs:  # a tall board: dig first where the row number has two digits
                covered = [(r, c) for r, c in covered if len(rows) - 1 - r >= 10] or covered
            if not covered:
                break
            r, c = rng.choice(covered)  # re-digging an open cell is left out: Project 10 leaves it open
            digs.append(label(rows, r, c))
            case = f"random board {number} {rows}, digs {digs}"
            with during(case):
                _, printed = box.call_captured("dig", grid, digs[-1], view)
            game.dig((r, c))
            expected_view = engine_view(game)
            check_equal(box.fetch(view), expected_view, what="the user view", case=case)
            if printed != expected_print(expected_view):
                raise Mismatch(f"{case}: dig did not print the user view in the Project 10 format")
            covered_safe = sum(1 for rr, cc in cells if not rows[rr][cc] and expected_view[rr][cc] == " ")
            going = not any("X" in row for row in expected_view) and covered_safe > 0
            with during(case):
                moves_left = box.call("count_total_moves", grid, view)
                status = box.call("determine_game_status", grid, view)
            check_equal(moves_left, covered_safe, what="count_total_moves", case=case)
            check_equal(status, going, what="determine_game_status", case=case)
            if not going:
                break


def cells_of(seed, salt, count, ndim):
    rng = random.Random(f"{seed}:{salt}")
    cases = []
    for _ in range(count):
        shape = [rng.randint(1, 5) for _ in range(ndim if ndim else rng.randint(1, 5))]
        cases.append((shape, [rng.randrange(n) for n in shape]))
    return sorted(cases, key=lambda case: (len(case[0]), case[0]))


def as_tuples_too(cases):
    """Every case as lists, then every case again as tuples (the notebook passes tuples)."""
    return cases + [(tuple(shape), tuple(cell)) for shape, cell in cases]


@points(1)
def test_neighbors_1d(box, seed):
    """neighbors_1d on a line, ends included"""
    require(box, "neighbors_1d")
    for (length,), (x,) in [([1], [0]), ([5], [0]), ([5], [4]), ([5], [2])] + cells_of(seed, "1d", 4, 1):
        expected = [p for p in (x - 1, x + 1) if 0 <= p < length]
        case = f"neighbors_1d({length}, {x})"
        with during(case):
            got = box.call("neighbors_1d", length, x)
        if not isinstance(got, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in got):
            raise Mismatch(f"{case}: should return a list of positions (ints), got {describe(got)}")
        check_coordinates(got, [(p,) for p in expected], what="the neighbours", case=case)


@points(1)
def test_neighbors_2d(box, seed):
    """neighbors_2d at corners, edges and inside"""
    require(box, "neighbors_2d")
    for shape, cell in as_tuples_too(
        [([3, 3], [0, 0]), ([3, 3], [1, 1]), ([1, 3], [0, 2]), ([4, 2], [3, 1])] + cells_of(seed, "2d", 5, 2)
    ):
        with during(f"neighbors_2d({shape}, {cell})"):
            got = box.call("neighbors_2d", shape, cell)
        check_coordinates(
            got,
            Game.from_mines(shape, []).neighbours(cell),
            what="the neighbours",
            case=f"neighbors_2d({shape}, {cell})",
        )


@points(1)
def test_neighbors_3d(box, seed):
    """neighbors_3d at corners, edges and inside"""
    require(box, "neighbors_3d")
    for shape, cell in as_tuples_too(
        [([3, 3, 3], [1, 1, 1]), ([2, 2, 2], [0, 0, 0]), ([1, 4, 2], [0, 3, 1])] + cells_of(seed, "3d", 5, 3)
    ):
        with during(f"neighbors_3d({shape}, {cell})"):
            got = box.call("neighbors_3d", shape, cell)
        check_coordinates(
            got,
            Game.from_mines(shape, []).neighbours(cell),
            what="the neighbours",
            case=f"neighbors_3d({shape}, {cell})",
        )


@points(2)
def test_neighbors_nd(box, seed):
    """neighbors in any number of dimensions"""
    require(box, "neighbors")
    fixed = [([4], [0]), ([2, 2, 2, 2], [1, 0, 1, 0]), ([3, 1, 3, 1, 3], [1, 0, 2, 0, 0])]
    for shape, cell in as_tuples_too(fixed + cells_of(seed, "nd", 8, 0)):
        with during(f"neighbors({shape}, {cell})"):
            got = box.call("neighbors", shape, cell)
        check_coordinates(
            got, Game.from_mines(shape, []).neighbours(cell), what="the neighbours", case=f"neighbors({shape}, {cell})"
        )
