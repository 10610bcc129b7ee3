"""The whole-tile model: features, the shipped weights, held-out fonts, and how read_grid
combines it with the glyph reading (broken serif 0s, a digit the cutting dropped)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.fonts import face_path, font_split
from vision import digits, tilemodel, tiles

HELD_OUT_TILE_ACCURACY = 0.9
"""Share of synthetic tiles in held-out faces the tile model alone reads right (a small
seeded sample over the whole SynthConfig range; 93.7 % on 2000 tiles when trained)."""

THIN_SERIF_FACES = ("P052-Roman.otf", "texgyrepagella-regular.otf", "C059-Roman.otf")
"""Held-out serif faces whose thin 0 breaks into "(" and ")" when small and blurred."""


def test_values_are_the_tile_set():
    assert tilemodel.TILE_VALUES == tuple(sorted(tiles.MIXMATH_VALUES))


def test_tile_features_keep_aspect_and_shape():
    one = np.zeros((30, 12), np.float32)
    one[:, 4:8] = 1                                   # a narrow "1": stays narrow, centred
    g = tilemodel.normalise_tile(one)
    cols = np.nonzero(g.sum(axis=0))[0]
    assert g.shape == (tilemodel.TILE_H, tilemodel.TILE_W)
    assert len(cols) <= 5 and abs(cols.mean() - tilemodel.TILE_W / 2) < 2
    f = tilemodel.tile_features([one, one], [0.4, 0.4], [0.2, 0.2])
    assert f.shape == (2, tilemodel.N_TILE_FEATURES) and np.array_equal(f[0], f[1])


def test_shipped_tile_model_is_small_and_trained_on_train_fonts_only():
    model = tilemodel.load_tile_model()
    assert model is not None
    assert tilemodel.TILE_MODEL_PATH.stat().st_size < 2_000_000
    assert model.meta["values"] == list(tilemodel.TILE_VALUES)
    _, held_out = font_split()
    trained = set(model.meta["train_fonts"])
    assert trained and not trained & {p.name for p in held_out}


def test_tile_model_alone_reads_held_out_fonts():
    _, held_out = font_split()
    if not held_out:
        pytest.skip("no held-out font faces installed")
    result = tilemodel.evaluate(tilemodel.load_tile_model(), [str(f) for f in held_out],
                                n_tiles=320, seed=20_303)
    assert result["tiles"] > 280
    assert result["acc"] >= HELD_OUT_TILE_ACCURACY, result


def test_a_digit_no_cut_reads_makes_the_cell_unsure():
    """The cut kept one glyph, read "4" surely; the tile model sees "24": the glyph
    reading's floor keeps 4 but the cell comes out unsure (for Tesseract and the
    "check this cell" display), and a tile model as sure of 4 agrees."""
    cfg = tiles.TilesConfig()
    p = np.full((1, 10), 1e-4)
    p[0, 4] = 1 - 9e-4
    reading = [(*tiles.decode_mixmath(p), [], True, 1.0)]
    tile = np.full(len(tilemodel.TILE_VALUES), 1e-3)
    tile[tilemodel.TILE_VALUES.index(24)] = 1 - 45e-3
    value, q, scores, _, _ = tiles.combine_readings(reading, tile, cfg)
    assert q < cfg.unsure_below and set(scores) == set(tilemodel.TILE_VALUES)
    agree = np.full(len(tilemodel.TILE_VALUES), 1e-3)
    agree[tilemodel.TILE_VALUES.index(4)] = 1 - 45e-3
    value, q, _, _, _ = tiles.combine_readings(reading, agree, cfg)
    assert value == 4 and q > digits.SURE     # (the pairs no cut read keep a little)
    assert tiles.combine_readings(reading, None, cfg)[:2] == tiles.decode_mixmath(p)[:2]


def test_broken_zeros_read_better_with_the_tile_model():
    """Numbers with a 0 in thin held-out serif faces, small and blurred: the cases the
    cutting gets wrong (a 0 in two arcs, a pair joined) read right more often with the
    tile model, and none of what it still misreads is sure."""
    fonts = [face_path(f) for f in THIN_SERIF_FACES]
    if None in fonts:
        pytest.skip("thin serif held-out faces not installed")
    cfg = digits.SynthConfig(weight=(-1, -1), small_p=1.0, small_px=(24.0, 32.0),
                             blur=(0.8, 1.4))
    rng = np.random.default_rng(5)
    texts = [str(v) for v in (0, 10, 20, 30, 40, 50, 60, 70, 80, 90)] * 4
    imgs = [digits.synth_cell(t, str(fonts[i % len(fonts)]), rng, cfg)
            for i, t in enumerate(texts)]
    imgs += [np.full((64, 64, 3), 200, np.uint8)] * (64 - len(imgs))
    board = np.vstack([np.hstack(imgs[r * 8:(r + 1) * 8]) for r in range(8)])
    want = np.zeros((8, 8), bool)
    want.flat[:len(texts)] = True
    found = tiles.ink_glyphs(board, 8, 8, tiles.cell_stats(board, 8, 8), want)
    truth = {divmod(i, 8): t for i, t in enumerate(texts)}
    broken = [cg for cg in found if cg.glyphs and len(cg.glyphs) != len(truth[cg.cell])]
    assert len(broken) >= 10

    def read(weight):
        best = tiles.read_numbers(broken, 64, "mixmath",
                                  replace(tiles.TilesConfig(), tile_weight=weight))
        right = sum(str(best[cg.cell][0]) == truth[cg.cell] for cg in broken)
        sure_wrong = sum(str(best[cg.cell][0]) != truth[cg.cell]
                         and best[cg.cell][1] >= tiles.TilesConfig().unsure_below
                         for cg in broken)
        return right, sure_wrong

    glyphs_right, _ = read(0.0)
    both_right, both_sure_wrong = read(tiles.TilesConfig().tile_weight)
    assert both_right > glyphs_right
    assert both_sure_wrong == 0
