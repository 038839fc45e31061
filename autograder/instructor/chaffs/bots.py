"""Chaffs of step 5's solution (next_move), and a bot tuned to sit near a tier's boundary."""

from __future__ import annotations

from . import Chaff

TIERS = (
    "test_a_fifth_of_the_judge",
    "test_two_fifths_of_the_judge",
    "test_three_fifths_of_the_judge",
    "test_three_quarters_of_the_judge",
)
LEGAL = "test_plays_legal_games"

#: Where the solution starts choosing: after its answer to an untouched board.
CHOOSING = """    def neighbours(cell):
        def around(axis):"""


def sometimes_random(share: float) -> tuple[str, str]:
    """A replacement that makes the bot dig a random covered cell instead of reasoning, on about
    ``share`` of its moves. The choice is drawn from the view itself, so the bot stays
    deterministic: the same board and moves always get the same answer."""
    return (
        CHOOSING,
        f"""    state = np.random.default_rng([int(x) % 1000003 for x in view.grid.ravel()]
                                  + [len(view.moves)])
    if state.random() < {share!r}:
        choices = np.argwhere(view.unknown)
        return Move.dig(tuple(int(v) for v in choices[state.integers(len(choices))]))
"""
        + CHOOSING,
    )


CHAFFS = [
    Chaff(
        "torus_not_wrapped",
        "on a torus the bot steps off the board instead of wrapping around",
        (("values = sorted({(here - 1) % size, here, (here + 1) % size})", "values = [here - 1, here, here + 1]"),),
        loses=(LEGAL,),
        keeps=TIERS,
        says=("torus game 0", "crash", "IndexError"),
        hint=(
            "Look where the bot lists the neighbours of a cell: on a torus, the cells past an edge are those at the "
            "other end of that axis."
        ),
    ),
    Chaff(
        "first_dig_in_two_dimensions",
        "the first dig is always (0, 0), whatever the number of axes",
        (("return Move.dig(tuple(size // 2 if torus else 0 for size in shape))", "return Move.dig((0, 0))"),),
        loses=(LEGAL,),
        keeps=TIERS,
        says=("4x4x4/6 game 0", "illegal", "the board has 3 axes"),
        hint=(
            "Look at the bot's first move: a board may have any number of axes, so the cell dug needs one coordinate "
            "per axis."
        ),
    ),
    Chaff(
        "digs_the_open_cell",
        "when a number's mines are all flagged the bot digs the number itself",
        (
            (
                "            if missing == 0:\n                return Move.dig(covered[0])",
                "            if missing == 0:\n                return Move.dig(cell)",
            ),
        ),
        loses=(LEGAL,) + TIERS,
        keeps=(),
        says=("illegal", "that cell is already open"),
        hint=(
            "Look at the rule that digs once all of a number's mines are flagged: what is dug is one of the covered "
            "cells around that number, never the number itself."
        ),
    ),
    Chaff(
        "rows_and_columns_swapped",
        "the bot reads an axis's size from the other end of the shape",
        (
            (
                "            size, here = shape[axis], cell[axis]",
                "            size, here = shape[-1 - axis], cell[axis]",
            ),
        ),
        loses=(LEGAL,),
        keeps=TIERS,
        says=("expert game 0", "crash", "IndexError"),
        hint=(
            "Look where the bot reads the size of an axis: an axis's size sits at the same position in the board's "
            "shape as that axis's coordinate in a cell."
        ),
    ),
    Chaff(
        "random_one_move_in_seven",
        "the bot digs a random covered cell on one move in seven",
        (sometimes_random(0.15),),
        loses=("test_three_quarters_of_the_judge", "test_three_fifths_of_the_judge"),
        keeps=(LEGAL,),
        says=("of the judge's win rate", "below 75%"),
        hint=(
            "Look at the moves the bot makes without a proof: a random dig loses games. Make sure it never guesses "
            "while a cell is proven safe, and when it must guess, that it picks the cell least likely to hold a "
            "mine."
        ),
    ),
    Chaff(
        "random_half_the_time",
        "the bot digs a random covered cell on half of its moves",
        (sometimes_random(0.5),),
        loses=TIERS,
        keeps=(LEGAL,),
        says=("of the judge's win rate", "below 20%"),
        hint=(
            "Look at the moves the bot makes without a proof: a random dig loses games. Make sure it never guesses "
            "while a cell is proven safe, and when it must guess, that it picks the cell least likely to hold a "
            "mine."
        ),
    ),
    Chaff(
        "thinks_a_second_a_move",
        "the bot searches for one second of CPU time on every move",
        (
            (
                "    ### BEGIN SOLUTION\n    shape, torus = view.shape, view.torus",
                "    ### BEGIN SOLUTION\n    import time\n    deadline = time.process_time() + 1.0\n"
                "    while time.process_time() < deadline:\n        pass\n    shape, torus = view.shape, view.torus",
            ),
        ),
        loses=(LEGAL,) + TIERS,
        keeps=(),
        says=("timeout", "the bot's games used up their"),
        settings={"bot_games": 4, "bot_cpu_seconds": 3},
        hint=(
            "Look at how much CPU time one move takes: a game has many moves and the games share one budget. Bound "
            "each move's search by the work it does, never by waiting for time to pass."
        ),
    ),
    Chaff(
        "waits_for_a_safe_guess",
        "with no proof the bot loops until a guess looks safe, which never happens",
        (
            (
                "    def covered_around(c):\n",
                "    while min(risk[c] for c in covered_cells) > 0.25:\n        pass\n\n    def covered_around(c):\n",
            ),
        ),
        loses=(LEGAL,),
        keeps=(),
        says=("timeout", "no move within 5 s of CPU time"),
        settings={"bot_games": 10, "bot_cpu_seconds": 12},
        hint=(
            "Look at what the bot does when no cell is proven safe: it must still answer, with its best guess. Check "
            "that every loop in it ends."
        ),
    ),
]

#: A bot placed near the 60% tier: the stability test grades it with two seeds.
NEAR_A_TIER = Chaff(
    "near_the_60_percent_tier",
    "the bot digs a random covered cell on some of its moves",
    (sometimes_random(0.07),),
    loses=("test_three_quarters_of_the_judge",),
    keeps=(LEGAL,),
    says=("of the judge's win rate",),
    hint=(
        "Look at the moves the bot makes without a proof: a random dig loses games. Make sure it never "
        "guesses while a cell is proven safe, and when it must guess, that it picks the cell least "
        "likely to hold a mine."
    ),
)
