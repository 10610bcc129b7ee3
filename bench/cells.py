"""Where the board reader goes wrong: board finding apart from cell reading.

    python -m bench.cells                          # 40 photos per game and tier
    python -m bench.cells --games mixmath --tiers 2 --n 100 -v --save /tmp/fails

For development (``bench.vision`` is the score): renders photos from DEVELOPMENT seeds
(``DEV_SEED``, never the benchmark's), tier-2 sets with held-out fonts, and reads each
twice — once through :func:`vision.reader.read_board` (the real path) and once with the
same cell reader (:func:`vision.reader.read_located`, the cell net included) on the board
located by the TRUE grid corners ("oracle grid"), so a board-finding failure and a
cell-reading failure are told apart. Prints one table row per
game and tier: photos whose board was found within a quarter of a cell, photos all
right with the oracle grid and end to end, the wrong cells by kind (a tile missed, an
empty cell read as a tile, a tile misread, a clean cell flagged as hidden) and the photos
flagged as having a hand over the board (with ``--hand`` every photo has one).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from bench.vision import RES_12MP, RES_1080P, markdown, oracle_grid, oracle_location
from samples.render import photo_seed, sample_photo
from vision import tiles
from vision.board import BoardNotFound
from vision.reader import read_board, read_located

DEV_SEED = 555_000
GAMES = ("mixmath", "calculissimo")


def corner_error(corners: np.ndarray, truth: dict) -> float:
    """Largest distance (px) of the grid corners found from the true ones, under any
    quarter turn that leaves the board as photographed the same (Calculissimo's layout
    is symmetric: an empty board, or one of symmetric tokens, reads the same every way
    up, and nothing in the photo tells which side is up)."""
    rows, cols = truth["rows"], truth["cols"]
    cells = np.array([["" if v is None else str(v) for v in row] for row in truth["cells"]])
    layout = tiles.square_prints_of(truth["game"], rows, cols)
    true = np.array(truth["grid_corners"])
    same = [k for k in range(4) if (rows == cols or k % 2 == 0) and all(
        np.array_equal(np.rot90(a, j), a) for a in (cells, layout) for j in (k, -k))]
    return min(np.abs(np.roll(corners, k, axis=0) - true).max() for k in same)


def wrong_cells(truth: dict, cells, occluded) -> Counter:
    """Wrong cells by kind: miss, fp, misread, hidden (a clean cell flagged)."""
    out: Counter = Counter()
    hidden_truth = {tuple(c) for c in truth.get("occluded", [])}
    flagged = {tuple(c) for c in occluded}
    for r, row in enumerate(truth["cells"]):
        for c, t in enumerate(row):
            if (r, c) in hidden_truth:
                continue
            v = cells[r][c]
            if (r, c) in flagged:
                out["hidden"] += 1
            elif v == t:
                continue
            elif v is None:
                out["miss"] += 1
            elif t is None:
                out["fp"] += 1
            else:
                out["misread"] += 1
    return out


def confusions(truth: dict, cells) -> list[tuple[str, str]]:
    show = lambda v: "·" if v is None else str(v)  # noqa: E731
    return [(show(t), show(cells[r][c])) for r, row in enumerate(truth["cells"])
            for c, t in enumerate(row) if cells[r][c] != t]


def _share(a: int, b: int) -> str:
    return f"{100 * a / b:.0f} % of {b}" if b else "-"


def run(args) -> list[dict]:
    rows = []
    for game in args.games:
        salt = GAMES.index(game)        # a game's photos do not depend on the others asked
        for tier in args.tiers:
            tally: Counter = Counter()
            conf: Counter = Counter()
            ms = []
            label = f"{game} tier {tier}"
            for i in tqdm(range(args.n), desc=label, leave=False, file=sys.stderr,
                          disable=args.verbose):
                seed = photo_seed(args.seed + 1000 * salt + 10 * tier, i)
                image, truth, _ = sample_photo(game, tier, seed, hand=args.hand,
                                               resolution=args.resolution,
                                               fonts="held_out")
                oracle = read_located(image, game, oracle_location(truth), profile=False,
                                      config=args.tiles_config)
                o_cells = oracle.cells
                o_wrong = wrong_cells(truth, o_cells, oracle.occluded)
                t0 = time.perf_counter()
                try:
                    reading = read_board(image, game, config=args.tiles_config)
                    ms.append(reading.ms)
                    cells, hidden = reading.cells, reading.occluded
                    cell_px = truth["camera"]["min_cell_px"]
                    err = corner_error(reading.grid_corners, truth)
                    board_ok = err < 0.25 * cell_px
                except BoardNotFound:
                    ms.append((time.perf_counter() - t0) * 1000)
                    cells, hidden, board_ok, err = None, [], False, np.inf
                wrong = wrong_cells(truth, cells, hidden) if board_ok else Counter()
                tally["photos"] += 1
                tally["board ok"] += board_ok
                tally["oracle right"] += not o_wrong
                key = "hands" if truth["hand"] else "clean"
                tally[key] += 1
                tally[key + " flagged"] += bool(hidden)
                tally["right"] += board_ok and not wrong
                for k, v in o_wrong.items():
                    tally["oracle " + k] += v
                for k, v in wrong.items():
                    tally[k] += v
                if board_ok:
                    conf.update(confusions(truth, cells))
                if args.verbose and (o_wrong or wrong or not board_ok):
                    bad = confusions(truth, o_cells)[:6]
                    tqdm.write(f"{label} #{i} seed {seed}: board {'ok' if board_ok else 'WRONG'} "
                               f"(corner error {err:.0f} px), oracle {dict(o_wrong)} {bad}, "
                               f"read {dict(wrong)}", file=sys.stderr)
                if args.save and (o_wrong or wrong or not board_ok):
                    args.save.mkdir(parents=True, exist_ok=True)
                    stem = args.save / f"{game}{tier}-{i}"
                    cv2.imwrite(f"{stem}.jpg", image)
                    cv2.imwrite(f"{stem}-grid.png", oracle_grid(image, truth))
            n = tally["photos"]
            rows.append({
                "set": label, "photos": n,
                "board ok": f"{100 * tally['board ok'] / n:.0f} %",
                "oracle all right": f"{100 * tally['oracle right'] / n:.0f} %",
                "all right": f"{100 * tally['right'] / n:.0f} %",
                "oracle miss/fp/misread/hidden": "/".join(
                    str(tally["oracle " + k]) for k in ("miss", "fp", "misread", "hidden")),
                "miss/fp/misread/hidden": "/".join(
                    str(tally[k]) for k in ("miss", "fp", "misread", "hidden")),
                "hands flagged": _share(tally["hands flagged"], tally["hands"]),
                "clean flagged": _share(tally["clean flagged"], tally["clean"]),
                "median ms": f"{np.median(ms):.0f}",
                "hot spots": ", ".join(f"{t}→{r} ×{k}" for (t, r), k in conf.most_common(4)),
            })
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cells", description=__doc__)
    parser.add_argument("--games", nargs="+", default=["mixmath", "calculissimo"])
    parser.add_argument("--tiers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=DEV_SEED)
    parser.add_argument("--hand", action="store_true", help="every photo with a hand")
    parser.add_argument("--12mp", dest="resolution", action="store_const", const=RES_12MP,
                        default=RES_1080P, help="4032x3024 photos (default 1920x1080)")
    parser.add_argument("--save", type=Path, help="write failing photos and grids here")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--set", nargs="+", default=[], metavar="FIELD=VALUE",
                        help="try other TilesConfig values (numbers; blanks.FIELD for "
                             "its blanks part)")
    args = parser.parse_args(argv)
    args.tiles_config = tiles.TilesConfig()
    for item in args.set:     # FIELD=VALUE, or PART.FIELD=VALUE for a part (blanks.rim_z=8)
        key, value = item.split("=", 1)
        *part, name = key.split(".")
        owner = getattr(args.tiles_config, part[0]) if part else args.tiles_config
        changed = replace(owner, **{name: type(getattr(owner, name))(float(value))})
        args.tiles_config = (replace(args.tiles_config, **{part[0]: changed}) if part
                             else changed)
    cv2.setNumThreads(1)
    t = time.time()
    print(markdown(run(args)))
    print(f"\n(bench.cells, {time.time() - t:.0f} s; {' '.join(sys.argv[1:])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
