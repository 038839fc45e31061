"""The eight original 6.009 HyperMines cases, reproduced exactly.

Both implementations of the 6.009 API run the same cases: the plain reference solution the
instructor grades against, and the kit's engine behind its thin HyperMines adapter. The data
is the kit's own copy in autograder/instructor/data/originals/hypermines (see the README there).

Comparisons are strict: lists stay lists, a mask holds real ``bool`` values and a board real
``int`` and ``str`` values, because graders send these values across a process boundary as plain
data (``True == 1`` would let a mask of ints slip through an ordinary ``==``).
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

ORIGINALS = Path(__file__).resolve().parents[2] / "autograder" / "instructor" / "data" / "originals" / "hypermines"

IMPLEMENTATIONS = {
    "reference": "autograder.instructor.reference.hypermines",
    "engine": "minesweeper_kit.hypermines",
}

ATTRIBUTES = ("board", "dimensions", "mask", "state")


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def game_class(request: pytest.FixtureRequest) -> type:
    """The ``HyperMinesGame`` class of one implementation (an ImportError fails the test)."""
    return importlib.import_module(IMPLEMENTATIONS[request.param]).HyperMinesGame


@functools.lru_cache(maxsize=None)
def _load(kind: str, name: str) -> Any:
    assert ORIGINALS.is_dir(), f"the original 6.009 test data is missing: {ORIGINALS}"
    with open(ORIGINALS / kind / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


def case(name: str) -> tuple[Any, Any]:
    """(input, expected output) of one original case; the input is a fresh copy to mutate."""
    return copy.deepcopy(_load("test_inputs", name)), _load("test_outputs", name)


def first_difference(actual: Any, expected: Any, path: str = "") -> str | None:
    """Where ``actual`` first differs from ``expected`` (type-strict), or None when equal."""
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"at {path or 'top'}: expected a list, got {type(actual).__name__}"
        if len(actual) != len(expected):
            return f"at {path or 'top'}: expected length {len(expected)}, got {len(actual)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            found = first_difference(a, e, f"{path}[{i}]")
            if found:
                return found
        return None
    if type(actual) is not type(expected) or actual != expected:
        return f"at {path or 'top'}: expected {expected!r}, got {actual!r} ({type(actual).__name__})"
    return None


def assert_same(actual: Any, expected: Any, what: str) -> None:
    found = first_difference(actual, expected)
    assert found is None, f"{what} differs {found}"


def assert_game(game: Any, expected: dict, what: str) -> None:
    assert sorted(expected) == sorted(ATTRIBUTES)
    for name in ATTRIBUTES:
        assert_same(getattr(game, name), expected[name], f"{what}: {name}")


def game_from_attributes(game_class: type, attributes: dict) -> Any:
    """A game built as the original harness did: empty, then the attributes overwritten."""
    game = game_class(attributes["dimensions"], [])
    game.board = attributes["board"]
    game.mask = attributes["mask"]
    game.state = attributes["state"]
    return game


@pytest.mark.parametrize("name", ["test_newsmall6dgame", "test_newlarge4dgame"])
def test_new_game(game_class: type, name: str) -> None:
    given, expected = case(name)
    game = game_class(given["dimensions"], given["bombs"])
    assert_game(game, expected, name)


@pytest.mark.parametrize("name", ["test_digongoing", "test_digdefeat"])
def test_dig_on_overwritten_attributes(game_class: type, name: str) -> None:
    given, expected = case(name)
    game = game_from_attributes(game_class, given["game"])
    revealed = game.dig(given["coordinates"])
    assert_same(revealed, expected["revealed"], f"{name}: dig's return value")
    assert_game(game, expected["game"], name)


def test_render_with_and_without_xray(game_class: type) -> None:
    given, expected = case("test_render")
    game = game_from_attributes(game_class, given)
    assert_same(game.render(), expected["no_xray"], "render()")
    assert_same(game.render(True), expected["xray"], "render(True)")
    assert_same(game.render(xray=False), expected["no_xray"], "render(xray=False)")


@pytest.mark.parametrize("name", ["test_integration1", "test_integration2", "test_integration3"])
def test_integration_every_dig(game_class: type, name: str) -> None:
    given, expected = case(name)
    assert len(given["digs"]) == len(expected)
    game = game_class(given["dimensions"], given["bombs"])
    for step, (coordinates, (revealed, attributes, view, xray)) in enumerate(
        zip(given["digs"], expected)
    ):
        what = f"{name}, dig {step} at {coordinates}"
        assert_same(game.dig(coordinates), revealed, f"{what}: return value")
        assert_game(game, attributes, what)
        assert_same(game.render(), view, f"{what}: render()")
        assert_same(game.render(True), xray, f"{what}: render(True)")


def test_integration2_ends_in_victory() -> None:
    """The data itself: the 203-dig run ends in victory, so the victory path is covered."""
    given, expected = case("test_integration2")
    assert len(given["digs"]) == 203
    assert expected[-1][1]["state"] == "victory"
    assert [entry[1]["state"] for entry in expected[:-1]] == ["ongoing"] * 202
