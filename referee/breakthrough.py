"""Breakthrough: pawns step forward, capture diagonally forward, and race to the far row.

The rules (``../shared/rules/breakthrough.ru.txt``), as this module reads them:

- Any R x C board; each side fills its two home rows. White moves first from the bottom
  two rows as the board is oriented (both configurable in ``games/breakthrough.json``).
- One piece per move: one square straight forward or diagonally forward onto an empty
  square, or diagonally forward onto an enemy piece, which is removed. Captures are never
  compulsory; a straight move never captures.
- A side wins when one of its pieces reaches the far row (the opponent's home row), or when
  the opponent has no pieces left. **Decision:** a side to move with no legal move loses.
  On a board of two or more columns that cannot happen to a side with pieces (its most
  advanced piece always has a diagonal step or capture); only a 1-column board can block.
- A finished game has no further moves (perft counts end there; from the 8x8 start no game
  can end within 5 plies, so the published figures do not depend on it).

Notation is chess-like: files ``a``.. from the left, ranks ``1``.. from the bottom row as
the board is oriented (whichever side starts there): ``a2-a3`` is a step, ``b4xc5`` a capture.

>>> game = BreakthroughGame()
>>> state = game.new_initial_state()
>>> len(state.legal_moves()), state.turn
(22, 'w')
>>> state.apply(Move.from_notation("a2-a3")).move
'a2-a3'
>>> perft(game.new_initial_state(), 2)
484

The board is kept as two bitboards (Python ints, bit ``row * cols + col``), so move
generation is a handful of shifts and masks; :func:`perft` counts the last ply in bulk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from referee.core import (Cell, Change, Game, Grid, IllegalMove, NotAMove, RefereeError, State,
                          Verdict, check_grid)

WHITE, BLACK = "w", "b"
COLOURS = (WHITE, BLACK)
COLOUR_NAMES = {WHITE: "white", BLACK: "black"}
FILES = "abcdefghijklmnopqrstuvwxyz"

Square = tuple[int, int]
"""(file, rank), both from 0: file 0 is the left column, rank 0 the bottom row."""

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count(n: int) -> str:
    return _NUMBER_WORDS[n] if n < len(_NUMBER_WORDS) else str(n)


def other(colour: str) -> str:
    """The opponent's colour.

    >>> other("w")
    'b'
    """
    return BLACK if colour == WHITE else WHITE


def parse_colour(value: Any) -> str:
    """``"w"``/``"b"`` from a colour as a person may write it ("white", "B", ...).

    >>> parse_colour("Black")
    'b'
    """
    text = str(value).strip().lower()
    for colour, name in COLOUR_NAMES.items():
        if text in (colour, name):
            return colour
    raise RefereeError(f"{value!r} is not a Breakthrough colour; use 'w' (white) or 'b' (black)")


def square_name(square: Square) -> str:
    """``"a1"`` for the bottom-left square.

    >>> square_name((1, 3))
    'b4'
    """
    file, rank = square
    return f"{FILES[file]}{rank + 1}"


def parse_square(name: str) -> Square:
    """Inverse of :func:`square_name`.

    >>> parse_square("c10")
    (2, 9)
    """
    match = re.fullmatch(r"([a-z])([1-9][0-9]*)", name.strip().lower())
    if not match:
        raise RefereeError(f"{name!r} is not a square like 'a2' (file letter, rank number)")
    return FILES.index(match[1]), int(match[2]) - 1


@dataclass(frozen=True)
class Move:
    """One pawn move, in board-independent squares (as python-chess's ``Move``).

    >>> Move.from_notation("b4xc5")
    Move(from_square=(1, 3), to_square=(2, 4), is_capture=True)
    >>> Move((0, 1), (0, 2)).notation
    'a2-a3'
    """

    from_square: Square
    to_square: Square
    is_capture: bool = False

    @classmethod
    def from_notation(cls, text: str) -> Move:
        match = re.fullmatch(r"\s*([a-z][0-9]+)\s*([-x:])\s*([a-z][0-9]+)\s*", text.lower())
        if not match:
            raise RefereeError(f"{text!r} is not a move like 'a2-a3' (step) or 'b4xc5' (capture)")
        return cls(parse_square(match[1]), parse_square(match[3]), match[2] != "-")

    @property
    def notation(self) -> str:
        sep = "x" if self.is_capture else "-"
        return f"{square_name(self.from_square)}{sep}{square_name(self.to_square)}"

    def __str__(self) -> str:
        return self.notation


class BreakthroughGame(Game):
    """Board size and orientation from the definition; bit masks for the move generator."""

    name = "breakthrough"

    def __init__(self, definition: dict[str, Any] | None = None):
        super().__init__(definition)
        self.home_rows: int = self.definition.get("home_rows", 2)
        self.first_player: str = parse_colour(self.definition.get("first_player", WHITE))
        white_home = self.definition.get("white_home", "bottom")
        if white_home not in ("bottom", "top"):
            raise RefereeError(f"white_home must be 'bottom' or 'top', not {white_home!r}")
        if self.rows < 2 * self.home_rows or self.cols < 1 or self.home_rows < 1:
            raise RefereeError(f"a {self.rows}x{self.cols} board has no room for two sides of "
                               f"{self.home_rows} home rows each")
        self.white_home = white_home
        self.players: tuple[str, str] = (self.first_player, other(self.first_player))
        """Colours by player index: player 0 moves first."""

        rows, cols = self.rows, self.cols
        self.full = (1 << rows * cols) - 1
        top_row = (1 << cols) - 1
        bottom_row = top_row << (rows - 1) * cols
        first_col = sum(1 << r * cols for r in range(rows))
        last_col = first_col << (cols - 1)
        up = -1 if white_home == "bottom" else 1  # white's forward row step on the grid
        self.forward = {WHITE: up, BLACK: -up}
        self.goal = {WHITE: top_row if up < 0 else bottom_row,
                     BLACK: bottom_row if up < 0 else top_row}
        # Per colour, the three forward directions: (column step, bit offset, source mask).
        # The masks keep diagonal moves from wrapping round the board's edge.
        self.steps = {
            colour: tuple((dc, self.forward[colour] * cols + dc, mask)
                          for dc, mask in ((0, self.full),
                                           (-1, self.full & ~first_col),
                                           (1, self.full & ~last_col)))
            for colour in COLOURS}

    # -- squares, cells and bits

    def cell_of(self, square: Square) -> Cell:
        file, rank = square
        return self.rows - 1 - rank, file

    def square_of(self, cell: Cell) -> Square:
        row, col = cell
        return col, self.rows - 1 - row

    def name_of(self, cell: Cell) -> str:
        return square_name(self.square_of(cell))

    def is_on_board(self, square: Square) -> bool:
        return 0 <= square[0] < self.cols and 0 <= square[1] < self.rows

    def bit_of(self, square: Square) -> int:
        row, col = self.cell_of(square)
        return 1 << (row * self.cols + col)

    def square_of_bit(self, bit: int) -> Square:
        row, col = divmod(bit.bit_length() - 1, self.cols)
        return self.square_of((row, col))

    def shift(self, bits: int, offset: int) -> int:
        return (bits << offset) & self.full if offset > 0 else bits >> -offset

    # -- the Game interface

    def new_initial_state(self, players: int = 2, **options: Any) -> BreakthroughState:
        if players != 2:
            raise RefereeError(f"Breakthrough is for 2 players, not {players}")
        home = (1 << self.home_rows * self.cols) - 1  # the top home rows
        bottom = home << (self.rows - self.home_rows) * self.cols
        white, black = (bottom, home) if self.white_home == "bottom" else (home, bottom)
        return BreakthroughState(self, white, black, self.first_player)

    def state_from_cells(self, cells: Grid, to_move: str | None = None) -> BreakthroughState:
        """The position a reading shows, with ``to_move`` (default: the first player) to play."""
        grid = check_grid(cells, self.rows, self.cols)
        bits = {WHITE: 0, BLACK: 0}
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                if value is not None:
                    bits[_piece(value, self.name_of((r, c)))] |= 1 << (r * self.cols + c)
        if bits[WHITE] & self.goal[WHITE] and bits[BLACK] & self.goal[BLACK]:
            raise NotAMove("both sides have a piece on the far row; check the photo")
        turn = parse_colour(to_move) if to_move is not None else self.first_player
        return BreakthroughState(self, bits[WHITE], bits[BLACK], turn)

    def judge(self, before: Grid, after: Grid, **context: Any) -> Verdict:
        """Judge one change; ``context["to_move"]`` ("w"/"b") if known, else the colour that moved.

        Other context keys are ignored.
        """
        try:
            to_move = context.get("to_move")
            if to_move is None:
                to_move = _mover(Change.between(check_grid(before, self.rows, self.cols, "before"),
                                                check_grid(after, self.rows, self.cols)))
            state = self.state_from_cells(before, to_move)
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        return state.judge_change(after)


def _piece(value: Any, where: str) -> str:
    if value in COLOURS:
        return value
    raise NotAMove(f"{where} reads {value!r}; Breakthrough pieces are 'w' and 'b'")


def _mover(change: Change) -> str | None:
    """The colour that left a square, when exactly one colour did."""
    colours = {value for value in change.removed.values() if value in COLOURS}
    return colours.pop() if len(colours) == 1 else None


def _bits(bitboard: int) -> Iterator[int]:
    while bitboard:
        low = bitboard & -bitboard
        yield low
        bitboard ^= low


class BreakthroughState(State):
    """A Breakthrough position: two bitboards, the colour to move, and the moves so far."""

    def __init__(self, game: BreakthroughGame, white: int, black: int, turn: str):
        self.game = game
        self.pieces = {WHITE: white, BLACK: black}
        self.turn = turn
        self.move_stack: list[Move] = []
        self._history: list[tuple[int, int, str, str | None]] = []
        self.winner: str | None = self._find_winner()

    # -- the position

    @property
    def current_player(self) -> int:
        return self.game.players.index(self.turn)

    @property
    def scores(self) -> list[int]:
        return [int(self.winner == colour) for colour in self.game.players]

    def cells(self) -> Grid:
        cols = self.game.cols
        grid: Grid = [[None] * cols for _ in range(self.game.rows)]
        for colour in COLOURS:
            for bit in _bits(self.pieces[colour]):
                r, c = divmod(bit.bit_length() - 1, cols)
                grid[r][c] = colour
        return grid

    def piece_at(self, square: Square) -> str | None:
        bit = self.game.bit_of(square)
        return next((c for c in COLOURS if self.pieces[c] & bit), None)

    def is_terminal(self) -> bool:
        return self.winner is not None

    def _find_winner(self) -> str | None:
        g = self.game
        for colour in COLOURS:
            if self.pieces[colour] & g.goal[colour]:
                return colour  # a piece reached the far row
        for colour in COLOURS:
            if not self.pieces[colour]:
                return other(colour)  # all its pieces were taken
        if not _count_moves(g, self.pieces[self.turn], self.pieces[other(self.turn)], self.turn):
            return other(self.turn)  # blocked: only possible on a 1-column board
        return None

    # -- moves

    def legal_moves(self, hand: Iterable[Any] | None = None) -> list[Move]:
        """Every legal move of the side to move; none once the game is over."""
        if self.winner is not None:
            return []
        g, colour = self.game, self.turn
        own, enemy = self.pieces[colour], self.pieces[other(colour)]
        empty = g.full & ~(own | enemy)
        moves = []
        for dc, offset, mask in g.steps[colour]:
            targets = g.shift(own & mask, offset)
            for capture, landing in ((False, empty), (True, enemy if dc else 0)):
                for bit in _bits(targets & landing):
                    source = g.shift(bit, -offset)
                    moves.append(Move(g.square_of_bit(source), g.square_of_bit(bit), capture))
        return moves

    def why_illegal(self, move: Move) -> str | None:
        """The rule ``move`` breaks in this position, in words, or None if it is legal."""
        g, colour = self.game, self.turn
        src, dst = move.from_square, move.to_square
        a, b = square_name(src), square_name(dst)
        if self.winner is not None:
            return f"the game is over: {COLOUR_NAMES[self.winner]} has won"
        for square in (src, dst):
            if not g.is_on_board(square):
                return f"{square_name(square)} is off this {g.rows}x{g.cols} board"
        mover, target = self.piece_at(src), self.piece_at(dst)
        if mover is None:
            return f"there is no piece on {a}"
        if mover != colour:
            return f"it is {COLOUR_NAMES[colour]}'s turn ({a} holds a {COLOUR_NAMES[mover]} piece)"
        ahead = (g.cell_of(src)[0] - g.cell_of(dst)[0]) * -g.forward[colour]
        across = abs(dst[0] - src[0])
        if ahead < 0 or (ahead == 0 and across):
            way = "backwards" if ahead < 0 else "sideways"
            return f"pawns move forward only ({a} to {b} is {way})"
        if ahead == 0:
            return f"{a} to {b} is no move"
        if ahead > 1 or across > 1:
            return f"{a} to {b} is {_count(max(ahead, across))} squares; a piece moves one square"
        if target == colour:
            return f"{a} to {b} is blocked by a {COLOUR_NAMES[colour]} piece on {b}"
        if target is not None and not across:
            return (f"straight captures are not allowed ({a} to {b} would take the "
                    f"{COLOUR_NAMES[target]} piece on {b})")
        if move.is_capture and target is None:
            return f"{move.notation} is not a capture: {b} is empty"
        return None

    def apply(self, move: Move | str) -> Verdict:
        """Play ``move`` (a :class:`Move` or its notation); raise IllegalMove naming the rule."""
        if isinstance(move, str):
            move = Move.from_notation(move)
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMove(reason)
        g, colour = self.game, self.turn
        src, dst = g.bit_of(move.from_square), g.bit_of(move.to_square)
        capture = bool(self.pieces[other(colour)] & dst)
        move = Move(move.from_square, move.to_square, capture)
        self._history.append((self.pieces[WHITE], self.pieces[BLACK], self.turn, self.winner))
        self.move_stack.append(move)
        self.pieces[colour] ^= src | dst
        self.pieces[other(colour)] &= ~dst
        self.turn = other(colour)
        self.winner = self._find_winner()
        return self._verdict(move, colour)

    def pop(self) -> Move:
        """Take back the last move (as python-chess's ``Board.pop``)."""
        if not self.move_stack:
            raise RefereeError("no move to take back")
        white, black, self.turn, self.winner = self._history.pop()
        self.pieces = {WHITE: white, BLACK: black}
        return self.move_stack.pop()

    undo = pop

    def _verdict(self, move: Move, colour: str) -> Verdict:
        # Score 1 for the winning move, so a game's verdict scores add up to ``scores``.
        won = self.winner == colour
        return Verdict(legal=True, score=int(won), move=move.notation, details={
            "player": colour, "capture": move.is_capture,
            "winner": self.winner, "game_over": self.winner is not None})

    # -- from two readings to a move

    def move_from_change(self, after: Grid) -> Move:
        """The move the next reading shows, legal or not; NotAMove when it shows no single move."""
        g = self.game
        grid = check_grid(after, g.rows, g.cols)
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                if value is not None:
                    _piece(value, g.name_of((r, c)))
        change = Change.between(self.cells(), grid)
        name = g.name_of
        if change.is_empty():
            raise NotAMove("nothing changed on the board")
        left, arrived, turned = change.removed, change.added, change.altered
        if len(left) > 1:
            raise NotAMove(f"{_count(len(left))} pieces moved ({_names(left, name)} left their "
                           "squares); a move moves one piece")
        if not left:
            if arrived:
                cell, colour = next(iter(arrived.items()))
                return _raise(f"a {COLOUR_NAMES[colour]} piece appeared at {name(cell)} but "
                              "none left a square")
            cell = next(iter(turned))
            return _raise(f"a piece changed colour at {name(cell)} without a capture")
        (src, colour), = left.items()
        if arrived and turned:
            return _raise(f"a piece changed colour at {_names(turned, name)} without a capture")
        landed = arrived or turned
        if not landed:
            return _raise(f"a {COLOUR_NAMES[colour]} piece left {name(src)} but arrived nowhere; "
                          "pieces leave the board only when captured")
        if len(landed) > 1:
            what = "pieces appeared at" if arrived else "pieces changed colour at"
            return _raise(f"one piece left {name(src)} but {_count(len(landed))} {what} "
                          f"{_names(landed, name)}")
        (dst, value), = landed.items()
        new = value if arrived else value[1]
        if new != colour:
            return _raise(f"a {COLOUR_NAMES[colour]} piece left {name(src)} but a "
                          f"{COLOUR_NAMES[new]} piece appeared at {name(dst)}")
        return Move(g.square_of(src), g.square_of(dst), bool(turned))

    def judge_change(self, after: Grid) -> Verdict:
        try:
            move = self.move_from_change(after)
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        reason = self.why_illegal(move)
        if reason is not None:
            return Verdict.illegal(reason, move=move.notation)
        verdict = self.apply(move)
        self.pop()
        return verdict

    def _apply_judged(self, verdict: Verdict) -> None:
        self.apply(Move.from_notation(verdict.move))

    def __repr__(self) -> str:
        rows = ["".join(v or "." for v in row) for row in self.cells()]
        return f"<BreakthroughState {self.turn} to move\n" + "\n".join(rows) + ">"


def _names(cells: Iterable[Cell], name) -> str:
    names = sorted(name(cell) for cell in cells)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _raise(message: str):
    raise NotAMove(message)


# -- perft: counting move paths, the standard cross-check of a move generator


def _count_moves(g: BreakthroughGame, own: int, enemy: int, colour: str) -> int:
    empty = g.full & ~(own | enemy)
    not_own = g.full & ~own
    (_, straight, _), (_, left, left_mask), (_, right, right_mask) = g.steps[colour]
    return ((g.shift(own, straight) & empty).bit_count()
            + (g.shift(own & left_mask, left) & not_own).bit_count()
            + (g.shift(own & right_mask, right) & not_own).bit_count())


def _perft(g: BreakthroughGame, own: int, enemy: int, colour: str, depth: int) -> int:
    # The player who just moved has won if a piece sits on its far row or nothing is left to us.
    if not own or enemy & g.goal[other(colour)]:
        return 0
    if depth == 1:
        return _count_moves(g, own, enemy, colour)
    empty = g.full & ~(own | enemy)
    nxt, total = other(colour), 0
    for dc, offset, mask in g.steps[colour]:
        targets = g.shift(own & mask, offset) & (empty | (enemy if dc else 0))
        while targets:
            to = targets & -targets
            targets ^= to
            moved = own ^ to ^ g.shift(to, -offset)
            total += _perft(g, enemy & ~to, moved, nxt, depth - 1)
    return total


def perft(state: BreakthroughState, depth: int) -> int:
    """The number of move sequences of length ``depth`` from ``state`` (finished games stop).

    >>> perft(BreakthroughGame().new_initial_state(), 1)
    22
    """
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    return _perft(state.game, state.pieces[state.turn], state.pieces[other(state.turn)],
                  state.turn, depth)


GAME_CLASS = BreakthroughGame
