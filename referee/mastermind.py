"""Mastermind: a secret of coloured pegs, guess rows, and red/white feedback.

The rules (``../shared/rules/mastermind.ru.txt``), as this module reads them:

- The codemaker sets a secret of 4 pegs from the palette; the codebreaker(s) fill one guess
  row per turn, from the row farthest from the codemaker (``first_guess_row`` in
  ``games/mastermind.json``: the bottom row as the board is read). Feedback per guess: a
  **red** for each right colour in the right hole, a **white** for each right colour in a
  wrong hole, counting repeated colours as a multiset.
- **Decision:** the ``repeats`` option restricts only the *secret*; a guess may always
  repeat colours (the text lets the codemaker use repeats and keep it from the guessers,
  so guessers must be free to try them).
- 2 players: an even number of rounds, roles swap each round; the codebreaker wins a round
  by cracking the code within the 12 rows, else the codemaker wins it. Most rounds won
  wins; an equal count is a tie (``winners`` lists both).
- 3-5 players: as many rounds as players; the codemaker rotates to the next player (to
  the left); the others guess one row each in turn, starting with the player after the
  codemaker. A guesser scores 1 per white, 2 per red, and 10 more for the cracking row; the
  codemaker scores from the table by the row the code was cracked on, or the not-cracked
  figure. **Decision:** ``Verdict.score`` of a guess is always these guesser points (the
  text's example scores a row the same way); in a 2-player game the totals in ``scores``
  are rounds won instead.
- A new round starts when the board is cleared (every peg removed); that change is the
  "new round" move.

Rows in messages are numbered in guess order (row 1 is the first guess row), holes 1..4
from the left as the board is read.

>>> feedback(["pink", "red", "cyan", "yellow"], ["red", "pink", "green", "yellow"])
(1, 2)
>>> guesser_points(1, 2)
4
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.core import (Change, Game, Grid, IllegalMove, NotAMove, RefereeError, State,
                          Verdict, check_grid, load_definition)

Colour = str
Code = tuple[Colour, ...]


# -- feedback: the heart of the game


def feedback(secret: Sequence[Colour], guess: Sequence[Colour]) -> tuple[int, int]:
    """(red, white): right colour in the right hole, right colour in a wrong hole.

    Colours are counted as a multiset: a colour scores at most as often as it is in both.

    >>> feedback("AABB", "ABAB")
    (2, 2)
    >>> feedback("AAAB", "AABB")
    (3, 0)
    """
    if len(secret) != len(guess):
        raise RefereeError(f"a guess of {len(guess)} pegs for a secret of {len(secret)}")
    red = sum(s == g for s, g in zip(secret, guess))
    common = sum((Counter(secret) & Counter(guess)).values())
    return red, common - red


def _pegs(n: int, colour: str) -> str:
    return f"{n} {colour}"


def check_feedback(secret: Sequence[Colour], guess: Sequence[Colour], red: int,
                   white: int) -> str | None:
    """The codemaker's mistake in words, or None when ``red``/``white`` are right.

    >>> check_feedback("ABCD", "BACD", 2, 2) is None
    True
    >>> print(check_feedback("ABCD", "BACD", 3, 1))
    the feedback should be 2 red and 2 white, not 3 red and 1 white: 1 peg marked red is in a wrong hole (white)
    """
    holes = len(secret)
    if red < 0 or white < 0:
        return "feedback pegs cannot be negative"
    if red + white > holes:
        return f"{red + white} feedback pegs for {holes} holes"
    right_red, right_white = feedback(secret, guess)
    if (red, white) == (right_red, right_white):
        return None
    said = f"the feedback should be {right_red} red and {right_white} white, not {red} red " \
           f"and {white} white"
    found, given = right_red + right_white, red + white
    if found == given:
        n = abs(red - right_red)
        if red > right_red:
            hint = f"{n} peg{'s' * (n > 1)} marked red {'are' if n > 1 else 'is'} in a " \
                   "wrong hole (white)"
        else:
            hint = f"{n} peg{'s' * (n > 1)} marked white {'are' if n > 1 else 'is'} in the " \
                   "right hole (red)"
    elif given < found:
        n = found - given
        hint = f"{n} right colour{'s were' if n > 1 else ' was'} not marked"
    else:
        n = given - found
        hint = f"{n} peg{'s' * (n > 1)} too many: the guess has only {found} right colour" \
               f"{'s' * (found != 1)}"
    return f"{said}: {hint}"


def guesser_points(red: int, white: int, holes: int = 4,
                   points: dict[str, int] | None = None) -> int:
    """A guess row's points in the 3-5 player game: 1 per white, 2 per red, +10 to crack.

    >>> guesser_points(4, 0)
    18
    """
    points = points or load_definition("mastermind")["guesser_points"]
    cracked = points["cracked"] if red == holes else 0
    return white * points["white"] + red * points["red"] + cracked


# -- moves


@dataclass(frozen=True)
class Guess:
    """One guess row: a colour per hole, left to right.

    >>> Guess.from_notation("red, blue pink  pink").notation
    'red blue pink pink'
    """

    pegs: Code

    @classmethod
    def from_notation(cls, text: str) -> Guess:
        return cls(tuple(text.replace(",", " ").split()))

    @property
    def notation(self) -> str:
        return " ".join(self.pegs)

    def __str__(self) -> str:
        return self.notation


@dataclass(frozen=True)
class NewRound:
    """Clearing the board after a round: the next codemaker takes over."""

    notation = "new round"

    def __str__(self) -> str:
        return self.notation


NEW_ROUND = NewRound()


# -- the game


class MastermindGame(Game):
    """Palette, row order and scoring tables from the definition."""

    name = "mastermind"

    def __init__(self, definition: dict[str, Any] | None = None):
        super().__init__(definition)
        d = self.definition
        self.holes: int = self.cols
        self.palette: tuple[Colour, ...] = tuple(d["palette"])
        self.repeats: bool = bool(d.get("repeats", False))
        self.first_guess_row: str = d.get("first_guess_row", "bottom")
        if self.first_guess_row not in ("bottom", "top"):
            raise RefereeError(f"first_guess_row must be 'bottom' or 'top', "
                               f"not {self.first_guess_row!r}")
        self.guesser_points: dict[str, int] = d["guesser_points"]
        self.codemaker_points: dict[str, dict[str, Any]] = d["codemaker_points"]
        self.two_player_rounds: int = d.get("two_player_rounds", 2)
        self.min_players, self.max_players = d["players"]["min"], d["players"]["max"]

    def grid_row(self, row: int) -> int:
        """The grid row (0 = top) of guess row ``row`` (0 = the first guess)."""
        return self.rows - 1 - row if self.first_guess_row == "bottom" else row

    def codemaker_score(self, players: int, cracked_on: int | None) -> int:
        """The codemaker's points: by the row (1..12) the code was cracked on, else not cracked.

        >>> MastermindGame().codemaker_score(4, 7), MastermindGame().codemaker_score(4, None)
        (13, 30)
        """
        table = self.codemaker_points[str(players)]
        return table["not_cracked"] if cracked_on is None else table["by_row"][cracked_on - 1]

    def row_points(self, red: int, white: int) -> int:
        return guesser_points(red, white, self.holes, self.guesser_points)

    def why_bad_code(self, pegs: Sequence[Any], what: str = "guess") -> str | None:
        """Why ``pegs`` is not a code of this game (length, colours; repeats for a secret)."""
        if len(pegs) != self.holes:
            return f"the {what} has {len(pegs)} pegs; a code fills all {self.holes} holes"
        for hole, peg in enumerate(pegs, 1):
            if peg not in self.palette:
                return (f"unknown colour {peg!r} in hole {hole} of the {what} "
                        f"(palette: {', '.join(self.palette)})")
        if what == "secret" and not self.repeats and len(set(pegs)) < len(pegs):
            twice = next(p for p in pegs if pegs.count(p) > 1)
            return (f"the secret repeats {twice}; repeated colours are allowed only in the "
                    "advanced variant (repeats)")
        return None

    def new_initial_state(self, players: int = 2, rounds: int | None = None,
                          first_codemaker: int = 0, **options: Any) -> MastermindState:
        return MastermindState(self, players, rounds, first_codemaker)

    def state_from_cells(self, cells: Grid, secret: Sequence[Colour] | None = None,
                         players: int = 2, codemaker: int = 0) -> MastermindState:
        """A round in progress as a reading shows it (its guesses, not the earlier rounds).

        With ``secret`` the feedback of the rows already played is known; without it, it is
        not, and the round is taken to go on unless all rows are used.
        """
        state = MastermindState(self, players, first_codemaker=codemaker)
        if secret is not None:
            state.set_secret(secret)
        guesses = state._read_rows(check_grid(cells, self.rows, self.cols, "earlier reading"),
                                   "the earlier reading")
        for row, pegs in enumerate(guesses, 1):
            if state.is_round_over():
                raise NotAMove(f"the earlier reading has row {row} after the code was cracked "
                               f"on row {state.cracked_on()}")
            state._record_guess(Guess(pegs), feedback(secret, pegs) if secret else None)
        return state

    def judge(self, before: Grid, after: Grid, **context: Any) -> Verdict:
        """Judge one change; context: ``secret`` (list of colours), ``feedback`` ([red, white]
        the codemaker set), ``players`` (default 2), ``codemaker`` (default 0). Others ignored.
        """
        try:
            state = self.state_from_cells(before, context.get("secret"),
                                          int(context.get("players", 2)),
                                          int(context.get("codemaker", 0)))
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        return state.judge_change(after, feedback=context.get("feedback"))


@dataclass
class _Round:
    codemaker: int
    secret: Code | None = None
    guesses: list[Code] = field(default_factory=list)
    feedback: list[tuple[int, int] | None] = field(default_factory=list)  # None: unknown


class MastermindState(State):
    """A match: rounds, the codemaker of each, the current round's rows, and the totals."""

    def __init__(self, game: MastermindGame, players: int = 2, rounds: int | None = None,
                 first_codemaker: int = 0):
        if not game.min_players <= players <= game.max_players:
            raise RefereeError(f"Mastermind is for {game.min_players}-{game.max_players} "
                               f"players, not {players}")
        if not 0 <= first_codemaker < players:
            raise RefereeError(f"player {first_codemaker} does not exist in a {players}-player "
                               "game")
        if players == 2:
            rounds = game.two_player_rounds if rounds is None else rounds
            if rounds < 2 or rounds % 2:
                raise RefereeError(f"two players agree an even number of rounds, not {rounds}")
        elif rounds not in (None, players):
            raise RefereeError(f"{players} players play {players} rounds, not {rounds}")
        self.game = game
        self.players = players
        self.rounds: int = rounds or players
        self.first_codemaker = first_codemaker
        self.round_index = 0
        self.round = _Round(first_codemaker)
        self._scores = [0] * players
        self.results: list[dict[str, Any]] = []  # one per finished round
        self._history: list[tuple] = []

    # -- who does what

    @property
    def codemaker(self) -> int:
        return self.round.codemaker

    def guessers(self) -> list[int]:
        """The codebreakers of this round in turn order, starting after the codemaker."""
        return [(self.codemaker + i) % self.players for i in range(1, self.players)]

    @property
    def guesser(self) -> int:
        """Who fills the next row."""
        order = self.guessers()
        return order[len(self.round.guesses) % len(order)]

    @property
    def current_player(self) -> int:
        """The next guesser; once a round is over, the next round's codemaker."""
        if self.is_round_over():
            return (self.codemaker + 1) % self.players
        return self.guesser

    @property
    def scores(self) -> list[int]:
        """Points (3-5 players) or rounds won (2 players)."""
        return list(self._scores)

    @property
    def winners(self) -> list[int]:
        """The players with the best total once the match is over (two: a tie); else []."""
        if not self.is_terminal():
            return []
        best = max(self._scores)
        return [p for p, s in enumerate(self._scores) if s == best]

    # -- the round

    def set_secret(self, secret: Sequence[Colour]) -> None:
        """The codemaker's secret for this round, entered privately."""
        reason = self.game.why_bad_code(list(secret), "secret")
        if reason is not None:
            raise IllegalMove(reason)
        if self.is_round_over():
            raise IllegalMove("this round is over; clear the board to start the next one")
        self.round.secret = tuple(secret)

    @property
    def secret(self) -> Code | None:
        return self.round.secret

    def cracked_on(self) -> int | None:
        """The row (1..12) on which the code was cracked in this round, if it was."""
        for row, fb in enumerate(self.round.feedback, 1):
            if fb is not None and fb[0] == self.game.holes:
                return row
        return None

    def _may_be_cracked(self) -> bool:
        # A reading judged without the secret: its last row may have cracked the code.
        return bool(self.round.feedback) and self.round.feedback[-1] is None

    def is_round_over(self) -> bool:
        return self.cracked_on() is not None or len(self.round.guesses) == self.game.rows

    def is_terminal(self) -> bool:
        return self.round_index == self.rounds - 1 and self.is_round_over()

    def cells(self) -> Grid:
        g = self.game
        grid: Grid = [[None] * g.cols for _ in range(g.rows)]
        for row, pegs in enumerate(self.round.guesses):
            grid[g.grid_row(row)] = list(pegs)
        return grid

    # -- moves

    def legal_moves(self, hand: Iterable[Any] | None = None) -> Iterator[Guess | NewRound]:
        """Every guess (colours may repeat) while a round runs; clearing once it is over."""
        if self.is_terminal():
            return iter(())
        if self.is_round_over():
            return iter((NEW_ROUND,))
        return (Guess(p) for p in itertools.product(self.game.palette, repeat=self.game.holes))

    def apply(self, move: Guess | NewRound | Sequence[Colour] | str,
              feedback: Sequence[int] | None = None) -> Verdict:
        """Play a guess or clear the board; raise IllegalMove (changing nothing) if not allowed.

        The feedback comes from the secret when it is set; ``feedback`` (red, white) is the
        codemaker's pegs, checked against the secret, or taken as given without one.
        """
        if isinstance(move, str):
            move = NEW_ROUND if move == NEW_ROUND.notation else Guess.from_notation(move)
        elif not isinstance(move, (Guess, NewRound)):
            move = Guess(tuple(move))
        if isinstance(move, NewRound):
            return self._new_round()
        if self.is_terminal():
            raise IllegalMove("the match is over")
        if self.is_round_over():
            raise IllegalMove(f"round {self.round_index + 1} is over; clear the board to start "
                              "the next one")
        reason = self.game.why_bad_code(list(move.pegs))
        if reason is not None:
            raise IllegalMove(reason)
        fb = self._feedback_for(move.pegs, feedback)
        if fb is None:
            raise RefereeError("the feedback is unknown: set the secret or give the "
                               "codemaker's feedback pegs")
        self._save()
        return self._record_guess(move, fb)

    def _feedback_for(self, pegs: Code, given: Sequence[int] | None) -> tuple[int, int] | None:
        if given is not None:
            if len(given) != 2:
                raise RefereeError(f"feedback is [red, white], not {list(given)!r}")
            given = (int(given[0]), int(given[1]))
        if self.secret is None:
            if given is not None and (min(given) < 0 or sum(given) > self.game.holes):
                raise IllegalMove(f"{sum(given)} feedback pegs for {self.game.holes} holes")
            return given
        if given is not None:
            mistake = check_feedback(self.secret, pegs, *given)
            if mistake is not None:
                raise IllegalMove(mistake)
        return feedback(self.secret, pegs)

    def _record_guess(self, move: Guess, fb: tuple[int, int] | None) -> Verdict:
        g, rnd = self.game, self.round
        player = self.guesser
        rnd.guesses.append(tuple(move.pegs))
        rnd.feedback.append(fb)
        points = g.row_points(*fb) if fb is not None else 0
        if self.players > 2:
            self._scores[player] += points
        details: dict[str, Any] = {
            "kind": "guess", "round": self.round_index + 1, "row": len(rnd.guesses),
            "player": player, "codemaker": rnd.codemaker,
            "feedback": list(fb) if fb is not None else None,
            "cracked": fb is not None and fb[0] == g.holes}
        if self.is_round_over():
            details.update(self._end_round())
        details["game_over"] = self.is_terminal()
        if self.is_terminal():
            details["winners"] = self.winners
        return Verdict(legal=True, score=points, move=move.notation, details=details)

    def _end_round(self) -> dict[str, Any]:
        cracked_on = self.cracked_on()
        result: dict[str, Any] = {"round_over": True, "cracked_on": cracked_on}
        if self.players == 2:
            winner = self.guesser_of_round() if cracked_on is not None else self.codemaker
            self._scores[winner] += 1
            result["round_winner"] = winner
        else:
            points = self.game.codemaker_score(self.players, cracked_on)
            self._scores[self.codemaker] += points
            result["codemaker_points"] = points
        self.results.append({"round": self.round_index + 1, "codemaker": self.codemaker,
                             **result})
        return result

    def guesser_of_round(self) -> int:
        """The codebreaker of a 2-player round."""
        return (self.codemaker + 1) % self.players

    def _new_round(self) -> Verdict:
        if self.is_terminal():
            raise IllegalMove("the match is over; there is no next round")
        if not self.is_round_over() and not self._may_be_cracked():
            used = len(self.round.guesses)
            raise IllegalMove(f"the board was cleared before round {self.round_index + 1} "
                              f"ended (not cracked, {used} of {self.game.rows} rows used)")
        self._save()
        self.round_index += 1
        self.round = _Round((self.first_codemaker + self.round_index) % self.players)
        return Verdict(legal=True, move=NEW_ROUND.notation, details={
            "kind": "new_round", "round": self.round_index + 1, "codemaker": self.codemaker,
            "game_over": False})

    def _save(self) -> None:
        self._history.append(copy.deepcopy((self.round_index, self.round, self._scores,
                                            self.results)))

    def pop(self) -> None:
        """Take back the last guess or new round."""
        if not self._history:
            raise RefereeError("no move to take back")
        self.round_index, self.round, self._scores, self.results = self._history.pop()

    undo = pop

    # -- from two readings to a move

    def _read_rows(self, grid: Grid, what: str) -> list[Code]:
        """The complete guess rows of a reading, in guess order, checked to be a round's board."""
        g = self.game
        self._check_colours(grid, what)
        rows = [grid[g.grid_row(r)] for r in range(g.rows)]
        filled = [sum(p is not None for p in row) for row in rows]
        n = next((r for r, k in enumerate(filled) if k < g.holes), g.rows)
        for r in range(n, g.rows):
            if filled[r] and r > n:
                raise NotAMove(f"{what}: row {r + 1} was filled before row {n + 1}")
            if filled[r] and r == n:
                raise NotAMove(f"{what}: row {r + 1} has {filled[r]} pegs; a guess fills all "
                               f"{g.holes} holes")
        return [tuple(row) for row in rows[:n]]

    def _check_colours(self, grid: Grid, what: str) -> None:
        g = self.game
        for r in range(g.rows):
            for hole, peg in enumerate(grid[g.grid_row(r)], 1):
                if peg is not None and peg not in g.palette:
                    raise NotAMove(f"unknown colour {peg!r} at row {r + 1}, hole {hole} "
                                   f"(palette: {', '.join(g.palette)})")

    def move_from_change(self, after: Grid) -> Guess | NewRound:
        """The guess (or the clearing) the next reading shows; NotAMove if it shows none."""
        g = self.game
        grid = check_grid(after, g.rows, g.cols)
        self._check_colours(grid, "reading")
        change = Change.between(self.cells(), grid)
        if change.is_empty():
            raise NotAMove("nothing changed on the board")
        if not any(p is not None for row in grid for p in row):
            return NEW_ROUND
        row_of = {g.grid_row(r): r for r in range(g.rows)}  # grid row -> guess row
        played = len(self.round.guesses)

        def where(cell) -> str:
            return f"row {row_of[cell[0]] + 1}, hole {cell[1] + 1}"

        for cell, (old, new) in sorted(change.altered.items()):
            return _raise(f"a peg changed in an earlier row ({where(cell)}: {old} -> {new})")
        for cell, old in sorted(change.removed.items()):
            return _raise(f"a peg was removed from an earlier row ({where(cell)}: {old}); "
                          "pegs stay until the round ends")
        if self.is_round_over():
            return _raise(f"round {self.round_index + 1} is over: clear the board to start "
                          "the next round" if not self.is_terminal() else "the match is over")
        rows = sorted({row_of[r] for r, _ in change.added})
        if rows[0] > played:
            return _raise(f"row {rows[0] + 1} was filled before row {played + 1}")
        if len(rows) > 1:
            named = ", ".join(str(r + 1) for r in rows)
            return _raise(f"pegs appeared in rows {named}; a turn fills one row "
                          f"(row {played + 1})")
        pegs = grid[g.grid_row(played)]
        count = sum(p is not None for p in pegs)
        if count < g.holes:
            return _raise(f"the guess row (row {played + 1}) has {count} "
                          f"peg{'s' * (count != 1)}; a guess fills all {g.holes} holes")
        return Guess(tuple(pegs))

    def judge_change(self, after: Grid, feedback: Sequence[int] | None = None) -> Verdict:
        """Judge the next reading; ``feedback`` is the codemaker's [red, white], if known.

        Without the secret or the feedback a well-formed guess is legal with feedback None
        and score 0 (it cannot be scored, and is not played by ``apply_change``).
        """
        try:
            move = self.move_from_change(after)
        except RefereeError as exc:
            return Verdict.illegal(str(exc))
        if isinstance(move, Guess) and self.secret is None and feedback is None:
            return Verdict(legal=True, move=move.notation, details={
                "kind": "guess", "round": self.round_index + 1,
                "row": len(self.round.guesses) + 1, "player": self.guesser,
                "codemaker": self.codemaker, "feedback": None, "cracked": None,
                "game_over": False})
        try:
            verdict = self.apply(move, feedback)
        except IllegalMove as exc:
            return Verdict.illegal(str(exc), move=move.notation)
        self.pop()
        return verdict

    def apply_change(self, after: Grid, feedback: Sequence[int] | None = None) -> Verdict:
        """Judge the next reading and, when it is a legal move that can be scored, play it."""
        verdict = self.judge_change(after, feedback)
        if verdict.legal and verdict.details.get("feedback", True) is not None:
            move = verdict.move
            self.apply(NEW_ROUND if move == NEW_ROUND.notation else Guess.from_notation(move),
                       feedback)
        return verdict


def _raise(message: str):
    raise NotAMove(message)


GAME_CLASS = MastermindGame
