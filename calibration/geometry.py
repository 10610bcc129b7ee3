"""Where things are on a board, in millimetres: the contract shared by printing, rendering
and vision.

A board is a rectangle. Its playing area is a grid of ``rows`` x ``cols`` cells of
``cell_mm``; around it lies a margin (different per side where the game needs room, such
as Mastermind's key pegs and code shield). Print-and-play boards carry one ArUco marker
(``cv2.aruco.DICT_4X4_50``) in each corner of the margin; its id tells the game and the
corner, so the camera knows the board and which side is up from any one marker.

Coordinates are (x, y) in mm from the board's top-left corner, x to the right, y down,
with the board oriented as the referee reads it (row 0 at the top).

>>> g = board_geometry("mixmath")
>>> g.rows, g.cols, g.cell_mm
(14, 14, 20.0)
>>> g.cell_box(0, 0)
(18.0, 18.0, 38.0, 38.0)
>>> marker_id("calculissimo", "BR"), decode_marker_id(6)
(6, ('calculissimo', 'BR'))
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from referee.core import GAMES, load_definition

ARUCO_DICTIONARY = "DICT_4X4_50"
CORNERS = ("TL", "TR", "BR", "BL")


def marker_id(game: str, corner: str) -> int:
    """The ArUco id printed in ``corner`` of ``game``'s board: 4 x game index + corner index."""
    return 4 * GAMES.index(game) + CORNERS.index(corner)


def decode_marker_id(marker: int) -> tuple[str, str] | None:
    """(game, corner) for a boardsight marker id, or None for an id that is not ours."""
    game, corner = divmod(int(marker), 4)
    if not 0 <= game < len(GAMES):
        return None
    return GAMES[game], CORNERS[corner]


@dataclass(frozen=True)
class BoardGeometry:
    """A board's layout in mm. Cells are square; margins are (left, top, right, bottom)."""

    game: str
    rows: int
    cols: int
    cell_mm: float = 20.0
    margins_mm: tuple[float, float, float, float] = (18.0, 18.0, 18.0, 18.0)
    marker_mm: float = 12.0  # the black square of a marker, its quiet zone lies in the margin

    @property
    def grid_origin_mm(self) -> tuple[float, float]:
        return self.margins_mm[0], self.margins_mm[1]

    @property
    def grid_size_mm(self) -> tuple[float, float]:
        return self.cols * self.cell_mm, self.rows * self.cell_mm

    @property
    def size_mm(self) -> tuple[float, float]:
        """(width, height) of the whole board."""
        left, top, right, bottom = self.margins_mm
        width, height = self.grid_size_mm
        return left + width + right, top + height + bottom

    def cell_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of a cell in mm."""
        x0, y0 = self.grid_origin_mm
        return (x0 + col * self.cell_mm, y0 + row * self.cell_mm,
                x0 + (col + 1) * self.cell_mm, y0 + (row + 1) * self.cell_mm)

    def cell_centres_mm(self) -> np.ndarray:
        """(rows, cols, 2) array of cell centres (x, y) in mm."""
        x0, y0 = self.grid_origin_mm
        cols = x0 + (np.arange(self.cols) + 0.5) * self.cell_mm
        rows = y0 + (np.arange(self.rows) + 0.5) * self.cell_mm
        xs, ys = np.meshgrid(cols, rows)
        return np.stack([xs, ys], axis=-1)

    def grid_corners_mm(self) -> np.ndarray:
        """(4, 2) corners of the playing grid, TL TR BR BL."""
        x0, y0 = self.grid_origin_mm
        w, h = self.grid_size_mm
        return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], float)

    def board_corners_mm(self) -> np.ndarray:
        """(4, 2) corners of the whole board, TL TR BR BL."""
        w, h = self.size_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], float)

    def marker_corners_mm(self, corner: str) -> np.ndarray:
        """(4, 2) corners of the marker in ``corner`` of the board, in ArUco's order
        (its own TL, TR, BR, BL, drawn upright with the board), centred in the corner
        square of the margin."""
        left, top, right, bottom = self.margins_mm
        w, h = self.size_mm
        centres = {"TL": (left / 2, top / 2), "TR": (w - right / 2, top / 2),
                   "BR": (w - right / 2, h - bottom / 2), "BL": (left / 2, h - bottom / 2)}
        cx, cy = centres[corner]
        s = self.marker_mm / 2
        return np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])

    # -- Mastermind's extra holes (meaningful on a Mastermind board; defined for any)

    def key_hole_centres_mm(self) -> np.ndarray:
        """(rows, 4, 2) centres of the key-peg holes: a 2 x 2 group in the right margin
        beside each row, ordered TL, TR, BL, BR within the group."""
        x_right = self.grid_origin_mm[0] + self.grid_size_mm[0]
        gx = x_right + _KEY_GROUP_X * self.cell_mm
        d = _KEY_SPACING * self.cell_mm / 2
        offsets = np.array([[-d, -d], [d, -d], [-d, d], [d, d]])
        centres = self.cell_centres_mm()[:, -1, :].copy()
        centres[:, 0] = gx
        return centres[:, None, :] + offsets[None, :, :]

    def shield_box_mm(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the code-shield area in the top margin, above the grid."""
        x0, y0 = self.grid_origin_mm
        return (x0, y0 * _SHIELD_TOP, x0 + self.grid_size_mm[0], y0 * _SHIELD_BOTTOM)

    def code_hole_centres_mm(self) -> np.ndarray:
        """(cols, 2) centres of the secret-code holes under the shield, one per column."""
        x0, y0, x1, y1 = self.shield_box_mm()
        xs = self.cell_centres_mm()[0, :, 0]
        return np.stack([xs, np.full_like(xs, (y0 + y1) / 2)], axis=-1)

    def with_cell_mm(self, cell_mm: float) -> BoardGeometry:
        """The same board scaled so that a cell is ``cell_mm`` across (margins scale too)."""
        k = cell_mm / self.cell_mm
        return replace(self, cell_mm=cell_mm, marker_mm=self.marker_mm * k,
                       margins_mm=tuple(m * k for m in self.margins_mm))


# Mastermind's key-peg group: its centre lies this many cells right of the grid, holes this
# many cells apart; the code shield spans these fractions of the top margin.
_KEY_GROUP_X = 0.75
_KEY_SPACING = 0.42
_SHIELD_TOP, _SHIELD_BOTTOM = 0.12, 0.9

# Per-game margins in cells (left, top, right, bottom): room for the corner markers, and
# on Mastermind for the key-peg column (right) and the code shield (top).
_MARGIN_CELLS = {
    "mixmath": (0.9, 0.9, 0.9, 0.9),
    "calculissimo": (0.9, 0.9, 0.9, 0.9),
    "mastermind": (1.0, 2.2, 2.0, 1.0),
    "breakthrough": (0.9, 0.9, 0.9, 0.9),
}
_DEFAULT_CELL_MM = {"mixmath": 20.0, "calculissimo": 18.0, "mastermind": 16.0, "breakthrough": 30.0}


def board_geometry(game: str, rows: int | None = None, cols: int | None = None,
                   cell_mm: float | None = None) -> BoardGeometry:
    """The print-and-play geometry of ``game`` (rows/cols from its definition unless given:
    Breakthrough is any R x C)."""
    definition = load_definition(game)
    rows = rows or definition["rows"]
    cols = cols or definition["cols"]
    cell = cell_mm or _DEFAULT_CELL_MM[game]
    margins = tuple(m * cell for m in _MARGIN_CELLS[game])
    return BoardGeometry(game, rows, cols, cell, margins, marker_mm=0.6 * cell)
