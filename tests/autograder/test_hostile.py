"""Hostile submissions: each gets a clear message and the score it earned, no more.

The whole battery is graded as one real batch (two workers, small limits) together with the
honest reference solution, which must still score full marks: hostile neighbours change
nothing. Afterwards no sandbox process may be left alive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import nbformat
import pytest

from autograder.assignments import get_assignment
from autograder.batch import grade_batch
from autograder.report import student_dir

from grader_testkit import sandbox_processes, survivors_after

CONSTRUCT_ONLY = {"test_new_small_6d", "test_new_large_4d", "test_random_new_games"}
NO_RENDER = CONSTRUCT_ONLY | {"test_dig_ongoing", "test_dig_defeat", "test_redig_and_after_the_end",
                              "test_victory"}
BEFORE_DIG = {"test_new_small_6d", "test_new_large_4d"}
BEFORE_RENDER = {"test_new_small_6d", "test_new_large_4d", "test_dig_ongoing", "test_dig_defeat"}
SUITE = get_assignment("hypermines").suite_path
#: The cases that compute to the end burn the whole CPU budget, so it is small; 7 s, not less:
#: signal_tampering spends two TEST_LIMITs before test_render, which it must still pass, and had used
#: 6.4 s by then on a busy machine (the first tests' CPU grows under load). The sleeper's nine idle
#: stops of 5 s (about 50 s in all) stay far inside the wall budget this gives (5 x 7 + 60 = 95 s).
BUDGET, TEST_LIMIT, MEMORY_MB = 7.0, 3.0, 256


# A hostile submission reaches any module through the interpreter's object graph, whatever the
# import rule says, so the battery tests the sandbox itself.
ESCAPE = (
    "_g = next(c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close')"
    ".__init__.__globals__\n_sys = _g['sys']\n_os = _sys.modules['os']\n_signal = _sys.modules['signal']\n"
)


def patch(method: str, body: str) -> str:
    """Code appended to the reference: replace one method of HyperMinesGame."""
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return f"\n\ndef _hostile(self, *args, **kwargs):\n{indented}\n\nHyperMinesGame.{method} = _hostile\n"


@dataclass
class Case:
    name: str
    text: str | bytes | None = None        #: appended to the reference (str) or the whole file
    whole: bool = False                    #: ``text`` is the whole file, not an addition
    suffix: str = ".py"
    message: str | tuple[str, ...] = ""    #: must appear in the feedback
    passes: set[str] = field(default_factory=set)  #: exactly the tests that may pass


CASES = [
    Case("loop_at_import", "while True:\n    pass\n", message="time limit exceeded while loading"),
    Case("loop_in_render", patch("render", "while True:\n    pass"), passes=BEFORE_RENDER,
         message="time limit exceeded"),
    Case("recursion_in_dig", patch("dig", "return self.dig(*args)"), passes=CONSTRUCT_ONLY | {"test_render"},
         message="RecursionError"),
    Case("c_stack_overflow", ESCAPE + "_sys.setrecursionlimit(10**8)\ndef _deep(n):\n"
         "    return list(map(_deep, [n + 1]))\n_deep(0)\n", message="SIGSEGV"),
    Case("memory_bomb", "_hoard = []\nwhile True:\n    _hoard.append(bytearray(10**7))\n", message="MemoryError"),
    Case("fork_bomb", ESCAPE + "while True:\n    _os.fork()\n", message="creating processes"),
    Case("ignore_sigterm_and_sleep", ESCAPE + patch(
        "dig", "_signal.signal(_signal.SIGTERM, _signal.SIG_IGN)\n_signal.signal(_signal.SIGINT, _signal.SIG_IGN)\n"
        "while True:\n    _signal.pause()"), passes=CONSTRUCT_ONLY | {"test_render"},
         message="used no CPU time for 5 s"),
    Case("gigabyte_of_prints", "for _ in range(1000):\n    print('x' * 10**6)\n",
         passes=NO_RENDER | {"test_render", "test_integration_4d", "test_integration_6d", "test_integration_5d",
                             "test_edges", "test_random_games"}),
    Case("sys_exit_at_import", ESCAPE + "_sys.exit(3)\n", message="sys.exit(3)"),
    Case("os_exit_at_import", ESCAPE + "_os._exit(0)\n", message="exited with code 0"),
    Case("sys_exit_in_dig", ESCAPE + patch("dig", "_sys.exit(1)"), passes=CONSTRUCT_ONLY | {"test_render"},
         message="sys.exit(1)"),
    Case("os_exit_in_render", ESCAPE + patch("render", "_os._exit(7)"), passes=NO_RENDER,
         message="exited with code 7"),
    Case("always_equal_objects", "class _Same:\n    def __eq__(self, other):\n        return True\n"
         "    __hash__ = object.__hash__\n" + patch("render", "return _Same()"), passes=NO_RENDER,
         message="expected a list, got a _Same object"),
    # The sandbox shows none of these paths: the kernel answers that they do not exist.
    Case("read_the_suite", f"_stolen = open({str(SUITE)!r}).read()\n", message="No such file or directory"),
    Case("read_outside_folder", "_secret = open('/etc/shadow').read()\n", message="No such file or directory"),
    Case("write_results_folder", "open('{results}/students/reference/results.json', 'w').write('{{\"score\": 100}}')\n",
         message=("could not be loaded", "No such file or directory")),
    Case("delete_results_folder", ESCAPE + "_os.remove('{results}/students/reference/results.json')\n",
         message="No such file or directory"),
    Case("list_instructor_folder", ESCAPE + f"_os.listdir({str(SUITE.parent)!r})\n", message="No such file or directory"),
    Case("socket_through_importlib", ESCAPE + "_sys.modules['importlib'].import_module('socket')\n",
         message="import of 'socket' is not allowed"),
    Case("socket", "import socket\n", message="import of 'socket' is not allowed"),
    Case("hidden_socket_import", "_s = __import__('so' + 'cket')\n", message="import of 'socket' is not allowed"),
    Case("daemon_subprocess", "_sp = __import__('sub' + 'process')\n_sp.Popen(['sleep', '1000'], start_new_session=True)\n",
         message="import of 'subprocess' is not allowed"),
    Case("daemon_by_system", ESCAPE + "_os.system('setsid sleep 1000 &')\n", message="running shell commands"),
    Case("daemon_by_spawn", ESCAPE + "_os.posix_spawn('/bin/sleep', ['sleep', '1000'], {{}})\n",
         message="starting programs"),
    Case("kill_the_grader", ESCAPE + "_os.kill(_os.getppid(), 9)\n", message="sending signals"),
    Case("lingering_thread", ESCAPE + "_sys.modules['_thread'].start_new_thread(_signal.pause, ())\n",
         passes=NO_RENDER | {"test_render", "test_integration_4d", "test_integration_6d", "test_integration_5d",
                             "test_edges", "test_random_games"}),
    Case("monkeypatch_builtins", ESCAPE + "__builtins__.isinstance = lambda *a: True\n"
         "__builtins__.len = lambda *a: 0\n_sys.modules['json'].dumps = lambda *a, **k: '{{\"ok\": true, \"value\": 20}}'\n",
         message="the submission could not be loaded"),
    Case("signal_tampering", ESCAPE + "for _s in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGALRM, _signal.SIGXCPU):\n"
         "    _signal.signal(_s, _signal.SIG_IGN)\n" + patch("dig", "while True:\n    pass"),
         passes=BEFORE_DIG | {"test_render"}, message=("this test may use 3 s of CPU time", "not reached")),
    Case("syntax_error", "def broken(:\n    pass\n", whole=True, message="SyntaxError"),
    Case("missing_names", "def something_else():\n    return 1\n", whole=True,
         message="your code does not define HyperMinesGame"),
    Case("wrong_return_types", patch("dig", "return '3'"), passes=CONSTRUCT_ONLY | {"test_render"},
         message="dig should return an int"),
    Case("generator_render", patch("render", "return (c for c in 'abc')"), passes=NO_RENDER,
         message="got a generator object"),
    Case("huge_return", patch("render", "return list(range(10**8))"), passes=NO_RENDER, message="MemoryError"),
    Case("non_utf8_source", "# caf\xe9\nclass HyperMinesGame:\n    pass\n".encode("latin-1"), whole=True,
         message="not valid UTF-8"),
    Case("itertools_import", "import itertools\n", message="import of 'itertools' is not allowed in the hypermines assignment"),
    Case("corrupt_notebook", b'{"cells": [ {"cell_type": "code", "source": "x = ', whole=True, suffix=".ipynb",
         message="the notebook could not be read"),
    Case("empty_notebook", nbformat.writes(nbformat.v4.new_notebook()), whole=True, suffix=".ipynb",
         message="no code to grade"),
    Case("patched_excepthook", ESCAPE + "_sys.excepthook = lambda *a: None\n_sys.displayhook = lambda *a: None\n"
         + patch("render", "raise ValueError('boom')"), passes=NO_RENDER, message="ValueError: boom"),
]


@pytest.fixture(scope="module")
def battery(tmp_path_factory, reference_source):
    root = tmp_path_factory.mktemp("hostile")
    submissions, results = root / "submitted", root / "results"
    results.mkdir()
    for case in CASES:
        folder = submissions / case.name
        folder.mkdir(parents=True)
        text = case.text
        if isinstance(text, str):
            text = text.replace("{results}", str(results)).replace("{{", "{").replace("}}", "}")
            text = text if case.whole else reference_source + "\n" + text
            text = text.encode("utf-8")
        (folder / f"lab{case.suffix}").write_bytes(text)
    (submissions / "reference").mkdir()
    (submissions / "reference" / "lab.py").write_text(reference_source)
    before = set(sandbox_processes())
    batch = grade_batch("hypermines", [submissions], results, csv_path=root / "grades.csv", jobs=2,
                        seed=2024, time_limit=BUDGET, test_time_limit=TEST_LIMIT, memory_mb=MEMORY_MB,
                        progress=False)
    survivors = survivors_after(before)
    return {r.student: r for r in batch.reports}, results, survivors


def test_the_battery_has_enough_cases():
    assert len(CASES) >= 25


def test_the_reference_in_the_same_batch_scores_full_marks(battery):
    reports, results, _ = battery
    reference = reports["reference"]
    assert reference.score == reference.max_score == 20
    on_disk = json.loads((student_dir(results, "reference") / "results.json").read_text())
    assert on_disk["score"] == 20


def test_no_sandbox_process_survives_the_batch(battery):
    assert battery[2] == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission(battery, case):
    reports, results, _ = battery
    report = reports[case.name]
    passed = {t.id for t in report.tests if t.status == "passed"}
    assert passed == case.passes, report.tests
    assert report.score == sum(t.max_score for t in report.tests if t.id in case.passes)
    assert report.internal_errors == []
    feedback = (student_dir(results, case.name) / "feedback.txt").read_text()
    for message in (case.message,) if isinstance(case.message, str) else case.message:
        assert message in feedback, feedback
    assert "def test_" not in feedback and "check_equal(" not in feedback
    written = json.loads((student_dir(results, case.name) / "results.json").read_text())
    assert written["score"] == report.score
    assert {t["status"] for t in written["tests"]} <= {"passed", "failed"}
