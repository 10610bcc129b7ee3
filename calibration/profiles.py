"""Board profiles: how one physical set looks, as data (``calibration/profiles/NAME.json``).

A profile describes an own set (tier 2, no markers) so that vision can find it, tell which
side is up and know its outline: the board's border around the grid in cells, how much of
a cell a printed square fills, the colours of its kinds of squares, and a small grey
picture of the empty board (seen from above, the right way up) to tell its four quarter
turns apart. ``vision.calibrate.measure_profile`` measures one from a photo of the empty
board; a photo of the set's tiles adds their colour (``colours["tile"]``) and their glyphs
(``NAME.glyphs.npz`` beside the JSON: the set's own font). ``boardsight calibrate`` writes
them to the user's profile folder (:func:`user_profile_dir`) or anywhere (a path loads
too); the shipped ones live in ``calibration/profiles``. Known profiles are both.

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
import os
from dataclasses import dataclass, field, replace
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
    glyphs: str | None = field(default=None, compare=False)  # path of NAME.glyphs.npz

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


def user_profile_dir() -> Path:
    """Where ``boardsight calibrate`` keeps a user's own sets: ``$BOARDSIGHT_PROFILES``,
    else ``$XDG_DATA_HOME/boardsight/profiles`` (``~/.local/share/...``)."""
    if os.environ.get("BOARDSIGHT_PROFILES"):
        return Path(os.environ["BOARDSIGHT_PROFILES"])
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "boardsight" / "profiles"


def _profile_files() -> list[Path]:
    """The profile JSON files: the user's first (a re-calibrated set wins), then shipped."""
    shipped = resources.files("calibration").joinpath(PROFILE_DIR)
    out = []
    for folder in (user_profile_dir(), Path(str(shipped))):
        if folder.is_dir():
            out += sorted(f for f in folder.iterdir() if f.name.endswith(".json"))
    return out


def glyphs_file(profile_json: Path) -> Path:
    """The glyph samples kept beside a profile: ``NAME.glyphs.npz``."""
    return profile_json.with_name(profile_json.name[:-len(".json")] + ".glyphs.npz")


def _load(path: Path) -> BoardProfile:
    profile = BoardProfile.from_dict(json.loads(path.read_text("utf-8")))
    glyphs = glyphs_file(path)
    return replace(profile, glyphs=str(glyphs)) if glyphs.exists() else profile


def load_profile(name: str) -> BoardProfile:
    """A known profile by name (``"mathable"``), or a profile JSON file by path."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return _load(path)
    for f in _profile_files():
        if f.name == f"{name}.json":
            return _load(f)
    known = ", ".join(sorted({f.name[:-5] for f in _profile_files()})) or "none"
    raise KeyError(f"no board profile {name!r} (known: {known})")


def known_profiles(game: str) -> list[str]:
    """Names of the known profiles of ``game`` (the user's and the shipped), sorted."""
    names = set()
    for f in _profile_files():
        data = json.loads(f.read_text("utf-8"))
        if data.get("game") == game:
            names.add(data["name"])
    return sorted(names)


def save_profile(profile: BoardProfile, path: str | Path) -> Path:
    """Write a profile as JSON (one thumbnail row per line, for readable diffs),
    atomically: a profile being replaced is never left half written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = profile.to_dict()
    thumb = data.pop("thumbnail", None)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if thumb is not None:
        rows = ",\n  ".join(json.dumps(r, separators=(",", ":")) for r in thumb["grey"])
        text = (text[:-2] + f',\n "thumbnail": {{"px_per_cell": {thumb["px_per_cell"]}, '
                f'"grey": [\n  {rows}]}}\n}}')
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n", "utf-8")
    os.replace(tmp, path)
    return path
