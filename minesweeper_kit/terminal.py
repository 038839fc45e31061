"""Text from students and bot writers, made safe to print on an instructor's terminal.

A terminal obeys what it is sent: an escape sequence in a student's file name, in a not-graded
cause or in a bot's crash message can clear the screen, set the window title, hide a line, draw a
link (OSC 8) or fake a whole line of the summary ("0 NOT GRADED"), and a bidirectional override
(U+202E) can reverse what the instructor reads. Two layers keep it out:

* :func:`shown` escapes one piece of such text where it is put into a line: every control
  character, line break included, and every invisible formatting character (Unicode categories
  Cc, Cf, Zl, Zp, and lone surrogates) becomes a visible ``\\x1b`` / ``\\u202e``, so the text can
  neither start a line of its own nor send the terminal an instruction;
* :func:`escaping_output` wraps a command's stdout and stderr, so whatever reaches them (a site
  that forgot :func:`shown`, a library's message quoting a student's file) still has every control
  character but the line break, the tab and the carriage return a progress bar redraws with shown
  as text.
"""

from __future__ import annotations

import contextlib
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["shown", "escaping_output", "EscapingStream"]

_ESCAPED = ("Cc", "Cf", "Zl", "Zp", "Cs")
#: What a whole command's output may still contain: line breaks, tabs, a progress bar's redraw.
_KEPT_IN_OUTPUT = "\n\t\r"


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: object, keep: str = "") -> str:
    """``text`` as one safe piece of a line: control and invisible formatting characters escaped,
    but for those in ``keep`` (a feedback file keeps the line breaks of a test's message)."""
    value = str(text)
    if value.isprintable():  # the common case: nothing to escape (isprintable is False for all above)
        return value
    return "".join(_escape(c) if c not in keep and unicodedata.category(c) in _ESCAPED else c for c in value)


def _shown_in_output(text: str) -> str:
    return shown(text, keep=_KEPT_IN_OUTPUT)


class EscapingStream:
    """A text stream that passes on what is written with control characters made visible (see the
    module's description); everything else (``fileno``, ``isatty``, ``encoding``) is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(_shown_in_output(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def escaping_output() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` escape control characters."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(saved[0]), EscapingStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
