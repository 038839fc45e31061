"""The inline board: one anywidget model, one canvas, any number of dimensions.

The whole board travels as one bytes trait (``cells``: one little-endian int32 code per cell, in
row-major order, see ``codes.py``), replaced as a whole after each action. Clicks come in as custom
messages ``{"action": "dig" | "mark", "at": [...]}`` and ``{"action": "new"}``; each one is
answered by a single state update, which reads the driver once. Sliders over the extra axes, hover
highlighting and the flag-mode toggle live in the front end (static/) and cost no round trip.

A board of more than two axes shows the slice of its last dig: a dig from Python (the notebooks'
scripted first dig) moves the view there, so the board never opens on a slice where nothing
happened. With student code behind it, the x-ray shows the student's own numbers and compare
outlines every cell where they or the student's view differ from the kit's engine.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import traitlets as t

from ..geometry import Geometry
from ..rules import Rules
from . import frontend
from .codes import CellCode, decode_cells, encode_cells, is_open
from .drivers import Driver, driver_for
from .sliced import SlicedWidget
from .student import StudentCodeError, named

MAX_CELLS = 1 << 20


RULE_OPTIONS = tuple(f.name for f in dataclasses.fields(Rules) if f.name not in ("shape", "mines", "name"))


def _rules_of(shape: Sequence[int] | Rules | None, mines: int | None, options: dict[str, Any]) -> Rules | None:
    if isinstance(shape, Rules):
        if mines is not None or options:
            raise ValueError("give either a Rules or a shape with its options, not both")
        return shape
    if shape is None and mines is None:
        if options:
            raise ValueError(f"rule options {sorted(options)} need a shape and a number of mines")
        return None
    if shape is None or mines is None:
        raise ValueError("give a shape and a number of mines")
    return Rules(tuple(shape), mines, **options)


class Board(SlicedWidget):
    """Play Minesweeper inline: the kit's engine, or the student's own code.

    >>> Board((16, 30), 99, seed=7)                       # the engine
    >>> Board((3, 4, 5), 6, play=HyperMinesGame)          # a 6.009-style class
    >>> Board((8, 8), 10, play=new_board)                 # a student's new_board function
    >>> Board((8, 8), 10, play="new_board")               # the same, looked up when a game starts
    >>> Board(play=Game.new((9, 9), 10))                  # an engine game already made

    Left click digs, right click cycles flag / question / covered; the flag-mode button makes a
    left click mark instead (trackpads, touch). Student errors show in the widget.
    """

    _esm = frontend.esm("board")
    _css = frontend.STATIC / "board.css"

    shape = t.List(t.Int()).tag(sync=True)
    torus = t.Bool(False).tag(sync=True)
    cells = t.Bytes(b"").tag(sync=True)
    xray_cells = t.Bytes(b"").tag(sync=True)
    diff = t.Bytes(b"").tag(sync=True)
    state = t.Unicode("ongoing").tag(sync=True)
    mines = t.Int(0).tag(sync=True)
    mines_left = t.Int(0).tag(sync=True)
    seed = t.Unicode("").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    elapsed = t.Float(0.0).tag(sync=True)
    running = t.Bool(False).tag(sync=True)
    digs = t.Int(0).tag(sync=True)
    revealed = t.Int(0).tag(sync=True)
    error = t.Dict({}).tag(sync=True)
    xray = t.Bool(False).tag(sync=True)
    compare = t.Bool(False).tag(sync=True)
    can_compare = t.Bool(False).tag(sync=True)
    cell_size = t.Int(0).tag(sync=True)
    version = t.Int(0).tag(sync=True)  # bumped by every update, so a front end can tell them apart

    def __init__(
        self,
        shape: Sequence[int] | Rules | None = None,
        mines: int | None = None,
        *,
        play: Any = None,
        seed: int | None = None,
        cell_size: int = 0,
        **kwargs: Any,
    ) -> None:
        """`shape` is a `Rules` or a shape with `mines`; rule options (torus, charges, reveal,
        first_move) may be given as keywords and go to `Rules`; other keywords go to the widget."""
        options = {name: kwargs.pop(name) for name in RULE_OPTIONS if name in kwargs}
        self.driver: Driver = driver_for(named(play), _rules_of(shape, mines, options), seed)
        size = int(np.prod(self.driver.shape))
        if size > MAX_CELLS:
            raise ValueError(f"a board of {size} cells is too large to show (at most {MAX_CELLS})")
        super().__init__(cell_size=cell_size, **kwargs)
        self._started: float | None = None
        self._finished: float | None = None
        self.on_msg(self._on_message)
        self.observe(self._on_toggle, names=["xray", "compare"])
        self._reset()

    # ------------------------------------------------------------------ Python API
    @property
    def game(self) -> Any:
        """The object being played: an engine ``Game`` or the student's own game."""
        return self.driver.game

    def dig(self, at: Sequence[int]) -> int:
        """Dig a cell as a left click would; returns the cells newly revealed (0 on an error).
        The view moves to the slice of the cell (a board of more than two axes)."""
        return self._act("dig", at)

    def mark(self, at: Sequence[int]) -> None:
        """Cycle a cell's mark as a right click would."""
        self._act("mark", at)

    def new_game(self, seed: int | None = None) -> None:
        """Start again (a fresh random seed unless one is given)."""
        try:
            self.driver.new_game(seed)
        except StudentCodeError as error:
            self.error = error.as_dict()
        self._reset()

    def board_view(self) -> np.ndarray:
        """The cell codes currently shown (see ``codes.CellCode`` for their meaning)."""
        return decode_cells(self.cells, self.shape)

    # ------------------------------------------------------------------ internals
    def _reset(self) -> None:
        self._started = self._finished = None
        self._geometry = Geometry(self.driver.shape)
        self.digs = 0
        shape = list(self.driver.shape)
        extra = max(0, len(shape) - 2)
        with self.hold_sync():
            self.shape = shape
            self.torus = bool(self.driver.torus)
            self.mines = int(self.driver.mines)
            self.seed = "" if self.driver.seed is None else str(self.driver.seed)
            self.title = self.driver.name
            self.can_compare = bool(self.driver.can_compare)
            if len(self.slice_index) != extra:
                self.slice_index = [0] * extra
            self._publish(clear_error=False)

    def _act(self, action: str, at: Sequence[int]) -> int:
        at = self._geometry.check(at)
        result = 0
        error: dict[str, Any] = {}
        try:
            if action == "dig":
                if self.state == "ongoing":
                    self.digs += 1
                    if self._started is None:
                        self._started = time.monotonic()
                result = self.driver.dig(at)
            else:
                self.driver.mark(at)
        except StudentCodeError as caught:
            error = caught.as_dict()
        with self.hold_sync():
            self._publish(clear_error=True)
            if error:
                self.error = error
            if action == "dig" and len(at) > 2:
                self.slice_index = [int(i) for i in at[:-2]]
        return result

    def _publish(self, clear_error: bool) -> None:
        """Read the driver once and send everything that may have changed as one update."""
        try:
            view = self.driver.view()
        except StudentCodeError as caught:
            self.error = caught.as_dict()
            if not self.cells:
                self.cells = encode_cells(np.full(self.driver.shape, CellCode.COVERED, dtype=np.int32))
            return
        self.version += 1
        if clear_error:
            self.error = {}
        if view.state != "ongoing" and self._finished is None and self._started is not None:
            self._finished = time.monotonic()
        self.cells = encode_cells(view.cells)
        self.state = view.state
        self.mines_left = view.mines_left
        self.revealed = int(np.count_nonzero(is_open(view.cells)))
        self.elapsed = self._elapsed()
        self.running = self._started is not None and self._finished is None
        own = None
        if self.xray or self.compare:
            try:
                own = self.driver.xray()
            except StudentCodeError as caught:
                self.error = caught.as_dict()
        self.xray_cells = encode_cells(own) if self.xray else b""
        self.diff = self._diff(view.cells, own) if self.compare else b""

    def _elapsed(self) -> float:
        if self._started is None:
            return 0.0
        end = self._finished if self._finished is not None else time.monotonic()
        return round(end - self._started, 3)

    def _diff(self, shown: np.ndarray, own: np.ndarray | None) -> bytes:
        """Every cell where the view differs from the engine's after the same moves, or where the
        x-ray of the code played (the student's numbers) differs from the engine's, covered or not."""
        try:
            reference = self.driver.reference()
            truth = self.driver.truth() if hasattr(self.driver, "truth") else None
        except Exception:  # noqa: BLE001 - no reference board: the diff shows nothing
            reference = truth = None
        if reference is None:
            return b""
        differs = shown != reference
        if own is not None and truth is not None:
            differs |= own != truth
        return differs.astype(np.uint8).tobytes()

    def _on_toggle(self, change: dict) -> None:
        with self.hold_sync():
            self._publish(clear_error=False)

    def _on_message(self, _widget: Any, content: dict, _buffers: list) -> None:
        action = content.get("action") if isinstance(content, dict) else None
        if action in ("dig", "mark"):
            try:
                self._act(action, content.get("at", ()))
            except ValueError as error:
                self.error = {"message": str(error)}
        elif action == "new":
            self.new_game(None)
        elif action == "dismiss":
            self.error = {}
