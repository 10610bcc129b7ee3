"""The photo renderer's truth must match what it drew.

Each check renders small photos and compares the truth with the picture: the board's
projected corners sit on the board's outline, tier-1 markers are found where the truth
says, every cell's centre shows that cell's tile, peg or piece, the hand's occluded cells
show skin, everything is reproducible from the seed, and sampled poses and light stay in
the ranges of ../shared/BOARDS.md.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration import artwork
from calibration.geometry import decode_marker_id
from calibration.layouts import tile_counts
from calibration.styles import bgr, print_style
from referee.core import load_definition
from samples import render as R
from samples.camera import CameraRanges, board_fill, in_frame, min_cell_px, sample_camera
from samples.light import Finish, finish_photo, sample_finish
from samples.solids import Light
from samples.styles import Build, print_set
from samples.table import Table

SMALL = (1280, 720)
FLAT_LIGHT = Light(direction=(0.0, -1.0), elevation=60.0, shadow=0.0)
CLEAN = dict(clean=True, hand=False, objects=False, light=FLAT_LIGHT)


def _plain(colour) -> Table:
    return Table(kind="plain", colour=colour, grain_angle=0.0, ring_mm=1.0, plank_mm=0.0,
                 contrast=0.0, seed=0)


def _cell_points(truth, fx: float, fy: float) -> np.ndarray:
    """(rows, cols, 2) picture px of the point (fx, fy) (shares of a cell from its
    top-left corner) in every cell, mapped through the truth's grid corners."""
    rows, cols = truth["rows"], truth["cols"]
    src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)
    H = cv2.getPerspectiveTransform(src, np.array(truth["grid_corners"], np.float32))
    cc, rr = np.meshgrid(np.arange(cols) + fx, np.arange(rows) + fy)
    pts = np.stack([cc, rr], -1).reshape(-1, 1, 2).astype(np.float32)
    return cv2.perspectiveTransform(pts, H).reshape(rows, cols, 2)


def _sample(img, pt, r: int = 1) -> np.ndarray:
    x, y = int(round(pt[0])), int(round(pt[1]))
    return np.median(img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3), axis=0)


# -- the board's outline --------------------------------------------------------------------


@pytest.mark.parametrize("game,tier,seed", [("mixmath", 2, 1), ("calculissimo", 1, 2),
                                            ("mastermind", 2, 3), ("breakthrough", 2, 4)])
def test_projected_corners_lie_on_the_board_outline(game, tier, seed):
    """Render the same photo on a red and on a blue table: the board is what stays the
    same. Just inside each projected corner is board, just outside is table."""
    cells = R.random_cells(game, np.random.default_rng(seed), fill=0.2)
    shots = []
    for colour in ((30, 30, 220), (220, 60, 30)):
        img, truth = R.render_photo(game, cells, tier=tier, seed=seed, resolution=SMALL,
                                    table=_plain(colour), build=Build(board_mm=0.0), **CLEAN)
        shots.append(img.astype(int))
    board = np.abs(shots[0] - shots[1]).sum(-1) < 30
    corners = np.array(truth["corners"])
    for i, corner in enumerate(corners):
        # 3 px along both edges that meet here: inside the corner's wedge, or outside it
        e1, e2 = corners[(i + 1) % 4] - corner, corners[i - 1] - corner
        step = 3 * (e1 / np.linalg.norm(e1) + e2 / np.linalg.norm(e2))
        inside, outside = corner + step, corner - step
        assert board[int(round(inside[1])), int(round(inside[0]))], corner
        assert not board[int(round(outside[1])), int(round(outside[0]))], corner
    # the whole board is in the picture and fills the share the camera says
    h, w = board.shape
    assert ((corners >= 0) & (corners < [w, h])).all()
    extent = (corners.max(0) - corners.min(0)).max() / min(w, h)
    assert extent == pytest.approx(truth["camera"]["fill"], abs=1e-4)


@pytest.mark.parametrize("game,azimuth", [("mixmath", 0.0), ("mixmath", 130.0),
                                          ("mastermind", 250.0), ("breakthrough", 300.0)])
def test_tier1_markers_are_found_where_the_truth_projects_them(game, azimuth):
    """cv2.aruco finds all four markers, each id names the corner the truth's camera puts
    it in (so the truth's TL is the board's own TL however the picture is turned), and the
    detected corners lie within 1.5 px of the projected ones."""
    cells = R.random_cells(game, np.random.default_rng(5), fill=0.3)
    img, truth = R.render_photo(game, cells, tier=1, seed=11, resolution=(1920, 1080),
                                azimuth=azimuth, elevation=62.0, fill=0.85, **CLEAN)
    _, geometry, _ = print_set(game)
    P = np.array(truth["camera"]["P"])
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    found, ids, _ = detector.detectMarkers(img)
    assert ids is not None and sorted(ids.ravel()) == sorted(
        artwork.marker_id(game, c) for c in ("TL", "TR", "BR", "BL"))
    for quad, marker in zip(found, ids.ravel()):
        marker_game, corner = decode_marker_id(marker)
        assert marker_game == game
        mm = geometry.marker_corners_mm(corner)
        X = np.column_stack([mm, np.zeros(4), np.ones(4)]) @ P.T
        assert np.abs(X[:, :2] / X[:, 2:] - quad[0]).max() < 1.5
    # the truth's corner order: the marker in the board's TL is nearest corners[0]
    corners = np.array(truth["corners"])
    for quad, marker in zip(found, ids.ravel()):
        corner = decode_marker_id(marker)[1]
        nearest = np.argmin(np.linalg.norm(corners - quad[0].mean(0), axis=1))
        assert ("TL", "TR", "BR", "BL")[nearest] == corner


# -- what lies on the cells -----------------------------------------------------------------


@pytest.mark.parametrize("game,tier,seed", [("mixmath", 1, 1), ("mixmath", 2, 2),
                                            ("mixmath", 2, 6), ("calculissimo", 1, 3),
                                            ("calculissimo", 2, 4)])
def test_every_cell_shows_its_tile_or_the_board(game, tier, seed):
    """The same photo with the position and with an empty board: near each cell's top-left
    corner (on a tile's face, clear of its numeral, mark and sides) a cell with a tile
    shows the tile's face colour, and an empty cell looks as on the empty board."""
    cells = R.random_cells(game, np.random.default_rng(seed), fill=0.35)
    empty = [[None] * len(row) for row in cells]
    style, geometry, build = (print_set(game) if tier == 1
                              else R.random_set(game, np.random.default_rng(seed), "any"))
    style = replace(style, numeral_frac=0.3)  # keep numerals clear of the sample point
    kw = dict(tier=tier, seed=seed, resolution=SMALL, max_offset=0.0, max_angle=0.0,
              elevation=75.0, fill=0.9, style=style, geometry=geometry, build=build, **CLEAN)
    img, truth = R.render_photo(game, cells, **kw)
    bare, _ = R.render_photo(game, empty, **kw)
    tile = np.array(bgr(truth["style"]["tile_rgb"]), float)
    joker = np.array(bgr(truth["style"]["joker_rgb"]), float)
    pts = _cell_points(truth, 0.22, 0.22)
    wrong = []
    for r in range(truth["rows"]):
        for c in range(truth["cols"]):
            seen, board = _sample(img, pts[r, c]), _sample(bare, pts[r, c])
            value = truth["cells"][r][c]
            # (a Mixmath blank "?" is a tile with no numeral)
            face = joker if value == "?" and game == "calculissimo" else tile
            if value is None:
                ok = np.linalg.norm(seen - board) < 20
            else:  # (a white joker on a white square: colour alone cannot tell)
                near = np.linalg.norm(seen - face)
                ok = near < 45 and (near < np.linalg.norm(seen - board)
                                    or np.linalg.norm(face - board) < 20)
            if not ok:
                wrong.append((r, c, value, seen.tolist(), board.tolist()))
    assert not wrong


def test_placing_a_tile_leaves_the_other_tiles_where_they_were():
    """Recorded games photograph the same tiles move after move: adding one tile changes
    the photo only around that tile's cell."""
    cells = R.random_cells("mixmath", np.random.default_rng(4), fill=0.2)
    more = [row[:] for row in cells]
    more[0][0] = 5  # a corner far from the group grown from the centre
    assert cells[0][0] is None and cells[0][1] is None and cells[1][0] is None
    kw = dict(tier=1, seed=4, resolution=SMALL, elevation=80.0, fill=0.9, **CLEAN)
    img, truth = R.render_photo("mixmath", cells, **kw)
    img2, _ = R.render_photo("mixmath", more, **kw)
    changed = np.argwhere(np.abs(img.astype(int) - img2.astype(int)).max(axis=2) > 30)
    assert len(changed) > 100  # the new tile is there
    centres = _cell_points(truth, 0.5, 0.5)
    cell_px = np.linalg.norm(centres[0, 1] - centres[0, 0])
    far = np.linalg.norm(changed[:, ::-1] - centres[0, 0], axis=1) > 1.5 * cell_px
    assert not far.any()


def test_every_hole_shows_its_peg_colour():
    """Mastermind: the nearest palette colour at each hole's centre is the truth's peg;
    empty holes are dark."""
    game = "mastermind"
    cells = R.random_cells(game, np.random.default_rng(8), fill=0.6)
    img, truth = R.render_photo(game, cells, tier=1, seed=8, resolution=SMALL,
                                elevation=80.0, **CLEAN)
    style = print_style(game)
    names = [n for n, _ in style.peg_palette] + [None]
    colours = np.array([bgr(rgb) for _, rgb in style.peg_palette] + [bgr(style.hole_rgb)], float)
    pts = _cell_points(truth, 0.5, 0.5)
    for r in range(truth["rows"]):
        for c in range(truth["cols"]):
            seen = _sample(img, pts[r, c], 2)
            # compare chromaticity and brightness alike: shading scales a colour
            guess = names[int(np.argmin(np.linalg.norm(colours - seen, axis=1)))]
            assert guess == truth["cells"][r][c], (r, c, seen)


@pytest.mark.parametrize("azimuth", [20.0, 200.0])
def test_every_square_shows_its_piece(azimuth):
    """Breakthrough at an oblique view (pieces lean away from the camera): the centre of
    each square shows the light piece, the dark piece or the square."""
    game = "breakthrough"
    cells = R.random_cells(game, np.random.default_rng(9), fill=0.5)
    img, truth = R.render_photo(game, cells, tier=1, seed=9, resolution=SMALL,
                                elevation=55.0, azimuth=azimuth, **CLEAN)
    pts = _cell_points(truth, 0.5, 0.5)
    for r in range(truth["rows"]):
        for c in range(truth["cols"]):
            luma = float(_sample(img, pts[r, c], 1) @ [0.114, 0.587, 0.299])
            value = truth["cells"][r][c]
            if value == "w":
                assert luma > 190, (r, c, luma)
            elif value == "b":
                assert luma < 90, (r, c, luma)
            else:
                assert 100 < luma < 240, (r, c, luma)  # a light or dark square, no piece


def test_tall_pieces_lean_away_from_the_camera():
    """A pawn's top appears farther from the camera's nadir than its base: the picture of
    a lone pawn is longer along the line to the nadir than across it."""
    game = "breakthrough"
    cells = [[None] * 8 for _ in range(8)]
    cells[4][4] = "b"
    style = replace(print_style(game), piece_shape="pawn")
    kw = dict(CLEAN, elevation=50.0, azimuth=0.0, fill=0.8)
    kw["table"] = _plain((200, 200, 200))
    with_pawn, truth = R.render_photo(game, cells, tier=1, seed=2, resolution=SMALL,
                                      style=style, **kw)
    empty, _ = R.render_photo(game, [[None] * 8 for _ in range(8)], tier=1, seed=2,
                              resolution=SMALL, style=style, **kw)
    diff = np.abs(with_pawn.astype(int) - empty.astype(int)).sum(-1) > 60
    ys, xs = np.nonzero(diff)
    base = _cell_points(truth, 0.5, 0.5)[4, 4]
    cell_px = np.linalg.norm(_cell_points(truth, 0.5, 0.0)[4, 4] - base) * 2
    # azimuth 0: the camera stands below the board, so the pawn leans up the picture:
    # its top reaches far above the base's centre, its base only its radius below
    assert base[1] - ys.min() > 0.8 * cell_px
    assert base[1] - ys.min() > 1.5 * (ys.max() - base[1])


# -- the hand --------------------------------------------------------------------------------


@pytest.mark.parametrize("game,seed", [("mixmath", 21), ("breakthrough", 22)])
def test_occluded_cells_show_the_hand(game, seed):
    """The same photo with and without a hand: the hand flag is set, the occluded cells
    are where the pictures differ, and there the colour is the hand's skin."""
    cells = R.random_cells(game, np.random.default_rng(seed), fill=0.3)
    kw = dict(clean=True, objects=False, light=FLAT_LIGHT, resolution=SMALL)
    with_hand, truth = R.render_photo(game, cells, tier=2, seed=seed, hand=True, **kw)
    without, truth0 = R.render_photo(game, cells, tier=2, seed=seed, hand=False, **kw)
    assert truth["hand"] and truth["occluded"]
    assert not truth0["hand"] and truth0["occluded"] == []
    changed = np.abs(with_hand.astype(int) - without.astype(int)).sum(-1) > 40
    skin = np.array(truth["hand_spec"]["skin"], float)
    rows, cols = truth["rows"], truth["cols"]
    occluded = {tuple(rc) for rc in truth["occluded"]}
    # share of each cell's sample points that changed
    share = np.zeros((rows, cols))
    grid = np.linspace(0.1, 0.9, 5)
    for fy in grid:
        for fx in grid:
            pts = _cell_points(truth, fx, fy)
            xi = np.clip(np.round(pts[..., 0]).astype(int), 0, SMALL[0] - 1)
            yi = np.clip(np.round(pts[..., 1]).astype(int), 0, SMALL[1] - 1)
            share += changed[yi, xi]
    share /= grid.size ** 2
    for r in range(rows):
        for c in range(cols):
            if share[r, c] >= 0.5:
                assert (r, c) in occluded, (r, c, share[r, c])
            if (r, c) in occluded:
                assert share[r, c] > 0.0, (r, c)
    # where a cell is fully hidden its centre shows skin (a shade of the skin colour)
    centres = _cell_points(truth, 0.5, 0.5)
    hidden = [(r, c) for r, c in occluded if share[r, c] >= 0.9]
    assert hidden
    for r, c in hidden:
        seen = _sample(with_hand, centres[r, c])
        if seen.sum() < 60:
            continue  # a dark finger rim
        cosine = seen @ skin / (np.linalg.norm(seen) * np.linalg.norm(skin))
        assert cosine > 0.97, (r, c, seen, skin)


def test_hand_probability():
    """hand=0 never draws one, hand=1 always does."""
    cells = R.random_cells("breakthrough", np.random.default_rng(0), fill=0.2)
    for seed in range(3):
        _, t0 = R.render_photo("breakthrough", cells, tier=2, seed=seed, resolution=SMALL,
                               hand=0.0, clean=True)
        _, t1 = R.render_photo("breakthrough", cells, tier=2, seed=seed, resolution=SMALL,
                               hand=1.0, clean=True)
        assert not t0["hand"] and t1["hand"]


# -- reproducibility, ranges, the CLI --------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_photo():
    a = R.sample_photo("calculissimo", 2, 123, resolution=SMALL, hand=0.5)
    b = R.sample_photo("calculissimo", 2, 123, resolution=SMALL, hand=0.5)
    c = R.sample_photo("calculissimo", 2, 124, resolution=SMALL, hand=0.5)
    assert a[2] == b[2] and np.array_equal(a[0], b[0])
    assert json.dumps(a[1]) == json.dumps(b[1])
    assert a[2] != c[2]


def test_fixing_one_part_leaves_the_others():
    """Each part draws from its own stream: fixing the elevation keeps the table, light
    and finish."""
    cells = R.random_cells("mixmath", np.random.default_rng(1), fill=0.1)
    _, t1 = R.render_photo("mixmath", cells, tier=2, seed=5, resolution=SMALL)
    _, t2 = R.render_photo("mixmath", cells, tier=2, seed=5, resolution=SMALL, elevation=88.0)
    assert t2["camera"]["elevation"] == 88.0 != t1["camera"]["elevation"]
    assert t1["table"] == t2["table"] and t1["style"] == t2["style"]
    assert t1["finish"]["kelvin"] == t2["finish"]["kelvin"]


@pytest.mark.parametrize("game", ["mixmath", "calculissimo", "mastermind", "breakthrough"])
@pytest.mark.parametrize("resolution", [(1280, 720), (1920, 1080), (4032, 3024)])
def test_sampled_poses_stay_in_range(game, resolution):
    ranges = CameraRanges()
    _, geometry, _ = print_set(game)
    rng = np.random.default_rng(zlib.crc32(f"{game}{resolution}".encode()))
    elevations = []
    for _ in range(40):
        cam = sample_camera(rng, geometry, resolution)
        elevations.append(cam.elevation)
        assert 45.0 <= cam.elevation <= 90.0
        assert ranges.fill[0] <= board_fill(cam, geometry) <= ranges.fill[1]
        assert min_cell_px(cam, geometry) >= ranges.min_cell_px
        assert in_frame(cam, geometry)
    assert min(elevations) < (75 if resolution[1] < 1000 else 60)  # oblique views occur


def test_sampled_light_stays_in_range():
    rng = np.random.default_rng(0)
    for _ in range(200):
        f = sample_finish(rng, (1920, 1080))
        assert 2700 <= f.kelvin <= 6500 and 0.5 <= f.brightness <= 1.5
        assert 0 <= f.blur <= 1.5 and 0 <= f.noise <= 6 and 60 <= f.jpeg <= 95


def test_noise_and_blur_are_what_the_finish_says():
    flat = np.full((540, 960, 3), 128, np.uint8)
    noisy, _ = finish_photo(flat, Finish(noise=6.0, jpeg=None, noise_seed=3))
    assert 5.0 < noisy.astype(float).std() < 6.5
    edge = np.zeros((1080, 1080, 3), np.uint8)  # 1080p: sigma as given
    edge[:, 100:] = 200
    blurred, _ = finish_photo(edge, Finish(blur=1.5, jpeg=None))
    profile = blurred[540, 90:110, 1].astype(float) / 200
    # a Gaussian edge of sigma 1.5 px rises from 16 % to 84 % over 3 px
    rise = np.interp([0.16, 0.84], profile, np.arange(90, 110))
    assert rise[1] - rise[0] == pytest.approx(3.0, abs=0.4)


def test_tier2_sets_stay_in_range():
    for seed in range(30):
        style, geometry, build = R.random_set("mixmath", np.random.default_rng(seed), "any")
        assert 0.8 <= style.tile_frac <= 0.95 and not style.markers
        assert min(style.tile_rgb) > 150  # white, ivory, cream, pale wood
        assert max(style.numeral_rgb) < 120  # dark numerals


def test_random_positions_follow_the_games():
    rng = np.random.default_rng(4)
    counts = tile_counts("mixmath")      # its blanks "?" among them
    blanks = 0
    for _ in range(10):
        cells = R.random_cells("mixmath", rng, fill=0.5)
        values = [v for row in cells for v in row if v is not None]
        for v in set(values):
            assert values.count(v) <= counts[v]
        blanks += values.count("?")
        assert all(cells[r][c] is None for r, c in artwork.printed_numbers("mixmath"))
    assert blanks > 0       # half the tiles drawn: most positions hold a blank
    calc = R.random_cells("calculissimo", rng, fill=0.5)
    tokens = {v for row in calc for v in row if v is not None}
    assert tokens <= set(load_definition("calculissimo")["tokens"]) | {"?"}
    mm = R.random_cells("mastermind", rng, fill=0.5)
    filled = [any(v is not None for v in row) for row in mm]
    assert filled == sorted(filled)  # bottom-up: no filled row above an empty one
    bt = R.random_cells("breakthrough", rng, fill=0.4, rows=6, cols=7)
    flat = [v for row in bt for v in row]
    assert len(bt) == 6 and len(bt[0]) == 7 and set(flat) <= {"w", "b", None}
    assert flat.count("w") <= 14 and flat.count("b") <= 14


def test_unknown_option_is_refused():
    with pytest.raises(TypeError, match="colour_of_sky"):
        R.render_photo("breakthrough", [[None] * 8] * 8, tier=1, seed=0, colour_of_sky="blue")


def test_cli_writes_photos_that_regenerate(tmp_path):
    assert R.main(["--game", "breakthrough", "--tier", "2", "--n", "2", "--seed", "3",
                   "--resolution", "1280x720", str(tmp_path)]) == 0
    jpg = tmp_path / "breakthrough-t2-3-1.jpg"
    truth = json.loads((tmp_path / "breakthrough-t2-3-1.json").read_text())
    assert truth["seed"] == R.photo_seed(3, 1) and truth["batch"] == {"seed": 3, "i": 1}
    _, again, data = R.sample_photo("breakthrough", 2, truth["seed"], resolution=(1280, 720))
    assert jpg.read_bytes() == data
    assert again["cells"] == truth["cells"]


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_reshot_photo_shows_the_board_where_its_new_camera_sees_it(seed):
    """samples.reshoot maps the photo's board plane into the new pose: a mark at a known
    board point lands where the new camera projects that point."""
    from calibration.geometry import board_geometry
    from samples.reshoot import reshoot
    g = board_geometry("mixmath")
    s = 4.0                                       # px a mm of the top-down "photo"
    w, h = g.size_mm
    image = np.full((int(h * s) + 1, int(w * s) + 1, 3), 190, np.uint8)
    x, y = 70.0, 130.0
    cv2.circle(image, (int(x * s), int(y * s)), int(6 * s), (0, 0, 255), -1)
    shot = reshoot(image, np.diag([1 / s, 1 / s, 1.0]), g, np.random.default_rng(seed))
    assert shot.image.shape == (1080, 1920, 3)
    b, gr, r = cv2.split(shot.image.astype(int))
    red = (r - np.maximum(gr, b)) > 60
    assert red.sum() > 20
    ys, xs = np.nonzero(red)
    seen = np.array([xs.mean(), ys.mean()])
    assert np.linalg.norm(seen - shot.camera.project([[x, y]])[0]) < 2.5
