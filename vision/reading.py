"""`BoardReading`: what vision read on a board — the one type that leaves ``vision/``.

Its :meth:`BoardReading.to_json` is the ``boardsight read --json`` contract of
``ARCHITECTURE.md``: ``game rows cols cells confidence corners ms``, plus ``occluded``
(cells a hand or arm hides) and ``stage_ms`` (time per stage of the reader).

>>> r = BoardReading("mixmath", 1, 2, [[None, 12]], np.array([[0.99, 0.875]]),
...                  np.array([[0, 0], [20, 0], [20, 10], [0, 10]], float), ms=3.14159)
>>> r.to_json()["cells"], r.to_json()["confidence"], r.to_json()["ms"]
([[None, 12]], [[0.99, 0.875]], 3.1)
>>> r.value(0, 1), r.is_empty(0, 0), r.unsure(0.9)
(12, True, [(0, 1)])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

UNSURE_BELOW = 0.9
"""A cell read with less confidence than this is shown to the players: "check this cell"."""

CellValue = int | str | None
"""A Mixmath number, a Calculissimo token ("0".."9", "+", "-", "x", "/", "?"), or None."""


@dataclass
class BoardReading:
    """Every cell of one photographed board, with how sure vision is of each.

    Attributes
    ----------
    game : str
    rows, cols : int
    cells : list of list
        ``rows`` lists of ``cols`` values, row 0 at the top as the board is oriented;
        None = empty (also a printed centre number with no tile on it, and an occluded cell).
    confidence : (rows, cols) float ndarray
        0..1 per cell; for an empty cell how sure it is empty.
    corners : (4, 2) float ndarray
        The board's corners in the photo (x, y): TL, TR, BR, BL as the board is oriented.
    occluded : list of (row, col)
        Cells a hand, arm or other object hides: not read, never reported as tiles.
    grid_corners : (4, 2) float ndarray or None
        The playing grid's corners in the photo, same order (for an own set whose border
        is not known, the grid is what was measured; ``corners`` extends it).
    ms : float
        Total reading time in milliseconds.
    stage_ms : dict of str to float
        Time of each stage ("find", "rectify", "cells", ...).
    """

    game: str
    rows: int
    cols: int
    cells: list[list[CellValue]]
    confidence: np.ndarray
    corners: np.ndarray
    occluded: list[tuple[int, int]] = field(default_factory=list)
    grid_corners: np.ndarray | None = None
    ms: float = 0.0
    stage_ms: dict[str, float] = field(default_factory=dict)

    def __post_init__(self):
        self.confidence = np.asarray(self.confidence, dtype=float).reshape(self.rows, self.cols)
        self.corners = np.asarray(self.corners, dtype=float).reshape(4, 2)
        if self.grid_corners is not None:
            self.grid_corners = np.asarray(self.grid_corners, dtype=float).reshape(4, 2)
        if len(self.cells) != self.rows or any(len(row) != self.cols for row in self.cells):
            raise ValueError(f"cells must be {self.rows} rows of {self.cols} values")

    def value(self, row: int, col: int) -> CellValue:
        """The value read on a cell (None = empty)."""
        return self.cells[row][col]

    def is_empty(self, row: int, col: int) -> bool:
        return self.cells[row][col] is None

    def is_occluded(self) -> bool:
        """True when something (a hand) hides part of the board: do not trust this frame."""
        return bool(self.occluded)

    def is_doubtful(self) -> bool:
        """True when every cell the photo shows is unsure: the photo is too poor to read
        (smeared by motion, dim, its ink too small): take it again."""
        shown = np.ones((self.rows, self.cols), bool)
        for r, c in self.occluded:
            shown[r, c] = False
        return bool(shown.any() and (self.confidence[shown] < UNSURE_BELOW).all())

    def unsure(self, threshold: float = UNSURE_BELOW) -> list[tuple[int, int]]:
        """Cells read with a confidence below ``threshold`` ("check this cell")."""
        return [(int(r), int(c)) for r, c in np.argwhere(self.confidence < threshold)]

    def to_json(self) -> dict[str, Any]:
        """The ``boardsight read --json`` object (plain Python types, JSON-ready)."""
        return {
            "game": self.game,
            "rows": int(self.rows),
            "cols": int(self.cols),
            "cells": [[_plain(v) for v in row] for row in self.cells],
            "confidence": [[round(float(c), 3) for c in row] for row in self.confidence],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "ms": round(float(self.ms), 1),
            "occluded": [[int(r), int(c)] for r, c in self.occluded],
            "stage_ms": {k: round(float(v), 1) for k, v in self.stage_ms.items()},
        }

    def dumps(self) -> str:
        """:meth:`to_json` as a JSON string."""
        return json.dumps(self.to_json())


def _plain(value: CellValue) -> CellValue:
    """numpy scalars -> Python ints/strs, so json.dumps accepts every cell."""
    if value is None or isinstance(value, str):
        return value
    return int(value)
