"""Every CSV file the kit writes goes through :func:`write_rows`: spreadsheet formulas escaped,
the file replaced atomically.

A spreadsheet that opens a CSV file reads a cell starting with ``=``, ``+``, ``-`` or ``@`` as a
formula, and some read one starting with a tab or a carriage return the same way: a bot file named
``=2+3.py`` or a student called ``@SUM(A1)`` would otherwise be computed, or run, in whoever opens
the leaderboard or the gradebook. So a text cell is written behind a single quote (``'=2+3``,
which spreadsheets show as the text it is) when its first character, or its first after any
leading run of spaces and invisible characters (every character of Unicode's categories Zs, Zl, Zp
and Cf: the no-break, em, medium mathematical and Ogham spaces, zero-width joiners, direction
marks), is one of those, a line feed, or a look-alike of one that some spreadsheets take in its
place: whatever Unicode's compatibility normalisation (NFKC) turns into ``= + - @`` (the
full-width forms U+FF1D, U+FF0B, U+FF0D, U+FF20, the small forms U+FE66, U+FE62, U+FE63, U+FE6B,
the superscript and subscript plus and equals), and the minus sign U+2212.

Numbers stay numbers: an ``int`` or a finite ``float`` cell is written as Python writes it, a
negative one with its minus sign (``-3``, ``-0.25``), and is never escaped. Text is always text:
the string ``"-3"`` is written ``'-3``. A value meant to be read as a number is passed as a number.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import secrets
import unicodedata
from collections.abc import Iterable
from pathlib import Path

__all__ = ["FORMULA_STARTS", "escape_cell", "csv_text", "write_rows"]

#: The characters a cell may not start with as text: the formula starts and the line breaks.
FORMULA_STARTS = frozenset("=+-@\t\r\n")
_LOOK_ALIKES = frozenset("\u2212")  # MINUS SIGN: no compatibility form, but read as '-' by some
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


#: Unicode categories a spreadsheet may pass over before the first character it reads.
_SKIPPED = frozenset({"Zs", "Zl", "Zp", "Cf"})


def _first_seen(text: str) -> str:
    """The first character of ``text`` that is not a space or an invisible character."""
    for char in text:
        if unicodedata.category(char) not in _SKIPPED:
            return char
    return ""


def _starts_formula(text: str) -> bool:
    if text[:1] in FORMULA_STARTS:
        return True
    first = _first_seen(text)
    return bool(first) and (
        first in FORMULA_STARTS or first in _LOOK_ALIKES or unicodedata.normalize("NFKC", first)[:1] in "=+-@"
    )


def escape_cell(value: object) -> str | int | float:
    """One cell as written: an ``int`` or finite ``float`` as it is; None as an empty cell;
    anything else as text, behind a ``'`` when it would start a formula (see the module)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    text = "" if value is None else str(value)
    return "'" + text if _starts_formula(text) else text


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """The CSV text of ``rows``, every cell through :func:`escape_cell`, lines ended with CRLF."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([escape_cell(cell) for cell in row])
    return buffer.getvalue()


def write_rows(path: str | os.PathLike, rows: Iterable[Iterable[object]], *, mode: int | None = None) -> Path:
    """Write ``rows`` to ``path`` as a CSV file (UTF-8), replacing it atomically: a temporary file
    beside it, then ``os.replace``; a link at ``path`` is replaced, never followed. ``mode`` sets
    the file's permissions exactly (``0o600``: its owner only); without it they are the usual ones,
    0666 less the umask. Returns the path."""
    path = Path(path)
    data = csv_text(rows).encode("utf-8", "backslashreplace")
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        temp = f".{path.name}.{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        fd = os.open(temp, flags, 0o666 if mode is None else mode & 0o600, dir_fd=folder)
        try:
            with open(fd, "wb", closefd=True) as handle:
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise
    finally:
        os.close(folder)
    return path
