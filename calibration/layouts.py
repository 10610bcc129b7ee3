"""A game's board layout as vision needs it: which kind of square lies where.

Vision must not import the referee; it reads the layout through here. A *kind* is what a
camera can tell apart on an empty board, not what the rules make of it:

========== ==========================================================================
kind       squares
========== ==========================================================================
plain      an ordinary square
premium2   Mixmath "2" (2x); Calculissimo "g", "y" and the start "*" (the 2x squares)
premium3   Mixmath "3" (3x); Calculissimo "b" and "p" (the 3x squares)
sign       Mixmath "+ - x /"
fixed      a square with a printed number that acts as a tile (Mixmath's centre 1 2 3 4)
========== ==========================================================================

>>> kinds = square_kinds("mixmath")
>>> kinds.shape, str(kinds[0, 0]), str(kinds[6, 6]), str(kinds[1, 4])
((14, 14), 'premium3', 'fixed', 'sign')
>>> fixed_numbers("mixmath")
{(6, 6): 1, (6, 7): 2, (7, 6): 3, (7, 7): 4}
>>> square_kinds("breakthrough").shape
(8, 8)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.core import load_definition

KINDS = ("plain", "premium2", "premium3", "sign", "fixed")

_KIND_OF_CHAR = {
    "mixmath": {".": "plain", "2": "premium2", "3": "premium3", "+": "sign", "-": "sign",
                "x": "sign", "/": "sign"},
    "calculissimo": {".": "plain", "g": "premium2", "y": "premium2", "*": "premium2",
                     "b": "premium3", "p": "premium3"},
}


def layout_rows(game: str, rows: int | None = None, cols: int | None = None) -> list[str]:
    """The layout strings of ``game`` (row 0 at the top); all plain when it has none."""
    definition = load_definition(game)
    if "layout" in definition:
        return list(definition["layout"])
    return ["." * (cols or definition["cols"])] * (rows or definition["rows"])


def square_colours(game: str) -> dict[str, str]:
    """{layout character: colour name} where the game's definition names its squares'
    colours: squares of one colour look alike on an empty board whatever their label
    (Calculissimo's start square is yellow like its "y" squares).

    >>> square_colours("calculissimo")["*"], square_colours("mixmath")
    ('yellow', {})
    """
    squares = load_definition(game).get("squares") or {}
    return {ch: sq["colour"] for ch, sq in squares.items() if "colour" in sq}


def blank_tiles(game: str) -> int:
    """How many tiles of ``game``'s set carry no ink: Mixmath's blanks, Calculissimo's
    jokers (0 for games without them).

    >>> blank_tiles("mixmath"), blank_tiles("calculissimo"), blank_tiles("breakthrough")
    (2, 4, 0)
    """
    definition = load_definition(game)
    return int(definition.get("blanks", definition.get("jokers", 0)))


def tile_counts(game: str) -> dict:
    """{value: how many tiles of it ``game``'s set has}, values as ``boardsight read``
    writes them (Mixmath's numbers, Calculissimo's tokens as text), the blank tiles as
    "?". No board holds more of a value than that.

    >>> counts = tile_counts("calculissimo")
    >>> counts["+"], counts["/"], counts["?"], tile_counts("mixmath")[81], sum(counts.values())
    (9, 6, 4, 1, 96)
    """
    definition = load_definition(game)
    if "tiles" in definition:
        counts = {int(v): int(n) for v, n in definition["tiles"].items()}
    else:
        counts = {str(v): int(n) for v, n in definition.get("tokens", {}).items()}
    blanks = blank_tiles(game)
    if blanks:
        counts["?"] = blanks
    return counts


def fixed_numbers(game: str) -> dict[tuple[int, int], int]:
    """{(row, col): number} of the numbers printed on ``game``'s board as tiles
    (:func:`centre_numbers` of its layout)."""
    return centre_numbers(layout_rows(game))


def starred_squares(game: str) -> list[tuple[int, int]]:
    """(row, col) of the squares printed with a star: the start square of a game whose
    definition marks one (``"start": true``; boardsight prints Calculissimo's "★ 2× all"),
    the star a print-and-play joker wears too.

    >>> starred_squares("calculissimo"), starred_squares("mixmath")
    ([(7, 7)], [])
    """
    squares = load_definition(game).get("squares") or {}
    start = {ch for ch, sq in squares.items() if sq.get("start")}
    return [(r, c) for r, row in enumerate(layout_rows(game)) for c, ch in enumerate(row)
            if ch in start]


def centre_numbers(rows: Sequence[str]) -> dict[tuple[int, int], int]:
    """{(row, col): number} of the digits in the central 2 x 2 block of layout ``rows``:
    the numbers printed on the board as tiles (Mixmath's 1 2 3 4; "2" and "3" elsewhere
    are premium squares).

    >>> centre_numbers(["....", ".12.", ".34.", "...."])
    {(1, 1): 1, (1, 2): 2, (2, 1): 3, (2, 2): 4}
    """
    n, m = len(rows), len(rows[0])
    centre = [(r, c) for r in (n // 2 - 1, n // 2) for c in (m // 2 - 1, m // 2)]
    return {(r, c): int(rows[r][c]) for r, c in centre if rows[r][c].isdigit()}


def square_kinds(game: str, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    """(rows, cols) array of kind names (see :data:`KINDS`) for ``game``'s board."""
    table = _KIND_OF_CHAR.get(game, {})
    chars = layout_rows(game, rows, cols)
    kinds = np.array([[table.get(ch, "plain") for ch in row] for row in chars])
    for cell in fixed_numbers(game) if game in _KIND_OF_CHAR else ():
        kinds[cell] = "fixed"
    return kinds
