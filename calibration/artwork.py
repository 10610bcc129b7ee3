"""Drawing boards, tiles, tokens, pegs and pieces: flat artwork, no camera effects.

Shared by ``boardsight print`` (:mod:`calibration.printing`), the photo renderer
(``samples/``) and the tests. Geometry (where things are, mm) comes from
:mod:`calibration.geometry`, looks from a :class:`calibration.styles.Style`.

Conventions
-----------
- Every image is a numpy ``uint8`` array in OpenCV's channel order: BGR, or BGRA for a
  sprite whose alpha is its shape.
- Board images: a point ``(x_mm, y_mm)`` of the board lies at pixel coordinates
  ``(x_mm * px_per_mm, y_mm * px_per_mm)`` in OpenCV's sub-pixel convention (integer
  coordinates are pixel *centres*), so ``H = S @ homography`` with ``S = diag(ppm, ppm, 1)``
  maps mm to board pixels exactly; the image is ``round(size_mm * px_per_mm)`` pixels.
  A region ``[a, b)`` mm covers the pixels whose centres lie in ``[a * ppm, b * ppm)``.
- Sprites (``draw_tile``, ``draw_piece_top``) are ``size_px`` square, centred on
  ``((size_px - 1) / 2, (size_px - 1) / 2)``, and cached: they are read-only, copy before
  changing them.

>>> from calibration.geometry import board_geometry
>>> from calibration.styles import print_style
>>> g = board_geometry("breakthrough", rows=5, cols=5)
>>> draw_board(g, print_style("breakthrough"), 2.0).shape
(408, 408, 3)
>>> draw_tile("mixmath", 9, print_style("mixmath"), 40).shape
(40, 40, 4)
>>> sorted(marked_values("mixmath", print_style("mixmath")))
[6, 9, 18, 81]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.core import load_definition

from .geometry import CORNERS, BoardGeometry, marker_id
from .layouts import centre_numbers
from .styles import CENTRE, RGB, Style, bgr

TILE_GAMES = ("mixmath", "calculissimo")
PIECE_GAMES = ("mastermind", "breakthrough")

CALCULISSIMO_GLYPHS = {"+": "+", "-": "−", "x": "×", "/": "÷"}
"""How operator tokens are printed (the cell values stay ASCII)."""

BLANK = "blank"
"""A Mixmath blank tile (``None`` means the same to :func:`draw_tile`)."""

JOKER = "?"

_SUPERSAMPLE = 4        # sprites and markers are drawn this many times larger, then reduced
_REFERENCE_MM = 20.0    # Style sizes in mm are given for a cell of this size
_LABEL_FILL = 0.72      # a label's ink fills at most this share of its square
_NUMERAL_WIDTH = 0.74   # a numeral's ink spans at most this share of its tile's width
_OPERATOR_SCALE = 1.25  # operators are drawn larger than digits of the same font size
_MARK_GAP = 0.05        # underline gap below the numeral, fraction of the tile
_MARK_THICK = 0.05      # underline thickness / dot diameter, fraction of the tile
_QUIET_BITS = 1.0       # white quiet zone round a marker, in marker bits
_COORD_TEXT = 0.32      # board coordinate labels, height as a fraction of a cell


# -- what is on a board ------------------------------------------------------------------

def board_layout(game: str, layout: Sequence[str] | None = None) -> tuple[str, ...] | None:
    """The layout rows of a game (its JSON ``layout``), or None for games without one."""
    if layout is None:
        layout = load_definition(game).get("layout")
    return tuple(layout) if layout is not None else None


def printed_numbers(game: str, layout: Sequence[str] | None = None) -> dict[tuple[int, int], int]:
    """The numbers printed on the board itself: Mixmath's centre 1 2 3 4, as {(row, col): n}
    (:func:`calibration.layouts.centre_numbers`: the same characters also mean 2x / 3x
    premiums elsewhere, so only the central block's are numbers).

    >>> printed_numbers("mixmath")
    {(6, 6): 1, (6, 7): 2, (7, 6): 3, (7, 7): 4}
    """
    rows = board_layout(game, layout)
    if game != "mixmath" or rows is None:
        return {}
    return centre_numbers(rows)


def square_keys(game: str, layout: Sequence[str] | None = None) -> list[list[str | None]]:
    """Per cell, the key of its special square in :attr:`Style.squares` (a layout
    character, or ``CENTRE`` for a printed number), None for a plain square.

    >>> square_keys("mixmath")[6][5:9]
    [None, 'centre', 'centre', None]
    """
    rows = board_layout(game, layout)
    if rows is None:
        definition = load_definition(game)
        return [[None] * definition["cols"] for _ in range(definition["rows"])]
    centre = printed_numbers(game, rows)
    return [[CENTRE if (r, c) in centre else (ch if ch != "." else None)
             for c, ch in enumerate(line)] for r, line in enumerate(rows)]


def rotated_reading(text: str) -> str | None:
    """How a numeral reads turned by 180°, or None when some digit reads as no digit.

    >>> rotated_reading("18"), rotated_reading("6"), rotated_reading("7")
    ('81', '9', None)
    """
    turn = {"0": "0", "1": "1", "6": "9", "8": "8", "9": "6"}
    if not text or any(ch not in turn for ch in text):
        return None
    return "".join(turn[ch] for ch in reversed(text))


def marked_values(game: str, style: Style) -> frozenset:
    """The values whose tiles carry the 6/9 mark (underline or dot) in this style.

    ``mark_scope="six_nine"``: 6 and 9 only (as the real Mathable set). ``"ambiguous"``:
    every value of the set that, turned upside down, reads as another value of the set
    (a leading zero is no reading): Mixmath 6 9 18 81, Calculissimo 6 9.
    """
    if style.six_nine_mark is None:
        return frozenset()
    values = _set_values(game)
    if style.mark_scope == "six_nine":
        return frozenset(v for v in values if str(v) in ("6", "9"))
    texts = {str(v) for v in values}
    out = set()
    for v in values:
        turned = rotated_reading(str(v))
        if turned and turned != str(v) and turned in texts and not turned.startswith("0"):
            out.add(v)
    return frozenset(out)


def _set_values(game: str) -> list:
    definition = load_definition(game)
    if game == "mixmath":
        return [int(v) for v in definition["tiles"]]
    if game == "calculissimo":
        return list(definition["tokens"])
    return []


# -- small drawing helpers ----------------------------------------------------------------

def _span(a_mm: float, b_mm: float, ppm: float) -> tuple[int, int]:
    """The pixel index range [i0, i1) whose centres lie in [a, b) mm."""
    return math.ceil(a_mm * ppm - 1e-9), math.ceil(b_mm * ppm - 1e-9)


def _fill_rect(img: np.ndarray, box_mm, ppm: float, colour: RGB, radius_px: float = 0.0):
    x0, x1 = _span(box_mm[0], box_mm[2], ppm)
    y0, y1 = _span(box_mm[1], box_mm[3], ppm)
    _fill_rect_px(img, x0, y0, x1, y1, bgr(colour), radius_px)


def _fill_rect_px(img, x0, y0, x1, y1, colour, radius_px=0.0):
    """Fill pixels [x0, x1) x [y0, y1), corners rounded by ``radius_px``."""
    r = int(round(min(radius_px, (x1 - x0) / 2, (y1 - y0) / 2)))
    if r <= 0:
        img[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = colour
        return
    img[y0 + r:y1 - r, x0:x1] = colour
    img[y0:y1, x0 + r:x1 - r] = colour
    for cx, cy in ((x0 + r, y0 + r), (x1 - 1 - r, y0 + r), (x0 + r, y1 - 1 - r),
                   (x1 - 1 - r, y1 - 1 - r)):
        cv2.circle(img, (cx, cy), r, colour, -1, cv2.LINE_AA)


def _circle(img, centre_px, diameter_px, colour: RGB, rim: RGB | None = None):
    """An anti-aliased disc at a sub-pixel centre (cv2 fixed point, 4 fractional bits)."""
    shift = 4
    c = (int(round(centre_px[0] * 16)), int(round(centre_px[1] * 16)))
    r = int(round(diameter_px / 2 * 16))
    cv2.circle(img, c, r, bgr(colour), -1, cv2.LINE_AA, shift)
    if rim is not None:
        cv2.circle(img, c, r, bgr(rim), max(1, int(diameter_px / 12)), cv2.LINE_AA, shift)


@lru_cache(maxsize=256)
def _font(path: str | None, size: int) -> ImageFont.FreeTypeFont:
    size = max(1, int(size))
    if path is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(path, size)


_MEASURE = 200  # font size at which text is measured before scaling to fit


@lru_cache(maxsize=2048)
def _ink_box(path: str | None, size: int, text: str) -> tuple[int, int, int, int]:
    """The tight box of the pixels ``text`` inks, relative to Pillow's default anchor
    (getbbox is wider: it spans the advance and ends at the baseline)."""
    mask, (ox, oy) = _font(path, size).getmask2(text, mode="L")
    box = mask.getbbox()
    if box is None:
        return (0, 0, 0, 0)
    return (ox + box[0], oy + box[1], ox + box[2], oy + box[3])


def _fit_size(path: str | None, text: str, max_w: float, max_h: float) -> int:
    """The font size at which ``text``'s ink fits in max_w x max_h pixels."""
    x0, y0, x1, y1 = _ink_box(path, _MEASURE, text)
    w, h = max(x1 - x0, 1), max(y1 - y0, 1)
    return max(1, int(_MEASURE * min(max_w / w, max_h / h)))


def _draw_text_centred(draw: ImageDraw.ImageDraw, text: str, centre, size: int,
                       path: str | None, rgb: RGB) -> tuple[float, float, float, float]:
    """Draw text with its ink box centred at ``centre``; return the ink box."""
    font = _font(path, size)
    x0, y0, x1, y1 = _ink_box(path, size, text)
    ox = centre[0] - (x0 + x1) / 2
    oy = centre[1] - (y0 + y1) / 2
    draw.text((ox, oy), text, font=font, fill=tuple(rgb))
    return (ox + x0, oy + y0, ox + x1, oy + y1)


def _draw_label(draw, label: str, box_px, path: str | None, rgb: RGB,
                height: float = _LABEL_FILL * 0.7):
    """A one- or two-line label ("2×" / "2×\\ndigit") centred in a square; a one-line
    label's ink is at most ``height`` of the square high."""
    x0, y0, x1, y1 = box_px
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2
    lines = label.split("\n")
    if len(lines) == 1:
        # signs no bigger than a digit would be: a lone "−" fitted to the box is a slab
        size = min(_fit_size(path, lines[0], w * _LABEL_FILL, h * height),
                   int(_fit_size(path, "0", w, h * height) * _OPERATOR_SCALE))
        _draw_text_centred(draw, lines[0], (cx, (y0 + y1) / 2), size, path, rgb)
        return
    big, small = lines[0], lines[1]
    size = _fit_size(path, big, w * _LABEL_FILL, h * 0.38)
    _draw_text_centred(draw, big, (cx, y0 + h * 0.38), size, path, rgb)
    size = _fit_size(path, small, w * 0.8, h * 0.18)
    _draw_text_centred(draw, small, (cx, y0 + h * 0.78), size, path, rgb)


# -- boards ---------------------------------------------------------------------------------

def draw_board(geometry: BoardGeometry, style: Style, px_per_mm: float,
               layout: Sequence[str] | None = None) -> np.ndarray:
    """The empty board, (H, W, 3) BGR uint8, ``H, W = round(size_mm * px_per_mm)``.

    Board colour, squares and grid lines, the special squares with their colours and
    labels, Mixmath's printed 1 2 3 4, Calculissimo's start square, Mastermind's holes,
    key-peg holes and code-shield area, Breakthrough's checkered squares, coordinates in
    the margin, and ArUco markers (``DICT_4X4_50``, ids from ``geometry.marker_id``) at
    ``geometry.marker_corners_mm`` when ``style.markers``. ``layout`` overrides the game
    definition's layout rows (same size).
    """
    rows = board_layout(geometry.game, layout)
    return _draw_board_cached(geometry, style, float(px_per_mm), rows).copy()


@lru_cache(maxsize=16)
def _draw_board_cached(geometry: BoardGeometry, style: Style, ppm: float,
                       layout: tuple[str, ...] | None) -> np.ndarray:
    w_mm, h_mm = geometry.size_mm
    img = np.empty((round(h_mm * ppm), round(w_mm * ppm), 3), np.uint8)
    img[:] = bgr(style.board_rgb)
    labels: list[tuple] = []   # (text, box_px, font, rgb[, height]), drawn by Pillow at the end
    game = geometry.game
    if game == "mastermind":
        _draw_mastermind(img, geometry, style, ppm)
    else:
        _draw_squares(img, geometry, style, ppm, layout, labels)
    if style.markers:
        _draw_coordinates(geometry, style, ppm, labels)
    if labels:
        pil = Image.fromarray(img[:, :, ::-1])
        draw = ImageDraw.Draw(pil)
        for label in labels:
            _draw_label(draw, *label)
        img = np.ascontiguousarray(np.asarray(pil)[:, :, ::-1])
    if style.outline_rgb is not None:
        t = max(1, round(0.3 * ppm))
        cv2.rectangle(img, (0, 0), (img.shape[1] - 1, img.shape[0] - 1), bgr(style.outline_rgb), t)
    if style.markers:
        for corner in CORNERS:
            draw_marker(img, geometry.marker_corners_mm(corner) * ppm,
                        marker_id(game, corner))
    img.setflags(write=False)
    return img


def _line_px(geometry: BoardGeometry, style: Style, ppm: float) -> float:
    if style.line_mm <= 0:
        return 0.0
    return max(1.0, style.line_mm * geometry.cell_mm / _REFERENCE_MM * ppm)


def _draw_squares(img, geometry, style, ppm, layout, labels):
    """Mixmath, Calculissimo and Breakthrough: squares separated by lines (or gaps)."""
    game = geometry.game
    line = _line_px(geometry, style, ppm)
    inset = line / 2 / ppm
    if line:
        gx0, gy0, gx1, gy1 = (*geometry.grid_corners_mm()[0], *geometry.grid_corners_mm()[2])
        _fill_rect(img, (gx0 - inset, gy0 - inset, gx1 + inset, gy1 + inset), ppm,
                   style.line_rgb)
    keys = square_keys(game, layout) if layout is not None else None
    numbers = printed_numbers(game, layout)
    radius = style.cell_radius * geometry.cell_mm * ppm
    font = style.label_font
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            x0, y0, x1, y1 = geometry.cell_box(r, c)
            box = (x0 + inset, y0 + inset, x1 - inset, y1 - inset)
            key = keys[r][c] if keys is not None else None
            special = style.square(key) if key else None
            if game == "breakthrough":
                dark = (geometry.rows - 1 - r + c) % 2 == 0   # bottom-left is dark, as chess
                fill = style.dark_square_rgb if dark else style.light_square_rgb
            else:
                fill = special.fill if special else style.cell_rgb
            _fill_rect(img, box, ppm, fill, radius)
            box_px = tuple(v * ppm for v in box)
            if (r, c) in numbers:
                text_rgb = special.label_rgb if special else style.numeral_rgb
                labels.append((str(numbers[(r, c)]), box_px, font, text_rgb,
                               style.numeral_frac * style.tile_frac))
            elif special and special.label and style.square_text:
                labels.append((special.label, box_px, font, special.label_rgb))


def _draw_mastermind(img, geometry, style, ppm):
    """12 x 4 code holes, a 2 x 2 key-hole group beside each row, the code shield on top."""
    cell_px = geometry.cell_mm * ppm
    rim = tuple(min(255, int(v * 0.75)) for v in style.board_rgb)
    x0, y0, x1, y1 = geometry.shield_box_mm()
    _fill_rect(img, (x0, y0, x1, y1), ppm, style.shield_rgb, 0.15 * cell_px)
    for centre in geometry.code_hole_centres_mm():
        _circle(img, centre * ppm, style.hole_frac * cell_px, style.hole_rgb, rim)
    for row in geometry.cell_centres_mm():
        for centre in row:
            _circle(img, centre * ppm, style.hole_frac * cell_px, style.hole_rgb, rim)
    for group in geometry.key_hole_centres_mm():
        for centre in group:
            _circle(img, centre * ppm, style.key_hole_frac * cell_px, style.hole_rgb)
    # a faint groove between rows helps people keep to one row
    groove = bgr(tuple(int(v * 0.9) for v in style.board_rgb))
    gx0, gy0 = geometry.grid_origin_mm
    gx1 = geometry.key_hole_centres_mm()[0, 1, 0] + geometry.cell_mm * 0.25
    for r in range(1, geometry.rows):
        y = round((gy0 + r * geometry.cell_mm) * ppm)
        cv2.line(img, (round(gx0 * ppm), y), (round(gx1 * ppm), y), groove,
                 max(1, round(0.3 * ppm)))


def _draw_coordinates(geometry, style, ppm, labels):
    """Column letters above and row numbers left of the grid, as the referee names cells
    (Mastermind: guess numbers from the bottom, the first guess being row 1)."""
    from referee.core import COLUMN_LETTERS
    cell = geometry.cell_mm
    left, top, right, bottom = geometry.margins_mm
    text_rgb = tuple(int(v) for v in np.clip(np.array(style.board_rgb) * 0.35, 0, 255))
    font = style.label_font
    if geometry.game != "mastermind":
        for c in range(geometry.cols):
            x0, _, x1, _ = geometry.cell_box(0, c)
            labels.append((COLUMN_LETTERS[c], _box_px(((x0 + x1) / 2, top / 2), cell, ppm),
                           font, text_rgb, _COORD_TEXT))
    for r in range(geometry.rows):
        _, y0, _, y1 = geometry.cell_box(r, 0)
        name = str(geometry.rows - r) if geometry.game in ("mastermind", "breakthrough") \
            else str(r + 1)
        labels.append((name, _box_px((left / 2, (y0 + y1) / 2), cell, ppm), font, text_rgb,
                       _COORD_TEXT))


def _box_px(centre_mm, side_mm, ppm):
    """A square label box of ``side_mm`` centred at ``centre_mm``, in pixels."""
    return ((centre_mm[0] - side_mm / 2) * ppm, (centre_mm[1] - side_mm / 2) * ppm,
            (centre_mm[0] + side_mm / 2) * ppm, (centre_mm[1] + side_mm / 2) * ppm)


@lru_cache(maxsize=64)
def _marker_bits(marker: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.generateImageMarker(dictionary, int(marker), 6, borderBits=1)


def draw_marker(img: np.ndarray, corners_px: np.ndarray, marker: int) -> None:
    """Draw ArUco ``marker`` (DICT_4X4_50) in place, upright, its black square exactly on
    ``corners_px`` ((4, 2) TL TR BR BL, axis-aligned, sub-pixel), with a white quiet zone.

    The square is supersampled, so its edges lie within a fraction of a pixel of where
    geometry says, whatever ``px_per_mm``.
    """
    bits = _marker_bits(marker)
    n = bits.shape[0]
    (X0, Y0), (X1, Y1) = corners_px[0], corners_px[2]
    bit_w, bit_h = (X1 - X0) / n, (Y1 - Y0) / n
    qx, qy = bit_w * _QUIET_BITS, bit_h * _QUIET_BITS
    # pixel i covers [i - 0.5, i + 0.5): the ROI takes every pixel the quiet zone touches
    i0, i1 = max(0, math.floor(X0 - qx + 0.5)), min(img.shape[1], math.ceil(X1 + qx + 0.5))
    j0, j1 = max(0, math.floor(Y0 - qy + 0.5)), min(img.shape[0], math.ceil(Y1 + qy + 0.5))
    f = _SUPERSAMPLE * 2
    u = i0 - 0.5 + (np.arange((i1 - i0) * f) + 0.5) / f
    v = j0 - 0.5 + (np.arange((j1 - j0) * f) + 0.5) / f
    bx = np.floor((u - X0) / bit_w).astype(int)
    by = np.floor((v - Y0) / bit_h).astype(int)
    inside = (bx[None, :] >= 0) & (bx[None, :] < n) & (by[:, None] >= 0) & (by[:, None] < n)
    hi = np.full((len(v), len(u)), 255.0)
    hi[inside] = bits[np.clip(by, 0, n - 1)[:, None].repeat(len(u), 1)[inside],
                      np.clip(bx, 0, n - 1)[None, :].repeat(len(v), 0)[inside]]
    lo = hi.reshape(j1 - j0, f, i1 - i0, f).mean(axis=(1, 3))
    # the quiet zone is white, whatever the board's colour
    quiet = ((u[None, :] >= X0 - qx) & (u[None, :] < X1 + qx)
             & (v[:, None] >= Y0 - qy) & (v[:, None] < Y1 + qy))
    cover = quiet.reshape(j1 - j0, f, i1 - i0, f).mean(axis=(1, 3))[..., None]
    roi = img[j0:j1, i0:i1].astype(np.float32)
    roi = roi * (1 - cover) + lo[..., None] * cover
    img[j0:j1, i0:i1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)


# -- tiles and tokens ---------------------------------------------------------------------

def _normalise_tile(game: str, value):
    if game == "mixmath":
        if value is None or value in (BLANK, JOKER):   # "?": a blank as read and refereed
            return BLANK
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, (int, np.integer)) and 0 <= int(value) <= 99:
            return int(value)
        raise ValueError(f"a Mixmath tile is a number 0..99 or blank, not {value!r}")
    if game == "calculissimo":
        if isinstance(value, (int, np.integer)) and 0 <= int(value) <= 9:
            return str(int(value))
        if value is None or value == BLANK:
            return JOKER
        if isinstance(value, str) and (value in "0123456789+-x/?=" and len(value) == 1):
            return value
        raise ValueError(f"a Calculissimo token is 0..9, + - x / or ?, not {value!r}")
    raise ValueError(f"{game} has no tiles; use draw_piece_top")


def draw_tile(game: str, value, style: Style, size_px: int) -> np.ndarray:
    """One Mixmath tile or Calculissimo token seen from straight above.

    Parameters
    ----------
    game : "mixmath" or "calculissimo"
    value : Mixmath 0..99, or None / "blank" / "?" (a blank); Calculissimo "0".."9", "+",
        "-", "x", "/", or "?" (a joker). A blank or a joker wears a star or nothing, per
        ``style.joker_face`` (boardsight's print-and-play sets: a star).
    size_px : side of the returned square sprite.

    Returns
    -------
    (size_px, size_px, 4) BGRA uint8, read-only (cached): alpha is the rounded tile.
    The numeral is centred by its ink; values in :func:`marked_values` carry the style's
    underline (below the numeral) or dot (after it).
    """
    return _tile_cached(game, _normalise_tile(game, value), style, int(size_px))


@lru_cache(maxsize=4096)
def _tile_cached(game: str, value, style: Style, size_px: int) -> np.ndarray:
    ss = _SUPERSAMPLE
    S = size_px * ss
    canvas = Image.new("RGBA", (S, S), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    radius = style.tile_radius * S
    face = style.joker_rgb if value == JOKER else style.tile_rgb
    draw.rounded_rectangle((0, 0, S - 1, S - 1), radius, fill=(*style.tile_edge_rgb, 255))
    e = style.tile_edge_frac * S
    draw.rounded_rectangle((e, e, S - 1 - e, S - 1 - e), max(0, radius - e), fill=(*face, 255))
    centre = ((S - 1) / 2, (S - 1) / 2)
    if value in (JOKER, BLANK):
        if style.joker_face == "star":
            draw.polygon(_star(centre, 0.3 * S), fill=(*style.numeral_rgb, 255))
    elif game == "calculissimo" and style.operator_shapes and str(value) in CALCULISSIMO_GLYPHS:
        _draw_operator(draw, str(value), centre, S, (*style.numeral_rgb, 255))
    else:
        text = str(value)
        glyph = CALCULISSIMO_GLYPHS.get(text, text) if game == "calculissimo" else text
        path = style.numeral_font
        # size by a reference digit so that 1, 7 and 10 share one height
        size = _fit_size(path, "0", S * 10, style.numeral_frac * S)
        if glyph in CALCULISSIMO_GLYPHS.values():
            size = int(size * _OPERATOR_SCALE)
        x0, _, x1, _ = _ink_box(path, size, glyph)
        if x1 - x0 > _NUMERAL_WIDTH * S:
            size = int(size * _NUMERAL_WIDTH * S / (x1 - x0))
        ink = _draw_text_centred(draw, glyph, centre, size, path, style.numeral_rgb)
        if value in marked_values(game, style):
            _draw_mark(draw, ink, S, style)
    tile = canvas.reduce(ss) if ss > 1 else canvas
    rgba = np.asarray(tile)
    out = np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]])
    out.setflags(write=False)
    return out


# Operators drawn for a camera (style.operator_shapes), in tile sides: bars of this length
# and stroke; the ÷ dots this wide and this far from the bar's centre, so that a blurred
# photo keeps them apart from the bar (a font's ÷ blurs into a +).
_OP_BAR, _OP_STROKE = 0.5, 0.09
_OP_DOT, _OP_DOT_OFFSET = 0.13, 0.22


def _draw_operator(draw, op: str, centre, S: float, fill) -> None:
    cx, cy = centre
    h, w = _OP_BAR * S / 2, _OP_STROKE * S / 2

    def bar(angle_deg: float, half: float = h):
        a = math.radians(angle_deg)
        dx, dy = math.cos(a), math.sin(a)
        draw.polygon([(cx - half * dx - w * dy, cy - half * dy + w * dx),
                      (cx + half * dx - w * dy, cy + half * dy + w * dx),
                      (cx + half * dx + w * dy, cy + half * dy - w * dx),
                      (cx - half * dx + w * dy, cy - half * dy - w * dx)], fill=fill)

    if op in "+-/":
        bar(0)
    if op == "+":
        bar(90)
    if op == "x":
        bar(45, h * 1.1)
        bar(-45, h * 1.1)
    if op == "/":
        r = _OP_DOT * S / 2
        for dy in (-_OP_DOT_OFFSET * S, _OP_DOT_OFFSET * S):
            draw.ellipse((cx - r, cy + dy - r, cx + r, cy + dy + r), fill=fill)


def _draw_mark(draw, ink, S, style: Style):
    x0, y0, x1, y1 = ink
    t = _MARK_THICK * S
    fill = (*style.numeral_rgb, 255)
    if style.six_nine_mark == "underline":
        y = y1 + _MARK_GAP * S
        draw.rectangle((x0, y, x1, y + t), fill=fill)
    elif style.six_nine_mark == "dot":
        cx, cy = x1 + 0.6 * t + t / 2, y1 - t / 2
        draw.ellipse((cx - t / 2, cy - t / 2, cx + t / 2, cy + t / 2), fill=fill)


def _star(centre, radius, points=5, inner=0.45):
    cx, cy = centre
    out = []
    for k in range(2 * points):
        r = radius if k % 2 == 0 else radius * inner
        a = -math.pi / 2 + k * math.pi / points
        out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


# -- pegs and pieces ----------------------------------------------------------------------

def draw_piece_top(game: str, value: str, style: Style, size_px: int) -> np.ndarray:
    """A Mastermind peg (a colour name of the style's palette, code or key) or a
    Breakthrough piece ("w" / "b", in ``style.piece_shape``) seen from straight above.

    Returns (size_px, size_px, 4) BGRA uint8, read-only (cached); the disc fills the
    sprite. Height, lean and shadow are the renderer's business.
    """
    if game == "mastermind":
        style.peg_rgb(value)  # raises for an unknown colour
    elif game == "breakthrough":
        if value not in ("w", "b"):
            raise ValueError(f'a Breakthrough piece is "w" or "b", not {value!r}')
    else:
        raise ValueError(f"{game} has tiles, not pieces; use draw_tile")
    return _piece_cached(game, value, style, int(size_px))


@lru_cache(maxsize=512)
def _piece_cached(game: str, value: str, style: Style, size_px: int) -> np.ndarray:
    n = size_px
    c = (n - 1) / 2
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    dx, dy = xx - c, yy - c
    r = np.hypot(dx, dy) / (n / 2)                      # 0 at the centre, 1 at the rim
    alpha = np.clip((1 - r) * n / 2 + 0.5, 0, 1)        # anti-aliased edge
    if game == "mastermind":
        base = np.array(style.peg_rgb(value), np.float32)
        shape = "peg"
    else:
        base = np.array(style.piece_colour(value), np.float32)
        shape = style.piece_shape
    # light from the top-left: brighten towards it, darken the rim
    light = np.clip(1 - np.hypot(dx + 0.3 * n / 2, dy + 0.3 * n / 2) / (0.5 * n / 2), 0, 1)
    shade = 1.0 - 0.28 * np.clip((r - 0.75) / 0.25, 0, 1)
    if shape == "checker":
        groove = np.exp(-((r - 0.68) / 0.05) ** 2)
        shade = shade - 0.22 * groove
        light = light * 0.4
    elif shape == "pawn":
        head = np.clip((0.45 - r) * n / 2 + 0.5, 0, 1)   # the pawn's head seen from above
        shade = shade * (0.82 + 0.18 * head) + 0.06 * head
        light = light * head
    elif shape == "stone":
        shade = shade * (1 - 0.25 * r ** 2)
    else:  # peg: a round head with a glossy spot
        shade = shade * (1 - 0.2 * r ** 2)
        light = light ** 2
    rgb = base[None, None, :] * shade[..., None]
    rgb = rgb + (255 - rgb) * (0.55 * light)[..., None]
    out = np.empty((n, n, 4), np.uint8)
    out[..., :3] = np.clip(rgb[..., ::-1] + 0.5, 0, 255)
    out[..., 3] = np.clip(alpha * 255 + 0.5, 0, 255)
    out.setflags(write=False)
    return out


# -- whole positions ------------------------------------------------------------------------

def paste_sprite(img: np.ndarray, sprite: np.ndarray, centre_px, angle_deg: float = 0.0,
                 shadow: float = 0.0) -> None:
    """Alpha-blend a BGRA sprite onto a BGR image in place, its centre at the sub-pixel
    ``centre_px`` (x, y), turned ``angle_deg`` counter-clockwise; ``shadow`` in 0..1
    darkens a soft drop shadow down-right of it."""
    h, w = sprite.shape[:2]
    half = math.ceil(math.hypot(w, h) / 2) + 3
    cx, cy = centre_px
    x0, y0 = math.floor(cx) - half, math.floor(cy) - half
    size = 2 * half + 1
    M = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), angle_deg, 1.0)
    M[0, 2] += cx - x0 - (w - 1) / 2
    M[1, 2] += cy - y0 - (h - 1) / 2
    warped = cv2.warpAffine(np.asarray(sprite), M, (size, size), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    # clip to the image
    ix0, iy0 = max(x0, 0), max(y0, 0)
    ix1, iy1 = min(x0 + size, img.shape[1]), min(y0 + size, img.shape[0])
    if ix0 >= ix1 or iy0 >= iy1:
        return
    part = warped[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0].astype(np.float32)
    roi = img[iy0:iy1, ix0:ix1].astype(np.float32)
    if shadow > 0:
        a = warped[..., 3].astype(np.float32) / 255
        k = max(1, int(0.05 * w)) * 2 + 1
        shift = np.float32([[1, 0, 0.04 * w], [0, 1, 0.06 * h]])
        s = cv2.GaussianBlur(cv2.warpAffine(a, shift, (size, size)), (k, k), 0)
        s = s[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
        roi *= (1 - 0.6 * shadow * s)[..., None]
    a = part[..., 3:] / 255
    roi = roi * (1 - a) + part[..., :3] * a
    img[iy0:iy1, ix0:ix1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)


def piece_size_px(game: str, style: Style, cell_px: float) -> int:
    """The sprite size a piece of ``game`` gets on a cell of ``cell_px`` pixels."""
    frac = {"mixmath": style.tile_frac, "calculissimo": style.tile_frac,
            "mastermind": style.peg_frac, "breakthrough": style.piece_frac}[game]
    return max(3, int(round(frac * cell_px)))


def draw_position(geometry: BoardGeometry, style: Style, cells, px_per_mm: float,
                  rng=None, *, max_offset: float = 0.1, max_angle: float = 10.0,
                  key_pegs: Sequence[tuple[int, int]] | None = None,
                  layout: Sequence[str] | None = None) -> np.ndarray:
    """The board with every piece of ``cells`` lying flat on its cell, (H, W, 3) BGR.

    Parameters
    ----------
    cells : rows x cols grid (the ``boardsight read`` shape), None for empty.
    rng : None (every piece exactly centred and upright), a seed, or a numpy Generator:
        tiles then lie up to ``max_offset`` of a cell off centre and turned up to
        ``max_angle`` degrees (BOARDS.md: 10 % and 10°), but never further towards an
        occupied neighbour than half the gap between them; pegs sit in their holes (a
        quarter of that offset), round pieces are not turned.
    key_pegs : Mastermind feedback per row, (reds, whites), drawn in the key holes.

    Every tile's centre lies on ``geometry.cell_centres_mm() * px_per_mm`` plus its offset.
    """
    game = geometry.game
    grid = [list(row) for row in cells]
    if len(grid) != geometry.rows or any(len(row) != geometry.cols for row in grid):
        raise ValueError(f"cells are {len(grid)} x {len(grid[0]) if grid else 0}; the "
                         f"{game} board is {geometry.rows} x {geometry.cols}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    img = draw_board(geometry, style, px_per_mm, layout)
    cell_px = geometry.cell_mm * px_per_mm
    centres = geometry.cell_centres_mm() * px_per_mm
    size = piece_size_px(game, style, cell_px)
    for r in range(geometry.rows):
        for c in range(geometry.cols):
            value = grid[r][c]
            if value is None:
                continue
            offset, angle = np.zeros(2), 0.0
            if game in TILE_GAMES:
                sprite = draw_tile(game, value, style, size)
                if rng is not None:
                    offset = rng.uniform(-max_offset, max_offset, 2) * cell_px
                    angle = float(rng.uniform(-max_angle, max_angle))
                shadow = style.tile_shadow
            else:
                sprite = draw_piece_top(game, value, style, size)
                if rng is not None:
                    k = max_offset / 4 if game == "mastermind" else max_offset
                    offset = rng.uniform(-k, k, 2) * cell_px
                shadow = 0.0
            if rng is not None:
                offset = _keep_clear(grid, r, c, offset, (cell_px - size) / 2)
            paste_sprite(img, sprite, centres[r, c] + offset, angle, shadow)
    if key_pegs is not None and game == "mastermind":
        _draw_key_pegs(img, geometry, style, px_per_mm, key_pegs)
    return img


def _keep_clear(grid, r, c, offset, slack):
    """Pieces are solid: towards an occupied neighbour a piece moves at most ``slack`` px
    (half the gap between two centred pieces), so neighbours never overlap."""
    ox, oy = offset
    rows, cols = len(grid), len(grid[0])
    if c + 1 < cols and grid[r][c + 1] is not None:
        ox = min(ox, slack)
    if c > 0 and grid[r][c - 1] is not None:
        ox = max(ox, -slack)
    if r + 1 < rows and grid[r + 1][c] is not None:
        oy = min(oy, slack)
    if r > 0 and grid[r - 1][c] is not None:
        oy = max(oy, -slack)
    return np.array([ox, oy])


def _draw_key_pegs(img, geometry, style, ppm, key_pegs):
    (red, _), (white, _) = style.key_palette[0], style.key_palette[1]
    size = max(3, int(round(style.key_peg_frac * geometry.cell_mm * ppm)))
    holes = geometry.key_hole_centres_mm() * ppm
    for r, feedback in enumerate(key_pegs):
        if feedback is None:
            continue
        reds, whites = feedback
        colours = [red] * reds + [white] * whites
        for hole, colour in zip(holes[r], colours):
            paste_sprite(img, draw_piece_top("mastermind", colour, style, size), hole)
