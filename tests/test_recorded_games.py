"""Recorded games (samples.players, samples.record, samples/games/): the committed truth
re-judged from the photos' cells alone gives back every move and score, recordings are
reproducible, and the automatic players only make legal moves."""

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

import referee
from referee import breakthrough as bt
from referee import mastermind as mm
from referee.core import GAMES, Change
from samples import players as pl
from samples.record import (COMMITTED, DEFAULT_RESOLUTION, main, record_game, rejudge,
                            told_move)

GAMES_DIR = Path(__file__).parents[1] / "samples" / "games"
MAX_COMMITTED_BYTES = 6_000_000


def committed(game: str) -> dict:
    return json.loads((GAMES_DIR / game / "game.json").read_text())


def play_of(truth: dict) -> dict:
    """The game played, without how it was photographed."""
    keep = ("file", "cells", "move", "player", "score", "totals", "turn", "step", "context")
    return {"turns": truth["turns"], "scores": truth["scores"],
            "photos": [{k: p[k] for k in keep if k != "file"} for p in truth["photos"]]}


# -- the committed recordings -------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_committed_recording_exists_with_its_photos(game):
    truth = committed(game)
    assert truth["game"] == game
    assert 8 <= len(truth["photos"]) <= 15
    for photo in truth["photos"]:
        path = GAMES_DIR / game / photo["file"]
        assert path.suffix == ".jpg" and path.exists(), path
    last = cv2.imread(str(GAMES_DIR / game / truth["photos"][-1]["file"]))
    assert last is not None and last.shape[1::-1] == tuple(truth["resolution"])
    # every JPEG in the folder belongs to the truth (no stale photos)
    assert {p.name for p in (GAMES_DIR / game).glob("*.jpg")} == \
        {p["file"] for p in truth["photos"]}


def test_committed_recordings_stay_small():
    size = sum(p.stat().st_size for p in GAMES_DIR.rglob("*") if p.is_file())
    assert size < MAX_COMMITTED_BYTES


@pytest.mark.parametrize("game", GAMES)
def test_rejudging_the_committed_cells_gives_every_move_and_score(game):
    truth = committed(game)
    again = rejudge(truth)
    assert [p["move"] for p in again["photos"]] == [p["move"] for p in truth["photos"]]
    assert [p["score"] for p in again["photos"]] == [p["score"] for p in truth["photos"]]
    assert [p["totals"] for p in again["photos"]] == [p["totals"] for p in truth["photos"]]
    assert again["turns"] == [t["score"] for t in truth["turns"]]
    assert again["scores"] == truth["scores"]
    assert again["finished"] == truth["finished"]


@pytest.mark.parametrize("game", GAMES)
def test_committed_cells_are_the_referees_board_one_move_apart(game):
    truth = committed(game)
    again = rejudge(truth)
    previous = referee.load(game).new_initial_state().cells()
    for photo, seen in zip(truth["photos"], again["photos"]):
        assert photo["cells"] == seen["cells"], photo["file"]
        change = Change.between(previous, photo["cells"])
        if game == "mixmath":  # a photo after every tile
            assert len(change.added) == 1 and not change.removed and not change.altered
        elif game == "breakthrough":  # one piece left its square
            assert len(change.removed) == 1
        elif game == "mastermind" and photo["move"] != mm.NEW_ROUND.notation:
            assert len(change.added) == truth["cols"] and not change.removed
        previous = photo["cells"]


@pytest.mark.parametrize("game", GAMES)
def test_committed_recording_is_what_its_recipe_plays_today(game):
    # If a referee or player change alters the game, the committed recording is stale:
    # remake it with `python -m samples.record --committed samples/games`.
    again = record_game(game, **COMMITTED[game], photos=False)
    assert play_of(again) == play_of(committed(game))


@pytest.mark.parametrize("game", GAMES)
def test_committed_photos_share_one_jittered_camera(game):
    truth = committed(game)
    base, jitter = truth["camera"], truth["camera"]["jitter"]
    w, h = truth["resolution"]
    for photo in truth["photos"]:
        pose = photo["pose"]
        assert abs(pose["elevation"] - base["elevation"]) <= jitter["elevation"] + 1e-9
        turn = (pose["azimuth"] - base["azimuth"] + 180) % 360 - 180
        assert abs(turn) <= jitter["azimuth"] + 1e-9
        assert abs(pose["distance"] / base["distance"] - 1) <= jitter["distance"] + 1e-9
        corners = np.array(photo["corners"])
        assert (corners >= 0).all() and (corners[:, 0] < w).all() and (corners[:, 1] < h).all()
    # the board barely moves between photos: a tripod, not a new shot
    spread = np.ptp([np.array(p["corners"]) for p in truth["photos"]], axis=0)
    assert spread.max() < 0.05 * min(w, h)


def test_committed_mixmath_tells_the_blank_and_draws_it_blank():
    truth = committed("mixmath")
    blanks = [p for p in truth["photos"] if p["context"].get("blanks")]
    assert blanks, "the committed Mixmath game shows a blank (pick another recipe if not)"
    photo = blanks[0]
    assert "=?" in photo["move"] and photo["score"] == 0


def test_committed_mastermind_is_a_whole_match_with_its_secrets():
    truth = committed("mastermind")
    assert truth["finished"] and len(truth["secrets"]) == 2
    assert mm.NEW_ROUND.notation in [p["move"] for p in truth["photos"]]


# -- recording: reproducible, and what the truth says ------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_recording_the_same_seed_twice_gives_the_same_truth(game):
    first = record_game(game, 7, max_turns=6, photos=False)
    assert record_game(game, 7, max_turns=6, photos=False) == first
    other = record_game(game, 8, max_turns=6, photos=False)
    assert play_of(other) != play_of(first)


def test_recorded_photos_are_identical_bytes_for_the_same_seed(tmp_path):
    truths = [record_game("breakthrough", 3, tier=2, max_turns=2, outdir=tmp_path / k)
              for k in ("a", "b")]
    assert truths[0] == truths[1]
    for photo in truths[0]["photos"]:
        assert (tmp_path / "a" / photo["file"]).read_bytes() == \
            (tmp_path / "b" / photo["file"]).read_bytes()
    assert json.loads((tmp_path / "a" / "game.json").read_text()) == truths[0]


def test_caps_stop_at_the_end_of_a_turn():
    truth = record_game("mixmath", 2, max_photos=5, photos=False)
    assert len(truth["photos"]) >= 5
    assert len(truth["photos"]) - len(truth["turns"][-1]["photos"]) < 5
    assert truth["turns"][-1]["moves"][-1] in ("end", "pass") or \
        truth["turns"][-1]["moves"][-1].startswith("exchange")
    assert len(record_game("calculissimo", 2, max_turns=3, photos=False)["turns"]) == 3


def test_the_command_line_writes_the_truth(tmp_path):
    assert main(["--game", "mastermind", "--seed", "4", "--max-turns", "3", "--truth-only",
                 str(tmp_path)]) == 0
    truth = json.loads((tmp_path / "game.json").read_text())
    assert truth["game"] == "mastermind" and len(truth["turns"]) == 3
    assert truth["resolution"] == list(DEFAULT_RESOLUTION)
    assert not list(tmp_path.glob("*.jpg"))


def test_told_moves_are_parsed_or_refused():
    assert str(told_move("mixmath", "draw")) == "draw"
    assert str(told_move("calculissimo", "exchange 7")) == "exchange 7"
    with pytest.raises(ValueError):
        told_move("breakthrough", "pass")


def test_breakthrough_on_another_board_size():
    truth = record_game("breakthrough", 5, rows=5, cols=5, photos=False)
    assert truth["finished"] and (truth["rows"], truth["cols"]) == (5, 5)
    assert len(truth["photos"][0]["cells"]) == 5
    assert rejudge(truth)["scores"] == truth["scores"]
    with pytest.raises(ValueError):
        record_game("mixmath", 1, rows=5, photos=False)


# -- the players: whole games, legal throughout ------------------------------------------------


@pytest.mark.parametrize("game,seed", [("mixmath", s) for s in (11, 12, 13)]
                         + [("mastermind", s) for s in (11, 12, 13)]
                         + [("breakthrough", s) for s in (11, 12)]
                         + [pytest.param("calculissimo", 11, marks=pytest.mark.slow)])
def test_whole_games_are_legal_and_replay_from_the_cells(game, seed):
    # record_game applies every move with State.apply (an IllegalMove would raise); the
    # referee then re-judges the game from the cells of the photos alone.
    truth = record_game(game, seed, photos=False)
    assert truth["finished"]
    again = rejudge(truth)
    assert again["finished"]
    assert [p["score"] for p in again["photos"]] == [p["score"] for p in truth["photos"]]
    assert again["turns"] == [t["score"] for t in truth["turns"]]
    assert again["scores"] == truth["scores"]
    if truth["penalties"] is not None:  # Mixmath and Calculissimo: what was left in hand
        assert len(truth["hands"]) == truth["players"]


def full_set(match: pl.Match) -> Counter:
    if isinstance(match, pl.MixmathMatch):
        g = match.state.game
        return Counter({**g.tiles, pl.mx.BLANK: g.blanks})
    d = match.state.game.definition
    return Counter({**d["tokens"], pl.calc.JOKER: d["jokers"]})


def in_play(match: pl.Match) -> Counter:
    """Every tile or token: on the board, in a hand, in the pouch or bag."""
    if isinstance(match, pl.MixmathMatch):
        state, g = match.state, match.state.game
        cells = [(r, c) for r in range(g.rows) for c in range(g.cols)
                 if state.tile((r, c)) is not None and (r, c) not in g.fixed]
        board = [pl.mx.BLANK if cell in state.blank_cells else state.tile(cell)
                 for cell in cells]
        return Counter(board + [t for rack in match.racks for t in rack] + match.pouch.items)
    board = list(match.state.board.values())
    return Counter(board + [t for hand in match.hands for t in hand] + match.bag.items)


@pytest.mark.parametrize("game", ["mixmath", "calculissimo"])
def test_no_tile_is_lost_or_made_between_racks_pouch_and_board(game):
    match = pl.new_match(game, seed=5)
    whole = full_set(match)
    for i, _ in enumerate(match.steps()):
        assert in_play(match) == whole
        if i > 60:
            break


@pytest.mark.parametrize("players", [3, 4])
def test_more_players_take_turns_in_order(players):
    truth = record_game("mixmath", 3, players=players, max_turns=2 * players, photos=False)
    assert [t["player"] for t in truth["turns"]] == list(range(players)) * 2
    assert rejudge(truth)["scores"] == truth["scores"]


@pytest.mark.parametrize("seed", range(6))
def test_mastermind_guesses_use_all_the_feedback(seed):
    truth = record_game("mastermind", seed, photos=False)
    rows: list = []
    for photo in truth["photos"]:
        if photo["move"] == mm.NEW_ROUND.notation:
            rows = []
            continue
        guess = tuple(photo["move"].split())
        for earlier, fb in rows:  # the guess could still be the secret
            assert mm.feedback(guess, earlier) == fb
        rows.append((guess, tuple(photo["feedback"])))
    assert truth["finished"]
    assert all(len(set(s)) == 4 for s in truth["secrets"])  # no repeats by default


@pytest.mark.parametrize("seed", range(4))
def test_breakthrough_player_takes_a_win_and_leaves_none(seed):
    match = pl.new_match("breakthrough", seed=seed)
    state = match.state
    for step in match.steps():
        state.pop()
        mover = state.turn
        moves = state.legal_moves()
        wins = [m for m in moves if match._wins(m)]
        played = bt.Move.from_notation(step.move)
        if wins:
            assert match._wins(played)
        elif any(not match._gives_a_win(m) for m in moves):
            assert not match._gives_a_win(played)
        state.apply(played)
        assert state.turn != mover
