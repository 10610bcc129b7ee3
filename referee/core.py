"""What every game's referee shares: grids, cell names, changes, verdicts, errors.

The referee sees the table as vision does: a grid of cell values, row 0 at the top as the
board is oriented, ``None`` for an empty cell. It turns the difference between two such
grids into a move of the game, or into a reason a person can act on.

Every game follows one shape (after OpenSpiel's Game/State), so the table, the web page and
the tests treat the four games alike::

    game = referee.load("mixmath")            # a Game: fixed facts, from games/mixmath.json
    state = game.new_initial_state(players=2)
    verdict = state.judge_change(after)       # the next picture's cells -> Verdict, no mutation
    verdict = state.apply_change(after)       # the same, and plays it when it is legal
    state.legal_moves(hand)                   # iterable of the game's Move objects
    state.apply(move); state.is_terminal(); state.scores; state.cells()
    game.judge(before, after)                 # one change judged with no game history
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

Cell = tuple[int, int]
"""(row, col), both from 0; row 0 is the top row as the board is oriented."""

Value = int | str
"""What lies on a cell: a Mixmath number, a Calculissimo token, a peg colour, "w"/"b"."""

Grid = list[list[Value | None]]
"""Row-major cell values, ``None`` for empty: the ``cells`` of ``boardsight read``."""

GAMES = ("mixmath", "calculissimo", "mastermind", "breakthrough")


class RefereeError(ValueError):
    """Base of the referee's errors; the message is meant for the players."""


class NotAMove(RefereeError):
    """The change between two pictures is not a move of this game at all.

    Often a misread photo: the message names the cells involved so a person can check them,
    e.g. "a tile was removed at 8H - tiles are never taken back; check the photo".
    """


class IllegalMove(RefereeError):
    """A well-formed move that the rules forbid; the message says which rule."""


def load_definition(game: str) -> dict[str, Any]:
    """The game definition (board, pieces, scoring tables) from ``referee/games/GAME.json``.

    >>> load_definition("mixmath")["rows"]
    14
    """
    if game not in GAMES:
        raise RefereeError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    text = resources.files("referee").joinpath("games", f"{game}.json").read_text("utf-8")
    return json.loads(text)


# -- cell names: row number from the top, then column letter ("7F"), as Mixmath players write

COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cell_name(cell: Cell) -> str:
    """Row number (1 = top) then column letter, the way the Mixmath score sheets write it.

    >>> cell_name((6, 5))
    '7F'
    """
    row, col = cell
    return f"{row + 1}{COLUMN_LETTERS[col]}"


def parse_cell(name: str) -> Cell:
    """Inverse of :func:`cell_name`.

    >>> parse_cell("7F")
    (6, 5)
    >>> parse_cell("14n")
    (13, 13)
    """
    name = name.strip().upper()
    if len(name) < 2 or not name[:-1].isdigit() or name[-1] not in COLUMN_LETTERS:
        raise RefereeError(f"{name!r} is not a cell name like '7F' (row number, column letter)")
    return int(name[:-1]) - 1, COLUMN_LETTERS.index(name[-1])


# -- grids and the change between two of them


def check_grid(cells: Any, rows: int, cols: int, what: str = "reading") -> Grid:
    """Validate a grid's shape (``rows`` lists of ``cols`` values) and return it as lists.

    >>> check_grid([[None, 3]], 1, 2)
    [[None, 3]]
    >>> check_grid([[None]], 1, 2)
    Traceback (most recent call last):
    ...
    referee.core.NotAMove: the reading has a row of 1 cells; this board has 2 columns
    """
    if not isinstance(cells, Sequence) or isinstance(cells, str):
        raise NotAMove(f"the {what} has no grid of cells")
    if len(cells) != rows:
        raise NotAMove(f"the {what} has {len(cells)} rows; this board has {rows}")
    grid = []
    for row in cells:
        if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != cols:
            n = len(row) if isinstance(row, Sequence) else "no"
            raise NotAMove(f"the {what} has a row of {n} cells; this board has {cols} columns")
        grid.append(list(row))
    return grid


def empty_grid(rows: int, cols: int) -> Grid:
    return [[None] * cols for _ in range(rows)]


@dataclass(frozen=True)
class Change:
    """What differs between two readings of the same board.

    >>> Change.between([[None, 5], [7, None]], [[2, 5], [None, None]])
    Change(added={(0, 0): 2}, removed={(1, 0): 7}, altered={})
    """

    added: dict[Cell, Value] = field(default_factory=dict)  # empty -> value
    removed: dict[Cell, Value] = field(default_factory=dict)  # value -> empty
    altered: dict[Cell, tuple[Value, Value]] = field(default_factory=dict)  # value -> other

    @classmethod
    def between(cls, before: Grid, after: Grid) -> Change:
        if len(before) != len(after) or any(len(a) != len(b) for a, b in zip(before, after)):
            raise NotAMove("the two readings are of different board sizes")
        added, removed, altered = {}, {}, {}
        for r, (row_b, row_a) in enumerate(zip(before, after)):
            for c, (b, a) in enumerate(zip(row_b, row_a)):
                if b == a:
                    continue
                if b is None:
                    added[(r, c)] = a
                elif a is None:
                    removed[(r, c)] = b
                else:
                    altered[(r, c)] = (b, a)
        return cls(added, removed, altered)

    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.altered)


# -- the answer to "is this change a move?"


@dataclass(frozen=True)
class Verdict:
    """The referee's answer about one change: the JSON of ``boardsight check``.

    ``move`` is in the game's notation ("7F=3 7E=4", "a2-a3", a guess row) and may be set
    even when the move is illegal; ``reason`` is None exactly when ``legal`` is true.
    ``details`` holds game-specific facts (the order of placements, per-placement scores,
    Mastermind feedback, whether the game is over).
    """

    legal: bool
    score: int = 0
    move: str | None = None
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.legal != (self.reason is None):
            raise ValueError("a verdict has a reason exactly when it is not legal")

    @classmethod
    def illegal(cls, reason: str, move: str | None = None, **details: Any) -> Verdict:
        return cls(legal=False, score=0, move=move, reason=reason, details=details)

    def as_dict(self) -> dict[str, Any]:
        return {"legal": self.legal, "score": self.score, "move": self.move,
                "reason": self.reason, **self.details}


# -- the shape every game follows


class Game(ABC):
    """Fixed facts of one game, read from its definition (a dict from the JSON file)."""

    name: str

    def __init__(self, definition: dict[str, Any] | None = None):
        self.definition = definition if definition is not None else load_definition(self.name)
        self.rows: int = self.definition["rows"]
        self.cols: int = self.definition["cols"]

    @abstractmethod
    def new_initial_state(self, players: int = 2, **options: Any) -> State:
        """The position before the first move."""

    @abstractmethod
    def judge(self, before: Grid, after: Grid, **context: Any) -> Verdict:
        """Judge one change between two readings with no game history.

        The state is reconstructed from ``before`` as far as the board shows it; ``context``
        carries what the board cannot show (a Mastermind secret, whose turn it is).
        """


class State(ABC):
    """A game in progress: the position, whose turn it is, the scores."""

    game: Game

    @property
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to move (0-based)."""

    @property
    @abstractmethod
    def scores(self) -> list[int]:
        """Each player's total so far."""

    @abstractmethod
    def cells(self) -> Grid:
        """The board as vision would read it (a fresh list: safe to modify)."""

    @abstractmethod
    def legal_moves(self, hand: Iterable[Value] | None = None) -> Iterable[Any]:
        """The moves the current player may make (given the tiles in hand, where it matters)."""

    @abstractmethod
    def apply(self, move: Any) -> Verdict:
        """Play a move; raise :class:`IllegalMove` (changing nothing) if the rules forbid it."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def judge_change(self, after: Grid) -> Verdict:
        """Judge the next picture's cells against this position; changes nothing."""

    def apply_change(self, after: Grid) -> Verdict:
        """Judge the next picture and, when it is a legal move, play it."""
        verdict = self.judge_change(after)
        if verdict.legal:
            self._apply_judged(verdict)
        return verdict

    def _apply_judged(self, verdict: Verdict) -> None:
        """Play the move a legal verdict found (each game knows where it keeps it)."""
        raise NotImplementedError
