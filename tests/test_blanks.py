"""Blank tiles (no ink): Calculissimo jokers drawn blank and Mixmath blanks, found without
a calibrated tile colour (vision.blanks) — in rendered photos and on a drawn grid — and
never on empty squares: under glare, in shadow, beside tiles."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from bench.cells import oracle_grid
from samples.render import random_cells, render, sample_photo
from vision import blanks, tiles

P = 64


def read(img, truth, game):
    grid = oracle_grid(img, truth)
    return tiles.read_grid(grid, game, shape=(truth["rows"], truth["cols"]), tesseract=False)


def tally(cells, got):
    """(blanks found, blanks, cells read "?" that hold no blank)."""
    blank = {(r, c) for r, row in enumerate(cells) for c, v in enumerate(row)
             if v in ("?", "blank")}
    said = {(r, c) for r, row in enumerate(got) for c, v in enumerate(row) if v == "?"}
    return len(blank & said), len(blank), sorted(said - blank)


# ---------------------------------------------------------------- a drawn grid, no photo

def drawn_grid(rows=6, cols=6, tile=None, square=(212, 218, 222), gap=(70, 75, 80),
               face=(250, 250, 250), rim=(190, 195, 200), grey_cols=()):
    """Plain light squares with dark gaps, P px per cell (those in ``grey_cols`` a light
    grey); ``tile`` = (row, col, side, turn in degrees, dx, dy): a blank tile (its rim,
    its face) lying there."""
    img = np.full((rows * P, cols * P, 3), gap, np.uint8)
    for r in range(rows):
        for c in range(cols):
            colour = (225, 225, 225) if c in grey_cols else square
            cv2.rectangle(img, (c * P + 2, r * P + 2), (c * P + P - 3, r * P + P - 3), colour, -1)
    if tile is not None:
        r, c, side, turn, dx, dy = tile
        centre = ((c + 0.5 + dx) * P, (r + 0.5 + dy) * P)
        for size, colour in ((side, rim), (side * 0.92, face)):
            box = cv2.boxPoints((centre, (size * P, size * P), turn))
            cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), colour, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def test_face_outline_of_a_turned_tile():
    grid = drawn_grid(tile=(2, 3, 0.84, 6.0, 0.05, 0.0))
    out = blanks.face_outlines(grid, 6, 6)
    cfg = blanks.BlanksConfig()
    q = out.px
    assert out.clean(cfg)[2, 3] and not out.inked[2, 3]
    assert abs(abs(out.turn[2, 3]) - 6.0) < 1.5                 # turned as drawn
    assert abs(out.width[2, 3] - 0.84 * 0.92 * q) < 0.08 * q       # the face inside the rim
    assert abs(out.dx[2, 3] - 0.05 * q) < 0.04 * q
    empty = np.ones((6, 6), bool)
    empty[2, 3] = False
    assert np.all(np.abs(out.turn[empty]) < 1.0)                  # squares are square
    assert np.all(out.width[empty] > out.width[2, 3] + 0.08 * q)


@pytest.mark.parametrize("tile", [(2, 3, 0.84, 6.0, 0.05, 0.0), (4, 1, 0.86, -3.0, -0.04, 0.06),
                                  (1, 1, 0.82, 0.0, 0.0, 0.0)])
def test_a_blank_on_a_drawn_grid_is_read_as_a_blank(tile):
    grid = drawn_grid(tile=tile)
    cells, conf, hidden = tiles.read_cells(grid, "calculissimo", shape=(6, 6))
    assert [(r, c) for r in range(6) for c in range(6) if cells[r][c] is not None] == [tile[:2]]
    assert cells[tile[0]][tile[1]] == "?" and hidden == []


def test_a_drawn_grid_without_tiles_has_no_blank():
    for grid in (drawn_grid(), drawn_grid(square=(245, 245, 245), gap=(200, 200, 200))):
        cells, conf, hidden = tiles.read_cells(grid, "calculissimo", shape=(6, 6))
        assert all(v is None for row in cells for v in row)


def test_a_calibrated_tile_colour_still_finds_a_blank_the_outline_cannot():
    """Straight, centred, of its square's size, no rim: only its colour tells it, and only
    a profile's tile colour says that colour is a tile's."""
    cream = (140, 200, 240)
    grid = drawn_grid(tile=(3, 2, 0.97, 0.0, 0.0, 0.0), face=cream, rim=cream)
    assert tiles.read_cells(grid, "calculissimo", shape=(6, 6))[0][3][2] is None
    stats = tiles.cell_stats(grid, 6, 6)
    tile_lab = tuple(float(v) for v in stats.face_lab[3, 2])
    cells, _, _ = tiles.read_cells(grid, "calculissimo", shape=(6, 6),
                                   profile=tiles.TileLook(tile_lab))
    assert cells[3][2] == "?"
    assert sum(v is not None for row in cells for v in row) == 1


def test_a_pale_blank_on_a_vivid_square_is_a_blank_however_square_it_lies():
    """Straight, centred, of its square's size, no rim: its outline is an empty square's,
    but no tile is the colour of these pink squares and nothing else covers one with a
    clean pale face (two columns of light grey squares set the photo's white balance)."""
    pink = (190, 100, 225)
    grid = drawn_grid(tile=(3, 2, 0.97, 0.0, 0.0, 0.0), square=pink, rim=(250, 250, 250),
                      grey_cols=(0, 5))
    cells, _, hidden = tiles.read_cells(grid, "calculissimo", shape=(6, 6))
    assert cells[3][2] == "?" and hidden == []
    assert sum(v is not None for row in cells for v in row) == 1
    # a pale square among them is no such thing: it is what an empty square looks like
    pale = drawn_grid(tile=(3, 2, 0.97, 0.0, 0.0, 0.0), square=(232, 220, 236),
                      rim=(250, 250, 250), grey_cols=(0, 5))
    cells, _, _ = tiles.read_cells(pale, "calculissimo", shape=(6, 6))
    assert cells[3][2] is None


# ---------------------------------------------------------------- rendered photos

# Calculissimo own sets whose jokers are blank (seeds picked once: photo_seed(20241, i)),
# held-out fonts, any light and camera within BOARDS.md; 20 jokers, about 2/3 found.
JOKER_SEEDS = [907959589, 476997982, 2481181942, 772151632, 702079232, 116083994]


def test_blank_jokers_are_found_in_photos_without_calibration():
    found = total = 0
    for seed in JOKER_SEEDS:
        img, truth, _ = sample_photo("calculissimo", 2, seed, hand=False, fonts="held_out")
        assert truth["style"]["joker_face"] == "blank"
        got = read(img, truth, "calculissimo")
        f, n, false = tally(truth["cells"], got.cells)
        assert false == [], seed
        found, total = found + f, total + n
    assert total == 20 and found >= 11


@pytest.mark.parametrize("seed,cell", [(3016899803, (8, 7)), (631112383, (6, 7))])
def test_a_joker_is_told_by_its_outline_colour_and_sides_together(seed, cell):
    """A blank joker nearly the colour of its square, a little narrower and off centre:
    neither its outline and colour nor its sides alone tell it from an empty square;
    together they do."""
    img, truth, _ = sample_photo("calculissimo", 2, seed, hand=False, fonts="held_out")
    assert truth["cells"][cell[0]][cell[1]] == "?"
    got = read(img, truth, "calculissimo")
    assert got.cells[cell[0]][cell[1]] == "?"
    assert tally(truth["cells"], got.cells)[2] == []
    no_sides = replace(tiles.TilesConfig(), blanks=replace(blanks.BlanksConfig(), like_cap=0.0))
    alone = tiles.read_grid(oracle_grid(img, truth), "calculissimo", config=no_sides,
                            shape=(truth["rows"], truth["cols"]), tesseract=False)
    assert alone.cells[cell[0]][cell[1]] is None


def test_jokers_told_by_their_sides_never_outnumber_the_set():
    # three blank jokers the colour of their squares, which their outline alone leaves in
    # doubt: their sides look like the photo's inked tokens'
    img, truth, _ = sample_photo("calculissimo", 2, 434603916, hand=False, fonts="held_out")
    got = read(img, truth, "calculissimo")
    assert tally(truth["cells"], got.cells) == (3, 3, [])
    rows, cols = truth["rows"], truth["cols"]
    kinds = tiles.square_kinds_of("calculissimo", rows, cols)
    groups = tiles.square_groups_of("calculissimo", rows, cols)
    args = (oracle_grid(img, truth), got.stats, got.colours, kinds, groups, got.candidate)
    blank, by_sides, _ = blanks.find_blanks(*args, most=4)
    assert by_sides.any() and (blank == got.blank).all()
    # a set of two jokers cannot show three: the sides' evidence is then not believed
    blank, by_sides, _ = blanks.find_blanks(*args, most=2)
    assert not by_sides.any() and blank.sum() < 3


def test_a_set_whose_jokers_wear_ink_finds_none_by_their_look_but_weighs_its_sides():
    """Print-and-play jokers wear a star: no ink-less face is one, but the sides'
    likeness (which lets the net put down a tile a glare washed out) is still measured,
    telling the tiles from the empty squares as the outlines' way does."""
    img, truth, _ = sample_photo("calculissimo", 2, 434603916, hand=False, fonts="held_out")
    got = read(img, truth, "calculissimo")
    rows, cols = truth["rows"], truth["cols"]
    kinds = tiles.square_kinds_of("calculissimo", rows, cols)
    groups = tiles.square_groups_of("calculissimo", rows, cols)
    args = (oracle_grid(img, truth), got.stats, got.colours, kinds, groups, got.candidate)
    _, _, outlined = blanks.find_blanks(*args, most=4)
    blank, by_sides, inked = blanks.find_blanks(*args, most=4, inked=True)
    assert not blank.any() and not by_sides.any()
    jokers = np.array([[v == "?" for v in row] for row in truth["cells"]])
    bare = np.array([[v is None for v in row] for row in truth["cells"]]) & (groups == "plain")
    assert np.isfinite(inked[jokers]).all()
    assert np.nanmin(inked[jokers]) > np.nanmedian(inked[bare]) + 2
    assert np.corrcoef(inked[np.isfinite(outlined)], outlined[np.isfinite(outlined)])[0, 1] > 0.9


def test_mixmath_blanks_are_found_in_photos():
    found = total = 0
    for seed in (541102088, 2612093860, 334902619, 1422146810):
        rng = np.random.default_rng(seed)
        cells = random_cells("mixmath", rng, fill=0.25)
        numbered = [(r, c) for r, row in enumerate(cells) for c, v in enumerate(row)
                    if v not in (None, "?")]
        laid = sum(v == "?" for row in cells for v in row)   # the position's own blanks
        for k in rng.permutation(len(numbered))[:3 - laid]:
            cells[numbered[k][0]][numbered[k][1]] = "?"
        img, truth, _ = render("mixmath", cells, tier=2, seed=seed, hand=False,
                               fonts="held_out")
        f, n, false = tally(cells, read(img, truth, "mixmath").cells)
        assert false == [], seed
        found, total = found + f, total + n
    assert total == 12 and found >= 7


def _glare_on(game, tier, seed, cells, strength):
    """A photo with a strong glare in the middle of the grid (found from a first render
    of the same scene)."""
    _, truth = render(game, cells, tier=tier, seed=seed, hand=False, fonts="held_out")[:2]
    cx, cy = np.mean(truth["grid_corners"], axis=0)
    side = math.dist(truth["grid_corners"][0], truth["grid_corners"][1])
    img, truth, _ = render(game, cells, tier=tier, seed=seed, hand=False, fonts="held_out",
                           glare=(float(cx), float(cy), 0.12 * side, strength))
    return img, truth


@pytest.mark.parametrize("game", ["calculissimo", "mixmath"])
def test_empty_boards_under_glare_have_no_blanks(game):
    rows, cols = (15, 15) if game == "calculissimo" else (14, 14)
    for seed, tier in ((11, 2), (12, 2), (13, 2), (14, 1)):
        img, truth = _glare_on(game, tier, seed, [[None] * cols for _ in range(rows)], 0.8)
        got = read(img, truth, game)
        assert not got.blank.any(), (game, seed)


def test_tiles_beside_empty_squares_under_glare_make_no_blanks():
    """A busy board without jokers: empty squares among tiles (their shadows, their
    sides) and washed-out tiles under a glare are no blanks."""
    for seed in (21, 22, 23):
        rng = np.random.default_rng(seed)
        cells = random_cells("calculissimo", rng, fill=0.5)
        cells = [[("7" if v == "?" else v) for v in row] for row in cells]
        img, truth = _glare_on("calculissimo", 2, seed, cells, 0.6)
        got = read(img, truth, "calculissimo")
        empty = np.array([[v is None for v in row] for row in cells])
        assert not (got.blank & empty).any(), seed


def test_a_cell_whose_sides_look_like_the_inked_tiles_is_told_apart():
    # every tile casts a shadow along its bottom side (the light comes from above); empty
    # squares show none. A cell with that shadow and no ink looks like the tiles.
    rows, cols, p = 8, 8, P
    rng = np.random.default_rng(3)
    grey = rng.normal(200, 2.0, (rows * p, cols * p)).astype(np.float32)
    tiles_at = np.zeros((rows, cols), bool)
    tiles_at[1:4, 1:6] = True
    blank_at = (6, 2)
    for r, c in [*np.argwhere(tiles_at), blank_at]:
        grey[(r + 1) * p - 4:(r + 1) * p + 6, c * p + 4:(c + 1) * p - 4] -= 60   # its shadow
    grey = np.clip(grey, 0, 255).astype(np.uint8)
    face = np.full((rows, cols), 200.0)
    bare = ~tiles_at
    like = blanks.tile_likeness(grey, face, tiles_at, bare, blanks.BlanksConfig())
    assert like[blank_at] > 10
    # the empty squares, but for those under a tile or the blank (its shadow falls on them)
    shaded = np.roll(tiles_at, 1, axis=0)
    shaded[blank_at[0] + 1, blank_at[1]] = True
    empty = bare & ~shaded
    empty[blank_at] = False
    assert np.abs(like[empty]).max() < like[blank_at] / 3
    # too few tiles to learn from: nothing is told
    few = np.zeros_like(tiles_at)
    few[1, 1] = True
    assert not blanks.tile_likeness(grey, face, few, bare, blanks.BlanksConfig()).any()


def test_rim_profiles_run_from_outside_each_side_to_inside():
    rows, cols, p = 3, 3, P
    cfg = blanks.BlanksConfig()
    d = int(round(cfg.rim_reach[0] * p))
    grey = np.full((rows * p, cols * p), 200, np.uint8)
    r, c = 1, 1
    grey[r * p + 3, c * p:(c + 1) * p] = 0              # a dark line 3 px inside its top
    grey[r * p:(r + 1) * p, (c + 1) * p - 6] = 0        # and one 6 px inside its right side
    f = blanks.rim_profiles(grey, rows, cols, cfg).reshape(rows, cols, 4, -1)
    top, bottom, left, right = f[r, c]
    assert np.argmin(top) == d + 3 and np.argmin(right) == d + 5
    assert bottom.min() > 150 and left.min() > 150     # nothing dark along those sides
    assert np.argmin(f[r - 1, c, 1]) == d - 1 - 3      # the cell above sees it outside


def test_no_blank_is_read_on_a_print_and_play_board():
    """boardsight's own jokers carry a star: on a print board (found by its markers) a
    face with no ink is an empty square. A seeded tier-1 Calculissimo render (dev seeds
    615 000) whose empty grey square the blank finder takes for a joker by its sides (the
    print board's squares show a rim and a shadow too) is read right."""
    from vision.reader import read_board
    img, truth, _ = sample_photo("calculissimo", 1, 1142220355, fonts="held_out", hand=False,
                                 resolution=(1920, 1080))
    assert truth["cells"][6][10] is None
    grid, shape = oracle_grid(img, truth), (truth["rows"], truth["cols"])
    assert tiles.read_grid(grid, "calculissimo", shape=shape, tesseract=False
                           ).cells[6][10] == "?"
    assert tiles.read_grid(grid, "calculissimo", shape=shape, tesseract=False,
                           inked_jokers=True).cells[6][10] is None
    reading = read_board(img, "calculissimo")
    assert reading.cells == truth["cells"]


def test_print_and_play_mixmath_blanks_are_read():
    """boardsight's print-and-play Mixmath blanks wear the joker star, read as a glyph
    (which a cut into two digits split in two). A seeded tier-1 render (development seeds)
    with two blanks: both were read as empty squares, surely, while the blanks were bare,
    and as numbers (7, 9) while the star was cut as a pair of digits is."""
    from vision.reader import read_board
    img, truth, _ = sample_photo("mixmath", 1, 2979494703, fonts="held_out", hand=False)
    assert [truth["cells"][r][c] for r, c in [(3, 2), (4, 11)]] == ["?", "?"]
    assert read_board(img, "mixmath").cells == truth["cells"]


def test_a_special_squares_sides_do_not_make_it_a_blank():
    """A seeded 12 MP tier-2 Mixmath render (development seeds), blurred: the "3×" square
    at (7, 13) shows its print, its face its square's colour, but its sides are unlike a
    plain square's — and the sides' likeness to the inked tiles is measured from the plain
    squares. It was read a blank ("?"); only a plain square's sides make one now, and every
    cell is read right."""
    from vision.reader import read_board
    img, truth, _ = sample_photo("mixmath", 2, 3095714199, fonts="train", hand=False,
                                 resolution=(4032, 3024))
    assert tiles.square_kinds_of("mixmath", 14, 14)[7, 13] == "premium3"
    assert read_board(img, "mixmath").cells == truth["cells"]
