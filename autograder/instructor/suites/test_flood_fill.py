"""Hidden suite of the `flood-fill` assignment (notebook 03-flood-fill, CS455 semantics).

Fixed cases, then random fields from this grading run's seed (smallest first) played move by
move against the engine with the same rules: the flood, guess/question marks, uncovering a
marked cell, moves off the field or after the end, the end view and `reset_game`. Then the
iterative flood, on small fields (the same cells as the engine, and counts that `uncover` can
still finish the game from) and on a 1000x1000 field (size case).

Every answer is checked for its type before it is used, so an odd answer (a string status, a
number where a bool belongs, an object) is a Mismatch that names it, never an error here.

Time: 90 s of CPU time for the 1000x1000 flood, as the notebook states. The reference needs 4.5
to 6.5 s there on a quiet machine and up to 8 s when another process shares the core, so the
limit stays eight times the reference even on a busy grading machine (mostly one neighbour count
per cell; a plain stack-based flood does the same work); 30 s for every other test, where the
reference needs under 0.3 s.
"""

from __future__ import annotations

import random
from contextlib import contextmanager

from autograder.suite import Mismatch, check_equal, describe, points, require, time_limit
from minesweeper_kit import Face, Game, Mark
from minesweeper_kit.sandbox import StudentError

FACE_CODE = {Face.COVERED: -1, Face.FLAG: -2, Face.EXPLODED: -3, Face.WRONG_FLAG: -4, Face.MINE: -5, Face.QUESTION: -6}
#: The notebook's names of the statuses below 0 (its VisibleField cell): messages say them by name.
STATUS_NAMES = {-1: "COVERED", -2: "MINE_GUESS", -3: "EXPLODED_MINE", -4: "INCORRECT_GUESS", -5: "MINE", -6: "QUESTION"}


def status_text(value):
    """A status for a message: its name when it is one of the notebook's constants, else as it is
    (a number of neighbouring mines, or whatever else get_status answered)."""
    if type(value) is int and value in STATUS_NAMES:
        return STATUS_NAMES[value]
    return describe(value)


# ------------------------------------------------------------------------------- sandbox helpers


def kept_call(box, handle, name, *args):
    """Call method ``name`` of an object in the sandbox and leave the result there (a Handle),
    so the test can change that very object afterwards."""
    return box.call_method(handle, name, *args, keep=True)


def list_in_sandbox(box, rows):
    """A list of rows built inside the sandbox, as a Handle: the caller's own list."""
    return kept_call(box, box.get_attr(None, "__builtins__"), "list", rows)


@contextmanager
def during(case):
    """An exception raised by the student's code becomes a Mismatch that names the case (read
    only then, so a `Moves` names the very last move)."""
    try:
        yield
    except StudentError as error:
        raise Mismatch(f"{case}: {error}") from None


class Moves(list):
    """The moves of one game so far; as text, the case a message names."""

    def __init__(self, field):
        super().__init__()
        self.field = field

    def __str__(self) -> str:
        return f"field {field_text(self.field)}, moves {list(self)}"


def expect_bool(value, what, case):
    if not isinstance(value, bool):
        raise Mismatch(f"{case}: {what} should be True or False, got {describe(value)}")
    return value


def expect_value_error(box, handle, name, *args, case):
    try:
        result = box.call_method(handle, name, *args)
    except StudentError as error:
        if error.type_name != "ValueError":
            raise Mismatch(f"{case}: raised {error.type_name}, expected ValueError") from None
        return
    raise Mismatch(
        f"{case}: should raise ValueError (no cell would stay free for the first click), got {describe(result)}"
    )


# ------------------------------------------------------------------------------- the engine side


def statuses(game):
    faces = game.faces()
    rows, cols = game.shape
    return [
        [
            int(game.numbers[r, c]) if faces[r, c] == Face.OPEN else FACE_CODE[Face(int(faces[r, c]))]
            for c in range(cols)
        ]
        for r in range(rows)
    ]


def uncovered(game):
    """is_uncovered of every cell: a number shows, or the exploded mine."""
    faces = game.faces()
    rows, cols = game.shape
    return [[bool(faces[r, c] in (Face.OPEN, Face.EXPLODED)) for c in range(cols)] for r in range(rows)]


def all_statuses(box, visible, rows, cols):
    return [[box.call_method(visible, "get_status", r, c) for c in range(cols)] for r in range(rows)]


def all_uncovered(box, visible, rows, cols):
    return [[box.call_method(visible, "is_uncovered", r, c) for c in range(cols)] for r in range(rows)]


def random_fields(seed, salt, count):
    rng = random.Random(f"{seed}:{salt}")
    fields = []
    for _ in range(count):
        rows, cols = rng.randint(2, 8), rng.randint(2, 8)
        fields.append([[rng.random() < 0.15 for _ in range(cols)] for _ in range(rows)])
    return sorted(fields, key=lambda f: len(f) * len(f[0]))


def field_text(field):
    return "[" + ", ".join("".join("*" if m else "." for m in row) for row in field) + "]"


def mines_of(field):
    return [(r, c) for r in range(len(field)) for c in range(len(field[0])) if field[r][c]]


# ------------------------------------------------------------------------------- MineField


@points(2)
def test_mine_field(box, seed):
    """MineField: size, mines, neighbour counts, range checks"""
    require(box, "MineField")
    for field in random_fields(seed, "mf", 5):
        case = f"MineField of {field_text(field)}"
        with during(case):
            handle = box.call("MineField", field)
            rows, cols = len(field), len(field[0])
            check_equal(box.call_method(handle, "num_rows"), rows, what="num_rows()", case=case)
            check_equal(box.call_method(handle, "num_cols"), cols, what="num_cols()", case=case)
            check_equal(box.call_method(handle, "num_mines"), sum(map(sum, field)), what="num_mines()", case=case)
            game = Game.from_mines((rows, cols), mines_of(field))
            for r in range(rows):
                for c in range(cols):
                    check_equal(
                        box.call_method(handle, "has_mine", r, c), field[r][c], what=f"has_mine({r}, {c})", case=case
                    )
                    if not field[r][c]:
                        check_equal(
                            box.call_method(handle, "num_adjacent_mines", r, c),
                            int(game.numbers[r, c]),
                            what=f"num_adjacent_mines({r}, {c})",
                            case=case,
                        )
            for r, c in [(-1, 0), (0, -1), (rows, 0), (0, cols), (rows - 1, cols - 1)]:
                check_equal(
                    box.call_method(handle, "in_range", r, c),
                    0 <= r < rows and 0 <= c < cols,
                    what=f"in_range({r}, {c})",
                    case=case,
                )
    # The field keeps its own copy: the caller changing its list (a whole row, or one cell of a
    # row) afterwards moves no mine.
    field = [[False, True, False], [False, False, False], [True, False, False]]
    case = (
        f"MineField of {field_text(field)}, after the caller set its own list's cell (1, 1) to True "
        "and replaced its row 0 (the field keeps a copy)"
    )
    data = list_in_sandbox(box, field)
    with during(case):
        handle = box.call("MineField", data)
        box.call_method(kept_call(box, data, "__getitem__", 1), "__setitem__", 1, True)
        box.call_method(data, "__setitem__", 0, [True, True, True])
        check_equal(
            [[box.call_method(handle, "has_mine", r, c) for c in range(3)] for r in range(3)],
            field,
            what="has_mine of every cell",
            case=case,
        )
        check_equal(box.call_method(handle, "num_mines"), 2, what="num_mines()", case=case)


@points(2)
def test_populate_avoids_the_first_cell(box, seed):
    """MineField.random + populate places the mines, never on the avoided cell"""
    require(box, "MineField")
    cls = box.get_attr(None, "MineField")
    rng = random.Random(f"{seed}:pop")
    for rows, cols, mines in [(3, 3, 8), (4, 5, 6), (9, 9, 10)]:
        for _ in range(3):
            r, c = rng.randrange(rows), rng.randrange(cols)
            case = f"MineField.random({rows}, {cols}, {mines}) then populate({r}, {c})"
            with during(case):
                handle = box.call_method(cls, "random", rows, cols, mines)
                check_equal(box.call_method(handle, "num_mines"), mines, what="num_mines() before populate", case=case)
                box.call_method(handle, "populate", r, c)
                placed = [
                    [
                        expect_bool(box.call_method(handle, "has_mine", rr, cc), f"has_mine({rr}, {cc})", case)
                        for cc in range(cols)
                    ]
                    for rr in range(rows)
                ]
            if placed[r][c]:
                raise Mismatch(f"{case}: a mine was placed on the avoided cell ({r}, {c})")
            check_equal(sum(map(sum, placed)), mines, what="the number of mines placed", case=case)
            case += " then reset_empty()"
            with during(case):
                box.call_method(handle, "reset_empty")
                emptied = [[box.call_method(handle, "has_mine", rr, cc) for cc in range(cols)] for rr in range(rows)]
                left = box.call_method(handle, "num_mines")
            check_equal(emptied, [[False] * cols for _ in range(rows)], what="has_mine of every cell", case=case)
            check_equal(left, mines, what="num_mines() (still to place)", case=case)
        case = f"MineField.random({rows}, {cols}, {mines}), populate(0, 0), reset_empty(), populate(0, 0) again"
        with during(case):
            handle = box.call_method(cls, "random", rows, cols, mines)
            for name, args in [("populate", (0, 0)), ("reset_empty", ()), ("populate", (0, 0))]:
                box.call_method(handle, name, *args)
            placed = [
                [
                    expect_bool(box.call_method(handle, "has_mine", rr, cc), f"has_mine({rr}, {cc})", case)
                    for cc in range(cols)
                ]
                for rr in range(rows)
            ]
        check_equal(sum(map(sum, placed)), mines, what="the number of mines placed", case=case)
    for rows, cols, mines in [(2, 2, 4), (1, 1, 1), (3, 3, 9), (2, 3, 7)]:
        expect_value_error(box, cls, "random", rows, cols, mines, case=f"MineField.random({rows}, {cols}, {mines})")


# ------------------------------------------------------------------------------- VisibleField


def check_view(box, visible, game, rows, cols, case):
    check_equal(
        all_statuses(box, visible, rows, cols),
        statuses(game),
        what="get_status of every cell",
        case=case,
        show=status_text,
    )
    check_equal(box.call_method(visible, "num_mines_left"), game.mines_left, what="num_mines_left()", case=case)
    check_equal(box.call_method(visible, "is_game_over"), game.state != "ongoing", what="is_game_over()", case=case)


def one_move(box, visible, game, rng, rows, cols, moves, field):
    """A random move on both sides: a mark cycle, an uncover (marked and open cells included) or,
    now and then, an uncover off the field."""
    roll = rng.random()
    if roll < 0.3:
        r, c = rng.randrange(rows), rng.randrange(cols)
        moves.append(f"cycle_guess({r}, {c})")
        box.call_method(visible, "cycle_guess", r, c)
        game.cycle_mark((r, c))
        return
    if roll < 0.36:
        r, c = rng.choice(
            [
                (-1, rng.randrange(cols)),
                (rows, rng.randrange(cols)),
                (rng.randrange(rows), -1),
                (rng.randrange(rows), cols),
            ]
        )
        moves.append(f"uncover({r}, {c})")
        check_equal(
            box.call_method(visible, "uncover", r, c), True, what="uncover's result (off the field)", case=str(moves)
        )
        return
    marked = [(r, c) for r in range(rows) for c in range(cols) if game.marks[r, c] and not game.revealed[r, c]]
    if marked and roll < 0.5:
        r, c = rng.choice(marked)
    else:
        r, c = rng.randrange(rows), rng.randrange(cols)
    moves.append(f"uncover({r}, {c})")
    before = game.state
    game.dig((r, c))
    exploded = before == "ongoing" and game.state == "defeat"
    check_equal(box.call_method(visible, "uncover", r, c), not exploded, what="uncover's result", case=str(moves))


def finish(box, visible, game, field, moves):
    """Win the game: uncover every safe cell still covered, turning a guess on it into a question
    first (a questioned cell uncovers, a guessed one does not)."""
    rows, cols = len(field), len(field[0])
    for r in range(rows):
        for c in range(cols):
            if field[r][c] or game.revealed[r, c]:
                continue
            if game.marks[r, c] == Mark.FLAG:
                moves.append(f"cycle_guess({r}, {c})")
                box.call_method(visible, "cycle_guess", r, c)
                game.cycle_mark((r, c))
            moves.append(f"uncover({r}, {c})")
            box.call_method(visible, "uncover", r, c)
            game.dig((r, c))


def play(box, seed, salt, moves_per_game):
    rng = random.Random(f"{seed}:{salt}")
    for number, field in enumerate(random_fields(seed, salt, 8), start=1):
        rows, cols = len(field), len(field[0])
        game = Game.from_mines((rows, cols), mines_of(field))
        visible = box.call("VisibleField", box.call("MineField", field))
        moves = Moves(field)
        for _ in range(moves_per_game):
            if game.state != "ongoing":
                break
            with during(moves):
                one_move(box, visible, game, rng, rows, cols, moves, field)
            check_view(box, visible, game, rows, cols, str(moves))
        if game.state == "ongoing":
            with during(moves):
                finish(box, visible, game, field, moves)
            check_view(box, visible, game, rows, cols, str(moves))
        case = str(moves)
        check_equal(
            all_uncovered(box, visible, rows, cols), uncovered(game), what="is_uncovered of every cell", case=case
        )
        with during(moves):
            for _ in range(3):  # after the end nothing changes any more
                one_move(box, visible, game, rng, rows, cols, moves, field)
        check_view(box, visible, game, rows, cols, f"{moves} (after the end)")
        if number % 2:
            moves.append("reset_game()")
            game = Game.from_mines((rows, cols), mines_of(field))
            for _ in range(2):
                with during(moves):
                    if moves[-1] == "reset_game()":
                        box.call_method(visible, "reset_game")
                    one_move(box, visible, game, rng, rows, cols, moves, field)
                check_view(box, visible, game, rows, cols, str(moves))


@points(4)
def test_random_games(box, seed):
    """Random fields played move by move agree with the engine (flood, marks, end view)"""
    require(box, "MineField", "VisibleField")
    play(box, seed, "play", 8)


@points(1)
def test_guesses_block_the_flood(box):
    """The flood never opens a guessed or questioned cell, and a mark never covers an open one"""
    require(box, "MineField", "VisibleField")
    field = [[False] * 5 for _ in range(5)]
    field[4][4] = True
    case = "5x5 field, mine at (4, 4), question at (0, 4), guess at (2, 2), uncover(0, 0), cycle_guess(1, 1)"
    game = Game.from_mines((5, 5), [(4, 4)])
    with during(case):
        visible = box.call("VisibleField", box.call("MineField", field))
        for r, c in [(0, 4), (0, 4), (2, 2)]:
            box.call_method(visible, "cycle_guess", r, c)
            game.cycle_mark((r, c))
        box.call_method(visible, "uncover", 0, 0)
        box.call_method(visible, "cycle_guess", 1, 1)  # an open cell: nothing changes
    game.dig((0, 0))
    check_equal(
        all_statuses(box, visible, 5, 5), statuses(game), what="get_status of every cell", case=case, show=status_text
    )
    check_equal(all_uncovered(box, visible, 5, 5), uncovered(game), what="is_uncovered of every cell", case=case)


# ------------------------------------------------------------------------------- the iterative flood


def open_cells(got):
    """The statuses with every covered or marked cell as -1 (other answers kept for the message)."""
    return [[v if not isinstance(v, int) or isinstance(v, bool) or v >= 0 else -1 for v in row] for row in got]


@points(2)
def test_flood_fill_iterative_small(box, seed):
    """flood_fill_iterative opens the same cells as the recursive flood"""
    require(box, "MineField", "VisibleField", "flood_fill_iterative")
    rng = random.Random(f"{seed}:iter")
    for field in random_fields(seed, "iter", 6):
        rows, cols = len(field), len(field[0])
        safe = [(r, c) for r in range(rows) for c in range(cols) if not field[r][c]]
        r, c = rng.choice(safe)
        game = Game.from_mines((rows, cols), mines_of(field))
        opened = game.dig((r, c))
        case = f"flood_fill_iterative on field {field_text(field)} from ({r}, {c})"
        with during(case):
            visible = box.call("VisibleField", box.call("MineField", field))
            got = box.call("flood_fill_iterative", visible, r, c)
        check_equal(got, opened, what="the number of cells opened", case=case)
        got = all_statuses(box, visible, rows, cols)
        wanted = [
            [int(game.numbers[rr, cc]) if game.revealed[rr, cc] else -1 for cc in range(cols)] for rr in range(rows)
        ]
        check_equal(open_cells(got), wanted, what="the open cells", case=case, show=status_text)
        with during(case + ", then again from the same cell"):
            got = box.call("flood_fill_iterative", visible, r, c)
        check_equal(got, 0, what="the number of cells opened", case=case + ", then again from the same cell")
        rest = [(rr, cc) for rr, cc in safe if not game.revealed[rr, cc]]
        if not rest:
            continue
        # The class's own record of open cells must count these too: uncovering the rest wins.
        case += f", then uncover of the {len(rest)} safe cells still covered"
        with during(case):
            for rr, cc in rest:
                box.call_method(visible, "uncover", rr, cc)
                game.dig((rr, cc))
        check_equal(box.call_method(visible, "is_game_over"), True, what="is_game_over()", case=case)
        check_equal(
            all_statuses(box, visible, rows, cols),
            statuses(game),
            what="get_status of every cell",
            case=case,
            show=status_text,
        )


@points(2)
@time_limit(90)
def test_flood_fill_iterative_1000x1000(box, settings):
    """flood_fill_iterative survives a 1000x1000 field (size case)"""
    require(box, "MineField", "VisibleField", "flood_fill_iterative")
    # Always 1000 when grading students. The kit's own tests grade dozens of near-copies of the
    # reference and ask for a smaller field (setting ``flood_size``) where the size is not the point.
    size = int(settings.get("flood_size") or 1000)
    field = [[False] * size for _ in range(size)]
    field[size - 1][size - 1] = True
    case = f"{size}x{size} field with one mine in the far corner, flood from (0, 0)"
    with during(case):
        visible = box.call("VisibleField", box.call("MineField", field))
        got = box.call("flood_fill_iterative", visible, 0, 0)
    check_equal(got, size * size - 1, what="the number of cells opened", case=case)
