"""Every CSV file the kit writes goes through one writer, and no cell of it can start a spreadsheet
formula: the writer on every formula start and look-alike, numbers left as numbers, then the
gradebook of a real ``autograder grade`` and the two CSV files of a real ``mines tournament`` with
bots and students named like formulas."""

from __future__ import annotations

import csv
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.csvfile import FORMULA_STARTS, csv_text, escape_cell, write_rows

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "tests" / "bots" / "data" / "tournament"

#: Text that must come out behind a quote: each formula start, then look-alikes of them.
ESCAPED = [
    "=2+3", "+2+3", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "\n=1",
    " =1+1", "\u00a0=1+1", "\u3000=1+1",  # after leading spaces
    "\uff1d2+3", "\uff0b2+3", "\uff0d2+3", "\uff20SUM(A1)",  # full-width = + - @
    "\ufe662+3", "\ufe622+3", "\ufe632+3", "\ufe6bSUM(A1)",  # small = + - @
    "\u207a1", "\u208a1", "\u207c1", "\u208c1",  # superscript and subscript + and =
    "\u22122+3",  # the minus sign
    "-3", "-0.5", "+1",  # text that looks like a number is still text
    "-inf",
]
#: Text that stays as it is.
PLAIN = ["plain", "a=b", "2+3", "1e+06", "0.500000", "", "'quoted", "x-y", "(=1)", "\u20131 (an en dash)", "ａ=b"]


@pytest.mark.parametrize("text", ESCAPED, ids=[repr(t) for t in ESCAPED])
def test_text_that_would_start_a_formula_is_escaped(text):
    assert escape_cell(text) == "'" + text


@pytest.mark.parametrize("text", PLAIN, ids=[repr(t) for t in PLAIN])
def test_other_text_is_left_as_it_is(text):
    assert escape_cell(text) == text


def _every_char(categories: set[str]) -> list[str]:
    import unicodedata

    return [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in categories]


def test_a_formula_after_any_leading_space_or_invisible_character_is_escaped():
    """Every character of the categories Zs, Zl, Zp (spaces, line and paragraph separators) and Cf
    (zero-width and direction marks), alone and in a run of three, before each formula start."""
    invisible = _every_char({"Zs", "Zl", "Zp", "Cf"})
    assert {"\u2000", "\u205f", "\u1680", "\u202f", "\u200b", "\u200e", "\ufeff"} <= set(invisible)
    for char in invisible:
        for start in "=+-@":
            for text in (char + start + "1", char * 3 + start + "SUM(A1)"):
                assert escape_cell(text) == "'" + text, repr(text)
        assert escape_cell(char + "plain") == char + "plain", repr(char)


def test_every_formula_start_is_covered():
    assert FORMULA_STARTS == set("=+-@\t\r\n")
    for start in FORMULA_STARTS:
        assert escape_cell(start + "x") == "'" + start + "x"


def test_numbers_stay_numbers_and_negative_ones_keep_their_sign():
    assert escape_cell(-3) == -3 and escape_cell(-0.25) == -0.25 and escape_cell(7) == 7
    assert escape_cell(None) == "" and escape_cell(True) == "True"
    assert escape_cell(float("nan")) == "nan" and escape_cell(float("-inf")) == "'-inf"
    rows = list(csv.reader(csv_text([["bot", "score", "note"], ["=2+3", -3, "-3"], ["ok", -0.25, "-x"]])
                           .splitlines()))
    assert rows == [["bot", "score", "note"], ["'=2+3", "-3", "'-3"], ["ok", "-0.25", "'-x"]]


def test_a_cell_with_a_separator_or_a_line_break_stays_one_cell():
    text = csv_text([["=1,2", "a\r\nb", '"=x"'], ["end"]])
    assert list(csv.reader(text.splitlines(keepends=True))) == [["'=1,2", "a\r\nb", '"=x"'], ["end"]]


def test_the_file_is_replaced_atomically_with_the_mode_asked(tmp_path):
    target = tmp_path / "out.csv"
    write_rows(target, [["a"], ["=b"]], mode=0o600)
    assert target.read_bytes() == b"a\r\n'=b\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    write_rows(target, [["c"]], mode=0o640)
    assert target.read_bytes() == b"c\r\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    old = os.umask(0o022)
    try:
        write_rows(target, [["d"]])
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary file left


def test_a_link_in_the_files_place_is_replaced_not_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    (tmp_path / "out.csv").symlink_to(outside)
    write_rows(tmp_path / "out.csv", [["x"]])
    assert outside.read_text() == "untouched\n"
    assert not (tmp_path / "out.csv").is_symlink() and (tmp_path / "out.csv").read_bytes() == b"x\r\n"


# ---------------------------------------------------------------------- the kit's CSV files
NAMES = ["=2+3", "+2+3", "-2+3", "@SUM(A1)", "\uff20SUM(A1)"]  # the last: a full-width @


def test_the_gradebook_of_a_real_batch_is_escaped(tmp_path):
    """``autograder grade --csv`` with students named like formulas (each a folder with nothing in
    it: "not submitted", so no sandbox is needed); the CSV is private to its owner."""
    submitted = tmp_path / "submitted"
    for name in NAMES + ["plain"]:
        (submitted / name).mkdir(parents=True)
    gradebook = tmp_path / "grades.csv"
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines", str(submitted),
         "--results-dir", str(tmp_path / "results"), "--csv", str(gradebook), "--no-progress"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8", newline="")))
    assert sorted(row["student"] for row in rows) == sorted(["'" + name for name in NAMES] + ["plain"])
    assert {row["status"] for row in rows} == {"not submitted"}
    assert all(row["max_score"].isdigit() and row["seed"].isdigit() for row in rows)  # numbers stay numbers
    assert stat.S_IMODE(gradebook.stat().st_mode) == 0o600


def test_the_tournament_csv_files_of_a_real_run_are_escaped(tmp_path):
    """``mines tournament`` with bot files named like formulas: every bot name in leaderboard.csv
    and pairwise.csv (the pair and the winner) comes out as text."""
    bots = tmp_path / "bots"
    bots.mkdir()
    files = []
    for name in ("=2+3", "-2+3", "@SUM(A1)"):
        files.append(bots / f"{name}.py")
        shutil.copy(BOTS / "first_covered.py", files[-1])
    results = tmp_path / "results"
    done = subprocess.run(
        [sys.executable, "-m", "minesweeper_kit.cli", "tournament", "reference", *map(str, files), "--trusted",
         "--preset", "beginner", "--games", "2", "--chunk-size", "2", "-j", "1", "--quiet", "--seed", "3",
         "--results-dir", str(results)],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    escaped = {"'=2+3", "'-2+3", "'@SUM(A1)", "reference"}
    with open(results / "leaderboard.csv", encoding="utf-8", newline="") as handle:
        leaderboard = list(csv.DictReader(handle))
    assert {row["bot"] for row in leaderboard} == escaped
    assert all(row["seed"] == "3" and row["games"] == "2" for row in leaderboard)
    with open(results / "pairwise.csv", encoding="utf-8", newline="") as handle:
        pairs = list(csv.DictReader(handle))
    assert pairs and {p["a"] for p in pairs} | {p["b"] for p in pairs} == escaped
    assert {p["winner"] for p in pairs} <= escaped | {"tie"}
    for name in ("leaderboard.csv", "pairwise.csv"):
        text = (results / name).read_text(encoding="utf-8")
        assert not any(cell[:1] in "=+-@" for line in csv.reader(text.splitlines()) for cell in line), name
