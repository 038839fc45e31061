"""Student code with a bug on purpose, one text shared by the widget tests (run in the test's
process) and the browser tests (run in a notebook), so both show the same mistake."""

from __future__ import annotations

#: new_board with every row one and the same list: the numbers of one row add up in all of them.
ALIASING_NEW_BOARD = """
def new_board(dimensions, bombs):
    rows, cols = dimensions
    board = [[0] * cols] * rows  # the classic bug on purpose: every row is one and the same list
    for r, c in bombs:
        board[r][c] = "."
    for r, c in bombs:
        for rr in (r - 1, r, r + 1):
            for cc in (c - 1, c, c + 1):
                if 0 <= rr < rows and 0 <= cc < cols and board[rr][cc] != ".":
                    board[rr][cc] += 1
    return board
"""
