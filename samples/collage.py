"""Real tiles laid anew: a late game of a real set, cut and pasted from its real photos.

The real photos of a set (``../shared/real/mathable``) hold few tiles, all near the
centre: the first 19 placements of a game and the 46 tiles of the calibration shot. The
product will meet late games: dense boards whose tiles hide the grid, tiles on the edge
rows and on every premium and sign square. :func:`collage` lays the real tiles, cut from
the photos where the board finder put them, cell for cell onto a real photo of the empty
board, in a cluster grown from the centre as a game grows (:func:`grow_layout`); the
truth is the tiles' values. :func:`samples.reshoot.reshoot` then shows the result from
other poses and in other light.

What it cannot do: each tile keeps the light and the offset in its square it had where it
was photographed, and its cut is the square's outline (the white seam around a tile is
its old square's). The photos it is made from must share their pose closely enough for
that: the real ones were taken with the camera never moving.

>>> import numpy as np
>>> from calibration.geometry import BoardGeometry
>>> g = BoardGeometry("mixmath", rows=2, cols=2, cell_mm=10.0, margins_mm=(0, 0, 0, 0))
>>> to_board = np.diag([0.5, 0.5, 1.0])                 # 2 px a mm: a cell is 20 px
>>> empty = np.zeros((40, 40, 3), np.uint8)
>>> tiles = np.zeros((40, 40, 3), np.uint8); tiles[20:, :20] = 200   # a tile at (1, 0)
>>> source = Source(tiles, to_board, {(1, 0): 7})
>>> out = collage(empty, to_board, g, {(0, 1): (source, (1, 0))})
>>> int(out[10, 30, 0]), int(out[30, 10, 0]), int(out[10, 10, 0])
(200, 0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry

Cell = tuple[int, int]


@dataclass(frozen=True)
class Source:
    """A photo to cut tiles from: the picture, its homography from pixels to the board's
    mm (a located board's), and the tiles on it by cell (row, col) -> value."""

    image: np.ndarray
    to_board: np.ndarray
    tiles: dict[Cell, int]

    @classmethod
    def of_cells(cls, image: np.ndarray, to_board: np.ndarray, cells: list[list]) -> Source:
        """The photo with its tiles given in the ``boardsight read`` shape (None: empty)."""
        return cls(image, to_board, {(r, c): v for r, row in enumerate(cells)
                                     for c, v in enumerate(row) if v is not None})


def collage(empty: np.ndarray, to_board: np.ndarray, geometry: BoardGeometry,
            layout: dict[Cell, tuple[Source, Cell]], feather_px: float = 1.5) -> np.ndarray:
    """The photo ``empty`` (BGR uint8; ``to_board`` its pixels -> the board's mm) with, on
    each cell of ``layout``, the square of that (source, cell) moved there: the source
    photo mapped through the board plane, shifted by whole cells."""
    out = empty.copy()
    to_px = np.linalg.inv(to_board)
    for (row, col), (source, (r0, c0)) in layout.items():
        x0, y0, x1, y1 = geometry.cell_box(row, col)
        square = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
        corners = cv2.perspectiveTransform(square[None], to_px)[0]
        bx0, by0 = np.floor(corners.min(0)).astype(int) - 2
        bx1, by1 = np.ceil(corners.max(0)).astype(int) + 3
        bx0, by0 = max(bx0, 0), max(by0, 0)
        bx1, by1 = min(bx1, out.shape[1]), min(by1, out.shape[0])
        if bx1 <= bx0 or by1 <= by0:
            continue
        size = (bx1 - bx0, by1 - by0)
        shift = np.array([[1, 0, (c0 - col) * geometry.cell_mm],
                          [0, 1, (r0 - row) * geometry.cell_mm], [0, 0, 1.0]])
        box = np.array([[1, 0, bx0], [0, 1, by0], [0, 0, 1.0]])
        # box px -> empty photo px -> mm -> the source's cell -> source px
        to_source = np.linalg.inv(source.to_board) @ shift @ to_board @ box
        patch = cv2.warpPerspective(source.image, to_source, size,
                                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
        mask = np.zeros(size[::-1], np.float32)
        cv2.fillConvexPoly(mask, np.round((corners - [bx0, by0]) * 16).astype(np.int32),
                           1.0, cv2.LINE_AA, 4)
        if feather_px > 0:
            mask = cv2.GaussianBlur(mask, (0, 0), feather_px)
        region = out[by0:by1, bx0:bx1].astype(np.float32)
        mask = mask[..., None]
        out[by0:by1, bx0:bx1] = np.round(region + (patch - region) * mask).astype(np.uint8)
    return out


def grow_layout(rng: np.random.Generator, geometry: BoardGeometry, n: int,
                sources: list[Source], counts: dict) -> dict[Cell, tuple[Source, Cell]]:
    """``n`` cells in one cluster grown out from the board's four centre squares (which
    hold Mixmath's fixed numbers and stay uncovered), a tile at a time next to those
    laid (as a game grows); their values drawn from the set's bag (``counts``:
    value -> tiles of it in the set, as :func:`calibration.layouts.tile_counts`; values
    no source shows are left in the bag), each shown by a source's tile of that value."""
    shown: dict = {}
    for s in sources:
        for cell, value in sorted(s.tiles.items()):
            shown.setdefault(value, []).append((s, cell))
    bag = [v for v, k in sorted(counts.items(), key=lambda vk: str(vk[0])) if v in shown
           for _ in range(k)]
    rows, cols = geometry.rows, geometry.cols
    centre = [(rows // 2 - 1 + i, cols // 2 - 1 + j) for i in (0, 1) for j in (0, 1)]
    taken = list(centre)
    while len(taken) - len(centre) < min(n, rows * cols - len(centre), len(bag)):
        free = sorted({(r + dr, c + dc) for r, c in taken
                       for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                       if 0 <= r + dr < rows and 0 <= c + dc < cols} - set(taken))
        taken.append(free[rng.integers(len(free))])
    laid = taken[len(centre):]
    values = [bag[i] for i in rng.permutation(len(bag))[:len(laid)]]
    return {cell: shown[v][rng.integers(len(shown[v]))] for cell, v in zip(laid, values)}


def truth_of(layout: dict[Cell, tuple[Source, Cell]], geometry: BoardGeometry) -> list[list]:
    """The cells a collage shows (the ``boardsight read`` shape: None = empty)."""
    cells: list[list] = [[None] * geometry.cols for _ in range(geometry.rows)]
    for (row, col), (source, cell) in layout.items():
        cells[row][col] = source.tiles[cell]
    return cells
