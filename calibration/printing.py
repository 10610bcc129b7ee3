"""Print-and-play sets: ``boardsight print GAME OUT.pdf|OUT.png``.

A set is a list of :class:`Page` rasters at ``dpi`` (markers are drawn supersampled to the
exact mm, so they stay crisp), written as one PDF (each page one lossless image) or as
PNG files:

1. the board with its ArUco corner markers; when it is larger than the paper's printable
   area it is split into a grid of pages that overlap by ``OVERLAP_MM``: every page after
   the first in its row (column) carries a dashed cut line in the overlap, the page it is
   glued onto a tinted glue strip, both the same registration crosses, and a legend
   ("page 2 of 4 - cut along the dashed line, glue to the right of page 1");
2. cut-out sheets of the game's full set: Mixmath's 108 tiles; Calculissimo's tokens and
   jokers; Mastermind's peg-colour calibration strip (one labelled swatch per palette
   colour, code and key pegs); Breakthrough's pieces as discs for those with no pawns.

Sheets are laid out by :func:`sheet_layout`, which returns where every item went, so the
tests check the set by construction.

>>> paper_size_mm("a4")
(210.0, 297.0)
>>> [len(page) for page in sheet_layout(["a"] * 7, 50, 50, (0, 0, 160, 110))]
[6, 1]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

from referee.core import GAMES, load_definition

from . import artwork
from .geometry import BoardGeometry, board_geometry
from .styles import RGB, Style, bgr, print_style

PAPERS_MM = {"a4": (210.0, 297.0), "a3": (297.0, 420.0), "letter": (215.9, 279.4)}
"""Portrait (width, height) of the papers ``boardsight print`` knows."""

PAGE_MARGIN_MM = 10.0   # most printers cannot print closer to the edge
LEGEND_MM = 9.0         # strip at the foot of a page for its legend
OVERLAP_MM = 14.0       # split boards: how far neighbouring pages overlap
CROP_MARK_MM = (2.0, 6.0)  # gap from the board's corner, length of a crop mark
CUT_LINE_RGB: RGB = (150, 150, 150)
MARK_RGB: RGB = (220, 0, 140)  # registration crosses and cut lines, a colour no game uses
SWATCH_MM = 24.0        # peg-colour calibration swatches
SWATCH_LABEL_MM = 7.0   # room for the colour's name under its swatch


def paper_size_mm(paper: str) -> tuple[float, float]:
    """Portrait (width, height) in mm of ``"a4"``, ``"a3"`` or ``"letter"``."""
    key = paper.lower()
    if key not in PAPERS_MM:
        raise ValueError(f"unknown paper {paper!r}; choose one of {', '.join(PAPERS_MM)}")
    return PAPERS_MM[key]


def printable_area_mm(page_mm: tuple[float, float]) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the area a page's content may use: inside the margins, above
    the legend."""
    w, h = page_mm
    return (PAGE_MARGIN_MM, PAGE_MARGIN_MM, w - PAGE_MARGIN_MM, h - PAGE_MARGIN_MM - LEGEND_MM)


@dataclass
class Page:
    """One printed page: a BGR raster of the whole sheet and what is on it.

    ``board_origin_px``: for board pages, the page pixel where the board's point (0, 0) mm
    lies (the board is drawn at ``dpi / 25.4`` px per mm), so a board point (x, y) mm is at
    ``board_origin_px + (x, y) * px_per_mm``. ``window_mm``: the part of the board shown.
    ``items``: for sheets, ``(value, (x0, y0, x1, y1) mm on the page)`` of every piece drawn.
    """

    kind: str                    # "board", "tiles", "pieces", "calibration"
    image: np.ndarray
    dpi: float
    legend: str = ""
    board_origin_px: tuple[int, int] | None = None
    window_mm: tuple[float, float, float, float] | None = None
    grid_pos: tuple[int, int] | None = None      # (row, col) of a split board's page
    items: list[tuple[object, tuple[float, float, float, float]]] = field(default_factory=list)
    texts: list = field(default_factory=list, repr=False)  # (text, xy px, height px, anchor)
    # still to be drawn; render_pages draws them with the legend and empties the list

    @property
    def size_mm(self) -> tuple[float, float]:
        h, w = self.image.shape[:2]
        return w / self.dpi * 25.4, h / self.dpi * 25.4


# -- layout (pure functions: tested on their own)


@dataclass(frozen=True)
class BoardSplit:
    """How a board is spread over pages: ``cols`` x ``rows`` windows (x0, y0, x1, y1) mm
    of the board, row-major, on pages of ``page_mm`` (portrait or landscape)."""

    page_mm: tuple[float, float]
    cols: int
    rows: int
    windows: tuple[tuple[float, float, float, float], ...]

    @property
    def pages(self) -> int:
        return self.cols * self.rows


def _split_axis(length: float, room: float) -> list[tuple[float, float]]:
    """Equal windows of at most ``room`` covering [0, length], neighbours overlapping by
    OVERLAP_MM."""
    if length <= room:
        return [(0.0, length)]
    n = math.ceil((length - OVERLAP_MM) / (room - OVERLAP_MM))
    size = (length + (n - 1) * OVERLAP_MM) / n
    return [(i * (size - OVERLAP_MM), i * (size - OVERLAP_MM) + size) for i in range(n)]


def split_board(board_mm: tuple[float, float], paper: str) -> BoardSplit:
    """The split of a board of ``board_mm`` (width, height) over the fewest pages of
    ``paper``, portrait preferred on a tie.

    >>> s = split_board((316.0, 316.0), "a4")
    >>> s.cols, s.rows, s.page_mm
    (2, 2, (210.0, 297.0))
    >>> split_board((112.0, 243.2), "a4").pages
    1
    """
    w, h = paper_size_mm(paper)
    best = None
    for page in ((w, h), (h, w)):
        x0, y0, x1, y1 = printable_area_mm(page)
        xs, ys = _split_axis(board_mm[0], x1 - x0), _split_axis(board_mm[1], y1 - y0)
        split = BoardSplit(page, len(xs), len(ys),
                           tuple((a, b, c, d) for b, d in ys for a, c in xs))
        if best is None or split.pages < best.pages:
            best = split
    return best


def sheet_layout(values: Sequence, item_w_mm: float, item_h_mm: float,
                 area_mm: tuple[float, float, float, float], gap_mm: float = 0.0
                 ) -> list[list[tuple[object, tuple[float, float, float, float]]]]:
    """Lay items out row by row over as many sheets as needed.

    Returns, per sheet, ``(value, (x0, y0, x1, y1))`` boxes in page mm, inside ``area_mm``
    and not overlapping (neighbours share a cut line when ``gap_mm`` is 0); the grid is
    centred in the area.
    """
    ax0, ay0, ax1, ay1 = area_mm
    per_row = int((ax1 - ax0 + gap_mm) // (item_w_mm + gap_mm))
    per_col = int((ay1 - ay0 + gap_mm) // (item_h_mm + gap_mm))
    if per_row < 1 or per_col < 1:
        raise ValueError(f"an item of {item_w_mm:.0f} x {item_h_mm:.0f} mm does not fit on "
                         "the paper; use a smaller --cell-mm or a larger paper")
    per_sheet = per_row * per_col
    sheets = []
    for start in range(0, len(values), per_sheet):
        chunk = list(values[start:start + per_sheet])
        used_cols = min(per_row, len(chunk))
        used_rows = math.ceil(len(chunk) / per_row)
        grid_w = used_cols * item_w_mm + (used_cols - 1) * gap_mm
        ox = ax0 + (ax1 - ax0 - grid_w) / 2
        oy = ay0
        sheet = []
        for k, value in enumerate(chunk):
            r, c = divmod(k, per_row)
            x0 = ox + c * (item_w_mm + gap_mm)
            y0 = oy + r * (item_h_mm + gap_mm)
            sheet.append((value, (x0, y0, x0 + item_w_mm, y0 + item_h_mm)))
        assert used_rows <= per_col
        sheets.append(sheet)
    return sheets


def full_set(game: str, rows: int | None = None, cols: int | None = None) -> list:
    """Every piece of the game's set in print order: Mixmath's numbered tiles (repeats
    included) then the blanks; Calculissimo's tokens then jokers ("?"); Breakthrough's
    pieces for an R x C board (its home rows full, "w" then "b"); Mastermind none (pegs
    are not printed: the calibration strip shows their colours).

    >>> len(full_set("mixmath")), full_set("mixmath")[-1]
    (108, 'blank')
    >>> len(full_set("breakthrough", 5, 6))
    24
    """
    d = load_definition(game)
    if game == "mixmath":
        numbered = [int(v) for v, n in d["tiles"].items() for _ in range(n)]
        return sorted(numbered) + [artwork.BLANK] * d["blanks"]
    if game == "calculissimo":
        return [t for t, n in d["tokens"].items() for _ in range(n)] + ["?"] * d["jokers"]
    if game == "breakthrough":
        per_side = d["home_rows"] * (cols or d["cols"])
        return ["w"] * per_side + ["b"] * per_side
    return []


# -- drawing pages


def _page_canvas(page_mm, ppm) -> np.ndarray:
    w, h = page_mm
    return np.full((round(h * ppm), round(w * ppm), 3), 255, np.uint8)


def _px(v_mm: float, ppm: float) -> int:
    return int(round(v_mm * ppm))


def _dashed_line(img, p0, p1, colour: RGB, thick: int, dash: int):
    (x0, y0), (x1, y1) = p0, p1
    length = math.hypot(x1 - x0, y1 - y0)
    steps = max(1, int(length // dash))
    for k in range(0, steps, 2):
        a, b = k / steps, min(1.0, (k + 1) / steps)
        cv2.line(img, (int(x0 + (x1 - x0) * a), int(y0 + (y1 - y0) * a)),
                 (int(x0 + (x1 - x0) * b), int(y0 + (y1 - y0) * b)), bgr(colour), thick)


def _cross(img, centre, size: int, thick: int):
    x, y = centre
    cv2.line(img, (x - size, y), (x + size, y), bgr(MARK_RGB), thick)
    cv2.line(img, (x, y - size), (x, y + size), bgr(MARK_RGB), thick)
    cv2.circle(img, (x, y), size // 2, bgr(MARK_RGB), thick)


def _draw_texts(img: np.ndarray, texts: list[tuple[str, tuple[float, float], float, str]],
                font: str | None) -> np.ndarray:
    """Draw (text, (x, y) px, height px, anchor) with Pillow; returns the new BGR image."""
    if not texts:
        return img
    pil = Image.fromarray(img[:, :, ::-1])
    draw = ImageDraw.Draw(pil)
    for text, xy, height, anchor in texts:
        draw.text(xy, text, font=artwork._font(font, int(height)), fill=(30, 30, 30),
                  anchor=anchor)
    return np.ascontiguousarray(np.asarray(pil)[:, :, ::-1])


def board_pages(geometry: BoardGeometry, style: Style, paper: str = "a4",
                dpi: float = 300, title: str = "") -> list[Page]:
    """The board, split over as many pages of ``paper`` as it needs (see module doc)."""
    ppm = dpi / 25.4
    board = artwork.draw_board(geometry, style, ppm)
    split = split_board(geometry.size_mm, paper)
    ax0, ay0, ax1, ay1 = printable_area_mm(split.page_mm)
    bw, bh = geometry.size_mm
    pages = []
    thin = max(1, _px(0.25, ppm))
    for k, (wx0, wy0, wx1, wy1) in enumerate(split.windows):
        row, col = divmod(k, split.cols)
        img = _page_canvas(split.page_mm, ppm)
        # the window's top-left goes to the printable area's top-left (a lone page: centred)
        px0 = ax0 + ((ax1 - ax0) - (wx1 - wx0)) / 2 if split.cols == 1 else ax0
        py0 = ay0 + ((ay1 - ay0) - (wy1 - wy0)) / 2 if split.rows == 1 else ay0
        ox, oy = _px(px0 - wx0, ppm), _px(py0 - wy0, ppm)   # page px of board (0, 0)
        bx0, by0 = _px(wx0, ppm), _px(wy0, ppm)
        bx1, by1 = min(_px(wx1, ppm), board.shape[1]), min(_px(wy1, ppm), board.shape[0])
        img[oy + by0:oy + by1, ox + bx0:ox + bx1] = board[by0:by1, bx0:bx1]
        texts = []

        def to_px(x_mm, y_mm):
            return ox + _px(x_mm, ppm), oy + _px(y_mm, ppm)

        # crop marks at the board's own corners on this page
        g, length = CROP_MARK_MM
        for cx, cy, sx, sy in ((0, 0, -1, -1), (bw, 0, 1, -1), (bw, bh, 1, 1), (0, bh, -1, 1)):
            if wx0 <= cx <= wx1 and wy0 <= cy <= wy1:
                x, y = to_px(cx, cy)
                cv2.line(img, (x + sx * _px(g, ppm), y), (x + sx * _px(g + length, ppm), y),
                         (0, 0, 0), thin)
                cv2.line(img, (x, y + sy * _px(g, ppm)), (x, y + sy * _px(g + length, ppm)),
                         (0, 0, 0), thin)
        # split boards: cut lines, glue strips and registration crosses in the overlaps
        if split.pages > 1:
            _mark_overlaps(img, split, row, col, to_px, ppm, texts)
        pages.append(Page("board", img, dpi, _board_legend(title, split, row, col),
                          board_origin_px=(ox, oy), window_mm=(wx0, wy0, wx1, wy1),
                          grid_pos=(row, col), texts=texts))
    return pages


def _mark_overlaps(img, split: BoardSplit, row, col, to_px, ppm, texts):
    wx0, wy0, wx1, wy1 = split.windows[row * split.cols + col]
    thick = max(1, _px(0.35, ppm))
    cross = _px(2.5, ppm)
    tint = np.array(bgr(MARK_RGB), np.float32)

    def glue_strip(x0, y0, x1, y1):
        (a, b), (c, d) = to_px(x0, y0), to_px(x1, y1)
        roi = img[b:d, a:c].astype(np.float32)
        img[b:d, a:c] = (roi * 0.85 + tint * 0.15).astype(np.uint8)

    crosses_x = []   # board mm of the registration crosses in vertical overlaps
    # vertical overlaps: with the page to the left (cut here) and to the right (glue here)
    if col > 0:
        cut = wx0 + OVERLAP_MM / 2
        _dashed_line(img, to_px(cut, wy0), to_px(cut, wy1), MARK_RGB, thick, _px(3, ppm))
        crosses_x.append(cut + OVERLAP_MM / 4)
    if col < split.cols - 1:
        nx0 = split.windows[row * split.cols + col + 1][0]
        glue_strip(nx0 + OVERLAP_MM / 2, wy0, wx1, wy1)
        crosses_x.append(nx0 + OVERLAP_MM * 3 / 4)
    for x in crosses_x:
        for f in (0.2, 0.5, 0.8):
            _cross(img, to_px(x, wy0 + f * (wy1 - wy0)), cross, thick)
    crosses_y = []
    if row > 0:
        cut = wy0 + OVERLAP_MM / 2
        _dashed_line(img, to_px(wx0, cut), to_px(wx1, cut), MARK_RGB, thick, _px(3, ppm))
        crosses_y.append(cut + OVERLAP_MM / 4)
    if row < split.rows - 1:
        ny0 = split.windows[(row + 1) * split.cols + col][1]
        glue_strip(wx0, ny0 + OVERLAP_MM / 2, wx1, wy1)
        crosses_y.append(ny0 + OVERLAP_MM * 3 / 4)
    for y in crosses_y:
        for f in (0.2, 0.5, 0.8):
            _cross(img, to_px(wx0 + f * (wx1 - wx0), y), cross, thick)


def _board_legend(title, split: BoardSplit, row, col) -> str:
    number = row * split.cols + col + 1
    if split.pages == 1:
        return f"{title} board - cut along the crop marks"
    parts = []
    if col > 0:
        parts.append(f"glue to the right of page {number - 1}")
    if row > 0:
        parts.append(f"glue below page {number - split.cols}")
    how = ("cut along the dashed line, " + " and ".join(parts)) if parts else \
        "the top-left part: the other pages are glued onto its tinted strips"
    return (f"{title} board - page {number} of {split.pages} "
            f"(row {row + 1}, column {col + 1} of {split.rows} x {split.cols}): {how}")


def sheet_pages(kind: str, values: Sequence, item_mm: float, draw_item, paper: str,
                dpi: float, title: str, round_cut: bool = False) -> list[Page]:
    """Cut-out sheets: ``draw_item(value, size_px) -> BGRA`` drawn in item_mm squares with
    grey cut lines round each (circles when ``round_cut``)."""
    ppm = dpi / 25.4
    page_mm = paper_size_mm(paper)
    area = printable_area_mm(page_mm)
    gap = 2.0 if round_cut else 0.0
    pages = []
    sheets = sheet_layout(values, item_mm, item_mm, area, gap)
    thin = max(1, _px(0.2, ppm))
    for n, sheet in enumerate(sheets, 1):
        img = _page_canvas(page_mm, ppm)
        for value, (x0, y0, x1, y1) in sheet:
            a, b, c, d = _px(x0, ppm), _px(y0, ppm), _px(x1, ppm), _px(y1, ppm)
            sprite = draw_item(value, min(c - a, d - b))
            artwork.paste_sprite(img, sprite, ((a + c - 1) / 2, (b + d - 1) / 2))
            if round_cut:
                cv2.circle(img, ((a + c) // 2, (b + d) // 2), (c - a) // 2 + _px(0.6, ppm),
                           bgr(CUT_LINE_RGB), thin, cv2.LINE_AA)
            else:
                cv2.rectangle(img, (a, b), (c, d), bgr(CUT_LINE_RGB), thin)
        page = Page(kind, img, dpi, items=list(sheet))
        page.legend = f"{title} {kind} - sheet {n} of {len(sheets)}: cut along the grey lines"
        pages.append(page)
    return pages


def calibration_page(style: Style, paper: str, dpi: float, title: str) -> Page:
    """Mastermind's peg-colour strip: one labelled swatch (a peg-sized disc on a square of
    its colour) per code and key colour, for the camera's calibration photo."""
    ppm = dpi / 25.4
    page_mm = paper_size_mm(paper)
    area = printable_area_mm(page_mm)
    names = [n for n, _ in style.peg_palette]
    keys = [f"key {n}" for n, _ in style.key_palette]
    cell_h = SWATCH_MM + SWATCH_LABEL_MM
    layout = sheet_layout(names + keys, SWATCH_MM, cell_h, area, gap_mm=4.0)
    if len(layout) != 1:
        raise ValueError("the peg calibration strip does not fit on one page")
    img = _page_canvas(page_mm, ppm)
    texts = []
    items = []
    for name, (x0, y0, x1, y1) in layout[0]:
        colour = style.peg_rgb(name.removeprefix("key "))
        box = (x0, y0, x1, y0 + SWATCH_MM)
        cv2.rectangle(img, (_px(box[0], ppm), _px(box[1], ppm)),
                      (_px(box[2], ppm) - 1, _px(box[3], ppm) - 1), bgr(colour), -1)
        cv2.rectangle(img, (_px(box[0], ppm), _px(box[1], ppm)),
                      (_px(box[2], ppm) - 1, _px(box[3], ppm) - 1), (90, 90, 90),
                      max(1, _px(0.2, ppm)))
        texts.append((name, (_px((x0 + x1) / 2, ppm), _px(y0 + SWATCH_MM + 1.0, ppm)),
                      _px(3.2, ppm), "mt"))
        items.append((name, box))
    page = Page("calibration", img, dpi, items=items)
    page.legend = (f"{title} peg colours - a calibration strip: photograph it beside the "
                   "board, in your light, so the camera learns the pegs' colours")
    page.texts = texts
    return page


def render_pages(game: str, paper: str = "a4", cell_mm: float | None = None,
                 rows: int | None = None, cols: int | None = None, dpi: float = 300,
                 style: Style | None = None) -> list[Page]:
    """Every page of ``game``'s print-and-play set, legends drawn, in print order."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    definition = load_definition(game)
    if game != "breakthrough" and ((rows and rows != definition["rows"])
                                   or (cols and cols != definition["cols"])):
        raise ValueError(f"{game} is always {definition['rows']} x {definition['cols']}; "
                         "--rows and --cols are for Breakthrough")
    if cell_mm is not None and not 5 <= cell_mm <= 80:
        raise ValueError(f"--cell-mm {cell_mm} is out of range (5..80 mm)")
    paper_size_mm(paper)
    geometry = board_geometry(game, rows, cols, cell_mm)
    style = style or print_style(game)
    title = definition.get("title", game).split(" (")[0].split(",")[0]
    pages = board_pages(geometry, style, paper, dpi, title)
    cell = geometry.cell_mm
    if game in artwork.TILE_GAMES:
        item = round(style.tile_frac * cell, 2)
        kind = "tiles" if game == "mixmath" else "tokens"
        pages += sheet_pages(kind, full_set(game), item,
                             lambda v, s: artwork.draw_tile(game, v, style, s), paper, dpi,
                             title)
    elif game == "breakthrough":
        item = round(style.piece_frac * cell, 2)
        pages += sheet_pages("pieces", full_set(game, geometry.rows, geometry.cols), item,
                             lambda v, s: artwork.draw_piece_top(game, v, style, s), paper,
                             dpi, title, round_cut=True)
    else:
        pages.append(calibration_page(style, paper, dpi, title))
    total = len(pages)
    ppm = dpi / 25.4
    for n, page in enumerate(pages, 1):
        w_mm, h_mm = page.size_mm
        legend = f"boardsight  |  {page.legend}  |  {n}/{total}"
        texts, page.texts = page.texts, []
        size = _px(3.0, ppm)
        font_size = size
        # shrink a long legend to the page width
        font = style.label_font
        width = artwork._font(font, font_size).getlength(legend)
        room = (w_mm - 2 * PAGE_MARGIN_MM) * ppm
        if width > room:
            font_size = int(font_size * room / width)
        texts.append((legend, (_px(PAGE_MARGIN_MM, ppm), _px(h_mm - PAGE_MARGIN_MM, ppm)),
                      font_size, "ls"))
        page.image = _draw_texts(page.image, texts, font)
    return pages


def print_game(game: str, out_path: str | Path, paper: str = "a4",
               cell_mm: float | None = None, rows: int | None = None,
               cols: int | None = None, dpi: float = 300) -> list[Path]:
    """Write ``game``'s print-and-play set to ``out_path`` and return the files written.

    ``OUT.pdf``: one PDF, a page per sheet, each page one lossless raster at ``dpi``.
    ``OUT.png``: ``OUT.png`` when the set is one page, else ``OUT-1.png``, ``OUT-2.png`` ...
    (with the dpi in the PNG header). Raises ValueError for an unknown game or paper, an
    extension other than .pdf / .png, or sizes that do not fit.
    """
    out = Path(out_path)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise ValueError(f"{out}: write a .pdf or a .png")
    pages = render_pages(game, paper, cell_mm, rows, cols, dpi)
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".png":
        paths = [out] if len(pages) == 1 else \
            [out.with_name(f"{out.stem}-{n}{out.suffix}") for n in range(1, len(pages) + 1)]
        for page, path in zip(pages, paths):
            Image.fromarray(page.image[:, :, ::-1]).save(path, dpi=(dpi, dpi), optimize=False)
        return paths
    _write_pdf(pages, out, game)
    return [out]


def _write_pdf(pages: list[Page], out: Path, game: str) -> None:
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format=pages[0].size_mm)
    pdf.set_auto_page_break(False)
    pdf.set_title(f"boardsight print-and-play: {game}")
    pdf.set_creator("boardsight")
    for page in pages:
        w, h = page.size_mm
        pdf.add_page(format=(w, h))
        pdf.image(Image.fromarray(page.image[:, :, ::-1]), x=0, y=0, w=w, h=h)
    pdf.output(str(out))
