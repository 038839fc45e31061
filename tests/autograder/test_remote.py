"""The stand-ins a student's tests use (``sandbox/remote.py``), with host and tests in one process:
values cross with their shape, calls change the caller's lists in place, objects stay with the
host, and nothing of the implementation's code can be reached."""

from __future__ import annotations

import inspect

import pytest

from minesweeper_kit.sandbox import remote

BOARDS = '''
def make_board(dims, elem):
    if len(dims) == 1:
        return [elem] * dims[0]
    return [make_board(dims[1:], elem) for _ in range(dims[0])]

def shared_rows(n, m):
    row = [0] * m
    return [row] * n

def set_coords(board, coords, value):
    for c in coords[:-1]:
        board = board[c]
    board[coords[-1]] = value

def fill(mapping, keys, found):
    for k in keys:
        mapping[k] = len(k)
        found.add(k)
    return mapping

def pair(a, b):
    return (a, b)

def draw(rng, count):
    return [rng.randrange(100) for _ in range(count)]

def read(path):
    with open(path) as handle:
        return handle.read()

def fail(kind):
    if kind == "index":
        return [][1]
    class Peculiar(Exception):
        pass
    raise Peculiar("a message")

class Game:
    """A tiny game: a counter and a state."""

    def __init__(self, size):
        self.size = size
        self.state = "ongoing"
        self.cells = [0] * size
        self._secret = "hidden"

    def dig(self, where):
        self.cells[where] += 1
        if self.cells[where] > 1:
            self.state = "defeat"
        return self.cells[where]

    def __getitem__(self, index):
        return self.cells[index]

    def __len__(self):
        return self.size

    def __str__(self):
        return f"Game of {self.size}"

    def show(self):
        print("cells:", self.cells)

    def hits(self):
        return sum(self.cells)

    @classmethod
    def small(cls):
        return cls(2)
'''
NAMES = ("make_board", "shared_rows", "set_coords", "fill", "pair", "fail", "draw", "read", "Game")


@pytest.fixture(autouse=True)
def _in_a_folder_of_its_own(tmp_path, monkeypatch):
    """The host side here runs in the test's own process and writes the files a call carries under
    its working folder, as it does in its sandbox: that folder is the test's, never the checkout."""
    monkeypatch.chdir(tmp_path)


def connect(source: str = BOARDS, module: str = "lab_under_test"):
    namespace: dict = {}
    exec(compile(source, "lab.py", "exec"), namespace)
    host = remote.Host({"only": namespace}, NAMES)
    host.use("only")
    return host, remote.stand_ins(host.handle, host.describe(), module)


def test_values_cross_with_their_shape_and_calls_change_the_callers_lists():
    _, lab = connect()
    board = lab.make_board([2, 3], 0)
    assert board == [[0, 0, 0], [0, 0, 0]] and board[0] is not board[1]
    lab.set_coords(board, (1, 2), 7)
    assert board == [[0, 0, 0], [0, 0, 7]]
    aliased = lab.shared_rows(2, 2)
    assert aliased[0] is aliased[1], "two rows that are one list on the host are one list here"
    lab.set_coords(aliased, [0, 1], 5)
    assert aliased == [[0, 5], [0, 5]]
    mapping, found = {"x": 9}, set()
    same = lab.fill(mapping, [("a",), ("b", "c")], found)
    assert same is mapping and mapping == {"x": 9, ("a",): 1, ("b", "c"): 2} and found == {("a",), ("b", "c")}
    assert lab.pair([1], (2, frozenset({3}))) == ([1], (2, frozenset({3})))


def test_objects_stay_with_the_host_and_answer_like_local_ones():
    host, lab = connect()
    game = lab.Game(3)
    assert isinstance(game, lab.Game) and type(game).__name__ == "Game"
    assert game.dig(1) == 1 and game.state == "ongoing"
    assert game.dig(1) == 2 and game.state == "defeat"
    assert game.cells == [0, 2, 0] and game[1] == 2 and len(game) == 3 and str(game) == "Game of 3"
    assert repr(game).endswith("Game object>") and "0x" not in repr(game), "no address: the same text every run"
    game.cells = [5, 5, 5]
    assert game.cells == [5, 5, 5] and list(lab.Game.small().cells) == [0, 0]
    log = [c for c in host.calls() if c["name"] == "dig"]
    assert [(c["value"], c["state"]) for c in log] == [(1, "ongoing"), (2, "defeat")]
    made = next(c["made"] for c in host.calls() if c["name"] == "Game")
    assert all(c["target"] == made for c in log)


def test_exceptions_come_back_as_the_same_builtin_type_or_by_name():
    _, lab = connect()
    with pytest.raises(IndexError):
        lab.fail("index")
    with pytest.raises(remote.RemoteError) as raised:
        lab.fail("other")
    assert type(raised.value).__name__ == "Peculiar" and str(raised.value) == "a message"
    with pytest.raises(TypeError, match="cannot be passed"):
        lab.pair(lambda: 1, 2)


def test_nothing_of_the_code_behind_can_be_reached():
    _, lab = connect()
    game = lab.Game(2)
    for name in ("_secret", "__dict__", "__code__", "__globals__"):
        with pytest.raises(AttributeError):
            getattr(game, name)
    assert game.dig.__globals__ is vars(remote), "a stand-in method's globals are the stand-ins' own module"
    assert lab.Game.__module__ == lab.make_board.__module__ == "lab_under_test"
    assert lab.Game.__qualname__ == "Game" and lab.make_board.__qualname__ == "make_board"
    assert lab.Game.__doc__ is None
    for thing in (lab.Game, lab.make_board, game.dig):
        try:
            text = inspect.getsource(thing)
        except (OSError, TypeError):
            continue
        assert "self.cells" not in text and "dims[1:]" not in text, "only the stand-in's own code shows"


def test_two_implementations_look_the_same_but_for_what_they_do():
    """The stand-ins for two implementations differ in nothing a test can read but behaviour."""
    other = BOARDS.replace("self.cells[where] += 1", "self.cells[where] = self.cells[where] + 1  # other")
    views = []
    for source, module in ((BOARDS, "lab_one"), (other, "lab_two")):
        _, lab = connect(source, module)
        game = lab.Game(2)
        views.append(
            (
                sorted(n for n in dir(lab.Game) if not n.startswith("_stand")),
                lab.Game.__qualname__,
                lab.Game.__doc__,
                type(game.dig).__name__,
                game.dig.__name__,
                game.dig.__code__.co_code,
                game.dig(0),
            )
        )
    assert views[0] == views[1]


def test_attributes_are_live_both_ways():
    """An attribute read is the object's own list: changed in place by the test, the object sees
    the change; changed in place by the object, the test's list shows it; read twice, one list."""
    host, lab = connect()
    game = lab.Game(3)
    game.cells[1] = 4
    assert game.hits() == 4, "the change made in place reached the game"
    cells = game.cells
    assert game.cells is cells
    game.dig(0)
    assert cells == [1, 4, 0], "the game's change in place shows in the list the test holds"
    del cells
    game.hits()
    assert host.containers == {}, "a list the test let go of is forgotten on both sides"


def test_printed_output_random_generators_and_files_cross():
    """What the implementation prints is printed here; a seeded generator passed in comes back in
    the state the call left it in; a string naming a file the test wrote travels as that file."""
    import contextlib
    import io
    import random

    _, lab = connect()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        lab.Game(2).show()
    assert printed.getvalue() == "cells: [0, 0]\n"
    mine, same = random.Random(9), random.Random(9)
    assert lab.draw(mine, 3) == [same.randrange(100) for _ in range(3)]
    assert mine.random() == same.random(), "the generator moved on as a local call would move it"
    random.seed(4)
    expected = [random.randrange(100) for _ in range(3)]
    random.seed(4)
    assert lab.draw(random, 2) == expected[:2], "the random module itself may be passed, as a local call allows"
    assert random.randrange(100) == expected[2]


def test_files_named_by_the_test_travel(tmp_path):
    _, lab = connect()
    path = tmp_path / "board.txt"
    path.write_text("2\n1\n1, 0\n")
    assert lab.read(str(path)) == "2\n1\n1, 0\n"
    assert lab.pair(str(tmp_path / "missing.txt"), 1) == (str(tmp_path / "missing.txt"), 1), (
        "other strings stay strings"
    )


def test_answers_compare_with_their_types():
    """Two answers are the same only with the same types (True is not 1) but whatever order their
    sets list their members in."""
    assert remote.canonical('{"value":1}') != remote.canonical('{"value":true}')
    assert remote.canonical('{"value":1}') != remote.canonical('{"value":1.0}')
    assert remote.canonical('{"value":{"S":1,"v":[1,2]}}') == remote.canonical('{"value":{"S":1,"v":[2,1]}}')
