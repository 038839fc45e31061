"""What the three N-D widgets share on the Python side: the slice of the extra axes on show.

The browser moves its sliders over the extra axes without telling the kernel, so a slider move
costs no message; ``slice_index`` therefore holds where Python last put the view, not where the
user slid it. Assigning the value it already holds changes no trait and so would reach no view:
such an assignment sends a ``show_slice`` message instead (``sliceSliders`` in
``static/common.js`` adopts it), so ``board.slice_index = [0]`` always shows slice 0.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets as t


class SlicedWidget(anywidget.AnyWidget):
    """An anywidget whose extra axes (beyond the last two) the browser shows one slice at a time."""

    slice_index = t.List(t.Int()).tag(sync=True)

    @t.validate("slice_index")
    def _show_even_when_unchanged(self, proposal: Any) -> list[int]:
        value = proposal["value"]  # already a list of ints: the trait's own check runs first
        if value == self.slice_index:
            self.send({"show_slice": value})
        return value
