"""Learn an own set: its board profile from a photo of the empty board, and its tiles
(colour and font) from a photo of the tile set laid out on it (:func:`calibrate_set`,
``boardsight calibrate``).

:func:`measure_profile` finds the grid (as :func:`vision.board.find_board` does, with no
profile), then measures what :class:`calibration.profiles.BoardProfile` holds: the board's
border beyond the grid (its outline against the table), how much of a cell a printed
square fills, the Lab colour of each kind of square and of the border, and a small grey
picture of the whole empty board the right way up. The photo should show the board the
right way up or nearly (a Mixmath board's centre 1 2 3 4 settles it anyway), flat, whole,
on a table of another colour.

The tile-set photo shows one tile of each value laid out in ascending order, row by row
from the top left (:func:`vision.tiles.tile_set_values`), on the same board: the tiles'
colour goes into the profile (``colours["tile"]``, in the reader's balanced Lab) and their
glyphs, cut as the reader cuts them, into ``NAME.glyphs.npz`` beside it
(:func:`save_set`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.layouts import KINDS, square_kinds
from calibration.profiles import BoardProfile, glyphs_file, save_profile

from . import digits, tiles
from .board import BoardNotFound, _warp, find_board, rectify_grid
from .config import BoardConfig

THUMBNAIL_PX_PER_CELL = 3.0
"""px per cell of the profile's picture of the empty board: the margins' artwork (a logo,
a score track) and the squares' colours show; a few kB of JSON."""
_OUTLINE_SEARCH_CELLS = 5.0   # how far beyond the grid the board's edge is looked for
_RECT_PX = 16                 # px per cell of the views measured on
_EDGE_SHARE = 0.5             # a change of colour this share of the strongest may be the edge


def measure_profile(image_bgr: np.ndarray, game: str, *, name: str = "own",
                    config: BoardConfig | None = None) -> dict:
    """A board profile (the JSON dict of :class:`BoardProfile`) measured from a photo of
    the empty board.

    Parameters
    ----------
    image_bgr : (H, W, 3) uint8 ndarray
        The empty board, whole, the right way up (or nearly), on a contrasting table.
    game : str
    name : str
        The profile's name (its file name in ``calibration/profiles``).

    Raises
    ------
    BoardNotFound
        When no grid of ``game`` shows.
    """
    loc = find_board(image_bgr, game, config=config, profile=False)
    g = loc.geometry
    rows, cols = g.rows, g.cols
    grid_h = loc.grid_homography
    p = _RECT_PX
    out_cells = _OUTLINE_SEARCH_CELLS
    # the grid and a wide band around it, from above, in grid units (0.. cols, 0.. rows)
    m = int(np.ceil(out_cells))
    to_rect = np.array([[p, 0, p * m - 0.5], [0, p, p * m - 0.5], [0, 0, 1.0]])
    size = ((cols + 2 * m) * p, (rows + 2 * m) * p)
    view = _warp(image_bgr, to_rect @ grid_h, size, loc.cell_px() / p)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2Lab).astype(np.float32)
    margins = _margins(lab, rows, cols, p, m)
    grid_lab = lab[m * p:(m + rows) * p, m * p:(m + cols) * p]
    kinds = square_kinds(game, rows, cols)
    cells = grid_lab.reshape(rows, p, cols, p, 3)
    inner = cells[:, p // 4:-p // 4, :, p // 4:-p // 4].transpose(0, 2, 1, 3, 4)
    inner = inner.reshape(rows, cols, -1, 3)
    colours = {}
    for kind in KINDS:
        sel = kinds == kind
        if sel.any():
            colours[kind] = tuple(np.median(inner[sel].reshape(-1, 3), axis=0))
    # the border: a ring half a cell to one cell outside the grid
    ring = np.concatenate([lab[(m - 1) * p:m * p - p // 2, m * p:(m + cols) * p].reshape(-1, 3),
                           lab[(m + rows) * p + p // 2:(m + rows + 1) * p,
                               m * p:(m + cols) * p].reshape(-1, 3)])
    colours["board"] = tuple(np.median(ring, axis=0))
    fill = _square_fill(grid_lab[..., 0], kinds == "plain", p)
    profile = BoardProfile(name=name, game=game, margins_cells=margins, cell_mm=g.cell_mm,
                           square_fill=fill, colours=colours, source="vision.calibrate")
    thumb_loc = type(loc).from_grid_homography(game, grid_h, profile.geometry(rows, cols))
    thumb = _thumbnail(image_bgr, thumb_loc)
    return BoardProfile(name=name, game=game, margins_cells=margins, cell_mm=g.cell_mm,
                        square_fill=fill, colours=colours, thumbnail=thumb,
                        thumbnail_px_per_cell=THUMBNAIL_PX_PER_CELL,
                        source=f"measured by vision.calibrate.measure_profile "
                               f"(grid residual {loc.details.get('residual_cells', 0):.3f} "
                               f"cells)").to_dict()


def _margins(lab: np.ndarray, rows: int, cols: int, p: int, m: int
             ) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) cells from the grid's outer lines to the board's edge:
    the outermost strong change of colour (median along the side) beyond the grid."""
    out = []
    sides = {
        "left": lab[m * p:(m + rows) * p, :m * p][:, ::-1],              # outward = +index
        "top": lab[:m * p, m * p:(m + cols) * p][::-1].transpose(1, 0, 2),
        "right": lab[m * p:(m + rows) * p, (m + cols) * p:],
        "bottom": lab[(m + rows) * p:, m * p:(m + cols) * p].transpose(1, 0, 2),
    }
    for side in ("left", "top", "right", "bottom"):
        band = sides[side]  # (along the side, outward distance px, 3)
        profile = np.median(band, axis=0)  # (outward, 3)
        smooth = cv2.GaussianBlur(profile[None], (1, 5), 0, sigmaY=0)[0] \
            if profile.shape[0] > 5 else profile
        step = np.linalg.norm(np.diff(smooth, axis=0), axis=1)
        step[: p // 4] = 0  # the grid's own outer line
        # the outermost strong change: art in the border (a logo, a score track) lies inside
        strong = np.flatnonzero(step >= _EDGE_SHARE * step.max())
        edge = int(strong[-1]) + 1
        out.append(round(edge / p, 3))
    return tuple(out)


def _square_fill(lightness: np.ndarray, plain: np.ndarray, p: int) -> float:
    """Side of a plain printed square over the pitch: the share of the median profile
    across plain cells that is nearer the square's lightness than the gap's."""
    rows, cols = plain.shape
    cells = lightness.reshape(rows, p, cols, p).transpose(0, 2, 1, 3)[plain]  # (n, p, p)
    if not len(cells):
        return 1.0
    prof = np.median(np.concatenate([cells.mean(1), cells.mean(2)]), axis=0)  # (p,)
    hi, lo = prof[p // 2 - 2:p // 2 + 2].mean(), min(prof[0], prof[-1])
    if hi - lo < 10:
        return 1.0  # no visible gaps: thin printed lines
    return float(np.count_nonzero(prof > (hi + lo) / 2) / p)


def _thumbnail(image_bgr: np.ndarray, loc) -> np.ndarray:
    """(h, w) uint8 grey picture of the whole board at THUMBNAIL_PX_PER_CELL."""
    g = loc.geometry
    s = THUMBNAIL_PX_PER_CELL / g.cell_mm
    w, h = g.size_mm
    to_out = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1.0]]) @ loc.homography
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    return _warp(grey, to_out, (int(round(w * s)), int(round(h * s))),
                 loc.cell_px() / THUMBNAIL_PX_PER_CELL)


__all__ = ["measure_profile", "THUMBNAIL_PX_PER_CELL", "BoardNotFound"]


def calibrate_set(game: str, empty_bgr: np.ndarray, tiles_bgr: np.ndarray | None = None, *,
                  name: str = "own", config: BoardConfig | None = None
                  ) -> tuple[BoardProfile, digits.GlyphSamples | None]:
    """An own set learned from its calibration photos: the profile (from the empty board,
    plus the tiles' colour) and the glyph samples of its tiles (None without a tile-set
    photo).

    Raises
    ------
    BoardNotFound
        A photo shows no board of ``game`` (or, for the tile set, not this board).
    ValueError
        The tile-set photo does not show the set laid out in ascending order.
    """
    profile = BoardProfile.from_dict(measure_profile(empty_bgr, game, name=name,
                                                     config=config))
    if tiles_bgr is None:
        return profile, None
    loc = find_board(tiles_bgr, game, config=config, profile=profile)
    g = loc.geometry
    grid = rectify_grid(tiles_bgr, loc, _TILES_PX)
    samples = tiles.learn_set_glyphs(grid, game, shape=(g.rows, g.cols))
    look = tiles.learn_look(grid, game, shape=(g.rows, g.cols))
    if look.tile_lab is not None:
        profile = replace(profile, colours={**profile.colours, "tile": look.tile_lab})
    return profile, samples


_TILES_PX = 64   # px per cell the tiles are cut at (as vision.reader reads them)


def save_set(profile: BoardProfile, samples: digits.GlyphSamples | None,
             folder: str | Path) -> list[Path]:
    """Write ``NAME.json`` (and ``NAME.glyphs.npz``) into ``folder``; returns the paths."""
    path = Path(folder) / f"{profile.name}.json"
    paths = []
    if samples is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        paths.append(samples.save(glyphs_file(path)))
    return [save_profile(profile, path)] + paths
