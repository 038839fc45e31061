"""6.009 Lab 3 -- HyperMines"""

import sys
sys.setrecursionlimit(10000)
# NO ADDITIONAL IMPORTS


class HyperMinesGame:
    def __init__(self, dimensions, bombs):
        """Start a new game.

        Sets the four attributes: dimensions, board, mask and state.

        >>> g = HyperMinesGame([3, 3, 2], [[1, 2, 0]])
        >>> g.board[1]
        [[0, 0], [1, 1], ['.', 1]]
        >>> g.state
        'ongoing'
        """
        self.dimensions = dimensions
        self.board = self.make_board(dimensions, 0)
        self.mask = self.make_board(dimensions, False)
        self.state = "ongoing"
        for bomb in bombs:
            self.set_coords(self.board, bomb, ".")
        for bomb in bombs:
            for cell in self.neighbors(bomb):
                value = self.get_coords(self.board, cell)
                if value != ".":
                    self.set_coords(self.board, cell, value + 1)

    def get_coords(self, array, coords):
        """The value at coords in a nested list (first coordinate first)."""
        if len(coords) == 1:
            return array[coords[0]]
        return self.get_coords(array[coords[0]], coords[1:])

    def set_coords(self, array, coords, value):
        """Put value at coords in a nested list."""
        if len(coords) == 1:
            array[coords[0]] = value
        else:
            self.set_coords(array[coords[0]], coords[1:], value)

    def make_board(self, dimensions, elem):
        """A fresh nested list of the given dimensions, every cell elem.

        >>> HyperMinesGame([1], []).make_board([2, 3], 0)
        [[0, 0, 0], [0, 0, 0]]
        """
        if len(dimensions) == 1:
            return [elem] * dimensions[0]
        return [self.make_board(dimensions[1:], elem) for i in range(dimensions[0])]

    def is_in_bounds(self, coords):
        """Is every coordinate inside its axis?"""
        for i in range(len(coords)):
            if coords[i] < 0 or coords[i] >= self.dimensions[i]:
                return False
        return True

    def neighbors(self, coords):
        """Every cell next to coords (not coords itself), inside the board.

        >>> sorted(HyperMinesGame([10], []).neighbors([5]))
        [[4], [6]]
        >>> len(HyperMinesGame([10, 20, 3], []).neighbors([5, 13, 0]))
        17
        """
        def around(rest):
            # all the offsets of the remaining axes, each -1, 0 or 1
            if len(rest) == 0:
                return [[]]
            shorter = around(rest[1:])
            result = []
            for step in (-1, 0, 1):
                for tail in shorter:
                    result.append([rest[0] + step] + tail)
            return result

        found = []
        for cell in around(list(coords)):
            if cell != list(coords) and self.is_in_bounds(cell):
                found.append(cell)
        return found

    def is_victory(self):
        """True when every safe square is revealed."""
        def check(board, mask):
            if not isinstance(board, list):
                return board == "." or mask
            for i in range(len(board)):
                if not check(board[i], mask[i]):
                    return False
            return True
        return check(self.board, self.mask)

    def dig(self, coords):
        """Reveal coords (and, from a 0, its neighbours); return how many squares opened.

        >>> g = HyperMinesGame([3, 3, 2], [[1, 2, 0]])
        >>> g.dig([2, 1, 0])
        1
        >>> g.dig([0, 0, 0])
        11
        >>> g.dig([1, 2, 0])
        1
        >>> g.state
        'defeat'
        """
        if self.state != "ongoing":
            return 0
        if self.get_coords(self.mask, coords):
            return 0
        if self.get_coords(self.board, coords) == ".":
            self.set_coords(self.mask, coords, True)
            self.state = "defeat"
            return 1
        count = self.reveal(coords)
        if self.is_victory():
            self.state = "victory"
        return count

    def reveal(self, coords):
        """Open one safe square; a 0 opens its neighbours too, recursively."""
        if self.get_coords(self.mask, coords):
            return 0
        if self.get_coords(self.board, coords) == ".":
            return 0
        self.set_coords(self.mask, coords, True)
        count = 1
        if self.get_coords(self.board, coords) == 0:
            for cell in self.neighbors(coords):
                count += self.reveal(cell)
        return count

    def render(self, xray=False):
        """The board as shown: '_' hidden, '.' bomb, ' ' zero, else the digit.

        >>> g = HyperMinesGame([2, 2], [[0, 0]])
        >>> g.dig([1, 1])
        1
        >>> g.render()
        [['_', '_'], ['_', '1']]
        >>> g.render(True)
        [['.', '1'], ['1', '1']]
        """
        def show(board, mask):
            if isinstance(board, list):
                return [show(board[i], mask[i]) for i in range(len(board))]
            if not xray and not mask:
                return "_"
            if board == 0:
                return " "
            return str(board)
        return show(self.board, self.mask)

    # ***Methods below this point are for testing and debugging purposes only.***

    def dump(self):
        """Print a human-readable representation of this game."""
        lines = ["dimensions: %s" % (self.dimensions, ),
                 "board: %s" % ("\n       ".join(map(str, self.board)), ),
                 "mask:  %s" % ("\n       ".join(map(str, self.mask)), ),
                 "state: %s" % (self.state, )]
        print("\n".join(lines))

    @classmethod
    def from_dict(cls, d):
        """A game whose four attributes are taken from a dictionary."""
        game = cls.__new__(cls)
        for name in ("dimensions", "board", "state", "mask"):
            setattr(game, name, d[name])
        return game


if __name__ == "__main__":
    import doctest
    doctest.testmod(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)

    # The check-yourself questions: neighbours in 1, 2 and 3 dimensions.
    print(HyperMinesGame([10], []).neighbors([5]))
    print(HyperMinesGame([10, 20], []).neighbors([5, 13]))
    print(HyperMinesGame([10, 20, 3], []).neighbors([5, 13, 0]))

    # The example game of the handout, step by step.
    game = HyperMinesGame([3, 3, 2], [[1, 2, 0]])
    game.dump()
    for where in ([2, 1, 0], [0, 0, 0], [1, 2, 0]):
        print("dig", where, "->", game.dig(where))
        game.dump()

    # A bigger game to see it is not too slow.
    big = HyperMinesGame([10, 10, 10, 10], [[0, 0, 0, 0], [9, 9, 9, 9], [5, 5, 5, 5]])
    print("opened", big.dig([2, 7, 2, 7]), "state", big.state)
    for row in big.render()[0][0]:
        print("".join(row))
