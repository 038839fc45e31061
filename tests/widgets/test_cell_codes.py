"""The widget's cell codes are written twice by necessity, in Python (``widgets/codes.py``, which
encodes every view) and in the front end (the script under ``widgets/static/`` that draws it): they
must agree, or a board draws a flag where the game has a mine."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from minesweeper_kit import Face, Game
from minesweeper_kit.widgets import codes
from minesweeper_kit.widgets.codes import FACE_BASE, CellCode

STATIC = Path(codes.__file__).resolve().parent / "static"
NAMES = ("FACE_BASE", *CellCode.__members__)
CONSTANT = re.compile(r"^(?:export )?const ([A-Z_]+) = ([-+*() 0-9A-Z_]+);$", flags=re.M)


def javascript_constants(text: str) -> dict[str, int]:
    """The top-level ``const NAME = <arithmetic>;`` lines of a script (``export`` or not), in order."""
    values: dict[str, int] = {}
    for name, expression in CONSTANT.findall(text):
        # the expressions are integer arithmetic on earlier constants, the same in both languages
        values[name] = int(eval(expression, {"__builtins__": {}}, dict(values)))
    return values


def python_codes() -> dict[str, int]:
    return {"FACE_BASE": FACE_BASE, **{code.name: int(code) for code in CellCode}}


def scripts_defining_the_codes() -> dict[str, dict[str, int]]:
    found = {}
    for path in sorted(STATIC.rglob("*.js")):
        constants = javascript_constants(path.read_text())
        if "COVERED" in constants:
            found[path.relative_to(STATIC).as_posix()] = {n: constants.get(n) for n in NAMES}
    return found


def test_the_front_end_defines_the_cell_codes_once_and_as_python_does():
    found = scripts_defining_the_codes()
    assert len(found) == 1, f"the cell codes should have one home in the front end, found {sorted(found)}"
    assert next(iter(found.values())) == python_codes()


def test_the_codes_are_distinct_and_below_every_number():
    values = [int(code) for code in CellCode]
    assert len(set(values)) == len(values)
    assert max(values) <= FACE_BASE < -(10**6)  # far below any count a cell can show


def test_a_changed_code_would_be_noticed():
    [(name, _)] = scripts_defining_the_codes().items()
    text = (STATIC / name).read_text()
    changed = re.sub(r"const FLAG = FACE_BASE - 2;", "const FLAG = FACE_BASE - 7;", text)
    assert changed != text
    assert javascript_constants(changed)["FLAG"] != CellCode.FLAG


def test_every_engine_face_has_one_code_and_open_cells_show_their_number():
    assert set(codes.FACE_CODES) == set(Face) - {Face.OPEN}
    game = Game.from_mines((3, 4), [(0, 0), (2, 3)])
    game.dig((0, 3))
    game.cycle_mark((0, 0))
    shown = codes.engine_codes(game)
    faces = game.faces()
    for face, code in codes.FACE_CODES.items():
        assert (shown[faces == face] == code).all()
    assert (shown[faces == Face.OPEN] == game.numbers[faces == Face.OPEN]).all()
    assert codes.is_open(shown).sum() == (faces == Face.OPEN).sum()


def test_cells_travel_as_int32_little_endian_row_major():
    cells = np.array([[0, 3, CellCode.COVERED], [CellCode.FLAG, CellCode.MINE, -7]], dtype=np.int32)
    data = codes.encode_cells(cells)
    assert len(data) == 4 * 6
    assert data[:4] == b"\x00\x00\x00\x00" and data[4:8] == b"\x03\x00\x00\x00"
    assert (codes.decode_cells(data, (2, 3)) == cells).all()
    assert codes.encode_cells(None) == b""
