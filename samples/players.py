"""Simple automatic players that play whole games through the referee.

The referee tracks only what the camera can: the board, scores and the *sizes* of racks,
hands and bags. The players here hold the rest: the actual tiles on each rack, a seeded
pouch or bag to draw from, the Mastermind secret. A :class:`Match` plays a game move by
move and yields one :class:`Step` per move, each already applied to ``match.state`` with
:meth:`referee.core.State.apply` (an illegal choice would raise
:class:`referee.core.IllegalMove`, so the players provably play by the rules).

- Mixmath and Calculissimo: greedy. Mixmath places the highest-scoring valid tile, one at a
  time, until none fits, then ends the turn (taking the bonus draw after covering a sign
  square); Calculissimo lays the highest-scoring play of up to ``max_tokens`` tokens.
  Both exchange the whole rack/hand when nothing fits, and pass once the pouch/bag is empty
  or the table has been stuck for a few rounds.
- Mastermind: the codemaker draws a seeded secret; the guesser keeps the codes consistent
  with every feedback so far and plays a random one of them.
- Breakthrough: wins when it can, never leaves the opponent a winning reply when it can
  avoid it, captures when it safely can, else a random safe move.

>>> match = new_match("breakthrough", seed=3)
>>> step = next(match.steps())
>>> step.player, step.changes_board, match.state.turn
(0, True, 'b')
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import referee
from referee import breakthrough as bt
from referee import calculissimo as calc
from referee import mastermind as mm
from referee import mixmath as mx
from referee.core import State, cell_name

MAX_TURNS = 1000
"""A match stops after this many turns even when the game is not over (a safety net)."""
IDLE_ROUNDS = 3
"""After this many rounds in which nobody placed anything, players stop exchanging and
pass (an exchange is not a pass, so players who always exchange would never end a game)."""


@dataclass(frozen=True)
class Step:
    """One move as it was played: who, what (the game's notation), its verdict's score.

    ``changes_board``: the move puts something on the board (or clears it), so the camera
    sees it; otherwise (end of turn, pass, exchange, bonus draw) the players tell the
    table. ``context``: what the camera cannot see and the players tell the referee, as
    ``State.apply_change`` takes it (Mixmath ``blanks``, Calculissimo ``jokers``).
    ``turn_over``: the player's turn ends with this move. ``facts``: game-specific
    details (Mastermind feedback and round, Breakthrough capture, the drawn tiles' count).
    """

    player: int
    move: str
    score: int
    changes_board: bool
    turn_over: bool
    context: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)


class Bag:
    """A seeded pouch or bag: items come out in a shuffled order; returned ones are mixed in.

    >>> bag = Bag("abcde", random.Random(1))
    >>> hand = bag.draw(2); len(hand), len(bag)
    (2, 3)
    >>> bag.put_back(hand); len(bag)
    5
    """

    def __init__(self, items: Iterable[Any], rng: random.Random):
        self.rng = rng
        self.items = list(items)
        rng.shuffle(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def draw(self, n: int) -> list[Any]:
        n = min(n, len(self.items))
        drawn, self.items = self.items[:n], self.items[n:]
        return drawn

    def put_back(self, items: Iterable[Any]) -> None:
        self.items += list(items)
        self.rng.shuffle(self.items)


class Match:
    """A game played by automatic players: the referee's state plus the hidden information.

    ``steps()`` plays to the end (or ``MAX_TURNS``), yielding a :class:`Step` per move;
    ``left_in_hands()`` says what each player still holds (for the end-of-game penalties),
    ``finish()`` applies them once the game is over.
    """

    game_name: str
    state: State

    def __init__(self, players: int = 2, seed: int = 0, **options: Any):
        self.rng = random.Random(seed)
        self.players = players
        self.idle_turns = 0  # turns in a row, of any player, that placed nothing

    def may_exchange(self, bag: Bag) -> bool:
        """Exchange when stuck, while the bag has tiles and the table is not stuck too."""
        return len(bag) > 0 and self.idle_turns < IDLE_ROUNDS * self.players

    def steps(self) -> Iterator[Step]:
        raise NotImplementedError

    def left_in_hands(self) -> list[list[Any]] | None:
        return None

    def finish(self) -> list[int] | None:
        """The final scores after the end-of-game penalties (None if the game has none)."""
        return None

    def _check_counts(self, held: list[list[Any]], bag: Bag, sizes: list[int],
                      bag_size: int) -> None:
        # The referee counts what the camera cannot see; the players' tiles must agree.
        if [len(h) for h in held] != list(sizes) or len(bag) != bag_size:
            raise AssertionError(f"{self.game_name}: players hold {[len(h) for h in held]} and "
                                 f"the bag {len(bag)}; the referee counts {sizes} and "
                                 f"{bag_size}")


# -- Mixmath ---------------------------------------------------------------------------------


class MixmathMatch(Match):
    """Greedy Mixmath players with a seeded pouch (blanks are ``mixmath.BLANK``).

    A player places the best-scoring valid tile (a numbered tile before a blank; a blank
    takes the largest value its square allows), one at a time, taking the bonus draw
    after each sign square when ``bonus_draws``; with nothing placed and nothing valid it
    exchanges the whole rack, or passes when the pouch is empty or nobody could place
    anything for ``IDLE_ROUNDS`` rounds.

    >>> match = MixmathMatch(seed=1)
    >>> first_turn = list(itertools.islice(match.steps(), 6))
    >>> [(s.move, s.score) for s in first_turn]    # 6H: 2 + 4 below it; ...; the turn: 17
    [('6H=6', 6), ('6G=4', 4), ('7F=3', 3), ('6F=2', 2), ('6E=2', 2), ('end', 17)]
    """

    game_name = "mixmath"

    def __init__(self, players: int = 2, seed: int = 0, bonus_draws: bool = True,
                 definition: dict | None = None, **options: Any):
        super().__init__(players, seed)
        game: mx.MixmathGame = referee.load("mixmath", definition)
        self.state: mx.MixmathState = game.new_initial_state(players=players)
        tiles = [v for v, n in sorted(game.tiles.items()) for _ in range(n)]
        self.pouch = Bag(tiles + [mx.BLANK] * game.blanks, self.rng)
        self.racks = [self.pouch.draw(game.rack_size) for _ in range(players)]
        self.bonus_draws = bonus_draws
        self._check()

    def _check(self) -> None:
        self._check_counts(self.racks, self.pouch, self.state.racks, self.state.pouch)

    def best_placement(self) -> mx.Placement | None:
        """The valid placement from the current rack scoring most (None when none fits)."""
        state = self.state
        rack = self.racks[state.current_player]
        best, best_key = None, None
        for move in state.legal_moves(rack):
            if not isinstance(move, mx.Placement):
                continue
            score = state.placement_score(move, len(state.directions_solved(move.cell,
                                                                            move.value)))
            key = (score, not move.blank, move.value)
            if best_key is None or key > best_key:
                best, best_key = move, key
        return best

    def steps(self) -> Iterator[Step]:
        state = self.state
        for _ in range(MAX_TURNS):
            if state.is_terminal():
                return
            yield from self._turn()

    def _turn(self) -> Iterator[Step]:
        state, player = self.state, self.state.current_player
        rack = self.racks[player]
        while (placement := self.best_placement()) is not None:
            verdict = state.apply(placement)
            rack.remove(mx.BLANK if placement.blank else placement.value)
            context = {"blanks": [cell_name(placement.cell)]} if placement.blank else {}
            yield Step(player, str(placement), verdict.score, True, False, context,
                       {"directions": verdict.details["directions"]})
            if self.bonus_draws and state.bonus_draw_available:
                state.apply(mx.BonusDraw())
                rack += self.pouch.draw(1)
                self._check()
                yield Step(player, str(mx.BonusDraw()), 0, False, False)
        self.idle_turns = 0 if state.turn else self.idle_turns + 1
        if state.turn:
            move = mx.EndTurn()
        elif self.may_exchange(self.pouch):
            move = mx.Exchange(min(len(rack), len(self.pouch)))
        else:
            move = mx.Pass()
        if isinstance(move, mx.Exchange):
            # New tiles first, then the old ones go back: a tile is never drawn again at once.
            old = [rack.pop() for _ in range(move.n)]
            rack += self.pouch.draw(move.n)
            self.pouch.put_back(old)
        verdict = state.apply(move)
        rack += self.pouch.draw(state.racks[player] - len(rack))  # the refill the referee counted
        self._check()
        yield Step(player, str(move), verdict.score, False, True,
                   facts={"full_rack_bonus": verdict.details.get("full_rack_bonus", 0)})

    def left_in_hands(self) -> list[list[Any]]:
        return [list(rack) for rack in self.racks]

    def finish(self) -> list[int] | None:
        if not self.state.is_terminal():
            return None
        return self.state.finish(self.left_in_hands())


# -- Calculissimo ------------------------------------------------------------------------------


class CalculissimoMatch(Match):
    """Greedy Calculissimo players with a seeded bag (jokers are ``calculissimo.JOKER``).

    Each turn lays the highest-scoring legal play of up to ``max_tokens`` tokens (fewer
    jokers first on a tie); with no play it exchanges the whole hand, or passes when the
    bag is empty or nobody could play for ``IDLE_ROUNDS`` rounds. A player who empties
    the hand draws and plays again, as the referee says.
    """

    game_name = "calculissimo"

    def __init__(self, players: int = 2, seed: int = 0, max_tokens: int = 3,
                 definition: dict | None = None, **options: Any):
        super().__init__(players, seed)
        game: calc.CalculissimoGame = referee.load("calculissimo", definition)
        self.state: calc.CalculissimoState = game.new_initial_state(players=players)
        d = game.definition
        tokens = [t for t, n in sorted(d["tokens"].items()) for _ in range(n)]
        self.bag = Bag(tokens + [calc.JOKER] * d["jokers"], self.rng)
        self.hands = [self.bag.draw(game.hand_size) for _ in range(players)]
        self.max_tokens = max_tokens
        self._check()

    def _check(self) -> None:
        self._check_counts(self.hands, self.bag, self.state.hand_sizes, self.state.bag_size)

    def best_play(self) -> tuple[calc.Play, int] | None:
        """The legal play from the current hand scoring most, with its score."""
        state = self.state
        hand = self.hands[state.current_player]
        best, best_key = None, None
        for move in state.legal_moves(hand, max_tokens=self.max_tokens):
            if not isinstance(move, calc.Play):
                continue
            score = state.judge_move(move).score
            jokers = move.hand_tokens[calc.JOKER]
            key = (score, -jokers, len(move))
            if best_key is None or key > best_key:
                best, best_key = (move, score), key
        return best

    def steps(self) -> Iterator[Step]:
        state = self.state
        for _ in range(MAX_TURNS):
            if state.is_terminal():
                return
            player = state.current_player
            hand = self.hands[player]
            found = self.best_play()
            if found is not None:
                play, _ = found
                verdict = state.apply(play)
                self.idle_turns = 0
                used = play.hand_tokens
                for token, n in used.items():
                    for _ in range(n):
                        hand.remove(token)
                hand += self.bag.draw(state.hand_sizes[player] - len(hand))
                self._check()
                jokers = {cell_name(cell): value[1:] for cell, value in play.tokens
                          if calc.split_token(value)[1]}
                yield Step(player, str(play), verdict.score, True, True,
                           {"jokers": jokers} if jokers else {},
                           {"hand_emptied": verdict.details["hand_emptied"]})
                continue
            self.idle_turns += 1
            if self.may_exchange(self.bag):
                move = calc.Exchange(len(hand))
                old = list(hand)
                hand[:] = self.bag.draw(len(old))
                self.bag.put_back(old)
            else:
                move = calc.Pass()
            verdict = state.apply(move)
            self._check()
            yield Step(player, str(move), verdict.score, False, True)

    def left_in_hands(self) -> list[list[Any]]:
        return [list(hand) for hand in self.hands]

    def finish(self) -> list[int] | None:
        if not self.state.is_terminal():
            return None
        return self.state.finish(self.left_in_hands())


# -- Mastermind --------------------------------------------------------------------------------


def consistent(codes: Iterable[tuple[str, ...]], guess: tuple[str, ...],
               fb: tuple[int, int]) -> list[tuple[str, ...]]:
    """The codes that would have given ``fb`` to ``guess``: the ones still possible.

    >>> consistent([("a", "b"), ("b", "a"), ("a", "c")], ("a", "b"), (0, 2))
    [('b', 'a')]
    """
    return [code for code in codes if mm.feedback(code, guess) == fb]


class MastermindMatch(Match):
    """A codemaker with seeded secrets and guessers that use the feedback.

    The guessers know the rules: without ``repeats`` a secret has no repeated colour, so
    only such codes are candidates; every guess is a random candidate consistent with all
    feedback of the round (so the code is cracked within the 12 rows).
    """

    game_name = "mastermind"

    def __init__(self, players: int = 2, seed: int = 0, definition: dict | None = None,
                 **options: Any):
        super().__init__(players, seed)
        self.game: mm.MastermindGame = referee.load("mastermind", definition)
        self.state: mm.MastermindState = self.game.new_initial_state(players=players)
        self.secrets: list[tuple[str, ...]] = []
        self._new_secret()

    def all_codes(self) -> list[tuple[str, ...]]:
        g = self.game
        if g.repeats:
            return list(itertools.product(g.palette, repeat=g.holes))
        return list(itertools.permutations(g.palette, g.holes))

    def _new_secret(self) -> None:
        secret = self.rng.choice(self.all_codes())
        self.state.set_secret(secret)
        self.secrets.append(tuple(secret))
        self.candidates = self.all_codes()

    def steps(self) -> Iterator[Step]:
        state = self.state
        for _ in range(MAX_TURNS):
            if state.is_terminal():
                return
            if state.is_round_over():
                player = state.current_player
                verdict = state.apply(mm.NEW_ROUND)
                self._new_secret()
                yield Step(player, verdict.move, 0, True, True,
                           facts={"round": verdict.details["round"]})
                continue
            guess = self.rng.choice(self.candidates)
            verdict = state.apply(mm.Guess(guess))
            fb = tuple(verdict.details["feedback"])
            self.candidates = consistent(self.candidates, guess, fb)
            facts = {k: verdict.details[k] for k in ("round", "row", "feedback", "cracked")}
            facts["round_over"] = bool(verdict.details.get("round_over"))
            yield Step(verdict.details["player"], verdict.move, verdict.score, True, True,
                       facts=facts)


# -- Breakthrough ------------------------------------------------------------------------------


class BreakthroughMatch(Match):
    """Players that win when they can, avoid handing the opponent a win, and like captures.

    ``definition`` may give another board size (``rows``, ``cols``).
    """

    game_name = "breakthrough"

    def __init__(self, players: int = 2, seed: int = 0, definition: dict | None = None,
                 **options: Any):
        super().__init__(players, seed)
        self.state: bt.BreakthroughState = referee.load(
            "breakthrough", definition).new_initial_state(players=players)

    def _wins(self, move: bt.Move) -> bool:
        state, colour = self.state, self.state.turn
        state.apply(move)
        won = state.winner == colour
        state.pop()
        return won

    def _gives_a_win(self, move: bt.Move) -> bool:
        """Whether the opponent has a winning reply after ``move``."""
        state = self.state
        state.apply(move)
        try:
            return any(self._wins(reply) for reply in state.legal_moves())
        finally:
            state.pop()

    def choose(self) -> bt.Move:
        moves = self.state.legal_moves()
        winning = [m for m in moves if self._wins(m)]
        if winning:
            return self.rng.choice(winning)
        safe = [m for m in moves if not self._gives_a_win(m)] or moves
        captures = [m for m in safe if m.is_capture]
        return self.rng.choice(captures or safe)

    def steps(self) -> Iterator[Step]:
        state = self.state
        for _ in range(MAX_TURNS):
            if state.is_terminal():
                return
            player = state.current_player
            verdict = state.apply(self.choose())
            yield Step(player, verdict.move, verdict.score, True, True,
                       facts={"capture": verdict.details["capture"],
                              "winner": verdict.details["winner"]})


MATCHES = {m.game_name: m for m in (MixmathMatch, CalculissimoMatch, MastermindMatch,
                                    BreakthroughMatch)}


def new_match(game: str, players: int = 2, seed: int = 0, **options: Any) -> Match:
    """Automatic players for ``game`` (options: Mixmath ``bonus_draws``, Calculissimo
    ``max_tokens``, any game ``definition``)."""
    if game not in MATCHES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(MATCHES)}")
    return MATCHES[game](players=players, seed=seed, **options)

