"""Mixmath (mi×ma+h, later sold as Mathable): numbered tiles that solve little equations.

A tile X placed on the board is valid when, in at least one of the four directions, the
next two squares in that line hold A (adjacent) and B (next) with X = A op B: the line
reads X A B, so a tile never sits between its operands. Operands are order-free: X may be
A+B, A×B, |A−B| or max/min when that divides exactly. On a sign square only that sign's
solutions count. The four fixed centre numbers act as tiles.

A placement scores face value × premium (1, 2, 3) × the number of directions it solves;
the 0 scores nothing and a blank scores ``blank_score`` (0). A turn scores the sum of its
placements, +50 if the player began it with a full rack of 7 and emptied it.

>>> game = MixmathGame()
>>> state = game.new_initial_state(players=2)
>>> state.apply(Placement.parse("7F=3")).score      # 1 + 2 = 3, left of the 1 and the 2
3
>>> state.apply(Placement.parse("7E=4")).score      # on the + square: 3 + 1 = 4
4
>>> state.apply(EndTurn()).score, state.scores, state.current_player
(7, [7, 0], 1)

Several tiles seen at once are judged in the best order the rules allow:

>>> before = game.empty_cells()
>>> after = game.empty_cells(); after[6][4:6] = [4, 3]   # 7E=4 and 7F=3, one picture
>>> game.judge(before, after).move                       # the 3 must go first
'7F=3 7E=4'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.core import (Cell, Change, Game, Grid, IllegalMove, NotAMove, RefereeError, State,
                          Verdict, cell_name, check_grid, empty_grid, parse_cell)

# -- the board: plain, premium, sign and fixed centre squares

SIGNS = "+-x/"
SIGN_NAMES = {"+": "+", "-": "−", "x": "×", "/": "÷"}
DIRECTIONS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
"""Where a placed tile's two operands lie, seen from the tile."""
WHERE = {"up": "above", "down": "below", "left": "to its left", "right": "to its right"}

BLANK = "?"
"""A blank in a hand given to :meth:`MixmathState.legal_moves`."""

MAX_TILE = 99


@dataclass(frozen=True)
class Square:
    """One square of the layout: a premium (1, 2, 3), a sign, or a fixed centre number.

    >>> Square.from_char("x"), Square.from_char("3").premium, Square.from_char("2").fixed
    (Square(premium=1, sign='x', fixed=None), 3, None)
    """

    premium: int = 1
    sign: str | None = None
    fixed: int | None = None

    @classmethod
    def from_char(cls, char: str, centre: bool = False) -> Square:
        if char in SIGNS:
            return cls(sign=char)
        if char in "1234" and centre:
            return cls(fixed=int(char))
        if char in "23":
            return cls(premium=int(char))
        if char == ".":
            return cls()
        raise RefereeError(f"layout character {char!r} is not one of . 2 3 + - x / 1-4")


def parse_layout(rows: Sequence[str]) -> list[list[Square]]:
    """The layout strings as squares. A 1..4 is a fixed number only in the centre 2×2
    (elsewhere '2' and '3' are premiums, and '1'/'4' are an error).

    >>> squares = parse_layout(["3..", ".12", ".34"])
    Traceback (most recent call last):
    ...
    referee.core.RefereeError: the layout is 3×3; the fixed centre needs an even size
    >>> parse_layout(["2..3", ".12.", ".34.", "3..2"])[1][1]
    Square(premium=1, sign=None, fixed=1)
    """
    n_rows, n_cols = len(rows), len(rows[0])
    if n_rows % 2 or n_cols % 2:
        raise RefereeError(f"the layout is {n_rows}×{n_cols}; the fixed centre needs an even size")
    centre = {(n_rows // 2 - 1 + dr, n_cols // 2 - 1 + dc) for dr in (0, 1) for dc in (0, 1)}
    return [[Square.from_char(ch, (r, c) in centre) for c, ch in enumerate(row)]
            for r, row in enumerate(rows)]


# -- arithmetic: which lines a tile solves


def line_results(a: int, b: int, sign: str | None = None) -> dict[str, int]:
    """What the line A B can give, by sign (order-free; ÷ only when exact, never by 0).

    >>> line_results(8, 2)
    {'+': 10, '-': 6, 'x': 16, '/': 4}
    >>> line_results(3, 5, "/")
    {}
    """
    lo, hi = (a, b) if a <= b else (b, a)
    results = {"+": a + b, "-": hi - lo, "x": a * b}
    if lo != 0 and hi % lo == 0:
        results["/"] = hi // lo
    if sign is not None:
        return {sign: results[sign]} if sign in results else {}
    return results


def solves(x: int, a: int, b: int, sign: str | None = None) -> bool:
    """Whether ``x`` = A op B for some op (only ``sign`` when on a sign square).

    >>> solves(4, 16, 12), solves(4, 16, 12, "+"), solves(0, 3, 3), solves(0, 0, 5, "/")
    (True, False, True, False)
    """
    if sign is None:
        lo, hi = (a, b) if a <= b else (b, a)
        return (x == a + b or x == hi - lo or x == a * b
                or (lo != 0 and hi % lo == 0 and x == hi // lo))
    return line_results(a, b, sign).get(sign) == x


def _or_list(values: Sequence[Any]) -> str:
    """'1, 2 or 3'."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# -- moves, named in the game's words


@dataclass(frozen=True)
class Placement:
    """A tile of ``value`` put on ``cell``; a blank carries the value its player declared.

    >>> Placement.parse("7F=3"), str(Placement((6, 5), 12, blank=True))
    (Placement(cell=(6, 5), value=3, blank=False), '7F=?12')
    """

    cell: Cell
    value: int
    blank: bool = False

    def __str__(self) -> str:
        return f"{cell_name(self.cell)}={'?' if self.blank else ''}{self.value}"

    @classmethod
    def parse(cls, text: str) -> Placement:
        name, sep, value = text.strip().partition("=")
        blank = value.startswith("?")
        value = value.removeprefix("?")
        if not sep or not value.isdigit():
            raise RefereeError(f"{text!r} is not a placement like '7F=3' (or '7F=?3' for a blank)")
        return cls(parse_cell(name), int(value), blank)


@dataclass(frozen=True)
class BonusDraw:
    """Draw one tile from the pouch right after covering a sign square (optional)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True)
class EndTurn:
    """Stop placing: the turn is scored and the rack refilled. With nothing placed, a pass."""

    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True)
class Pass:
    """End the turn without placing anything."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Exchange:
    """Swap ``n`` tiles of the rack with the pouch instead of playing; no score."""

    n: int

    def __str__(self) -> str:
        return f"exchange {self.n}"


@dataclass(frozen=True)
class Withdraw:
    """An invalid placement was challenged: the tile goes back and the turn ends, keeping
    the points of the turn's earlier placements."""

    placement: Placement

    def __str__(self) -> str:
        return f"{self.placement} withdrawn"


Move = Placement | BonusDraw | EndTurn | Pass | Exchange | Withdraw


@dataclass(frozen=True)
class Turn:
    """One finished turn in the record: who, what (in notation), how many points."""

    player: int
    moves: tuple[str, ...]
    score: int


# -- the game: fixed facts from games/mixmath.json


class MixmathGame(Game):
    """Board layout, tile set and scoring constants of Mixmath.

    >>> game = MixmathGame()
    >>> sum(game.tiles.values()), game.blanks, game.square((6, 6)).fixed
    (106, 2, 1)
    """

    name = "mixmath"

    def __init__(self, definition: dict[str, Any] | None = None):
        super().__init__(definition)
        d = self.definition
        self.squares = parse_layout(d["layout"])
        if (len(self.squares), len(self.squares[0])) != (self.rows, self.cols):
            raise RefereeError(f"the layout is not {self.rows}×{self.cols} as the definition says")
        self.tiles: dict[int, int] = {int(v): n for v, n in d["tiles"].items()}
        self.blanks: int = d.get("blanks", 0)
        self.blank_score: int = d.get("blank_score", 0)
        self.rack_size: int = d.get("rack_size", 7)
        self.full_rack_bonus: int = d.get("full_rack_bonus", 50)
        self.bonus_draws: bool = d.get("sign_square_bonus_draw", True)
        self.min_players: int = d.get("players", {}).get("min", 2)
        self.max_players: int = d.get("players", {}).get("max", 4)
        self.fixed: dict[Cell, int] = {(r, c): sq.fixed for r, row in enumerate(self.squares)
                                       for c, sq in enumerate(row) if sq.fixed is not None}

    @property
    def tile_count(self) -> int:
        """All tiles, blanks included (108)."""
        return sum(self.tiles.values()) + self.blanks

    def square(self, cell: Cell) -> Square:
        return self.squares[cell[0]][cell[1]]

    def is_on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols

    def empty_cells(self) -> Grid:
        """The empty board as vision reads it (the centre numbers read as None)."""
        return empty_grid(self.rows, self.cols)

    def new_initial_state(self, players: int = 2, first_player: int = 0,
                          **options: Any) -> MixmathState:
        """Every rack full, the rest of the tiles in the pouch; ``first_player`` drew highest."""
        return MixmathState(self, players, first_player)

    def state_from_cells(self, cells: Grid, players: int = 2, player: int = 0,
                         blanks: Iterable[Cell | str] = ()) -> MixmathState:
        """A state with ``cells`` on the board and no history: racks assumed full, the pouch
        holding the rest, it is ``player``'s turn and the turn has just begun."""
        state = MixmathState(self, players, player)
        blank_cells = {parse_cell(b) if isinstance(b, str) else tuple(b) for b in blanks}
        board, problems = self._read(cells, "before picture")
        problems += self._count_problems(board, blank_cells)
        if problems:
            raise NotAMove("the picture before the move: " + "; ".join(problems))
        for (r, c), value in board.items():
            state.board[r][c] = value
        state.blank_cells = {cell for cell in blank_cells if cell in board}
        state.pouch = max(0, self.tile_count - len(board) - self.rack_size * players)
        return state

    def judge(self, before: Grid, after: Grid, **context: Any) -> Verdict:
        """One change judged with no game history (``boardsight check``).

        ``context`` may hold ``players`` and ``player`` (whose turn), ``blanks`` (cell names
        of blanks, their read value being the declared one), and for the 50-point bonus
        either ``rack_emptied`` (bool: the player began with a full rack and emptied it) or
        ``bonus_draws`` (tiles drawn on sign squares during this change). With neither, the
        bonus is given only when the board proves the rack was emptied: at least
        ``rack_size`` (7) tiles appeared and every sign square among them must have given a
        bonus draw to supply them (n − 7 = sign squares covered; e.g. 7 tiles and none on a
        sign square). Otherwise the player may have kept drawn tiles, and must say so.
        """
        try:
            state = self.state_from_cells(before, context.get("players", 2),
                                          context.get("player", 0), context.get("blanks", ()))
        except NotAMove as exc:
            return Verdict.illegal(str(exc))
        if "rack_emptied" not in context and "bonus_draws" not in context:
            added = [cell for cell in _new_tiles(state.cells(), after) if cell not in self.fixed]
            low, high = state.bonus_draw_range(len(added), sum(
                self.square(cell).sign is not None for cell in added))
            proven = len(added) >= self.rack_size and low == high
            context = {**context, "rack_emptied": proven}
        verdict = state.judge_change(after, **context)
        if verdict.legal and verdict.details["full_rack_bonus"]:
            # Judged alone, the change is the whole turn: its score includes the bonus.
            verdict = replace(verdict, score=verdict.score + verdict.details["full_rack_bonus"])
        return verdict

    # -- reading a picture's cells

    def _read(self, cells: Any, what: str) -> tuple[dict[Cell, int], list[str]]:
        """The tiles a reading shows (centre squares excluded) and what is wrong with it."""
        grid = check_grid(cells, self.rows, self.cols, what)
        tiles, problems = {}, []
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                cell = (r, c)
                fixed = self.fixed.get(cell)
                if value is None or (fixed is not None and value == fixed):
                    continue  # the printed centre number itself is no tile
                if fixed is not None:
                    problems.append(f"a tile reads {value!r} at {cell_name(cell)}, on the fixed "
                                    f"centre number {fixed} — no tile goes there; "
                                    f"check the photo")
                elif not isinstance(value, int) or isinstance(value, bool):
                    problems.append(f"the tile at {cell_name(cell)} reads {value!r}, not a number "
                                    f"0..{MAX_TILE}; check the photo")
                elif not 0 <= value <= MAX_TILE:
                    problems.append(f"the tile at {cell_name(cell)} reads {value}; tiles are "
                                    f"0..{MAX_TILE} — check the photo")
                else:
                    tiles[cell] = value
        return tiles, problems

    def _count_problems(self, tiles: dict[Cell, int], blank_cells: set[Cell]) -> list[str]:
        """Values the set has none of, or fewer copies of than the board shows."""
        problems = []
        by_value: dict[int, list[Cell]] = {}
        for cell, value in sorted(tiles.items()):
            if cell not in blank_cells:
                by_value.setdefault(value, []).append(cell)
        for value, cells in by_value.items():
            held = self.tiles.get(value, 0)
            where = ", ".join(cell_name(c) for c in cells)
            if held == 0:
                problems.append(f"the tile at {where} reads {value}; the set has no {value} — "
                                f"check the photo (or name it as a blank)")
            elif len(cells) > held:
                problems.append(f"the board shows {len(cells)} tiles of {value} ({where}); the set "
                                f"has {held} — check the photo (or name the blanks)")
        n_blanks = len(blank_cells & tiles.keys())
        if n_blanks > self.blanks:
            problems.append(f"{n_blanks} blanks named; the set has {self.blanks}")
        return problems


def _new_tiles(before: Grid, after: Any) -> dict[Cell, Any]:
    """Cells empty before and filled after (a cheap look, before any validation)."""
    try:
        return Change.between(before, after).added
    except (NotAMove, TypeError):
        return {}


# -- the state: a game in progress


class MixmathState(State):
    """A Mixmath game in progress.

    The camera cannot see racks, so only their *sizes* are tracked (and the pouch's); tiles
    not on the board are "unseen". The board keeps the centre numbers as tiles, while
    :meth:`cells` shows them as None, the way vision reads them.
    """

    def __init__(self, game: MixmathGame, players: int = 2, first_player: int = 0):
        if not game.min_players <= players <= game.max_players:
            raise RefereeError(f"Mixmath is for {game.min_players}-{game.max_players} players, "
                               f"not {players}")
        if not 0 <= first_player < players:
            raise RefereeError(f"player {first_player} does not exist in a {players}-player game")
        self.game = game
        self.num_players = players
        self.board: list[list[int | None]] = game.empty_cells()
        for (r, c), number in game.fixed.items():
            self.board[r][c] = number
        self.blank_cells: set[Cell] = set()
        self._scores = [0] * players
        self._current = first_player
        self.racks = [game.rack_size] * players
        self.pouch = game.tile_count - game.rack_size * players
        self.turn: list[tuple[Placement, int]] = []   # placements of the turn in progress
        self.turn_started_full = True
        self.bonus_draw_available = False
        self.consecutive_passes = 0
        self.went_out: int | None = None             # the player who emptied the last rack
        self.penalties: list[int] | None = None
        self.record: list[Turn] = []

    # -- what the table shows

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    @property
    def turn_score(self) -> int:
        """Points of the turn in progress so far (without the full-rack bonus)."""
        return sum(score for _, score in self.turn)

    def cells(self) -> Grid:
        grid = [list(row) for row in self.board]
        for r, c in self.game.fixed:
            grid[r][c] = None
        return grid

    def tile(self, cell: Cell) -> int | None:
        """What an equation sees on ``cell``: a tile, a centre number, or None."""
        r, c = cell
        if 0 <= r < self.game.rows and 0 <= c < self.game.cols:
            return self.board[r][c]
        return None

    def unseen(self) -> Counter[int]:
        """Numbered tiles not on the board (in the pouch or on some rack)."""
        left = Counter(self.game.tiles)
        for r, row in enumerate(self.board):
            for c, value in enumerate(row):
                if value is not None and (r, c) not in self.game.fixed \
                        and (r, c) not in self.blank_cells:
                    left[value] -= 1
        return +left

    def is_terminal(self) -> bool:
        """The pouch is empty and a player emptied the rack, or every player passed in a row."""
        return self.went_out is not None or self.consecutive_passes >= self.num_players

    # -- the rules of one placement

    def directions_solved(self, cell: Cell, value: int) -> list[str]:
        """The directions in which ``value`` on ``cell`` solves its line X A B."""
        sign = self.game.square(cell).sign
        r, c = cell
        solved = []
        for name, (dr, dc) in DIRECTIONS.items():
            a = self.tile((r + dr, c + dc))
            b = self.tile((r + 2 * dr, c + 2 * dc)) if a is not None else None
            if b is not None and solves(value, a, b, sign):
                solved.append(name)
        return solved

    def placement_score(self, placement: Placement, directions: int) -> int:
        """Face value × premium × directions; a blank scores ``blank_score``."""
        if placement.blank:
            return self.game.blank_score
        return placement.value * self.game.square(placement.cell).premium * directions

    def why_invalid(self, placement: Placement) -> str | None:
        """Why ``placement`` breaks a rule right now, or None when it is legal."""
        cell, value, game = placement.cell, placement.value, self.game
        where = cell_name(cell)
        if self.is_terminal():
            return "the game is over"
        if not game.is_on_board(cell):
            return f"{where} is off the board"
        if cell in game.fixed:
            return f"{where} holds the fixed centre number {game.fixed[cell]}; no tile goes there"
        if self.tile(cell) is not None:
            return f"{where} already holds {self.tile(cell)}"
        if not 0 <= value <= MAX_TILE:
            return f"tiles are 0..{MAX_TILE}, not {value}"
        if self.racks[self._current] == 0:
            return "the rack is empty"
        if placement.blank:
            if len(self.blank_cells) >= game.blanks:
                return f"all {game.blanks} blanks are already on the board"
        elif value not in game.tiles:
            return f"the set has no {value} tile"
        elif self.unseen()[value] == 0:
            return f"all {game.tiles[value]} tiles of {value} are already on the board"
        if not self.directions_solved(cell, value):
            return f"{placement} solves no line: {self.explain(cell, value)}"
        return None

    def explain(self, cell: Cell, value: int) -> str:
        """What the lines beside ``cell`` can give, for a message about ``value``.

        >>> MixmathState(MixmathGame()).explain((6, 5), 9)
        '1 and 2 to its right give 1, 2 or 3, not 9'
        >>> MixmathState(MixmathGame()).explain((6, 3), 9)
        'there are no two tiles in a line beside it'
        """
        sign = self.game.square(cell).sign
        r, c = cell
        parts = []
        for name, (dr, dc) in DIRECTIONS.items():
            a, b = self.tile((r + dr, c + dc)), self.tile((r + 2 * dr, c + 2 * dc))
            if a is None or b is None:
                continue
            results = sorted(set(line_results(a, b, sign).values()))
            gives = _or_list(results) if results else "nothing exact"
            parts.append(f"{a} and {b} {WHERE[name]} give {gives}")
        if not parts:
            return "there are no two tiles in a line beside it"
        only = f"on the {SIGN_NAMES[sign]} square only a {SIGN_NAMES[sign]} counts; " \
            if sign else ""
        return only + "; ".join(parts) + f", not {value}"

    # -- moves

    def legal_moves(self, hand: Iterable[int | str] | None = None) -> list[Move]:
        """Valid placements of the values in ``hand`` (``BLANK`` for a blank, which may take
        any value its lines give), or of every numbered value still unseen when ``hand`` is
        None; then the turn-ending moves.

        >>> state = MixmathGame().new_initial_state()
        >>> max(m.value for m in state.legal_moves() if isinstance(m, Placement))
        12
        """
        if self.is_terminal():
            return []
        game = self.game
        hand = list(hand) if hand is not None else None
        unseen = self.unseen()
        values = set(unseen) if hand is None else {v for v in hand if v != BLANK} & set(unseen)
        blank = hand is not None and BLANK in hand and len(self.blank_cells) < game.blanks
        moves: list[Move] = []
        if self.racks[self._current] > 0:
            for cell, reachable in self._open_cells():
                moves += [Placement(cell, v) for v in sorted(reachable & values)]
                if blank:
                    moves += [Placement(cell, v, blank=True) for v in sorted(reachable)
                              if 0 <= v <= MAX_TILE]
        if self.turn:
            moves.append(EndTurn())
            if self.bonus_draw_available:
                moves.append(BonusDraw())
        else:
            moves.append(Pass())
            moves += [Exchange(n) for n in range(1, min(self.racks[self._current], self.pouch) + 1)]
        return moves

    def _open_cells(self) -> Iterable[tuple[Cell, set[int]]]:
        """Empty squares with at least one full line X A B, and the values they can take."""
        for r, row in enumerate(self.board):
            for c, value in enumerate(row):
                if value is not None:
                    continue
                sign = self.game.squares[r][c].sign
                reachable: set[int] = set()
                for dr, dc in DIRECTIONS.values():
                    a, b = self.tile((r + dr, c + dc)), self.tile((r + 2 * dr, c + 2 * dc))
                    if a is not None and b is not None:
                        reachable.update(line_results(a, b, sign).values())
                if reachable:
                    yield (r, c), reachable

    def apply(self, move: Move) -> Verdict:
        """Play ``move``; raise :class:`IllegalMove` (changing nothing) if the rules forbid it.

        The verdict's score is the placement's points for a :class:`Placement`, the whole
        turn's points for the moves that end a turn, 0 otherwise.
        """
        if isinstance(move, Placement):
            return self._place(move)
        if self.is_terminal():
            raise IllegalMove("the game is over")
        if isinstance(move, BonusDraw):
            return self._bonus_draw()
        if isinstance(move, EndTurn):
            return self._end_turn(str(move)) if self.turn else self.apply(Pass())
        if isinstance(move, Pass):
            if self.turn:
                raise IllegalMove("tiles were placed this turn: end the turn, do not pass")
            self.consecutive_passes += 1
            return self._end_turn(str(move))
        if isinstance(move, Exchange):
            return self._exchange(move)
        if isinstance(move, Withdraw):
            if self.why_invalid(move.placement) is None:
                raise IllegalMove(f"{move.placement} is a correct placement; the challenge fails")
            return self._end_turn(str(move))
        raise IllegalMove(f"{move!r} is not a Mixmath move")

    def _place(self, placement: Placement) -> Verdict:
        reason = self.why_invalid(placement)
        if reason is not None:
            raise IllegalMove(reason)
        directions = self.directions_solved(placement.cell, placement.value)
        score = self.placement_score(placement, len(directions))
        r, c = placement.cell
        self.board[r][c] = placement.value
        if placement.blank:
            self.blank_cells.add(placement.cell)
        self.racks[self._current] -= 1
        self.turn.append((placement, score))
        self.bonus_draw_available = (self.game.bonus_draws and self.pouch > 0
                                     and self.game.square(placement.cell).sign is not None)
        return Verdict(True, score, str(placement), details={"directions": directions})

    def _bonus_draw(self) -> Verdict:
        if not self.bonus_draw_available:
            raise IllegalMove("a bonus tile is drawn only right after covering a sign square, "
                              "once, while the pouch has tiles")
        self.pouch -= 1
        self.racks[self._current] += 1
        self.bonus_draw_available = False
        return Verdict(True, 0, "draw")

    def _exchange(self, move: Exchange) -> Verdict:
        if self.turn:
            raise IllegalMove("tiles were placed this turn: exchanging replaces playing")
        if not 1 <= move.n <= self.racks[self._current]:
            raise IllegalMove(f"cannot exchange {move.n} tiles from a rack of "
                              f"{self.racks[self._current]}")
        if move.n > self.pouch:
            raise IllegalMove(f"the pouch holds only {self.pouch} tiles")
        # Decision: an exchange is not a pass; only passes in a row end the game.
        self.consecutive_passes = 0
        return self._end_turn(str(move))

    def _end_turn(self, how: str) -> Verdict:
        """Score the turn, refill the rack, note the end of the game, hand over."""
        player, game = self._current, self.game
        points = self.turn_score
        bonus = game.full_rack_bonus if (self.turn and self.turn_started_full
                                         and self.racks[player] == 0) else 0
        if self.turn:
            self.consecutive_passes = 0
        self._scores[player] += points + bonus
        draw = min(self.pouch, max(0, game.rack_size - self.racks[player]))
        self.racks[player] += draw
        self.pouch -= draw
        if self.turn and self.pouch == 0 and self.racks[player] == 0:
            self.went_out = player
        moves = tuple(str(p) for p, _ in self.turn) + ((how,) if how != "end" else ())
        self.record.append(Turn(player, moves, points + bonus))
        self.turn = []
        self.bonus_draw_available = False
        if not self.is_terminal():
            self._current = (player + 1) % self.num_players
        self.turn_started_full = self.racks[self._current] == game.rack_size
        return Verdict(True, points + bonus, " ".join(moves),
                       details={"full_rack_bonus": bonus, "game_over": self.is_terminal()})

    def finish(self, racks: Sequence[Sequence[int | str]]) -> list[int]:
        """Apply the end-of-game penalties: each player loses the face value of the tiles
        left on the rack (``racks[i]`` as told by player i; a blank counts 0). Returns the
        final scores."""
        if not self.is_terminal():
            raise IllegalMove("the game is not over: the pouch still has tiles and not everyone "
                              "passed in a row")
        if self.penalties is not None:
            raise IllegalMove("the rack penalties were already applied")
        if len(racks) != self.num_players:
            raise IllegalMove(f"{len(racks)} racks told for {self.num_players} players")
        penalties = []
        for player, rack in enumerate(racks):
            if len(rack) != self.racks[player]:
                raise IllegalMove(f"player {player + 1} should have {self.racks[player]} tiles "
                                  f"left, {len(rack)} values were told")
            penalties.append(sum(v for v in rack if v != BLANK))
        self.penalties = penalties
        self._scores = [s - p for s, p in zip(self._scores, penalties)]
        return self.scores

    # -- from the next picture to placements

    def judge_change(self, after: Grid, **context: Any) -> Verdict:
        """The new tiles of the next picture as placements of the current turn.

        The tiles are put in the order in which every placement is valid that scores most.
        The score is their total; ``details["full_rack_bonus"]`` says whether they earn the
        bonus, which the end of the turn adds: it is earned when the turn began with a full
        rack that these placements empty: the tracked rack size plus the bonus draws (tiles
        drawn on sign squares meanwhile: ``context["bonus_draws"]``, else the fewest that
        supply the new tiles) minus the new tiles is 0; or the player says so with
        ``context["rack_emptied"]``. ``context["blanks"]``: cell names of new blanks.
        Misread photos (tiles removed or changed, impossible values, too many copies)
        give an illegal verdict naming the cells to check.
        """
        game = self.game
        try:
            blanks = {parse_cell(b) if isinstance(b, str) else tuple(b)
                      for b in context.get("blanks", ())}
            tiles, problems = game._read(after, "picture")
            change = Change.between(self.cells(), [
                [tiles.get((r, c)) for c in range(game.cols)] for r in range(game.rows)])
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        problems += [f"a tile was removed at {cell_name(cell)} — tiles are never taken back; "
                     f"check the photo" for cell in sorted(change.removed)]
        problems += [f"the tile at {cell_name(cell)} changed from {was} to {now} — placed tiles "
                     f"never change; check the photo"
                     for cell, (was, now) in sorted(change.altered.items())]
        problems += game._count_problems(tiles, blanks | self.blank_cells)
        if problems:
            return Verdict.illegal("; ".join(problems))
        if change.is_empty():
            return Verdict.illegal("nothing changed between the two pictures")
        if self.is_terminal():
            return Verdict.illegal("the game is over; no more tiles can be placed")
        placements = [Placement(cell, value, cell in blanks)
                      for cell, value in sorted(change.added.items())]
        return self._judge_placements(placements, context)

    def _judge_placements(self, placements: list[Placement], context: dict) -> Verdict:
        game, n = self.game, len(placements)
        rack = self.racks[self._current]
        on_signs = sum(game.square(p.cell).sign is not None for p in placements)
        low, high = self.bonus_draw_range(n, on_signs)
        if low > high:
            return Verdict.illegal(
                f"{n} new tiles, but the player holds {rack} (and may draw at most {high} "
                f"on sign squares) — check the photo")

        found = best_order(self, placements)
        order = [placements[i] for i in found.order]
        record = [{"cell": cell_name(p.cell), "value": p.value, "blank": p.blank, "score": s,
                   "directions": list(d)}
                  for p, s, d in zip(order, found.scores, found.directions)]
        details: dict[str, Any] = {"order": [str(p) for p in order], "placements": record,
                                   "exact": found.exact}
        if found.unplaceable:
            stuck = [placements[i] for i in found.unplaceable]
            board = self._with(order)
            why = "; ".join(f"{p}: {board.explain(p.cell, p.value)}" for p in stuck)
            return Verdict.illegal(
                f"no legal order places {', '.join(str(p) for p in stuck)} — {why}",
                move=" ".join(str(p) for p in order + stuck),
                partial_score=found.total, unplaceable=[str(p) for p in stuck], **details)

        draws = self._bonus_draws(n, low, high, context)
        if isinstance(draws, str):
            return Verdict.illegal(draws, move=" ".join(details["order"]), **details)
        emptied = rack + draws == n
        # The bonus belongs to the turn: the end of the turn adds it (see _end_turn); the
        # verdict only says it is earned, so a turn's verdicts never count it twice.
        bonus = game.full_rack_bonus if emptied and self.turn_started_full else 0
        details.update(full_rack_bonus=bonus, rack_emptied=emptied, bonus_draws=draws)
        return Verdict(True, found.total, " ".join(details["order"]), details=details)

    def bonus_draw_range(self, n: int, on_signs: int) -> tuple[int, int]:
        """The fewest and the most bonus draws with which the current player can have put
        down ``n`` tiles covering ``on_signs`` sign squares (fewest > most: impossible)."""
        rack = self.racks[self._current]
        most = min(on_signs, self.pouch) if self.game.bonus_draws else 0
        return max(0, n - rack), most

    def _bonus_draws(self, n: int, low: int, high: int, context: dict) -> int | str:
        """The bonus draws made while placing ``n`` tiles: as told in ``context``, else the
        fewest possible; a message when what was told cannot be."""
        rack = self.racks[self._current]
        if "bonus_draws" in context:
            draws = int(context["bonus_draws"])
        elif "rack_emptied" in context:
            if context["rack_emptied"]:
                draws = n - rack
            else:                       # tiles left: one draw more than needed, if any
                draws = low if rack + low > n else low + 1
        else:
            draws = low
        if low <= draws <= high:
            return draws
        left = "empty" if rack + draws == n else f"holding {rack + draws - n}"
        return (f"{n} tiles placed from a rack of {rack} with {draws} bonus draws would leave it "
                f"{left}, which cannot be ({high} bonus draws at most from the sign squares "
                f"covered) — check what the player said")

    def apply_change(self, after: Grid, **context: Any) -> Verdict:
        """Judge the next picture (see :meth:`judge_change`) and play it when legal."""
        verdict = self.judge_change(after, **context)
        if verdict.legal:
            self._apply_judged(verdict)
        return verdict

    def _with(self, placements: Sequence[Placement]) -> MixmathState:
        """A scratch copy of the board with ``placements`` on it (no rules checked)."""
        scratch = MixmathState.__new__(MixmathState)
        scratch.game = self.game
        scratch.board = [list(row) for row in self.board]
        for p in placements:
            scratch.board[p.cell[0]][p.cell[1]] = p.value
        return scratch

    def _apply_judged(self, verdict: Verdict) -> None:
        """Place the judged tiles in their order, with the bonus draws they imply."""
        draws = verdict.details["bonus_draws"]
        self.racks[self._current] += draws
        self.pouch -= draws
        placements = [Placement.parse(text) for text in verdict.details["order"]]
        for placement in placements:
            self._place(placement)
        # The draws the change needed are taken on its first sign squares; the last tile's
        # draw stays open (the player may still take it) only when some sign square is unused.
        on_signs = sum(self.game.square(p.cell).sign is not None for p in placements)
        if draws >= on_signs:
            self.bonus_draw_available = False


# -- several new tiles at once: the best order


@dataclass(frozen=True)
class Ordering:
    """The result of :func:`best_order`: indices into the placements, in play order."""

    order: tuple[int, ...]
    scores: tuple[int, ...]
    directions: tuple[tuple[str, ...], ...]
    unplaceable: tuple[int, ...] = ()
    exact: bool = True
    total: int = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "total", sum(self.scores))


EXACT_SEARCH_STATES = 100_000
"""Beyond this many reachable subsets the order search falls back to a greedy order."""


def best_order(state: MixmathState, placements: Sequence[Placement]) -> Ordering:
    """The order of ``placements`` in which each is valid when placed, scoring most.

    Whether a tile is valid, and its score, depend only on which of the *other new* tiles
    already lie in its four lines (at most 8 squares), and placing a tile can only complete
    lines, never break one. So the tiles that can be placed at all are found greedily (any
    valid tile, repeat), and the best order by a search over subsets of placed tiles
    (2^n × n steps at worst, only reachable subsets, tiles that do not touch each other's
    lines searched apart) instead of n! orders.

    >>> state = MixmathGame().new_initial_state()
    >>> tiles = [Placement.parse(t) for t in ("7E=4", "7F=3")]
    >>> found = best_order(state, tiles)
    >>> found.order, found.scores, found.unplaceable
    ((1, 0), (3, 4), ())
    """
    search = _OrderSearch(state, placements)
    placeable = search.closure()
    unplaceable = tuple(i for i in range(len(placements)) if not placeable >> i & 1)
    order: list[int] = []
    exact = True
    for component in search.components(placeable):
        part, part_exact = search.best(component)
        order += part
        exact &= part_exact
    scores, directions, placed = [], [], 0
    for i in order:
        score, solved = search.evaluate(i, placed)
        scores.append(score)
        directions.append(solved)
        placed |= 1 << i
    return Ordering(tuple(order), tuple(scores), tuple(directions), unplaceable, exact)


class _OrderSearch:
    """Validity and score of new tile i given the set (a bitmask) of new tiles placed."""

    def __init__(self, state: MixmathState, placements: Sequence[Placement]):
        self.state, self.placements = state, placements
        index = {p.cell: i for i, p in enumerate(placements)}
        # Per tile, per direction: each operand is ("board", value) or ("new", j).
        self.lines: list[list[tuple[str, tuple, tuple]]] = []
        self.depends = []       # bitmask of the new tiles in a tile's lines
        for p in placements:
            r, c = p.cell
            lines, deps = [], 0
            for name, (dr, dc) in DIRECTIONS.items():
                ops = []
                for k in (1, 2):
                    cell = (r + k * dr, c + k * dc)
                    if cell in index:
                        ops.append(("new", index[cell]))
                        deps |= 1 << index[cell]
                    else:
                        ops.append(("board", state.tile(cell)))
                if all(kind == "new" or v is not None for kind, v in ops):
                    lines.append((name, ops[0], ops[1]))
            self.lines.append(lines)
            self.depends.append(deps)
        self.memo: dict[tuple[int, int], tuple[int, tuple[str, ...]] | None] = {}

    def _operand(self, op: tuple, placed: int) -> int | None:
        kind, v = op
        if kind == "board":
            return v
        return self.placements[v].value if placed >> v & 1 else None

    def evaluate(self, i: int, placed: int) -> tuple[int, tuple[str, ...]] | None:
        """(score, directions) of placing tile i after the tiles in ``placed``; None if invalid."""
        key = (i, placed & self.depends[i])
        if key in self.memo:
            return self.memo[key]
        p = self.placements[i]
        sign = self.state.game.square(p.cell).sign
        solved = []
        for name, op_a, op_b in self.lines[i]:
            a, b = self._operand(op_a, placed), self._operand(op_b, placed)
            if a is not None and b is not None and solves(p.value, a, b, sign):
                solved.append(name)
        result = (self.state.placement_score(p, len(solved)), tuple(solved)) if solved else None
        self.memo[key] = result
        return result

    def closure(self) -> int:
        """Every tile that some order can place (placing tiles never invalidates another)."""
        placed, grew = 0, True
        while grew:
            grew = False
            for i in range(len(self.placements)):
                if not placed >> i & 1 and self.evaluate(i, placed) is not None:
                    placed |= 1 << i
                    grew = True
        return placed

    def components(self, tiles: int) -> list[list[int]]:
        """Groups of tiles whose lines do not reach into another group's."""
        members = [i for i in range(len(self.placements)) if tiles >> i & 1]
        group = {i: i for i in members}

        def root(i: int) -> int:
            while group[i] != i:
                i = group[i]
            return i

        for i in members:
            for j in members:
                if self.depends[i] >> j & 1:
                    group[root(i)] = root(j)
        out: dict[int, list[int]] = {}
        for i in members:
            out.setdefault(root(i), []).append(i)
        return list(out.values())

    def best(self, tiles: list[int]) -> tuple[list[int], bool]:
        """The highest-scoring valid order of ``tiles`` (all placeable), and whether exact."""
        best: dict[int, tuple[int, int, int]] = {0: (0, -1, -1)}   # mask -> total, prev, tile
        layer = [0]
        for _ in tiles:
            grown: dict[int, tuple[int, int, int]] = {}
            for mask in layer:
                total = best[mask][0]
                for i in tiles:
                    if mask >> i & 1:
                        continue
                    found = self.evaluate(i, mask)
                    if found is None:
                        continue
                    nxt = mask | 1 << i
                    if nxt not in grown or total + found[0] > grown[nxt][0]:
                        grown[nxt] = (total + found[0], mask, i)
            best.update(grown)
            layer = list(grown)
            if len(best) > EXACT_SEARCH_STATES:
                return self.greedy(tiles), False
        mask, order = sum(1 << i for i in tiles), []
        while mask:
            _, mask, i = best[mask]
            order.append(i)
        return order[::-1], True

    def greedy(self, tiles: list[int]) -> list[int]:
        """A good order when exact search is too big: place first the valid tile that loses
        least by not waiting (its score now against its score with all others placed)."""
        everything = sum(1 << i for i in tiles)
        ceiling = {i: self.evaluate(i, everything & ~(1 << i))[0] for i in tiles}
        placed, order, left = 0, [], list(tiles)
        while left:
            valid = [(ceiling[i] - found[0], i) for i in left
                     if (found := self.evaluate(i, placed)) is not None]
            _, i = min(valid)
            order.append(i)
            left.remove(i)
            placed |= 1 << i
        return order


GAME_CLASS = MixmathGame
