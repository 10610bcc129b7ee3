"""calibration.artwork / styles / fonts: what is drawn lies where geometry says."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration import fonts
from calibration.artwork import (draw_board, draw_piece_top, draw_position, draw_tile,
                                 marked_values, printed_numbers, rotated_reading, square_keys)
from calibration.geometry import CORNERS, board_geometry, decode_marker_id, marker_id
from calibration.styles import CENTRE, Style, bgr, mathable_style, print_style
from referee.core import GAMES, load_definition

PPM = 4.0  # px per mm: a 20 mm cell is 80 px


def detect_markers(img: np.ndarray) -> dict[int, np.ndarray]:
    """{id: (4, 2) corners} of the DICT_4X4_50 markers found in a BGR image."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def empty_cells(geometry):
    return [[None] * geometry.cols for _ in range(geometry.rows)]


# -- boards


@pytest.mark.parametrize("game", GAMES)
def test_board_size_follows_geometry(game):
    g = board_geometry(game)
    img = draw_board(g, print_style(game), PPM)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[:2] == (round(g.size_mm[1] * PPM), round(g.size_mm[0] * PPM))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("ppm", [3.0, 5.3])
def test_markers_decode_with_the_right_ids_where_geometry_says(game, ppm):
    g = board_geometry(game)
    found = detect_markers(draw_board(g, print_style(game), ppm))
    assert set(found) == {marker_id(game, c) for c in CORNERS}
    for marker, corners in found.items():
        _, corner = decode_marker_id(marker)
        expected = g.marker_corners_mm(corner) * ppm
        # the detector reports the black square's corners in pixel-centre coordinates
        assert np.abs(corners - expected).max() < 1.0, (corner, corners, expected)


def test_no_markers_on_a_style_without_them():
    g = board_geometry("mixmath")
    assert detect_markers(draw_board(g, mathable_style(), PPM)) == {}


def test_special_squares_carry_their_colours():
    g = board_geometry("mixmath")
    style = print_style("mixmath")
    img = draw_board(g, style, PPM)
    keys = square_keys("mixmath")
    centres = g.cell_centres_mm() * PPM
    for (r, c), want in [((0, 0), style.square("3").fill), ((1, 1), style.square("2").fill),
                         ((0, 1), style.cell_rgb)]:
        x, y = centres[r, c]
        # a corner of the square, away from its label
        px = img[int(y - 0.4 * 80 + 4), int(x - 0.4 * 80 + 4)]
        assert tuple(int(v) for v in px) == bgr(want), (r, c, keys[r][c])


def test_mixmath_centre_is_found_by_position_not_by_character():
    keys = square_keys("mixmath")
    assert keys[0][0] == "3" and keys[1][1] == "2"
    assert [keys[r][c] for r, c in printed_numbers("mixmath")] == [CENTRE] * 4
    assert printed_numbers("mixmath", ["....", ".12.", ".34.", "...."]) == {
        (1, 1): 1, (1, 2): 2, (2, 1): 3, (2, 2): 4}


def test_breakthrough_bottom_left_square_is_dark():
    g = board_geometry("breakthrough", rows=6, cols=5)
    style = print_style("breakthrough")
    img = draw_board(g, style, PPM)
    x, y = (g.cell_centres_mm()[5, 0] + np.array([-10, -10])) * PPM
    assert tuple(int(v) for v in img[int(y), int(x)]) == bgr(style.dark_square_rgb)
    x, y = (g.cell_centres_mm()[5, 1] + np.array([-10, -10])) * PPM
    assert tuple(int(v) for v in img[int(y), int(x)]) == bgr(style.light_square_rgb)


# -- tiles and pieces


def test_tiles_are_bgra_with_a_rounded_shape_and_cached():
    style = print_style("mixmath")
    tile = draw_tile("mixmath", 42, style, 64)
    assert tile.shape == (64, 64, 4) and tile.dtype == np.uint8
    assert tile[32, 3, 3] == 255 and tile[0, 0, 3] < 128   # rounded corner is transparent
    assert draw_tile("mixmath", 42, style, 64) is tile
    assert not tile.flags.writeable


@pytest.mark.parametrize("bad", [100, -1, "12a", 3.5])
def test_a_tile_that_is_not_in_the_game_is_refused(bad):
    with pytest.raises(ValueError):
        draw_tile("mixmath", bad, print_style("mixmath"), 40)


def test_blank_and_joker_faces():
    style = print_style("mixmath")    # boardsight's print-and-play blank wears a star
    blank = draw_tile("mixmath", None, style, 60)
    assert blank is draw_tile("mixmath", "blank", style, 60) is draw_tile("mixmath", "?", style, 60)
    assert (blank[30, 30, :3] == bgr(style.numeral_rgb)).all()
    bare = draw_tile("mixmath", "?", dataclasses.replace(style, joker_face="blank"), 60)
    face = bare[15:45, 15:45, :3].reshape(-1, 3)
    assert (face == bgr(style.tile_rgb)).all()       # nothing printed on a bare blank
    cstyle = print_style("calculissimo")
    star = draw_tile("calculissimo", "?", cstyle, 60)
    assert (star[30, 30, :3] == bgr(cstyle.numeral_rgb)).all()
    plain = draw_tile("calculissimo", "?", dataclasses.replace(cstyle, joker_face="blank"), 60)
    assert (plain[30, 30, :3] == bgr(cstyle.joker_rgb)).all()


def test_values_that_read_as_another_value_upside_down_are_marked():
    assert rotated_reading("69") == "69" and rotated_reading("60") == "09"
    assert marked_values("mixmath", print_style("mixmath")) == {6, 9, 18, 81}
    assert marked_values("mixmath", mathable_style()) == {6, 9}
    assert marked_values("calculissimo", print_style("calculissimo")) == {"6", "9"}
    assert marked_values("mixmath", dataclasses.replace(mathable_style(), six_nine_mark=None)) \
        == frozenset()


def _ink_rows(tile):
    dark = (tile[..., :3].astype(int).sum(-1) < 200) & (tile[..., 3] == 255)
    return np.nonzero(dark.any(axis=1))[0]


def test_underline_sits_below_marked_numerals_only():
    style = print_style("mixmath")
    six, eight = draw_tile("mixmath", 6, style, 100), draw_tile("mixmath", 8, style, 100)
    assert _ink_rows(six).max() > _ink_rows(eight).max() + 4   # the bar under the 6
    assert _ink_rows(six).min() == pytest.approx(_ink_rows(eight).min(), abs=2)


def test_numerals_are_centred_by_their_ink():
    style = print_style("mixmath")
    for value in (1, 7, 10, 48):
        tile = draw_tile("mixmath", value, style, 100)
        dark = (tile[..., :3].astype(int).sum(-1) < 200) & (tile[..., 3] == 255)
        ys, xs = np.nonzero(dark)
        box_centre = ((xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2)
        assert box_centre == pytest.approx((49.5, 49.5), abs=1.5), value


def test_pieces_are_discs_of_their_colour():
    style = print_style("mastermind")
    for name, rgb in style.peg_palette:
        peg = draw_piece_top("mastermind", name, style, 50)
        assert peg[0, 0, 3] == 0 and peg[25, 25, 3] == 255
        # away from the highlight the peg shows its own hue
        b, g, r = (int(v) for v in peg[32, 30, :3])
        assert np.abs(np.array([r, g, b]) - np.array(rgb)).max() < 80, name
    with pytest.raises(KeyError):
        draw_piece_top("mastermind", "mauve", style, 50)
    bstyle = print_style("breakthrough")
    w = draw_piece_top("breakthrough", "w", bstyle, 50)
    b = draw_piece_top("breakthrough", "b", bstyle, 50)
    assert w[25, 25, :3].astype(int).sum() > 3 * 180 and b[25, 25, :3].astype(int).sum() < 3 * 90


# -- positions


def _changed_centroid(before, after, box):
    x0, y0, x1, y1 = (int(v) for v in box)
    diff = np.abs(after[y0:y1, x0:x1].astype(int) - before[y0:y1, x0:x1].astype(int)).sum(-1)
    ys, xs = np.nonzero(diff > 30)
    if not len(xs):
        return None, None, 0
    return xs.mean() + x0, ys.mean() + y0, len(xs)


@pytest.mark.parametrize("game", GAMES)
def test_each_piece_lies_centred_on_its_cell(game):
    g = board_geometry(game, cell_mm=16.0)
    style = print_style(game)
    value = {"mixmath": 0, "calculissimo": "?", "mastermind": "yellow", "breakthrough": "b"}[game]
    cells = empty_cells(g)
    placed = [(0, 0), (g.rows - 1, g.cols - 1), (g.rows // 2, 1)]
    for r, c in placed:
        cells[r][c] = value
    board = draw_board(g, style, PPM)
    img = draw_position(g, style, cells, PPM)
    centres = g.cell_centres_mm() * PPM
    for r, c in placed:
        box = np.array(g.cell_box(r, c)) * PPM
        cx, cy, n = _changed_centroid(board, img, box)
        assert n > 0.2 * (16 * PPM) ** 2 * (0.3 if game == "mastermind" else 1)
        assert (cx, cy) == pytest.approx(tuple(centres[r, c]), abs=0.75), (r, c)
    # cells left empty are untouched
    box = np.array(g.cell_box(0, 1)) * PPM
    assert _changed_centroid(board, img, box)[2] == 0


def test_seeded_offsets_stay_within_bounds_and_repeat():
    g = board_geometry("mixmath")
    style = print_style("mixmath")
    cells = empty_cells(g)
    for c in range(0, 14, 3):
        cells[2][c] = None if c == 0 else c
    cells[2][0] = "blank"
    a = draw_position(g, style, cells, PPM, rng=7)
    assert np.array_equal(a, draw_position(g, style, cells, PPM, rng=7))
    assert not np.array_equal(a, draw_position(g, style, cells, PPM, rng=8))
    board = draw_board(g, style, PPM)
    centres = g.cell_centres_mm() * PPM
    cell = 20 * PPM
    moved = 0
    for c in range(0, 14, 3):
        box = np.array(g.cell_box(2, c)) * PPM + np.array([-0.2, -0.2, 0.2, 0.2]) * cell
        cx, cy, _ = _changed_centroid(board, a, box)
        off = np.hypot(cx - centres[2, c, 0], cy - centres[2, c, 1])
        assert off <= 0.1 * cell * np.sqrt(2) + 1.5
        moved += off > 1
    assert moved >= 3


def test_cells_of_the_wrong_shape_are_refused():
    g = board_geometry("breakthrough")
    with pytest.raises(ValueError, match="8 x 8"):
        draw_position(g, print_style("breakthrough"), [[None] * 7] * 8, PPM)


def test_a_tile_on_a_printed_number_hides_it():
    g = board_geometry("mixmath")
    style = dataclasses.replace(print_style("mixmath"), joker_face="blank")  # all face
    cells = empty_cells(g)
    cells[6][6] = "blank"
    img = draw_position(g, style, cells, PPM)
    x, y = g.cell_centres_mm()[6, 6] * PPM
    assert tuple(int(v) for v in img[int(y), int(x)]) == bgr(style.tile_rgb)


# -- styles and fonts


def test_styles_are_hashable_and_name_their_squares():
    for game in GAMES:
        style = print_style(game)
        hash(style)
        assert style.markers
    calc = print_style("calculissimo")
    for char in load_definition("calculissimo")["squares"]:
        assert calc.square(char) is not None
    math = mathable_style()
    assert not math.markers and math.six_nine_mark == "dot"
    # Mathable: blue board, purple 2x, orange 3x, cream tiles (measured from the photos)
    r, g, b = math.board_rgb
    assert b > r + 80
    r, g, b = math.square("2").fill
    assert r > g and b > g
    r, g, b = math.square("3").fill
    assert r > g > b
    r, g, b = math.tile_rgb
    assert r > g > b > 150
    assert isinstance(Style(), Style)


@pytest.mark.skipif(not fonts.font_faces(), reason="no fonts installed")
def test_font_split_is_fixed_disjoint_and_by_family():
    train, held = fonts.font_split()
    assert train and held and not set(train) & set(held)
    assert fonts.font_faces() == train + held
    train_families = {f.family for f in fonts.installed_faces() if not f.held_out}
    held_families = {f.family for f in fonts.installed_faces() if f.held_out}
    assert not train_families & held_families
    assert fonts.print_font() in train
    for path in fonts.font_faces():
        name = path.name.lower()
        assert "italic" not in name and "oblique" not in name and "mono" not in name
    assert set(fonts.font_faces("sans")) | set(fonts.font_faces("serif")) == set(train + held)
    with pytest.raises(ValueError):
        fonts.font_faces("script")


@pytest.mark.skipif(not fonts.font_faces(), reason="no fonts installed")
def test_every_face_draws_distinct_digits():
    """A face that drew boxes or blanks for digits would make all ten alike."""
    for path in fonts.font_faces():
        style = dataclasses.replace(print_style("mixmath"), font=str(path),
                                    six_nine_mark=None)
        inks = [(draw_tile("mixmath", d, style, 40)[..., :3].astype(int).sum(-1) < 300)
                for d in range(10)]
        pairs = {(a, b) for a in range(10) for b in range(a + 1, 10)
                 if np.array_equal(inks[a], inks[b])}
        assert not pairs, path
        assert all(ink.sum() > 10 for ink in inks), path


def test_tiles_never_move_into_an_occupied_neighbour():
    from calibration.artwork import _keep_clear
    grid = [[None, 1, None], [2, 3, 4], [None, 5, None]]
    assert list(_keep_clear(grid, 1, 1, np.array([9.0, -9.0]), 2.0)) == [2.0, -2.0]
    assert list(_keep_clear(grid, 0, 1, np.array([-9.0, -9.0]), 2.0)) == [-9.0, -9.0]
    assert list(_keep_clear(grid, 0, 1, np.array([9.0, 9.0]), 2.0)) == [9.0, 2.0]
