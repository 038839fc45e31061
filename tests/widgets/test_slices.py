"""Python's side of the slice on show: the browser moves its sliders without telling the kernel, so
assigning ``slice_index`` the value Python already holds must still reach the views, as a
``show_slice`` message; any other value goes as ordinary widget state."""

from __future__ import annotations

import pytest

from minesweeper_kit.widgets import Board, NeighborExplorer, Replay


def neighbors(dimensions, coordinates):
    return []


WIDGETS = {
    "board": lambda: Board((3, 4, 5), 3, seed=1),
    "replay": lambda: Replay(Board((3, 4, 5), 3, seed=1).game),
    "explorer": lambda: NeighborExplorer(neighbors, (3, 4, 5)),
}


@pytest.mark.parametrize("kind", sorted(WIDGETS))
def test_assigning_the_held_slice_tells_the_views(kind):
    widget = WIDGETS[kind]()
    sent: list[dict] = []
    widget.send = lambda content, buffers=None: sent.append(content)
    assert widget.slice_index == [0]

    widget.slice_index = [0]
    assert sent == [{"show_slice": [0]}]

    widget.slice_index = [2]  # a new value: synced as state, no message
    assert sent == [{"show_slice": [0]}] and widget.slice_index == [2]
    widget.slice_index = [2]
    assert sent == [{"show_slice": [0]}, {"show_slice": [2]}]
