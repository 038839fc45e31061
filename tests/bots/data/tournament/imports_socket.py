"""Cannot load on purpose: the sandbox refuses the socket module, so it loses every game."""

import socket

from minesweeper_kit.bots import Move


def next_move(view):
    return Move.dig(0, 0)
