"""The type faces boardsight draws numerals with, and the fixed train / held-out split.

Faces are found on disk (the Debian packages that ``install.sh`` installs) by file name,
from a curated table: each upright regular or bold face of a common sans or serif family
that draws plain digits. Left out on purpose: italics and obliques (tiles are printed
upright), light and hairline weights (thin strokes vanish in a photo), monospaced faces
(slashed or dotted zeros), symbol and dingbat faces (no digits), condensed cuts.

The split is by *look*, not by file: near-identical clones (Helvetica = Nimbus Sans = TeX
Gyre Heros = FreeSans; Times = Nimbus Roman = TeX Gyre Termes = FreeSerif; Palatino = P052
= TeX Gyre Pagella; Century Schoolbook = C059 = TeX Gyre Schola) always fall on the same
side, so a HELD-OUT face is one the digit classifier has never seen in any disguise.

========  ==========================================================================
TRAIN     DejaVu Sans, DejaVu Serif, Liberation Sans/Serif, Nimbus Sans/Roman,
          TeX Gyre Heros/Termes/Adventor/Bonum, FreeSans, FreeSerif, URW Gothic,
          URW Bookman, Open Sans, Cantarell
HELD-OUT  Roboto, Lato, Carlito, P052 + TeX Gyre Pagella (Palatino),
          C059 + TeX Gyre Schola (Century Schoolbook)
========  ==========================================================================

>>> [p.name for p in font_faces("sans")][:2]  # doctest: +SKIP
['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts"))
"""Where installed faces are looked for (Debian puts TeX Gyre under texmf)."""


@dataclass(frozen=True)
class Face:
    """One font file: its family, ``"sans"`` or ``"serif"``, weight and side of the split."""

    file: str  # the file name, found anywhere under FONT_DIRS
    family: str
    kind: str  # "sans" | "serif"
    bold: bool
    held_out: bool


def _family(family: str, kind: str, regular: str, bold: str, held_out: bool = False):
    return (Face(regular, family, kind, False, held_out), Face(bold, family, kind, True, held_out))


# The table, in the order faces are returned: train families first, then held-out ones.
FACES: tuple[Face, ...] = (
    *_family("DejaVu Sans", "sans", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    *_family("DejaVu Serif", "serif", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"),
    *_family("Liberation Sans", "sans", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"),
    *_family("Liberation Serif", "serif", "LiberationSerif-Regular.ttf",
             "LiberationSerif-Bold.ttf"),
    *_family("Nimbus Sans", "sans", "NimbusSans-Regular.otf", "NimbusSans-Bold.otf"),
    *_family("Nimbus Roman", "serif", "NimbusRoman-Regular.otf", "NimbusRoman-Bold.otf"),
    *_family("TeX Gyre Heros", "sans", "texgyreheros-regular.otf", "texgyreheros-bold.otf"),
    *_family("TeX Gyre Termes", "serif", "texgyretermes-regular.otf", "texgyretermes-bold.otf"),
    *_family("TeX Gyre Adventor", "sans", "texgyreadventor-regular.otf",
             "texgyreadventor-bold.otf"),
    *_family("TeX Gyre Bonum", "serif", "texgyrebonum-regular.otf", "texgyrebonum-bold.otf"),
    *_family("FreeSans", "sans", "FreeSans.ttf", "FreeSansBold.ttf"),
    *_family("FreeSerif", "serif", "FreeSerif.ttf", "FreeSerifBold.ttf"),
    *_family("URW Gothic", "sans", "URWGothic-Book.otf", "URWGothic-Demi.otf"),
    *_family("URW Bookman", "serif", "URWBookman-Light.otf", "URWBookman-Demi.otf"),
    *_family("Open Sans", "sans", "OpenSans-Regular.ttf", "OpenSans-Bold.ttf"),
    *_family("Cantarell", "sans", "Cantarell-Regular.otf", "Cantarell-Bold.otf"),
    # held out: never used to train the digit classifier
    *_family("Roboto", "sans", "Roboto-Regular.ttf", "Roboto-Bold.ttf", held_out=True),
    *_family("Lato", "sans", "Lato-Regular.ttf", "Lato-Bold.ttf", held_out=True),
    *_family("Carlito", "sans", "Carlito-Regular.ttf", "Carlito-Bold.ttf", held_out=True),
    *_family("P052", "serif", "P052-Roman.otf", "P052-Bold.otf", held_out=True),
    *_family("TeX Gyre Pagella", "serif", "texgyrepagella-regular.otf",
             "texgyrepagella-bold.otf", held_out=True),
    *_family("C059", "serif", "C059-Roman.otf", "C059-Bold.otf", held_out=True),
    *_family("TeX Gyre Schola", "serif", "texgyreschola-regular.otf", "texgyreschola-bold.otf",
             held_out=True),
)

PRINT_FACE = "DejaVuSans-Bold.ttf"
"""The print-and-play face: wide open counters, distinct 1/7 and 6/9/0, in every Debian."""


@lru_cache(maxsize=1)
def _installed() -> dict[str, Path]:
    """File name -> path of every font file under FONT_DIRS (first found, sorted walk)."""
    found: dict[str, Path] = {}
    for root in FONT_DIRS:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.suffix.lower() in (".ttf", ".otf"):
                    found.setdefault(path.name, path)
    return found


def installed_faces(kind: str = "any") -> list[Face]:
    """The table's faces that are installed here, in table order."""
    if kind not in ("sans", "serif", "any"):
        raise ValueError(f'font kind must be "sans", "serif" or "any", not {kind!r}')
    have = _installed()
    return [f for f in FACES if f.file in have and kind in ("any", f.kind)]


def face_path(face: Face | str) -> Path | None:
    """Where a face (or a file name from the table) is installed, or None."""
    return _installed().get(face.file if isinstance(face, Face) else face)


def font_faces(kind: str = "any") -> list[Path]:
    """Installed upright regular and bold faces usable for numerals, in a fixed order.

    ``kind`` is ``"sans"``, ``"serif"`` or ``"any"``. Train faces come first, then
    held-out ones; within each, the order of the table above.
    """
    return [face_path(f) for f in installed_faces(kind)]


def font_split(kind: str = "any") -> tuple[list[Path], list[Path]]:
    """(train, held_out) faces: the digit classifier trains on the first, the benchmark
    renders with the second. The split is fixed by family (see the module docstring)."""
    faces = installed_faces(kind)
    return ([face_path(f) for f in faces if not f.held_out],
            [face_path(f) for f in faces if f.held_out])


def print_font() -> Path | None:
    """The face ``boardsight print`` uses (DejaVu Sans Bold), else the first installed
    sans face, else None (Pillow's built-in font is then used)."""
    path = face_path(PRINT_FACE)
    if path is None:
        sans = font_faces("sans")
        path = sans[0] if sans else None
    return path
