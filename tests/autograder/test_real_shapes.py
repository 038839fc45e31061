"""Files shaped like real 6.009 submissions are graded as they are written.

The files in data/real_shapes/ are a plain recursive HyperMines solution in a student's style,
saved the ways real lab.py files come: with the template's `import sys` /
`sys.setrecursionlimit(10000)` header, doctests and a long demo under `if __name__ ==
"__main__":`; with tabs, CRLF line endings and a UTF-8 byte-order mark; and with debug prints
left in, one of them flooding a 4000-square line at import time (recursion far deeper than
Python's default limit of 1000). Each earns full marks. Two copies made here show the grader still
tells a wrong file from a right one: a planted render bug loses render tests and nothing else,
and an extra import is refused before loading.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.batch import grade_batch

SHAPES = Path(__file__).parent / "data" / "real_shapes"
SHAPE_NAMES = ("template_header", "tabs_crlf_bom", "prints_left_in")

#: The planted bug: a 0 is shown as "0" instead of " ".
RENDER_OK = '            if board == 0:\n                return " "\n'
RENDER_BUG = '            if board == 0:\n                return "0"\n'
#: Tests that never call render: the planted bug cannot cost them anything. (Tests that do may
#: still pass when no 0 is ever shown: the original 6-D game's board has no 0 at all.)
NO_RENDER = {"test_new_small_6d", "test_new_large_4d", "test_dig_ongoing", "test_dig_defeat",
             "test_redig_and_after_the_end", "test_victory", "test_random_new_games"}
HEADER_LINE = "sys.setrecursionlimit(10000)\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("students")
    for name in SHAPE_NAMES:
        (folder / name).mkdir()
        (folder / name / "lab.py").write_bytes((SHAPES / name / "lab.py").read_bytes())
    base = (SHAPES / "template_header" / "lab.py").read_text(encoding="utf-8")
    assert base.count(RENDER_OK) == 1 and base.count(HEADER_LINE) == 1, "the template_header file changed shape"
    (folder / "render_bug").mkdir()
    (folder / "render_bug" / "lab.py").write_text(base.replace(RENDER_OK, RENDER_BUG), encoding="utf-8")
    (folder / "extra_import").mkdir()
    (folder / "extra_import" / "lab.py").write_text(base.replace(HEADER_LINE, HEADER_LINE + "import random\n"),
                                                    encoding="utf-8")
    result = grade_batch("hypermines", sorted(folder.iterdir()), tmp_path_factory.mktemp("results"),
                         jobs=2, seed=11, progress=False)
    return {report.student: report for report in result.reports}


def test_the_shapes_are_what_they_claim():
    tabs = (SHAPES / "tabs_crlf_bom" / "lab.py").read_bytes()
    assert tabs.startswith(b"\xef\xbb\xbf") and b"\r\n" in tabs and b"\n\tdef dig(self, coords):\r\n" in tabs
    assert b"\n    " not in tabs and tabs.count(b"\n") == tabs.count(b"\r\n")
    header = (SHAPES / "template_header" / "lab.py").read_text(encoding="utf-8")
    assert "import sys\nsys.setrecursionlimit(10000)\n# NO ADDITIONAL IMPORTS\n" in header
    assert 'if __name__ == "__main__":\n    import doctest\n' in header
    assert "self.reveal(cell)" in header, "the flood must stay recursive"
    prints = (SHAPES / "prints_left_in" / "lab.py").read_text(encoding="utf-8")
    assert "HyperMinesGame([4000], [])" in prints and prints.count("print(") > header.count("print(")


@pytest.mark.parametrize("name", SHAPE_NAMES)
def test_each_real_shape_earns_full_marks(graded, name):
    report = graded[name]
    assert report.problem is None, report.problem
    failed = {t.id: t.output for t in report.tests if t.status != "passed"}
    assert failed == {} and report.score == report.max_score == 20
    assert report.submission == "Graded file lab.py."


def test_a_planted_render_bug_loses_the_render_tests_only(graded):
    report = graded["render_bug"]
    assert report.problem is None
    passed = {t.id for t in report.tests if t.status == "passed"}
    failed = {t.id: t.output for t in report.tests if t.status == "failed"}
    assert NO_RENDER <= passed and "test_render" in failed
    assert all("render" in output for output in failed.values()), failed
    assert "expected ' ', got '0'" in failed["test_render"]
    assert report.score < report.max_score


def test_an_import_beyond_the_template_is_refused_before_loading(graded):
    report = graded["extra_import"]
    assert report.score == 0
    assert report.problem is not None and "line 5: import of 'random' is not allowed in the hypermines assignment" in report.problem
