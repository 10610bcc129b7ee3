"""Calculissimo: digit and operator tokens laid in lines that must be little calculations.

A **calculation** is a horizontal or vertical line of touching tokens alternating digit,
operator, digit … that begins and ends with a digit (every number is a single digit; no
diagonals). It is worth its value, computed with ordinary precedence (× and ÷ before + and
−, left to right / top to bottom) in exact fractions; only a positive whole final value is
allowed, and one calculation holds at most one ×. Every line of two or more touching tokens
on the board must be such a calculation.

A turn lays tokens in one row or column, with no gap, touching the tokens already on the
board (the first turn instead puts a digit on the start square in the centre). The player
scores every calculation made or changed: each line that holds a new token. Premium squares
count in the turn they are covered: green/blue multiply the digit on them inside the
expression, yellow/purple (and the yellow start square) the whole calculation; a token
in two calculations gives its premium to the one where it earns most. A joker stands for
any token but ×, keeps its declared value for the rest of the game, and earns no premium.

Decisions where the text is open (see also the ``_*`` notes of ``games/calculissimo.json``):

- a turn's tokens lie in one row or column, no gap, touching the board: the rules' three
  ways to play are Scrabble's (``one_line_per_turn``; false allows any joined shape);
- the first turn puts a *digit* on the start square ("one of the digits in the centre");
- premiums are part of the calculation: with them, as without them, its value must be a
  positive integer (rule 7), else the play is illegal; a digit premium under an operator
  does nothing; two calculation premiums on one calculation multiply
  (``calculation_premiums_combine``: "largest" keeps only the larger);
- a new token on a premium square in two calculations gives the premium to the one that
  makes the turn's total largest, even when that is not the larger calculation;
- a player who empties the hand draws and plays again (the same player's next move);
  with the bag empty the game is over; a full round of passes also ends it (an exchange
  is not a pass and needs tokens in the bag);
- hand penalties: digits at face value, operators and jokers 10, told by the players.

>>> game = CalculissimoGame()
>>> state = game.new_initial_state(players=2)
>>> state.apply(Play.parse("8H=6 8I=/ 8J=2")).score    # 6 / 2 = 3, x2 on the start square
6
>>> state.judge_move(Play.parse("7J=4 9J=x 10J=3")).reason
'7J 8J in column J: two digits side by side (4, 2); every number is a single digit'
>>> state.apply(Play.parse("9J=x 10J=3")).score        # 2 x 3[x3]: the 3 is on blue 10J
18
>>> state.scores, state.current_player, state.bag_size
([6, 18], 0, 77)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import product
from typing import Any

from referee.core import (Cell, Change, Game, Grid, IllegalMove, NotAMove, RefereeError, State,
                          Verdict, cell_name, check_grid, parse_cell)

# -- tokens

DIGITS = "0123456789"
OPERATORS = "+-x/"
JOKER = "?"
"""A white joker as the camera reads it (and in a hand); ``"?5"`` in a :class:`Play` is a
joker declared as 5."""
EQUALS = "="
"""In the camera's read contract (other sets have it) but not a Calculissimo token."""
JOKER_CANNOT_BE = "x"


def is_digit(token: str) -> bool:
    return len(token) == 1 and token in DIGITS


def is_operator(token: str) -> bool:
    return len(token) == 1 and token in OPERATORS


def is_token(token: Any) -> bool:
    """A value that may lie on a Calculissimo board: a digit, an operator or a joker."""
    return isinstance(token, str) and (is_digit(token) or is_operator(token) or token == JOKER)


def normalise(value: Any) -> Any:
    """The read contract's string for a value (vision may hand over digits as ints).

    >>> normalise(7), normalise("X"), normalise(":"), normalise(None)
    ('7', 'x', '/', None)
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 9:
        return str(value)
    if isinstance(value, str):
        value = value.strip()
        return {"X": "x", "*": "x", "×": "x", ":": "/", "÷": "/", "−": "-"}.get(value, value)
    return value


# -- a calculation's value


def evaluate(tokens: Sequence[str], digit_factors: Mapping[int, int] | None = None) -> Fraction:
    """Value of ``digit op digit …`` with × and / before + and −, left to right.

    ``digit_factors`` maps a token index to a digit premium multiplying that digit.
    Raises ZeroDivisionError on a division by zero.

    >>> evaluate("2+3x4"), evaluate("8/4/2"), evaluate("7-2x3"), evaluate("3/2")
    (Fraction(14, 1), Fraction(1, 1), Fraction(1, 1), Fraction(3, 2))
    >>> evaluate("6/2+9", {0: 2, 4: 2})          # green 6 and 9: 12 / 2 + 18
    Fraction(24, 1)
    """
    factors = digit_factors or {}

    def digit(i: int) -> Fraction:
        return Fraction(int(tokens[i]) * factors.get(i, 1))

    total, sign, term = Fraction(0), 1, digit(0)
    for i in range(1, len(tokens), 2):
        op, operand = tokens[i], digit(i + 1)
        if op == "x":
            term *= operand
        elif op == "/":
            term /= operand
        else:
            total += sign * term
            sign, term = (1 if op == "+" else -1), operand
    return total + sign * term


def is_positive_integer(value: Fraction) -> bool:
    return value.denominator == 1 and value > 0


def show(value: Fraction) -> str:
    """A value as a person writes it: 3, 1.5, 7/3.

    >>> show(Fraction(3)), show(Fraction(3, 2)), show(Fraction(-7, 3))
    ('3', '1.5', '-7/3')
    """
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:  # a terminating decimal
        return str(Decimal(value.numerator) / Decimal(value.denominator))
    return f"{value.numerator}/{value.denominator}"


# -- the board's squares


@dataclass(frozen=True)
class Premium:
    """A premium square: ``kind`` "digit" (green/blue) or "calculation" (yellow/purple)."""

    kind: str
    factor: int
    colour: str
    start: bool = False

    def describe(self, cell: Cell) -> str:
        what = "start square" if self.start else self.colour
        return f"{cell_name(cell)} {what} x{self.factor} {self.kind}"


@dataclass(frozen=True)
class Calculation:
    """One line of two or more touching tokens, as it lies after a turn.

    ``tokens`` are the values the calculation is worked out with (a joker as declared).

    >>> calc = Calculation(((7, 6), (7, 7), (7, 8)), ("6", "/", "4"), vertical=False)
    >>> calc.name, calc.expression(), calc.problem()
    ('row 8', '6 / 4', 'row 8: 6 / 4 = 1.5 is not a positive integer')
    """

    cells: tuple[Cell, ...]
    tokens: tuple[str, ...]
    vertical: bool

    @property
    def name(self) -> str:
        r, c = self.cells[0]
        return f"column {cell_name((0, c))[1:]}" if self.vertical else f"row {r + 1}"

    def expression(self, digit_factors: Mapping[int, int] | None = None) -> str:
        factors = digit_factors or {}
        return " ".join(t + (f"[x{factors[i]}]" if i in factors else "")
                        for i, t in enumerate(self.tokens))

    def value(self, digit_factors: Mapping[int, int] | None = None) -> Fraction:
        return evaluate(self.tokens, digit_factors)

    def problem(self, max_multiplications: int = 1) -> str | None:
        """Why this line is not a valid calculation, naming cells; None when it is."""
        names = [cell_name(c) for c in self.cells]
        for name, t in zip(names, self.tokens):
            if t == JOKER:
                return (f"the joker at {name} has no declared value: say which token it stands "
                        f"for (e.g. \"jokers\": {{\"{name}\": \"5\"}})")
        if not is_digit(self.tokens[0]):
            return (f"{self.name} begins with {self.tokens[0]} at {names[0]}; a calculation "
                    f"begins and ends with a digit")
        if not is_digit(self.tokens[-1]):
            return (f"{self.name} ends with {self.tokens[-1]} at {names[-1]}; a calculation "
                    f"begins and ends with a digit")
        for i in range(len(self.tokens) - 1):
            a, b = self.tokens[i], self.tokens[i + 1]
            if is_digit(a) == is_digit(b):
                what = ("two digits side by side", "; every number is a single digit") \
                    if is_digit(a) else ("two operators side by side", "")
                return f"{names[i]} {names[i + 1]} in {self.name}: {what[0]} ({a}, {b}){what[1]}"
        times = self.tokens.count("x")
        if times > max_multiplications:
            count = {2: "two", 3: "three"}.get(times, str(times))
            return (f"{self.name}: {count} x in one calculation ({self.expression()}); "
                    f"at most {max_multiplications} allowed")
        try:
            value = self.value()
        except ZeroDivisionError:
            return f"{self.name}: {self.expression()} divides by zero"
        if not is_positive_integer(value):
            return f"{self.name}: {self.expression()} = {show(value)} is not a positive integer"
        return None


# -- moves


def split_token(value: str) -> tuple[str, bool]:
    """A play's value as (token worked with, is a joker): "?5" -> ("5", True).

    >>> split_token("/"), split_token("?5"), split_token("?")
    (('/', False), ('5', True), ('?', True))
    """
    if value.startswith(JOKER) and len(value) > 1:
        return value[1:], True
    return value, value == JOKER


@dataclass(frozen=True)
class Play:
    """Tokens laid this turn: ``(cell, value)`` pairs, sorted by cell. A joker's value is
    ``"?"`` followed by the token it stands for (``"?5"``), or ``"?"`` while undeclared.

    >>> play = Play.parse("8J=2 8H=6 8I=?/")
    >>> play.tokens[0], str(play)
    (((7, 7), '6'), '8H=6 8I=?/ 8J=2')
    """

    tokens: tuple[tuple[Cell, str], ...]

    def __post_init__(self):
        object.__setattr__(self, "tokens", tuple(sorted((tuple(c), v) for c, v in self.tokens)))

    def __str__(self) -> str:
        return " ".join(f"{cell_name(cell)}={value}" for cell, value in self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    @classmethod
    def parse(cls, text: str) -> Play:
        tokens = []
        for part in text.split():
            name, sep, value = part.partition("=")
            if not sep or not value:
                raise RefereeError(f"{part!r} is not a token placement like '8H=6' or '8I=?5'")
            tokens.append((parse_cell(name), normalise(value)))
        return cls(tuple(tokens))

    @property
    def hand_tokens(self) -> Counter[str]:
        """What the play takes from the hand (a joker is ``"?"`` whatever it stands for)."""
        return Counter(JOKER if split_token(v)[1] else v for _, v in self.tokens)


@dataclass(frozen=True)
class Exchange:
    """Put ``n`` tokens back into the bag and draw as many; the turn is lost."""

    n: int

    def __str__(self) -> str:
        return f"exchange {self.n}"


@dataclass(frozen=True)
class Pass:
    """Play nothing this turn. When every player passes in a row, the game is over."""

    def __str__(self) -> str:
        return "pass"


Move = Play | Exchange | Pass


def penalty(tokens: Iterable[str], operator_penalty: int = 10, joker_penalty: int = 10) -> int:
    """What tokens left in a hand at the end cost: digits face value, operators and jokers 10.

    >>> penalty(["7", "0", "+", "?"])
    27
    """
    total = 0
    for token in map(normalise, tokens):
        if is_digit(token):
            total += int(token)
        elif is_operator(token):
            total += operator_penalty
        elif token == JOKER or (isinstance(token, str) and token.startswith(JOKER)):
            total += joker_penalty
        else:
            raise RefereeError(f"{token!r} is not a Calculissimo token")
    return total


# -- the game


class CalculissimoGame(Game):
    """Board, premiums, token bag and options of ``games/calculissimo.json``."""

    name = "calculissimo"

    def __init__(self, definition: dict[str, Any] | None = None):
        super().__init__(definition)
        d = self.definition
        self.layout: list[str] = d["layout"]
        if len(self.layout) != self.rows or any(len(row) != self.cols for row in self.layout):
            raise RefereeError(f"the layout is not {self.rows} rows of {self.cols} squares")
        self.premiums: dict[Cell, Premium] = {}
        starts = []
        for r, row in enumerate(self.layout):
            for c, char in enumerate(row):
                if char in d["squares"]:
                    sq = d["squares"][char]
                    self.premiums[(r, c)] = Premium(sq["kind"], sq["factor"], sq["colour"],
                                                    bool(sq.get("start")))
                    if sq.get("start"):
                        starts.append((r, c))
        if len(starts) != 1:
            raise RefereeError(f"the layout needs exactly one start square, it has {len(starts)}")
        self.start: Cell = starts[0]
        self.hand_size: int = d["hand_size"]
        self.bag_total: int = sum(d["tokens"].values()) + d["jokers"]
        self.max_multiplications: int = d.get("max_multiplications", 1)
        self.operator_penalty: int = d.get("operator_penalty", 10)
        self.joker_penalty: int = d.get("joker_penalty", 10)
        self.one_line_per_turn: bool = d.get("one_line_per_turn", True)
        self.combine_calculation_premiums: str = d.get("calculation_premiums_combine", "multiply")
        self.min_players: int = d.get("players", {}).get("min", 2)
        self.max_players: int = d.get("players", {}).get("max", 4)

    def is_on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols

    def empty_cells(self) -> Grid:
        return [[None] * self.cols for _ in range(self.rows)]

    def new_initial_state(self, players: int = 2, **options: Any) -> CalculissimoState:
        return CalculissimoState(self, players, **options)

    def penalty(self, tokens: Iterable[str]) -> int:
        return penalty(tokens, self.operator_penalty, self.joker_penalty)

    # -- one change with no history

    def judge(self, before: Grid, after: Grid, **context: Any) -> Verdict:
        """Judge one change. ``context["jokers"]``: declared values by cell name, for the
        jokers ("?") new in ``after`` and those in ``before`` that the new calculations use;
        ``context["first_move"]``: defaults to whether ``before`` is empty."""
        try:
            declared = _declared_jokers(context.get("jokers"))
            board = self._read(before, "reading before")
            jokers = {cell: declared[cell] for cell, t in board.items()
                      if t == JOKER and cell in declared}
            first_move = context.get("first_move")
            if first_move is None:
                first_move = not board
            play = self._play_from_change(board, jokers, after, declared)
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        return self.judge_play(board, jokers, play, bool(first_move))

    def _read(self, cells: Any, what: str) -> dict[Cell, str]:
        """The tokens of a reading, by cell; anything that is no token is a misread photo."""
        grid = check_grid(cells, self.rows, self.cols, what)
        board, problems = {}, []
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                value = normalise(value)
                if value is None:
                    continue
                if not is_token(value):
                    why = (f"Calculissimo has no '{EQUALS}' token (a calculation's value is "
                           f"what it scores)") if value == EQUALS else "not a Calculissimo token"
                    problems.append(f"{cell_name((r, c))} reads {value!r}: {why}")
                board[(r, c)] = value
        if problems:
            raise NotAMove(f"the {what}: " + "; ".join(problems) + "; check the photo")
        return board

    def _play_from_change(self, board: dict[Cell, str], jokers: Mapping[Cell, str], after: Any,
                          declared: Mapping[Cell, str]) -> Play:
        """The tokens added between ``board`` and the reading ``after``, as a :class:`Play`.

        A joker may read "?" or its declared value; declared values of jokers already on
        the board must not change."""
        new = self._read(after, "reading after")
        grid = [[board.get((r, c)) for c in range(self.cols)] for r in range(self.rows)]
        change = Change.between(grid, [[new.get((r, c)) for c in range(self.cols)]
                                       for r in range(self.rows)])
        problems = [f"a token was removed at {cell_name(cell)} ({was}) — tokens are never taken "
                    f"back; check the photo" for cell, was in sorted(change.removed.items())]
        for cell, (was, now) in sorted(change.altered.items()):
            if was == JOKER and jokers.get(cell) == now:
                continue  # the same joker, read as the token it stands for
            what = f"a joker (declared {jokers[cell]})" if cell in jokers else was
            problems.append(f"{cell_name(cell)} changed from {what} to {now} — placed tokens "
                            f"never change; check the photo")
        for cell, value in sorted(declared.items()):
            name = cell_name(cell)
            if cell in jokers and jokers[cell] != value:
                raise IllegalMove(f"the joker at {name} was declared {jokers[cell]} and stays "
                                  f"{jokers[cell]} for the rest of the game")
            if cell in board and board[cell] != JOKER:
                problems.append(f"a joker is declared at {name}, but it held {board[cell]} "
                                f"already; check the photo or the declaration")
            elif cell not in board and new.get(cell) not in (JOKER, value):
                holds = f"holds {new[cell]}" if cell in new else "is empty"
                problems.append(f"a joker is declared at {name}, but {name} {holds}; check the "
                                f"photo or the declaration")
        if problems:
            raise NotAMove("; ".join(problems))
        if not change.added:
            raise NotAMove("no token was added between the two pictures (a pass or an "
                           "exchange is not seen on the board)")
        tokens = []
        for cell, value in change.added.items():
            if cell in declared:
                value = JOKER + declared[cell]
            tokens.append((cell, value))
        return Play(tuple(tokens))

    # -- the rules of one play

    def judge_play(self, board: Mapping[Cell, str], jokers: Mapping[Cell, str], play: Play,
                   first_move: bool) -> Verdict:
        """The verdict on ``play`` laid on ``board`` (tokens by cell, "?" for the jokers
        whose declared values ``jokers`` holds): legal or why not, score, calculations."""
        try:
            calculations, best = self._score(board, jokers, play, first_move)
        except RefereeError as exc:
            return Verdict.illegal(str(exc), move=str(play))
        total, shares = best
        details = []
        for calc, (score, scored, premiums) in zip(calculations, shares):
            details.append({"line": calc.name, "cells": [cell_name(c) for c in calc.cells],
                            "expression": calc.expression(), "value": int(calc.value()),
                            "premiums": premiums, "scored": scored,
                            "score": score})
        return Verdict(True, total, str(play), details={"calculations": details})

    def _score(self, board: Mapping[Cell, str], jokers: Mapping[Cell, str], play: Play,
               first_move: bool):
        placed, new_jokers = self._placed(board, play)
        position = {cell: jokers.get(cell, t) for cell, t in board.items()} | placed
        self._check_shape(board, placed, first_move)
        if first_move and not is_digit(placed[self.start]):
            raise IllegalMove(f"the first calculation must have a digit on the start square "
                              f"{cell_name(self.start)} (the rules: one of its digits lies in "
                              f"the centre), not {placed[self.start]}")
        calculations = self.calculations_through(position, placed)
        if not calculations:
            raise IllegalMove(f"{play} makes no calculation: tokens must make a line digit, "
                              f"operator, digit … with tokens they touch")
        for calc in calculations:
            problem = calc.problem(self.max_multiplications)
            if problem:
                raise IllegalMove(problem)
        return calculations, self._best_premiums(calculations, placed, new_jokers)

    def _placed(self, board: Mapping[Cell, str], play: Play) -> tuple[dict[Cell, str], set[Cell]]:
        if not play.tokens:
            raise IllegalMove("a play lays at least one token")
        placed, new_jokers = {}, set()
        for cell, value in play.tokens:
            name = cell_name(cell) if self.is_on_board(cell) else str(cell)
            if not self.is_on_board(cell):
                raise IllegalMove(f"{name} is off the board")
            if cell in placed:
                raise IllegalMove(f"two tokens on {name}")
            if cell in board:
                raise IllegalMove(f"{name} is already covered")
            token, joker = split_token(value)
            if joker and token == JOKER_CANNOT_BE:
                raise IllegalMove(f"the joker at {name} cannot stand for x (a joker replaces "
                                  f"any token except the multiplication)")
            if not (is_digit(token) or is_operator(token) or token == JOKER):
                raise IllegalMove(f"{name}={value} is not a Calculissimo token")
            placed[cell] = token
            if joker:
                new_jokers.add(cell)
        return placed, new_jokers

    def _check_shape(self, board: Mapping[Cell, str], placed: Mapping[Cell, str],
                     first_move: bool) -> None:
        """One row or column, no gap, touching the board (or on the start square)."""
        cells = sorted(placed)
        names = " ".join(cell_name(c) for c in cells)
        if self.one_line_per_turn and len(cells) > 1:
            rows, cols = {r for r, _ in cells}, {c for _, c in cells}
            if len(rows) > 1 and len(cols) > 1:
                raise IllegalMove(f"the new tokens {names} are not in one row or column; a turn "
                                  f"lays its tokens in one line")
            (r0, c0), (r1, c1) = cells[0], cells[-1]
            gaps = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)
                    if (r, c) not in placed and (r, c) not in board]
            if gaps:
                raise IllegalMove(f"the new tokens {names} leave a gap at "
                                  f"{' '.join(cell_name(g) for g in gaps)}; a turn's tokens "
                                  f"make one unbroken line with the tokens between them")
        occupied = set(board) | set(placed)
        if first_move:
            if self.start not in placed:
                raise IllegalMove(f"the first calculation must cover the start square "
                                  f"{cell_name(self.start)}")
            reached = _connected({self.start}, occupied)
        else:
            if not board:
                raise IllegalMove("the board has no tokens to touch; is this the first move?")
            if not any(n in board for cell in placed for n in _neighbours(cell)):
                raise IllegalMove(f"the new tokens {names} do not touch the tokens on the board")
            reached = _connected(set(board), occupied)
        loose = [cell_name(c) for c in cells if c not in reached]
        if loose:
            raise IllegalMove(f"{' '.join(loose)} touch neither the board's tokens nor the "
                              f"other new tokens")

    def calculations_through(self, position: Mapping[Cell, str],
                             placed: Iterable[Cell]) -> list[Calculation]:
        """The lines of 2+ touching tokens that hold a new token, most new tokens first."""
        placed = set(placed)
        found: dict[tuple[Cell, ...], Calculation] = {}
        for cell in sorted(placed):
            for vertical in (False, True):
                cells = _run(position, cell, vertical)
                if len(cells) > 1 and cells not in found:
                    found[cells] = Calculation(cells, tuple(position[c] for c in cells), vertical)
        return sorted(found.values(),
                      key=lambda k: (-len(placed.intersection(k.cells)), k.vertical, k.cells))

    def _best_premiums(self, calculations: Sequence[Calculation], placed: Mapping[Cell, str],
                       new_jokers: set[Cell]):
        """Give every premium newly covered to one calculation through it so that the turn
        scores most, with every calculation still a positive integer with its premiums.

        Returns (total, [(score, scored expression, premium names) per calculation])."""
        covered = []  # (cell, premium, indices of the calculations it may go to)
        for cell in sorted(placed):
            premium = self.premiums.get(cell)
            if premium is None or cell in new_jokers:
                continue  # a joker earns no premium
            if premium.kind == "digit" and not is_digit(placed[cell]):
                continue  # a digit premium under an operator multiplies nothing
            homes = [i for i, calc in enumerate(calculations) if cell in calc.cells]
            if homes:
                covered.append((cell, premium, homes))
        best, failure = None, None
        for choice in product(*(homes for _, _, homes in covered)):
            shares, total = [], 0
            for i, calc in enumerate(calculations):
                digit_factors, factors, names = {}, [], []
                for (cell, premium, _), home in zip(covered, choice):
                    if home != i:
                        continue
                    names.append(premium.describe(cell))
                    if premium.kind == "digit":
                        digit_factors[calc.cells.index(cell)] = premium.factor
                    else:
                        factors.append(premium.factor)
                value = calc.value(digit_factors) * self._combine(factors)
                scored = calc.expression(digit_factors)
                if factors:
                    scored = f"({scored}) x{self._combine(factors)}"
                if not is_positive_integer(value):
                    failure = failure or (f"{calc.name}: with its premiums "
                                          f"{scored} = {show(value)} is "
                                          f"not a positive integer; a calculation must be valid "
                                          f"with and without its premiums")
                    break
                shares.append((int(value), scored, names))
                total += int(value)
            else:
                if best is None or total > best[0]:
                    best = (total, shares)
        if best is None:
            raise IllegalMove(failure)
        return best

    def _combine(self, factors: Sequence[int]) -> int:
        """Several calculation premiums on one calculation: multiplied (the default) or the
        largest only (``"calculation_premiums_combine": "largest"``)."""
        if not factors:
            return 1
        if self.combine_calculation_premiums == "largest":
            return max(factors)
        result = 1
        for f in factors:
            result *= f
        return result


def _declared_jokers(declared: Any) -> dict[Cell, str]:
    """``{"8H": "5"}`` -> ``{(7, 7): "5"}``, checking each is a token a joker may be."""
    if not declared:
        return {}
    if not isinstance(declared, Mapping):
        raise NotAMove('"jokers" must map cell names to tokens, like {"8H": "5"}')
    result = {}
    for name, value in declared.items():
        cell = parse_cell(name) if isinstance(name, str) else tuple(name)
        value = normalise(value)
        if value == JOKER_CANNOT_BE:
            raise IllegalMove(f"the joker at {cell_name(cell)} cannot stand for x (a joker "
                              f"replaces any token except the multiplication)")
        if not (isinstance(value, str) and (is_digit(value) or is_operator(value))):
            raise NotAMove(f"the joker at {cell_name(cell)} is declared {value!r}, which is no "
                           f"Calculissimo token")
        result[cell] = value
    return result


def _neighbours(cell: Cell) -> Iterator[Cell]:
    r, c = cell
    yield from ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))


def _connected(seeds: set[Cell], occupied: set[Cell]) -> set[Cell]:
    """The occupied cells joined to ``seeds`` through touching occupied cells."""
    reached, todo = set(seeds), list(seeds)
    while todo:
        for n in _neighbours(todo.pop()):
            if n in occupied and n not in reached:
                reached.add(n)
                todo.append(n)
    return reached


def _run(position: Mapping[Cell, Any], cell: Cell, vertical: bool) -> tuple[Cell, ...]:
    """The maximal line of touching occupied cells through ``cell`` (which may be empty)."""
    dr, dc = (1, 0) if vertical else (0, 1)
    r, c = cell
    while (r - dr, c - dc) in position:
        r, c = r - dr, c - dc
    cells = []
    while (r, c) in position or (r, c) == cell:
        cells.append((r, c))
        r, c = r + dr, c + dc
    return tuple(cells)


# -- a game in progress


class CalculissimoState(State):
    """The board, the scores, whose turn it is, the declared jokers and the bag and hand
    *sizes* (the camera cannot see the hands; players tell their tokens at the end)."""

    def __init__(self, game: CalculissimoGame, players: int = 2, first_player: int = 0):
        if not game.min_players <= players <= game.max_players:
            raise RefereeError(f"Calculissimo is for {game.min_players}-{game.max_players} "
                               f"players, not {players}")
        if game.hand_size * players > game.bag_total:
            raise RefereeError(f"{game.bag_total} tokens cannot fill {players} hands")
        self.game = game
        self.num_players = players
        self.board: dict[Cell, str] = {}  # as the camera reads it: "?" for a joker
        self.jokers: dict[Cell, str] = {}  # declared values, fixed for the game
        self._scores = [0] * players
        self._current = first_player % players
        self.hand_sizes = [game.hand_size] * players
        self.bag_size = game.bag_total - game.hand_size * players
        self.passes_in_a_row = 0
        self.emptied_with_empty_bag = False
        self.penalties: list[int] | None = None
        self.record: list[tuple[int, str, int]] = []  # (player, move, points)

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    def cells(self) -> Grid:
        grid = self.game.empty_cells()
        for (r, c), token in self.board.items():
            grid[r][c] = token
        return grid

    def position(self) -> dict[Cell, str]:
        """The tokens by cell as they are worked with: jokers as declared."""
        return {cell: self.jokers.get(cell, t) for cell, t in self.board.items()}

    def is_first_move(self) -> bool:
        return not self.board

    def is_terminal(self) -> bool:
        """Bag empty and a player's hand empty, or nobody could play (all passed in a row)."""
        return self.emptied_with_empty_bag or self.passes_in_a_row >= self.num_players

    # -- moves

    def judge_move(self, move: Move) -> Verdict:
        """The verdict on ``move`` for the player to move; changes nothing."""
        if self.is_terminal():
            return Verdict.illegal("the game is over", move=str(move))
        hand = self.hand_sizes[self._current]
        if isinstance(move, Play):
            if len(move) > hand:
                return Verdict.illegal(f"{len(move)} tokens laid, but player {self._current + 1} "
                                       f"holds {hand}; check the photo", move=str(move))
            verdict = self.game.judge_play(self.board, self.jokers, move, self.is_first_move())
            if verdict.legal:
                empties = len(move) == hand
                verdict.details.update(player=self._current, hand_emptied=empties,
                                       continues=empties and self.bag_size > 0,
                                       game_over=empties and self.bag_size == 0)
            return verdict
        if isinstance(move, Exchange):
            if not 1 <= move.n <= hand:
                return Verdict.illegal(f"player {self._current + 1} holds {hand} tokens and "
                                       f"cannot exchange {move.n}", move=str(move))
            if self.bag_size == 0:
                return Verdict.illegal("the bag is empty: nothing to exchange with; pass "
                                       "instead", move=str(move))
            return Verdict(True, 0, str(move), details={"player": self._current})
        if isinstance(move, Pass):
            return Verdict(True, 0, str(move), details={
                "player": self._current,
                "game_over": self.passes_in_a_row + 1 >= self.num_players})
        raise IllegalMove(f"{move!r} is not a Calculissimo move")

    def apply(self, move: Move) -> Verdict:
        verdict = self.judge_move(move)
        if not verdict.legal:
            raise IllegalMove(verdict.reason)
        player = self._current
        if isinstance(move, Play):
            for cell, value in move.tokens:
                token, joker = split_token(value)
                self.board[cell] = JOKER if joker else token
                if joker:
                    self.jokers[cell] = token
            self._scores[player] += verdict.score
            self.hand_sizes[player] -= len(move)
            emptied = self.hand_sizes[player] == 0
            drawn = min(self.game.hand_size - self.hand_sizes[player], self.bag_size)
            self.hand_sizes[player] += drawn
            self.bag_size -= drawn
            self.passes_in_a_row = 0
            if emptied and drawn == 0:
                self.emptied_with_empty_bag = True
            elif not emptied:  # a player who used every token draws and plays again
                self._current = (player + 1) % self.num_players
        else:
            self.passes_in_a_row = self.passes_in_a_row + 1 if isinstance(move, Pass) else 0
            self._current = (player + 1) % self.num_players
        self.record.append((player, str(move), verdict.score))
        verdict.details["game_over"] = self.is_terminal()
        return verdict

    def legal_moves(self, hand: Iterable[str] | None = None,
                    max_tokens: int = 3) -> Iterator[Move]:
        """Plays of 1..``max_tokens`` tokens from ``hand`` (a multiset of tokens, "?" a
        joker; None: any tokens still unseen), then :class:`Pass` and an :class:`Exchange`
        of the whole hand. Lazy: plays are checked one by one as they are asked for.

        >>> state = CalculissimoGame().new_initial_state()
        >>> [str(m) for m in state.legal_moves(["3", "+", "4"])][:2]
        ['8H=3 8I=+ 8J=4', '8H=4 8I=+ 8J=3']
        """
        if self.is_terminal():
            return
        pool = Counter(map(normalise, hand)) if hand is not None else self._unseen()
        limit = min(max_tokens, self.hand_sizes[self._current], sum(pool.values()))
        seen: set[Play] = set()
        for cells in self._spans(limit):
            for play in self._fillings(cells, pool):
                if play not in seen:
                    seen.add(play)
                    if self.judge_move(play).legal:
                        yield play
        yield Pass()
        if self.bag_size:
            yield Exchange(self.hand_sizes[self._current])

    def _unseen(self) -> Counter[str]:
        """Tokens not on the board (bag and hands together)."""
        pool = Counter(self.game.definition["tokens"])
        pool[JOKER] = self.game.definition["jokers"]
        pool.subtract(self.board.values())
        return +pool

    def _spans(self, limit: int) -> Iterator[tuple[Cell, ...]]:
        """Sets of empty cells in one row or column, no gap but covered cells, that touch
        the board (or cover the start square on the first move)."""
        game = self.game
        if self.is_first_move():
            for vertical in (False, True):
                for length in range(1, limit + 1):
                    for offset in range(length):
                        cells = tuple(_step(game.start, vertical, k - offset)
                                      for k in range(length))
                        if all(map(game.is_on_board, cells)):
                            yield cells
            return
        touching = {n for cell in self.board for n in _neighbours(cell)
                    if game.is_on_board(n) and n not in self.board}
        seen: set[tuple[Cell, ...]] = set()
        for vertical in (False, True):
            for start in sorted(touching):
                # every span of a touching cell, starting up to limit-1 empty cells before it
                back = [start]
                cell = _step(start, vertical, -1)
                while len(back) < limit and game.is_on_board(cell):
                    if cell not in self.board:
                        back.append(cell)
                    cell = _step(cell, vertical, -1)
                for first in back:
                    empties, cell = [], first
                    while game.is_on_board(cell) and len(empties) < limit:
                        if cell not in self.board:
                            empties.append(cell)
                            span = tuple(empties)
                            if start in span and span not in seen and (len(span) > 1
                                                                       or not vertical):
                                seen.add(span)
                                yield span
                        cell = _step(cell, vertical, 1)

    def _fillings(self, cells: tuple[Cell, ...], pool: Counter[str]) -> Iterator[Play]:
        """Plays on ``cells`` whose digits and operators fall where the lines need them."""
        position = self.position()
        occupied = set(position) | set(cells)
        kinds = []
        for cell in cells:
            kind = None
            for vertical in (False, True):
                run = _run(occupied, cell, vertical)
                if len(run) < 2:
                    continue
                if len(run) % 2 == 0:
                    return  # a line of even length cannot begin and end with a digit
                want = "digit" if run.index(cell) % 2 == 0 else "operator"
                for i, other in enumerate(run):
                    if other in position and is_digit(position[other]) != (i % 2 == 0):
                        return
                if kind not in (None, want):
                    return
                kind = want
            if kind is None:
                return
            kinds.append(kind)
        for values in _arrangements(kinds, pool):
            yield Play(tuple(zip(cells, values)))

    def finish(self, hands: Sequence[Iterable[str]]) -> list[int]:
        """Subtract the tokens left in each hand (``hands[i]`` as player i tells them):
        digits at face value, operators and jokers 10. Returns the final scores."""
        if not self.is_terminal():
            raise IllegalMove("the game is not over: the bag still has tokens or nobody has "
                              "emptied a hand, and not everyone passed in a row")
        if self.penalties is not None:
            raise IllegalMove("the penalties were already subtracted")
        if len(hands) != self.num_players:
            raise IllegalMove(f"{len(hands)} hands told for {self.num_players} players")
        penalties = []
        for player, hand in enumerate(hands):
            hand = list(hand)
            if len(hand) != self.hand_sizes[player]:
                raise IllegalMove(f"player {player + 1} should hold {self.hand_sizes[player]} "
                                  f"tokens, {len(hand)} were told")
            penalties.append(self.game.penalty(hand))
        self.penalties = penalties
        self._scores = [s - p for s, p in zip(self._scores, penalties)]
        return self.scores

    # -- from the next picture to a play

    def judge_change(self, after: Grid, **context: Any) -> Verdict:
        """The tokens new in ``after`` as this turn's play. ``context["jokers"]``: declared
        values of the new jokers by cell name, e.g. ``{"8H": "5"}``."""
        try:
            declared = _declared_jokers(context.get("jokers"))
            play = self.game._play_from_change(self.board, self.jokers, after, declared)
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        return self.judge_move(play)

    def apply_change(self, after: Grid, **context: Any) -> Verdict:
        verdict = self.judge_change(after, **context)
        if verdict.legal:
            return self.apply(Play.parse(verdict.move))
        return verdict

    def _apply_judged(self, verdict: Verdict) -> None:
        self.apply(Play.parse(verdict.move))


def _step(cell: Cell, vertical: bool, k: int) -> Cell:
    return (cell[0] + k, cell[1]) if vertical else (cell[0], cell[1] + k)


def _arrangements(kinds: Sequence[str], pool: Counter[str]) -> Iterator[tuple[str, ...]]:
    """Distinct ways to fill slots of the given kinds from ``pool``; plain tokens before
    jokers (declared as any digit or operator but x)."""
    if not kinds:
        yield ()
        return
    own = DIGITS if kinds[0] == "digit" else OPERATORS
    options = [t for t in own if pool[t] > 0]
    if pool[JOKER] > 0:
        options += [JOKER + t for t in own if t != JOKER_CANNOT_BE]
    for value in options:
        taken = JOKER if value.startswith(JOKER) else value
        pool[taken] -= 1
        try:
            for rest in _arrangements(kinds[1:], pool):
                yield (value, *rest)
        finally:
            pool[taken] += 1


GAME_CLASS = CalculissimoGame
