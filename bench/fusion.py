"""How the glyph reading and the cell net's are weighed: each rule of the weighing replayed.

    python -m bench.fusion                              # 100 photos a game, tier 2
    python -m bench.fusion --tiers 1 2 --n 200 --seed 625000

For development (``bench.vision`` is the score): renders photos from development seeds
(tier-2 sets in held-out fonts), reads each once up to the weighing
(:func:`vision.reader.read_located`'s ``trace``: the glyph reader's cells and confidence,
the net's probabilities with and without its second look), then replays
:func:`vision.cellnet.fuse` under each variant of ``VARIANTS`` — the configured weighing,
then the same with one rule taken out, and the net alone — and prints, per game and tier, the photos all right and the wrong cells. A rule is worth its
row's difference from the first; the replay is cheap, so a new rule or threshold is
judged on a few hundred photos in seconds once they are read (the rules of
``TilesConfig.cellnet_*`` were chosen so, on one set of seeds, and checked on another).

The replay is the weighing and then what every board in play obeys
(:func:`vision.reader.hold_to_play`: the set's counts, one group of tiles);
Tesseract's tie-break between them and the blank judge's word after them
(:func:`vision.reader.judge_blanks`) are not replayed, so the first row can differ from
the end-to-end reading by a cell or two (more on boards with blanks).
"""

from __future__ import annotations

import argparse
import copy
import sys
from dataclasses import dataclass, replace

import cv2
from tqdm import tqdm

from bench.vision import RES_1080P, markdown
from samples.render import photo_seed, sample_photo
from vision import board as vboard
from vision import tiles
from vision.board import BoardNotFound
from vision.reader import hold_to_play, read_located, weigh

GAMES = ("mixmath", "calculissimo")
DEV_SEED = 605_000


@dataclass(frozen=True)
class Read:
    """One photo read up to the weighing."""

    game: str
    truth: list[list]
    trace: dict


def read_photos(game: str, tier: int, n: int, seed: int = DEV_SEED,
                config: tiles.TilesConfig | None = None) -> list[Read]:
    """The photos of development seeds ``seed + 10 * tier`` read up to the weighing (those
    whose board is not found are left out: there is nothing to weigh)."""
    out = []
    for i in tqdm(range(n), desc=f"{game} tier {tier}", unit="photo", leave=False,
                  file=sys.stderr):
        image, truth, _ = sample_photo(game, tier, photo_seed(seed + 10 * tier, i),
                                       resolution=RES_1080P, hand=False, fonts="held_out")
        try:
            location = vboard.find_board(image, game)
        except BoardNotFound:
            continue
        trace: dict = {}
        read_located(image, game, location, config=config, trace=trace)
        if trace:
            out.append(Read(game, truth["cells"], trace))
    return out


def weighed(read: Read, cfg: tiles.TilesConfig, second_look: bool = True) -> list[list]:
    """The cells the reader's weighing (:func:`vision.reader.weigh`) and
    :func:`vision.reader.hold_to_play` make of one read under ``cfg`` (``second_look``
    False: the net's probabilities without its second look)."""
    t = read.trace
    cells, confidence = copy.deepcopy(t["glyph_cells"]), t["glyph_confidence"].copy()
    probs = weigh(cells, confidence, t["leave"], t["probs"] if second_look else t["probs_once"],
                  t["sides"], read.game, cfg, t["glare"], t["inked_jokers"], t["glyph_scores"],
                  t["pairs"])
    hold_to_play(cells, confidence, probs, read.game, cfg, t["occluded"], t["glyph_scores"])
    return cells


VARIANTS = {
    "as configured": ({}, True),
    "no second look": ({}, False),
    "no fair-net rule": ({"cellnet_fair": None}, True),
    "no likely jokers": ({"cellnet_likely_joker": None}, True),
    "no sided tiles": ({"cellnet_sided": None}, True),
    "no glare tiles": ({"cellnet_glared": None}, True),
    "no faded dots": ({"cellnet_faded_dots": None}, True),
    "no joint odds": ({"cellnet_joint": None}, True),
    "no lost digits": ({"cellnet_digit_count": None}, True),
    "no bare sides": ({"cellnet_bare_sides": None}, True),
    "no set counts": ({"cellnet_set_counts": False}, True),
    "set counts by the net alone": ({"set_counts_by_both": ()}, True),
    "no one group": ({"cellnet_connected": False}, True),
    "the net alone": ({"cellnet_sure": 0.0, "cellnet_set_counts": False,
                       "cellnet_connected": False, "cellnet_bare_sides": None}, True),
}
"""name -> (TilesConfig changes, with the net's second look?)."""


def score(reads: list[Read], cfg: tiles.TilesConfig, second_look: bool = True
          ) -> tuple[int, int]:
    """(photos all right, wrong cells) of the reads weighed under ``cfg``; hidden cells
    (``leave``) are not counted."""
    right = wrong = 0
    for read in reads:
        cells = weighed(read, cfg, second_look)
        leave = read.trace["leave"]
        n = sum(cells[r][c] != read.truth[r][c] for r in range(len(cells))
                for c in range(len(cells[0])) if not leave[r, c])
        right += n == 0
        wrong += n
    return right, wrong


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fusion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--tiers", nargs="+", type=int, default=[2])
    parser.add_argument("--n", type=int, default=100, help="photos per game and tier")
    parser.add_argument("--seed", type=int, default=DEV_SEED,
                        help="development seeds (never the benchmark's)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    base = tiles.TilesConfig()
    rows = []
    for game in args.games:
        for tier in args.tiers:
            reads = read_photos(game, tier, args.n, args.seed, base)
            row = {"set": f"{game} tier {tier}", "photos read": len(reads)}
            for name, (changes, second_look) in VARIANTS.items():
                right, wrong = score(reads, replace(base, **changes), second_look)
                row[name] = f"{right} ({wrong})"
            rows.append(row)
    print("photos all right (wrong cells) when the glyph reading and the net's are weighed "
          "so:\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
