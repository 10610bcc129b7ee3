"""Board profiles: how one physical set looks, as data (``calibration/profiles/NAME.json``).

A profile describes an own set (tier 2, no markers) so that vision can find it, tell which
side is up and know its outline: the board's border around the grid in cells, how much of
a cell a printed square fills, the colours of its kinds of squares, and a small grey
picture of the empty board (seen from above, the right way up) to tell its four quarter
turns apart. ``vision.calibrate.measure_profile`` measures one from a photo of the empty
board; ``boardsight calibrate`` writes it here (or anywhere: a path loads too).

Colours are OpenCV 8-bit Lab triples (L 0..255, a and b offset by 128), medians over the
squares of each kind.

>>> p = load_profile("mathable")
>>> p.game, p.geometry().rows, p.geometry().margins_mm[0] > 30
('mixmath', 14, True)
>>> "mathable" in known_profiles("mixmath"), known_profiles("breakthrough")
(True, [])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .geometry import BoardGeometry, board_geometry

PROFILE_DIR = "profiles"


@dataclass(frozen=True)
class BoardProfile:
    """One physical set. Sizes are in cells (the grid's pitch), so a photo's lack of scale
    does not matter; ``cell_mm`` only sets the unit of the geometry it gives."""

    name: str
    game: str
    margins_cells: tuple[float, float, float, float]  # left, top, right, bottom
    cell_mm: float = 20.0
    square_fill: float = 1.0          # side of a printed square over the pitch (gaps)
    colours: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    thumbnail: np.ndarray | None = field(default=None, compare=False)  # (h, w) uint8
    thumbnail_px_per_cell: float = 0.0
    source: str = ""

    def geometry(self, rows: int | None = None, cols: int | None = None) -> BoardGeometry:
        """The set's board in mm (rows and cols from the game unless given)."""
        base = board_geometry(self.game, rows, cols, cell_mm=self.cell_mm)
        margins = tuple(float(m) * self.cell_mm for m in self.margins_cells)
        return BoardGeometry(self.game, base.rows, base.cols, self.cell_mm, margins,
                             marker_mm=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what :func:`save_profile` writes)."""
        out: dict[str, Any] = {
            "name": self.name, "game": self.game, "source": self.source,
            "cell_mm": self.cell_mm,
            "_cell_mm": "nominal: a photo has no scale, so sizes are measured in cells",
            "margins_cells": [round(float(m), 4) for m in self.margins_cells],
            "_margins_cells": "board border beyond the grid lines: left, top, right, bottom",
            "square_fill": round(float(self.square_fill), 4),
            "colours_lab": {k: [round(float(x), 1) for x in v] for k, v in self.colours.items()},
            "_colours_lab": "OpenCV 8-bit Lab medians per kind of square (plain, premium2, "
                            "premium3, sign, fixed) and of the board's border",
        }
        if self.thumbnail is not None:
            out["thumbnail"] = {"px_per_cell": self.thumbnail_px_per_cell,
                                "grey": self.thumbnail.astype(int).tolist()}
            out["_thumbnail"] = ("the empty board from above, the right way up, whole board "
                                 "with its border; used to tell its quarter turns apart")
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BoardProfile:
        thumb = data.get("thumbnail")
        return cls(
            name=data["name"], game=data["game"],
            margins_cells=tuple(float(m) for m in data["margins_cells"]),
            cell_mm=float(data.get("cell_mm", 20.0)),
            square_fill=float(data.get("square_fill", 1.0)),
            colours={k: tuple(float(x) for x in v)
                     for k, v in data.get("colours_lab", {}).items()},
            thumbnail=np.array(thumb["grey"], np.uint8) if thumb else None,
            thumbnail_px_per_cell=float(thumb["px_per_cell"]) if thumb else 0.0,
            source=data.get("source", ""))


def _profile_files():
    folder = resources.files("calibration").joinpath(PROFILE_DIR)
    return [f for f in folder.iterdir() if f.name.endswith(".json")] if folder.is_dir() else []


def load_profile(name: str) -> BoardProfile:
    """A shipped profile by name (``"mathable"``), or a profile JSON file by path."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return BoardProfile.from_dict(json.loads(path.read_text("utf-8")))
    for f in _profile_files():
        if f.name == f"{name}.json":
            return BoardProfile.from_dict(json.loads(f.read_text("utf-8")))
    known = ", ".join(sorted(f.name[:-5] for f in _profile_files())) or "none"
    raise KeyError(f"no board profile {name!r} (known: {known})")


def known_profiles(game: str) -> list[str]:
    """Names of the shipped profiles of ``game``, sorted."""
    names = []
    for f in _profile_files():
        data = json.loads(f.read_text("utf-8"))
        if data.get("game") == game:
            names.append(data["name"])
    return sorted(names)


def save_profile(profile: BoardProfile, path: str | Path) -> Path:
    """Write a profile as JSON (one thumbnail row per line, for readable diffs)."""
    path = Path(path)
    data = profile.to_dict()
    thumb = data.pop("thumbnail", None)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if thumb is not None:
        rows = ",\n  ".join(json.dumps(r, separators=(",", ":")) for r in thumb["grey"])
        text = (text[:-2] + f',\n "thumbnail": {{"px_per_cell": {thumb["px_per_cell"]}, '
                f'"grey": [\n  {rows}]}}\n}}')
    path.write_text(text + "\n", "utf-8")
    return path
