"""Mutants of the plain reference each lose points; the reference itself scores full marks.

Mutants are made from the reference's current source by replacing one piece of code, so they
stay in step with it; a replacement whose original code is gone fails loudly.
"""

from __future__ import annotations

import pytest

from autograder.batch import grade_batch

MUTANTS = {
    "edge_off_by_one": ("return [p for p in (x - 1, x, x + 1) if 0 <= p < size]",
                        "return [p for p in (x - 1, x, x + 1) if 0 < p < size]"),
    "edge_past_the_end": ("return [p for p in (x - 1, x, x + 1) if 0 <= p < size]",
                          "return [p for p in (x - 1, x, x + 1) if 0 <= p < size - 1]"),
    "flood_skips_border_numbers": ("                    if not get_coords(self.mask, neighbour):",
                                   "                    if not get_coords(self.mask, neighbour) and "
                                   "get_coords(self.board, neighbour) == 0:"),
    "victory_needs_bombs_revealed": ("    return board == BOMB or mask", "    return mask"),
    "victory_too_early": ("    return board == BOMB or mask", "    return True"),
    "zero_rendered_as_0": ("    return ZERO if board == 0 else str(board)", "    return str(board)"),
    "dig_counts_redigs": ("""        if self.state != "ongoing" or get_coords(self.mask, coordinates):
            return 0""", """        if self.state != "ongoing":
            return 0
        if get_coords(self.mask, coordinates):
            return 1"""),
    "digs_after_the_end": ("""        if self.state != "ongoing" or get_coords(self.mask, coordinates):""",
                           """        if get_coords(self.mask, coordinates):"""),
    "bomb_not_revealed": ("""            set_coords(self.mask, coordinates, True)
            self.state = "defeat\"""", """            self.state = "defeat\""""),
    "render_ignores_mask": ("    if not (mask or xray):", "    if not xray and False:"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory, reference_source):
    folder = tmp_path_factory.mktemp("mutants")
    for name, (old, new) in MUTANTS.items():
        assert reference_source.count(old) == 1, f"mutant {name}: the reference no longer contains {old!r}"
        (folder / f"{name}.py").write_text(reference_source.replace(old, new))
    (folder / "reference.py").write_text(reference_source)
    result = grade_batch("hypermines", sorted(folder.glob("*.py")), tmp_path_factory.mktemp("results"),
                         jobs=2, seed=7, progress=False)
    return {r.student: r for r in result.reports}


def test_the_reference_scores_full_marks(graded):
    report = graded["reference"]
    assert report.score == report.max_score == 20 and report.problem is None


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_mutant_loses_points(graded, name):
    report = graded[name]
    assert report.problem is None
    assert report.score < report.max_score
    failed = [t for t in report.tests if t.status == "failed"]
    assert failed and all(t.output and "grader could not finish" not in t.output for t in failed)


def test_feedback_names_the_case_and_the_first_differing_cell(graded):
    outputs = [t.output for t in graded["zero_rendered_as_0"].tests if t.status == "failed"]
    assert any("render() is wrong: at [" in o and "expected ' ', got '0'" in o for o in outputs), outputs
    outputs = [t.output for t in graded["dig_counts_redigs"].tests if t.status == "failed"]
    assert "game [3, 3] with bombs [[0, 0], [2, 2]], dig [0, 1] again: dig's result is wrong: expected 0, got 1" in outputs
