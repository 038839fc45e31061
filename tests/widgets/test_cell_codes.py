"""The widget's cell codes are written twice by necessity, in Python (``widgets/drivers.py``, which
encodes every view) and in the front end (``widgets/static/common.js``, shared by every widget that
draws a board): they must agree, or a board draws a flag where the game has a mine."""

from __future__ import annotations

import re
from pathlib import Path

from minesweeper_kit.widgets import drivers

COMMON_JS = Path(drivers.__file__).resolve().parent / "static" / "common.js"
NAMES = ("FACE_BASE", "COVERED", "FLAG", "QUESTION", "MINE", "EXPLODED", "WRONG_FLAG")


def javascript_constants(text: str) -> dict[str, int]:
    """The top-level ``const NAME = <arithmetic>;`` lines of a script (``export`` or not), in order."""
    values: dict[str, int] = {}
    for name, expression in re.findall(r"^(?:export )?const ([A-Z_]+) = ([-+*() 0-9A-Z_]+);$", text, flags=re.M):
        # the expressions are integer arithmetic on earlier constants, the same in both languages
        values[name] = int(eval(expression, {"__builtins__": {}}, dict(values)))
    return values


def test_the_front_end_uses_the_cell_codes_of_the_drivers():
    constants = javascript_constants(COMMON_JS.read_text())
    assert {n: constants.get(n) for n in NAMES} == {n: getattr(drivers, n) for n in NAMES}


def test_the_codes_are_distinct_and_below_every_number():
    codes = [getattr(drivers, n) for n in NAMES[1:]]
    assert len(set(codes)) == len(codes)
    assert max(codes) <= drivers.FACE_BASE < -(10**6)  # far below any count a cell can show


def test_a_changed_code_would_be_noticed():
    changed = COMMON_JS.read_text().replace("export const FLAG = FACE_BASE - 2;", "export const FLAG = FACE_BASE - 7;")
    assert javascript_constants(changed)["FLAG"] != drivers.FLAG
