"""Hidden suite of the `flood-fill` assignment (notebook 03-flood-fill, CS455 semantics).

Fixed cases, then random fields from this grading run's seed (smallest first) played move by
move against the engine with the same rules (flood, guess/question marks, end view), then the
iterative flood on a 1000x1000 field (size case).
"""

from __future__ import annotations

import random

from minesweeper_kit import Face, Game

from autograder.suite import Mismatch, check_equal, points, require, time_limit

CODES = {"COVERED": -1, "MINE_GUESS": -2, "EXPLODED_MINE": -3, "INCORRECT_GUESS": -4, "MINE": -5, "QUESTION": -6}
FACE_CODE = {Face.COVERED: -1, Face.FLAG: -2, Face.EXPLODED: -3, Face.WRONG_FLAG: -4, Face.MINE: -5,
             Face.QUESTION: -6}


def statuses(game):
    faces = game.faces()
    rows, cols = game.shape
    return [[int(game.numbers[r, c]) if faces[r, c] == Face.OPEN else FACE_CODE[Face(int(faces[r, c]))]
             for c in range(cols)] for r in range(rows)]


def all_statuses(box, visible, rows, cols):
    return [[box.call_method(visible, "get_status", r, c) for c in range(cols)] for r in range(rows)]


def random_fields(seed, salt, count):
    rng = random.Random(f"{seed}:{salt}")
    fields = []
    for _ in range(count):
        rows, cols = rng.randint(2, 8), rng.randint(2, 8)
        fields.append([[rng.random() < 0.15 for _ in range(cols)] for _ in range(rows)])
    return sorted(fields, key=lambda f: len(f) * len(f[0]))


def field_text(field):
    return "[" + ", ".join("".join("*" if m else "." for m in row) for row in field) + "]"


@points(2)
def test_mine_field(box, seed):
    """MineField: size, mines, neighbour counts, range checks"""
    require(box, "MineField")
    for number, field in enumerate(random_fields(seed, "mf", 5), start=1):
        case = f"MineField of {field_text(field)}"
        handle = box.call("MineField", field)
        rows, cols = len(field), len(field[0])
        check_equal(box.call_method(handle, "num_rows"), rows, what="num_rows()", case=case)
        check_equal(box.call_method(handle, "num_cols"), cols, what="num_cols()", case=case)
        check_equal(box.call_method(handle, "num_mines"), sum(map(sum, field)), what="num_mines()", case=case)
        game = Game.from_mines((rows, cols), [(r, c) for r in range(rows) for c in range(cols) if field[r][c]])
        for r in range(rows):
            for c in range(cols):
                check_equal(box.call_method(handle, "has_mine", r, c), field[r][c], what=f"has_mine({r}, {c})", case=case)
                if not field[r][c]:
                    check_equal(box.call_method(handle, "num_adjacent_mines", r, c), int(game.numbers[r, c]),
                                what=f"num_adjacent_mines({r}, {c})", case=case)
        for r, c in [(-1, 0), (0, -1), (rows, 0), (0, cols), (rows - 1, cols - 1)]:
            check_equal(box.call_method(handle, "in_range", r, c), 0 <= r < rows and 0 <= c < cols,
                        what=f"in_range({r}, {c})", case=case)


@points(2)
def test_populate_avoids_the_first_cell(box, seed):
    """MineField.random + populate places the mines, never on the avoided cell"""
    require(box, "MineField")
    rng = random.Random(f"{seed}:pop")
    for rows, cols, mines in [(3, 3, 8), (4, 5, 6), (9, 9, 10)]:
        for _ in range(3):
            r, c = rng.randrange(rows), rng.randrange(cols)
            case = f"MineField.random({rows}, {cols}, {mines}) then populate({r}, {c})"
            handle = box.call_method(box.get_attr(None, "MineField"), "random", rows, cols, mines)
            box.call_method(handle, "populate", r, c)
            placed = [[box.call_method(handle, "has_mine", rr, cc) for cc in range(cols)] for rr in range(rows)]
            if placed[r][c]:
                raise Mismatch(f"{case}: a mine was placed on the avoided cell ({r}, {c})")
            check_equal(sum(map(sum, placed)), mines, what="the number of mines placed", case=case)


def play(box, seed, salt, moves_per_game, use_flood_fill=False):
    rng = random.Random(f"{seed}:{salt}")
    for number, field in enumerate(random_fields(seed, salt, 8), start=1):
        rows, cols = len(field), len(field[0])
        mines = [(r, c) for r in range(rows) for c in range(cols) if field[r][c]]
        game = Game.from_mines((rows, cols), mines)
        visible = box.call("VisibleField", box.call("MineField", field))
        moves = []
        for _ in range(moves_per_game):
            if game.state != "ongoing":
                break
            r, c = rng.randrange(rows), rng.randrange(cols)
            if rng.random() < 0.3:
                moves.append(f"cycle_guess({r}, {c})")
                box.call_method(visible, "cycle_guess", r, c)
                game.cycle_mark((r, c))
            else:
                if game.revealed[r, c] or game.marks[r, c]:
                    continue
                moves.append(f"uncover({r}, {c})")
                got = box.call_method(visible, "uncover", r, c)
                game.dig((r, c))
                case = f"field {field_text(field)}, moves {moves}"
                check_equal(got, not field[r][c], what="uncover's result", case=case)
            case = f"field {field_text(field)}, moves {moves}"
            check_equal(all_statuses(box, visible, rows, cols), statuses(game), what="get_status of every cell",
                        case=case)
            check_equal(box.call_method(visible, "num_mines_left"), game.mines_left, what="num_mines_left()", case=case)
            check_equal(box.call_method(visible, "is_game_over"), game.state != "ongoing", what="is_game_over()",
                        case=case)


@points(4)
def test_random_games(box, seed):
    """Random fields played move by move agree with the engine (flood, marks, end view)"""
    require(box, "MineField", "VisibleField")
    play(box, seed, "play", 8)


@points(1)
def test_guesses_block_the_flood(box):
    """The flood never opens a guessed or questioned cell"""
    require(box, "MineField", "VisibleField")
    field = [[False] * 5 for _ in range(5)]
    field[4][4] = True
    visible = box.call("VisibleField", box.call("MineField", field))
    game = Game.from_mines((5, 5), [(4, 4)])
    for r, c in [(0, 4), (0, 4), (2, 2)]:
        box.call_method(visible, "cycle_guess", r, c)
        game.cycle_mark((r, c))
    box.call_method(visible, "uncover", 0, 0)
    game.dig((0, 0))
    check_equal(all_statuses(box, visible, 5, 5), statuses(game), what="get_status of every cell",
                case="5x5 field, mine at (4, 4), question at (0, 4), guess at (2, 2), uncover(0, 0)")


@points(2)
def test_flood_fill_iterative_small(box, seed):
    """flood_fill_iterative opens the same cells as the recursive flood"""
    require(box, "MineField", "VisibleField", "flood_fill_iterative")
    rng = random.Random(f"{seed}:iter")
    for field in random_fields(seed, "iter", 6):
        rows, cols = len(field), len(field[0])
        safe = [(r, c) for r in range(rows) for c in range(cols) if not field[r][c]]
        r, c = rng.choice(safe)
        game = Game.from_mines((rows, cols), [(rr, cc) for rr in range(rows) for cc in range(cols) if field[rr][cc]])
        opened = game.dig((r, c))
        visible = box.call("VisibleField", box.call("MineField", field))
        case = f"flood_fill_iterative on field {field_text(field)} from ({r}, {c})"
        check_equal(box.call("flood_fill_iterative", visible, r, c), opened, what="the number of cells opened", case=case)
        got = all_statuses(box, visible, rows, cols)
        wanted = [[int(game.numbers[rr, cc]) if game.revealed[rr, cc] else -1 for cc in range(cols)] for rr in range(rows)]
        check_equal([[v if v >= 0 else -1 for v in row] for row in got], wanted, what="the open cells", case=case)


@points(2)
@time_limit(60)
def test_flood_fill_iterative_1000x1000(box):
    """flood_fill_iterative survives a 1000x1000 field (size case)"""
    require(box, "MineField", "VisibleField", "flood_fill_iterative")
    field = [[False] * 1000 for _ in range(1000)]
    field[999][999] = True
    visible = box.call("VisibleField", box.call("MineField", field))
    check_equal(box.call("flood_fill_iterative", visible, 0, 0), 999_999, what="the number of cells opened",
                case="1000x1000 field with one mine in the far corner, flood from (0, 0)")
