"""Recorded games: automatic players play a whole game and a fixed phone photographs it.

:func:`record_game` plays a game through the referee with :mod:`samples.players` and
photographs the board after every move the camera can see (Mixmath: every tile;
Calculissimo: every play; Mastermind: every guess row, with its key pegs, and the cleared
board between rounds; Breakthrough: every move) with :func:`samples.render.render`. The
photos share one :class:`Session`: one set, one table and light, one camera pose, as a
phone on a tripod or propped against a cup would see the game; every photo moves the pose
and the light by a little (:class:`Jitter`). The truth goes beside the photos as
``game.json``::

    {"game", "rows", "cols", "players", "tier", "seed", "resolution", "options",
     "style", "set", "camera" (the base pose and the jitter), "scene",
     "photos": [{"file", "cells", "move", "player", "score", "totals", "turn", "step",
                 "context", "corners", "grid_corners", "pose", ...}],
     "turns": [{"player", "moves", "score", "photos"}],
     "scores", "finished", "penalties", "hands", "secrets" (Mastermind)}

``photos[i].cells`` is what the referee is shown (a Mixmath blank reads as its declared
value; the photo draws it blank), ``context`` what the players tell it (Mixmath
``blanks``, Calculissimo ``jokers``); ``turns[t].moves`` lists every move of the turn in
notation, also those no photo shows ("draw", "end", "pass", "exchange 3"), and
``photos[i].step`` is the index of the photo's move there. :func:`rejudge` replays the
truth through the referee from the photos' cells alone, as ``boardsight replay`` will
from what vision reads.

Everything derives from ``seed``::

    python -m samples.record --game mixmath --seed 1 --tier 1 OUTDIR
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zlib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

import referee
from calibration.geometry import BoardGeometry
from calibration.styles import Style
from referee import calculissimo as calc
from referee import mastermind as mm
from referee import mixmath as mx
from referee.core import GAMES, IllegalMove, State, load_definition
from samples.camera import Camera, CameraRanges, in_frame, sample_camera
from samples.light import Finish, sample_finish
from samples.players import Match, Step, new_match
from samples.render import render
from samples.solids import Light
from samples.styles import Build, print_set, random_set, style_summary
from samples.table import Table, sample_table

DEFAULT_RESOLUTION = (1280, 960)
JPEG_QUALITY = 85
PHOTO_NAME = "photo-{:03d}.jpg"

SESSION_CAMERA = CameraRanges(roll=(-3.0, 3.0), fill=(0.65, 0.9))
"""A phone set up to watch a game: level-ish, the board well in frame with room to spare."""
COMMITTED = {
    "mixmath": dict(seed=1, tier=2, max_turns=3),  # the Mathable look; a blank, 11 photos
    "calculissimo": dict(seed=1, tier=1, max_turns=10),  # a joker in the second play
    "mastermind": dict(seed=1, tier=2),  # the whole match: two rounds
    "breakthrough": dict(seed=1, tier=1, max_turns=12),
}
"""How the recordings committed in ``samples/games/<game>/`` were made (with
COMMITTED_QUALITY): ``python -m samples.record --committed samples/games``."""
COMMITTED_QUALITY = 80  # keeps the four recordings under 6 MB
MAX_NOISE = 2.0  # sensor noise (1/255) of a recording: grain makes JPEGs large
MAX_BLUR = 1.0  # px at 1080p: a phone on a stand is steady
MAX_VIGNETTE = 0.15
BRIGHTNESS = (0.65, 1.35)  # a game someone is watching is lit well enough to play
OBJECT_SHARE = 0.5  # of recordings with a cup, a notepad or a rack on the table
TABLE_OBJECTS = ("cup", "pad", "rack")  # things that stay put during a game


@dataclass(frozen=True)
class Jitter:
    """How much one photo's pose and light differ from the session's (uniform, +-).

    A tripod or a propped phone: the camera is touched or the table nudged between
    photos, and the daylight changes a little.
    """

    elevation: float = 0.6  # degrees
    azimuth: float = 0.6  # degrees
    roll: float = 0.3  # degrees
    distance: float = 0.006  # share of the distance
    target_mm: float = 1.5  # where the optical axis meets the board
    light_deg: float = 2.0  # the key light's direction and elevation
    brightness: float = 0.03  # share
    kelvin: float = 60.0


@dataclass(frozen=True)
class Session:
    """Everything a recorded game's photos share: the set, the table, light and camera."""

    style: Style
    geometry: BoardGeometry
    build: Build
    table: Table
    light: Light
    camera: Camera
    finish: Finish
    objects: tuple[str, ...] = ()  # things beside the board: they mostly stay where they
    # are (one render seed), now and then one is moved (when the jittered view makes the
    # renderer try another spot), as people do
    jitter: Jitter = Jitter()


def _rng(seed: int, game: str, part: str) -> np.random.Generator:
    """The random stream of one part of a recording (fixing one part leaves the others;
    games recorded with the same seed do not share a table or a pose)."""
    stream = zlib.crc32(f"{game}/{part}".encode())
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, stream])


def sample_session(game: str, tier: int, seed: int, rows: int, cols: int,
                   resolution: tuple[int, int] = DEFAULT_RESOLUTION,
                   jpeg_quality: int = JPEG_QUALITY) -> Session:
    """The set, scene, camera pose and base light of one recorded game."""
    if tier == 1:
        style, geometry, build = print_set(game, rows, cols)
    elif tier == 2:
        style, geometry, build = random_set(game, _rng(seed, game, "set"), "train", rows, cols)
    else:
        raise ValueError(f"tier is 1 (print-and-play) or 2 (own sets), not {tier!r}")
    rng = _rng(seed, game, "scene")
    table = sample_table(rng)
    a = rng.uniform(0, 2 * math.pi)
    light = Light(direction=(math.cos(a), math.sin(a)), elevation=float(rng.uniform(35, 80)),
                  shadow=float(rng.uniform(0.25, 0.5)), softness=float(rng.uniform(0.05, 0.25)))
    camera = sample_camera(_rng(seed, game, "camera"), geometry, tuple(resolution),
                           SESSION_CAMERA)
    finish = sample_finish(_rng(seed, game, "finish"), tuple(resolution),
                           camera.project(geometry.board_corners_mm()))
    finish = replace(finish, noise=min(finish.noise, MAX_NOISE), blur=min(finish.blur, MAX_BLUR),
                     vignette=min(finish.vignette, MAX_VIGNETTE),
                     brightness=float(np.clip(finish.brightness, *BRIGHTNESS)),
                     jpeg=int(jpeg_quality))
    kinds = [k for k in TABLE_OBJECTS if k != "rack" or game in ("mixmath", "calculissimo")]
    objects: tuple[str, ...] = ()
    if rng.random() < OBJECT_SHARE:
        chosen = sorted(rng.permutation(len(kinds))[:rng.integers(1, 3)])
        objects = tuple(kinds[i] for i in chosen)
    return Session(style, geometry, build, table, light, camera, finish, objects)


def jittered(session: Session, rng: np.random.Generator) -> tuple[Camera, Light, Finish]:
    """One photo's pose, light and finish: the session's, moved by a little (the whole
    board always stays in the picture)."""
    j, cam = session.jitter, session.camera
    for shrink in (1.0, 0.5, 0.25, 0.0):
        u = rng.uniform(-1, 1, 6) * shrink
        pose = replace(cam, elevation=min(90.0, cam.elevation + u[0] * j.elevation),
                       azimuth=(cam.azimuth + u[1] * j.azimuth) % 360.0,
                       roll=cam.roll + u[2] * j.roll,
                       distance=cam.distance * (1 + u[3] * j.distance),
                       target=(cam.target[0] + u[4] * j.target_mm,
                               cam.target[1] + u[5] * j.target_mm))
        if in_frame(pose, session.geometry, 0.01):
            break
    light = session.light
    turn, tilt = np.radians(rng.uniform(-1, 1) * j.light_deg), rng.uniform(-1, 1) * j.light_deg
    dx, dy = light.direction
    light = replace(light, direction=(float(dx * math.cos(turn) - dy * math.sin(turn)),
                                      float(dx * math.sin(turn) + dy * math.cos(turn))),
                    elevation=float(light.elevation + tilt))
    f = session.finish
    finish = replace(f, brightness=float(f.brightness * (1 + rng.uniform(-1, 1) * j.brightness)),
                     kelvin=float(f.kelvin + rng.uniform(-1, 1) * j.kelvin),
                     noise_seed=int(rng.integers(2 ** 31)))
    return pose, light, finish


# -- what the camera is shown ----------------------------------------------------------------


def drawn_cells(game: str, state: State) -> list[list]:
    """The cells as the photo draws them: the referee's cells, but a Mixmath blank is a
    blank tile (the players tell its value; the camera cannot see it)."""
    cells = state.cells()
    if game == "mixmath":
        for r, c in state.blank_cells:
            cells[r][c] = "blank"
    return cells


def key_pegs(game: referee.Game, feedback: list[tuple[int, int]]) -> list:
    """Mastermind key pegs per grid row for the renderer: the round's feedback so far."""
    keys: list = [None] * game.rows
    for row, fb in enumerate(feedback):
        keys[game.grid_row(row)] = tuple(fb)
    return keys


def _definition(game: str, rows: int | None, cols: int | None) -> dict:
    definition = load_definition(game)
    if rows or cols:
        if game != "breakthrough":
            raise ValueError(f"only Breakthrough is played on any R x C board, not {game}")
        definition = {**definition, "rows": rows or definition["rows"],
                      "cols": cols or definition["cols"]}
    return definition


# -- recording ------------------------------------------------------------------------------


def record_game(game: str, seed: int, *, players: int = 2, tier: int = 1,
                max_turns: int | None = None, max_photos: int | None = None,
                resolution: tuple[int, int] = DEFAULT_RESOLUTION,
                outdir: str | Path | None = None, photos: bool = True,
                jpeg_quality: int = JPEG_QUALITY, rows: int | None = None,
                cols: int | None = None, **options: Any) -> dict:
    """Play ``game`` with automatic players and photograph every visible move.

    Parameters
    ----------
    game, seed, players, tier : what is played, on which set (1 print-and-play, 2 own set).
    max_turns : stop after this many turns (None: play to the end).
    max_photos : stop at the end of the turn in which this many photos were taken.
    resolution : (width, height) of the photos.
    outdir : where the JPEGs and ``game.json`` go (None: write nothing).
    photos : False: play and write the truth only (no rendering, no per-photo pose).
    rows, cols : another Breakthrough board size.
    **options : for the players (Mixmath ``bonus_draws``, Calculissimo ``max_tokens``).

    Returns
    -------
    The truth dict written to ``game.json`` (see the module docstring).
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    definition = _definition(game, rows, cols)
    match = new_match(game, players=players, seed=seed, definition=definition, **options)
    rows, cols = definition["rows"], definition["cols"]
    session = sample_session(game, tier, seed, rows, cols, resolution, jpeg_quality)
    out = Path(outdir) if outdir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)

    truth: dict[str, Any] = {
        "game": game, "rows": rows, "cols": cols, "players": players, "tier": tier,
        "seed": seed, "resolution": list(resolution), "options": options,
        "style": style_summary(session.style),
        "set": {"geometry": {"cell_mm": session.geometry.cell_mm,
                             "margins_mm": list(session.geometry.margins_mm),
                             "size_mm": list(session.geometry.size_mm)},
                "build": asdict(session.build)},
        "camera": {**session.camera.as_dict(), "jitter": asdict(session.jitter)},
        "scene": {"table": asdict(session.table), "light": asdict(session.light),
                  "finish": asdict(session.finish), "objects": list(session.objects)},
        "photos": [], "turns": [],
    }
    jitter_rng = _rng(seed, game, "jitter")
    feedback: list[tuple[int, int]] = []  # Mastermind: this round's key pegs
    turn: dict[str, Any] | None = None
    for step in match.steps():
        if turn is None:
            turn = {"player": step.player, "moves": [], "score": 0, "photos": []}
        turn["moves"].append(step.move)
        if game == "mastermind":
            feedback = [] if step.move == mm.NEW_ROUND.notation else feedback + [
                tuple(step.facts["feedback"])]
        if step.changes_board:
            photo = _photo_record(match, step, len(truth["turns"]), len(turn["moves"]) - 1)
            if photos:
                _shoot(photo, match, session, tier, seed, resolution, jitter_rng, feedback,
                       len(truth["photos"]), out)
            turn["photos"].append(len(truth["photos"]))
            truth["photos"].append(photo)
        if step.turn_over:
            turn["score"] = step.score  # a Mixmath turn's end scores the whole turn
            truth["turns"].append(turn)
            turn = None
            if max_turns is not None and len(truth["turns"]) >= max_turns:
                break
            if max_photos is not None and len(truth["photos"]) >= max_photos:
                break
    truth.update(_final(match))
    truth = json.loads(json.dumps(truth))  # as game.json reads back: lists, not tuples
    if out is not None:
        (out / "game.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def _photo_record(match: Match, step: Step, turn: int, index: int) -> dict[str, Any]:
    state = match.state
    record = {"file": None, "cells": state.cells(), "move": step.move, "player": step.player,
              "score": step.score, "totals": state.scores, "turn": turn, "step": index,
              "context": step.context}
    if match.game_name == "mixmath":
        record["turn_score"] = state.turn_score
    record.update(step.facts)
    return record


def _shoot(photo: dict, match: Match, session: Session, tier: int, seed: int,
           resolution: tuple[int, int], rng: np.random.Generator,
           feedback: list[tuple[int, int]], index: int, out: Path | None) -> None:
    """Render the position after ``photo``'s move and note where the board lies in it."""
    game = match.game_name
    pose, light, finish = jittered(session, rng)
    extra = {"keys": key_pegs(match.state.game, feedback)} if game == "mastermind" else {}
    # One render seed for the whole game: things beside the board stay where they are, and
    # the tiles' small offsets come from one stream.
    _, truth, jpeg = render(
        game, drawn_cells(game, match.state), tier=tier, seed=seed, resolution=resolution,
        hand=False, style=session.style, camera=pose, geometry=session.geometry,
        build=session.build, table=session.table, light=light, objects=session.objects,
        **{f.name: getattr(finish, f.name) for f in fields(Finish)}, **extra)
    name = PHOTO_NAME.format(index)
    if out is not None:
        (out / name).write_bytes(jpeg)
    photo["file"] = name
    photo["corners"] = truth["corners"]
    photo["grid_corners"] = truth["grid_corners"]
    photo["pose"] = {k: truth["camera"][k] for k in ("elevation", "azimuth", "roll",
                                                       "distance", "target")}
    photo["objects"] = truth["objects"]
    photo["light"] = {"direction": list(light.direction), "elevation": light.elevation,
                      "brightness": finish.brightness, "kelvin": finish.kelvin}


def _final(match: Match) -> dict[str, Any]:
    state = match.state
    final: dict[str, Any] = {"finished": state.is_terminal(), "hands": match.left_in_hands()}
    before = state.scores
    finished = match.finish()
    final["penalties"] = ([b - a for b, a in zip(before, finished)]
                          if finished is not None else None)
    final["scores"] = state.scores
    if match.game_name == "mastermind":
        final["secrets"] = [list(s) for s in match.secrets]
        final["winners"] = state.winners
    if match.game_name == "breakthrough":
        final["winner"] = state.winner
    return final


# -- replaying the truth ------------------------------------------------------------------------


def told_move(game: str, text: str):
    """A move the camera cannot see, from its notation ("end", "draw", "pass", "exchange 3").

    >>> told_move("mixmath", "exchange 3"), told_move("calculissimo", "pass")
    (Exchange(n=3), Pass())
    """
    module = {"mixmath": mx, "calculissimo": calc}.get(game)
    words = text.split()
    if module is not None:
        if words == ["pass"]:
            return module.Pass()
        if len(words) == 2 and words[0] == "exchange" and words[1].isdigit():
            return module.Exchange(int(words[1]))
        if game == "mixmath" and words == ["end"]:
            return mx.EndTurn()
        if game == "mixmath" and words == ["draw"]:
            return mx.BonusDraw()
    raise ValueError(f"{text!r} is no {game} move the players tell the table")


def rejudge(truth: dict) -> dict[str, Any]:
    """Replay a recorded game through a fresh referee, shown only the photos' cells (and
    told what players tell: blanks, jokers, the moves no photo shows, the Mastermind
    secrets and the hands left at the end).

    Returns ``{"photos": [{"file", "move", "score", "totals", "cells"}], "turns": [score],
    "scores", "finished"}``; raises :class:`referee.core.IllegalMove` naming the photo when
    the referee does not take a photo's change as a legal move.
    """
    game = truth["game"]
    definition = _definition(game, truth["rows"], truth["cols"]) if game == "breakthrough" \
        else None
    state = referee.load(game, definition).new_initial_state(players=truth["players"])
    secrets = iter(truth.get("secrets", ()))
    if game == "mastermind":
        state.set_secret(next(secrets))
    photos = truth["photos"]
    seen, turn_scores = [], []
    for turn in truth["turns"]:
        shots = {photos[i]["step"]: photos[i] for i in turn["photos"]}
        verdict = None
        for j, move in enumerate(turn["moves"]):
            if j not in shots:
                verdict = state.apply(told_move(game, move))
                continue
            photo = shots[j]
            verdict = state.apply_change(photo["cells"], **photo.get("context", {}))
            if not verdict.legal:
                raise IllegalMove(f"{photo['file'] or 'photo'} (turn {photo['turn'] + 1}): "
                                  f"{verdict.reason}")
            if game == "mastermind" and verdict.move == mm.NEW_ROUND.notation:
                state.set_secret(next(secrets))
            seen.append({"file": photo["file"], "move": verdict.move, "score": verdict.score,
                         "totals": state.scores, "cells": state.cells()})
        turn_scores.append(verdict.score)
    if truth.get("penalties") is not None:
        state.finish([[_hand_value(game, v) for v in hand] for hand in truth["hands"]])
    return {"photos": seen, "turns": turn_scores, "scores": state.scores,
            "finished": state.is_terminal()}


def _hand_value(game: str, value):
    return value if game != "mixmath" or value == mx.BLANK else int(value)


# -- the command line -------------------------------------------------------------------------


def record_committed(root: str | Path, games=GAMES) -> dict[str, dict]:
    """(Re)make the committed recordings: ``root/<game>/`` from :data:`COMMITTED`."""
    return {game: record_game(game, **COMMITTED[game], outdir=Path(root) / game,
                              jpeg_quality=COMMITTED_QUALITY) for game in games}


def parse_resolution(text: str) -> tuple[int, int]:
    """'1280x960' -> (1280, 960).

    >>> parse_resolution("1280x960")
    (1280, 960)
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a resolution like 1280x960")
    return w, h


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m samples.record",
        description="Play a game with automatic players and photograph every move: JPEGs "
                    "and game.json (moves, scores, cells, camera) in OUTDIR.")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--game", choices=GAMES, help="the game to play (required unless "
                        "--committed)")
    parser.add_argument("--committed", action="store_true",
                        help="remake the committed recordings (OUTDIR/<game>/, every game "
                             "or --game) as COMMITTED says")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tier", type=int, choices=(1, 2), default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--max-turns", type=int, default=None,
                        help="stop after this many turns (default: the whole game)")
    parser.add_argument("--max-photos", type=int, default=None,
                        help="stop at the end of the turn that takes this many photos")
    parser.add_argument("--resolution", type=parse_resolution,
                        default=DEFAULT_RESOLUTION, help="WxH (default 1280x960)")
    parser.add_argument("--quality", type=int, default=JPEG_QUALITY, help="JPEG quality")
    parser.add_argument("--size", default=None, help="Breakthrough board RxC, e.g. 6x6")
    parser.add_argument("--truth-only", action="store_true",
                        help="play and write game.json without rendering photos")
    args = parser.parse_args(argv)
    if args.committed:
        made = record_committed(args.outdir, [args.game] if args.game else GAMES)
        for game, truth in made.items():
            print(f"{game}: {len(truth['photos'])} photos -> {args.outdir / game}")
        return 0
    if args.game is None:
        parser.error("--game is required (or --committed)")
    rows = cols = None
    if args.size:
        rows, cols = parse_resolution(args.size)
    truth = record_game(args.game, args.seed, players=args.players, tier=args.tier,
                        max_turns=args.max_turns, max_photos=args.max_photos,
                        resolution=args.resolution, outdir=args.outdir,
                        photos=not args.truth_only, jpeg_quality=args.quality,
                        rows=rows, cols=cols)
    print(f"{args.game}: {len(truth['turns'])} turns, {len(truth['photos'])} photos, "
          f"scores {truth['scores']}{' (game over)' if truth['finished'] else ''} "
          f"-> {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
