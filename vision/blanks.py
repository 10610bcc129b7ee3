"""Blank tiles: a tile with no ink on it — a Mixmath blank, a Calculissimo joker without a
printed star. Ink does not find them; only the tile itself does (its face unlike the
square under it).

:func:`find_blanks` is called by :func:`vision.tiles.read_grid` with what it has worked
out of the grid: cell statistics, the board's colours, the square kinds and groups, and
the cells with ink (``cand``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .tiles import CellStats, Squares


@dataclass(frozen=True)
class BlanksConfig:
    """Tunables of the blank finder (colour distances in the reader's balanced Lab)."""

    match: float = 12.0            # an ink-less face this near the tiles' ...
    square_sep: float = 28.0       # ... and this far from its square's is a blank
    max_contrast: float = 18.0     # ... showing no more ink than this


def find_blanks(grid_bgr: np.ndarray, stats: CellStats, colours: Squares, kinds: np.ndarray,
                groups: np.ndarray, cand: np.ndarray,
                config: BlanksConfig | None = None) -> np.ndarray:
    """(rows, cols) bool: cells holding a blank tile.

    Parameters
    ----------
    grid_bgr : (rows*p, cols*p, 3) uint8, the rectified grid
    stats : the cells' statistics (:func:`vision.tiles.cell_stats`, evened)
    colours : the board's colours as this photo shows them
    kinds, groups : (rows, cols) the layout's square kinds and colour groups
    cand : (rows, cols) bool, cells with tile-like ink

    A blank: no ink, the tiles' colour, far from its square's — only with a calibrated
    tile colour (a profile): glare on an empty square looks too much like a blank
    otherwise.
    """
    cfg = config or BlanksConfig()
    if colours.tile is None or not colours.tile_calibrated:
        return np.zeros_like(cand)
    return (~cand & (colours.d_square > cfg.square_sep) & (colours.d_tile < cfg.match)
            & (stats.contrast < cfg.max_contrast))
