"""How a physical set looks: colours, faces and shapes, as plain data.

A :class:`Style` says everything :mod:`calibration.artwork` needs to draw a board and its
pieces; geometry (where things are, in mm) lives in :mod:`calibration.geometry`. Colours in
a Style are **RGB** tuples of ints 0..255 (as people write them); every *image* the project
makes is a BGR uint8 array (OpenCV's convention) — :func:`bgr` converts.

Two styles are made here:

- :func:`print_style` — tier 1, exactly what ``boardsight print`` draws (with markers);
- :func:`mathable_style` — the real Mathable set in ``../shared/real/mathable/``, colours
  measured from ``empty-1.jpg`` and ``tile-set.jpg`` (medians of flat patches in daylight).

The renderer's random tier-2 styles (``samples/``) are ``dataclasses.replace`` of these.

>>> s = print_style("mixmath")
>>> s.markers, s.square("2").label, s.square("/").label
(True, '2×', '÷')
>>> bgr((255, 0, 10))
(10, 0, 255)
>>> mathable_style().six_nine_mark
'dot'
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core import GAMES, load_definition

from . import fonts

RGB = tuple[int, int, int]


def bgr(rgb: RGB) -> tuple[int, int, int]:
    """An RGB tuple as the BGR tuple OpenCV draws with."""
    r, g, b = rgb
    return (b, g, r)


def hex_rgb(text: str) -> RGB:
    """``"#1f4f9c"`` -> ``(31, 79, 156)``.

    >>> hex_rgb("#1f4f9c")
    (31, 79, 156)
    """
    text = text.lstrip("#")
    return tuple(int(text[i:i + 2], 16) for i in (0, 2, 4))


@dataclass(frozen=True)
class SquareStyle:
    """A special square: its fill, the label printed on it and the label's colour.

    ``label`` may hold two lines separated by ``"\\n"``: a big first line ("2×") and a
    small second one ("digit"). An empty label prints nothing.
    """

    fill: RGB
    label: str = ""
    label_rgb: RGB = (255, 255, 255)


CENTRE = "centre"
"""Key of the Mixmath centre squares (printed 1 2 3 4) in :attr:`Style.squares`."""


@dataclass(frozen=True)
class Style:
    """How one physical set looks. Frozen and hashable (drawn pieces are cached by it).

    Colours are RGB. Sizes given as a fraction are of one cell (or of one tile); sizes
    in mm scale with the board (they are multiplied by ``cell_mm / 20``, see
    :func:`calibration.artwork.draw_board`, so a style suits any cell size).
    """

    name: str = "print"

    # -- the board
    board_rgb: RGB = (244, 241, 230)      # the board's margin / background
    cell_rgb: RGB = (222, 230, 240)       # a plain square
    line_rgb: RGB = (60, 60, 60)          # grid lines (or the gaps between raised squares)
    line_mm: float = 0.5                  # their width at a 20 mm cell; 0 = no lines
    cell_radius: float = 0.0              # rounded corners of squares, fraction of a cell
    outline_rgb: RGB | None = (40, 40, 40)  # a thin line round the whole board, None = none
    # Special squares by layout character (Mixmath "2" "3" "+" "-" "x" "/", and CENTRE for
    # the printed 1 2 3 4; Calculissimo "g" "b" "y" "p" "*"), as (char, SquareStyle) pairs.
    squares: tuple[tuple[str, SquareStyle], ...] = ()
    square_text: bool = True              # print the labels ("2×", "+") on special squares
    board_font: str | None = None         # face of board labels; None = fonts.print_font()
    markers: bool = True                  # ArUco markers in the corners (print-and-play)

    # -- tiles (Mixmath) and tokens (Calculissimo)
    tile_rgb: RGB = (252, 238, 196)
    tile_edge_rgb: RGB = (150, 130, 90)   # the tile's rim as seen from above
    tile_edge_frac: float = 0.04          # rim width, fraction of the tile
    tile_radius: float = 0.08             # corner radius, fraction of the tile
    tile_shadow: float = 0.0              # 0..1: darkness of the drop shadow draw_position adds
    tile_frac: float = 0.9                # tile size, fraction of a cell (0.8..0.95)
    numeral_rgb: RGB = (25, 25, 30)
    numeral_frac: float = 0.42            # numeral height (ink), fraction of the tile
    font: str | None = None               # path of the numeral face; None = fonts.print_font()
    six_nine_mark: str | None = "underline"   # "underline", "dot" or None
    mark_scope: str = "ambiguous"         # "six_nine": only 6 and 9; "ambiguous": every
                                          # value that reads as another value upside down
    joker_face: str = "star"              # a tile with no value (a Calculissimo joker, a
                                          # Mixmath blank): "star" or "blank"
    operator_shapes: bool = False         # + − × ÷ drawn as shapes made for a camera (a ÷
                                          # whose dots stay apart from its bar in a blurred
                                          # photo) rather than the font's glyphs
    joker_rgb: RGB = (255, 255, 255)

    # -- Mastermind
    peg_palette: tuple[tuple[str, RGB], ...] = (
        ("red", (215, 35, 40)), ("orange", (245, 135, 25)), ("yellow", (250, 215, 35)),
        ("green", (40, 155, 65)), ("cyan", (40, 190, 220)), ("blue", (35, 70, 195)),
        ("pink", (240, 125, 185)), ("white", (245, 245, 240)))
    key_palette: tuple[tuple[str, RGB], ...] = (("red", (215, 35, 40)),
                                                ("white", (245, 245, 240)))
    hole_rgb: RGB = (45, 40, 40)
    hole_frac: float = 0.34               # code-hole diameter, fraction of a cell
    peg_frac: float = 0.66                # code-peg diameter seen from above
    key_hole_frac: float = 0.14           # key-peg hole diameter
    key_peg_frac: float = 0.24            # key-peg diameter seen from above
    shield_rgb: RGB = (190, 182, 170)     # the code-shield area at the top

    # -- Breakthrough
    light_square_rgb: RGB = (240, 217, 181)
    dark_square_rgb: RGB = (181, 136, 99)
    piece_rgb: tuple[tuple[str, RGB], ...] = (("w", (242, 240, 232)), ("b", (38, 36, 36)))
    piece_shape: str = "checker"          # "pawn", "checker" or "stone"
    piece_frac: float = 0.78              # piece diameter seen from above

    def square(self, char: str) -> SquareStyle | None:
        """The special square drawn for a layout character (or CENTRE), None if plain."""
        return dict(self.squares).get(char)

    def peg_rgb(self, colour: str) -> RGB:
        """The RGB of a palette colour name (code pegs, then key pegs)."""
        table = dict(self.key_palette) | dict(self.peg_palette)
        if colour not in table:
            raise KeyError(f"no peg colour {colour!r} in the style's palette "
                           f"({', '.join(n for n, _ in self.peg_palette)})")
        return table[colour]

    def piece_colour(self, side: str) -> RGB:
        """The RGB of a Breakthrough side, "w" or "b"."""
        return dict(self.piece_rgb)[side]

    @property
    def numeral_font(self) -> str | None:
        """The numeral face path to draw with (the style's, else the print face)."""
        return self.font or _default_font()

    @property
    def label_font(self) -> str | None:
        return self.board_font or _default_font()


def _default_font() -> str | None:
    path = fonts.print_font()
    return str(path) if path else None


# Named colours of the game definitions (Calculissimo's "green" premium etc.), print tints.
PRINT_COLOURS: dict[str, RGB] = {
    "green": (70, 165, 80), "blue": (50, 110, 205), "yellow": (246, 206, 60),
    "purple": (140, 85, 175), "red": (208, 58, 47), "orange": (240, 138, 36),
}

_MIXMATH_LABELS = {"2": "2×", "3": "3×", "+": "+", "-": "−", "x": "×", "/": "÷"}


def _mixmath_squares(colours: dict[str, RGB], label_rgb: RGB = (255, 255, 255),
                     centre_text: RGB = (25, 25, 30),
                     premium3_label: RGB | None = None) -> tuple[tuple[str, SquareStyle], ...]:
    sign = colours["sign"]
    return (("2", SquareStyle(colours["premium2"], "2×", label_rgb)),
            ("3", SquareStyle(colours["premium3"], "3×", premium3_label or label_rgb)),
            *((s, SquareStyle(sign, _MIXMATH_LABELS[s], label_rgb)) for s in "+-x/"),
            (CENTRE, SquareStyle(colours["centre"], "", centre_text)))


def _calculissimo_squares() -> tuple[tuple[str, SquareStyle], ...]:
    squares = load_definition("calculissimo")["squares"]
    out = []
    for char, sq in squares.items():
        fill = PRINT_COLOURS[sq["colour"]]
        if sq.get("start"):
            label = f"★\n{sq['factor']}× all"
        else:
            label = f"{sq['factor']}×\n{'digit' if sq['kind'] == 'digit' else 'all'}"
        text = (40, 35, 20) if sq["colour"] == "yellow" else (255, 255, 255)
        out.append((char, SquareStyle(fill, label, text)))
    return tuple(out)


def print_style(game: str) -> Style:
    """Tier 1: the look ``boardsight print`` prints for ``game`` (markers included)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    if game == "mixmath":
        edition = load_definition("mixmath")["edition_colours"]["mixmath"]
        colours = {k: hex_rgb(v) for k, v in edition.items()}
        return Style(name="print-mixmath", board_rgb=colours["board"],
                     squares=_mixmath_squares(colours))
    if game == "calculissimo":
        return Style(name="print-calculissimo", squares=_calculissimo_squares(),
                     tile_rgb=(250, 243, 222), operator_shapes=True)
    if game == "mastermind":
        return Style(name="print-mastermind", board_rgb=(214, 208, 196),
                     cell_rgb=(214, 208, 196), line_mm=0.0)
    return Style(name="print-breakthrough", line_rgb=(90, 70, 50), line_mm=0.4)


def mathable_style() -> Style:
    """The real Mathable set (``../shared/real/mathable/``): blue board whose pale squares
    are raised with dark-blue gaps between them, blue sign squares, purple 2×, orange 3×,
    orange centre with dark numbers; cream wooden tiles almost filling a square, black
    geometric-sans numerals (URW Gothic is the closest installed face) and a dot after
    6 and 9 only. RGB measured as medians of flat patches of the photos."""
    colours = {"sign": (16, 145, 212), "premium2": (130, 99, 179),
               "premium3": (231, 184, 73), "centre": (228, 165, 90)}
    gothic = fonts.face_path("URWGothic-Demi.otf")
    return Style(
        name="mathable",
        board_rgb=(22, 102, 178), cell_rgb=(189, 229, 244), line_rgb=(45, 68, 106),
        line_mm=1.4, cell_radius=0.1, outline_rgb=None,
        squares=_mixmath_squares(colours, label_rgb=(245, 245, 250),
                                 centre_text=(40, 30, 25), premium3_label=(214, 110, 40)),
        board_font=str(gothic) if gothic else None, markers=False,
        tile_rgb=(220, 207, 184), tile_edge_rgb=(185, 170, 145), tile_edge_frac=0.03,
        tile_radius=0.05, tile_shadow=0.35, tile_frac=0.94, numeral_rgb=(20, 20, 26),
        numeral_frac=0.42, font=str(gothic) if gothic else None,
        six_nine_mark="dot", mark_scope="six_nine", joker_face="blank")
