"""samples.collage: real tiles laid anew on the real empty board, and what vision makes of
such a crowded real board (../shared/real/mathable, skipped when absent)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.geometry import BoardGeometry
from calibration.layouts import tile_counts
from samples.collage import Source, collage, grow_layout, truth_of
from tests.conftest import REAL


def _toy_sources():
    """One photo 'showing' tiles 1, 2 and 20 (2 px a mm, 10 mm cells, no margins)."""
    image = np.zeros((280, 280, 3), np.uint8)
    return [Source(image, np.diag([0.5, 0.5, 1.0]), {(0, 0): 1, (0, 1): 2, (0, 2): 20})]


def test_a_layout_grows_out_from_the_centre_and_keeps_to_the_set():
    g = BoardGeometry("mixmath", rows=14, cols=14, cell_mm=10.0, margins_mm=(0, 0, 0, 0))
    counts = {1: 7, 2: 7, 20: 1, 99: 3}     # 99: in the set, but no photo shows one
    layout = grow_layout(np.random.default_rng(0), g, 12, _toy_sources(), counts)
    cells = set(layout)
    assert len(cells) == 12
    centre = {(6, 6), (6, 7), (7, 6), (7, 7)}
    assert not cells & centre               # Mixmath's fixed numbers stay uncovered
    # one cluster with the centre: every cell reached from it through laid cells
    seen, todo = set(), list(centre)
    while todo:
        r, c = todo.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in cells and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    assert seen == cells
    values = [v for row in truth_of(layout, g) for v in row if v is not None]
    assert all(values.count(v) <= counts[v] for v in values) and 99 not in values
    # a bag smaller than asked for: every tile of it, no more
    assert len(grow_layout(np.random.default_rng(1), g, 40, _toy_sources(), counts)) == 15


def _located(name):
    """A real photo and its board, found."""
    from vision.board import find_board

    image = cv2.imread(str(REAL / name))
    return image, find_board(image, "mixmath")


def _late_game(i, located, sources, reshots=1):
    """Development collage ``[58, i]`` laid on ``located`` (an empty board's photo and its
    board): its truth, the photo as laid and its first ``reshots`` re-shots at 1080p
    (``samples.reshoot``), each drawn from one generator as the development sets were."""
    from samples.reshoot import reshoot

    empty, loc = located
    rng = np.random.default_rng([58, i])
    k = int(rng.integers(20, 107))
    layout = grow_layout(rng, loc.geometry, k, sources, tile_counts("mixmath"))
    photo = collage(empty, loc.homography, loc.geometry, layout)
    shots = [reshoot(photo, loc.homography, loc.geometry, rng).image for _ in range(reshots)]
    return truth_of(layout, loc.geometry), photo, shots


@pytest.fixture(scope="module")
def real_sources(real_truth):
    """The empty board and the tiles of the tile-set and last game photos, located."""
    sources = [Source.of_cells(image, loc.homography, real_truth[name]["cells"])
               for name in ("tile-set.jpg", "game-19.jpg") for image, loc in [_located(name)]]
    return _located("empty-1.jpg"), sources


@pytest.mark.slow
def test_a_crowded_real_board_is_found_on_its_lines_and_read(real_sources):
    """A hundred real tiles round the centre (a late game): the tiles' glyph strokes and
    edges hide most grid lines, and the wide first pass of the grid's refinement used to
    lock onto them (this board: 0.27 cells off at a corner, rows of tiles cut in half).
    Located within 0.05 cells of the empty board it was laid on, every cell read right."""
    from vision.reader import read_board

    (empty, loc), sources = real_sources
    layout = grow_layout(np.random.default_rng([3, 0]), loc.geometry, 100, sources,
                         tile_counts("mixmath"))
    photo = collage(empty, loc.homography, loc.geometry, layout)
    reading = read_board(photo, "mixmath")
    cell = np.linalg.norm(loc.grid_corners[1] - loc.grid_corners[0]) / loc.geometry.cols
    assert np.abs(reading.grid_corners - loc.grid_corners).max() < 0.05 * cell
    assert reading.occluded == []
    assert reading.cells == truth_of(layout, loc.geometry)


@pytest.mark.slow
def test_a_pair_near_its_cells_side_keeps_its_outer_digit(real_sources):
    """Real tiles lie off centre and touching: on this re-shot of a late game (1080p) the
    set's 81 lies so far right that its 1 touched the side of the cell's ink zone and was
    dropped as the square's colour showing round the tile (read 8). The zone now reaches
    the outer digit of a pair on a tile a tenth of a cell off centre."""
    from vision.reader import read_board

    located, sources = real_sources
    truth, _, (shot,) = _late_game(28, located, sources)
    assert truth[6][3] == 81
    reading = read_board(shot, "mixmath")
    assert reading.cells[6][3] == 81
    assert reading.cells == truth


@pytest.mark.slow
def test_a_crowded_board_at_small_cells_keeps_the_grid_its_squares_show(real_sources):
    """A re-shot late game, far and turned (1080p, cells ~26 px): the wide pass found more
    line segments than the fine pass alone, tiles' edges among them, and stretched the
    grid over the board's top border (the top rows read cut in half: a "hand"). The
    lattice's squares, seen whole, sit near their cells' centres under the fine pass
    alone and not under the wide one, so the fine pass is kept: no hand, every cell
    right."""
    from vision.config import BoardConfig, VisionConfig
    from vision.reader import read_board

    located, sources = real_sources
    truth, _, shots = _late_game(14, located, sources, reshots=2)
    stretched = read_board(shots[1], "mixmath",
                           config=VisionConfig(board=BoardConfig(wide_pass_squares_ratio=None)))
    assert len(stretched.occluded) > 10
    reading = read_board(shots[1], "mixmath")
    assert reading.occluded == []
    assert reading.cells == truth


@pytest.mark.slow
def test_a_lone_glyph_as_wide_as_two_of_the_photos_digits_is_two_digits(real_sources):
    """The set's 81 has a thin 1 that touches its 8: re-shot at 1080p it is one glyph,
    which the glyph reader and the net both took for an 8 (0.23 and 0.46). It is half as
    wide again, for its height, as the 8s and 9s read surely in the same photo: two digits
    touching, cut in two, read 81 (shown to check)."""
    from vision.reader import read_board
    from vision.tiles import TilesConfig

    located, sources = real_sources
    truth, _, (shot,) = _late_game(246, located, sources)
    assert truth[8][3] == 81
    assert read_board(shot, "mixmath", config=TilesConfig(too_wide=None)).cells[8][3] == 8
    reading = read_board(shot, "mixmath")
    assert reading.cells == truth
    assert reading.confidence[8][3] < 0.5


@pytest.mark.slow
def test_a_tile_the_net_doubts_is_not_emptied_by_a_doubt_less_than_its_own(real_sources):
    """A re-shot game (1080p, turned): the glyph reader reads a 2 at 0.41, the net, which
    never saw the set's font, calls the square empty at 0.2 and the 2 no likelier than an
    8. The empty square used to take the cell (a blank judge then made it a "?"); the 2
    stays, shown to check, and every cell is right."""
    from vision.reader import read_board

    located, sources = real_sources
    truth, _, (shot,) = _late_game(16, located, sources)
    assert truth[10][6] == 2
    reading = read_board(shot, "mixmath")
    assert reading.cells == truth
    assert reading.confidence[10][6] < 0.9


@pytest.mark.slow
def test_a_white_tile_on_a_pale_premium_square_is_read(real_sources):
    """A re-shot game on the other empty board photo (1080p): the 12 on a 2x square shows
    a face 13.5 from the square's colour, short of ``square_sep`` (14), but 4.9 from the
    tiles': it was taken for the square (and, the set calibrated, left so), now read."""
    from vision.reader import read_board

    _, sources = real_sources
    truth, _, (shot,) = _late_game(15, _located("empty-2.jpg"), sources)
    assert truth[10][10] == 12
    reading = read_board(shot, "mixmath")
    assert reading.cells == truth


@pytest.mark.slow
def test_the_gap_lines_round_an_off_centre_tiles_corner_are_no_part_of_its_numeral(
        real_sources):
    """A late game as laid (12 MP): the 81 at (5, 9) lies a tenth of a cell off its square,
    and the gap lines round its top-left corner, an L too big for a thin box, were cut
    with its 8 (read 15, then 8). Nearly all of the L's pixels lie in the cell's edge
    band: it is dropped, and every cell is read right."""
    from vision.reader import read_board

    located, sources = real_sources
    truth, photo, _ = _late_game(22, located, sources, reshots=0)
    assert truth[5][9] == 81
    reading = read_board(photo, "mixmath")
    assert reading.cells == truth


@pytest.mark.slow
def test_a_thin_second_digit_the_net_loses_is_read(real_sources):
    """A re-shot game (1080p, cells ~38 px): the glyph reader reads the set's 81 at 0.51,
    cut into an 8 and a 1 side by side; the net, taught on renders, an 8 at 0.92 (the 81
    at 0.03). The net's 8 was taken and shown sure, then shown to check; the two digits'
    ink now stands: every cell right."""
    from vision.reader import read_board

    located, sources = real_sources
    truth, _, (shot,) = _late_game(78, located, sources)
    assert truth[9][4] == 81
    assert read_board(shot, "mixmath").cells == truth


@pytest.mark.slow
def test_a_crowded_board_whose_lattice_runs_onto_the_table_is_found(real_sources):
    """A re-shot late game (98 tiles, 1080p, cells ~33 px, on the second empty-board
    photo): whole lines of the board hold no empty square, so the lattice's longest
    unbroken run of lines was part of the board, and the squares past it (a few more on
    the table's grain and the border's ruler) too many to leave out as strays: "the
    squares seen do not fit its grid". The board's 14 lines holding the most squares
    (and 2 either side) now bound them: found, every cell right."""
    from vision.reader import read_board

    _, sources = real_sources
    truth, _, (shot,) = _late_game(57, _located("empty-2.jpg"), sources)
    assert read_board(shot, "mixmath").cells == truth


@pytest.mark.slow
def test_a_thin_1_read_beside_its_8_is_no_lost_digit(real_sources):
    """A 98-tile late game re-shot at 1080p: the plain cut of the set's 81 is an 8 and a
    1 in line (the thin 1 a little shorter), read 81 surely; the whole-tile model, taught
    on renders, gives the 8 far more, and the 8 was read. Two digits read so keep a
    two-digit value (``TilesConfig.pair_sure``): every cell right; without it the 8."""
    from vision.reader import read_board
    from vision.tiles import TilesConfig

    _, sources = real_sources
    truth, _, (_, shot) = _late_game(57, _located("empty-2.jpg"), sources, reshots=2)
    assert truth[2][9] == 81
    assert read_board(shot, "mixmath").cells == truth
    assert read_board(shot, "mixmath", config=TilesConfig(pair_sure=None)).cells[2][9] == 8


@pytest.mark.slow
def test_a_crowded_board_turned_45_degrees_is_found_by_its_outline(real_sources):
    """A 100-tile late game re-shot at 1080p, the board turned 45° and its cells ~25 px:
    too few squares show for a lattice, and the outline look's grid (the board's edge,
    its lines evenly spaced inside) follows the layout at 0.40 only, the tiles on plain
    squares counting against it, where 0.7 is asked; a cell or two off it follows it at
    0.10 at most. That clear lead now takes it (``outline_layout_lead``): found, every
    cell right; without it "no board"."""
    from dataclasses import replace

    from vision.board import BoardConfig, BoardNotFound, find_board
    from vision.reader import read_board

    located, sources = real_sources
    truth, _, (_, shot) = _late_game(138, located, sources, reshots=2)
    assert read_board(shot, "mixmath").cells == truth
    with pytest.raises(BoardNotFound):
        find_board(shot, "mixmath", config=replace(BoardConfig(), outline_layout_lead=None))


@pytest.mark.slow
def test_the_sets_counts_move_the_reading_both_readers_doubt(real_sources):
    """An 80-tile late game re-shot at 1080p: the set's one 80 read by both readers (the
    glyph reader at 0.99, the net at 0.55) and a 60 the net reads 80 at 0.91 (the glyph
    reader 60 at 0.64). Weighed by both readers (``TilesConfig.set_counts_by_both``) the
    60 is the one moved, to 60, shown to check: every cell right; by the net's odds alone
    the true 80 went to 90 and the wrong 80 stayed, sure."""
    from vision.reader import read_board
    from vision.reading import UNSURE_BELOW
    from vision.tiles import TilesConfig

    located, sources = real_sources
    truth, _, (shot,) = _late_game(2, located, sources)
    assert (truth[8][5], truth[8][8]) == (80, 60)
    reading = read_board(shot, "mixmath")
    assert reading.cells == truth
    assert reading.confidence[8, 8] < UNSURE_BELOW
    alone = read_board(shot, "mixmath", config=TilesConfig(set_counts_by_both=()))
    assert (alone.cells[8][5], alone.cells[8][8]) == (90, 80)
