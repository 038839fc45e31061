"""The public implementations of each step: what the notebooks' "check my tests" cell runs a
student's tests against.

For every step: two correct implementations over the kit's engine (the modules beside this one,
and the same listing neighbours the other way round, since the notebooks leave their order open
and the grader's correct implementations differ in it too), and a few planted bugs, each one
misconception. The grader's planted bugs are others, and stay hidden; these ship with the kit.

Each implementation is source text, run in the implementations' sandbox like every implementation
a student's tests meet; a planted bug is its step's correct source with a few lines added that
replace one function or method. The kit's modules they use are handed to that sandbox as
``support`` files (:func:`support`), since the sandbox shows none of the kit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..runner import Implementation

__all__ = ["PLANTED", "PUBLIC_STEPS", "Library", "library", "support"]

HERE = Path(__file__).resolve().parent
KIT = HERE.parent.parent

#: Each step's module here.
PUBLIC_STEPS = {
    "neighbors": "neighbors.py",
    "make-board": "make_board.py",
    "flood-fill": "flood_fill.py",
    "hypermines": "hypermines.py",
}

#: The kit's modules the implementations import, shown to their sandbox (relative to the kit).
SUPPORT_FILES = ("geometry.py", "game.py", "hypermines.py", "formats/mit6009.py", "formats/project10.py")
_INITS = {
    "__init__.py": '"""The parts of the minesweeper kit the check\'s implementations use."""\n',
    "formats/__init__.py": '"""The file formats the check\'s implementations use."""\n',
}

#: For each step, its public planted bugs: (name, misconception, lines added to the correct source).
PLANTED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "neighbors": (
        (
            "last_position_dropped",
            "the last position of each axis is never a neighbour",
            """
def _drop_last(cells, dimensions):
    return [cell for cell in cells if all(v != n - 1 for v, n in zip(cell, dimensions))]

def neighbors_1d(length, x):
    return [v for v in _correct_neighbors_1d(length, x) if v != length - 1]

def neighbors_2d(dimensions, coordinates):
    return _drop_last(_correct_neighbors_2d(dimensions, coordinates), dimensions)

def neighbors_3d(dimensions, coordinates):
    return _drop_last(_correct_neighbors_3d(dimensions, coordinates), dimensions)

def neighbors(dimensions, coordinates):
    return _drop_last(_correct_neighbors(dimensions, coordinates), dimensions)
""",
        ),
        (
            "no_diagonals",
            "only cells one step along a single axis count, no diagonals",
            """
def _sides(cells, coordinates):
    return [cell for cell in cells if sum(abs(a - b) for a, b in zip(cell, coordinates)) == 1]

def neighbors_2d(dimensions, coordinates):
    return _sides(_correct_neighbors_2d(dimensions, coordinates), coordinates)

def neighbors_3d(dimensions, coordinates):
    return _sides(_correct_neighbors_3d(dimensions, coordinates), coordinates)

def neighbors(dimensions, coordinates):
    return _sides(_correct_neighbors(dimensions, coordinates), coordinates)
""",
        ),
        (
            "wraps_around",
            "the board wraps around, so a cell on an edge touches the far edge",
            """
def _wrapped(dimensions, coordinates):
    found = Geometry(list(dimensions), torus=True).neighbours(list(coordinates))
    return [tuple(int(v) for v in cell) for cell in found]

def neighbors_1d(length, x):
    return [cell[0] for cell in _wrapped([length], [x])]

def neighbors_2d(dimensions, coordinates):
    return _wrapped(dimensions, coordinates)

def neighbors_3d(dimensions, coordinates):
    return _wrapped(dimensions, coordinates)

def neighbors(dimensions, coordinates):
    return _wrapped(dimensions, coordinates)
""",
        ),
    ),
    "make-board": (
        (
            "set_coords_on_a_copy",
            "set_coords changes a copy, so the board given stays the same",
            """
import copy

def set_coords(board, coordinates, value):
    _correct_set_coords(copy.deepcopy(board), coordinates, value)
""",
        ),
        (
            "axes_reversed",
            "make_board builds the axes in reverse order ([2, 3] gives 3 lists of 2)",
            """
def make_board(dimensions, elem):
    return _correct_make_board(list(dimensions)[::-1], elem)
""",
        ),
        (
            "all_coords_skips_last",
            "all_coords leaves out the last cell",
            """
def all_coords(dimensions):
    return _correct_all_coords(dimensions)[:-1]
""",
        ),
    ),
    "flood-fill": (
        (
            "uncover_never_floods",
            "uncover opens only the cell uncovered, never the zeros around it",
            """
class VisibleField(VisibleField):
    def _flood(self, r, c):
        field = self._field
        if not field.in_range(r, c) or self._status[r][c] != COVERED or field.has_mine(r, c):
            return 0
        self._status[r][c] = field.num_adjacent_mines(r, c)
        self._opened += 1
        return 1
""",
        ),
        (
            "counts_without_diagonals",
            "num_adjacent_mines counts only the four side neighbours",
            """
class MineField(MineField):
    def num_adjacent_mines(self, r, c):
        return sum(1 for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                   if self.in_range(rr, cc) and self._mines[rr][cc])
""",
        ),
        (
            "guesses_not_counted",
            "num_mines_left ignores the player's guesses",
            """
class VisibleField(VisibleField):
    def num_mines_left(self):
        return self._field.num_mines()
""",
        ),
    ),
    "hypermines": (
        (
            "dig_never_floods",
            "dig opens only the cell dug, never the zeros around it",
            """
class HyperMinesGame(HyperMinesGame):
    def dig(self, coordinates):
        board = self.board
        for x in coordinates:
            board = board[x]
        if self.state != "ongoing" or board != 0:
            return super().dig(coordinates)
        mask = self.mask
        inner = mask
        for x in list(coordinates)[:-1]:
            inner = inner[x]
        if inner[list(coordinates)[-1]]:
            return 0
        inner[list(coordinates)[-1]] = True
        self.mask = mask
        if all(shown or cell == "." for shown, cell in zip(_leaves(self.mask), _leaves(self.board))):
            self.state = "victory"
        return 1

def _leaves(nested):
    return [x for item in nested for x in _leaves(item)] if isinstance(nested, list) else [nested]
""",
        ),
        (
            "bomb_does_not_end_the_game",
            "digging a bomb reveals it but the game goes on",
            """
class HyperMinesGame(HyperMinesGame):
    def dig(self, coordinates):
        revealed = super().dig(coordinates)
        if self.state == "defeat":
            self.state = "ongoing"
        return revealed
""",
        ),
        (
            "xray_ignored",
            "render(True) hides the unrevealed cells, like render()",
            """
class HyperMinesGame(HyperMinesGame):
    def render(self, xray=False):
        return super().render(False)
""",
        ),
    ),
}


@dataclass(frozen=True)
class Library:
    """A step's public implementations, correct ones first, and the files they import."""

    implementations: tuple[Implementation, ...]
    support: dict[str, str]


def support() -> dict[str, str]:
    """The kit's modules the public implementations import: path under the kit's package -> text."""
    files = {f"minesweeper_kit/{name}": (KIT / name).read_text(encoding="utf-8") for name in SUPPORT_FILES}
    files.update({f"minesweeper_kit/{name}": text for name, text in _INITS.items()})
    return files


def library(step: str) -> Library:
    """The public implementations of ``step`` (an assignment id of steps 1-4)."""
    if step not in PUBLIC_STEPS:
        raise ValueError(f"no public implementations for step {step!r}; the steps are {', '.join(PUBLIC_STEPS)}")
    correct = (HERE / PUBLIC_STEPS[step]).read_text(encoding="utf-8")
    found = [Implementation("correct", correct, True)]
    if "\nORDER = 1 " in correct:
        found.append(Implementation("correct-other-order", correct.replace("\nORDER = 1 ", "\nORDER = -1 ", 1), True))
    for name, misconception, lines in PLANTED[step]:
        found.append(Implementation(name, _planted(correct, lines), False, misconception))
    return Library(tuple(found), support())


def _planted(correct: str, lines: str) -> str:
    """The correct source with ``lines`` added: each function they replace stays reachable under
    ``_correct_<name>``, and a class they subclass is the correct one."""
    keep = "".join(
        f"\n_correct_{name} = {name}"
        for name in (
            "neighbors_1d",
            "neighbors_2d",
            "neighbors_3d",
            "neighbors",
            "set_coords",
            "make_board",
            "all_coords",
        )
        if f"\ndef {name}(" in correct and f"_correct_{name}" in lines
    )
    return f"{correct}\n{keep}\n{lines}"
