"""Tier-2 "own sets": random looks and builds within ``../shared/BOARDS.md``.

A set is three things: its look (a :class:`calibration.styles.Style`), where things are
(a :class:`calibration.geometry.BoardGeometry`: cell size and margins vary between real
sets) and its :class:`Build` (how thick the board and tiles are, how tall the pieces).
Tier 1 is the print-and-play set (:func:`print_set`); tier 2 draws one at random
(:func:`random_set`), one Mixmath set in four being the real Mathable set
(``calibration.styles.mathable_style``).

Numeral faces come from ``calibration.fonts`` and honour its split: ``fonts="train"``
(the faces the digit classifier may learn), ``"held_out"`` (never seen in training) or
``"any"``. The Mathable set's own face (URW Gothic) is a train face: with
``fonts="held_out"`` that set keeps its look but gets a held-out face.

>>> rng = np.random.default_rng(5)
>>> style, geometry, build = random_set("mixmath", rng, fonts="held_out")
>>> from calibration.fonts import font_split
>>> Path(style.font).name in {p.name for p in font_split()[1]}
True
>>> style.markers
False
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from calibration.fonts import font_split
from calibration.geometry import BoardGeometry, board_geometry
from calibration.styles import CENTRE, SquareStyle, Style, mathable_style, print_style

FONT_CHOICES = ("train", "held_out", "any")
MATHABLE_SHARE = 0.25  # of tier-2 Mixmath sets


@dataclass(frozen=True)
class Build:
    """The physical make of a set, beyond its printed look (colours RGB, sizes mm)."""

    board_mm: float = 2.0  # board thickness
    board_edge_rgb: tuple[int, int, int] = (170, 160, 140)  # its cut edge
    tile_mm: float = 1.5  # tile / token thickness
    tile_side_rgb: tuple[int, int, int] | None = None  # None: the tile's rim colour, darker
    piece_height: float = 1.0  # scales the height of pegs and pieces
    # what a commercial board prints in its margins besides the game (distractors for
    # vision, never part of the truth): a title, a score track down the right margin
    title: str | None = None
    title_rgb: tuple[int, int, int] = (240, 240, 240)
    score_track: bool = False
    fold: bool = False  # a folding board: thin lines across it through the centre
    tile_shade: float = 0.0  # tiles differ in brightness by up to this share (wood, wear)


# Tier 1: a printed board glued on card, tiles cut from card; Mastermind and Breakthrough
# are played with a real set's pegs and checkers on the printed board.
PRINT_BUILDS = {
    "mixmath": Build(2.0, (196, 190, 176), 1.5, (205, 196, 170)),
    "calculissimo": Build(2.0, (196, 190, 176), 1.5, (205, 196, 170)),
    "mastermind": Build(2.0, (196, 190, 176)),
    "breakthrough": Build(2.0, (196, 190, 176)),
}

MATHABLE_GEOMETRY = {"cell_mm": 21.0, "margins": (2.4, 2.5, 2.6, 2.3)}  # in cells, from
# the real photos: wide margins (title at the top left, score track on the right)
MATHABLE_BUILD = Build(2.5, (20, 60, 120), 4.0, (196, 178, 146), 1.0, title="Mathable",
                       title_rgb=(196, 88, 120), score_track=True, fold=True, tile_shade=0.05)
TITLES = ("Mathable", "Mixmath", "mi×ma+h", "Calculissimo", "Numbers!", "Rechenspiel",
          "MATH", "1+2=3")

# RGB
TILE_FACES = {"white": (250, 250, 247), "ivory": (252, 248, 232), "cream": (244, 232, 204),
              "pale wood": (226, 204, 164), "light yellow": (250, 240, 200)}
NUMERAL_INKS = ((20, 20, 22), (25, 30, 70), (60, 35, 20), (15, 55, 30), (110, 20, 20))
CHESS_SQUARES = (((240, 217, 181), (181, 136, 99)), ((238, 238, 210), (118, 150, 86)),
                 ((245, 245, 245), (40, 40, 40)), ((222, 227, 230), (140, 162, 173)),
                 ((230, 200, 150), (120, 80, 50)), ((250, 250, 250), (190, 60, 50)))
PIECE_LIGHT = ((242, 240, 232), (250, 250, 250), (236, 220, 180), (225, 190, 140))
PIECE_DARK = ((30, 30, 32), (60, 35, 25), (110, 25, 25), (40, 40, 60))
MASTERMIND_BOARDS = ((30, 30, 32), (70, 70, 74), (110, 70, 40), (30, 50, 110), (220, 214, 200),
                     (150, 110, 70))


def fonts_for(choice: str) -> list[Path]:
    """Numeral faces of one side of the split (or both)."""
    if choice not in FONT_CHOICES:
        raise ValueError(f'fonts must be one of {", ".join(FONT_CHOICES)}, not {choice!r}')
    train, held_out = font_split()
    faces = {"train": train, "held_out": held_out, "any": train + held_out}[choice]
    if not faces:
        raise RuntimeError(f"no {choice} font faces are installed (see install.sh)")
    return faces


def print_set(game: str, rows: int | None = None, cols: int | None = None):
    """Tier 1: (style, geometry, build) of the print-and-play set."""
    return print_style(game), board_geometry(game, rows, cols), PRINT_BUILDS[game]


def mathable_set():
    """The real Mathable set of ``../shared/real/mathable/``: (style, geometry, build)."""
    g = board_geometry("mixmath")
    cell = MATHABLE_GEOMETRY["cell_mm"]
    geometry = replace(g, cell_mm=cell, marker_mm=0.6 * cell,
                       margins_mm=tuple(m * cell for m in MATHABLE_GEOMETRY["margins"]))
    return mathable_style(), geometry, MATHABLE_BUILD


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0), 1), min(max(v, 0), 1))
    return int(r * 255), int(g * 255), int(b * 255)


def _jitter(rgb, rng, amount: float = 10.0) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.clip(np.asarray(rgb) + rng.normal(0, amount, 3), 0, 255))


def _luma(rgb) -> float:
    r, g, b = rgb
    return 0.299 * r + 0.587 * g + 0.114 * b


def _label_on(fill, rng) -> tuple[int, int, int]:
    return (250, 250, 250) if _luma(fill) < 150 else _jitter((30, 30, 35), rng, 5)


def _geometry(game: str, rng, rows, cols, cell_mm: tuple[float, float],
              margins: tuple[tuple[float, float], ...]) -> BoardGeometry:
    g = board_geometry(game, rows, cols)
    cell = float(rng.uniform(*cell_mm))
    m = tuple(float(rng.uniform(*r)) * cell for r in margins)
    return replace(g, cell_mm=cell, margins_mm=m, marker_mm=0.6 * cell)


def _tile_look(rng, faces: list[Path]) -> dict:
    face_name = list(TILE_FACES)[rng.integers(len(TILE_FACES))]
    face = _jitter(TILE_FACES[face_name], rng, 5)
    edge = tuple(int(v * rng.uniform(0.7, 0.9)) for v in face)
    return dict(
        tile_rgb=face, tile_edge_rgb=edge, tile_edge_frac=float(rng.uniform(0.0, 0.06)),
        tile_radius=float(rng.uniform(0.0, 0.18)), tile_shadow=float(rng.uniform(0, 0.4)),
        tile_frac=float(rng.uniform(0.8, 0.95)),
        numeral_rgb=NUMERAL_INKS[rng.integers(len(NUMERAL_INKS))],
        numeral_frac=float(rng.uniform(0.36, 0.56)),
        font=str(faces[rng.integers(len(faces))]),
        six_nine_mark=(None, "underline", "dot")[rng.integers(3)],
        mark_scope=("six_nine", "ambiguous")[rng.integers(2)],
    )


def _board_look(rng) -> dict:
    """A board: light (print-like) or dark (Mathable-like) with pale or tinted squares."""
    hue = rng.random()
    if rng.random() < 0.5:  # light board, plain squares near white
        board = _hsv(hue, rng.uniform(0.0, 0.25), rng.uniform(0.85, 0.98))
        cell = _hsv(hue + rng.normal(0, 0.05), rng.uniform(0.0, 0.15), rng.uniform(0.88, 1.0))
        line = _hsv(hue, rng.uniform(0, 0.4), rng.uniform(0.15, 0.5))
    else:  # dark or saturated board, pale raised squares with board-coloured gaps
        board = _hsv(hue, rng.uniform(0.4, 0.9), rng.uniform(0.3, 0.75))
        cell = _hsv(hue + rng.normal(0, 0.05), rng.uniform(0.05, 0.3), rng.uniform(0.85, 0.98))
        line = tuple(int(v * 0.8) for v in board)
    return dict(board_rgb=board, cell_rgb=cell, line_rgb=line,
                line_mm=float(rng.uniform(0.2, 1.6)), cell_radius=float(rng.uniform(0, 0.15)),
                outline_rgb=None if rng.random() < 0.5 else line)


def _mixmath_squares(rng) -> tuple:
    """Premium, sign and centre squares in four distinct random hues."""
    hues = rng.permutation(8)[:4] / 8 + rng.uniform(0, 1 / 8)
    fills = [_hsv(h, rng.uniform(0.45, 0.85), rng.uniform(0.55, 0.95)) for h in hues]
    p2, p3, sign, centre = fills
    labels = {"2": "2×", "3": "3×", "+": "+", "-": "−", "x": "×", "/": "÷"}
    out = [("2", SquareStyle(p2, labels["2"], _label_on(p2, rng))),
           ("3", SquareStyle(p3, labels["3"], _label_on(p3, rng)))]
    out += [(s, SquareStyle(sign, labels[s], _label_on(sign, rng))) for s in "+-x/"]
    out.append((CENTRE, SquareStyle(centre, "", _label_on(centre, rng))))
    return tuple(out)


def random_set(game: str, rng: np.random.Generator, fonts: str = "train",
               rows: int | None = None, cols: int | None = None):
    """Tier 2: a random (style, geometry, build) for ``game`` within BOARDS.md."""
    faces = fonts_for(fonts)
    build = Build(board_mm=float(rng.uniform(1.5, 4.0)),
                  board_edge_rgb=_hsv(rng.random(), rng.uniform(0, 0.5), rng.uniform(0.1, 0.8)),
                  tile_mm=float(rng.uniform(1.5, 5.0)), tile_side_rgb=None,
                  piece_height=float(rng.uniform(0.8, 1.25)),
                  title=TITLES[rng.integers(len(TITLES))] if rng.random() < 0.5 else None,
                  title_rgb=_hsv(rng.random(), rng.uniform(0, 0.8), rng.uniform(0.1, 1.0)),
                  score_track=bool(rng.random() < 0.3), fold=bool(rng.random() < 0.5),
                  tile_shade=float(rng.uniform(0, 0.06)))
    if game == "mixmath":
        if rng.random() < MATHABLE_SHARE:
            style, geometry, build = mathable_set()
            if fonts == "held_out":
                style = replace(style, name="mathable-held-out-face",
                                font=str(faces[rng.integers(len(faces))]))
            return style, geometry, build
        style = Style(name="own-mixmath", markers=False, joker_face="blank", **_board_look(rng),
                      squares=_mixmath_squares(rng), square_text=bool(rng.random() < 0.85),
                      board_font=str(faces[rng.integers(len(faces))]), **_tile_look(rng, faces))
        geometry = _geometry(game, rng, rows, cols, (17, 24), ((0.5, 2.8),) * 4)
        return style, geometry, build
    if game == "calculissimo":
        base = print_style("calculissimo")
        squares = tuple((k, replace(sq, fill=_jitter(sq.fill, rng, 18)))
                        for k, sq in base.squares)
        look = _tile_look(rng, faces)
        style = Style(name="own-calculissimo", markers=False, **_board_look(rng),
                      squares=squares, square_text=bool(rng.random() < 0.7),
                      board_font=str(faces[rng.integers(len(faces))]),
                      joker_face=("star", "blank")[rng.integers(2)],
                      joker_rgb=_jitter((252, 252, 252), rng, 3), **look)
        geometry = _geometry(game, rng, rows, cols, (15, 22), ((0.5, 2.0),) * 4)
        return style, geometry, build
    if game == "mastermind":
        board = _jitter(MASTERMIND_BOARDS[rng.integers(len(MASTERMIND_BOARDS))], rng, 8)
        dark = _luma(board) < 100
        base = print_style("mastermind")
        palette = tuple((name, _jitter(rgb, rng, 12)) for name, rgb in base.peg_palette)
        style = Style(name="own-mastermind", markers=False, board_rgb=board, cell_rgb=board,
                      line_mm=0.0, outline_rgb=None,
                      hole_rgb=(12, 12, 12) if not dark else (5, 5, 5),
                      shield_rgb=_jitter(board, rng, 25),
                      hole_frac=float(rng.uniform(0.28, 0.4)),
                      peg_frac=float(rng.uniform(0.55, 0.75)), peg_palette=palette,
                      key_palette=(("red", palette[0][1]) if rng.random() < 0.6
                                   else ("red", (20, 20, 20)), ("white", palette[-1][1])))
        geometry = _geometry(game, rng, rows, cols, (13, 19),
                             ((0.6, 1.2), (1.8, 2.6), (1.6, 2.4), (0.6, 1.2)))
        return style, geometry, build
    if game == "breakthrough":
        light, dark = CHESS_SQUARES[rng.integers(len(CHESS_SQUARES))]
        if rng.random() < 0.2:  # a plain grid
            dark = light
        style = Style(name="own-breakthrough", markers=False,
                      board_rgb=_jitter(dark if rng.random() < 0.5 else (90, 60, 40), rng, 10),
                      light_square_rgb=_jitter(light, rng, 6),
                      dark_square_rgb=_jitter(dark, rng, 6),
                      line_rgb=(60, 50, 40), line_mm=float(rng.choice([0.0, 0.3, 0.6])),
                      outline_rgb=None,
                      piece_shape=("pawn", "checker", "stone")[rng.integers(3)],
                      piece_rgb=(("w", _jitter(PIECE_LIGHT[rng.integers(len(PIECE_LIGHT))], rng, 4)),
                                 ("b", _jitter(PIECE_DARK[rng.integers(len(PIECE_DARK))], rng, 4))),
                      piece_frac=float(rng.uniform(0.62, 0.88)))
        geometry = _geometry(game, rng, rows, cols, (25, 50), ((0.2, 1.0),) * 4)
        return style, geometry, build
    raise ValueError(f"unknown game {game!r}")


def decorate(board: np.ndarray, geometry: BoardGeometry, build: Build, ppm: float,
             font: str | None) -> None:
    """Print ``build``'s title and score track into the margins of a flat board image
    (BGR, ``ppm`` px per mm) in place, clear of the grid."""
    if build.fold:
        h, w = board.shape[:2]
        t = max(1, int(round(0.5 * ppm)))
        for sl in (np.s_[:, w // 2 - t // 2:w // 2 - t // 2 + t],
                   np.s_[h // 2 - t // 2:h // 2 - t // 2 + t, :]):
            board[sl] = np.clip(board[sl].astype(np.int16) * 0.8 + 30, 0, 255).astype(np.uint8)
    if build.title is None and not build.score_track:
        return
    from PIL import Image, ImageDraw, ImageFont

    left, top, right, bottom = geometry.margins_mm
    gx0, gy0 = geometry.grid_origin_mm
    gw, gh = geometry.grid_size_mm
    pil = Image.fromarray(np.ascontiguousarray(board[:, :, ::-1]))
    draw = ImageDraw.Draw(pil)
    if build.title is not None and top > 0.5 * geometry.cell_mm:
        size = max(4, int(top * 0.55 * ppm))
        face = ImageFont.truetype(font, size) if font else ImageFont.load_default(size)
        x0, y0, x1, y1 = face.getbbox(build.title)
        limit = gw * 0.6 * ppm
        if x1 - x0 > limit:
            face = ImageFont.truetype(font, max(4, int(size * limit / (x1 - x0)))) if font \
                else face
            x0, y0, x1, y1 = face.getbbox(build.title)
        x = gx0 * ppm - x0
        y = (top * ppm - (y1 - y0)) / 2 - y0
        draw.text((x, y), build.title, font=face, fill=tuple(build.title_rgb))
    if build.score_track and right > 0.6 * geometry.cell_mm:
        n = 50
        step = gh / n
        size = max(3, int(step * 0.7 * ppm))
        face = ImageFont.truetype(font, size) if font else ImageFont.load_default(size)
        x = (gx0 + gw + right * 0.35) * ppm
        for k in range(n):
            y = (gy0 + k * step) * ppm
            draw.rectangle((x, y, x + step * 0.8 * ppm, y + step * 0.8 * ppm),
                           outline=tuple(build.title_rgb), width=max(1, int(0.2 * ppm)))
            draw.text((x + step * ppm, y), str(k * 2 + 1), font=face,
                      fill=tuple(build.title_rgb))
    board[:] = np.asarray(pil)[:, :, ::-1]


def style_summary(style: Style) -> dict:
    """The style for the truth JSON: its fields, with face paths reduced to file names."""
    from dataclasses import asdict

    d = asdict(style)
    for key in ("font", "board_font"):
        if d.get(key):
            d[key] = Path(d[key]).name
    return d


__all__ = ["Build", "PRINT_BUILDS", "FONT_CHOICES", "fonts_for", "print_set", "random_set",
           "mathable_set", "decorate", "style_summary"]
