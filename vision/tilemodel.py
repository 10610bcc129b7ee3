"""The whole-tile classifier: a Mixmath tile's ink, uncut -> probabilities of the 46 values.

The glyph reader (:mod:`vision.digits`) cuts a tile's ink into one glyph per digit and
reads each; on faces it never saw, most of its remaining mistakes are the *cutting*: a
thin serif 0 broken into "(" and ")", two digits touching, a 3's terminal cut off. This
model is a second opinion that needs no cutting: it looks at all the ink round the glyphs
the reader kept on a tile (:func:`vision.tiles._ink_area`: the ink of a box a pair of
digits wide, whatever component it belongs to, so a digit or stroke the cutting dropped is
still seen) and scores the 46 values of :data:`TILE_VALUES` at once. :func:`vision.tiles.read_grid` multiplies its
probabilities with the glyph reading's.

Features (:func:`tile_features`): the ink scaled, keeping its aspect, into a
``TILE_H`` x ``TILE_W`` box (wide: two digits side by side), then the shape features of
:func:`vision.digits.shape_features` at that size (HOG in ``TILE_HOG_PX`` cells, pooled
ink, projections, outline) and the ink's aspect ratio, height and width in the cell.

Model: :class:`vision.digits.GlyphModel` (a numpy MLP) with one output per value, trained
(:func:`train`) on TRAIN-font pictures only, cut by the reader's own code
(:func:`vision.tiles.ink_glyphs`) so that the model sees what the reader sees, cutting
mistakes included: synthetic tiles (:func:`vision.digits.synth_cell`, values drawn
uniformly) and the Mixmath tiles of rendered photos (:func:`vision.digits.rendered_tiles`).
The weights ship in ``vision/models/tiles.npz``; rebuild them (seeded, reproducible)::

    python -m vision.tilemodel --train       # ~ 6 minutes on one core (seeded: the same
                                             # data; the fitted weights were not bit for
                                             # bit the same twice, BLAS threading?)
    python -m vision.tilemodel --eval        # held-out fonts: tile model, glyphs, both

>>> len(TILE_VALUES), TILE_VALUES[:3], TILE_VALUES[-3:]
(46, (0, 1, 2), (80, 81, 90))
>>> img = np.zeros((30, 40), np.float32); img[:, 5:9] = 1; img[:, 25:29] = 1   # "11"
>>> tile_features([img], [0.45], [0.6]).shape == (1, N_TILE_FEATURES)
True
"""

from __future__ import annotations

import argparse
import json
import time
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from . import digits
from .digits import GlyphModel

TILE_VALUES: tuple[int, ...] = tuple(digits._mixmath_values())
"""The classes: the numbers on Mixmath tiles, ascending (0..20, products up to 90)."""

TILE_H, TILE_W = 24, 40  # the normalised tile ink: as high as a glyph, wide enough for
                         # two digits side by side (a pair is ~1.0-1.7 times as wide as high)
TILE_HOG_PX = 4          # HOG cell side: 6 x 10 cells, ~3 across a digit as in the glyph model
TILE_POOL = 2            # the ink pooled 2 x 2 (12 x 20)
N_TILE_FEATURES = (digits.HOG_BINS * (TILE_H // TILE_HOG_PX) * (TILE_W // TILE_HOG_PX) + (TILE_H // TILE_POOL) * (TILE_W // TILE_POOL)
                   + 3 * (TILE_H + TILE_W) + 4)

TILE_MODEL_PATH = Path(__file__).parent / "models" / "tiles.npz"

TRAIN_SEED = 700_000
"""Seed of the synthetic training tiles (the rendered ones use
:data:`vision.digits.RENDER_TRAIN_SEED` + 50_000): apart from the development (555_000,
560_000) and benchmark seeds."""


def normalise_tile(image: np.ndarray) -> np.ndarray:
    """Scale a tile's soft ink (h, w) to fill ``TILE_H - 2`` rows (or ``TILE_W - 2``
    columns if it is wider than that allows), keeping its aspect, centred in a
    (TILE_H, TILE_W) float32 box.

    >>> normalise_tile(np.ones((10, 5), np.float32)).shape
    (24, 40)
    """
    h, w = image.shape
    out = np.zeros((TILE_H, TILE_W), np.float32)
    if h == 0 or w == 0:
        return out
    scale = min((TILE_H - 2) / h, (TILE_W - 2) / w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    r = cv2.resize(image.astype(np.float32), (nw, nh), interpolation=interp)
    y0, x0 = (TILE_H - nh) // 2, (TILE_W - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = r
    return out


def tile_features(images: list[np.ndarray], heights, widths) -> np.ndarray:
    """(N, N_TILE_FEATURES) float32 features of N tiles' soft ink.

    Parameters
    ----------
    images : list of (h_i, w_i) float arrays, 1 = ink (:func:`vision.tiles._ink_area`)
    heights, widths : (N,) the glyphs' height and width as a fraction of the cell
    """
    n = len(images)
    if n == 0:
        return np.zeros((0, N_TILE_FEATURES), np.float32)
    g = np.stack([normalise_tile(im) for im in images])                 # (N, H, W)
    shape = digits.shape_features(g, TILE_HOG_PX, TILE_POOL)
    sizes = np.array([im.shape for im in images], np.float32)
    aspect = np.log((sizes[:, 1] + 1) / (sizes[:, 0] + 1))
    aux = np.stack([aspect, np.asarray(heights, np.float32), np.asarray(widths, np.float32),
                    g.mean(axis=(1, 2))], axis=1)
    return np.concatenate([shape, aux], axis=1).astype(np.float32)


def cell_features(found: list, p: float) -> np.ndarray:
    """(N, N_TILE_FEATURES) features of the N cells of ``found`` (CellGlyphs, each with
    at least one glyph) of a grid with ``p`` px cells: of their ink area (all the ink round
    the glyphs, uncut: :func:`vision.tiles._ink_area`), and the glyphs' height and width."""
    images, heights, widths = [], [], []
    for cg in found:
        x0, y0, x1, y1 = cg.span
        images.append(cg.area.image)
        heights.append((y1 - y0) / p)
        widths.append((x1 - x0) / p)
    return tile_features(images, heights, widths)


# -------------------------------------------------------------------------------- model

@lru_cache(maxsize=1)
def load_tile_model() -> GlyphModel | None:
    """The shipped model (vision/models/tiles.npz), or None when it is missing (the
    reader then reads glyphs alone)."""
    if not TILE_MODEL_PATH.exists():
        return None
    return GlyphModel.load(TILE_MODEL_PATH)


def tile_probs(model: GlyphModel, features: np.ndarray) -> np.ndarray:
    """(N, 46) probabilities over :data:`TILE_VALUES`."""
    return model.predict_proba(features)


# ----------------------------------------------------------------------------- datasets

def _labelled(found, texts: dict, p: float, feats: list, labels: list) -> None:
    """Features and value indices of the cut tiles ``found`` whose truth is a tile value."""
    found = [cg for cg in found if cg.glyphs and texts[cg.cell].isdigit()
             and int(texts[cg.cell]) in TILE_VALUES]
    if found:
        feats.append(cell_features(found, p))
        labels += [TILE_VALUES.index(int(texts[cg.cell])) for cg in found]


def synth_tiles(fonts: list[str], n_tiles: int, seed: int,
                cfg: digits.SynthConfig = digits.SynthConfig(), grid: int = 8):
    """``n_tiles`` synthetic Mixmath tiles (values uniform over :data:`TILE_VALUES`, the
    6/9 marks as often as :func:`vision.digits.synth_glyphs` draws them), laid out
    ``grid`` x ``grid`` to a board and cut by :func:`vision.tiles.ink_glyphs`. Returns
    (features (N, D), labels (N,) indices into TILE_VALUES)."""
    from . import tiles
    rng = np.random.default_rng(seed)
    feats: list = []
    labels: list = []
    per = grid * grid
    for start in range(0, n_tiles, per):
        n = min(per, n_tiles - start)
        texts, imgs = {}, []
        for i in range(n):
            text = str(TILE_VALUES[int(rng.integers(len(TILE_VALUES)))])
            p_mark = cfg.mark_p if text in digits.MARKED else cfg.mark_any_p
            mark = digits.MARKS[int(rng.integers(2))] if rng.random() < p_mark else None
            font = fonts[int(rng.integers(len(fonts)))]
            imgs.append(digits.synth_cell(text, font, rng, cfg, mark))
            texts[divmod(i, grid)] = text
        imgs += [np.full((cfg.px, cfg.px, 3), 200, np.uint8)] * (per - n)
        board = np.vstack([np.hstack(imgs[r * grid:(r + 1) * grid]) for r in range(grid)])
        stats = tiles.cell_stats(board, grid, grid)
        want = np.zeros((grid, grid), bool)
        want.flat[:n] = True
        found = tiles.ink_glyphs(board, grid, grid, stats, want, split_pairs=True)
        _labelled(found, texts, cfg.px, feats, labels)
    return _stack(feats, labels)


def render_tiles(n_photos: int, seed: int, fonts: str = "train", px: int = 64):
    """The Mixmath tiles of ``n_photos`` rendered photos per tier
    (:func:`vision.digits.rendered_tiles`); returns what :func:`synth_tiles` does."""
    feats: list = []
    labels: list = []
    for _, _, found, texts, _ in digits.rendered_tiles(n_photos, seed, fonts, px,
                                                       games=("mixmath",)):
        _labelled(found, texts, px, feats, labels)
    return _stack(feats, labels)


def _stack(feats, labels):
    x = np.concatenate(feats) if feats else np.zeros((0, N_TILE_FEATURES), np.float32)
    return x, np.array(labels, np.int64)


L2 = 1e-3
"""Weight decay of the fit: ten times the glyph model's; held-out fonts read a little
better (94.2 % of synthetic tiles against 93.2 % at 1e-4) and less surely wrong."""


def train(seed: int = 0, n_tiles: int = 40000, n_photos: int = 200, hidden: int = 256,
          epochs: int = 40, log=print) -> GlyphModel:
    """Train the tile model on the TRAIN fonts (seeded, reproducible): ``n_tiles``
    synthetic tiles in the train faces and other cuts of their families, and the Mixmath
    tiles of ``n_photos`` rendered photos per tier."""
    from calibration.fonts import font_split
    train_fonts = font_split()[0] + digits.extra_train_faces()
    t0 = time.perf_counter()
    x1, y1 = synth_tiles([str(f) for f in train_fonts], n_tiles, TRAIN_SEED + seed)
    if log:
        log(f"{len(y1)} synthetic tiles in {time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    x2, y2 = render_tiles(n_photos, digits.RENDER_TRAIN_SEED + 50_000 + seed)
    if log:
        log(f"{len(y2)} tiles of {2 * n_photos} rendered photos in "
            f"{time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    model = digits.fit(np.concatenate([x1, x2]), np.concatenate([y1, y2]), hidden=hidden,
                       epochs=epochs, l2=L2, seed=seed, n_classes=len(TILE_VALUES))
    if log:
        log(f"fitted in {time.perf_counter() - t0:.0f} s")
    model.meta.update({"values": list(TILE_VALUES), "n_tiles": n_tiles, "n_photos": n_photos,
                       "input": "area",
                       "train_fonts": [f.name for f in train_fonts]})
    return model


# ---------------------------------------------------------------------------- evaluation

def evaluate(model: GlyphModel, fonts: list[str], n_tiles: int = 2000, seed: int = 10_003):
    """Share of synthetic tiles in ``fonts`` the tile model alone reads right."""
    x, y = synth_tiles(fonts, n_tiles, seed)
    return {"tiles": int(len(y)),
            "acc": float((tile_probs(model, x).argmax(axis=1) == y).mean())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.tilemodel",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="rebuild vision/models/tiles.npz")
    ap.add_argument("--eval", action="store_true", help="accuracy on held-out fonts")
    ap.add_argument("--tiles", type=int, default=40000)
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.train:
        model = train(args.seed, args.tiles, args.photos, args.hidden, args.epochs)
        model.save(TILE_MODEL_PATH)
        print(f"saved {TILE_MODEL_PATH} ({TILE_MODEL_PATH.stat().st_size // 1024} KB)")
    if args.eval:
        from calibration.fonts import font_split
        _, held_out = font_split()
        model = GlyphModel.load(TILE_MODEL_PATH)
        print("synthetic tiles:", json.dumps(evaluate(model, [str(f) for f in held_out])))
        from dataclasses import replace

        from .tiles import TilesConfig
        glyph = digits.load_model()
        for name, kwargs in (("glyphs, plain cut", {}),
                             ("glyphs, other cuts", {"config": replace(TilesConfig(),
                                                                       tile_weight=0.0)}),
                             ("tile model alone", {"tile_only": True}),
                             ("glyphs and tile model", {"config": TilesConfig()})):
            print(f"rendered photos, {name}:", json.dumps(digits.evaluate_renders(
                glyph, games=("mixmath",), **kwargs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
