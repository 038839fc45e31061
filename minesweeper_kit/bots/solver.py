"""The reference solver: exact inference, exact probabilities, and a guessing policy.

How it decides, each time it has no cell already known to be safe:

1. **Constraints.** Every open cell next to covered cells says: the charges of the mines among
   its covered neighbours add up to its number (minus the charges of neighbours already known to
   be mines). With every charge 1 that is the classic count; with charges it can be 0 or negative.
2. **Propagation.** Each constraint alone bounds what each of its cells can be (the rest of the
   constraint can only add up to a known range); cells forced to mine or safe are fixed, and the
   constraints shrink, until nothing changes. Cheap and it settles most moves.
3. **Enumeration.** The remaining frontier splits into independent components (cells linked by
   shared constraints). Inside a component, cells with the same constraints and the same charge
   are interchangeable, so they are grouped into *boxes* and a box of s cells holding m mines
   counts C(s, m) configurations. A backtracking search over boxes lists every consistent
   configuration, tallied by its mine count.
4. **Global count.** Components are combined by convolution over mine counts, and each total is
   weighted by C(U, M - k): the ways to put the remaining mines in the U unconstrained cells. This
   gives the exact probability of a mine in every covered cell (exact integers until the final
   division, so "certainly safe" really means probability zero).
5. **Guessing.** If no cell is certainly safe: the first click goes to a corner (fewest
   neighbours, so the likeliest to open a region; on a torus every cell is alike). When few mine
   placements remain (`ENDGAME_CONFIGS`), an exhaustive endgame search picks the cell with the
   best chance of winning the rest of the game (digging splits the placements by the number
   shown; cells safe in all of them are dug for free). Otherwise the safest cell is dug, and
   among equally safe cells the one with the fewest covered neighbours, whose number is the most
   likely to settle them (a cheap stand-in for the chance of progress).
   `ReferenceSolver(progress=True)` instead weighs safety against an exact one-move chance of
   progress (each number the cell could show is analysed); measured on 3,000 Expert games it did
   not win more and cost several times the time, so it is off by default.

The solver only digs; it never needs flags to win (both Sweepmine and the kit's engine win when
every safe cell is open). It remembers, within one game, the cells it has proved safe or mined,
so between guesses it plays its queue of safe cells without recomputing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from ..geometry import Geometry
from .view import VIEW_FLAG, VIEW_OPEN_MIN, VIEW_UNKNOWN, BotView, Move

# Backtracking budget per component (search nodes); beyond it the component is approximated.
MAX_NODES = 200_000
# Exhaustive endgame search when at most this many mine placements remain.
ENDGAME_CONFIGS = 48
# A guess weighs safety against progress among the safest cells: those within this much of the
# lowest mine probability, at most this many of them.
PROGRESS_SLACK = 0.03
PROGRESS_CANDIDATES = 6
# How much a guess that leaves no certainly safe cell behind is worth less than one that does:
# roughly the risk of the further guess it will need.
NO_PROGRESS_COST = 0.1


@lru_cache(maxsize=16)
def _geometry(shape: tuple[int, ...], torus: bool) -> Geometry:
    return Geometry(shape, torus)


@lru_cache(maxsize=16)
def neighbour_table(shape: tuple[int, ...], torus: bool) -> tuple[tuple[int, ...], ...]:
    """For every flat cell index, the flat indices of its neighbours (itself excluded)."""
    geometry = Geometry(shape, torus)
    table = []
    for index in range(geometry.size):
        cells = geometry.closed_neighbourhood(np.array([index]))
        table.append(tuple(int(c) for c in cells if c != index))
    return tuple(table)


class Analysis:
    """The result of one inference pass over a position (flat indices throughout)."""

    def __init__(self) -> None:
        self.safe: set[int] = set()
        self.mines: set[int] = set()
        self.probability: dict[int, float] = {}  # covered, undecided cells -> P(mine)
        self.exact = True  # False when a component was too large and was approximated
        self.configurations = 0  # consistent placements when every covered cell is constrained, else 0
        self.weight = 0  # the number of mine placements consistent with the view (exact)
        self.covered_neighbours: np.ndarray | None = None  # per cell, how many neighbours are covered


class ReferenceSolver:
    """The kit's strongest bot. ``ReferenceSolver().next_move(view)``; one object per game at a time."""

    name = "reference solver"

    def __init__(self, endgame: bool = True, progress: bool = False) -> None:
        self.endgame = endgame
        self.progress = progress
        self.new_game()

    def new_game(self) -> None:
        """Forget what was learned about the previous board."""
        self._key: tuple | None = None
        self._known_safe: set[int] = set()
        self._known_mines: set[int] = set()
        self._open_count = 0

    # ------------------------------------------------------------------ the move
    def next_move(self, view: BotView) -> Move:
        """A proved-safe cell if there is one, else the guess of `guess`."""
        flat = view.grid.reshape(-1)
        open_count = int(np.count_nonzero(flat >= VIEW_OPEN_MIN))
        if open_count == flat.size:
            raise ValueError("no covered cell left to play")
        key = (view.shape, view.torus, view.mines, view.charges.tobytes())
        if key != self._key or open_count < self._open_count or not view.moves:
            self.new_game()
            self._key = key
        self._open_count = open_count
        shape = view.shape

        if open_count == 0:
            return Move.dig(self.first_click(shape, view.torus))

        self._known_safe = {i for i in self._known_safe if flat[i] < VIEW_OPEN_MIN}
        analysis = None
        if not self._known_safe:
            grid = flat.tolist()
            analysis = analyse(view, grid, self._known_mines)
            self._known_safe |= analysis.safe
            self._known_mines |= analysis.mines
        if self._known_safe:
            cell = min(self._known_safe)
            if flat[cell] == VIEW_FLAG:  # a flag left on a safe cell: lift it so the cell can be dug
                return Move.flag(_unflat(cell, shape))
            self._known_safe.discard(cell)
            return Move.dig(_unflat(cell, shape))
        assert analysis is not None
        return Move.dig(_unflat(self.guess(view, grid, analysis), shape))

    @staticmethod
    def first_click(shape: tuple[int, ...], torus: bool) -> tuple[int, ...]:
        """A corner on a bounded board (fewest neighbours, so the likeliest zero); any cell on a torus."""
        return tuple(0 for _ in shape)

    # ------------------------------------------------------------------ guessing
    def guess(self, view: BotView, grid: list[int], analysis: Analysis) -> int:
        """The flat cell to dig when none is certainly safe (the policy of step 5 above)."""
        prob = {i: p for i, p in analysis.probability.items() if grid[i] == VIEW_UNKNOWN}
        if not prob:  # only flagged cells remain undecided: the policy still has to dig one
            prob = dict(analysis.probability)
            return min(prob, key=prob.__getitem__)
        if self.endgame and analysis.exact and 0 < analysis.weight <= ENDGAME_CONFIGS:
            cell = endgame_choice(view, grid, self._known_mines)
            if cell is not None:
                return cell
        assert analysis.covered_neighbours is not None  # set by every analysis that reaches a guess
        covered_nbrs = analysis.covered_neighbours.tolist()
        ranked = sorted(prob, key=lambda i: (round(prob[i], 9), covered_nbrs[i], i))
        best = prob[ranked[0]]
        candidates = [i for i in ranked if prob[i] <= best + PROGRESS_SLACK][:PROGRESS_CANDIDATES]
        if not self.progress or not analysis.exact or analysis.weight == 0 or len(candidates) < 2 or view.charged:
            return ranked[0]
        scores = {i: progress_score(view, grid, self._known_mines, i, analysis.weight) for i in candidates}
        return max(candidates, key=lambda i: (scores[i], -prob[i], -covered_nbrs[i], -i))


# ---------------------------------------------------------------------- inference
def analyse(
    view: BotView, grid: list[int] | None = None, known_mines: Iterable[int] = (), enumerate_frontier: bool = True
) -> Analysis:
    """Exact inference on a position: certainly safe cells, certain mines, P(mine) of the rest.

    The steps of the module docstring, one function each: `_constraints` (1), `_propagate` (2),
    then `_weigh_placements` (3 and 4). With `enumerate_frontier` false it stops after
    propagation (one number at a time), leaves `probability` empty and `exact` false: the
    baseline bot's level of reasoning.
    """
    if grid is None:
        grid = view.grid.ravel().tolist()
    charges = view.charges.ravel().tolist()
    known_mines = set(known_mines)
    out = Analysis()
    out.mines |= known_mines
    covered_mask = np.array(grid, dtype=np.int64) < VIEW_OPEN_MIN
    geometry = _geometry(view.shape, view.torus)
    touching = geometry.neighbour_sum(covered_mask.astype(np.int32).reshape(geometry.shape)).reshape(-1)
    out.covered_neighbours = touching
    covered = set(np.flatnonzero(covered_mask).tolist())
    boundary = np.flatnonzero(~covered_mask & (touching > 0)).tolist()
    table = neighbour_table(view.shape, view.torus)
    constraints = _constraints(grid, charges, table, boundary, covered, known_mines)
    for c, v in _propagate(constraints, charges).items():
        (out.mines if v else out.safe).add(c)
    constraints = [con for con in constraints if con[0]]
    if not enumerate_frontier:
        out.exact = False
        return out
    _weigh_placements(out, constraints, charges, covered, view.mines - len(out.mines))
    return out


def _constraints(
    grid: list[int],
    charges: list[int],
    table: tuple[tuple[int, ...], ...],
    boundary: list[int],
    covered: set[int],
    known_mines: set[int],
) -> list[list]:
    """Step 1: ``[cells, rhs]`` for each open cell next to covered cells not known to be mines.

    rhs is the cell's number minus the charges of its neighbours already known to be mines.
    """
    constraints: list[list] = []
    for i in boundary:
        cells = []
        rhs = grid[i]
        for j in table[i]:
            if j in covered:
                if j in known_mines:
                    rhs -= charges[j]
                else:
                    cells.append(j)
        if cells:
            constraints.append([cells, rhs])
    return constraints


def _propagate(constraints: list[list], charges: list[int]) -> dict[int, int]:
    """Step 2: cells each constraint alone forces (1 mine, 0 safe), until nothing changes.

    The constraints are reduced in place by the cells fixed so far.
    """
    fixed: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for con in constraints:
            cells, rhs = con
            if any(c in fixed for c in cells):
                keep = []
                for c in cells:
                    if c in fixed:
                        rhs -= charges[c] * fixed[c]
                    else:
                        keep.append(c)
                cells = keep
                con[0], con[1] = cells, rhs
            if not cells:
                continue
            lo = sum(charges[c] for c in cells if charges[c] < 0)
            hi = sum(charges[c] for c in cells if charges[c] > 0)
            for c in cells:
                ch = charges[c]
                rlo = lo - min(ch, 0)
                rhi = hi - max(ch, 0)
                can_mine = rlo <= rhs - ch <= rhi
                can_safe = rlo <= rhs <= rhi
                if can_mine and not can_safe:
                    fixed[c] = 1
                    changed = True
                elif can_safe and not can_mine:
                    fixed[c] = 0
                    changed = True
            # the next constraints are reduced by these facts when their turn comes
    return fixed


def _weigh_placements(
    out: Analysis, constraints: list[list], charges: list[int], covered: set[int], mines_left: int
) -> None:
    """Steps 3 and 4: enumerate each component, weigh every total by the unconstrained cells'
    placements, and fill `out` with the exact probabilities (and the cells they settle)."""
    frontier = {c for con in constraints for c in con[0]}
    outside = [i for i in covered if i not in frontier and i not in out.mines and i not in out.safe]
    n_out = len(outside)
    results = []
    for cons in _components(constraints):
        res = _enumerate_component(cons, charges, mines_left)
        if res is None:
            out.exact = False
            res = _approximate_component(cons, charges)
        results.append(res)
    polys = [r[0] for r in results]
    weight_of_total = {}
    for k, w in _convolve_all(polys).items():
        rest = mines_left - k
        if 0 <= rest <= n_out:
            weight_of_total[k] = w * math.comb(n_out, rest)
    z = sum(weight_of_total.values())
    if z == 0:
        # Inconsistent view (e.g. a wrong number fed in by hand): fall back to a flat guess.
        for i in covered:
            if i not in out.mines and i not in out.safe:
                out.probability[i] = 0.5
        out.exact = False
        return
    out.weight = z
    out.configurations = z if n_out == 0 else 0
    for idx, (poly, box_sums, boxes) in enumerate(results):
        others = _convolve_all(polys[:idx] + polys[idx + 1 :])
        _settle_boxes(out, poly, box_sums, boxes, others, mines_left, n_out, z)
    if n_out:
        num = sum(w * (mines_left - k) for k, w in weight_of_total.items())
        _settle(out, outside, num, z * n_out)


def _settle_boxes(
    out: Analysis,
    poly: dict[int, int],
    box_sums: dict[int, list[int]],
    boxes: list[list[int]],
    others: dict[int, int],
    mines_left: int,
    n_out: int,
    z: int,
) -> None:
    """The mine probability of each box of one component, given the other components' totals."""
    # factor[k] = sum_K' others[K'] * C(n_out, mines_left - k - K')
    factor = {}
    for k in poly:
        f = 0
        for kk, w in others.items():
            rest = mines_left - k - kk
            if 0 <= rest <= n_out:
                f += w * math.comb(n_out, rest)
        factor[k] = f
    for b, cells in enumerate(boxes):
        num = 0
        for k, sums in box_sums.items():
            if factor[k]:
                num += sums[b] * factor[k]
        _settle(out, cells, num, z * len(cells))


def _settle(out: Analysis, cells: list[int], num: int, den: int) -> None:
    """Cells whose mine probability is num / den: safe at 0, mines at 1, else that probability."""
    if num == 0:
        out.safe.update(cells)
    elif num == den:
        out.mines.update(cells)
    else:
        p = num / den
        for c in cells:
            out.probability[c] = p


def _components(constraints: list[list]) -> list[list[list]]:
    """Group constraints that share cells (union-find over cells)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cells, _ in constraints:
        for c in cells:
            parent.setdefault(c, c)
        r0 = find(cells[0])
        for c in cells[1:]:
            r = find(c)
            if r != r0:
                parent[r] = r0
    groups: dict[int, list[list]] = {}
    for con in constraints:
        groups.setdefault(find(con[0][0]), []).append(con)
    return list(groups.values())


def _boxes(cons: list[list], charges: list[int]):
    """Group a component's cells by (the constraints they are in, their charge)."""
    membership: dict[int, list[int]] = {}
    for ci, (cells, _) in enumerate(cons):
        for c in cells:
            membership.setdefault(c, []).append(ci)
    by_key: dict[tuple, list[int]] = {}
    for c, cis in membership.items():
        by_key.setdefault((tuple(cis), charges[c]), []).append(c)
    keys = list(by_key)
    boxes = [by_key[k] for k in keys]
    box_cons = [list(k[0]) for k in keys]
    box_charge = [k[1] for k in keys]
    return boxes, box_cons, box_charge


def _enumerate_component(cons: list[list], charges: list[int], mines_left: int):
    """All configurations of one component, by mine count.

    Returns (poly, box_sums, boxes): poly[k] = number of configurations with k mines;
    box_sums[k][b] = total mines in box b over those configurations; or None if too large.
    One function on purpose: the search (`rec`) is the hot loop and shares the set-up's arrays
    (residuals, bounds, order) as closure variables; split, each step would pass eight of them.
    """
    boxes, box_cons, box_charge = _boxes(cons, charges)
    nb = len(boxes)
    sizes = [len(b) for b in boxes]
    # Order boxes so that constraints close early: walk constraints in BFS order.
    con_boxes: list[list[int]] = [[] for _ in cons]
    for b, cis in enumerate(box_cons):
        for ci in cis:
            con_boxes[ci].append(b)
    order: list[int] = []
    seen_box = [False] * nb
    seen_con = [False] * len(cons)
    queue = [0]
    seen_con[0] = True
    while queue:
        ci = queue.pop(0)
        for b in sorted(con_boxes[ci], key=lambda b: -len(box_cons[b])):
            if not seen_box[b]:
                seen_box[b] = True
                order.append(b)
                for cj in box_cons[b]:
                    if not seen_con[cj]:
                        seen_con[cj] = True
                        queue.append(cj)
    residual = [rhs for _, rhs in cons]
    lo = [0] * len(cons)
    hi = [0] * len(cons)
    for b in range(nb):
        ch = box_charge[b]
        for ci in box_cons[b]:
            if ch < 0:
                lo[ci] += ch * sizes[b]
            else:
                hi[ci] += ch * sizes[b]
    assign = [0] * nb
    poly: dict[int, int] = {}
    box_sums: dict[int, list[int]] = {}
    binom = [[math.comb(s, m) for m in range(s + 1)] for s in sizes]
    nodes = 0
    order_cons = [box_cons[b] for b in order]
    order_charge = [box_charge[b] for b in order]
    order_size = [sizes[b] for b in order]
    limit = max(mines_left, 0)

    def rec(pos: int, k: int, w: int) -> bool:
        nonlocal nodes
        if pos == nb:
            poly[k] = poly.get(k, 0) + w
            sums = box_sums.get(k)
            if sums is None:
                sums = box_sums[k] = [0] * nb
            for b in range(nb):
                if assign[b]:
                    sums[b] += w * assign[b]
            return True
        nodes += 1
        if nodes > MAX_NODES:
            return False
        b = order[pos]
        cis = order_cons[pos]
        ch = order_charge[pos]
        size = order_size[pos]
        # remove this box's capacity from its constraints
        for ci in cis:
            if ch < 0:
                lo[ci] -= ch * size
            else:
                hi[ci] -= ch * size
        ok_all = True
        for v in range(size + 1):
            if k + v > limit:
                break
            delta = ch * v
            ok = True
            for ci in cis:
                r = residual[ci] - delta
                if r < lo[ci] or r > hi[ci]:
                    ok = False
                    break
            if not ok:
                continue
            for ci in cis:
                residual[ci] -= delta
            assign[b] = v
            cont = rec(pos + 1, k + v, w * binom[b][v])
            for ci in cis:
                residual[ci] += delta
            if not cont:
                ok_all = False
                break
        assign[b] = 0
        for ci in cis:
            if ch < 0:
                lo[ci] += ch * size
            else:
                hi[ci] += ch * size
        return ok_all

    if not rec(0, 0, 1):
        return None
    return poly, box_sums, boxes


def _approximate_component(cons: list[list], charges: list[int]):
    """A stand-in for a component too large to enumerate: each cell gets its worst local density.

    It keeps the (poly, box_sums, boxes) shape with a single mine count so that the global
    combination still runs. Certainty is never claimed from an approximation.
    """
    est: dict[int, float] = {}
    for cells, rhs in cons:
        pos = sum(charges[c] for c in cells if charges[c] > 0) or 1
        dens = min(max(rhs / pos, 0.05), 0.95)
        for c in cells:
            est[c] = max(est.get(c, 0.0), dens)
    cells = list(est)
    scale = 1 << 20
    k = round(sum(est.values()))
    sums = [max(1, min(scale - 1, int(est[c] * scale))) for c in cells]
    return {k: scale}, {k: sums}, [[c] for c in cells]


def _convolve_all(polys: list[dict[int, int]]) -> dict[int, int]:
    total = {0: 1}
    for poly in polys:
        nxt: dict[int, int] = {}
        for a, wa in total.items():
            for b, wb in poly.items():
                nxt[a + b] = nxt.get(a + b, 0) + wa * wb
        total = nxt
    return total


# ---------------------------------------------------------------------- lookahead
def progress_score(view: BotView, grid: list[int], known_mines: set[int], cell: int, weight: int) -> float:
    """P(safe) x (1 - cost x P(no progress | safe)) for digging `cell`, computed exactly.

    For each number the cell could show, the position with that number is analysed again: the
    share of placements consistent with it is the chance of seeing it, and the position makes
    progress if it proves some covered cell safe. (Uncharged boards: a number is a mine count.)
    """
    table = neighbour_table(view.shape, view.torus)
    near_mines = sum(1 for j in table[cell] if j in known_mines)
    covered = [j for j in table[cell] if (grid[j] == VIEW_UNKNOWN or grid[j] == VIEW_FLAG) and j not in known_mines]
    safe_weight = 0
    progress_weight = 0
    saved = grid[cell]
    try:
        for value in range(near_mines, near_mines + len(covered) + 1):
            grid[cell] = value
            hyp = analyse(view, grid, known_mines)
            if hyp.weight == 0:
                continue
            safe_weight += hyp.weight
            if value == near_mines or any(grid[i] == VIEW_UNKNOWN for i in hyp.safe):
                progress_weight += hyp.weight
    finally:
        grid[cell] = saved
    if safe_weight == 0:
        return 0.0
    p_safe = safe_weight / weight
    return p_safe * (1 - NO_PROGRESS_COST * (1 - progress_weight / safe_weight))


def endgame_choice(view: BotView, grid: list[int], known_mines: set[int]) -> int | None:
    """The covered cell that maximises the chance of winning, by exhaustive search.

    Used when few placements of the mines remain: the state is the set of placements still
    possible; digging a cell splits it by the number shown (or loses), and a cell safe in every
    placement is dug for free. None if the search does not apply (too many placements).
    """
    configs = list_configurations(view, grid, known_mines)
    if not configs or len(configs) > ENDGAME_CONFIGS:
        return None
    charges = view.charges.ravel().tolist()
    table = neighbour_table(view.shape, view.torus)
    cells = sorted(i for i, v in enumerate(grid) if v in (VIEW_UNKNOWN, VIEW_FLAG))
    # Placements as bitmasks over the covered cells, and the number each cell shows in each.
    masks = [sum(1 << k for k, c in enumerate(cells) if c in m) for m, _ in configs]
    numbers = [[sum(charges[j] for j in table[c] if j in m) for c in cells] for m, _ in configs]
    everything = (1 << len(cells)) - 1
    memo: dict[tuple, tuple[float, int]] = {}

    def solve(ids: tuple[int, ...], opened: int) -> tuple[float, int]:
        key = (ids, opened)
        if key in memo:
            return memo[key]
        union, common = 0, everything
        for i in ids:
            union |= masks[i]
            common &= masks[i]
        undecided = union & ~common & ~opened
        if not undecided:
            memo[key] = (1.0, -1)
            return memo[key]
        free = everything & ~union & ~opened
        pool = free & -free if free else undecided  # a free cell costs nothing: dig one first
        best = (-1.0, -1)
        while pool:
            bit = pool & -pool
            pool ^= bit
            k = bit.bit_length() - 1
            groups: dict[int, list[int]] = {}
            for i in ids:
                if not masks[i] & bit:
                    groups.setdefault(numbers[i][k], []).append(i)
            win = sum(len(g) * solve(tuple(g), opened | bit)[0] for g in groups.values()) / len(ids)
            if win > best[0] + 1e-12:
                best = (win, k)
        memo[key] = best
        return best

    _, k = solve(tuple(range(len(configs))), 0)
    return cells[k] if k >= 0 else None


def list_configurations(view: BotView, grid: list[int], known_mines: set[int]):
    """Every placement of all the mines among the covered cells consistent with the view, as
    [(mine set, 1), ...]; empty if there are more than ENDGAME_CONFIGS or the search is too long.

    One function for the reason `_enumerate_component` is: the search shares the set-up's arrays.
    """
    charges = view.charges.ravel().tolist()
    table = neighbour_table(view.shape, view.torus)
    covered = [i for i, v in enumerate(grid) if v in (VIEW_UNKNOWN, VIEW_FLAG)]
    cov = set(covered)
    cons = []
    for i, v in enumerate(grid):
        if v in (VIEW_UNKNOWN, VIEW_FLAG):
            continue
        cells = [j for j in table[i] if j in cov]
        if cells:
            cons.append((cells, v))
    constrained = {c for cells, _ in cons for c in cells}
    order = sorted(constrained) + sorted(cov - constrained)
    index = {c: n for n, c in enumerate(order)}
    cons_of: list[list[int]] = [[] for _ in order]
    for ci, (cells, _) in enumerate(cons):
        for c in cells:
            cons_of[index[c]].append(ci)
    residual = [v for _, v in cons]
    remaining_pos = [sum(charges[c] for c in cells if charges[c] > 0) for cells, _ in cons]
    remaining_neg = [sum(charges[c] for c in cells if charges[c] < 0) for cells, _ in cons]
    out: list[tuple[frozenset, int]] = []
    chosen: list[int] = []
    total_mines = view.mines

    nodes = 0

    def rec(n: int) -> bool:
        nonlocal nodes
        nodes += 1
        if len(out) > ENDGAME_CONFIGS or nodes > 200 * ENDGAME_CONFIGS:
            return False
        if len(chosen) + len(order) - n < total_mines:
            return True  # too few cells left for the remaining mines
        if n == len(order):
            if len(chosen) == total_mines and all(r == 0 for r in residual):
                out.append((frozenset(chosen), 1))
            return True
        c = order[n]
        ch = charges[c]
        for ci in cons_of[n]:
            if ch > 0:
                remaining_pos[ci] -= ch
            else:
                remaining_neg[ci] -= ch
        ok = True
        for v in (0, 1):
            if v and len(chosen) >= total_mines:
                break
            delta = ch * v
            if all(remaining_neg[ci] <= residual[ci] - delta <= remaining_pos[ci] for ci in cons_of[n]):
                for ci in cons_of[n]:
                    residual[ci] -= delta
                if v:
                    chosen.append(c)
                ok = rec(n + 1)
                if v:
                    chosen.pop()
                for ci in cons_of[n]:
                    residual[ci] += delta
                if not ok:
                    break
        for ci in cons_of[n]:
            if ch > 0:
                remaining_pos[ci] += ch
            else:
                remaining_neg[ci] += ch
        return ok

    if not rec(0):
        return []
    return out


def _unflat(index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for size in reversed(shape):
        index, value = divmod(index, size)
        out.append(value)
    return tuple(reversed(out))
