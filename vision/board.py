"""Find a game board in a photo, and cut it out top-down.

Two ways in, tried in this order:

``markers``
    A print-and-play board carries an ArUco marker (``DICT_4X4_50``) in each corner of its
    margin; an id names the game and the corner (:func:`calibration.geometry.decode_marker_id`),
    so one marker gives the board's place *and* which side is up. A homography from one or
    two markers extrapolates badly across the board, so it is refined on the grid lines,
    outwards from the markers.
``grid``
    An own set has no markers. Its squares (or the tiles on them, or a Mastermind board's
    holes) are blobs in a lattice: the blobs are found on a downscaled grey copy, a lattice
    is grown from the most regular blob by a homography fitted as it grows (any rotation,
    any perspective), and its extent gives the R x C grid. Then each of the R+1 and C+1 grid
    lines is fitted to the dark lines or gaps between the squares, and the homography is
    fitted by least squares to *all* their intersections. The grid is looked for on the
    working copy, then with squares joined across a broken line taken apart (mask opened,
    two-square blobs halved), then on the next larger copy, until a find is sure or two
    agree. A print-and-play board found this way has its markers read where the grid puts
    them (bits sampled top-down, no search). Which side is up comes from the board itself:
    the markers, the board profile's appearance when the set was calibrated, and Mixmath's
    printed centre 1 2 3 4 (each square's numeral matched with templates of many faces,
    turned ones as rivals). The layout alone cannot tell: Mixmath's and Calculissimo's
    layouts look the same under all four quarter turns.

A :class:`BoardLocation` holds the homography from image pixels to board millimetres
(:class:`calibration.geometry.BoardGeometry`), and :func:`rectify_grid` cuts out the playing
grid so that cell (r, c) is the pixel block ``[r*p:(r+1)*p, c*p:(c+1)*p]``. On a stream of
frames, ``find_board(frame, game, previous=last)`` refines from the last location (a few
ms) and looks afresh only when the board moved. :func:`draw_location` draws what was found.

Conventions: image points are (x, y) in pixels with pixel centres at integers (OpenCV's);
*grid units* are cells, (0, 0) the playing grid's top-left corner as the board is oriented
for the referee, x along the columns, y down the rows.

>>> loc = BoardLocation.from_grid_homography("mixmath", np.diag([0.1, 0.1, 1.0]))
>>> loc.grid_corners.round(1).tolist()
[[0.0, 0.0], [140.0, 0.0], [140.0, 140.0], [0.0, 140.0]]
>>> loc.cell_centres()[0, 1].round(1).tolist()
[15.0, 5.0]
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from calibration import geometry as _geometry
from calibration import layouts as _layouts
from calibration import profiles as _profiles
from calibration.geometry import BoardGeometry, decode_marker_id
from calibration.profiles import BoardProfile

from .config import BoardConfig

# The game definitions and profiles are read from JSON; a frame must not re-read them.
board_geometry = lru_cache(maxsize=64)(_geometry.board_geometry)
fixed_numbers = lru_cache(maxsize=16)(_layouts.fixed_numbers)
known_profiles = lru_cache(maxsize=16)(_profiles.known_profiles)
load_profile = lru_cache(maxsize=16)(_profiles.load_profile)


@lru_cache(maxsize=16)
def _square_kinds(game: str, rows: int, cols: int) -> np.ndarray:
    kinds = _layouts.square_kinds(game, rows, cols)
    kinds.setflags(write=False)
    return kinds


# ----------------------------------------------------------------------------------------
# public types


class BoardNotFound(Exception):
    """No board of the game could be located in the picture; the message says what was
    seen (so a player can act: "only 20 of the 196 squares are visible")."""


@dataclass
class BoardLocation:
    """Where a board lies in a photo.

    Attributes
    ----------
    game : str
    geometry : BoardGeometry
        The board (in mm) the homography maps onto; for an own set it comes from its
        profile, else from the print-and-play geometry (then only the grid is exact).
    homography : (3, 3) float ndarray
        Image pixels -> board mm, the board oriented for the referee.
    corners : (4, 2) float ndarray
        The board's corners in the image, TL TR BR BL as the board is oriented (its own
        top-left, wherever that lies in the photo).
    grid_corners : (4, 2) float ndarray
        The playing grid's corners in the image, same order.
    quality : float
        0..1: 1 for a grid whose lines fit within a few hundredths of a cell and a clear
        orientation; it falls with the fit residual, hidden squares and doubt.
    method : str
        ``"markers"`` or ``"grid"``.
    orientation_certain : bool
        False when which side is up is a guess (a symmetric layout, no profile, no
        legible centre): a reader may settle it with :meth:`rotated`.
    orientation_scores : (4,) float ndarray
        How well each quarter turn of :meth:`rotated` fits the board's features (the
        first is the one chosen), for a reader that breaks a tie.
    profile : str or None
        The board profile (own set) that was matched.
    details : dict
        Diagnostics: residual_cells, squares_found, placements (of the grid along the
        lattice), markers, stage times in ms.
    """

    game: str
    geometry: BoardGeometry
    homography: np.ndarray
    corners: np.ndarray
    grid_corners: np.ndarray
    quality: float = 1.0
    method: str = "grid"
    orientation_certain: bool = True
    orientation_scores: np.ndarray = field(default_factory=lambda: np.zeros(4))
    profile: str | None = None
    details: dict = field(default_factory=dict)

    # -- construction

    @classmethod
    def from_grid_homography(cls, game: str, grid_h: np.ndarray,
                             geometry: BoardGeometry | None = None, **kw) -> BoardLocation:
        """A location from the homography image px -> grid units (cells)."""
        geometry = geometry or board_geometry(game)
        homography = _grid_to_mm(geometry) @ grid_h
        return cls.from_homography(game, geometry, homography, **kw)

    @classmethod
    def from_grid_corners(cls, game: str, grid_corners, geometry: BoardGeometry | None = None,
                          **kw) -> BoardLocation:
        """A location from the playing grid's four corners in the photo (top-left,
        top-right, bottom-right, bottom-left: as a render's truth gives them)."""
        geometry = geometry or board_geometry(game)
        rows, cols = geometry.rows, geometry.cols
        grid_h = cv2.getPerspectiveTransform(
            np.float32(grid_corners), np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]]))
        return cls.from_grid_homography(game, grid_h.astype(float), geometry, **kw)

    @classmethod
    def from_homography(cls, game: str, geometry: BoardGeometry, homography: np.ndarray,
                        **kw) -> BoardLocation:
        homography = np.asarray(homography, float) / homography[2, 2]
        inv = np.linalg.inv(homography)
        corners = _apply(inv, geometry.board_corners_mm())
        grid_corners = _apply(inv, geometry.grid_corners_mm())
        return cls(game, geometry, homography, corners, grid_corners, **kw)

    # -- mapping

    @property
    def grid_homography(self) -> np.ndarray:
        """(3, 3) image px -> grid units (cell (r, c) spans [c, c+1] x [r, r+1])."""
        return np.linalg.inv(_grid_to_mm(self.geometry)) @ self.homography

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """(..., 2) board mm -> image px."""
        return _apply(np.linalg.inv(self.homography), points_mm)

    def to_board(self, points_px: np.ndarray) -> np.ndarray:
        """(..., 2) image px -> board mm."""
        return _apply(self.homography, points_px)

    def cell_centres(self) -> np.ndarray:
        """(rows, cols, 2) cell centres in the image."""
        return self.to_image(self.geometry.cell_centres_mm())

    def cell_polygons(self) -> np.ndarray:
        """(rows, cols, 4, 2) each cell's corners in the image, TL TR BR BL."""
        g = self.geometry
        ys, xs = np.mgrid[0:g.rows + 1, 0:g.cols + 1]
        nodes = np.stack([xs, ys], -1) * g.cell_mm + np.array(g.grid_origin_mm)
        nodes = self.to_image(nodes)
        return np.stack([nodes[:-1, :-1], nodes[:-1, 1:], nodes[1:, 1:], nodes[1:, :-1]], 2)

    def cells_in_picture(self, size: tuple[int, int], margin: float = 0.1) -> np.ndarray:
        """(rows, cols) bool: the cells a photo of ``size`` (width, height) shows whole, all
        of each but a ``margin`` (of a cell) along its sides inside the frame. A board the
        photo cuts off runs on beyond the frame: those cells are not seen, not empty.

        >>> square = [[0, 0], [280, 0], [280, 280], [0, 280]]      # 20 px a cell
        >>> seen = BoardLocation.from_grid_corners("mixmath", square).cells_in_picture(
        ...     (250, 300))                                 # the frame cuts 1.5 columns off
        >>> seen.all(axis=0).tolist()[-3:], bool(seen.all(axis=1).any())
        ([True, False, False], False)
        """
        poly = self.cell_polygons()
        centre = poly.mean(axis=2, keepdims=True)
        inner = centre + (1 - 2 * margin) * (poly - centre)
        w, h = size
        x, y = inner[..., 0], inner[..., 1]
        return ((x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)).all(axis=-1)

    def cell_px(self) -> float:
        """Median side of a cell in the image, in px."""
        poly = self.cell_polygons()
        return float(np.median(np.linalg.norm(poly[..., 1, :] - poly[..., 0, :], axis=-1)))

    def rotated(self, quarter_turns: int) -> BoardLocation:
        """The same board with its top taken to be the side ``quarter_turns`` x 90 deg
        clockwise from the present top (1: the present right side becomes the top).

        For a reader that settles a doubtful orientation, e.g. by reading the centre
        1 2 3 4: ``loc.rotated(k)`` puts what is now ``corners[k]`` at TL.
        """
        k = quarter_turns % 4
        g = self.geometry
        if k % 2 and g.rows != g.cols:
            raise ValueError("a non-square grid turns only by half turns")
        grid_h = _quarter_turn(k, g.rows, g.cols) @ self.grid_homography
        return self.remapped(_grid_to_mm(g) @ grid_h,
                             orientation_scores=np.roll(self.orientation_scores, -k))

    def remapped(self, homography: np.ndarray, **changes) -> BoardLocation:
        """The same find with another image px -> board mm ``homography`` (turned, or
        found on a scaled copy of the photo), and the ``changes`` to its other fields."""
        kw = dict(quality=self.quality, method=self.method,
                  orientation_certain=self.orientation_certain,
                  orientation_scores=self.orientation_scores, profile=self.profile,
                  details=dict(self.details))
        return BoardLocation.from_homography(self.game, self.geometry, homography,
                                             **{**kw, **changes})


# ----------------------------------------------------------------------------------------
# the public functions


def find_board(image_bgr: np.ndarray, game: str, *, geometry: BoardGeometry | None = None,
               config: BoardConfig | None = None,
               profile: str | BoardProfile | bool | None = None,
               previous: BoardLocation | None = None) -> BoardLocation:
    """Locate ``game``'s board in a photo.

    Parameters
    ----------
    image_bgr : (H, W, 3) or (H, W) uint8 ndarray
    game : str
        ``"mixmath"``, ``"calculissimo"``, ``"mastermind"`` or ``"breakthrough"``.
    geometry : BoardGeometry, optional
        The board to map onto (rows and cols: Breakthrough is any R x C). Default: the
        matched profile's, else the print-and-play geometry.
    config : BoardConfig, optional
    profile : str, BoardProfile or False, optional
        An own set's profile (name, path or object); by default the game's known profiles
        are tried and the one whose colours match is used; False: none.
    previous : BoardLocation, optional
        Where the board was in the previous frame of the same camera: it is first refined
        from there (a few ms); only if that fails (the board or camera moved more than
        about a quarter of a cell, or the picture changed size) is it looked for afresh.

    Returns
    -------
    BoardLocation

    Raises
    ------
    BoardNotFound
        When no board of ``game`` is in the picture (or too little of it shows).
    ValueError
        When the picture is not an 8-bit image.
    """
    cfg = config or BoardConfig()
    _check_image(image_bgr)
    t0 = time.perf_counter()
    photo = _Photo(image_bgr, cfg.work_long_side)
    default_geometry = geometry or board_geometry(game)
    if previous is not None and previous.game == game:
        tracked = _track(photo, previous, cfg)
        if tracked is not None:
            tracked.details["find_ms"] = (time.perf_counter() - t0) * 1000
            return tracked

    # The grid first (it is cheap), on the working copy and, if what it saw there was
    # doubtful (thin printed lines merge squares at low resolution), on the next larger
    # copy; markers then only in the corners the grid predicts. The whole picture is
    # searched for markers only when no good grid shows (a hand over much of it).
    loc = _grid_looks(photo, game, geometry, profile, cfg)
    markers: list = []
    if loc is None or not _is_sure(loc, cfg):
        best_found: dict = {}
        # finest copy first (a homography from a few markers extrapolates their error);
        # a marker only a coarser copy shows is added (a blurred one may decode there)
        for level in photo.locate_levels(cfg.locate_levels)[::-1]:
            markers = _detect_markers(photo.halving(level), cfg)
            found = _markers_of(markers, game, np.linalg.inv(photo.to_level(level)))
            best_found = {**found, **best_found}
            if len(best_found) == 4:
                break
        if best_found:
            by_markers = _find_by_markers(photo, game, default_geometry, best_found, cfg)
            while len(best_found) < 4:   # each marker found up close guides the next
                more = _missing_markers(photo, by_markers, game, best_found, cfg)
                if not more:
                    break
                best_found = {**best_found, **more}
                by_markers = _find_by_markers(photo, game, default_geometry, best_found, cfg)
            if loc is None or by_markers.quality >= loc.quality * 0.8:
                loc = by_markers
    if loc is None:
        loc = _rescaled_look(photo, game, geometry, profile, cfg)
    # (not for a board of holes: a few dark blobs in rows are too easily seen anywhere)
    hairlines = _LOOK.get(game, _LOOK["mixmath"]).lines
    if hairlines and (loc is None or loc.quality < cfg.min_quality or _extrapolated(loc, cfg)):
        found = _hairline_looks(photo, game, geometry, profile, cfg)
        if found is not None and (loc is None or found.quality > loc.quality):
            loc = found
    if loc is None:
        loc = _outline_look(photo, game, geometry, profile, cfg)
    others = sorted({decode_marker_id(i)[0] for i, _ in markers
                     if decode_marker_id(i) is not None} - {game})
    marked = (f"this looks like a {' or '.join(others)} board (its markers), not {game}"
              if others else None)
    if loc is None:
        raise BoardNotFound(marked or photo.why_not or f"no {game} board found in the picture")
    if loc.quality < cfg.min_quality:
        raise BoardNotFound(f"no {game} board found: a grid-like pattern, but it does not fit "
                            f"a {loc.geometry.rows}x{loc.geometry.cols} board "
                            f"(quality {loc.quality:.2f})")
    doubt = _layout_doubt(photo, image_bgr, game, loc, cfg, marked)
    if doubt:
        raise BoardNotFound(doubt)
    loc.details["image_size"] = image_bgr.shape[1::-1]
    loc.details["snapshot"] = _snapshot(photo, loc.grid_homography, loc.geometry.rows,
                                        loc.geometry.cols)
    loc.details["find_ms"] = (time.perf_counter() - t0) * 1000
    return loc


_LAYOUT_GAMES = ("mixmath", "calculissimo")   # boards whose special squares tell them apart


def _layout_fit(photo: _Photo, loc: BoardLocation) -> float | None:
    """How well the colours of the squares where ``loc`` puts them follow its game's layout
    (:func:`_layout_scores`, the grid as placed)."""
    g = loc.geometry
    scores = _layout_scores(photo, loc.grid_homography, loc.game, g.rows, g.cols, [(0, 0)])
    return None if scores is None else float(scores[0])


def _layout_doubt(photo: _Photo, image_bgr: np.ndarray, game: str, loc: BoardLocation,
                  cfg: BoardConfig, marked: str | None = None) -> str | None:
    """Why a grid found as ``game``'s is no board of it, by its layout, or None. Where the
    colours of its squares follow ``game``'s layout poorly (below ``cfg.layout_doubt``):
    the other game's board when that game's layout fits it clearly better
    (``cfg.other_layout_margin``; a 14 x 14 grid fits a 15 x 15 board a cell short, and
    the other way round: only the layout tells); and no board when the grid came from a
    lattice short of ``cfg.min_cells_frac`` of the cells (the last resorts for hairline
    grids) or spanning a block well inside the board (``cfg.layout_only_placements``),
    which only the layout confirms (another game's board of squares makes such a
    lattice: ``marked``, what its markers say, if any, is why)."""
    if cfg.layout_doubt is None or loc.method != "grid" or game not in _LAYOUT_GAMES:
        return None
    mine = _layout_fit(photo, loc)
    if mine is None or mine >= cfg.layout_doubt:
        return None
    for other in _LAYOUT_GAMES:
        if other == game:
            continue
        try:
            theirs = _layout_fit(photo, find_board(image_bgr, other,
                                                   config=replace(cfg, layout_doubt=None)))
        except BoardNotFound:
            continue
        if (theirs is not None and theirs >= cfg.layout_doubt
                and theirs - mine >= cfg.other_layout_margin):
            return (f"this looks like a {other} board (the colours of its squares follow "
                    f"its layout), not {game}")
    g = loc.geometry
    seen = loc.details.get("squares_found", g.rows * g.cols)
    if (seen < cfg.min_cells_frac * g.rows * g.cols
            or loc.details.get("placements", 1) >= cfg.layout_only_placements):
        return marked or (f"no {game} board found: a lattice of {seen} squares, but the "
                          f"colours of the squares round it do not follow the {game} "
                          f"layout (fit {mine:.2f}; is it a {game} board?)")
    return None


def _grid_looks(photo: _Photo, game: str, geometry: BoardGeometry | None,
                profile: str | BoardProfile | None, cfg: BoardConfig) -> BoardLocation | None:
    """The board from the lattice of squares, looked for as :func:`_looks` orders it, or
    None."""
    loc = None
    for level, opened, faint in _looks(photo, cfg):
        if faint and (loc is not None or photo.squares_seen < cfg.faint_after_seen):
            break
        found_here = _find_by_grid(photo, level, opened, faint, game, geometry, profile, cfg)
        if found_here is None:
            continue
        # two looks that agree settle it: a third would find the same grid again
        agreed = loc is not None and _same_grid(loc, found_here, cfg)
        if loc is None or found_here.quality > loc.quality:
            loc = found_here
        if _is_sure(loc, cfg) or agreed:
            break
    return loc


def _rescaled_look(photo: _Photo, game: str, geometry: BoardGeometry | None,
                   profile: str | BoardProfile | None, cfg: BoardConfig
                   ) -> BoardLocation | None:
    """:func:`_grid_looks` on a copy of the photo scaled by ``cfg.rescaled_look`` (halved
    while the copy stays at least twice the working size), the board found there mapped
    back to the photo; None when it shows no board either, or when no look at the photo
    saw part of one (``cfg.faint_after_seen``) or the look is off."""
    if not cfg.rescaled_look or photo.squares_seen < cfg.faint_after_seen:
        return None
    image = photo.image
    long_side = max(image.shape[:2])
    scale = cfg.rescaled_look
    while scale * long_side / 2 >= 2 * cfg.work_long_side:
        scale /= 2
    if ("rescaled", scale) not in photo.cache:   # (a last resort looks at it again)
        scaled = cv2.resize(image, None, fx=scale, fy=scale,
                            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        photo.cache["rescaled", scale] = _Photo(scaled, cfg.work_long_side)
    other = photo.cache["rescaled", scale].looked_afresh()
    loc = _grid_looks(other, game, geometry, profile, cfg)
    if loc is None:
        return None
    scaled = other.image
    to_copy = _scale_matrix(scaled.shape[1] / image.shape[1], scaled.shape[0] / image.shape[0])
    return loc.remapped(loc.homography @ to_copy, details={**loc.details, "rescaled": scale})


def _hairline_looks(photo: _Photo, game: str, geometry: BoardGeometry | None,
                    profile: str | BoardProfile | None, cfg: BoardConfig
                    ) -> BoardLocation | None:
    """The last resorts for a printed grid whose hairlines blur away: the working copy's
    mask opened wider (:func:`_wide_looks`), then, once some look saw part of a board,
    every look again taking a lattice of ``cfg.last_cells_frac`` of the cells; None when
    neither finds it."""
    loc = _wide_looks(photo, game, geometry, profile, cfg)
    if loc is None and cfg.last_cells_frac and photo.squares_seen >= cfg.faint_after_seen:
        few = replace(cfg, min_cells_frac=cfg.last_cells_frac)
        loc = (_grid_looks(photo, game, geometry, profile, few)
               or _rescaled_look(photo, game, geometry, profile, few))
    return loc


def _extrapolated(loc: BoardLocation, cfg: BoardConfig) -> bool:
    """Whether ``loc`` is a poor fit (``cfg.extrapolated_quality``) of fewer than three
    markers: the far side of the board is their corners extrapolated, and the lines there
    can lock on a neighbouring line (three or four markers pin it)."""
    return (loc.method == "markers" and len(loc.details.get("markers", ())) < 3
            and loc.quality < cfg.extrapolated_quality)


def _wide_looks(photo: _Photo, game: str, geometry: BoardGeometry | None,
                profile: str | BoardProfile | None, cfg: BoardConfig) -> BoardLocation | None:
    """The board from the working copy's mask opened wider (``cfg.wide_looks``), the first
    look that finds it, or None."""
    for open_px, faint in cfg.wide_looks:
        loc = _find_by_grid(photo, photo.work_level, True, faint, game, geometry, profile,
                            replace(cfg, mask_open_px=open_px))
        if loc is not None and loc.quality >= cfg.min_quality:
            loc.details["wide_open_px"] = open_px
            return loc
    return None


def _outline_look(photo: _Photo, game: str, geometry: BoardGeometry | None,
                  profile: str | BoardProfile | None, cfg: BoardConfig) -> BoardLocation | None:
    """The last resort for a board whose squares no look parted (pale lines between pale
    squares, a dim or blurred photo), where the board itself still shows: its outline, a
    large quadrilateral of edges (:func:`_outlines`); squared up, the rows + 1 and
    cols + 1 evenly spaced lines across it that the edges follow most
    (:func:`_even_lines`); then refined on the grid lines and placed by the layout as any
    grid is (:func:`_grid_board`). An outline holds no lattice of squares to vouch for the
    grid: only one whose squares' colours follow the game's layout well
    (``cfg.outline_layout``) is taken. None when no outline holds one; off
    (``cfg.outline_look``), for boards with no layout to check it (only Mixmath and
    Calculissimo have one) and where layouts go unchecked (``cfg.layout_doubt`` None: the
    wrong-game check's own find of the other game)."""
    if not cfg.outline_look or game not in _LAYOUT_GAMES or cfg.layout_doubt is None:
        return None
    t0 = time.perf_counter()
    base = geometry or board_geometry(game)
    side = cfg.outline_px
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    from_work = np.linalg.inv(photo.to_level(photo.work_level))
    best = None
    for quad in _outlines(photo.work_colour, base.rows * cfg.min_cell_px, cfg):
        corners = _apply(from_work, quad)
        to_square = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
        board_px = np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1).mean()
        flat = _warp(photo.image, to_square, (side, side), board_px / side)
        grey = flat if flat.ndim == 2 else cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
        # edges across each column (row), the median: a grid line runs the whole way, a
        # special square's or a tile's edge a cell or a few
        verticals = _even_lines(np.median(np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0)), 0),
                                base.cols, cfg)
        horizontals = _even_lines(np.median(np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1)), 1),
                                  base.rows, cfg)
        if verticals is None or horizontals is None:
            continue
        (pitch_x, at_x, contrast_x), (pitch_y, at_y, contrast_y) = verticals, horizontals
        to_grid = np.array([[1 / pitch_x, 0, -at_x / pitch_x],
                            [0, 1 / pitch_y, -at_y / pitch_y], [0, 0, 1.0]])
        details = {"squares_found": 0, "placements": 1, "outline": corners.tolist(),
                   "outline_contrast": min(contrast_x, contrast_y),
                   "locate_ms": (time.perf_counter() - t0) * 1000}
        loc = _grid_board(photo, to_grid @ to_square, [(0, 0)], game, geometry, profile,
                          cfg, details, unlined=None)
        if loc is None or loc.quality < cfg.min_quality:
            continue
        if _outline_layout_holds(photo, loc, cfg) and (best is None
                                                        or loc.quality > best.quality):
            best = loc
    return best


def _outline_layout_holds(photo: _Photo, loc: BoardLocation, cfg: BoardConfig) -> bool:
    """Whether the squares where an outline's grid puts them follow the layout well enough
    to take it (:func:`_outline_look`): by ``cfg.outline_layout``, or, at least by
    ``cfg.layout_doubt``, far better than a cell or two off (``cfg.outline_layout_lead``:
    on a crowded board the tiles on plain squares pull the fit down wherever the grid
    lies, and the layout's peak stays where the board is)."""
    shifts = [(0, 0)] + [s for s in _NEIGHBOURS if s != (0, 0)]
    g = loc.geometry
    fits = _layout_scores(photo, loc.grid_homography, loc.game, g.rows, g.cols, shifts)
    if fits is None:
        return False
    lead = cfg.outline_layout_lead
    return bool(fits[0] >= cfg.outline_layout or (
        lead is not None and fits[0] >= cfg.layout_doubt and fits[0] - fits[1:].max() >= lead))


def _outlines(bgr: np.ndarray, least_side: float, cfg: BoardConfig) -> list[np.ndarray]:
    """(4, 2) corners (px of ``bgr``, in turn round the quadrilateral) of the largest
    outlines that may be a board's, at most ``cfg.outline_candidates``: the hulls of closed
    runs of edges (Canny, on every colour: a purple board on red wood differs in hue more
    than in grey) that four corners trace, no side shorter than ``least_side`` px nor than
    ``cfg.outline_least_ratio`` of the longest (a wood grain's streak is long and thin).
    Both sides of one edge line trace the same outline: it is kept once."""
    edges = cv2.Canny(cv2.GaussianBlur(bgr, (5, 5), 0), *cfg.outline_canny)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))   # close pixel-wide breaks
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        if len(contour) < 4:
            continue
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area < least_side ** 2:
            continue
        corners = cv2.approxPolyDP(hull, cfg.outline_corner_tol * cv2.arcLength(hull, True),
                                   True).reshape(-1, 2).astype(float)
        if len(corners) != 4:
            continue
        sides = np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)
        if sides.min() >= max(least_side, cfg.outline_least_ratio * sides.max()):
            quads.append((area, corners))
    kept: list[np.ndarray] = []
    for _, corners in sorted(quads, key=lambda q: -q[0]):
        if all(np.linalg.norm(corners[:, None] - k[None], axis=-1).min(1).max()
               > 0.02 * np.ptp(corners, 0).max() for k in kept):
            kept.append(corners)
    return kept[:cfg.outline_candidates]


def _even_lines(profile: np.ndarray, n: int, cfg: BoardConfig
                ) -> tuple[float, float, float] | None:
    """(pitch px, first line's place px, contrast) of the n + 1 evenly spaced lines
    along ``profile`` (the edges' strength across a squared-up outline, per px) that it
    follows most: the grid of n cells spanning ``cfg.outline_grid_share`` of it or more,
    its span in whole px, its first line in half px. Its lines' mean strength above that
    halfway between them, over the profile's median, is the grid's contrast; None when
    under ``cfg.outline_contrast`` (no even lines there).

    >>> profile = np.ones(600)
    >>> profile[40:545:36] = 5.0                 # 15 lines, 36 px apart, from 40 px
    >>> profile[[10, 300, 590]] = 9.0            # a special square's edges, the board's
    >>> _even_lines(profile, 14, BoardConfig())
    (36.0, 40.0, 4.0)
    """
    size = len(profile)
    half = np.interp(np.arange(0, size - 1, 0.5), np.arange(size), profile)  # 0.5 px steps
    k = np.arange(n + 1)
    best = (-np.inf, 0.0, 0.0)
    for span in range(int(np.ceil(cfg.outline_grid_share * size)), size - 1):   # whole px
        places = len(half) - 2 * span          # where the first line may lie, half px
        on = sum(half[o:o + places] for o in np.rint(2 * span * k / n).astype(int))
        between = sum(half[o:o + places] for o in np.rint(2 * span * (k[:-1] + 0.5) / n
                                                            ).astype(int))
        score = on / (n + 1) - between / n
        j = int(np.argmax(score))
        if score[j] > best[0]:
            best = (float(score[j]), span / n, j / 2)
    contrast = best[0] / max(float(np.median(profile)), 1e-6)
    return None if contrast < cfg.outline_contrast else (best[1], best[2], float(contrast))


def _same_grid(a: BoardLocation, b: BoardLocation, cfg: BoardConfig) -> bool:
    """Whether two finds put the grid in the same place (whichever side each takes for
    the top): every corner within ``cfg.agree_cells``."""
    cell = a.cell_px()
    return any(np.linalg.norm(a.grid_corners - np.roll(b.grid_corners, k, 0), axis=1).max()
               <= cfg.agree_cells * cell for k in range(4))


def _looks(photo: _Photo, cfg: BoardConfig) -> list[tuple[int, bool, bool]]:
    """(grey copy, take squares apart?, faint lines?) in the order the grid is looked for:
    the working copy, then the same with squares joined across a broken line taken apart
    (the mask opened, two-square blobs halved: a second try, as the opening eats squares
    peppered with noise in a dim photo and halves may lengthen a lattice into the margin's
    art), then the same on the next larger copy; and, only while none of those found a
    grid but some saw part of one, each copy again, the largest first, taking fainter
    lines for grid lines (``faint_noise_factor``: hairlines show best on the largest copy;
    in a dim, blurred photo its noise drowns them and a smaller copy parts the squares —
    only then, as a lattice seen small is more often a cell or two off)."""
    openings = (False, True) if cfg.mask_open_px > 0 else (False,)
    levels = photo.locate_levels(cfg.locate_levels)
    return ([(level, opened, False) for level in levels for opened in openings]
            + [(level, opened, True) for level in levels[::-1] for opened in openings])


_SNAPSHOT_PX = 4  # px per cell of the small top-down view a tracked frame is checked with


def _snapshot(photo: _Photo, grid_h: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows + 2, cols + 2) * 4 px grey view of the grid and a cell of border, top-down."""
    p = _SNAPSHOT_PX
    to_rect = np.array([[p, 0, p - 0.5], [0, p, p - 0.5], [0, 0, 1.0]])
    level_h = grid_h @ np.linalg.inv(photo.to_level(photo.scale))
    return cv2.warpPerspective(photo.work_grey, to_rect @ level_h, ((cols + 2) * p, (rows + 2) * p),
                               flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a.astype(np.float32) - a.mean()
    b = b.astype(np.float32) - b.mean()
    return float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6))


def _track(photo: _Photo, previous: BoardLocation, cfg: BoardConfig) -> BoardLocation | None:
    """The board refined from where it was in the previous frame, or None when it is not
    (clearly) there any more. The grid lines repeat every cell, so a board that moved by
    most of a cell would be refined onto its neighbour: the move is bounded, and a board
    with special squares must still show them where the layout puts them."""
    if previous.details.get("image_size") != photo.image.shape[1::-1]:
        return None
    g = previous.geometry
    rows, cols = g.rows, g.cols
    grid_h, fit = previous.grid_homography, None
    for i, window in enumerate(cfg.track_window):
        f = _refine(photo, grid_h, rows, cols, cfg, window, fine=i == len(cfg.track_window) - 1)
        if f is None or _moved(grid_h, f.grid_h, rows, cols) > window:
            return None
        fit, grid_h = f, f.grid_h
    if (fit.support < cfg.sure_support or fit.residual > 2 * cfg.good_residual_cells
            or _moved(previous.grid_homography, grid_h, rows, cols) > cfg.track_max_move):
        return None
    # the board must look as it did, there and not a cell away (tiles come one at a time)
    before = previous.details.get("snapshot")
    if before is None:
        return None
    scores = {}
    for shift in [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]:
        now = _snapshot(photo, _shift(*shift) @ grid_h, rows, cols)
        scores[shift] = _ncc(now, before)
    if scores[(0, 0)] < cfg.track_min_similarity or max(scores, key=scores.get) != (0, 0):
        return None
    quality = _quality(fit, cfg, previous.orientation_certain)
    details = {"residual_cells": fit.residual, "line_support": fit.support,
               "grid_quality": _quality(fit, cfg, True), "tracked": True,
               "markers": previous.details.get("markers"),
               "image_size": previous.details.get("image_size"),
               "snapshot": _snapshot(photo, grid_h, rows, cols)}
    return BoardLocation.from_grid_homography(
        previous.game, grid_h, g, quality=quality, method=previous.method,
        orientation_certain=previous.orientation_certain,
        orientation_scores=previous.orientation_scores, profile=previous.profile,
        details=details)


def rectify(image_bgr: np.ndarray, location: BoardLocation, px_per_cell: int = 64
            ) -> np.ndarray:
    """The whole board seen from straight above, as it is oriented for the referee.

    Parameters
    ----------
    image_bgr : (H, W, 3) uint8 ndarray
    location : BoardLocation
    px_per_cell : int
        Output scale: ``px_per_cell / geometry.cell_mm`` pixels per mm.

    Returns
    -------
    (round(height_mm * s), round(width_mm * s), 3) uint8 ndarray
        Pixel (u, v) shows board point ((u + 0.5) / s, (v + 0.5) / s) mm, so cell (r, c)
        covers ``geometry.cell_box(r, c) * s``.
    """
    g = location.geometry
    s = px_per_cell / g.cell_mm
    w, h = g.size_mm
    out = (int(round(w * s)), int(round(h * s)))
    to_out = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1.0]]) @ location.homography
    return _warp(image_bgr, to_out, out, location.cell_px() / px_per_cell)


def rectify_grid(image_bgr: np.ndarray, location: BoardLocation, px_per_cell: int = 64
                 ) -> np.ndarray:
    """The playing grid alone, top-down: cell (r, c) is ``out[r*p:(r+1)*p, c*p:(c+1)*p]``.

    Returns
    -------
    (rows * p, cols * p, channels) uint8 ndarray, p = ``px_per_cell``
    """
    g = location.geometry
    p = px_per_cell
    to_out = np.array([[p, 0, -0.5], [0, p, -0.5], [0, 0, 1.0]]) @ location.grid_homography
    return _warp(image_bgr, to_out, (g.cols * p, g.rows * p), location.cell_px() / p)


def draw_location(image_bgr: np.ndarray, location: BoardLocation,
                  unsure: list[tuple[int, int]] = ()) -> np.ndarray:
    """A copy of the photo with what was found drawn on it (for ``--debug``): the board's
    outline (blue), every grid line (green; yellow when which side is up is in doubt),
    the board's top-left corner (a red disc), and ``unsure`` cells crossed in red.

    Returns
    -------
    (H, W, 3) uint8 ndarray
    """
    out = image_bgr.copy() if image_bgr.ndim == 3 else cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    g = location.geometry
    width = max(1, round(max(out.shape[:2]) / 800))
    shift = 4  # sub-pixel drawing: coordinates x 16
    ys, xs = np.mgrid[0:g.rows + 1, 0:g.cols + 1]
    nodes = location.to_image(np.stack([xs, ys], -1) * g.cell_mm + np.array(g.grid_origin_mm))
    colour = (0, 200, 0) if location.orientation_certain else (0, 220, 255)
    fixed = lambda pts: np.int32(np.round(pts * (1 << shift)))  # noqa: E731
    for j in range(g.rows + 1):
        cv2.polylines(out, [fixed(nodes[j])], False, colour, width, cv2.LINE_AA, shift)
    for k in range(g.cols + 1):
        cv2.polylines(out, [fixed(nodes[:, k])], False, colour, width, cv2.LINE_AA, shift)
    cv2.polylines(out, [fixed(location.corners)], True, (255, 80, 0), width, cv2.LINE_AA, shift)
    tl = location.grid_corners[0]
    cv2.circle(out, (int(tl[0]), int(tl[1])), 4 * width + 2, (0, 0, 255), -1, cv2.LINE_AA)
    poly = location.cell_polygons()
    for r, c in unsure:
        a, b, cc, d = poly[r, c]
        cv2.line(out, tuple(np.int32(a)), tuple(np.int32(cc)), (0, 0, 255), width, cv2.LINE_AA)
        cv2.line(out, tuple(np.int32(b)), tuple(np.int32(d)), (0, 0, 255), width, cv2.LINE_AA)
    return out


# ----------------------------------------------------------------------------------------
# geometry helpers


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (..., 2) points."""
    pts = np.asarray(points, float)
    flat = pts.reshape(-1, 2)
    out = flat @ h[:, :2].T + h[:, 2]
    return (out[:, :2] / out[:, 2:3]).reshape(pts.shape)


def _grid_to_mm(g: BoardGeometry) -> np.ndarray:
    x0, y0 = g.grid_origin_mm
    return np.array([[g.cell_mm, 0, x0], [0, g.cell_mm, y0], [0, 0, 1.0]])


def _quarter_turn(k: int, rows: int, cols: int) -> np.ndarray:
    """Grid units -> grid units after turning the board's top k quarter turns clockwise
    (the right side becomes the top): (x, y) -> (y, cols - x), applied k times."""
    m = np.eye(3)
    r, c = rows, cols
    for _ in range(k % 4):
        m = np.array([[0, 1.0, 0], [-1.0, 0, c], [0, 0, 1]]) @ m
        r, c = c, r
    return m


def _scale_matrix(sx: float, sy: float | None = None) -> np.ndarray:
    """Full-size px -> px of a copy scaled by sx, sy (pixel centres at integers)."""
    sy = sx if sy is None else sy
    return np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])


def _warp(image: np.ndarray, to_out: np.ndarray, size: tuple[int, int],
          shrink: float) -> np.ndarray:
    """warpPerspective of the image's needed part; when the output is much smaller than the
    source, the source region is first shrunk with area averaging (no aliasing)."""
    w, h = size
    inv = np.linalg.inv(to_out)
    box = _apply(inv, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    x0, y0 = np.floor(box.min(0)).astype(int) - 2
    x1, y1 = np.ceil(box.max(0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
    if x1 <= x0 or y1 <= y0:
        return np.zeros((h, w) + image.shape[2:], np.uint8)
    crop = image[y0:y1, x0:x1]
    shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1.0]])
    m = to_out @ shift
    while shrink > 1.6:
        # exact halvings: OpenCV averages 2x2 blocks ~7x faster than an arbitrary factor
        ch, cw = crop.shape[0] // 2, crop.shape[1] // 2
        if min(ch, cw) < 2:
            break
        crop = cv2.resize(crop[:2 * ch, :2 * cw], (cw, ch), interpolation=cv2.INTER_AREA)
        m = m @ np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1.0]])
        shrink /= 2
    return cv2.warpPerspective(crop, m, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT)


def _check_image(image) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise ValueError("expected an 8-bit image array (H, W) or (H, W, 3)")
    if min(image.shape[:2]) < 32:
        raise ValueError(f"image of {image.shape[1]}x{image.shape[0]} px is too small")


class _Photo:
    """The photo and its grey copies, made once and on demand: a pyramid of halvings
    (INTER_LINEAR at exactly 1/2 is a 2x2 box filter, cheap); the working copy is one."""

    def __init__(self, image: np.ndarray, long_side: int):
        self.image = image
        self._levels: dict[int, np.ndarray] = {}
        h, w = image.shape[:2]
        # the halving whose long side is nearest long_side (a little bigger rather than
        # smaller): no resampling but 2x2 boxes, so cheap and alias-free
        self.work_level = max(0, int(math.floor(math.log2(max(h, w) / long_side) + 0.25)))
        self.why_not: str | None = None
        self.squares_seen = 0.0  # the largest lattice of squares a look saw, in cells
        self.cache: dict = {}  # what one look at the photo made that another may reuse

    def looked_afresh(self) -> _Photo:
        """The same photo, its copies and what looks made of it shared, as if no look had
        seen it yet (``why_not``, ``squares_seen``)."""
        fresh = copy.copy(self)
        fresh.why_not, fresh.squares_seen = None, 0.0
        return fresh

    @property
    def work_grey(self) -> np.ndarray:
        return self.halving(self.work_level)

    @property
    def work_colour(self) -> np.ndarray:
        """The photo at the working copy's size, in colour (a grey photo: grey)."""
        if "work_colour" not in self.cache:
            h, w = self.work_grey.shape
            image = self.image
            self.cache["work_colour"] = (image if image.shape[:2] == (h, w) else
                                         cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA))
        return self.cache["work_colour"]

    @property
    def scale(self) -> float:
        return self.level_scale(self.work_level)

    def level_scale(self, n: int) -> float:
        return self.halving(n).shape[1] / self.image.shape[1]

    def locate_levels(self, count: int) -> list[int]:
        """The working level, then up to count - 1 finer ones."""
        return list(range(self.work_level, max(-1, self.work_level - count), -1))

    def halving(self, n: int) -> np.ndarray:
        """The grey photo halved n times."""
        if n not in self._levels:
            if n == 0:
                img = self.image
                grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            elif n == 1 and self.image.ndim == 3:  # halve the colour image: no full-size grey
                img = self.image
                half = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2),
                                  interpolation=cv2.INTER_LINEAR)
                grey = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
            else:
                up = self.halving(n - 1)
                grey = cv2.resize(up, (up.shape[1] // 2, up.shape[0] // 2),
                                  interpolation=cv2.INTER_LINEAR)
            self._levels[n] = grey
        return self._levels[n]

    def to_level(self, scale: float | int) -> np.ndarray:
        """(3, 3) full-size px -> px of the grey copy at ``scale`` (a float) or of halving
        ``scale`` (an int), exact per axis."""
        h, w = self.image.shape[:2]
        g = self.halving(scale) if isinstance(scale, int) else self.grey(scale)
        return _scale_matrix(g.shape[1] / w, g.shape[0] / h)

    def grey(self, scale: float) -> np.ndarray:
        """The grey copy at ``scale`` (a halving's, see level_for)."""
        return self.halving(int(round(-math.log2(scale))))

    def level_for(self, cell_px_full: float, min_cell_px: float) -> float:
        """The smallest available scale at which a cell is >= min_cell_px: the working
        copy's if big enough, else a halving of the photo (1.0: the photo itself)."""
        need = min_cell_px / max(cell_px_full, 1e-6)
        n = 0
        while 0.5 ** (n + 1) >= need:
            n += 1
        return 0.5 ** n


# ----------------------------------------------------------------------------------------
# the grid path: blobs -> lattice -> grid lines


@dataclass
class _Blobs:
    centres: np.ndarray  # (N, 2) work px
    sizes: np.ndarray    # (N,) sqrt(area), work px
    covs: np.ndarray     # (N, 2, 2) second moments about the centre, px^2


def _stretch(grey: np.ndarray) -> np.ndarray:
    """Grey levels stretched so that the 1st..99th percentiles span 0..255: thresholds in
    grey levels then mean the same in a dim photo as in a bright one."""
    sample = grey[::4, ::4].ravel()
    n = len(sample)
    lo, hi = np.partition(sample, (n // 100, n - 1 - n // 100))[[n // 100, n - 1 - n // 100]]
    lo, hi = float(lo), float(hi)
    if hi - lo < 1:
        return grey
    alpha = 255.0 / (hi - lo)
    return cv2.convertScaleAbs(grey, alpha=alpha, beta=-lo * alpha)


def _cell_mask(grey: np.ndarray, cfg: BoardConfig) -> np.ndarray:
    """uint8 mask of pixels that may belong to a square: not on a thin dark line and not
    darker than their surroundings (gaps, a dark margin, holes are dark)."""
    grey = _stretch(grey)
    short = min(grey.shape)
    k = max(3, int(cfg.local_window * short) | 1)
    mean = cv2.blur(grey, (k, k))
    dark = cv2.compare(grey, cv2.subtract(mean, np.full_like(mean, int(cfg.dark_offset))),
                       cv2.CMP_LT)
    kernel = np.ones((cfg.valley_kernel_px, cfg.valley_kernel_px), np.uint8)
    smooth = cv2.GaussianBlur(grey, (0, 0), cfg.valley_blur) if cfg.valley_blur > 0 else grey
    valley = cv2.morphologyEx(smooth, cv2.MORPH_BLACKHAT, kernel)
    # sensor noise makes black-hat speckle everywhere: the threshold rises above the
    # response of most pixels (flat areas), and lone line pixels are dropped
    sample = valley[::3, ::3].ravel()
    typical = float(np.partition(sample, int(len(sample) * 0.75))[int(len(sample) * 0.75)])
    threshold = min(254.0, max(cfg.valley_threshold, cfg.valley_noise_factor * typical))
    line = cv2.compare(valley, np.full_like(valley, int(threshold)), cv2.CMP_GT)
    # a lone dark pixel (with fewer than 2 dark neighbours) is noise, not a line or a gap;
    # dropping them halves the outlines traced on a textured table
    apart = cv2.bitwise_or(dark, line)
    neighbours = cv2.boxFilter(apart // 255, cv2.CV_8U, (3, 3), normalize=False)
    apart = cv2.bitwise_and(apart, cv2.compare(neighbours, np.full_like(neighbours, 3), cv2.CMP_GE))
    return cv2.bitwise_not(apart)


def _opened(mask: np.ndarray, cfg: BoardConfig) -> np.ndarray:
    """The mask opened: the thin bridges a broken grid line leaves between squares cut
    (noise specks stay as small as they were; an erosion alone would grow them)."""
    size = 2 * cfg.mask_open_px + 1
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((size, size), np.uint8))


def _sized_components(mask: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The mask without its connected parts too small or too big to be a square of side
    lo..hi px by their pixel count: a textured table leaves thousands of specks, which the
    outline tracer would otherwise return one by one. (Only for speed: the outlines kept
    are judged by their size and shape after; counting pixels costs a third of measuring
    each part's box; 16-bit labels counted by calcHist, a quarter of bincount's time on
    32-bit ones.)"""
    try:
        n, labels = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_16U, cv2.CCL_BBDT)
        count = cv2.calcHist([labels], [0], None, [n], [0, n]).ravel()
    except cv2.error:   # more than 65535 parts: a mask of noise
        n, labels = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
        count = np.bincount(labels.ravel(), minlength=n)
    keep = (count >= (0.5 * lo) ** 2) & (count <= (2 * hi) ** 2)
    keep[0] = False                 # the background
    return np.take(np.where(keep, 255, 0).astype(np.uint8), labels)  # twice as fast as [ ]


def _bright_blobs(mask: np.ndarray, cfg: BoardConfig, split: bool = False) -> _Blobs:
    """Compact blobs of about a square's size in a :func:`_cell_mask`: squares, tiles on
    them (outer outlines: a numeral on a tile does not make a hole); with ``split``, a
    blob as long as two squares run together also as its two halves."""
    short = min(mask.shape)
    lo, hi = cfg.min_cell_px, cfg.max_cell_frac * short
    contours, hierarchy = cv2.findContours(_sized_components(mask, lo, hi),
                                           cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return _Blobs(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2, 2)))
    c_lo, c_hi = cfg.compactness
    centres, sizes, covs = [], [], []
    for i in np.flatnonzero(hierarchy[0][:, 3] < 0):  # outer outlines, not holes
        contour = contours[i]
        if len(contour) < 4:  # a speck
            continue
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) < lo * 0.5 or max(w, h) > 2 * hi:
            continue
        m = cv2.moments(contour)
        area = m["m00"]
        if not lo * lo <= area <= hi * hi or area < cfg.min_bbox_fill * w * h:
            continue
        mu20, mu02, mu11 = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
        det = mu20 * mu02 - mu11 * mu11
        if det <= 0:
            continue
        tr = mu20 + mu02
        disc = math.sqrt(max(tr * tr / 4 - det, 0.0))
        elongation = (tr / 2 + disc) / max(tr / 2 - disc, 1e-9)
        if not c_lo <= area / (12.0 * math.sqrt(det)) <= c_hi:
            continue
        centre = np.array([m["m10"] / area, m["m01"] / area])
        cov = np.array([[mu20, mu11], [mu11, mu02]])
        if elongation <= cfg.max_elongation:
            centres.append(centre)
            sizes.append(math.sqrt(area))
            covs.append(cov)
        if split and cfg.split_elongation[0] <= elongation <= cfg.split_elongation[1]:
            # two squares run together: each half's centre a quarter of the length out
            major = tr / 2 + disc
            axis = np.array([mu11, major - mu20]) if abs(mu11) > 1e-9 else (
                np.array([1.0, 0.0]) if mu20 >= mu02 else np.array([0.0, 1.0]))
            axis /= np.linalg.norm(axis)
            step = math.sqrt(12.0 * major) / 4
            half_cov = cov - 0.75 * major * np.outer(axis, axis)
            for sign in (-1, 1):
                centres.append(centre + sign * step * axis)
                sizes.append(math.sqrt(area / 2))
                covs.append(half_cov)
    return _Blobs(np.array(centres, float).reshape(-1, 2), np.array(sizes, float),
                  np.array(covs, float).reshape(-1, 2, 2))


def _homography_lsq(src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """Least-squares homography src -> dst from >= 4 points (None if degenerate)."""
    if len(src) < 4:
        return None
    h, _ = cv2.findHomography(src.astype(np.float64), dst.astype(np.float64), 0)
    if h is None or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        return None
    return h / h[2, 2]


def _local_jacobian(h: np.ndarray, ab: np.ndarray) -> np.ndarray:
    """(N, 2, 2) Jacobian of lattice -> image homography h at lattice points ab."""
    x = ab @ h[:2, :2].T + h[:2, 2]
    w = ab @ h[2, :2] + h[2, 2]
    # d(x/w)/d(a, b) = (h[:2,:2] * w - x outer h[2,:2]) / w^2
    return (h[None, :2, :2] * w[:, None, None] - x[:, :, None] * h[None, 2, None, :2]) \
        / (w[:, None, None] ** 2)


def _local_pitch(h: np.ndarray, ab: np.ndarray) -> np.ndarray:
    """sqrt |det J| of lattice -> image homography h at lattice points ab: cell side, px."""
    return np.sqrt(np.abs(np.linalg.det(_local_jacobian(h, ab))))


def _anisotropy(covs: np.ndarray, jac: np.ndarray) -> np.ndarray:
    """How far from square each blob is *on the board*: the eigenvalue ratio of its
    second moments mapped back through the local Jacobian (1 for a square or a disc,
    4 for two squares run together)."""
    inv = np.linalg.inv(jac)
    c = inv @ covs @ np.swapaxes(inv, 1, 2)
    tr = c[:, 0, 0] + c[:, 1, 1]
    det = c[:, 0, 0] * c[:, 1, 1] - c[:, 0, 1] ** 2
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    return (tr / 2 + disc) / np.maximum(tr / 2 - disc, 1e-12)


_REFIT_SHARE = 0.7  # of match_tolerance: a blob the refit leaves further from its spot goes


@dataclass
class _Lattice:
    h: np.ndarray        # lattice (a, b) -> work px
    ab: np.ndarray       # (M, 2) int lattice coords of the matched blobs
    idx: np.ndarray      # (M,) blob indices
    residual: float      # median distance of blobs to their spots, cells
    squares: np.ndarray  # (M, 2) the matched blobs' centres, work px


def _seeds(blobs: _Blobs, cfg: BoardConfig, used: np.ndarray):
    """Blobs whose neighbours form a lattice around them: yields (index, u, v), best first
    (most of their 8 neighbours where the lattice puts them, then of the most common
    size), skipping those ``used`` by a lattice grown meanwhile. u, v: the two lattice
    steps (reduced: the shortest pair), image px."""
    p, s = blobs.centres, blobs.sizes
    n = len(p)
    if n < 5:
        return
    diff = p[None, :, :] - p[:, None, :]  # (i, j): p[j] - p[i]
    d = np.hypot(diff[..., 0], diff[..., 1])
    ratio = s[:, None] / s[None, :]
    lo, hi = cfg.neighbour_pitch
    plausible = ((d >= lo * s[:, None]) & (d <= hi * s[:, None])
                 & (ratio < cfg.size_ratio) & (ratio > 1 / cfg.size_ratio))
    count = plausible.sum(1)
    typical = np.median(s[count >= 4]) if np.any(count >= 4) else np.median(s)
    order = np.lexsort((np.abs(np.log(s / typical)), -count))
    cand = order[count[order] >= 4][:_SEED_CANDIDATES]
    if not len(cand):
        return
    # each candidate's nearest plausible neighbours, as vectors sorted by length
    k = min(_SEED_NEIGHBOURS, n - 1)
    d_ok = np.where(plausible[cand], d[cand], np.inf)
    near = np.argsort(d_ok, axis=1)[:, :k]
    lens = np.take_along_axis(d_ok, near, 1)  # (M, k), inf where fewer neighbours
    vecs = diff[cand[:, None], near]  # (M, k, 2)
    u = vecs[:, 0]
    cos = np.abs((vecs[:, 1:] * u[:, None]).sum(-1)) / (lens[:, 1:] * lens[:, :1])
    rel = lens[:, 1:] / lens[:, :1]
    ok = (cos < 0.75) & (rel > 0.4) & (rel < 2.5) & np.isfinite(lens[:, 1:])
    has_v = ok.any(1)
    v = vecs[np.arange(len(cand)), 1 + np.argmax(ok, 1)]
    u, v = _reduce_pairs(u, v)
    steps = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)])
    targets = steps[None, :, 0, None] * u[:, None] + steps[None, :, 1, None] * v[:, None]
    err = np.linalg.norm(vecs[:, None, :, :] - targets[:, :, None, :], axis=-1)
    err = np.where(np.isfinite(lens)[:, None, :], err, np.inf).min(-1)  # (M, 8)
    step = np.minimum(np.hypot(*u.T), np.hypot(*v.T))
    hits = err < cfg.match_tolerance * 1.5 * step[:, None]
    total, sides = hits.sum(1), hits[:, :4].sum(1)
    good = has_v & (total >= 4)
    rank = np.lexsort((np.abs(np.log(s[cand] / typical)), -sides, -total))
    for j in rank:
        if good[j] and not used[cand[j]]:
            yield int(cand[j]), u[j], v[j]


_SEED_CANDIDATES = 60  # blobs with the most neighbours that are tried as seeds
_SEED_NEIGHBOURS = 10  # nearest plausible neighbours looked at around a seed


def _reduce_pairs(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise Lagrange reduction of (M, 2) pairs of lattice steps (the shortest pair)."""
    u, v = u.astype(float).copy(), v.astype(float).copy()
    for _ in range(8):
        swap = (v * v).sum(1) < (u * u).sum(1)
        u[swap], v[swap] = v[swap].copy(), u[swap].copy()
        m = np.rint((u * v).sum(1) / np.maximum((u * u).sum(1), 1e-12))
        if not m.any():
            break
        v -= m[:, None] * u
    return u, v


def _grow_lattice(blobs: _Blobs, seed: int, u: np.ndarray, v: np.ndarray,
                  cfg: BoardConfig, limit: int) -> _Lattice | None:
    """Grow a lattice from a seed blob: map every blob through the current homography's
    inverse, take those that land near a lattice spot within the grown region, refit."""
    p, s = blobs.centres, blobs.sizes
    h = np.array([[u[0], v[0], p[seed, 0]], [u[1], v[1], p[seed, 1]], [0, 0, 1.0]])
    size_per_pitch = s[seed] / math.sqrt(abs(u[0] * v[1] - u[1] * v[0]))
    lo_ab, hi_ab = np.array([-1, -1]), np.array([1, 1])
    matched = None
    for _ in range(cfg.max_lattice_iterations):
        try:
            inv = np.linalg.inv(h)
        except np.linalg.LinAlgError:
            return None
        q = _apply(inv, p)
        w = p @ inv[2, :2] + inv[2, 2]
        r = np.rint(q)
        err = np.linalg.norm(q - r, axis=1)
        jac = _local_jacobian(h, r)
        pitch = np.sqrt(np.abs(np.linalg.det(jac)))
        rel = s / np.maximum(pitch, 1e-9) / size_per_pitch
        # grow by a ring, or by a third of the span once the fit has some extent
        grow = max(1, int(np.min(hi_ab - lo_ab)) // 3)
        inside = (np.all((r >= lo_ab - grow) & (r <= hi_ab + grow), axis=1)
                  & (np.abs(r) <= limit).all(1))
        ok = (inside & (err < cfg.match_tolerance) & (w > 0)
              & (rel < cfg.size_ratio) & (rel > 1 / cfg.size_ratio))
        ok[ok] &= _anisotropy(blobs.covs[ok], jac[ok]) < cfg.max_anisotropy
        cand = np.flatnonzero(ok)
        if len(cand) < 4:
            return None
        # one blob per spot: the closest
        keys = (r[cand, 0].astype(np.int64) + 4096) * 8192 + (r[cand, 1].astype(np.int64) + 4096)
        order = np.lexsort((err[cand], keys))
        cand, keys = cand[order], keys[order]
        first = np.ones(len(cand), bool)
        first[1:] = keys[1:] != keys[:-1]
        cand = cand[first]
        ab = r[cand]
        new_h = _homography_lsq(ab, p[cand])
        if new_h is None:
            return None
        # drop what the refit no longer puts near its spot, and fit again
        off = np.linalg.norm(_apply(np.linalg.inv(new_h), p[cand]) - ab, axis=1)
        near = off <= cfg.match_tolerance * _REFIT_SHARE
        if not near.all() and near.sum() >= 4:
            cand, ab = cand[near], ab[near]
            new_h = _homography_lsq(ab, p[cand])
            if new_h is None:
                return None
        h = new_h
        new_lo, new_hi = ab.min(0).astype(int), ab.max(0).astype(int)
        if (matched is not None and len(cand) == len(matched)
                and (new_lo == lo_ab).all() and (new_hi == hi_ab).all()):
            break
        matched, lo_ab, hi_ab = cand, new_lo, new_hi
        size_per_pitch = float(np.median(s[cand] / _local_pitch(h, ab)))
    if matched is None:
        return None
    h = h @ _reduced_basis(h, p[matched].mean(0))
    ab = np.rint(_apply(np.linalg.inv(h), p[matched])).astype(int)
    res = float(np.median(np.linalg.norm(_apply(np.linalg.inv(h), p[matched]) - ab, axis=1)))
    return _Lattice(h, ab, matched, res, p[matched])


def _reduced_basis(h: np.ndarray, at: np.ndarray) -> np.ndarray:
    """(3, 3) integer change of lattice coordinates making the lattice steps at image
    point ``at`` the shortest pair (Lagrange reduction): a lattice of squares has many
    bases (u, v + u, ...), only the reduced one runs along the grid lines."""
    centre = _apply(np.linalg.inv(h), at)
    pts = _apply(h, np.array([centre, centre + (1, 0), centre + (0, 1)]))
    u, v = pts[1] - pts[0], pts[2] - pts[0]
    t = np.eye(2)  # columns: the new steps in old lattice coordinates
    for _ in range(8):
        if v @ v < u @ u:
            u, v = v, u
            t = t[:, ::-1]
        m = round(float(u @ v) / float(u @ u))
        if m == 0:
            break
        v = v - m * u
        t[:, 1] -= m * t[:, 0]
    out = np.eye(3)
    out[:2, :2] = t
    return out


def _best_lattice(blobs: _Blobs, cfg: BoardConfig, limit: int) -> _Lattice | None:
    best = None
    used = np.zeros(len(blobs.sizes), bool)
    tried = 0
    for seed, u, v in _seeds(blobs, cfg, used):
        if best is not None and len(best.idx) >= np.count_nonzero(~used):
            break  # the blobs left could not make a larger lattice
        lat = _grow_lattice(blobs, seed, u, v, cfg, limit)
        tried += 1
        if lat is not None:
            used[lat.idx] = True
            if best is None or len(lat.idx) > len(best.idx):
                best = lat
        if tried >= cfg.seeds_tried:
            break
    return best


def _lattice_to_grid(lat: _Lattice, rows: int, cols: int
                     ) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """Homography level px -> grid units (some quarter turn of the board) from a lattice
    of square centres, and the shifts (cells) of the grid that fit the lattice as well
    (more than one when whole rows or columns of squares were not seen); None when the
    lattice is far larger than the board."""
    h, ab = lat.h, lat.ab.copy()
    # a proper (not mirrored) map: lattice axes turned like the image's x, y
    centre = ab.mean(0)
    jac = np.array([[1, 0], [0, 1.0]])
    pts = _apply(h, np.array([centre, centre + jac[0], centre + jac[1]]))
    du, dv = pts[1] - pts[0], pts[2] - pts[0]
    swap = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 1]])
    if du[0] * dv[1] - du[1] * dv[0] < 0:
        h = h @ swap
        ab = ab[:, ::-1]
    ab = ab[_stray_squares_left_out(ab, max(rows, cols))]
    span = ab.max(0) - ab.min(0) + 1
    # which lattice axis runs along the columns (non-square boards)
    fits = [(cols, rows), (rows, cols)]
    turn = 0
    if rows != cols:
        ok = [span[0] <= a and span[1] <= b for a, b in fits]
        turn = 0 if ok[0] or not ok[1] else 1
    n_a, n_b = fits[turn]
    if span[0] > n_a + _SPARE_SPAN or span[1] > n_b + _SPARE_SPAN:
        return None  # a lattice much larger than the board: not this board
    offsets, choices = [], []
    for axis, n in ((0, n_a), (1, n_b)):
        vals = ab[:, axis]
        lo, hi = vals.min(), vals.max()
        candidates = range(hi - n + 1, lo + 1) if hi - lo + 1 <= n else range(lo, hi - n + 2)
        counts = [(np.count_nonzero((vals >= o) & (vals < o + n)), o) for o in candidates]
        top = max(c for c, _ in counts)
        best = [o for c, o in counts if c == top]
        offsets.append(best[len(best) // 2])  # the middle one until the layout tells
        choices.append([o - offsets[-1] for o in best])
    # lattice (a, b) is the centre of cell (a - oa, b - ob): grid = lattice - o + 0.5
    to_grid = np.array([[1, 0, 0.5 - offsets[0]], [0, 1, 0.5 - offsets[1]], [0, 0, 1.0]])
    grid_h = to_grid @ np.linalg.inv(h)
    # other places the grid may lie, as shifts (cells) of the grid along its own axes
    shifts = [(da, db) for da in choices[0] for db in choices[1]]
    if turn:
        # the lattice's a axis runs down the rows: turn so that it runs along the columns
        grid_h = _quarter_turn(1, n_b, n_a) @ grid_h
        shifts = [(db, -da) for da, db in shifts]
    return grid_h, shifts


_SPARE_SPAN = 2  # a lattice may run this many cells past the board (art in its border)
_STRAY_SHARE = 0.05  # ... and this share of its squares lie farther off
_CROWDED_STRAY_SHARE = 0.1  # ... or this share, past the board's lines (a crowded board)


def _stray_squares_left_out(ab: np.ndarray, n: int) -> np.ndarray:
    """(M,) bool, the lattice squares to keep: along each axis, the unbroken run of
    lattice lines holding the most squares, and the few (at most ``_STRAY_SHARE``) past a
    gap beyond it left out — a square or two seen past the board along its lattice (print
    on its border, a box or the grain of the table), which would make it look too large
    to be one. On a crowded board whole lines hold no empty square, and the run is a part
    of the board: then, where the ``n`` lines (the board's) holding the most squares
    begin and end with squares, they and ``_SPARE_SPAN`` more either side are kept, and
    the few (``_CROWDED_STRAY_SHARE``) past them left out.

    >>> ab = np.array([(a, b) for a in range(3) for b in range(3)] * 7 + [(5, 1)])
    >>> _stray_squares_left_out(ab, 3).tolist()[-2:]
    [True, False]
    >>> crowded = np.array([(a, 0) for a in (0, 1, 3, 4) for _ in range(5)] + [(9, 0)])
    >>> _stray_squares_left_out(crowded, 5).tolist()[-2:]
    [True, False]

    Not where the best lines end in an empty one (rows of pegs, no board's edge):

    >>> pegs = np.array([(a, 0) for a in (0, 1, 2) for _ in range(6)] + [(8, 0), (9, 0)])
    >>> bool(_stray_squares_left_out(pegs, 5).all())
    True
    """
    keep = np.ones(len(ab), bool)
    for axis in (0, 1):
        v = ab[:, axis] - ab[:, axis].min()
        counts = np.bincount(v)
        # runs of lines with squares, split where a line holds none
        edges = np.flatnonzero(np.diff(np.r_[0, counts > 0, 0]))
        runs = edges.reshape(-1, 2)                   # [start, end) of each run
        best = max(runs, key=lambda r: counts[r[0]:r[1]].sum())
        inside = (v >= best[0]) & (v < best[1])
        if np.count_nonzero(~inside) <= _STRAY_SHARE * len(v):
            keep &= inside
        elif len(counts) > n + 2 * _SPARE_SPAN:
            o = int(np.argmax(np.convolve(counts, np.ones(n, int), "valid")))
            inside = (v >= o - _SPARE_SPAN) & (v < o + n + _SPARE_SPAN)
            # (play grows from the centre: a board's first and last lines show squares)
            if (counts[o] and counts[o + n - 1]
                    and np.count_nonzero(~inside) <= _CROWDED_STRAY_SHARE * len(v)):
                keep &= inside
    return keep


def _shift(da: float, db: float) -> np.ndarray:
    """Grid units -> grid units of the same grid moved by (da, db) cells."""
    return np.array([[1, 0, -da], [0, 1, -db], [0, 0, 1.0]])


def _layout_scores(photo, grid_h, game, rows, cols, shifts,
                   samples: np.ndarray | None = None) -> np.ndarray | None:
    """For each shift (cells) of the grid, how well its cells' colours follow the layout:
    the correlation of each cell's distance from the plain squares' median colour with
    the layout's special squares (-1 where too little of it is in the picture); None for
    a layout of plain squares alone."""
    kinds = _square_kinds(game, rows, cols)
    special = (kinds != "plain").astype(float)
    if special.std() == 0:
        return None
    pad = int(max(max(abs(a), abs(b)) for a, b in shifts))
    ext = _shift(-pad, -pad) @ grid_h  # grid units of a grid padded by ``pad`` cells
    lab = _lab_of_cells(photo, ext, rows + 2 * pad, cols + 2 * pad, samples)
    scores = []
    for da, db in shifts:
        x0, y0 = pad + int(da), pad + int(db)
        window = lab[y0:y0 + rows, x0:x0 + cols]
        plain_cells = window[~special.astype(bool)].reshape(-1, 3)
        plain_cells = plain_cells[np.isfinite(plain_cells[:, 0])]
        if not len(plain_cells):
            scores.append(-1.0)
            continue
        plain = np.median(plain_cells, axis=0)
        odd = np.linalg.norm(window - plain, axis=-1)
        valid = np.isfinite(odd)
        if valid.sum() < rows * cols / 2:
            scores.append(-1.0)
            continue
        a, b = odd[valid], special[valid]
        a, b = a - a.mean(), b - b.mean()
        scores.append(float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-9)))
    return np.array(scores)


# the places off the lattice's own that the layout may choose: up to two cells off (a
# print board small and steep in the frame, its markers unread, showed a lattice of a
# third of its squares that placed it two rows off, every place it allowed wrong)
_NEIGHBOURS = [(a, b) for a in range(-2, 3) for b in range(-2, 3)]


def _place_by_layout(photo, grid_h, game, rows, cols, shifts, cfg) -> tuple[np.ndarray, bool]:
    """Where the grid lies along its lattice, by the special squares (colours that differ
    from the plain squares'): the shift that best matches the layout among those the
    lattice allows (one when it showed all its rows and columns), unless a cell or two off
    one of them matches it far better (``cfg.layout_shift_margin``: a lattice run a row
    into the border's print, a blurred board whose last row of squares did not show, a
    stray square beside a partly seen lattice that stretched its span). Returns the grid
    homography and whether it stays ambiguous."""
    seen_all = len(shifts) == 1
    # a glance first (4 points a cell): a grid in place matches clearly
    if seen_all and not _off_layout(photo, grid_h, game, rows, cols, cfg, _FEW_CELL_SAMPLES):
        return grid_h, False
    own = [tuple(int(v) for v in s) for s in shifts]
    near = sorted({(a + da, b + db) for a, b in own for da, db in _NEIGHBOURS} - set(own))
    scores = _layout_scores(photo, grid_h, game, rows, cols, own + near)
    if scores is None:
        return grid_h, not seen_all
    mine, off = scores[:len(own)], scores[len(own):]
    order = np.argsort(mine)[::-1]
    if off.max() - mine[order[0]] >= cfg.layout_shift_margin:
        return _shift(*near[int(np.argmax(off))]) @ grid_h, False
    ambiguous = len(order) > 1 and mine[order[0]] - mine[order[1]] < cfg.layout_margin
    return _shift(*own[order[0]]) @ grid_h, ambiguous


def _moved(h0: np.ndarray, h1: np.ndarray, rows: int, cols: int) -> float:
    """How far (cells) the grid's corners and centre move from estimate h0 to h1."""
    pts = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows], [cols / 2, rows / 2]], float)
    return float(np.linalg.norm(_apply(h0 @ np.linalg.inv(h1), pts) - pts, axis=1).max())


# ----------------------------------------------------------------------------------------
# refining on the grid lines


@dataclass
class _Fit:
    grid_h: np.ndarray   # full px -> grid units
    residual: float      # RMS distance of line evidence to the fitted lines, cells
    support: float       # fraction of line segments that showed a line


def _line_evidence(rect: np.ndarray, p: int) -> np.ndarray:
    """float32 map, high on thin dark lines (grid lines, gaps between raised squares)."""
    k = max(3, (p // 3) | 1)
    return cv2.morphologyEx(rect, cv2.MORPH_BLACKHAT, np.ones((k, k), np.uint8)).astype(np.float32)


_CENTROID_HALF = 2  # px either side of a valley's deepest point weighed for its centre


def _segment_peaks(ev: np.ndarray, n_lines: int, n_cells: int, p: int, margin: int,
                   half: int, trim: int) -> tuple[np.ndarray, np.ndarray]:
    """Peak offset (px, sub-pixel) and contrast of the evidence across each horizontal
    grid line, per cell-long segment: two (n_lines, n_cells) arrays."""
    ys = (np.arange(n_lines) + margin) * p  # the line at grid y=j sits between px rows ys-1, ys
    offs = np.arange(-half, half + 1)
    rows = ev[(ys[:, None] + offs[None, :] - 0).clip(0, ev.shape[0] - 1)]  # (L, 2h+1, W)
    x0 = margin * p
    band = rows[:, :, x0:x0 + n_cells * p].reshape(n_lines, len(offs), n_cells, p)
    prof = band[..., trim:p - trim].mean(-1)  # (L, 2h+1, C)
    k = np.argmax(prof, axis=1)  # (L, C)
    peak = np.take_along_axis(prof, k[:, None, :], 1)[:, 0]
    base = np.median(prof, axis=1)
    # sub-pixel: the centre of mass of the valley's response around its deepest point (a
    # gap shaded on one side has its deepest point off centre; its mass is not)
    r = _CENTROID_HALF
    idx = np.clip(k[:, None, :] + np.arange(-r, r + 1)[None, :, None], 0, len(offs) - 1)
    vals = np.clip(np.take_along_axis(prof, idx, 1) - base[:, None, :], 0, None)
    vals = np.where((idx == k[:, None, :] + np.arange(-r, r + 1)[None, :, None]), vals, 0)
    mass = vals.sum(1)
    shift = (vals * np.arange(-r, r + 1)[None, :, None]).sum(1) / np.where(mass > 0, mass, 1)
    offset = offs[k] + shift + 0.5  # px row ys + o is at grid y j + (o + .5)/p
    contrast = peak - base
    at_edge = (k == 0) | (k == len(offs) - 1)
    contrast = np.where(at_edge, 0.0, contrast)
    return offset, contrast


def _fit_lines(t: np.ndarray, y: np.ndarray, ok: np.ndarray, cfg: BoardConfig
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Robust straight lines y = m t + c, one per row of ``y`` (n_lines, n_points) over the
    points where ``ok``; all lines at once. Returns slopes, intercepts (n_lines,) and the
    inlier mask; a line with fewer than 2 inliers gets NaN."""
    keep = ok.copy()
    t2 = np.broadcast_to(t, y.shape)
    yz = np.where(ok, y, 0.0)
    for _ in range(3):
        w = keep.astype(float)
        n = w.sum(1)
        st, sy = (w * t2).sum(1), (w * yz).sum(1)
        stt, sty = (w * t2 * t2).sum(1), (w * t2 * yz).sum(1)
        den = n * stt - st * st
        # points spread over too short a stretch (variance of t < 1/2 cell^2) give no
        # slope worth having: a line parallel to the grid's present estimate
        flat = den < 0.5 * np.maximum(n, 1) ** 2
        m = np.where(flat, 0.0, (n * sty - st * sy) / np.where(den == 0, 1, den))
        c = (sy - m * st) / np.maximum(n, 1)
        res = np.abs(yz - (m[:, None] * t2 + c[:, None]))
        # median of the kept residuals per line: sort with the dropped ones last
        srt = np.sort(np.where(keep, res, np.inf), axis=1)
        mid = np.maximum(keep.sum(1) - 1, 0) // 2
        mad = np.take_along_axis(srt, mid[:, None], 1)[:, 0] * 1.4826
        limit = np.maximum(3 * np.where(np.isfinite(mad), mad, 0.0), cfg.outlier_cells)
        new = ok & (res <= limit[:, None])
        if (new == keep).all():
            break
        keep = new
    bad = keep.sum(1) < 2
    m = np.where(bad, np.nan, m)
    c = np.where(bad, np.nan, c)
    return m, c, keep


def _refine(photo: _Photo, grid_h: np.ndarray, rows: int, cols: int, cfg: BoardConfig,
            window: float, fine: bool = False, trust: tuple[np.ndarray, float] | None = None,
            anchors: tuple[np.ndarray, np.ndarray] | None = None) -> _Fit | None:
    """One pass: fit every grid line to the evidence near its predicted place, intersect
    them all and refit the homography to the intersections (least squares).

    ``trust`` = (points in grid units, radius in cells): only evidence that close is used.
    ``anchors`` = (image px, grid units) extra exact correspondences (marker corners).
    """
    cell_full = _cell_px_of(grid_h, rows, cols)
    scale = photo.level_for(cell_full, cfg.fine_min_cell_px if fine else cfg.refine_min_cell_px)
    grey = photo.grey(scale)
    level_h = grid_h @ np.linalg.inv(photo.to_level(scale))  # level px -> grid
    p, m = (cfg.fine_px_per_cell if fine else cfg.refine_px_per_cell), 1
    to_rect = np.array([[p, 0, p * m - 0.5], [0, p, p * m - 0.5], [0, 0, 1.0]])
    size = ((cols + 2 * m) * p, (rows + 2 * m) * p)
    rect = cv2.warpPerspective(grey, to_rect @ level_h, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    ev = _line_evidence(_stretch(rect), p)
    half = max(2, int(math.ceil(window * p)))
    trim = max(1, int(cfg.segment_trim * p))
    # horizontal lines (y = j), segments along x; vertical lines from the transpose
    off_h, con_h = _segment_peaks(ev, rows + 1, cols, p, m, half, trim)
    off_v, con_v = _segment_peaks(np.ascontiguousarray(ev.T), cols + 1, rows, p, m, half, trim)
    seg_t_h = np.arange(cols) + 0.5  # segment centres along the line, grid units
    seg_t_v = np.arange(rows) + 0.5
    ok_h = con_h >= cfg.min_peak_contrast
    ok_v = con_v >= cfg.min_peak_contrast
    if not cfg.fit_outer_lines:
        ok_h[[0, -1]] = False
        ok_v[[0, -1]] = False
    if trust is not None:
        pts, radius = trust
        gy, gx = np.meshgrid(np.arange(rows + 1), seg_t_h, indexing="ij")
        ok_h &= _near(np.stack([gx, gy], -1), pts, radius)
        gx, gy = np.meshgrid(np.arange(cols + 1), seg_t_v, indexing="ij")
        ok_v &= _near(np.stack([gx, gy], -1), pts, radius)
    mh, ch, keep_h = _fit_lines(seg_t_h, np.arange(rows + 1)[:, None] + off_h / p, ok_h, cfg)
    mv, cv, keep_v = _fit_lines(seg_t_v, np.arange(cols + 1)[:, None] + off_v / p, ok_v, cfg)
    jh, jv = np.flatnonzero(np.isfinite(mh)), np.flatnonzero(np.isfinite(mv))
    if len(jh) < 2 or len(jv) < 2:
        return None
    # intersections of horizontal j (y = mh x + ch) with vertical k (x = mv y + cv)
    a, b = mh[jh][:, None], ch[jh][:, None]
    e, f = mv[jv][None, :], cv[jv][None, :]
    y = (a * f + b) / (1 - a * e)
    x = e * y + f
    src = np.stack([x, y], -1).reshape(-1, 2)
    dst = np.stack(np.meshgrid(jv, jh), -1).reshape(-1, 2).astype(float)
    res_h = (np.arange(rows + 1)[:, None] + off_h / p) - (mh[:, None] * seg_t_h + ch[:, None])
    res_v = (np.arange(cols + 1)[:, None] + off_v / p) - (mv[:, None] * seg_t_v + cv[:, None])
    residuals = np.concatenate([res_h[keep_h & np.isfinite(res_h)],
                                res_v[keep_v & np.isfinite(res_v)]])
    # grid units of the present estimate -> full px, for the intersections' image places
    full_from_grid = np.linalg.inv(grid_h)
    img = _apply(full_from_grid, src)
    if anchors is not None:
        img = np.vstack([img, anchors[0]])
        dst = np.vstack([dst, anchors[1]])
    new_h = _homography_lsq(img, dst)
    # a line fitted to something else (a hand's edge along it) puts a whole row of
    # intersections off the plane's map: drop those far off it and fit again
    for _ in range(2):
        if new_h is None:
            return None
        off = np.linalg.norm(_apply(new_h, img) - dst, axis=1)
        limit = max(3 * 1.4826 * float(np.median(off)), cfg.outlier_cells)
        keep = off <= limit
        if keep.all() or keep.sum() < 8:
            break
        img, dst = img[keep], dst[keep]
        new_h = _homography_lsq(img, dst)
    if new_h is None:
        return None
    residual = float(np.sqrt(np.mean(residuals ** 2))) if len(residuals) else 1.0
    support = (ok_h.sum() + ok_v.sum()) / (ok_h.size + ok_v.size)
    return _Fit(new_h, residual, float(support))


def _near(points: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    d = np.linalg.norm(points[..., None, :] - centres, axis=-1).min(-1)
    return d <= radius


def _cell_px_of(grid_h: np.ndarray, rows: int, cols: int) -> float:
    inv = np.linalg.inv(grid_h)
    corners = _apply(inv, np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], float))
    sides = np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)
    return float(min(sides[1] / cols, sides[3] / cols, sides[0] / rows, sides[2] / rows))


# ----------------------------------------------------------------------------------------
# the two ways in


@dataclass(frozen=True)
class _Look:
    """What the grid of a game's board looks like to the finder."""

    dark_cells: bool = False  # the lattice is of dark blobs (holes), not light squares
    lines: bool = True        # grid lines (or gaps) run between the cells
    neighbour_pitch: tuple[float, float] | None = None  # BoardConfig's, unless given
    min_cell_px: float | None = None

    def tune(self, cfg: BoardConfig) -> BoardConfig:
        """The config with this look's overrides."""
        changes = {k: v for k, v in (("neighbour_pitch", self.neighbour_pitch),
                                     ("min_cell_px", self.min_cell_px)) if v is not None}
        return replace(cfg, **changes) if changes else cfg


# Mastermind's code holes are dark discs in rows, with no lines between them; a chequered
# Breakthrough board is a later issue (its light squares touch only at their corners, so
# their lattice is the diagonal one).
_LOOK = {"mixmath": _Look(), "calculissimo": _Look(), "breakthrough": _Look(),
         "mastermind": _Look(dark_cells=True, lines=False, neighbour_pitch=(1.5, 4.5),
                             min_cell_px=3.0)}


def _is_sure(loc: BoardLocation, cfg: BoardConfig) -> bool:
    """Good enough to stop looking: a clear grid, placed without doubt (which side is up
    may still be in doubt: looking closer would not settle that)."""
    return (loc.details.get("grid_quality", 0) >= cfg.sure_quality
            and not loc.details.get("offset_ambiguous")
            and loc.details.get("line_support", 0) >= cfg.sure_support)


def _find_by_grid(photo: _Photo, level: int, opened: bool, faint: bool, game: str,
                  geometry: BoardGeometry | None, profile: str | BoardProfile | None,
                  cfg: BoardConfig) -> BoardLocation | None:
    """The board from the lattice of squares in the grey copy ``level`` (its cell mask
    ``opened`` or not, parted by ``faint`` lines too or not), refined on the grid lines
    and turned as its print-and-play markers say, else as its own features do; None (and
    ``photo.why_not``) when no such lattice shows."""
    base = geometry or board_geometry(game)
    rows, cols = base.rows, base.cols
    t0 = time.perf_counter()
    look = _LOOK.get(game, _LOOK["mixmath"])
    # the smallest square considered is the working copy's, as big on a larger copy
    cfg = look.tune(cfg)
    cfg = replace(cfg, min_cell_px=cfg.min_cell_px * 2 ** max(photo.work_level - level, 0))
    key = ("mask", level, look.dark_cells, faint)
    if key not in photo.cache:
        grey = photo.halving(level)
        photo.cache[key] = _cell_mask(
            cv2.bitwise_not(grey) if look.dark_cells else grey,
            replace(cfg, valley_noise_factor=cfg.faint_noise_factor) if faint else cfg)
    # a last resort looks again asking less of the lattice (``min_cells_frac``): the same
    # look finds the same lattice, made once
    lattice_key = (key, opened, replace(cfg, min_cells_frac=0.0), max(rows, cols))
    if lattice_key not in photo.cache:
        mask = _opened(photo.cache[key], cfg) if opened else photo.cache[key]
        photo.cache[lattice_key] = _best_lattice(_bright_blobs(mask, cfg, split=opened), cfg,
                                                 limit=2 * max(rows, cols))
    lat = photo.cache[lattice_key]
    need = int(math.ceil(cfg.min_cells_frac * rows * cols))
    found = 0 if lat is None else len(lat.idx)
    photo.squares_seen = max(photo.squares_seen, found / (rows * cols))
    if found < need:
        most = int(round(photo.squares_seen * rows * cols))   # what the best look saw
        if most >= need and photo.why_not:
            return None   # the look that saw enough said why it found no board
        photo.why_not = (f"no {game} board found: {most} squares in a grid seen, at least "
                         f"{need} of its {rows * cols} needed (is the whole board in view, "
                         f"and near and sharp enough for its grid lines to show?)")
        return None
    placed = _lattice_to_grid(lat, rows, cols)
    if placed is None:
        photo.why_not = f"no {game} board found: the squares seen do not fit its grid"
        return None
    grid_h_level, shifts = placed
    grid_h = grid_h_level @ photo.to_level(level)
    details = {"squares_found": found, "placements": len(shifts), "level": level,
               "locate_ms": (time.perf_counter() - t0) * 1000}
    # (a board of holes has no grid lines: the lattice's least-squares fit to every hole)
    squares = _apply(np.linalg.inv(photo.to_level(level)), lat.squares)
    return _grid_board(photo, grid_h, shifts, game, geometry, profile, cfg, details,
                       _Fit(grid_h, lat.residual, found / (rows * cols)), squares)


def _refined(photo: _Photo, grid_h: np.ndarray, rows: int, cols: int,
             windows: tuple[float, ...], shifts: list[tuple[int, int]], game: str,
             cfg: BoardConfig, squares: np.ndarray | None = None
             ) -> tuple[_Fit | None, np.ndarray, bool]:
    """A first guess of the grid (``grid_h``, from a lattice of squares) refined on the
    grid lines, a pass per search window, and placed as the layout tells after the first
    (``shifts``: where else it may lie). Returns the last pass's fit (None: no lines), the
    grid, and whether its place stayed ambiguous.

    The first, wide pass may lock onto a crowded board's glyph strokes and tiles' edges
    instead of its lines (real Mathable tiles laid close: a lattice 0.03 cells off pulled
    0.11-0.35 off), where the lattice was close enough for the last pass alone: when the
    first pass moved the grid far, that is tried too, and kept when it fits the lines
    clearly better (closer by ``wide_pass_residual_ratio``, on about as many segments),
    or when it keeps the lattice's ``squares`` (full px) clearly nearer their cells'
    centres (``wide_pass_squares_ratio``): on a crowded real board at 1080p the wide pass
    found more segments, tile edges among them, and stretched the grid 0.36 cells past
    the top row, while the squares, seen whole, stayed put under the fine pass alone."""
    start, fit, ambiguous, first_move = grid_h, None, len(shifts) > 1, 0.0
    for i, window in enumerate(windows):
        f = _refine(photo, grid_h, rows, cols, cfg, window, fine=i == len(windows) - 1)
        moved = None if f is None else _moved(grid_h, f.grid_h, rows, cols)
        if f is None or moved > max(window, 0.1) * 1.5:
            break  # no lines, or lines that pull the grid further than it was searched
        fit, grid_h = f, f.grid_h
        if i == 0:
            first_move = moved
            grid_h, ambiguous = _place_by_layout(photo, grid_h, game, rows, cols, shifts, cfg)
    if len(windows) > 1 and first_move > cfg.wide_pass_doubt_cells:
        fine, fine_h, fine_ambiguous = _refined(photo, start, rows, cols, windows[-1:],
                                                shifts, game, cfg)
        if fine is not None and (fit is None or (
                fine.residual < cfg.wide_pass_residual_ratio * fit.residual
                and fine.support >= cfg.wide_pass_support_ratio * fit.support)
                or _squares_kept(squares, fine_h, grid_h, cfg.wide_pass_squares_ratio)):
            return fine, fine_h, fine_ambiguous
    return fit, grid_h, ambiguous


def _off_centres(grid_h: np.ndarray, points: np.ndarray) -> float:
    """RMS distance (cells) of ``points`` (full px) from the centres of the cells the grid
    puts them in."""
    g = _apply(grid_h, points)
    return float(np.sqrt(((g - np.floor(g) - 0.5) ** 2).sum(1).mean()))


def _squares_kept(squares: np.ndarray | None, fine_h: np.ndarray, wide_h: np.ndarray,
                  ratio: float | None) -> bool:
    """Whether grid ``fine_h`` puts the lattice's ``squares`` (full px) nearer their
    cells' centres than ``wide_h`` does, by at least ``ratio`` times."""
    if squares is None or ratio is None or len(squares) == 0:
        return False
    return _off_centres(wide_h, squares) >= ratio * _off_centres(fine_h, squares)


def _grid_board(photo: _Photo, grid_h: np.ndarray, shifts: list[tuple[int, int]], game: str,
                geometry: BoardGeometry | None, profile: str | BoardProfile | None,
                cfg: BoardConfig, details: dict, unlined: _Fit | None,
                squares: np.ndarray | None = None) -> BoardLocation | None:
    """The board from a first guess of its grid (``grid_h``: full px -> grid units; it may
    lie ``shifts`` cells further along its axes, as the layout tells): refined on the grid
    lines and turned as its print-and-play markers say, else as its own features do; a
    board without grid lines takes the ``unlined`` fit. None (and ``photo.why_not``) when
    no grid lines show. ``details`` (how the guess was made) go on the location."""
    base = geometry or board_geometry(game)
    rows, cols = base.rows, base.cols
    t1 = time.perf_counter()
    look = _LOOK.get(game, _LOOK["mixmath"])
    fit, ambiguous = None, len(shifts) > 1
    windows = cfg.search_window[:cfg.refine_passes] if look.lines else ()
    if not look.lines:
        fit = unlined
    else:
        fit, grid_h, ambiguous = _refined(photo, grid_h, rows, cols, windows, shifts,
                                          game, cfg, squares)
    if fit is None:
        photo.why_not = f"no {game} board found: squares in a grid, but no grid lines"
        return None
    t2 = time.perf_counter()
    details = {"residual_cells": fit.residual, "line_support": fit.support,
               "grid_quality": _quality(fit, cfg, True), **details,
               "offset_ambiguous": ambiguous, "refine_ms": (t2 - t1) * 1000}
    # a print-and-play board's markers, read where the grid puts them, say at once which
    # side is up (and that the grid sits right on the board): no own set's profile, no
    # features of its own to weigh
    loc = _corner_markers(photo, BoardLocation.from_grid_homography(
        game, grid_h, base, quality=_quality(fit, cfg, True), method="grid",
        orientation_certain=True, details=details), game, cfg)
    if loc.method != "markers":
        prof = _choose_profile(photo, grid_h, game, rows, cols, profile)
        geom = geometry or (prof.geometry(rows, cols) if prof else base)
        turn, scores, certain = _orientation(photo, grid_h, game, geom, prof, cfg)
        loc = BoardLocation.from_grid_homography(
            game, _quarter_turn(turn, rows, cols) @ grid_h, geom,
            quality=_quality(fit, cfg, certain and not ambiguous), method="grid",
            orientation_certain=certain, orientation_scores=scores,
            profile=prof.name if prof else None, details=details)
    loc.details["orient_ms"] = (time.perf_counter() - t2) * 1000
    return loc


def _find_by_markers(photo: _Photo, game: str, geometry: BoardGeometry,
                     found: dict[str, np.ndarray], cfg: BoardConfig) -> BoardLocation:
    src = np.vstack([found[c] for c in found])
    dst_mm = np.vstack([geometry.marker_corners_mm(c) for c in found])
    h_mm = _homography_lsq(src, dst_mm)
    gm = np.linalg.inv(_grid_to_mm(geometry))
    grid_h = gm @ h_mm
    anchors = (src, _apply(gm, dst_mm))
    centres = np.array([_apply(gm, geometry.marker_corners_mm(c)).mean(0) for c in found])
    rows, cols = geometry.rows, geometry.cols
    radii = [] if len(found) >= 3 else list(cfg.marker_trust_cells)
    passes = [(r, cfg.search_window[min(i, len(cfg.search_window) - 1)])
              for i, r in enumerate(radii)]
    passes += [(None, w) for w in cfg.search_window[1:cfg.refine_passes]]
    if len(found) == 3:
        # four markers pin the grid to a fraction of a cell; three leave its fourth corner
        # to extrapolation (small markers: half a cell off), which the lines pull in over
        # a few passes, the first looking wider
        passes = [(None, cfg.search_window[0])] + passes + [passes[-1]] * cfg.marker_extra_passes
    # the lines may not pull the grid off the markers (a hand's edge is a line too); from
    # three or more, as far as their own scatter allows: a small marker's corners are a
    # pixel or two off, and the true grid fits them about half as well as their own best
    # fit (two would leave the far side to the lines alone: not relaxed)
    misfit = cfg.marker_misfit_cells + (2 * _marker_misfit(grid_h, anchors) if len(found) >= 3
                                        else 0.0)
    fit = None
    for i, (radius, window) in enumerate(passes):
        trust = None if radius is None else (centres, radius)
        fine = len(found) == 3 or i == len(passes) - 1
        f = _refine(photo, grid_h, rows, cols, cfg, window, fine, trust, anchors)
        if f is not None and _marker_misfit(f.grid_h, anchors) <= misfit:
            # a fine pass that hardly moves the grid ends them (the widening ones all run)
            settled = fine and _moved(grid_h, f.grid_h, rows, cols) <= cfg.settled_cells
            fit, grid_h = f, f.grid_h
            if settled:
                break
    if (fit is not None and _one_side(found)
            and _off_layout(photo, grid_h, game, rows, cols, cfg)):
        # two markers of one side (not a diagonal's: a hand may hide the rest) leave the
        # far side to the lines, which can lock on a line or two off there (on renders:
        # two cells): the layout must confirm them
        quality = 0.0
    elif fit is not None and (len(found) > 1 or fit.support >= cfg.sure_support):
        quality = _quality(fit, cfg, True)
    elif fit is None and len(found) >= cfg.min_unchecked_markers:
        quality = _UNCHECKED_MARKERS_QUALITY  # the markers' own fit: fair from most of them
    else:
        # one marker's 4 corners extrapolated over the board, checked by a few lines
        # only (on renders: 60 to 190 cells off), or a few markers checked by none
        quality = 0.0
    details = {"markers": sorted(found), "residual_cells": fit.residual if fit else None,
               "line_support": fit.support if fit else 0.0}
    return BoardLocation.from_grid_homography(
        game, grid_h, geometry, quality=quality, method="markers",
        orientation_certain=True, orientation_scores=np.array([1.0, 0, 0, 0]),
        details=details)


def _one_side(corners) -> bool:
    """Whether the markers are the two of one side of the board (corners "TL", "BR", ...).

    >>> _one_side(["TR", "BR"]), _one_side(["TL", "BR"]), _one_side(["TL", "TR", "BR"])
    (True, False, False)
    """
    if len(corners) != 2:
        return False
    a, b = corners
    return a[0] == b[0] or a[1] == b[1]


def _off_layout(photo, grid_h, game, rows, cols, cfg, samples=None) -> bool:
    """Whether the grid's squares fail to follow the layout's special squares (below
    ``cfg.layout_glance``; a layout of plain squares alone says nothing), their colours
    taken at ``samples`` (:func:`_layout_scores`)."""
    scores = _layout_scores(photo, grid_h, game, rows, cols, [(0, 0)], samples)
    return scores is not None and scores[0] < cfg.layout_glance


_UNCHECKED_MARKERS_QUALITY = 0.3  # markers alone: a fair fit, below any checked grid's


def _marker_misfit(grid_h: np.ndarray, anchors: tuple[np.ndarray, np.ndarray]) -> float:
    """Largest distance (cells) between the marker corners seen and where grid_h puts them."""
    return float(np.linalg.norm(_apply(grid_h, anchors[0]) - anchors[1], axis=1).max())


def _quality(fit: _Fit, cfg: BoardConfig, certain: bool) -> float:
    q = 1.0 / (1.0 + (fit.residual / (3 * cfg.good_residual_cells)) ** 2)
    return float(q * math.sqrt(fit.support) * (1.0 if certain else 0.75))


# ----------------------------------------------------------------------------------------
# markers


_ARUCO = {}


def _aruco_detector(cfg: BoardConfig, roi: bool = False):
    key = (cfg.marker_min_perimeter, roi)
    if key not in _ARUCO:
        params = cv2.aruco.DetectorParameters()
        params.minMarkerPerimeterRate = 0.2 if roi else cfg.marker_min_perimeter
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 25
        params.adaptiveThreshWinSizeStep = 10
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        _ARUCO[key] = cv2.aruco.ArucoDetector(dictionary, params)
    return _ARUCO[key]


def _detect_markers(grey: np.ndarray, cfg: BoardConfig, roi: bool = False
                    ) -> list[tuple[int, np.ndarray]]:
    """[(id, (4, 2) corners in grey's px, the marker's own TL TR BR BL)]; ``roi``: a small
    crop around one expected marker (which may fill much of it).

    A small far marker (~3 px a module, blurred) is often outlined by ArUco but rejected:
    its bits, against all 50 codes, are too unsure. Against boardsight's few codes only,
    many still read clearly (:func:`_marker_in_quad`)."""
    corners, ids, rejected = _aruco_detector(cfg, roi).detectMarkers(grey)
    out = [] if ids is None else [(int(i), c.reshape(4, 2).astype(float))
                                  for i, c in zip(ids.ravel(), corners)]
    for quad in rejected:
        quad = quad.reshape(4, 2).astype(float)
        read = _marker_in_quad(grey, quad, cfg)
        if read is not None:
            marker, turns = read
            # ArUco's outline of a rejected candidate is whole pixels: refined as it
            # refines its own (a few markers' corners may have to carry the board)
            win = int(np.clip(round(_mean_side(quad) / 8), 1, 5))
            quad = cv2.cornerSubPix(grey, quad.astype(np.float32).reshape(-1, 1, 2),
                                    (win, win), (-1, -1), _SUBPIX_STOP).reshape(4, 2)
            # the picture turned by k quarter turns: the marker's own corner j lies at
            # the outline's corner j - k
            out.append((marker, np.roll(quad.astype(float), turns, axis=0)))
    return out


_SUBPIX_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)


def _marker_in_quad(grey: np.ndarray, quad: np.ndarray, cfg: BoardConfig
                    ) -> tuple[int, int] | None:
    """(boardsight marker id, quarter turns of its picture) for a dark quadrilateral
    outlined in ``grey`` (clockwise), or None when it does not read clearly as one."""
    m = _MARKER_MODULE_PX
    n = _MARKER_MODULES + 2
    dst = np.array([[1, 1], [n - 1, 1], [n - 1, n - 1], [1, n - 1]], np.float32) * m - 0.5
    to_out = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    patch = _warp(grey, to_out, (n * m, n * m), _mean_side(quad) / (_MARKER_MODULES * m))
    return _marker_from_modules(patch, cfg)[1]


def _mean_side(quad: np.ndarray) -> float:
    return float(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1).mean())


def _marker_from_modules(patch: np.ndarray, cfg: BoardConfig
                         ) -> tuple[bool, tuple[int, int] | None]:
    """Read a top-down grey cut-out of a marker and one module of quiet zone round it
    (``_MARKER_MODULE_PX`` px a module): its 4 x 4 bits are matched with every boardsight
    marker under every quarter turn.

    Returns (whether it looks like a marker at all: a dark frame in a light quiet zone,
    (marker id, quarter turns of its picture) for a clear read else None)."""
    m = _MARKER_MODULE_PX
    n = _MARKER_MODULES + 2
    q = m // 4
    modules = patch.reshape(n, m, n, m)[:, q:m - q, :, q:m - q].mean(axis=(1, 3))
    ring, border = _marker_rings()
    white, black = float(np.median(modules[ring])), float(np.median(modules[border]))
    if white - black < cfg.marker_min_contrast:
        return False, None
    mid = (white + black) / 2
    if (modules[border] < mid).mean() < _MARKER_FRAME_SHARE or \
            (modules[ring] > mid).mean() < _MARKER_FRAME_SHARE:
        return False, None
    bits = np.clip((modules[2:-2, 2:-2] - mid) / ((white - black) / 2), -1, 1).ravel()
    corr = _marker_patterns(_boardsight_marker_count()) @ bits / bits.size  # (ids, turns)
    best = np.unravel_index(np.argmax(corr), corr.shape)
    second = np.partition(corr.ravel(), -2)[-2]
    if corr[best] >= cfg.marker_bits_match and corr[best] - second >= cfg.marker_bits_margin:
        return True, (int(best[0]), int(best[1]))
    return True, None


@lru_cache(maxsize=1)
def _marker_rings() -> tuple[np.ndarray, np.ndarray]:
    """(n, n) bool masks of a marker cut-out's modules: the quiet zone, the black frame."""
    n = _MARKER_MODULES + 2
    ring = np.ones((n, n), bool)
    ring[1:-1, 1:-1] = False
    border = np.zeros((n, n), bool)
    border[1:-1, 1:-1] = True
    border[2:-2, 2:-2] = False
    return ring, border


def _markers_of(markers, game: str, to_full: np.ndarray) -> dict[str, np.ndarray]:
    """{corner: (4, 2) full px} for the markers of ``game`` (first of each id)."""
    out = {}
    for marker, pts in markers:
        decoded = decode_marker_id(marker)
        if decoded and decoded[0] == game and decoded[1] not in out:
            out[decoded[1]] = _apply(to_full, pts)
    return out


def _corner_markers(photo: _Photo, loc: BoardLocation, game: str, cfg: BoardConfig
                    ) -> BoardLocation:
    """A grid found without markers may still be a print-and-play board (``loc`` on its
    geometry): read the markers where its corners would hold them; their ids fix which
    side is up. Only when a corner looks like a marker but reads as none is ArUco asked
    to look around the corners."""
    g = loc.geometry
    if g.marker_mm <= 0:
        return loc
    reads, marker_like = _read_markers(photo, loc.grid_homography, g, cfg)
    if reads:
        return _turned_by_markers(loc, game, g, reads)
    if not marker_like:
        return loc
    return _search_corner_markers(photo, loc, game, g, cfg)


def _corner_of_marker(marker: int, game: str) -> str | None:
    """The board corner a marker id stands for (None: not one of ours). A marker of
    another game means another game's board: BoardNotFound."""
    decoded = decode_marker_id(marker)
    if decoded is not None and decoded[0] != game:
        raise BoardNotFound(f"this looks like a {decoded[0]} board (its markers), not {game}")
    return None if decoded is None else decoded[1]


def _turned_by_markers(loc: BoardLocation, game: str, g: BoardGeometry,
                       reads: list[tuple[int, int, int]]) -> BoardLocation:
    """The location turned as the markers read at its corners say (each read: the corner
    place, the marker id, the quarter turns of its picture); unchanged when they
    disagree. A marker of another game means another game's board."""
    turns = set()
    for place, marker, picture_turns in reads:
        corner = _corner_of_marker(marker, game)
        if corner is None:
            continue
        # the marker of corner i sits at place j when the present top is k = i - j
        # quarter turns off; its picture is then turned by k too
        k = (_CORNER_NAMES.index(corner) - place) % 4
        if k == picture_turns % 4:
            turns.add(k)
    allowed = {0, 1, 2, 3} if g.rows == g.cols else {0, 2}
    if len(turns) != 1 or not turns <= allowed:
        return loc
    k = (-turns.pop()) % 4
    grid_h = _quarter_turn(k, g.rows, g.cols) @ loc.grid_homography
    seen = sorted(decode_marker_id(m)[1] for _, m, _ in reads)
    details = dict(loc.details, markers=seen)
    return BoardLocation.from_grid_homography(
        game, grid_h, g, quality=loc.quality / (0.75 if not loc.orientation_certain else 1),
        method="markers", orientation_certain=True,
        orientation_scores=np.array([1.0, 0, 0, 0]), details=details)


_CORNER_NAMES = ("TL", "TR", "BR", "BL")


def _search_corner_markers(photo: _Photo, loc: BoardLocation, game: str, g: BoardGeometry,
                           cfg: BoardConfig) -> BoardLocation:
    """ArUco's search around each place a marker may sit (each corner, any quarter turn),
    at a resolution that shows them."""
    rows, cols = g.rows, g.cols
    grid_h = loc.grid_homography
    gm = np.linalg.inv(_grid_to_mm(g))
    expected = {c: _apply(gm, g.marker_corners_mm(c)).mean(0) for c in ("TL", "TR", "BR", "BL")}
    turns = [0, 1, 2, 3] if rows == cols else [0, 2]
    # every place a marker may sit: each corner's marker under each turn, in present grid units
    places = []
    for k in turns:
        back = np.linalg.inv(_quarter_turn(k, rows, cols))
        places += [_apply(back, expected[c]) for c in expected]
    places = np.unique(np.round(np.array(places), 3), axis=0)
    seen: dict[str, np.ndarray] = {}
    for centre in places:
        for corner, pts in _markers_around(photo, grid_h, g, centre, 0.45, game, cfg):
            seen.setdefault(corner, pts)
    if not seen:
        return loc
    # the turn that puts every marker seen where its id says it is
    best, best_err = 0, np.inf
    for k in turns:
        h = _quarter_turn(k, rows, cols) @ grid_h
        err = sum(np.linalg.norm(_apply(h, pts).mean(0) - expected[c]) for c, pts in seen.items())
        if err < best_err:
            best, best_err = k, err
    if best_err / len(seen) > 0.5:  # markers are not where this board's would be
        return loc
    grid_h = _quarter_turn(best, rows, cols) @ grid_h
    details = dict(loc.details, markers=sorted(seen))
    return BoardLocation.from_grid_homography(
        game, grid_h, g, quality=loc.quality / (0.75 if not loc.orientation_certain else 1),
        method="markers", orientation_certain=True,
        orientation_scores=np.array([1.0, 0, 0, 0]), details=details)


def _markers_around(photo: _Photo, grid_h: np.ndarray, g: BoardGeometry, centre: np.ndarray,
                    slack: float, game: str, cfg: BoardConfig, zooms: tuple = (1.0,)
                    ) -> list[tuple[str, np.ndarray]]:
    """[(corner, (4, 2) full px)]: ArUco's search in the box of a marker's side and
    ``slack`` cells each way round ``centre`` (grid units of ``grid_h``), at the resolution
    that shows a marker about _MARKER_PX across, then each of ``zooms`` times that until
    one is seen."""
    marker_cells = g.marker_mm / g.cell_mm
    half = marker_cells * 0.5 + slack
    box = _apply(np.linalg.inv(grid_h),
                 centre + np.array([[-half, -half], [half, -half], [half, half], [-half, half]]))
    x0, y0 = np.floor(box.min(0)).astype(int)
    x1, y1 = np.ceil(box.max(0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, photo.image.shape[1]), min(y1, photo.image.shape[0])
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    crop = photo.image[y0:y1, x0:x1]
    if crop.ndim == 3:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    fit = min(_MARKER_MAX_ZOOM,
              _MARKER_PX / (marker_cells * _cell_px_of(grid_h, g.rows, g.cols)))
    for zoom in zooms:
        z = fit * zoom
        img = crop if z == 1.0 else cv2.resize(
            crop, None, fx=z, fy=z, interpolation=cv2.INTER_AREA if z < 1 else cv2.INTER_LINEAR)
        fx, fy = img.shape[1] / (x1 - x0), img.shape[0] / (y1 - y0)
        back = np.array([[1 / fx, 0, x0 + 0.5 / fx - 0.5], [0, 1 / fy, y0 + 0.5 / fy - 0.5],
                         [0, 0, 1.0]])
        out = [(corner, _apply(back, pts)) for marker, pts in _detect_markers(img, cfg, roi=True)
               if (corner := _corner_of_marker(marker, game)) is not None]
        if out:
            return out
    return []


def _missing_markers(photo: _Photo, loc: BoardLocation, game: str,
                     found: dict[str, np.ndarray], cfg: BoardConfig) -> dict[str, np.ndarray]:
    """The markers the whole picture's search missed, looked for where the board found from
    the others puts them (a washed-out or small marker ArUco outlines only up close; from
    markers on one side the far side may be a row or two off, hence the slack), enlarged
    two or three times if need be. Only a marker of the corner looked at counts.

    From one or two markers, a homography of their few close corners may throw the far
    side cells off; a similarity of them (the board seen from above) is asked too."""
    g = loc.geometry
    gm = np.linalg.inv(_grid_to_mm(g))
    guesses = [loc.grid_homography]
    if len(found) < 3:
        src = np.vstack([found[c] for c in found]).astype(np.float32)
        dst = np.vstack([g.marker_corners_mm(c) for c in found]).astype(np.float32)
        mm_to_px, _ = cv2.estimateAffinePartial2D(dst, src)
        if mm_to_px is not None:
            guesses.append(gm @ np.linalg.inv(np.vstack([mm_to_px, [0, 0, 1]])))
    more = {}
    for corner in (c for c in _CORNER_NAMES if c not in found):
        centre = _apply(gm, g.marker_corners_mm(corner)).mean(0)
        for grid_h in guesses:
            pts = next((pts for seen, pts in _markers_around(
                photo, grid_h, g, centre, cfg.marker_search_slack, game, cfg,
                zooms=(1.0, 2.0, 3.0)) if seen == corner), None)
            if pts is not None:
                more[corner] = pts
                break
    return more


def _read_markers(photo: _Photo, grid_h: np.ndarray, g: BoardGeometry, cfg: BoardConfig
                  ) -> tuple[list[tuple[int, int, int]], bool]:
    """Read the print-and-play markers where a found grid puts them, without looking for
    them: each corner of the margin is cut out top-down (marker and quiet zone, by
    modules) and its 4 x 4 bits are matched with every boardsight marker under every
    quarter turn. ArUco's own search needs ~3 px per module; this reads 2.

    Returns ([(corner place 0..3 = TL TR BR BL of the present grid, marker id, quarter
    turns of its picture), ...] for the clear reads, whether any corner looked like a
    marker at all (a dark square in a light quiet zone)).
    """
    m = _MARKER_MODULE_PX
    n = _MARKER_MODULES + 2  # a module of quiet zone all round
    gm = np.linalg.inv(_grid_to_mm(g))
    module_mm = g.marker_mm / _MARKER_MODULES
    cell_px = _cell_px_of(grid_h, g.rows, g.cols)
    shrink = cell_px * module_mm / g.cell_mm / m
    reads, marker_like = [], False
    for place, corner in enumerate(_CORNER_NAMES):
        tl_mm = g.marker_corners_mm(corner)[0] - module_mm
        # output px -> board mm -> grid units -> image px, inverted: image -> output
        out_to_mm = np.array([[module_mm / m, 0, tl_mm[0] + 0.5 * module_mm / m],
                              [0, module_mm / m, tl_mm[1] + 0.5 * module_mm / m], [0, 0, 1.0]])
        to_out = np.linalg.inv(np.linalg.inv(grid_h) @ gm @ out_to_mm)
        patch = _warp(photo.image, to_out, (n * m, n * m), shrink)
        if patch.ndim == 3:
            patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
        looks, read = _marker_from_modules(patch, cfg)
        marker_like |= looks
        if read is not None:
            reads.append((place, *read))
    return reads, marker_like


def _boardsight_marker_count() -> int:
    """How many ArUco ids boardsight prints (ids 0..n-1: a game and a corner each)."""
    return next(i for i in range(_ARUCO_4X4_IDS) if decode_marker_id(i) is None)


_ARUCO_4X4_IDS = 50  # DICT_4X4_50


@lru_cache(maxsize=2)
def _marker_patterns(count: int) -> np.ndarray:
    """(count, 4, 16) the inner 4 x 4 bits (+1 white, -1 black) of markers 0..count-1,
    each turned by 0..3 quarter turns (np.rot90)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    out = np.zeros((count, 4, _MARKER_BITS ** 2))
    for i in range(count):
        img = cv2.aruco.generateImageMarker(dictionary, i, _MARKER_MODULES, borderBits=1)
        inner = np.where(img[1:-1, 1:-1] > 127, 1.0, -1.0)
        for k in range(4):
            out[i, k] = np.rot90(inner, k).ravel()
    return out


_MARKER_BITS = 4  # DICT_4X4: 4 x 4 bits
_MARKER_MODULES = _MARKER_BITS + 2  # with its black frame
_MARKER_MODULE_PX = 8  # px per module of the top-down cut-out
_MARKER_FRAME_SHARE = 0.8  # of frame modules darker (quiet-zone modules lighter) than mid


_MARKER_PX = 36.0  # a marker is looked for at about this many px across (4x4 + border bits)
_MARKER_MAX_ZOOM = 1.0  # never enlarged: ArUco decodes an enlarged blurry marker worse


# ----------------------------------------------------------------------------------------
# which set, which side up


def _sample_lab(image: np.ndarray, full_pts: np.ndarray) -> np.ndarray:
    """(N, 3) float Lab of the image at (N, 2) points (nearest pixel), NaN outside."""
    h, w = image.shape[:2]
    xy = np.rint(full_pts).astype(int)
    inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    px = image[xy[inside, 1], xy[inside, 0]]
    if image.ndim == 2:
        px = np.repeat(px[:, None], 3, 1)
    out = np.full((len(full_pts), 3), np.nan)
    if len(px):
        out[inside] = cv2.cvtColor(px.reshape(-1, 1, 3).astype(np.uint8),
                                   cv2.COLOR_BGR2Lab).reshape(-1, 3)
    return out


_CELL_SAMPLES = np.stack(np.meshgrid(np.linspace(0.3, 0.7, 4), np.linspace(0.3, 0.7, 4)),
                         -1).reshape(-1, 2)  # points inside a cell where its colour is read
_FEW_CELL_SAMPLES = np.stack(np.meshgrid((0.35, 0.65), (0.35, 0.65)), -1).reshape(-1, 2)


def _lab_of_cells(photo: _Photo, grid_h: np.ndarray, rows: int, cols: int,
                  samples: np.ndarray | None = None) -> np.ndarray:
    """(rows, cols, 3) median Lab of the middle of each cell (at ``samples``, (S, 2) in
    cell units; default _CELL_SAMPLES)."""
    ys, xs = np.mgrid[0:rows, 0:cols]
    samples = _CELL_SAMPLES if samples is None else samples
    pts = np.stack([xs, ys], -1)[:, :, None, :] + samples  # (R, C, S, 2)
    lab = _sample_lab(photo.image, _apply(np.linalg.inv(grid_h), pts.reshape(-1, 2)))
    return np.median(lab.reshape(rows, cols, -1, 3), axis=2)  # NaN: off the picture


def _lab_of_border(photo: _Photo, grid_h: np.ndarray, rows: int, cols: int,
                   depth: float = 0.4) -> np.ndarray:
    """(3,) median Lab of the board's border just outside the grid (``depth`` cells out)."""
    t = np.linspace(0.25, 0.75, 5)
    along_c = (np.arange(cols)[:, None] + t).ravel()
    along_r = (np.arange(rows)[:, None] + t).ravel()
    pts = np.concatenate([
        np.stack([along_c, np.full_like(along_c, -depth)], -1),
        np.stack([along_c, np.full_like(along_c, rows + depth)], -1),
        np.stack([np.full_like(along_r, -depth), along_r], -1),
        np.stack([np.full_like(along_r, cols + depth), along_r], -1)])
    lab = _sample_lab(photo.image, _apply(np.linalg.inv(grid_h), pts))
    lab = lab[np.isfinite(lab[:, 0])]
    return np.median(lab, axis=0) if len(lab) else np.full(3, np.nan)


def _choose_profile(photo, grid_h, game, rows, cols, profile) -> BoardProfile | None:
    """The given profile, else the known profile of ``game`` whose border colour matches,
    seen in the light the photo's plain squares show (:func:`_in_light_of`)."""
    if isinstance(profile, BoardProfile):
        return profile
    if isinstance(profile, str):
        return load_profile(profile)
    if profile is False:
        return None
    names = known_profiles(game)
    if not names:
        return None
    border = _lab_of_border(photo, grid_h, rows, cols)
    kinds = _square_kinds(game, rows, cols)
    plain = kinds == "plain" if kinds.shape == (rows, cols) else np.ones((rows, cols), bool)
    squares = _lab_of_cells(photo, grid_h, rows, cols, _FEW_CELL_SAMPLES)[plain]
    squares = np.median(squares[np.isfinite(squares[:, 0])], axis=0) if len(squares) else None
    best, best_d = None, np.inf
    for name in names:
        prof = load_profile(name)
        if "board" not in prof.colours:
            continue
        seen = _in_light_of(border, squares, prof.colours.get("plain"))
        ref = np.array(prof.colours["board"])
        # chroma counts fully, lightness half (exposure varies more than hue)
        d = math.hypot(0.5 * (seen[0] - ref[0]), math.hypot(*(seen[1:] - ref[1:])))
        if d < best_d:
            best, best_d = prof, d
    return best if best_d < _PROFILE_MATCH_DISTANCE else None


def _in_light_of(lab: np.ndarray, squares, ref_squares) -> np.ndarray:
    """(3,) Lab colour ``lab`` as it would look in the light the profile was made in: the
    photo's light taken out by the per-channel gains that turn its plain squares' colour
    (``squares``) into the profile's (``ref_squares``, both Lab), a white balance and
    exposure as a phone applies them. Unchanged when either is unknown or the gains are
    no light's (a colour cast beyond ``_LIGHT_SPREAD``: other squares, not other light).

    >>> plain, border = np.array([225.0, 118, 116]), np.array([112.0, 134, 81])
    >>> def lit(lab, gains):  # the colour seen in light of these BGR gains
    ...     bgr = cv2.cvtColor(np.uint8([[lab]]), cv2.COLOR_Lab2BGR)[0, 0] * np.array(gains)
    ...     return cv2.cvtColor(np.uint8([[np.clip(bgr, 0, 255)]]), cv2.COLOR_BGR2Lab)[0, 0]
    >>> warm = (0.45, 0.6, 0.75)   # dim and warm
    >>> float(np.abs(lit(border, warm).astype(float) - border).max()) > 30
    True
    >>> seen = _in_light_of(lit(border, warm).astype(float), lit(plain, warm).astype(float), plain)
    >>> float(np.abs(seen - border).max()) < 6
    True
    """
    if squares is None or ref_squares is None or not np.all(np.isfinite(lab)):
        return lab
    bgr = lambda c: cv2.cvtColor(np.uint8([[np.clip(np.rint(c), 0, 255)]]),  # noqa: E731
                                 cv2.COLOR_Lab2BGR)[0, 0].astype(float)
    gains = bgr(ref_squares) / np.maximum(bgr(squares), 1.0)
    if gains.max() > _LIGHT_SPREAD * gains.min():
        return lab
    seen = np.clip(bgr(lab) * gains, 0, 255)
    return cv2.cvtColor(np.uint8([[np.rint(seen)]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)


_LIGHT_SPREAD = 2.2  # the most one channel's gain exceeds another's in the visual contract's
                     # light (2700 K, the phone removing 30 % of the cast: ~1.9)
_PROFILE_MATCH_DISTANCE = 30.0  # Lab units: a board border this close in colour is that set


def _orientation(photo, grid_h, game, geometry, prof, cfg) -> tuple[int, np.ndarray, bool]:
    """(quarter turns to apply, scores of the 4 turns, certain?) from the board's features."""
    rows, cols = geometry.rows, geometry.cols
    turns = [0, 1, 2, 3] if rows == cols else [0, 2]
    cues = []  # (scores of the four turns, the margin that makes them sure, and the
    #            margin at which they put another cue's sure answer in doubt)
    if prof is not None and prof.thumbnail is not None:
        cues.append((_thumbnail_scores(photo, grid_h, geometry, prof, turns),
                     cfg.orientation_margin, cfg.orientation_dissent))
    # the printed numbers too, however clear the border: a look-alike set's border art
    # can match the profile's a quarter turn off
    if fixed_numbers(game) and rows == cols:
        numerals = _centre_numeral_scores(photo, grid_h, game, rows, cols, cfg)
        if numerals is not None and numerals.max() >= cfg.numeral_legible:
            cues.append((numerals, cfg.numeral_margin, cfg.numeral_margin))
    if not cues:
        # nothing tells: keep the board as upright in the photo as possible
        up = np.zeros(4)
        for k in turns:
            h = _quarter_turn(k, rows, cols) @ grid_h
            c = _apply(np.linalg.inv(h), np.array([[0, 0], [cols, 0]], float))
            d = c[1] - c[0]
            up[k] = d[0] / (np.hypot(*d) + 1e-9)  # 1 when the top edge runs left to right
        best = int(np.argmax(up))
        return best, np.roll(up, -best), False
    return _verdict(cues, turns)


def _verdict(cues: list[tuple[np.ndarray, float, float]], turns: list[int]
             ) -> tuple[int, np.ndarray, bool]:
    """Each cue's own verdict and margin; the clearest cue (by its margin over the margin
    that makes it sure) decides, and the answer is certain when that cue is sure and no
    other cue leading another turn by its margin of dissent says otherwise."""
    verdicts = []
    for sc, sure, dissent in cues:
        sc = np.where([k in turns for k in range(4)], sc, -np.inf)
        order = np.argsort(-sc)
        margin = float(sc[order[0]] - sc[order[1]])
        verdicts.append((margin / sure, int(order[0]), sc, margin >= dissent))
    verdicts.sort(key=lambda v: -v[0])
    lead, best, scores, _ = verdicts[0]
    certain = lead >= 1.0 and all(v[1] == best for v in verdicts if v[3])
    return best, np.roll(np.where(np.isfinite(scores), scores, -1.0), -best), certain


def _centre_numeral_scores(photo, grid_h, game, rows, cols, cfg) -> np.ndarray | None:
    """Score of each quarter turn by the numbers printed on the board (Mixmath's centre
    1 2 3 4): the mean log-probability, over the printed squares, that the square shows
    its own number upright rather than another of them or one turned (a template match
    against the numerals of many faces). None when no square shows a numeral."""
    fixed = fixed_numbers(game)
    templates = _numeral_templates(tuple(sorted(set(fixed.values()))))
    digits = sorted(templates)
    r0, c0 = min(r for r, _ in fixed), min(c for _, c in fixed)
    r1, c1 = max(r for r, _ in fixed) + 1, max(c for _, c in fixed) + 1
    p = cfg.numeral_px_per_cell
    to_rect = np.array([[p, 0, -p * c0 - 0.5], [0, p, -p * r0 - 0.5], [0, 0, 1.0]])
    rect = _warp(photo.image, to_rect @ grid_h, ((c1 - c0) * p, (r1 - r0) * p),
                 _cell_px_of(grid_h, rows, cols) / p)
    # each printed square's match, turned by 0..3 quarter turns, with each number
    sims = {}
    for r, c in fixed:
        cell = rect[(r - r0) * p:(r - r0 + 1) * p, (c - c0) * p:(c - c0 + 1) * p]
        sims[r, c] = _numeral_similarities(cell, templates, digits, cfg)
    if all(v is None for v in sims.values()):
        return None
    scores = np.zeros(4)
    for k in range(4):
        # the board turned by k: the square now at (r, c) is the one at ``back`` now, its
        # numeral turned by k quarter turns counter-clockwise
        to_old = np.linalg.inv(_quarter_turn(k, rows, cols))
        for (r, c), number in fixed.items():
            old = _apply(to_old, np.array([c + 0.5, r + 0.5]))
            found = sims.get((int(math.floor(old[1])), int(math.floor(old[0]))))
            if found is None:
                continue
            z = (found - found.max()) / cfg.numeral_temperature  # (turns, numbers)
            scores[k] += z[k, digits.index(number)] - math.log(np.exp(z).sum())
    return scores / len(fixed)


def _numeral_similarities(cell: np.ndarray, templates: dict, digits: list[int],
                          cfg: BoardConfig) -> np.ndarray | None:
    """(4, len(digits)) best correlation of the square's numeral, turned by 0..3 quarter
    turns (np.rot90), with each number's templates; None when it shows no numeral."""
    m = int(round(cfg.numeral_inset * cell.shape[0]))
    inner = _principal_grey(cell[m:cell.shape[0] - m, m:cell.shape[1] - m])
    ink = _numeral_ink(inner)
    if ink is None:
        return None
    out = np.zeros((4, len(digits)))
    for turn in range(4):
        v = _glyph_vector(np.rot90(ink[0], turn), np.rot90(ink[1], turn))
        if v is None:
            return None
        out[turn] = [float((templates[d] @ v).max()) for d in digits]
    return out


def _principal_grey(bgr: np.ndarray) -> np.ndarray:
    """uint8 projection of a colour patch on its axis of most variance: a numeral printed
    in another hue but about the same lightness as its square still stands out."""
    if bgr.ndim == 2:
        return bgr
    x = bgr.reshape(-1, 3).astype(np.float32)
    x -= x.mean(0)
    _, vecs = np.linalg.eigh(x.T @ x)
    proj = x @ vecs[:, -1]
    lo, hi = np.percentile(proj, (1, 99))
    out = (proj - lo) * (255.0 / max(float(hi - lo), 1e-6))
    return np.clip(out, 0, 255).astype(np.uint8).reshape(bgr.shape[:2])


def _numeral_ink(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(soft ink 0..1, hard ink mask) of the numeral in a square's middle: the smaller
    class Otsu splits it into (whether printed darker or lighter), less what touches the
    patch's edge (a neighbour's edge, a shadow). None when there is no such class."""
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    _, hard = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    if hard.mean() > 0.5:
        hard = 1 - hard
    if not _NUMERAL_SHARE[0] <= hard.mean() <= _NUMERAL_SHARE[1]:
        return None
    ink_level = float(np.median(grey[hard > 0]))
    paper = float(np.median(grey[hard == 0]))
    soft = np.clip((grey.astype(np.float32) - paper) / (ink_level - paper), 0, 1)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(hard, connectivity=8)
    x, y, w, h = (stats[:, i] for i in range(4))
    keep = (x > 0) & (y > 0) & (x + w < hard.shape[1]) & (y + h < hard.shape[0])
    keep[0] = False
    mask = keep[labels]
    if mask.sum() < _MIN_INK_PX:
        return None
    near = cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
    return soft * near, mask


def _glyph_vector(soft: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """A glyph as a unit vector: its ink's bounding box scaled to fit a fixed square
    (keeping its shape), centred, slightly blurred, less its mean."""
    ys, xs = np.nonzero(mask)
    if len(ys) < _MIN_INK_PX:
        return None
    crop = np.ascontiguousarray(soft[ys.min():ys.max() + 1, xs.min():xs.max() + 1],
                                dtype=np.float32)
    t = _GLYPH_PX
    f = (t - 2) / max(crop.shape)
    nh, nw = max(1, round(crop.shape[0] * f)), max(1, round(crop.shape[1] * f))
    out = np.zeros((t, t), np.float32)
    oy, ox = (t - nh) // 2, (t - nw) // 2
    out[oy:oy + nh, ox:ox + nw] = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
    v = cv2.GaussianBlur(out, (3, 3), 0.8).ravel()
    v = v - v.mean()
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else None


@lru_cache(maxsize=4)
def _numeral_templates(numbers: tuple[int, ...]) -> dict[int, np.ndarray]:
    """{number: (faces, GLYPH_PX**2) unit vectors} of each number drawn in every training
    face (the held-out faces are kept for judging: a board's own face is never known)."""
    from PIL import Image, ImageDraw, ImageFont

    from calibration.fonts import font_split

    size = 4 * _GLYPH_PX
    out = {}
    for number in numbers:
        vecs = []
        for path in font_split()[0]:
            font = ImageFont.truetype(str(path), size)
            im = Image.new("L", (2 * size, 2 * size), 0)
            ImageDraw.Draw(im).text((size, size), str(number), font=font, fill=255, anchor="mm")
            a = np.asarray(im, np.float32) / 255
            v = _glyph_vector(a, a > 0.5)
            if v is not None:
                vecs.append(v)
        out[number] = np.array(vecs)
    return out


_GLYPH_PX = 16  # side of the square a glyph is compared in (a numeral at 1080p is ~12 px)
_MIN_INK_PX = 3  # fewer ink pixels than this: no numeral
_NUMERAL_SHARE = (0.02, 0.45)  # share of a square's middle a numeral's ink covers


def _thumbnail_scores(photo, grid_h, geometry, prof, turns) -> np.ndarray:
    """Normalised correlation of the board, seen from above, with the profile's picture of
    its empty board, for each quarter turn (tiles on the board lower all four alike)."""
    thumb = prof.thumbnail.astype(np.float32)
    s = prof.thumbnail_px_per_cell / geometry.cell_mm
    th, tw = thumb.shape
    to_thumb = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1.0]])
    scale = photo.scale
    grey = photo.work_grey
    level_h = grid_h @ np.linalg.inv(photo.to_level(scale))
    valid_src = np.full(grey.shape, 255, np.uint8)
    # only the border counts: the grid looks alike under every turn, and tiles cover it
    border = np.ones((th, tw), bool)
    (gx0, gy0), (gx1, gy1) = (np.array(geometry.grid_origin_mm) * s,
                              (np.array(geometry.grid_origin_mm) + geometry.grid_size_mm) * s)
    pad = 0.3 * prof.thumbnail_px_per_cell
    border[int(gy0 - pad):int(np.ceil(gy1 + pad)), int(gx0 - pad):int(np.ceil(gx1 + pad))] = False
    scores = np.full(4, -1.0)
    rows, cols = geometry.rows, geometry.cols
    for k in turns:
        h = to_thumb @ _grid_to_mm(geometry) @ _quarter_turn(k, rows, cols) @ level_h
        shrink = _cell_px_of(grid_h, rows, cols) * scale / prof.thumbnail_px_per_cell
        view = _warp(grey, h, (tw, th), shrink).astype(np.float32)
        valid = cv2.warpPerspective(valid_src, h, (tw, th), flags=cv2.INTER_NEAREST) > 0
        valid &= border
        if valid.sum() < 0.3 * border.sum():
            continue
        a, b = view[valid], thumb[valid]
        a, b = a - a.mean(), b - b.mean()
        scores[k] = float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6))
    return scores
