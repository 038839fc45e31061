"""The page cache carries a note from one sandbox to the next, as root and as an ordinary user.

Every sandbox is shown the same read-only system libraries, and the kernel keeps one page cache for
the whole machine. A sandbox can write bits there and the next one read them back, with nothing the
audit hook, the seccomp filter or any namespace looks at, and without timing anything:

* to write, it drops a region of a large library from the cache (``posix_fadvise(DONTNEED)``, which
  needs only a descriptor open for reading) and then reads one byte of each page whose bit is 1;
* to read, it asks for each page with ``preadv2(RWF_NOWAIT)``, which fails with ``EAGAIN`` for a
  page that is not cached instead of reading it from the disk (``cachestat``, since Linux 6.5, says
  the same for a whole range in one call).

``POSIX_FADV_RANDOM`` keeps the kernel from reading ahead, so one page is one bit. Two tests:

* one sandbox leaves a 64-bit note, the next one (started after the first ended, as the sandboxes of
  one grade follow one another) reads it back exactly, graded as root and as an ordinary user;
* the README's promise that "a student's own tests cannot tell a planted bug from a correct
  implementation but by what it does ... nothing a run leaves behind reaches the next": a test with
  no expected value at all, which only fails when the implementation under test behaves unlike two
  implementations that ran before it, is valid and catches the planted bugs that come after the two
  correct implementations (the grader meets the correct ones first).

The region each run uses is drawn at random and dropped from the cache before it starts, so the
tests do not depend on what ran on the machine before them.
"""

from __future__ import annotations

import os
import random
import secrets
import sys
from pathlib import Path

import pytest
from redteam_harness import MODES
from unprivileged import run_python

from autograder import own_tests
from autograder.assignments import get_assignment
from minesweeper_kit.owntests.runner import TestsFile

PAGE = 4096
#: Below this size a library leaves no room for the own-tests attack's regions.
LARGE = 32 << 20

#: The sandboxes' side: leave a note in the page cache, and look for one.
CHANNEL = r"""
import os

PAGE = 4096


def _open(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead: one page read is one page cached
    return fd


def leave(path, base, note, bits):
    try:
        fd = _open(path)
        os.posix_fadvise(fd, base, bits * PAGE, os.POSIX_FADV_DONTNEED)
        for bit in range(bits):
            if note >> bit & 1:
                os.pread(fd, 1, base + bit * PAGE)
        os.close(fd)
    except OSError as error:  # refused: the channel is closed at its start
        return type(error).__name__
    return "ok"


def look(path, base, bits):
    note = 0
    try:
        fd = _open(path)
        for bit in reversed(range(bits)):
            try:
                os.preadv(fd, [bytearray(1)], base + bit * PAGE, os.RWF_NOWAIT)  # EAGAIN: not cached
                note |= 1 << bit
            except BlockingIOError:
                pass
        os.close(fd)
    except OSError as error:  # refused: nothing can be read back
        return type(error).__name__
    return note
"""

#: One sandbox leaves the note, a second one, started after the first has ended, looks for it.
PROGRAM = r"""
import json, sys
from minesweeper_kit.sandbox import Sandbox

source, path, base, note = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with Sandbox(source) as first:
    left = first.call("leave", path, base, note, 64, timeout=30)
with Sandbox(source) as second:
    seen = second.call("look", path, base, 64, timeout=30)
print(json.dumps({"left": left, "seen": seen}))
"""


def _large_library() -> Path:
    """A large file every sandbox is shown: the largest system library, else the largest shared
    object of the Python installation."""
    found: list[tuple[int, str]] = []
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"):
        if os.path.isdir(folder):
            for entry in os.scandir(folder):
                if entry.is_file(follow_symlinks=False):
                    found.append((entry.stat().st_size, entry.path))
    if not found or max(found)[0] < LARGE:
        for root, _, names in os.walk(os.path.realpath(sys.prefix)):
            found += [(os.path.getsize(os.path.join(root, n)), os.path.join(root, n)) for n in names if ".so" in n]
    size, path = max(found)
    assert size >= LARGE, f"no file of {LARGE >> 20} MB that every sandbox sees was found; the largest is {path}"
    return Path(path)


def _fresh_region(path: Path, length: int) -> int:
    """A random page-aligned region of ``path``, dropped from the page cache now."""
    size = path.stat().st_size
    base = random.randrange(0, (size - length) // (2 << 20)) * (2 << 20)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, base, length, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return base


def _run(mode: str) -> tuple[int, dict]:
    library = _large_library()
    base = _fresh_region(library, 64 * PAGE)
    note = secrets.randbits(64) | 1
    return note, run_python(mode, PROGRAM, CHANNEL, str(library), str(base), str(note))


@pytest.mark.parametrize("mode", MODES)
def test_no_note_crosses_from_one_sandbox_to_the_next_through_the_page_cache(mode):
    if os.geteuid() != 0:
        pytest.fail("this test starts as root: it grades as root and, through setpriv, as an ordinary user")
    note, found = _run(mode)
    assert found["seen"] != note, (
        f"{mode}: the second sandbox read the first one's 64-bit note {note:#x} back from the page cache"
    )


# ---------------------------------------------------------------------------- the own tests
#: The student's test.py: one test with no expected value. Each run (one per implementation, each
#: in a fresh sandbox) takes the first free slot of a counter, reads what the run before it left
#: (the hashes of what every earlier implementation did), leaves that list with its own hash added,
#: and fails only where two earlier implementations agreed and this one does not.
COMPARING = r"""
import os
import unittest
import zlib

import lab

FILE, BASE = {path!r}, {base}
PAGE, SLOT, REGION, ENTRIES = 4096, 1 << 16, 1 << 22, 16


def _open():
    fd = os.open(FILE, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    return fd


def _cached(fd, offset):
    try:
        os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False


def _this_run(fd):
    for run in range(32):
        if not _cached(fd, BASE + run * SLOT):
            os.pread(fd, 1, BASE + run * SLOT)
            return run
    raise RuntimeError("no free slot")


def _word(fd, start, index):
    value = 0
    for bit in reversed(range(32)):
        if _cached(fd, start + (index * 32 + bit) * PAGE):
            value |= 1 << bit
    return value


def _read(fd, run):
    start = BASE + 32 * SLOT + run * REGION
    count = min(_word(fd, start, 0), ENTRIES)
    return [_word(fd, start, 1 + i) for i in range(count)]


def _write(fd, run, values):
    start = BASE + 32 * SLOT + run * REGION
    for index, word in enumerate([len(values)] + values):
        for bit in range(32):
            if word >> bit & 1:
                os.pread(fd, 1, start + (index * 32 + bit) * PAGE)


class TestTiny(unittest.TestCase):
    def test_same_as_the_others(self):
        seen = []
        for dimensions, bombs, digs in (([4], [[0]], [[3], [0]]), ([2, 3], [[0, 0]], [[1, 2], [0, 1], [0, 0]]),
                                        ([2, 2, 2], [[0, 0, 0]], [[1, 1, 1], [1, 1, 0], [0, 0, 0]])):
            game = lab.HyperMinesGame(dimensions, bombs)
            for cell in digs:
                seen += [game.dig(cell), game.state, game.render(), game.render(True)]
        mine = zlib.crc32(repr(seen).encode())
        fd = _open()
        run = _this_run(fd)
        before = _read(fd, run - 1) if run else []
        _write(fd, run, (before + [mine])[:ENTRIES])
        os.close(fd)
        agreed = [value for value in set(before) if before.count(value) >= 2]
        if agreed and mine not in agreed:
            self.fail("this implementation behaves unlike two that came before it")
"""


def test_own_tests_cannot_compare_the_implementations_through_the_page_cache():
    """The grader meets the correct implementations first (each in a fresh tests' sandbox), then
    the planted bugs: a test that remembers what two correct ones did could fail only the bugs."""
    assignment = get_assignment("hypermines")
    found = {i.name: i for i in own_tests.implementations(assignment)}
    wheats = [i for i in found.values() if i.correct][:2]
    chaffs = [found["zero_rendered_as_0"], found["edge_off_by_one"]]
    library = wheats + chaffs
    library_file = _large_library()
    base = _fresh_region(library_file, 32 * (1 << 16) + len(library) * (1 << 22))
    source = COMPARING.format(path=str(library_file), base=base)
    tests = own_tests.FoundTests(TestsFile(source, "test.py", ("TestTiny",), "lab"), "test.py")
    result = own_tests.grade_own_tests(assignment, tests, seed=1, library=library)
    assert result.caught == [], f"planted bugs caught by comparing implementations, not by behaviour: {result.caught}"
