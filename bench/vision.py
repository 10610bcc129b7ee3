"""Accuracy and speed of boardsight's board reader, beside a Tesseract-only baseline.

    python -m bench.vision                      # 300 photos per game and tier (long)
    python -m bench.vision --n 40 --baseline-n 20 --big-n 5 --hand-n 40   # a quick look

Every photo is rendered fresh by ``samples.render`` from seeds never used in development
(``BENCH_SEED``), tier-2 sets with the HELD-OUT fonts, so the reader is measured on faces
and sets it never saw. Read time is measured in process on one core, decoding excluded.
The baseline uses the same board finder, then reads every cell with one batched
``pytesseract`` call per board (empty = Tesseract reads nothing). The real Mathable photos
in ``../shared/real/mathable`` are read as they are, and each again from ``--reshoots``
random poses and lights of the visual contract at 1080p (``samples.reshoot``): the set
photographed as the real photos never show it; and ``--collages`` late games of that set
(``samples.collage``: its real tiles, cut from the tile-set and game photos, laid in a
cluster of 20-106 round the centre of the real empty board), read as they are and re-shot
twice each. Photos of another game's board
(``--other-n``: Breakthrough's, Mastermind's) are asked for as each game: none is to be
found as its board. Photos smeared by the camera's motion (``--motion-n``, beyond the
visual contract) are to be doubted, not read sure: their *silent errors* column. A
render's glare may clip a tile's ink away (*ink erased*, :func:`erased`); *all right, ink
kept* is the share all right of the other photos, those within the contract's "small
specular glare".

Prints one markdown table (and writes it with ``--out``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from calibration.layouts import tile_counts
from samples.collage import Source, collage, grow_layout, truth_of
from samples.render import photo_seed, sample_photo
from samples.reshoot import reshoot
from vision import board as vboard
from vision.board import BoardLocation, BoardNotFound
from vision.reader import PX_PER_CELL, read_board
from vision.tiles import tesseract_read

GAMES = ("mixmath", "calculissimo")
BENCH_SEED = 7_300_000  # development and tests use small seeds; these are never touched
RES_1080P, RES_12MP = (1920, 1080), (4032, 3024)
REAL = Path(__file__).resolve().parents[2] / "shared" / "real" / "mathable"


@dataclass
class Tally:
    """Accuracy and times of one reader on one set of photos."""

    photos: int = 0
    photos_right: int = 0
    cells: int = 0
    cells_right: int = 0
    cells_found: int = 0  # cells of the photos whose board was found
    not_found: int = 0
    flagged: int = 0  # photos reported as occluded
    silent: int | None = None  # photos with a wrong cell shown as sure (None: no confidences)
    checks: int = 0  # cells shown "check this cell", on the photos whose board was found
    erased: int | None = None  # photos with a tile whose ink the photo lost (None: not known)
    kept_right: int = 0  # photos all right of those that kept every tile's ink
    ms: list[float] = field(default_factory=list)
    confusions: Counter = field(default_factory=Counter)

    def add(self, truth_cells, read_cells, ms: float | None, flagged: bool = False,
            unsure: set | None = None, erased: bool | None = None) -> None:
        """One photo's reading (``read_cells`` None: no board found); ``unsure``: the cells
        it shows the players to check, when the reader says; ``erased``: whether the photo
        lost a tile's ink (:func:`erased`), when known."""
        self.photos += 1
        if erased is not None:
            self.erased = (self.erased or 0) + erased
        self.flagged += flagged
        if ms is not None:
            self.ms.append(ms)
        if read_cells is None:
            self.not_found += 1
            self.cells += sum(len(r) for r in truth_cells)
            return
        wrong = []
        for i, (t_row, r_row) in enumerate(zip(truth_cells, read_cells)):
            for j, (t, r) in enumerate(zip(t_row, r_row)):
                self.cells += 1
                self.cells_found += 1
                if t == r:
                    self.cells_right += 1
                else:
                    wrong.append((i, j))
                    self.confusions[(_show(t), _show(r))] += 1
        self.photos_right += not wrong
        self.kept_right += erased is False and not wrong
        if unsure is not None:
            self.silent = (self.silent or 0) + any(cell not in unsure for cell in wrong)
            self.checks += len(unsure)

    def row(self) -> dict:
        return {
            "photos": self.photos,
            "all right": _pct(self.photos_right, self.photos),
            "cells": _pct(self.cells_right, self.cells, 3),
            "cells, board found": _pct(self.cells_right, self.cells_found, 3),
            "no board": self.not_found,
            "silent errors": "-" if self.silent is None else _pct(self.silent, self.photos),
            "ink erased": "-" if self.erased is None else _pct(self.erased, self.photos),
            # the share a reader can reach: the visual contract's "small specular glare"
            # keeps every tile's ink
            "all right, ink kept": ("-" if self.erased is None
                                    else _pct(self.kept_right, self.photos - self.erased)),
            "checks a photo": ("-" if self.silent is None or self.not_found == self.photos
                               else f"{self.checks / (self.photos - self.not_found):.1f}"),
            **_times(self.ms),
            "hot spots": ", ".join(f"{t}→{r} ×{n}" for (t, r), n in
                                   self.confusions.most_common(3)) or "-",
        }


def _times(ms: list[float]) -> dict:
    """The median and 95th-percentile columns of read times (ms)."""
    ms = sorted(ms)
    return {"median ms": f"{statistics.median(ms):.0f}" if ms else "-",
            "p95 ms": f"{ms[min(len(ms) - 1, int(0.95 * len(ms)))]:.0f}" if ms else "-"}


def _show(v) -> str:
    return "·" if v is None else str(v)


def _pct(a: int, b: int, digits: int = 1) -> str:
    return f"{100 * a / b:.{digits}f} %" if b else "-"


def machine_ms(repeats: int = 15) -> float:
    """The machine's speed now, to set beside the read times: a fixed numpy and OpenCV
    workload of a reading's kind (a warp, a median, small matrix products), no
    boardsight code, so it does not change with the reader; ms, the median of
    ``repeats``. On a shared machine the same code's read times drift by tens of percent
    between (and within) sessions; this drifts with them."""
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    to_grid = np.array([[1.1, 0.05, -300], [0.02, 1.15, -60], [1e-5, 2e-5, 1.0]])
    windows = rng.random((169 * 64, 144), dtype=np.float32)
    weights = rng.random((144, 24), dtype=np.float32)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        cv2.warpPerspective(image, to_grid, (960, 960), flags=cv2.INTER_LINEAR)
        np.median(image[:480, :480].reshape(48, -1), axis=0)
        for _ in range(4):
            np.maximum(windows @ weights, 0)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


# -- the two readers -----------------------------------------------------------------------


def boardsight_read(image: np.ndarray, game: str):
    """(cells, ms, occluded?, the cells shown unsure) with boardsight's reader; cells None
    when no board is found."""
    t = time.perf_counter()
    try:
        reading = read_board(image, game)
    except BoardNotFound:
        return None, (time.perf_counter() - t) * 1000, False, set()
    return reading.cells, reading.ms, bool(reading.occluded), set(reading.unsure())


def tesseract_only_read(image: np.ndarray, game: str):
    """The baseline: the same board finder, then ONE pytesseract call over all cells."""
    t = time.perf_counter()
    try:
        location = vboard.find_board(image, game)
    except BoardNotFound:
        return None, (time.perf_counter() - t) * 1000, False
    grid = cv2.cvtColor(vboard.rectify_grid(image, location, PX_PER_CELL), cv2.COLOR_BGR2GRAY)
    g = location.geometry
    p, m = PX_PER_CELL, PX_PER_CELL // 8  # the cell without its border lines
    crops = [grid[r * p + m:(r + 1) * p - m, c * p + m:(c + 1) * p - m]
             for r in range(g.rows) for c in range(g.cols)]
    texts = tesseract_read(crops, height=p)
    cells = [[None] * g.cols for _ in range(g.rows)]
    for k, text in enumerate(texts):
        if text:
            cells[k // g.cols][k % g.cols] = int(text) if game == "mixmath" else text[:1]
    return cells, (time.perf_counter() - t) * 1000, False


# -- the sets ------------------------------------------------------------------------------


MOTION_PX = (6.0, 18.0)
"""The smear of the motion-blurred set, px at 1080p (any direction): from a quarter of the
smallest cells BOARDS.md allows (24 px), which the reader mostly reads through, to three
quarters of them."""


def _photos(game: str, tier: int, n: int, *, salt: int, resolution, hand: bool, desc: str,
            motion: bool = False):
    """``n`` bench photos of ``game`` at ``tier``; with ``motion``, each smeared by a
    camera moving MOTION_PX in a random direction (beyond the visual contract)."""
    for i in tqdm(range(n), desc=desc, unit="photo", leave=False, file=sys.stderr):
        seed = photo_seed(BENCH_SEED + 1000 * salt + 10 * tier, i)
        extra = {}
        if motion:
            rng = np.random.default_rng([BENCH_SEED, salt, tier, i])
            extra["motion"] = (float(rng.uniform(*MOTION_PX)), float(rng.uniform(0, 180)))
        image, truth, _ = sample_photo(game, tier, seed, resolution=resolution, hand=hand,
                                       fonts="held_out", **extra)
        yield image, truth


def _every_set(games, tiers, n: int, salt: int, desc: str, **kw):
    """(game, image, truth) of ``n`` 1080p photos (:func:`_photos`, ``kw``) of each game
    and tier, the game's salt ``salt`` on from its clean photos'."""
    for game in games:
        for tier in tiers:
            for image, truth in _photos(game, tier, n, salt=GAMES.index(game) + salt,
                                        resolution=RES_1080P, desc=f"{game} tier {tier} {desc}",
                                        **kw):
                yield game, image, truth


def oracle_location(truth: dict) -> BoardLocation:
    """The board located by the truth's grid corners."""
    return BoardLocation.from_grid_corners(truth["game"], truth["grid_corners"])


def oracle_grid(image: np.ndarray, truth: dict) -> np.ndarray:
    """The playing grid rectified from the truth's grid corners."""
    return vboard.rectify_grid(image, oracle_location(truth), PX_PER_CELL)


ERASED_BELOW = 12.0
"""Grey levels: a tile whose ink stands less than this below its face (the median of its
middle less its darkest percent, blurred 3x3, in the grid rectified from the true
corners) has lost its ink to the photo (a glare clipped face and ink alike to white)."""


def erased(image: np.ndarray, truth: dict) -> bool:
    """Whether a tile with ink (not a joker) has none left in the photo: a reader reads
    it by luck only (of 12 such development photos none was read right; of the
    benchmark's 3 at Calculissimo tier 1, one)."""
    grid = cv2.GaussianBlur(cv2.cvtColor(oracle_grid(image, truth), cv2.COLOR_BGR2GRAY),
                            (3, 3), 0)
    rows, cols = truth["rows"], truth["cols"]
    p, m = PX_PER_CELL, int(0.15 * PX_PER_CELL)
    faces = (grid.reshape(rows, p, cols, p)[:, m:p - m, :, m:p - m]
             .transpose(0, 2, 1, 3).reshape(rows, cols, -1))
    ink = np.median(faces, axis=-1) - np.percentile(faces, 1, axis=-1)
    inked = np.array([[v is not None and v != "?" for v in row] for row in truth["cells"]])
    return bool((inked & (ink < ERASED_BELOW)).any())


def _truth_cells(truth: dict):
    """The truth's cells with occluded cells masked out of the comparison (None)."""
    hidden = {tuple(c) for c in truth.get("occluded", [])}
    return [[None if (r, c) in hidden else v for c, v in enumerate(row)]
            for r, row in enumerate(truth["cells"])]


def run(args) -> list[dict]:
    rows = []
    games = args.games
    for game in games:
        salt = GAMES.index(game)        # a game's photos do not depend on the others asked
        for tier in args.tiers:
            ours, baseline, big = Tally(), Tally(), Tally()
            label = f"{game} tier {tier}"
            for i, (image, truth) in enumerate(_photos(game, tier, args.n, salt=salt,
                                                       resolution=RES_1080P, hand=False,
                                                       desc=label)):
                cells, ms, flagged, unsure = boardsight_read(image, game)
                ours.add(truth["cells"], cells, ms, flagged, unsure, erased(image, truth))
                if i < args.baseline_n:
                    cells, ms, _ = tesseract_only_read(image, game)
                    baseline.add(truth["cells"], cells, ms)
            for image, truth in _photos(game, tier, args.big_n, salt=salt + 50,
                                        resolution=RES_12MP, hand=False, desc=label + " 12MP"):
                cells, ms, flagged, unsure = boardsight_read(image, game)
                big.add(truth["cells"], cells, ms, flagged, unsure, erased(image, truth))
            rows.append({"set": label, "reader": "boardsight 1080p", **ours.row(),
                         "wrongly flagged": _pct(ours.flagged, ours.photos)})
            rows.append({"set": label, "reader": "boardsight 12 MP", **big.row(),
                         "wrongly flagged": _pct(big.flagged, big.photos)})
            rows.append({"set": label, "reader": "Tesseract only 1080p", **baseline.row(),
                         "wrongly flagged": "-"})
    if args.hand_n:
        hands = Tally()
        for game, image, truth in _every_set(games, args.tiers, args.hand_n, 100, "hands",
                                             hand=True):
            cells, ms, flagged, _ = boardsight_read(image, game)
            # A hand that hides the board entirely is rejected too (no board).
            hands.add(_truth_cells(truth), cells, ms, flagged or cells is None)
        rows.append({"set": "hand over the board", "reader": "boardsight 1080p",
                     **hands.row(), "flagged": _pct(hands.flagged, hands.photos)})
    if args.motion_n:
        smeared = Tally()
        for game, image, truth in _every_set(games, args.tiers, args.motion_n, 300, "motion",
                                             hand=False, motion=True):
            cells, ms, flagged, unsure = boardsight_read(image, game)
            smeared.add(truth["cells"], cells, ms, flagged, unsure)
        rows.append({"set": f"smeared by motion ({MOTION_PX[0]:.0f}-{MOTION_PX[1]:.0f} px "
                            "at 1080p)", "reader": "boardsight 1080p", **smeared.row(),
                     "flagged": _pct(smeared.flagged, smeared.photos)})
    if args.other_n:
        rows.append(_other_games(games, args.tiers, args.other_n))
    if args.real and REAL.is_dir():
        real = Tally()
        truth = json.loads((REAL / "truth.json").read_text())["photos"]
        for name, t in tqdm(sorted(truth.items()), desc="real Mathable", leave=False,
                            file=sys.stderr):
            image = cv2.imread(str(REAL / name))
            cells, ms, flagged, unsure = boardsight_read(image, "mixmath")
            real.add(t["cells"], cells, ms, flagged, unsure)
        rows.append({"set": "real Mathable photos (4080×3072)", "reader": "boardsight",
                     **real.row(), "wrongly flagged": _pct(real.flagged, real.photos)})
        if args.reshoots:
            again, hands = Tally(), Tally()
            for image, t in _reshot_real(truth, args.reshoots):
                cells, ms, flagged, unsure = boardsight_read(image, "mixmath")
                again.add(t["cells"], cells, ms, flagged, unsure)
            rows.append({"set": "real Mathable photos re-shot (1080p)", "reader": "boardsight",
                         **again.row(), "wrongly flagged": _pct(again.flagged, again.photos)})
            for image, t in _reshot_real(truth, args.reshoots, hand=True):
                cells, ms, flagged, _ = boardsight_read(image, "mixmath")
                hands.add(_truth_cells(t), cells, ms, flagged or cells is None)
            rows.append({"set": "real Mathable photos re-shot with a hand", "reader": "boardsight",
                         **hands.row(), "flagged": _pct(hands.flagged, hands.photos)})
        if args.collages:
            laid, again = Tally(), Tally()
            for image, t, shot in _real_collages(truth, args.collages):
                cells, ms, flagged, unsure = boardsight_read(image, "mixmath")
                (again if shot else laid).add(t, cells, ms, flagged, unsure)
            rows.append({"set": "real Mathable tiles laid anew (collage, 4080×3072)",
                         "reader": "boardsight", **laid.row(),
                         "wrongly flagged": _pct(laid.flagged, laid.photos)})
            rows.append({"set": "real Mathable tiles laid anew, re-shot (1080p)",
                         "reader": "boardsight", **again.row(),
                         "wrongly flagged": _pct(again.flagged, again.photos)})
    return rows


OTHER_GAMES = ("breakthrough", "mastermind")   # boards of squares or holes, no layout


def _other_games(games, tiers, n: int) -> dict:
    """The row of photos of another game's board (Breakthrough's, Mastermind's) asked for
    as each of ``games``: each should be no board (BoardNotFound), never read. *all
    right*: the share refused; *no board*: how many; *hot spots*: what the others were
    taken for."""
    refused, found, ms = 0, Counter(), []
    for shown in OTHER_GAMES:
        for tier in tiers:
            for image, _ in _photos(shown, tier, n, salt=200 + OTHER_GAMES.index(shown),
                                    resolution=RES_1080P, hand=False,
                                    desc=f"{shown} tier {tier}"):
                for game in games:
                    t = time.perf_counter()
                    try:
                        vboard.find_board(image, game)
                        found[f"{shown}→{game}"] += 1
                    except BoardNotFound:
                        refused += 1
                    ms.append((time.perf_counter() - t) * 1000)
    total = refused + sum(found.values())
    return {"set": f"another game's board ({', '.join(OTHER_GAMES)})",
            "reader": "boardsight 1080p", "photos": total,
            "all right": _pct(refused, total), "no board": refused,
            **_times(ms),
            "hot spots": ", ".join(f"{k} ×{v}" for k, v in found.most_common(3)) or "-"}


def _reshot_real(truth: dict, k: int, hand: bool = False):
    """Each real photo seen again ``k`` times (``samples.reshoot``): a random pose and light
    within the visual contract, at 1080p; with ``hand``, a hand over the board too (the
    photos where it ends up hiding no cell are left out). Yields (image, truth: the cells,
    and the ``occluded`` ones)."""
    for name, t in tqdm(sorted(truth.items()), desc="real Mathable re-shot", leave=False,
                        file=sys.stderr):
        image = cv2.imread(str(REAL / name))
        location = vboard.find_board(image, "mixmath")   # only to aim the new camera
        for j in range(k):
            rng = np.random.default_rng([BENCH_SEED, j, hand, zlib.crc32(name.encode())])
            shot = reshoot(image, location.homography, location.geometry, rng, RES_1080P,
                           hand=hand)
            if shot.occluded or not hand:
                yield shot.image, {**t, "occluded": shot.occluded}


def _real_collages(truth: dict, n: int, reshots: int = 2):
    """``n`` late games of the real set (:mod:`samples.collage`) on the real empty boards,
    each as laid and re-shot ``reshots`` times at 1080p. Yields (image, the cells, whether
    re-shot)."""
    def located(name):
        image = cv2.imread(str(REAL / name))
        return image, vboard.find_board(image, "mixmath")

    sources = [Source.of_cells(image, loc.homography, truth[name]["cells"])
               for name in ("tile-set.jpg", "game-19.jpg") for image, loc in [located(name)]]
    empties = [located(name) for name in ("empty-1.jpg", "empty-2.jpg")]
    for i in tqdm(range(n), desc="real Mathable collages", leave=False, file=sys.stderr):
        rng = np.random.default_rng([BENCH_SEED, 7, i])
        image, loc = empties[i % 2]
        layout = grow_layout(rng, loc.geometry, int(rng.integers(20, 107)), sources,
                             tile_counts("mixmath"))
        laid = collage(image, loc.homography, loc.geometry, layout)
        cells = truth_of(layout, loc.geometry)
        yield laid, cells, False
        for _ in range(reshots):
            yield reshoot(laid, loc.homography, loc.geometry, rng, RES_1080P).image, cells, True


def markdown(rows: list[dict], keys: list[str] | None = None) -> str:
    """The rows as one markdown table: ``keys`` (default: every key, first seen first)
    that some row has."""
    if keys is None:
        keys = list(dict.fromkeys(k for r in rows for k in r))
    keys = [k for k in keys if any(k in r for r in rows)]
    lines = ["| " + " | ".join(keys) + " |", "|" + " --- |" * len(keys)]
    lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vision", description=__doc__)
    parser.add_argument("--games", nargs="+", default=["mixmath", "calculissimo"])
    parser.add_argument("--tiers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--n", type=int, default=300, help="1080p photos per game and tier")
    parser.add_argument("--big-n", type=int, default=20, help="12 MP photos per game and tier")
    parser.add_argument("--baseline-n", type=int, default=100,
                        help="photos per game and tier also read by the Tesseract baseline")
    parser.add_argument("--hand-n", type=int, default=100,
                        help="photos with a hand over the board, per game and tier")
    parser.add_argument("--motion-n", type=int, default=25,
                        help="photos smeared by the camera's motion (beyond the visual "
                             "contract: to be doubted, not read sure), per game and tier")
    parser.add_argument("--other-n", type=int, default=20,
                        help="photos of another game's board (Breakthrough, Mastermind) per "
                             "game and tier, asked for as each game: never to be read")
    parser.add_argument("--no-real", dest="real", action="store_false",
                        help="skip the real photos in ../shared/real/mathable")
    parser.add_argument("--reshoots", type=int, default=5,
                        help="times each real photo is seen again from a random pose and "
                             "light at 1080p (samples.reshoot; 0: none)")
    parser.add_argument("--collages", type=int, default=20,
                        help="late games of the real set laid from its real tiles "
                             "(samples.collage), read as laid and re-shot twice (0: none)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)  # one core, as the targets are stated
    started, machine = time.time(), machine_ms()
    table = markdown(run(args), ["set", "reader", "photos", "all right", "cells",
                                 "cells, board found", "no board", "silent errors",
                                 "checks a photo", "ink erased", "all right, ink kept",
                                 "median ms", "p95 ms", "wrongly flagged", "flagged",
                                 "hot spots"])
    table += (f"\n\n(bench.vision, {time.time() - started:.0f} s; the machine's reference "
              f"workload {machine:.1f} ms at the start, {machine_ms():.1f} ms at the end "
              f"(bench.vision.machine_ms); {' '.join(sys.argv[1:])})\n")
    print(table)
    if args.out:
        args.out.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
