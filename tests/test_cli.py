"""The `mines` command, run as a real subprocess the way a player runs it."""

import subprocess
import sys

import pytest


def mines(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "minesweeper_kit.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_help_lists_the_commands():
    out = mines("--help").stdout
    assert "play" in out and "lab" in out


def test_play_help_explains_the_options():
    out = mines("play", "--help").stdout
    for option in ("--preset", "--shape", "--mines", "--torus", "--charges", "--seed", "--web"):
        assert option in out


def test_a_scripted_terminal_game_is_won():
    # One mine on a 1x4 board, placed by the seed; digging every cell but the mine wins.
    from minesweeper_kit import Game
    game = Game.new((1, 4), 1, seed=5)
    game.dig((0, 0))
    safe = [c for c in range(4) if not game.mines[0, c]]
    moves = "".join(f"0 {c}\n" for c in safe)
    result = mines("play", "--shape", "1x4", "--mines", "1", "--seed", "5", stdin="0 0\n" + moves)
    assert "You cleared the board!" in result.stdout, result.stdout


def test_bad_moves_get_a_message_and_the_game_goes_on():
    result = mines("play", "--seed", "1", stdin="hello\n9 9\nf 0\nq\n")
    assert "type 2 whole numbers" in result.stdout
    assert "off the board" in result.stdout
    assert result.returncode == 0


@pytest.mark.parametrize("args, message", [
    (("--shape", "3x0"), "at least one cell"),
    (("--shape", "3xa"), "axis sizes joined by x"),
    (("--shape", "3x3", "--mines", "9"), "do not fit"),
    (("--charges", "0:0"), "nonzero"),
])
def test_bad_options_fail_clearly(args, message):
    result = mines("play", *args, stdin="q\n")
    assert result.returncode == 2
    assert message in result.stderr


