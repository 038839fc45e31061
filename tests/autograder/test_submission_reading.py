"""Reading submissions: any bytes give one student a clear problem, notebooks are read as IPython
reads them, and student ids stay unique once they become folder names.

The crafted files are what attackers and real students handed in: JSON nested 100000 deep,
notebooks whose fields have the wrong JSON types, files over the size cap, text that is not
UTF-8, things that are not notebooks at all. Each must become a ``Submission`` whose
``problem`` says what is wrong, and a good file graded in the same batch still earns full marks.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get_assignment
from autograder.batch import grade_batch
from autograder.nofollow import LinkInPath, open_nofollow
from autograder.notebook import notebook_code
from autograder.report import student_dir
from autograder.students import Layout, discover, folder_name
from autograder.submission import MAX_FILE_BYTES, MAX_SOURCE_BYTES, Submission, read_submission


def pairs(found):
    """(student, file) for each student discover found."""
    return [(entry.student, entry.file) for entry in found]

REPO = Path(__file__).resolve().parents[2]


def notebook(*cells: object, nbformat_version: object = 4, metadata: object = None, raw: dict | None = None) -> bytes:
    """A notebook's bytes; a cell given as a str is a code cell with that source."""
    made = []
    for cell in cells:
        if isinstance(cell, str):
            cell = {"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": None}
        made.append(cell)
    data = {"nbformat": nbformat_version, "nbformat_minor": 5,
            "metadata": {} if metadata is None else metadata, "cells": made}
    data.update(raw or {})
    return json.dumps(data).encode("utf-8")


def code_cell(source: object, **metadata: object) -> dict:
    return {"cell_type": "code", "metadata": metadata, "source": source, "outputs": [], "execution_count": None}


GOOD_CELL = "def area(r):\n    return 3 * r * r\n"

#: name -> (suffix, bytes, a phrase the problem must contain)
CRAFTED: dict[str, tuple[str, bytes, str]] = {
    "nested_json": (".ipynb", b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    "nested_json_in_cell": (".ipynb", b'{"nbformat": 4, "cells": [' + b"[" * 100000 + b"]" * 100000 + b"]}",
                            "nested too deeply"),
    "nested_brackets_in_cell": (".ipynb", notebook("x = " + "[" * 100000 + "]" * 100000),
                                'SyntaxError in the cell starting "x = ' + "[" * 43 + '...", line 1'),
    "nested_lambdas_in_cell": (".ipynb", notebook("f = " + "lambda: " * 20000 + "1"),
                               "cell 1 is nested too deeply"),
    "nbformat_is_a_string": (".ipynb", notebook(GOOD_CELL, nbformat_version="4"), "'nbformat' is a string"),
    "nbformat_is_true": (".ipynb", notebook(GOOD_CELL, nbformat_version=True), "'nbformat' is true/false"),
    "old_nbformat": (".ipynb", notebook(GOOD_CELL, nbformat_version=3), "old format"),
    "metadata_is_a_list": (".ipynb", notebook(GOOD_CELL, metadata=[]), "'metadata' is a list"),
    "cells_is_an_object": (".ipynb", notebook(raw={"cells": {}}), "('cells' is an object)"),
    "no_cells": (".ipynb", b'{"nbformat": 4, "metadata": {}}', "it has no list of cells"),
    "cell_is_a_string": (".ipynb", notebook(raw={"cells": ["def f(): pass"]}), "cell 1 is a string"),
    "cell_without_type": (".ipynb", notebook(raw={"cells": [{"source": "x = 1"}]}), "cell 1 has no 'cell_type'"),
    "source_is_a_number": (".ipynb", notebook(code_cell(42)), "cell 1's source is a number"),
    "source_is_an_object": (".ipynb", notebook(code_cell({"a": 1})), "cell 1's source is an object"),
    "source_list_of_numbers": (".ipynb", notebook(code_cell(["x = 1\n", 2, 3])), "list holding a number"),
    "source_list_of_lists": (".ipynb", notebook(GOOD_CELL, code_cell([["x = 1"]])),
                             "cell 2's source is a list holding a list"),
    "cell_metadata_is_a_list": (".ipynb", notebook({**code_cell(GOOD_CELL), "metadata": []}),
                                "cell 1's metadata is a list"),
    "nbgrader_metadata_is_true": (".ipynb", notebook(code_cell(GOOD_CELL, nbgrader=True)),
                                  "nbgrader metadata is true/false"),
    "lone_surrogate": (".ipynb", b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = \'\\ud800\'"}]}',
                       "surrogate"),
    "nul_in_cell": (".ipynb", notebook("x = 1\x00\n"), "NUL"),
    "number_too_long": (".ipynb", b'{"nbformat": ' + b"1" * 5000 + b"}", "could not be read"),
    "json_list": (".ipynb", b"[1, 2, 3]", "it is a list, not a JSON object"),
    "json_string": (".ipynb", b'"a notebook"', "it is a string"),
    "empty_notebook_file": (".ipynb", b"", "could not be read (corrupt .ipynb?)"),
    "python_named_ipynb": (".ipynb", GOOD_CELL.encode(), "could not be read (corrupt .ipynb?)"),
    "zip_named_ipynb": (".ipynb", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)), "not UTF-8"),
    "latin1_notebook": (".ipynb", notebook("s = 'caf\u00e9'\n").replace("\\u00e9".encode(), b"\xe9"), "not UTF-8"),
    "utf16_notebook": (".ipynb", notebook(GOOD_CELL).decode().encode("utf-16"), "not UTF-8"),
    "cell_syntax_error": (".ipynb", notebook(GOOD_CELL, "x = 1\n\ndef broken(:\n    pass\n"),
                          'SyntaxError in the cell starting "x = 1", line 3'),
    "too_many_magics": (".ipynb", notebook("%time x\n" * 600 + GOOD_CELL), "too much code"),
    "huge_plain_cell": (".ipynb", notebook("x = 1\n" * 60000), "too much code"),
    "only_demos": (".ipynb", notebook("print(1)\n", "!ls\n"), "no code to grade"),
    "latin1_python": (".py", "# caf\u00e9\nx = 1\n".encode("latin-1"), "not valid UTF-8 text: byte 0xe9"),
    "utf16_python": (".py", GOOD_CELL.encode("utf-16-le"), "NUL character"),
    "nul_in_python": (".py", b"x = 1\x00\n", "NUL character at position 5"),
    "unknown_coding": (".py", b"# -*- coding: klingon -*-\nx = 1\n", "unknown source encoding"),
    "rot13_coding": (".py", b"# coding: rot13\nx = 1\n", "source encoding"),
}


def test_every_crafted_file_gives_its_own_clear_problem(tmp_path):
    for name, (suffix, data, phrase) in CRAFTED.items():
        path = tmp_path / f"{name}{suffix}"
        path.write_bytes(data)
        submission = read_submission(name, path)
        assert submission.problem is not None and phrase in submission.problem, (name, submission.problem)
        assert submission.source == "", name


def test_files_over_the_cap_are_refused_before_they_are_read(tmp_path):
    for suffix in (".py", ".ipynb"):
        path = tmp_path / f"big{suffix}"
        with open(path, "wb") as handle:  # sparse: the size is there, the bytes are not written
            handle.truncate(MAX_FILE_BYTES + 1)
        submission = read_submission("big", path)
        assert submission.problem == ("the file is 20.0 MB; the grader reads files of at most 20 MB (in a "
                                      "notebook, outputs count too: clear them and save again)")
    # A notebook of exactly the cap is read (its outputs count towards the file, not the code).
    exact = tmp_path / "exact.ipynb"
    cell = {"cell_type": "code", "source": "x = 1\n", "metadata": {}, "outputs": [], "execution_count": None}
    head = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]})
    exact.write_text(head[:-1] + ', "padding": "' + "#" * (MAX_FILE_BYTES - len(head) - 15) + '"}')
    assert exact.stat().st_size == MAX_FILE_BYTES
    assert read_submission("exact", exact).problem is None


def test_code_over_its_cap_is_refused_before_it_is_parsed(tmp_path):
    """512 KB of code in a .py file is read; a byte more is refused, naming the limit, and no parser
    sees it. (A notebook's code is bounded by its reader's own work limit: see CRAFTED.)"""
    for size, refused in ((MAX_SOURCE_BYTES, False), (MAX_SOURCE_BYTES + 1, True)):
        lines = "x = 1\n" * (size // 6)
        py = tmp_path / f"lab{size}.py"
        py.write_text(lines + "#" * (size - len(lines)))
        problem = read_submission("big", py).problem
        if refused:
            assert problem == (f"{py.name} is too large to grade: {size // 1024} KB of code, and the grader reads "
                               "at most 512 KB (real answers are far smaller)"), problem
        else:
            assert problem is None, problem


def test_links_pipes_and_folders_are_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("x = 'the grader machine's secret'\n")
    (tmp_path / "lab.py").symlink_to(secret)
    linked = read_submission("linked", tmp_path / "lab.py")
    assert linked.problem == "lab.py is a symbolic link; hand in the file itself" and "secret" not in linked.source
    os.mkfifo(tmp_path / "pipe.py")
    assert read_submission("pipe", tmp_path / "pipe.py").problem == "pipe.py is not a regular file"
    (tmp_path / "folder.ipynb").mkdir()
    assert read_submission("folder", tmp_path / "folder.ipynb").problem == "folder.ipynb is not a regular file"
    assert read_submission("missing", tmp_path / "missing.py").problem == (
        "the file could not be read: No such file or directory")


def test_a_link_given_as_an_argument_is_read_but_not_one_inside_a_folder(tmp_path):
    real = tmp_path / "store" / "kept.py"
    real.parent.mkdir()
    real.write_text(GOOD_CELL)
    (tmp_path / "ada.py").symlink_to(real)
    (tmp_path / "submitted" / "bo").mkdir(parents=True)
    (tmp_path / "submitted" / "bo" / "lab.py").symlink_to(real)
    assert pairs(discover([tmp_path / "ada.py"])) == [("ada", real)]
    assert read_submission("ada", real).source == GOOD_CELL
    ((student, path),) = pairs(discover([tmp_path / "submitted"]))
    assert (student, path) == ("bo", tmp_path / "submitted" / "bo" / "lab.py")
    assert read_submission(student, path).problem == "lab.py is a symbolic link; hand in the file itself"
    # A folder given as an argument may be a link too: it is read as the folder it leads to.
    (tmp_path / "class").symlink_to(tmp_path / "submitted")
    assert pairs(discover([tmp_path / "class"])) == [("bo", tmp_path / "submitted" / "bo" / "lab.py")]


HYPERMINES = get_assignment("hypermines")
#: Text only the instructor's notebook holds: never in what a student's grading read.
SECRET = "only_in_the_instructor_notebook"


def instructor_notebooks(tmp_path: Path) -> Path:
    """A stand-in for the instructor's notebooks folder: the source notebook, which would be graded
    (and earn full marks) if a link to the folder were followed."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    (folder / HYPERMINES.handed_in).write_bytes(notebook(GOOD_CELL, f"def {SECRET}():\n    return 1\n"))
    (folder / "lab.py").write_text(f"def {SECRET}():\n    return 1\n")
    return folder


def assert_nothing_read(submission: Submission, problem: str) -> None:
    assert submission.problem == problem
    assert submission.source == "" and submission.sha256 == "" and submission.source_file == ""
    assert submission.describe() == "No file was read."


def test_a_student_folder_that_is_a_link_is_never_read_through(tmp_path):
    notebooks = instructor_notebooks(tmp_path)
    submitted = tmp_path / "submitted"
    (submitted / "ann").mkdir(parents=True)
    (submitted / "ann" / "lab.py").write_text(GOOD_CELL)
    (submitted / "mallory").symlink_to(notebooks)
    for layout in (Layout(), HYPERMINES.layout()):
        found = {entry.student: entry for entry in discover([submitted], layout)}
        assert sorted(found) == ["ann", "mallory"]
        assert found["mallory"].file == submitted / "mallory" and found["mallory"].relative == "mallory"
        linked = read_submission("mallory", found["mallory"].file)
        assert_nothing_read(linked, "submitted/mallory is a symbolic link; hand in the folder itself")
        assert read_submission("ann", found["ann"].file).source == GOOD_CELL


def test_no_link_on_the_way_to_a_students_file_is_followed(tmp_path):
    """A student folder, an assignment folder and a sub-folder that are links: each is named, and
    nothing behind it is read."""
    notebooks = instructor_notebooks(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "lab.py").write_text(f"def {SECRET}():\n    return 1\n")
    course = tmp_path / "course"
    submitted = course / "submitted"
    (submitted / "ann" / "hypermines").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("")
    (submitted / "ann" / "hypermines" / HYPERMINES.handed_in).write_bytes(notebook(GOOD_CELL))
    (submitted / "mallory").symlink_to(notebooks)
    (submitted / "eve").mkdir()
    (submitted / "eve" / "hypermines").symlink_to(elsewhere)
    found = {entry.student: entry for entry in discover([course], HYPERMINES.layout())}
    assert {s: e.file for s, e in found.items()} == {
        "ann": submitted / "ann" / "hypermines" / HYPERMINES.handed_in,
        "eve": submitted / "eve" / "hypermines",
        "mallory": submitted / "mallory",
    }
    assert found["eve"].relative == "hypermines" and found["eve"].timestamp is None
    assert_nothing_read(read_submission("eve", found["eve"].file),
                        "eve/hypermines is a symbolic link; hand in the folder itself")
    assert_nothing_read(read_submission("mallory", found["mallory"].file),
                        "submitted/mallory is a symbolic link; hand in the folder itself")
    assert read_submission("ann", found["ann"].file).problem is None

    # A plain folder of students: a linked sub-folder is named when the student has no code of
    # their own, and left alone beside code they handed in.
    plain = tmp_path / "plain"
    (plain / "frank").mkdir(parents=True)
    (plain / "frank" / "work").symlink_to(elsewhere)
    (plain / "gus").mkdir()
    (plain / "gus" / "lab.py").write_text(GOOD_CELL)
    (plain / "gus" / "old").symlink_to(elsewhere)
    assert pairs(discover([plain])) == [("frank", plain / "frank" / "work"), ("gus", plain / "gus" / "lab.py")]
    assert_nothing_read(read_submission("frank", plain / "frank" / "work"),
                        "frank/work is a symbolic link; hand in the folder itself")


def test_inside_a_course_even_an_argument_that_is_a_link_is_not_followed(tmp_path):
    """``autograder grade course/submitted/*`` hands the grader every student's folder, links too:
    everything in a course's submitted/ folder is the students', so not even an argument there is
    followed."""
    notebooks = instructor_notebooks(tmp_path)
    course = tmp_path / "course"
    submitted = course / "submitted"
    (submitted / "ann" / "hypermines").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("")
    (submitted / "ann" / "hypermines" / HYPERMINES.handed_in).write_bytes(notebook(GOOD_CELL))
    (submitted / "mallory").symlink_to(notebooks)
    (submitted / "bo" / "hypermines").mkdir(parents=True)
    (submitted / "bo" / "hypermines" / "lab.py").symlink_to(notebooks / "lab.py")
    (submitted / "dan").symlink_to(tmp_path / "nowhere")  # dangling: dan's problem, not the batch's
    given = [*sorted(submitted.iterdir()), submitted / "bo" / "hypermines" / "lab.py"]
    found = {entry.student: entry.file for entry in discover(given, HYPERMINES.layout())}
    assert found == {"ann": submitted / "ann" / "hypermines" / HYPERMINES.handed_in,
                     "bo": submitted / "bo" / "hypermines" / "lab.py", "dan": submitted / "dan",
                     "mallory": submitted / "mallory"}
    assert_nothing_read(read_submission("dan", found["dan"]), "submitted/dan is a symbolic link; hand in the folder itself")
    assert read_submission("ann", found["ann"]).problem is None
    assert_nothing_read(read_submission("bo", found["bo"]), "lab.py is a symbolic link; hand in the file itself")
    assert_nothing_read(read_submission("mallory", found["mallory"]),
                        "submitted/mallory is a symbolic link; hand in the folder itself")


def test_a_folder_swapped_for_a_link_after_it_was_found_is_not_read(tmp_path):
    notebooks = instructor_notebooks(tmp_path)
    submitted = tmp_path / "submitted"
    (submitted / "eve").mkdir(parents=True)
    (submitted / "eve" / "lab.py").write_text(GOOD_CELL)
    ((student, path),) = pairs(discover([submitted]))
    assert path == submitted / "eve" / "lab.py"
    (submitted / "eve" / "lab.py").unlink()
    (submitted / "eve").rmdir()
    (submitted / "eve").symlink_to(notebooks)  # notebooks/lab.py is there to be read through it
    assert_nothing_read(read_submission(student, path), "submitted/eve is a symbolic link; hand in the folder itself")


def test_open_nofollow_refuses_a_link_at_any_depth(tmp_path):
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "real" / "deep" / "f.py").write_text("x = 1\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    os.close(open_nofollow(tmp_path / "real" / "deep" / "f.py"))
    os.close(open_nofollow(tmp_path / "real" / "deep", directory=True))
    for path in (tmp_path / "link" / "deep" / "f.py", tmp_path / "real" / "deep" / ".." / ".." / "link" / "deep",
                 tmp_path / "link"):
        with pytest.raises(LinkInPath) as caught:
            os.close(open_nofollow(path, directory=path.suffix != ".py"))
        assert caught.value.link == tmp_path / "link", path
    with pytest.raises(FileNotFoundError):
        open_nofollow(tmp_path / "real" / "missing.py")


def test_a_course_whose_submitted_folder_is_a_link_is_refused(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("")
    (tmp_path / "real").mkdir()
    (course / "submitted").symlink_to(tmp_path / "real")
    with pytest.raises(ValueError, match=r"course/submitted is a symbolic link, and the grader follows no link "
                                         "below the folder it is given: give it the folder that link leads to"):
        discover([course], HYPERMINES.layout())


def test_bom_crlf_and_tabs_are_accepted(tmp_path):
    text = "def area(r):\r\n\treturn 3 * r * r\r\n"
    (tmp_path / "lab.py").write_bytes(b"\xef\xbb\xbf" + text.encode())
    python = read_submission("p", tmp_path / "lab.py")
    assert python.problem is None and python.source == text
    cell = {"cell_type": "code", "metadata": {}, "source": ["def area(r):\r\n", "\treturn 3 * r * r\r\n"]}
    (tmp_path / "n.ipynb").write_bytes(b"\xef\xbb\xbf" + notebook(cell))
    book = read_submission("n", tmp_path / "n.ipynb")
    assert book.problem is None and book.source.split("\n")[:2] == ["def area(r):", "\treturn 3 * r * r"]


def test_random_and_truncated_bytes_never_raise(tmp_path):
    """Random bytes, and every way of cutting a real notebook short: a Submission each time."""
    rng = random.Random(20240601)
    real = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(GOOD_CELL)])).encode()
    blobs = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))) for _ in range(150)]
    blobs += [bytes(rng.choice(b'{}[]",:0123456789.eE-+ \\ntruefalsnul\xff\xc3') for _ in range(200))
              for _ in range(150)]
    cuts = sorted(rng.sample(range(1, len(real)), 60))
    path_py, path_nb = tmp_path / "f.py", tmp_path / "f.ipynb"
    for blob in blobs:
        for path in (path_py, path_nb):
            path.write_bytes(blob)
            submission = read_submission("s", path)
            assert isinstance(submission, Submission)
            assert submission.problem is not None or path is path_py
    for cut in cuts:
        path_nb.write_bytes(real[:cut])
        assert "could not be read" in read_submission("s", path_nb).problem
    path_nb.write_bytes(real)
    assert read_submission("s", path_nb).problem is None


def test_discover_finds_every_crafted_student(tmp_path):
    root = tmp_path / "submitted"
    for name, (suffix, data, _) in CRAFTED.items():
        (root / name).mkdir(parents=True)
        (root / name / f"lab{suffix}").write_bytes(data)
    (root / "weird\nname").mkdir()
    (root / "weird\nname" / "lab.py").write_text(GOOD_CELL)
    found = dict(pairs(discover([root])))
    assert set(found) == set(CRAFTED) | {"weird_name"}
    for name, path in found.items():
        submission = read_submission(name, path)
        assert (submission.problem is None) == (name == "weird_name"), (name, submission.problem)


# ---------------------------------------------------------------------- notebooks as IPython reads them
def test_honest_lines_ending_in_a_question_mark_are_kept():
    cell = ('NOTE = "why?"\n'
            "# is it?\n"
            "def pick(a, b, c):\n"
            "    return a if b else c  # ok?\n")
    source, cells, _, notes, _ = notebook_code(notebook(cell))
    assert source.split("\n")[:4] == ['NOTE = "why?"', "def pick(a, b, c):", "    return a if b else c  # ok?", ""]
    assert cells == [1] and notes == []


def test_only_definitions_are_kept_each_as_its_own_statement():
    cells = [
        'import os; os.system("echo hacked")\n',
        "try:\n    import numpy\nexcept ImportError:\n    pass\n",
        "if True:\n    def hidden():\n        return 1\n",
        "with open('x') as f:\n    def also_hidden():\n        pass\n",
        "for i in range(3):\n    print(i)\n",
        "@decorate\n@other(1)\nclass Kept:\n    pass\nprint(Kept)\n",
        "LIMIT = (1,\n         2); print(LIMIT)\nSIZE = len(LIMIT)\nNAMES = list(range(3))\n",
        "%matplotlib inline\nfiles = !ls\nhelp_me?\nlen??\n",
    ]
    source, used, selection, notes, line_map = notebook_code(notebook(*cells))
    assert source == ("import os\n\n"
                      "@decorate\n@other(1)\nclass Kept:\n    pass\n\n"
                      "LIMIT = (1,\n         2)\nNAMES = list(range(3))\n")
    assert used == [1, 6, 7] and selection == "all code cells"
    assert notes == ["4 magic or shell line(s) were left out.",
                     "8 top-level statement(s) that are not definitions (demos, widgets, visible tests) were left out."]
    assert line_map[:3] == [(1, 1), (0, 0), (6, 1)]
    assert line_map[7:10] == [(7, 1), (7, 2), (7, 4)]


def test_cell_and_line_numbers_follow_the_notebook():
    """Leading blank lines, magics, a shell command continued over two lines and a whole-cell
    %%time all disappear or shrink in IPython's output; error locations still name the cell
    and the line as the student sees them."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title"},
        "\n\n%load_ext autoreload\n!echo one \\\n   two\nhelp?\n"
        "def first():\n    return missing_name\n",
        "%%time\nx = 1\n\ndef second():\n    return 2 / 0\n",
        "    def indented():\n        return 3\n",
    ]
    path_data = notebook(*cells)
    source, _, _, _, line_map = notebook_code(path_data)
    submission = Submission("s", Path("n.ipynb"), source=source, kind="notebook", line_map=line_map)
    lines = source.split("\n")
    expected = {"    return missing_name": (2, 8), "def first():": (2, 7), "    return 2 / 0": (3, 5),
                "def second():": (3, 4), "x = 1": (3, 2), "    return 3": (4, 2)}  # cell 4 was dedented
    for text, (cell, line) in expected.items():
        number = lines.index(text) + 1
        assert submission.locate(f"NameError (line {number})") == f"NameError (cell {cell}, line {line})", text


def test_a_syntax_error_names_the_cell_and_line_after_magics():
    data = notebook("x = 1\n", "\n%time x\n!ls\ndef f(:\n    pass\n")
    with pytest.raises(ValueError, match=r'^SyntaxError in the cell starting "%time x", line 4: invalid syntax$'):
        notebook_code(data)


def test_solution_cells_bring_their_allowed_setup_imports(tmp_path):
    cells = [
        "%matplotlib inline\nimport math, json\nfrom collections import (\n    Counter,\n    deque)\n"
        "import itertools\nfrom ipywidgets import IntSlider\nDEMO = 3\n",
        code_cell("def area(r):\n    return math.pi * r * r\n", nbgrader={"solution": True, "grade": False}),
        "print(area(2))\n",
    ]
    source, used, selection, _, line_map = notebook_code(notebook(*cells), keep_import=lambda n: n != "itertools")
    assert selection == "cells marked as solutions" and used == [2]
    assert source == ("import math, json\nfrom collections import (\n    Counter,\n    deque)\n"
                      "def area(r):\n    return math.pi * r * r\n")
    assert line_map[:6] == [(1, 2), (1, 3), (1, 4), (1, 5), (2, 1), (2, 2)]
    described = read_submission("s", _write(tmp_path / "n.ipynb", notebook(*cells))).describe()
    assert described == "Graded notebook n.ipynb: cells marked as solutions; code cells used: 2."


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_future_imports_go_first():
    source, *_ = notebook_code(notebook("import math\n", "from __future__ import annotations\ndef f(): pass\n"))
    assert source.startswith("from __future__ import annotations\nimport math\n")


def test_a_function_that_uses_a_magic_is_kept_with_a_note():
    source, _, _, notes, _ = notebook_code(notebook("def timed():\n    %time sum(range(9))\n    return 1\n"))
    assert "get_ipython().run_line_magic('time', 'sum(range(9))')" in source
    assert notes == ["IPython magics do not work at grading time, yet these use them: timed (cell 1)."]


def test_without_ipython_notebooks_get_a_clear_problem(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython.core.inputtransformer2", None)
    submission = read_submission("s", _write(tmp_path / "n.ipynb", notebook(GOOD_CELL)))
    assert submission.problem.startswith("notebooks cannot be graded on this machine: IPython")
    assert submission.source == ""


# ---------------------------------------------------------------------- unique student ids
def handed_in_id(student: str, name: str) -> str:
    """The id a student whose name collides gets: its own, and a suffix made from the name handed in."""
    return f"{student}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def folder_keys(ids) -> set[str]:
    """Results folder names as a file system that ignores case and normalisation sees them."""
    return {unicodedata.normalize("NFC", unicodedata.normalize("NFC", folder_name(i)).casefold()) for i in ids}


def test_ids_that_collide_as_folder_names_get_ids_of_their_own(tmp_path):
    for name in ("a b.py", "a_b.py", "cy.py"):
        (tmp_path / name).write_text(GOOD_CELL)
    given = [tmp_path / "a b.py", tmp_path / "a_b.py", tmp_path / "cy.py"]
    found = discover(given)
    assert pairs(found) == [(handed_in_id("a b", "a b.py"), tmp_path / "a b.py"),
                            (handed_in_id("a_b", "a_b.py"), tmp_path / "a_b.py"), ("cy", tmp_path / "cy.py")]
    assert len(folder_keys(s for s, _ in pairs(found))) == 3
    warning = found[0].warning
    assert warning == found[1].warning and found[2].warning == ""
    assert warning.startswith("2 submissions would share the results folder 'a_b' (their names are the same once "
                              "characters that cannot be in a folder name become '_' and case is ignored); each is "
                              "graded under an id of its own: ")
    assert f"{tmp_path / 'a b.py'} as {found[0].student!r}" in warning
    assert f"{tmp_path / 'a_b.py'} as {found[1].student!r}" in warning
    assert pairs(discover(given)) == pairs(found), "the same submissions get the same ids"
    assert sorted(pairs(discover(given[::-1]))) == sorted(pairs(found)), "whatever the order they are given in"


def test_ids_that_differ_only_in_case_or_normalisation_get_ids_of_their_own(tmp_path):
    names = ("Ana", "ana", "\u00c5sa", "\u212bsa", "bob")  # A with a ring, and the angstrom sign NFC makes it
    for name in names:
        (tmp_path / "submitted" / name).mkdir(parents=True)
        (tmp_path / "submitted" / name / "lab.py").write_text(GOOD_CELL)
    found = discover([tmp_path / "submitted"])
    ids = {entry.origin.name: entry.student for entry in found}
    assert ids == {name: name if name == "bob" else handed_in_id(name, name) for name in names}
    assert len(folder_keys(ids.values())) == 5
    assert {e.warning for e in found if e.student != "bob"} == {
        next(e.warning for e in found if e.origin.name == "Ana"),
        next(e.warning for e in found if e.origin.name == "\u00c5sa"),
    }
    assert all(str(tmp_path / "submitted" / name / "lab.py") in " ".join(e.warning for e in found)
               for name in names if name != "bob")


def test_the_same_file_given_twice_is_one_student(tmp_path):
    (tmp_path / "ada.py").write_text(GOOD_CELL)
    assert pairs(discover([tmp_path / "ada.py", tmp_path / "ada.py", tmp_path])) == [("ada", tmp_path / "ada.py")]


def test_the_command_grades_both_students_of_a_collision_and_says_so_once(tmp_path):
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "x y.py").write_text(GOOD_CELL)
    (tmp_path / "subs" / "x_y.ipynb").write_bytes(notebook(GOOD_CELL))
    results = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines",
                           str(tmp_path / "subs" / "x y.py"), str(tmp_path / "subs" / "x_y.ipynb"),
                           "--results-dir", str(results), "--no-progress", "-j", "1", "--seed", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("autograder: warning: ")]
    ids = handed_in_id("x y", "x y.py"), handed_in_id("x_y", "x_y.ipynb")
    assert len(warnings) == 1 and "would share the results folder 'x_y'" in warnings[0], done.stderr
    for student, name in zip(ids, ("x y.py", "x_y.ipynb")):
        assert f"{tmp_path / 'subs' / name} as {student!r}" in warnings[0]
        written = json.loads((student_dir(results, student) / "results.json").read_text())
        assert written["score"] == 0 and written["extra_data"]["status"] == "graded", written
    assert not student_dir(results, "x_y").exists()


BROKEN_DIG = "class HyperMinesGame:\n    pass\n\ndef dig(game, coordinates:\n    pass\n"


def test_autograder_grade_names_the_line_of_a_syntax_error(tmp_path):
    """`autograder grade` names a syntax error's line in a .py and its cell and line in a notebook, in
    the feedback, results.json and the summary, and no longer says "code cells used: none"."""
    submitted = tmp_path / "submitted"
    (submitted / "pat").mkdir(parents=True)
    (submitted / "pat" / "lab.py").write_text(BROKEN_DIG)
    (submitted / "nia").mkdir()
    (submitted / "nia" / "lab.ipynb").write_bytes(notebook("import math\n", BROKEN_DIG))
    results = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines",
                           str(submitted), "--results-dir", str(results), "--no-progress", "-j", "1", "--seed", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for student, where, read in (
            ("pat", "SyntaxError in lab.py, line 4: '(' was never closed", "Read file lab.py;"),
            ("nia", 'SyntaxError in the cell starting "class HyperMinesGame:", line 4: \'(\' was never closed',
             "Read notebook lab.ipynb;")):
        feedback = (student_dir(results, student) / "feedback.txt").read_text()
        assert f"Score: 0 / 20\n\nYour code did not load: {where}\n" in feedback, feedback
        assert f"{read} none of its code was run." in feedback and "cells used: none" not in feedback
        assert f"{where}. {read}" in json.loads((student_dir(results, student) / "results.json").read_text())["output"]
        assert any(line.startswith(student) and where[:len("SyntaxError in cell 2")] in line
                   for line in done.stdout.splitlines()), done.stdout


def test_on_gradescope_a_link_never_stands_in_for_the_code_beside_it(tmp_path):
    """One student's upload: a link (in a repository, say) is passed over for the folder of code
    beside it; an upload of a link alone is graded 0 naming it."""
    from autograder.gradescope import run_on_platform

    notebooks = instructor_notebooks(tmp_path)
    upload = tmp_path / "submission"
    (upload / "src").mkdir(parents=True)
    (upload / "src" / "lab.py").write_text(BROKEN_DIG)  # a problem found on reading: no sandbox needed
    (upload / "aaa").symlink_to(notebooks)
    results = tmp_path / "results.json"
    assert run_on_platform("hypermines", upload, results) == 0
    written = json.loads(results.read_text())
    assert written["score"] == 0 and "SyntaxError in lab.py, line 4" in written["output"], written["output"]
    (upload / "src" / "lab.py").unlink()
    (upload / "src").rmdir()
    assert run_on_platform("hypermines", upload, results) == 0
    written = json.loads(results.read_text())
    assert written["score"] == 0 and "submission/aaa is a symbolic link; hand in the folder itself" in written["output"]
    assert SECRET not in results.read_text()


# ---------------------------------------------------------------------- through a real batch
@pytest.fixture(scope="module")
def crafted_batch(tmp_path_factory, reference_source):
    root = tmp_path_factory.mktemp("crafted")
    submitted = root / "submitted"
    chosen = ["nested_json", "nested_json_in_cell", "nbformat_is_a_string", "metadata_is_a_list",
              "cells_is_an_object", "source_is_a_number", "source_list_of_numbers", "latin1_python",
              "nul_in_python", "zip_named_ipynb", "too_many_magics"]
    for name in chosen:
        suffix, data, _ = CRAFTED[name]
        (submitted / name).mkdir(parents=True)
        (submitted / name / f"lab{suffix}").write_bytes(data)
    (submitted / "huge").mkdir()
    with open(submitted / "huge" / "lab.py", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    (submitted / "deep_python").mkdir()
    (submitted / "deep_python" / "lab.py").write_text("x = " + "[" * 100000 + "]" * 100000 + "\n")
    # The reference in a notebook, with honest lines ending in '?' that hand-made magic
    # detection used to drop (leaving a function without a body).
    asking = ("def _choose(a, b, c):\n    return a if b else c  # ok?\n\n"
              "QUESTION = 'why?'\n# is it?\n")
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# HyperMines"),
                                           nbformat.v4.new_code_cell("%load_ext autoreload\n" + reference_source
                                                                     + "\n" + asking),
                                           nbformat.v4.new_code_cell("game = HyperMinesGame([2, 2], [[0, 0]])\n"
                                                                     "game.dig([1, 1])\ngame?\n")])
    (submitted / "good_notebook").mkdir()
    nbformat.write(book, submitted / "good_notebook" / "lab.ipynb")
    (submitted / "good_file").mkdir()
    (submitted / "good_file" / "lab.py").write_text(reference_source)
    batch = grade_batch("hypermines", [submitted], root / "results", jobs=2, seed=5, progress=False,
                        time_limit=60, test_time_limit=10)
    return {r.student: r for r in batch.reports}, set(chosen) | {"huge", "deep_python"}


def test_good_files_beside_crafted_ones_earn_full_marks(crafted_batch):
    reports, _ = crafted_batch
    for good in ("good_file", "good_notebook"):
        assert reports[good].score == reports[good].max_score == 20, (good, reports[good].problem,
                                                                      [t.output for t in reports[good].tests])
    assert reports["good_notebook"].submission.startswith(
        "Graded notebook lab.ipynb: all code cells; code cells used: 2. 2 magic or shell line(s) were left out.")


def test_every_crafted_file_fails_only_its_own_student(crafted_batch):
    reports, crafted = crafted_batch
    assert crafted < set(reports)
    for name in crafted:
        report = reports[name]
        assert report.score == 0 and report.problem, name
        assert report.internal_errors == [], (name, report.internal_errors)
        if name in CRAFTED:
            assert CRAFTED[name][2] in report.problem, (name, report.problem)
    assert "at most 20 MB" in reports["huge"].problem
