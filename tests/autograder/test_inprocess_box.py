"""The in-process stand-in for the hidden suite's box (``minesweeper_kit/sandbox/inprocess.py``)
answers as a real sandbox does, so a suite measured with it (the mutants, the planted bugs, the
misconception lines) is measured as it grades: each case below runs on a bubblewrap Sandbox and
on an InProcessBox, and both must give the same values and the same errors, word for word. And
it is for the kit's own trusted code only: only the in-process grading API takes it, never the
command line or a batch, and never where the students' own tests are graded."""

from __future__ import annotations

import pytest

from autograder.assignments import get_assignment
from autograder.batch import grade_batch
from autograder.cli import build_parser
from autograder.course import apply_settings
from autograder.grading import grade_submission
from autograder.submission import read_submission
from minesweeper_kit.sandbox import Handle, Limits, Sandbox, SandboxError
from minesweeper_kit.sandbox.inprocess import IN_PROCESS, InProcessBox, recursion_depth

LIMITS = Limits(memory_mb=512, message_bytes=2000)

SOURCE = '''
import sys


class Game:
    def __init__(self, n):
        self.cells = [0] * n

    def dig(self, i):
        self.cells[i] = 1
        return (i, self.cells)


def plain():
    return {"a": [1, 2.5, None, True, "x", float("inf")], "t": (1, (2, 3))}


def echo(*args, **kwargs):
    return [args, kwargs]


def shout(x):
    print("hello", x)
    return x * 2


def fails(n):
    return helper(n)


def helper(n):
    raise KeyError(n)


def big():
    return "x" * 5000


def spin():
    while True:
        pass


def count():
    return 7


def down(n=0):
    return down(n + 1)


def room():
    return sys.getrecursionlimit() - depth()
'''
# The probe the stand-in uses, as the submission's own: how much room a request's code has.
SOURCE += "\n\n" + __import__("inspect").getsource(recursion_depth).replace("recursion_depth", "depth")


def outcome(action) -> object:
    """What an action on a box gives: its value, or the error's type, message and details."""
    try:
        return action()
    except SandboxError as error:
        return type(error).__name__, str(error), getattr(error, "where", None), getattr(error, "kind", None)


def plain_values(box):
    return box.call("plain"), box.names


def tuples(box):
    return box.call("echo", (1, (2, 3)), [4], key=(5,))


def handles(box):
    game = box.call("Game", 3)
    assert isinstance(game, Handle)
    dug = box.call_method(game, "dig", 1)
    box.set_attr(game, "cells", [5, 6])
    return repr(game), dug, box.get_attr(game, "cells"), box.fetch(game).type_name


def keep(box):
    kept = box.call("plain", keep=True)
    return repr(kept), box.fetch(kept), box.call_method(box.call("Game", 2, keep=True), "dig", 0)


def captured(box):
    return box.call_captured("shout", 21), box.call("shout", 4, capture_stdout=True)


def errors(box):
    return outcome(lambda: box.call("fails", 3)), outcome(lambda: box.call("no_such_function"))


def too_large(box):
    return outcome(lambda: box.call("big")), box.call("count")


def time_limit_and_restart(box):
    game = box.call("Game", 2)
    stopped = outcome(lambda: box.call("spin", timeout=0.3))
    alive = box.alive
    after = box.call("count")
    lost = outcome(lambda: box.call_method(game, "dig", 0))
    box.set_budget(0.3)
    budget = outcome(lambda: box.call("spin"))
    return stopped, alive, after, lost, budget, box.restarts, box.generation


def recursion(box):
    return box.call("room"), outcome(lambda: box.call("down"))


CASES = [plain_values, tuples, handles, keep, captured, errors, too_large, time_limit_and_restart, recursion]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.__name__)
def test_the_stand_in_answers_as_a_sandbox_does(case):
    answers = []
    for kind in (Sandbox, InProcessBox):
        with kind(SOURCE, limits=LIMITS) as box:
            answers.append(case(box))
    assert answers[1] == answers[0]


@pytest.mark.parametrize("source", ["def f(:\n", "import no_such_module\n", "x = 1 / 0\n", "import socket\n"])
def test_a_load_error_reads_as_a_sandboxs(source):
    """A syntax error, a missing module, an error at import, an import the rule refuses."""
    found = []
    for kind in (Sandbox, InProcessBox):
        box = kind(source, limits=LIMITS)
        found.append(outcome(box.start))
        box.close()
    assert found[0][0] == "LoadError" and found[1] == found[0]


def test_only_the_in_process_grading_api_takes_the_stand_in(tmp_path, capsys):
    """grade_submission takes it where the own tests are off; a step whose own tests are graded
    refuses it before anything runs, and so do a batch and the command line."""
    reference = tmp_path / "lab.py"
    from autograder.instructor.chaffs import reference_source

    reference.write_text(reference_source("neighbors"))
    graded = get_assignment("neighbors")
    submission = read_submission("ada", reference, graded.keeps_import, graded.course_cells())
    with pytest.raises(ValueError, match="grades no own tests"):
        grade_submission(graded, submission, seed=1, isolation=IN_PROCESS)
    report = grade_submission(apply_settings(graded, {"own_tests": False}), submission, seed=1, isolation=IN_PROCESS)
    assert report.score == report.max_score > 0 and report.protections == [IN_PROCESS]
    with pytest.raises(ValueError, match="isolation must be one of"):
        grade_batch("neighbors", [reference], tmp_path / "results", jobs=1, seed=1, progress=False,
                    isolation=IN_PROCESS)
    for command in ("grade", "check"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--isolation", IN_PROCESS])
        assert f"invalid choice: '{IN_PROCESS}'" in capsys.readouterr().err


def test_the_stand_in_answers_no_callbacks():
    with pytest.raises(ValueError, match="no callbacks"):
        InProcessBox("x = 1\n", callback=lambda text: text)
