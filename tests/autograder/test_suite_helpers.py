"""The comparison helpers whose messages become feedback."""

import pytest

from minesweeper_kit.sandbox import Handle
from autograder.suite import Mismatch, check_coordinates, check_equal, first_difference


def test_first_difference_names_the_first_differing_cell():
    assert first_difference([["_", " "], ["1", "."]], [["_", " "], ["1", "_"]]) == "at [1][1]: expected '_', got '.'"
    assert first_difference([[1, 2]], [[1, 2], [3]]) == "the top level has 1 item, expected 2"
    assert first_difference(3, 3) is None
    assert first_difference([1, 2], (1, 2)) is None


def test_types_are_compared_strictly():
    assert first_difference(True, 1) == "expected 1, got True"
    assert first_difference("3", 3) == "expected 3, got '3'"
    assert first_difference(Handle(1, "Liar"), [1]) == "expected a list, got a Liar object"


def test_check_equal_names_the_case():
    with pytest.raises(Mismatch, match=r"^game 2x2: the attribute mask is wrong: at \[0\]: expected False, got True$"):
        check_equal([True], [False], what="the attribute mask", case="game 2x2")


def test_coordinates_compare_as_sets_and_refuse_duplicates():
    check_coordinates([[0, 1], [1, 0]], [(1, 0), (0, 1)], what="neighbours", case="c")
    with pytest.raises(Mismatch, match=r"lists \[0, 1\] more than once"):
        check_coordinates([[0, 1], [0, 1]], [(0, 1)], what="neighbours", case="c")
    with pytest.raises(Mismatch, match=r"^c: neighbours are wrong: missing: \[1, 1\]$"):
        check_coordinates([[0, 1]], [(0, 1), (1, 1)], what="neighbours", case="c")
    with pytest.raises(Mismatch, match=r"^c: neighbours are wrong: unexpected: \[2, 2\]$"):
        check_coordinates([[0, 1], [2, 2]], [(0, 1)], what="neighbours", case="c")
