"""Every game through the one shape of referee.core (OpenSpiel-style): random legal play to
the end, cross-checked against the camera's path.

Two copies of a game are kept in step: one plays each chosen move directly, the other only
sees the board after it (``apply_change``), as the table will. They must agree on every
verdict, every score and every board; moves that change nothing on the board (end of turn,
pass) go to both directly.
"""

import itertools
import random

import pytest

import referee
from referee.core import GAMES, State

MOVES_SAMPLED = 400  # legal_moves may be a lazy generator (Calculissimo): take a prefix


def new_game(name: str, rng: random.Random) -> State:
    state = referee.load(name).new_initial_state(players=2)
    give_secret(state, rng)
    return state


def give_secret(state: State, rng: random.Random) -> None:
    """Mastermind's codemaker sets a secret at the start of each round."""
    if getattr(state, "secret", "n/a") is None:
        state.set_secret(rng.sample(state.game.palette, state.game.holes))


def told_by_players(name: str, move: str) -> dict:
    """What the camera cannot see and the players tell the table: the values of Mixmath
    blanks and Calculissimo jokers, both written "CELL=?VALUE" in move notation."""
    declared = dict(part.split("=?") for part in move.split() if "=?" in part)
    if name == "mixmath" and declared:
        return {"blanks": list(declared)}
    if name == "calculissimo" and declared:
        return {"jokers": declared}
    return {}


def play_random_game(name: str, seed: int, max_steps: int = 250):
    rng = random.Random(seed)
    direct, seen = new_game(name, random.Random(seed)), new_game(name, random.Random(seed))
    rng_secret = random.Random(seed + 1)
    for _ in range(max_steps):
        if direct.is_terminal():
            break
        moves = list(itertools.islice(direct.legal_moves(), MOVES_SAMPLED))
        assert moves, f"{name}: no legal move in a running game"
        move = rng.choice(moves)
        before = direct.cells()
        verdict = direct.apply(move)
        assert verdict.legal and verdict.reason is None
        after = direct.cells()
        if after != before:
            seen_verdict = seen.apply_change(after, **told_by_players(name, verdict.move))
            assert seen_verdict.legal, seen_verdict.reason
            assert seen_verdict.score == verdict.score
        else:
            seen.apply(move)
        assert seen.cells() == direct.cells()
        assert seen.scores == direct.scores
        assert seen.current_player == direct.current_player
        secret_seed = rng_secret.random()
        for state in (direct, seen):  # the same new secret in both copies
            give_secret(state, random.Random(secret_seed))
    return direct


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_play_agrees_with_the_camera_path(name, seed):
    state = play_random_game(name, seed)
    assert len(state.scores) == 2
    assert all(isinstance(s, int) for s in state.scores)


@pytest.mark.parametrize("name", ["breakthrough", "mastermind"])
def test_short_games_reach_their_end(name):
    # Breakthrough always ends (pieces only move forward); two Mastermind rounds of random
    # guesses end within 24 rows.
    state = play_random_game(name, seed=11, max_steps=400)
    assert state.is_terminal()


@pytest.mark.parametrize("name", GAMES)
def test_an_unchanged_picture_is_not_a_move(name):
    state = new_game(name, random.Random(0))
    verdict = state.judge_change(state.cells())
    assert not verdict.legal and verdict.reason


@pytest.mark.parametrize("name", GAMES)
def test_a_picture_of_the_wrong_size_is_not_a_move(name):
    state = new_game(name, random.Random(0))
    verdict = state.judge_change([[None] * 3] * 3)
    assert not verdict.legal and verdict.reason
