"""Read the cells of a rectified Mixmath or Calculissimo grid: empty, or the tile's value.

The input is the top-down image of just the playing grid (``vision.board.rectify_grid``):
cell (r, c) is ``grid[r*p:(r+1)*p, c*p:(c+1)*p]``. One pass over the whole grid:

1. **Colour statistics per cell** (vectorised): the *face* colour (median of the cell's
   centre) and the darkest ink level. A cell holds a tile when its face is light and
   near-grey (tiles are cream, ivory, pale wood) *and* it carries dark, near-grey ink of a
   plausible amount. Special squares are coloured (their face fails the first test) and
   plain squares carry no ink; the centre 1-2-3-4 are dark numerals on orange: not a tile.
2. **Ink components** of all tile cells in one ``connectedComponentsWithStats`` call over a
   per-cell threshold map; per cell they are filtered (specks, grid-line pieces, the
   underline or dot that marks 6 and 9), grouped into glyphs (components that overlap
   horizontally: ÷, =, a broken stroke) and, on Mixmath, a glyph too wide for one digit
   is split in two at its thinnest column.
3. **Glyph classifier** (:mod:`vision.digits`): shape features and a small model trained on
   many fonts, one batched call for the whole board; a Mixmath number must be in the tile
   set (0..20 and products of two numbers 1..10): the best *valid* reading is chosen, and
   its probability is the cell's confidence. Doubtful cells are cut again in other ways
   (:func:`other_cuts`); on Mixmath a whole-tile model (:mod:`vision.tilemodel`: all the
   ink round the glyphs, uncut, scored over the 46 tile values) is a second opinion
   multiplied in (:func:`combine_readings`): a 0 broken in two arcs or a digit the
   cutting dropped reads right, or comes out unsure.
4. **Tesseract** only for cells still unsure, all pasted into one strip image and read in
   one ``pytesseract`` call per board (digits only; tokens rely on the classifier).
5. **Occlusion**: skin-coloured cells, or cells whose face is neither board nor tile,
   grouped into blobs; a blob large enough to be a hand or arm marks its cells occluded.

Cell values: Mixmath an int 0..99, Calculissimo ``"0".."9" "+" "-" "x" "/"`` or ``"?"``
(a joker); None = empty (or occluded).

>>> grid = np.full((64, 128, 3), (240, 230, 220), np.uint8)   # two plain light squares
>>> cells, conf, occluded = read_cells(grid, "mixmath", shape=(1, 2))
>>> cells, occluded
([[None, None]], [])
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field, fields, replace
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np

from . import digits, tilemodel
from .blanks import BlanksConfig, find_blanks, plane_across, rim_profiles

GAMES = ("mixmath", "calculissimo")
"""The games whose cells hold numbered tiles or tokens."""


def mixmath_tile_values() -> frozenset[int]:
    """The numbers printed on Mixmath tiles: 0..20 and the products a*b of 1..10 up to 90.

    >>> v = mixmath_tile_values(); len(v), 90 in v, 23 in v, 100 in v
    (46, True, False, False)
    """
    products = {a * b for a in range(1, 11) for b in range(1, 11)}
    return frozenset(set(range(21)) | {n for n in products if n <= 90})


MIXMATH_VALUES = mixmath_tile_values()
_PAIR_VALUES = sorted(v for v in MIXMATH_VALUES if v >= 10)   # two-digit tiles, ascending


@dataclass(frozen=True)
class TilesConfig:
    """Tunables of the cell reader. Lengths are fractions of a cell; colours are 8-bit
    OpenCV Lab (L 0..255, a/b offset by 128) or 8-bit grey levels."""

    stats_px: int = 16                  # cell side of the downsampled image for colour stats
    face_frac: float = 0.6              # central part of a cell whose colour is the face's ...
    face_band: tuple[float, float] = (0.45, 0.85)  # ... from this band of its pixels by
                                        # lightness (numerals up to ~45 % of the centre are
                                        # darker, a square's light label up to 15 % lighter)
    zone_frac: float = 0.93             # central part of a cell where ink may lie: a
                                        # pair's outer digit on a tile a tenth of a cell
                                        # off centre (BOARDS.md) reaches ~0.45 cell out
                                        # (0.9: a real set's 1 touched the zone's side
                                        # and was dropped as the square's colour)
    tile_tops: tuple[float, int] | None = (0.05, 6)  # when the ink of the tiles cut
                                        # lies at least this far (of a cell) off their
                                        # cells' centres, the median of this many or more:
                                        # thick tiles seen at a slant, their faces standing
                                        # off the board's plane; their glyphs are cut again
                                        # with the cells moved onto them (_on_tile_tops)
    dark_frac: float = 0.6              # central part where ink level and share are measured
    face_min_l: float = 60.0            # a tile face is not dark ...
    face_max_chroma: float = 75.0       # ... and not vivid (cream under 2700 K reaches ~55;
                                        # coloured squares are told apart by their kind)
    ink_min_contrast: float = 18.0      # face grey minus darkest (3x3-blurred) ink grey,
    ink_min_rel_contrast: float = 0.15  # ... also relative to the face (dim light); empty
                                        # squares reach ~20 (noise, fold lines, the edge of
                                        # a neighbour's tile): glyph cutting rejects those
    ink_colour_spread: float = 30.0     # ... unless the ink is this much more coloured
                                        # than the face (pale orange numerals overexposed)
    ink_max_spread: float = 150.0       # ink is dark (black, navy, brown, dark red): its
    ink_spread_face: float = 0.8        # spread is at most this + this * the face's
                                        # (coloured print fails; a joker's red star
                                        # photographed bright spreads up to ~140)
    ink_min_frac: float = 0.012         # share of the centre that is ink on a tile
    ink_max_frac: float = 0.6           # (a bold "80" fills ~half the centre)
    ink_level: float = 0.5              # ink is darker than face - ink_level * contrast;
    ink_grow_level: float = 0.3         # ... and grows into pixels darker than this level
                                        # (hysteresis: faint strokes stay joined)
    faint_level: float = 0.1            # a doubtful cell's glyphs are grown this far too
                                        # (:func:`faint_cut`: hairlines lost in blur)

    surround_dark: float = 0.6          # a strip along a cell's side this much ink-dark is
    face_inset: float = 0.04            # the square round the tile (and this much its rim)
    speck_area: float = 0.0025          # components smaller than this * p^2 are noise
    glyph_min_h: float = 0.14           # a glyph is at least this tall ...
    glyph_max_h: float = 0.80           # ... at most this tall
    glyph_max_w: float = 0.85
    edge_band: float = 0.12             # a thin component this close to the cell's edge ...
    line_thin: float = 0.035            # ... (this thin, at least 2 px) is a gap or rim line
    edge_elongated: float = 2.5         # touching the ink zone's edge and this elongated:
                                        # the square showing beside an offset tile
    edge_share: tuple[float, float] = (0.9, 0.5)  # a component with this share of its
                                        # pixels in the edge band, running along this much
                                        # of a side, is rim or gap lines (an L round a
                                        # corner; not a glyph's stroke near the side)
    underline_flat: float = 0.4         # h < this * w: flat (an underline, a minus)
    underline_taller: float = 2.0       # an underline lies below a glyph this much taller
    speck_ratio: float = 0.12           # a component above/below a glyph, this small, is dirt
    dot_reach: float = 0.9              # a ÷'s dots lie within this * its bar's width of it,
    dot_off_centre: float = 0.15        # ... centred on it within this * its width
    mark_ratio: float = 0.5             # a group shorter than this * the tallest is a mark
    rim_piece_band: float = 0.15        # ink this near the ink zone's top or bottom, this
                                        # far from all the larger ink, is rim or shadow
    merge_overlap: float = 0.5          # x-overlap (of the narrower) that joins components
    split_aspect: float = 1.0           # a Mixmath glyph wider than this * height is 2 digits
    split_window: tuple[float, float] = (0.3, 0.7)  # where in its width a glyph is split
    digit_max_aspect: float = 0.85      # no digit is wider than this * its height (a
                                        # glyph of pieces joined, :func:`_joined_cuts`)
    label_px: int = 16                  # a special square's print is compared at this size
    label_detail: float = 0.1           # ... its strokes only: less its blur by this sigma
                                        # (a light face ringed by a darker square is no
                                        # label, though a tile on a square shows one)
    label_min_squares: int = 2          # ... with that of this many of its empty siblings:
    label_match: float = 0.5            # ... correlated this well and read unsurely (below
                                        # ``recut_below``), a cell is the square, empty
    label_over_colour: bool = False     # ... even where colour has told a tile: the face
                                        # the tiles' colour (within square_sep) and no glare
                                        # (washed, clipped, lifted) to have paled it so
    recut_below: float = 0.9            # a cell read less surely than this is cut again ...
    recut_columns: int = 7              # ... in two at this many columns (other_cuts)
    pair_align: float = 0.2             # ... and each of two glyphs alone when they are
                                        # this much (of their height) out of line
    other_cut_prior: float = 0.7        # another way of cutting a cell into glyphs must read
                                        # this much better than the plain cut to be taken
    faint_cut_prior: float = 0.5        # ... and the faint cut (:func:`faint_cut`) this
                                        # much: faint ink holds other marks as well
    tile_weight: float = 0.4            # exponent of the whole-tile model's probabilities
                                        # (vision.tilemodel) against the glyph reading's
                                        # (0: glyphs alone; 1 reads about as well but is
                                        # sure of more of its mistakes)
    tile_floor: float = 0.03            # glyph evidence of a value no cut reads (a pair
                                        # when the cut found one glyph, a digit the cutting
                                        # dropped): the tile model must be that much surer
                                        # (0.06: a real 81 with a tile's edge beside it,
                                        # read "6" by the tile model, is lost)
    area_min_h: float = 0.25            # the ink the tile model reads (_ink_area): at least
    area_aspect: float = 1.6            # this high (of a cell), this wide (of its height:
    area_margin: float = 0.1            # a pair of digits) and this much higher than the
                                        # glyphs above and below

    lab_l_weight: float = 0.5           # lightness counts half in colour distances (shade)
    wb_light_share: float = 0.3         # the lightest cells set the white balance ...
    wb_max_gain: float = 1.6            # ... by channel gains up to this (2700 K needs ~1.5)
    wb_light_grey: float = 210.0        # ... and an exposure gain that makes them this grey
    wb_exposure: tuple[float, float] = (0.8, 2.5)   # (brightness 0.5-1.5 x, print shades)
    even_min_cells: int = 16            # empty plain squares needed to model the light's
                                        # fall across the board (half as many: a plane)
    even_outlier: float = 3.0           # ... those this many robust sigmas off are left out
    even_gain: tuple[float, float] = (0.5, 2.0)     # ... and the correction is bounded
    square_sep: float = 14.0            # a tile's face differs this much from the square
    square_sep_alone: float = 30.0      # ... when the tiles' own colour is not known
    square_sep_nearer: tuple[float, float] | None = (8.0, 0.5)  # ... or (d, k) at least d
                                        # and at most k times as far from the tiles' colour
                                        # (a white tile on a pale premium square: 12-14)
    unlike_tile: float = 24.0           # a face this far from the tiles' is surely no tile
    group_tol: float = 10.0             # empty squares of a colour lie this close together
    group_plane_min: int = 8            # this many of them: their colour as a plane across
    blanks: BlanksConfig = BlanksConfig()   # tiles with no ink (vision.blanks)
    conf_rejected_candidate: float = 0.8  # an empty cell that had tile-like ink
    conf_off_square: float = 0.5        # an empty cell whose face is not its square's
    conf_blinded: float = 0.5           # an empty cell a glare clipped white (GridRead.blinded)
    glare_faded: float = 0.6            # ... the glare's doing: its square lifted, or a tile
                                        # beside it of ink contrast below this share of the
                                        # tiles' median
    conf_blank: float = 0.7             # a blank / joker (no ink to confirm it)
    conf_star_print: float = 0.5        # a joker read on a square printed with a star
                                        # (the start square): below cellnet_doubt, so the
                                        # net, which sees the tile round a star, decides
    doubtful_photo: float | None = 0.2  # when at least this share of the cells a photo
                                        # shows are unsure, the photo is poor as a whole
                                        # (blurred by motion, dim, its ink too small) and
    conf_doubtful_photo: float = 0.5    # ... every confidence is scaled by this: its
                                        # "sure" cells are not (see reader._doubt_poor_photo)

    set_min_agreement: float = 0.8      # a tile-set photo: share read as the order says
    upright_cells: int = 24             # tiles read under each turn to settle orientation;
    upright_margin: float = 0.05        # ... where no turn net weighs in (Mixmath), the
                                        # best turn must read this much better (mean
                                        # log-probability) than the next, and
    upright_floor: float = -0.7         # ... read at least this well (tiles that read
                                        # badly every way up say nothing of the turn: 2 of
                                        # ~1200 development photos, turned wrong, sure, at
                                        # -0.91 and -1.31; boards turned right >= -0.55),
                                        # else ...
    conf_turn_unsure: float = 0.5       # ... every tile's confidence is scaled by this,
                                        # and every square a tile would lie on turned
    turnnet_lead: float = 1.0           # the turn net (vision.cellnet.turn_scores) settles
                                        # the turn when its best leads the next by this
                                        # (mean log-probability); else the tiles are read
    turn_glyph_weight: float = 5.0      # ... weighed with the net's, times this (both are
                                        # mean log-probabilities; the glyphs' part in
                                        # 3-8 turned 2-3 of 900 development boards wrong)
    turn_joint_margin: float = 0.5      # ... sure when the best leads the next by this
    turn_half_margin: float = 0.02      # ... and the glyphs lead the turn half a turn
                                        # from it by this (mean log-probability)
    turnnet_dissent: float = 0.3        # ... and the net does not lead one a quarter turn
                                        # away by this (a blurred board's glyphs, blots,
                                        # may lead the wrong way; no development render
                                        # turned right was doubted for it)
    upright_label_px: int = 32          # special squares' labels say which side is up: they
                                        # are weighed at this cell size
    upright_label_inset: float = 0.2    # ... in the middle of the square (not its edges)
    upright_label_ink: float = 0.3      # ... their ink: this share of the largest departure
                                        # from the square's colour and more
    upright_label_z: float = 3.0        # ... they tell up from down when their top-heaviness
                                        # stands this many standard errors from none
    upright_label_weight: float = 1.0   # ... and then add it this strongly to the tiles' score
    own_glyphs_likeness: float = 0.85   # a set's learned glyphs sharpen the reading when the
                                        # board's glyphs look this much like them

    unsure_below: float = 0.7           # cells below this confidence go to Tesseract: a
                                        # surer read is one its tie-break cannot turn
    use_tesseract: bool = True
    tesseract_trust: float = 0.7        # how much a Tesseract read is believed (it misreads
                                        # ~half the glyphs our classifier is unsure of)
    tesseract_px: int = 48              # height each unsure tile is pasted at in the strip
    use_cellnet: bool = True            # weigh the reading with the cell net's (vision.cellnet)
    cellnet_sure: float = 0.97          # the net's answer is taken when it is this sure ...
    cellnet_doubt: float = 0.6          # ... or the glyph reading is less sure than this
    cellnet_fair: tuple[float, float] | None = (0.7, 0.8)  # ... or the net is at least
                                        # this sure and the glyph reading below that
    cellnet_look_again: float | None = 0.9  # a cell the net gives less than this is seen
                                        # again, its crop moved a pixel each way
    cellnet_likely_joker: float = 0.7   # a joker the net gives this much on a square the
                                        # glyph reader saw empty is put down while the
                                        # board has fewer than the set (None: never)
    cellnet_sided: tuple[float, float] | None = (0.5, 4.0)  # where the glyph reader saw
                                        # an empty square whose sides look like the inked
                                        # tiles' by z spreads (GridRead.sides_like), a tile
                                        # the net gives at least p (a joker while the set
                                        # has more) is put down
    cellnet_glared: float | None = 0.0  # where the glyph reader saw an empty square under
                                        # a glare (GridRead.glare), a tile (not a joker)
                                        # the net gives at least this is put down (0: the
                                        # net's likeliest answer, when it is such a tile)
    cellnet_joint: float | None = 0.01  # where the readers read different tiles, the glyph
                                        # reader below cellnet_doubt and the net below
                                        # cellnet_sure: the likeliest by both (the glyph
                                        # reader's odds raised by this floor)
    cellnet_faded_dots: float | None = 0.8  # a ÷ the net gives this much where the glyph
                                        # reader saw a − or a + is put down (its dots
                                        # faded, or blurred into a bar)
    cellnet_digit_count: float | None = 0.5  # where the glyph reader read one digit and
                                        # the net a two-digit number, the net's is taken
                                        # when it gives it this much (the glyph reader
                                        # lost a faint or thin digit; the net reads the
                                        # tile whole)
    cellnet_lost_digit: float | None = 0.85  # ... and the other way round (the net's digit
                                        # one of the glyph reader's two): the net's, at
                                        # most this sure (it may have lost a thin one)
    digit_pair: tuple[float, float, float] | None = (0.85, 0.15, 0.6)
                                        # ... unless its plain cut was two glyphs as tall
                                        # as each other (this share), in line (within this
                                        # share of their height), as wide together as this
                                        # share of it, ...
    pair_sure: float | None = 0.8       # ... read this surely (_surely_two_digits): then
                                        # the glyph reading stands (side_by_side), and the
                                        # tile model has no one-digit value for it
                                        # (cell_readings, combine_readings)
    too_wide: float | None = 1.45       # a lone glyph read as a digit this many times as
                                        # wide for its height as the photo's others read
                                        # as it surely is two digits touching: as a pair
                                        # read surely (cell_readings, _too_wide; the real
                                        # Mathable 81's thin 1 against its 8)
    cellnet_bare_sides: float | None = 3.0  # a square whose sides look like the empty
                                        # squares' (less than z spreads towards the inked
                                        # tiles') takes no joker from the net (cellnet.
                                        # bare_of_jokers), unless the glyph reader saw one
    cellnet_bare_sides_taught: tuple[tuple[str, float], ...] = (("mixmath", 2.0),)
                                        # ... but from a net taught its set's blanks
                                        # (Mixmath's: blank crops 4x an epoch, each seen
                                        # beside the photo's own squares) only below this
                                        # z; above it, up to the other, its joker is put
                                        # down shown to check (conf_bare_joker). Dev
                                        # Mixmath tier 2, 1199 photos replayed: 1102 ->
                                        # 1109 all right, as many with a sure miss (1.25
                                        # to 2: 1109-1112; 2.5: 1106; no veto: 1092)
    conf_bare_joker: float = 0.8        # a joker the net put down there, at most
    cellnet_glared_empty_odds: float | None = 3.0   # under a glare the glyph reader's
                                        # empty square is worth these odds to the net's, no
                                        # more (cellnet.doubt_the_unseen)
    cellnet_on_glyphless: bool = True   # on a calibrated set the net also weighs in on a
                                        # tile the glyph reader cut no glyph from
    cellnet_set_counts: bool = True     # no more tiles of a value than the set has: the
                                        # excess goes to the net's next answer (keep_to_set)
    set_counts_by_both: tuple[str, ...] = ("mixmath",)   # the games whose set's counts
                                        # weigh both readers' odds, not the net's alone
                                        # (keep_to_set's scores; development collages
                                        # 113 -> 115 of 120, renders as they were)
    cellnet_connected: bool = True      # the tiles are one group reaching the centre: a
                                        # group apart is a tile missed or tiles seen where
                                        # none are, whichever side's readings are likelier
                                        # wrong (keep_connected)
    blank_judge_from: float | None = 0.02  # a cell the readers left empty or took for a
                                        # bare blank, where the net gave a blank at least
                                        # these odds, is put to the blank judge
                                        # (vision.cellnet.BLANK_JUDGE; None: never) ...
    blank_judge_sure: float = 0.1       # ... which overrules them where its odds are at
                                        # most this, or at least 1 - this, from a blank
    conf_blank_judged: float = 0.85     # a cell the judge overruled them on, at most
                                        # (shown to check: two readers said otherwise)
    sign_judge_below: float = 0.95      # a cell read as a sign (+ - x /) less surely
                                        # than this is put to the sign judge
    sign_judge_sure: float | None = 0.1  # (vision.cellnet.SIGN_JUDGE; None: never), which
                                        # overrules the reading where it gives another
                                        # sign at least 1 - this
    conf_sign_judged: float = 0.85      # a cell it overruled, at most (shown to check)
    judge_dissent: bool = True          # a judge leaning away from a reading, too unsure
                                        # to overrule it, has it shown to check (at most
                                        # its conf_*_judged)

    skin_min_frac: float = 0.5          # a cell this much skin-coloured is a hand candidate
    # what the board explains: an empty square's face has its colour, in shade or glare
    square_chroma_tol: float = 16.0     # Lab a*b* distance (95 % of shaded squares: < 28)
    square_darker_tol: float = 45.0     # L darker (a shadow; a hand is 40-140 darker)
    square_lighter_tol: float = 80.0    # L lighter (glare)
    explained_conf: float = 0.5         # ... and a tile read at least this surely
    glare_lightness: float = 250.0      # ... and a face washed to white by a glare (this
    glare_chroma: float = 8.0           # light and this grey, balanced; or as photographed
    glare_clipped: float = 250.0        # this light, its B, G, R apart by at most
    glare_spread: float = 12.0          # this): no skin is; or an empty square's colour
    glare_lift: float = 12.0            # lifted by at least this much (the mean over its
    glare_tint: tuple[float, float] = (8.0, 0.35)   # B, G, R not near white), by amounts
                                        # at most this far apart (grey levels + share of
                                        # the lift): white light added, a glare on a
                                        # coloured square
    glare_near_white: float = 240.0     # (a channel this bright may have been lifted less;
    glare_white_as_shot: bool = True    # as shot too: the balance may scale a channel the
                                        # camera clipped well below this)
    occluder_min_cells: int = 2         # unexplained cells: a blob this big with skin ...
    occluder_foreign_cells: int = 3     # ... or with this many off-colour cells is a hand
    skin_tinge: float = 0.15            # a glyphless tile-like cell this much skin may be a
                                        # pale finger
    skin_edge_frac: float = 0.04        # next to such a blob, a cell this much skin is
    occluder_grow: int = 2              # ... hidden in part (grown this many cells out)
    occluder_spares: float | None = 0.15  # ... but not a tile another reader (the net) is
                                        # sure of with less skin than this: a finger
                                        # beside it, not over it
    seam_depth: float = 0.1             # a blob whose cells show seams this much darker
    seam_share: float = 0.8             # than either side (of the face's grey) on this
    seam_least: int = 6                 # share of at least this many of their sides is
                                        # things each lying in its cell (tiles in odd
                                        # light, squares): no hand lies across them
    seam_width: float = 0.08            # (the seam: this far either side of the border)

    @property
    def weighing(self):
        """The ``cellnet_*`` rules as :func:`vision.cellnet.fuse` takes them."""
        from .cellnet import Weighing
        return Weighing(sure=self.cellnet_sure, doubt=self.cellnet_doubt,
                        fair=self.cellnet_fair, likely_joker=self.cellnet_likely_joker,
                        sided=self.cellnet_sided, glared=self.cellnet_glared,
                        faded_dots=self.cellnet_faded_dots, joint=self.cellnet_joint,
                        digit_count=self.cellnet_digit_count,
                        lost_digit=self.cellnet_lost_digit)


@dataclass
class CellStats:
    """Per-cell colour statistics of a rectified grid (arrays (rows, cols) unless noted)."""

    face_balanced: np.ndarray  # (rows, cols, 3) float BGR of the cell's face, the light's
                               # colour and strength taken out (:func:`_white_balanced`)
    face_grey: np.ndarray    # grey of the face as photographed
    face_spread: np.ndarray  # max - min of the face's B, G, R: how coloured it is
    dark: np.ndarray         # darkest 3x3-blurred grey in the centre
    ink_frac: np.ndarray     # share of the centre darker than the ink threshold
    ink_spread: np.ndarray   # mean B, G, R spread of those ink pixels
    skin_frac: np.ndarray    # share of skin-coloured pixels
    grey: np.ndarray         # (rows*p, cols*p) uint8 grey image of the grid
    ink: np.ndarray          # (rows*p, cols*p) bool: below the cell's ink threshold
    face_bgr: np.ndarray     # (rows, cols, 3) float BGR of the face as photographed

    @property
    def contrast(self) -> np.ndarray:
        return self.face_grey - self.dark

    def rotated(self, k: int) -> CellStats:
        """The same statistics for the grid turned by ``np.rot90(grid, k)``."""
        return CellStats(*(turned(getattr(self, f.name), k) for f in fields(self)))

    def only(self, cells: np.ndarray) -> CellStats:
        """The statistics of the ``cells`` ((rows, cols) bool) alone, laid side by side in
        one row (row-major): what is cut in them cut in a strip, not the whole grid."""
        rows, cols = cells.shape
        return CellStats(*(_cells_strip(a, rows, cols, cells) if f.name in ("grey", "ink")
                           else a[cells][None] for f in fields(self)
                           for a in [getattr(self, f.name)]))

    @cached_property
    def face_lab(self) -> np.ndarray:
        """(rows, cols, 3) the balanced face in OpenCV 8-bit Lab (float)."""
        return _lab(self.face_balanced)

    @cached_property
    def chroma(self) -> np.ndarray:
        """Lab chroma of the balanced face."""
        lab = self.face_lab
        return np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)


_CV_TURNS = {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_CLOCKWISE}


def turned(a: np.ndarray, k: int) -> np.ndarray:
    """``np.rot90(a, k)`` (an image, or an array of cells), contiguous. By OpenCV: numpy's
    copy of a grid turned a quarter walks it across the cache (~5 ms a 960 px grid).

    >>> a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    >>> all(np.array_equal(turned(a, k), np.rot90(a, k)) for k in range(-1, 5))
    True
    """
    k %= 4
    if k == 0:
        return np.ascontiguousarray(a)
    if a.dtype == bool:
        return cv2.rotate(a.view(np.uint8), _CV_TURNS[k]).view(bool)
    return cv2.rotate(a, _CV_TURNS[k])


def _lab(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) float BGR 0..255 -> OpenCV 8-bit-scaled Lab (L 0..255, a/b offset 128)."""
    shape = bgr.shape
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.float32).reshape(-1, 1, 3) / 255.0,
                       cv2.COLOR_BGR2LAB).reshape(shape)
    return lab * np.array([255 / 100, 1, 1], np.float32) + np.array([0, 128, 128], np.float32)


@dataclass
class Glyph:
    """One glyph cut from a tile: soft ink image (1 = ink) and where it came from."""

    cell: tuple[int, int]
    image: np.ndarray        # (h, w) float32 0..1
    box: tuple[int, int, int, int]  # x, y, w, h in grid pixels


@dataclass
class CellGlyphs:
    """The glyphs of one tile cell, left to right, and whether segmentation looked sane."""

    cell: tuple[int, int]
    glyphs: list[Glyph] = field(default_factory=list)
    seg_ok: bool = True
    area: Glyph | None = None   # all the soft ink round the glyphs, uncut and unfiltered
                                # (:func:`_ink_area`): what the tile model reads
    zone: Glyph | None = None   # the soft ink of the cell's whole ink zone, unthresholded
                                # (what :func:`faint_cut` grows the glyphs into)
    two_digits: bool = False    # its plain cut is two digits side by side, read surely
                                # (:func:`_surely_two_digits`), or one glyph too wide
                                # for one digit of the photo's (:func:`_too_wide`)

    @property
    def span(self) -> tuple[int, int, int, int]:
        """x0, y0, x1, y1 (grid px, end exclusive) round all the cell's glyphs."""
        return _span(self.glyphs)


def _span(glyphs: list[Glyph]) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1 (grid px, end exclusive) of the box round ``glyphs``."""
    return (min(g.box[0] for g in glyphs), min(g.box[1] for g in glyphs),
            max(g.box[0] + g.box[2] for g in glyphs), max(g.box[1] + g.box[3] for g in glyphs))


def _grid_shape(game: str, shape: tuple[int, int] | None, profile: Any) -> tuple[int, int]:
    if shape is not None:
        return int(shape[0]), int(shape[1])
    if profile is not None and getattr(profile, "rows", None):
        return int(profile.rows), int(profile.cols)
    from calibration.geometry import board_geometry
    g = board_geometry(game)
    return g.rows, g.cols


def _cells_view(img: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows*p, cols*p[, ch]) -> (rows, cols, p, p[, ch]) view-copy."""
    p = img.shape[0] // rows
    img = img[:rows * p, :cols * p]
    shape = (rows, p, cols, p) + img.shape[2:]
    axes = (0, 2, 1, 3) + tuple(range(4, img.ndim + 2))
    return img.reshape(shape).transpose(axes)


def _cells_strip(img: np.ndarray, rows: int, cols: int, cells: np.ndarray) -> np.ndarray:
    """(rows*p, cols*p[, ch]) -> (p, n*p[, ch]): the n ``cells`` side by side, row-major."""
    v = _cells_view(img, rows, cols)[cells]                       # (n, p, p[, ch])
    return np.ascontiguousarray(v.swapaxes(0, 1)).reshape(v.shape[1], -1, *v.shape[3:])


def _centre(n: int, frac: float) -> slice:
    m = int(round(n * (1 - frac) / 2))
    return slice(m, n - m)


def cell_stats(grid_bgr: np.ndarray, rows: int, cols: int,
               config: TilesConfig | None = None) -> CellStats:
    """Colour and ink statistics of every cell, vectorised over the whole grid.

    Parameters
    ----------
    grid_bgr : (rows*p, cols*p, 3) uint8
    """
    cfg = config or TilesConfig()
    p = grid_bgr.shape[0] // rows
    grid_bgr = grid_bgr[:rows * p, :cols * p]
    s = cfg.stats_px
    small = cv2.resize(grid_bgr, (cols * s, rows * s), interpolation=cv2.INTER_AREA)
    fc = _centre(s, cfg.face_frac)
    balanced = _white_balanced(small, rows, cols, fc, cfg)
    centre = _cells_view(balanced, rows, cols)[:, :, fc, fc].reshape(rows, cols, -1, 3)
    # The face is the middle band of the centre's pixels by lightness: a tile's dark
    # numerals and a square's light printed label both fall outside it.
    n = centre.shape[2]
    order = np.argsort(centre @ np.array([0.114, 0.587, 0.299], np.float32), axis=2,
                       kind="stable")
    band = order[:, :, int(cfg.face_band[0] * n):max(int(cfg.face_band[1] * n), 1), None]
    face_balanced = np.take_along_axis(centre, band, axis=2).mean(axis=2)
    small_c = _cells_view(small, rows, cols)[:, :, fc, fc].reshape(rows, cols, -1, 3)
    face_bgr = np.take_along_axis(small_c, band, axis=2).mean(axis=2)
    face_grey = face_bgr @ np.array([0.114, 0.587, 0.299])   # BGR -> grey weights
    face_spread = face_bgr.max(axis=2) - face_bgr.min(axis=2)

    grey = cv2.cvtColor(grid_bgr, cv2.COLOR_BGR2GRAY)
    dc = _centre(p, cfg.dark_frac)
    dark = _cells_view(cv2.blur(grey, (3, 3)), rows, cols)[:, :, dc, dc].min(axis=(2, 3))
    dark = dark.astype(np.float32)
    thr = face_grey - cfg.ink_level * (face_grey - dark)
    ink = _below(grey, thr.astype(np.float32), p)
    ink_c = _cells_view(ink, rows, cols)[:, :, dc, dc]
    n_ink = ink_c.sum(axis=(2, 3))
    ink_frac = n_ink / float(ink_c.shape[2] * ink_c.shape[3])
    # B, G, R spread of the centres only, made one contiguous image first and split in
    # planes (OpenCV on strided channel views is 4-5x slower)
    k = ink_c.shape[2]
    centres = np.ascontiguousarray(_cells_view(grid_bgr, rows, cols)[:, :, dc, dc]
                                   .transpose(0, 2, 1, 3, 4)).reshape(rows * k, cols * k, 3)
    b, g, r = cv2.split(centres)
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    spread_sum = (_cells_view(spread, rows, cols) * ink_c).sum(axis=(2, 3))
    ink_spread = spread_sum / np.maximum(n_ink, 1)

    # Skin as the camera saw it (its range spans 2700-6500 K) or as balanced: the balance
    # is set by the board's light cells, which may be tinted, and shifts skin with them.
    skin = (_skin_mask(cv2.cvtColor(small, cv2.COLOR_BGR2LAB))
            | _skin_mask(cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB)))
    skin_frac = _cells_view(skin, rows, cols).mean(axis=(2, 3))
    return CellStats(face_balanced.astype(np.float32), face_grey.astype(np.float32),
                     face_spread.astype(np.float32), dark, ink_frac.astype(np.float32),
                     ink_spread.astype(np.float32), skin_frac, grey, ink,
                     face_bgr.astype(np.float32))


def _white_balanced(small: np.ndarray, rows: int, cols: int, fc: slice,
                    cfg: TilesConfig) -> np.ndarray:
    """The grid with the light's colour and strength taken out: channel gains that make
    the lightest cells (plain squares and tiles: white, cream, pale — near grey in any
    set) a light grey. Colours are compared after this, so warm and cool, dim and bright
    light look alike (in a dim photo every colour is nearer grey in Lab)."""
    centres = _cells_view(small, rows, cols)[:, :, fc, fc].reshape(rows * cols, -1, 3)
    faces = np.median(centres, axis=1)                            # (cells, 3) BGR
    grey = faces @ np.array([0.114, 0.587, 0.299])
    ref = np.median(faces[grey >= np.quantile(grey, 1 - cfg.wb_light_share)], axis=0)
    cast = np.clip(ref.mean() / np.maximum(ref, 1.0), 1 / cfg.wb_max_gain, cfg.wb_max_gain)
    level = np.clip(cfg.wb_light_grey / max(float(ref.mean()), 1.0), *cfg.wb_exposure)
    return cv2.multiply(small, np.append(cast * level, 1.0), dtype=cv2.CV_8U)


def evened(stats: CellStats, bare: np.ndarray, config: TilesConfig | None = None
           ) -> CellStats:
    """``stats`` with the light's fall across the board taken out of the faces' colours.

    ``bare``: (rows, cols) bool, cells that show the same colour when evenly lit (empty
    plain squares). Per channel, a smooth surface (quadratic in the cell's position, fitted
    robustly: a hand or a stray tile among them is left out) models how a gradient, a soft
    shadow or vignetting shades them; every face is divided by it. Too few bare cells for
    a surface: a plane; fewer still: nothing changes."""
    cfg = config or TilesConfig()
    rows, cols = bare.shape
    y, x = np.mgrid[0:rows, 0:cols]
    x = (x + 0.5) / cols - 0.5
    y = (y + 0.5) / rows - 0.5
    terms = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=-1)
    n = int(bare.sum())
    k = 6 if n >= cfg.even_min_cells else 3 if n >= cfg.even_min_cells // 2 else 0
    if k == 0:
        return stats
    a = terms[bare][:, :k]
    v = stats.face_balanced[bare]                                    # (n, 3)
    keep = np.ones(n, bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(a[keep], v[keep], rcond=None)
        resid = np.abs(v - a @ coef).max(axis=1)
        scale = 1.4826 * np.median(resid[keep]) + 1.0
        keep = resid <= cfg.even_outlier * scale
        if keep.sum() < k + 2:
            return stats
    field = terms[..., :k] @ coef                                  # (rows, cols, 3)
    level = np.median(field[bare], axis=0)
    gain = np.clip(level / np.maximum(field, 1.0), *cfg.even_gain)
    return replace(stats, face_balanced=(stats.face_balanced * gain).astype(np.float32))


def _below(grey: np.ndarray, values: np.ndarray, p: int) -> np.ndarray:
    """(rows*p, cols*p) bool: the pixels of ``grey`` below their cell's value ((rows, cols)
    float32), compared cell by cell (no image of the values made)."""
    rows, cols = values.shape
    return (grey.reshape(rows, p, cols, p) < values[:, None, :, None]).reshape(grey.shape)


def _skin_mask(lab: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels of an 8-bit Lab image: reddish-yellow of moderate chroma,
    a/2 < b < 3 a, neither black nor white. Orange print is far more saturated (or
    yellower), pale wood has almost no red. (A table over (a, b): one lookup a pixel, at
    a * 256 + b of the flat table: twice as fast as indexing it by a and b.)"""
    L = lab[..., 0]
    ab = (lab[..., 1].astype(np.uint16) << 8) | lab[..., 2]
    return _SKIN_AB.take(ab) & (L > 15) & (L < 245)


SKIN_A = (6.0, 35.0)        # Lab a* range of skin under 2700-6500 K
SKIN_MAX_CHROMA = 45.0      # skin is never as vivid as orange print


def _skin_ab_table() -> np.ndarray:
    a, b = np.meshgrid(np.arange(256) - 128.0, np.arange(256) - 128.0, indexing="ij")
    return ((a > SKIN_A[0]) & (a < SKIN_A[1]) & (b > 0.5 * a) & (b < 3.0 * a)
            & (a * a + b * b < SKIN_MAX_CHROMA ** 2))


_SKIN_AB = _skin_ab_table()     # (256, 256) bool over 8-bit a*, b*


def tile_candidates(stats: CellStats, config: TilesConfig | None = None) -> np.ndarray:
    """(rows, cols) bool: cells whose face and ink look like a numbered tile: a light,
    near-grey face carrying ink darker than it (relative to its brightness too, unless the
    ink is far more coloured than the face: overexposed orange numerals), not as vivid as
    a square's coloured print."""
    cfg = config or TilesConfig()
    contrast = stats.contrast
    return ((stats.face_lab[..., 0] >= cfg.face_min_l)
            & (stats.chroma <= cfg.face_max_chroma)
            & (contrast >= cfg.ink_min_contrast)
            & ((contrast >= cfg.ink_min_rel_contrast * stats.face_grey)
               | (stats.ink_spread >= stats.face_spread + cfg.ink_colour_spread))
            & (stats.ink_spread <= cfg.ink_max_spread + cfg.ink_spread_face * stats.face_spread)
            & (stats.ink_frac >= cfg.ink_min_frac)
            & (stats.ink_frac <= cfg.ink_max_frac))


def ink_glyphs(grid_bgr: np.ndarray, rows: int, cols: int, stats: CellStats,
               cells: np.ndarray, *, split_pairs: bool = True,
               config: TilesConfig | None = None,
               recut: np.ndarray | None = None) -> list[CellGlyphs]:
    """Cut the glyphs of every cell in ``cells`` (a (rows, cols) bool mask).

    One connected-components pass over a per-cell threshold map (the ink, grown into
    pixels darker than ``ink_grow_level``); then per cell the components are filtered,
    grouped into glyphs, and (``split_pairs``) a glyph wider than a digit is split in two.
    Cells where that finds no glyph are cut once more from the ink alone, ungrown: a
    shadow across a tile, dark enough to be grown into, joins a numeral to the tile's
    edge. Only cells in ``recut`` ((rows, cols) bool, default all) are: the reader leaves
    out squares printed with a numeral like a tile's (Mixmath's centre 1 2 3 4, pale in
    glare), where finding no glyph is what tells the print from a tile; another square's
    label cut this way is told by its likeness to its siblings'. Returns one
    :class:`CellGlyphs` per selected cell, row-major.
    """
    cfg = config or TilesConfig()
    p = grid_bgr.shape[0] // rows
    where = [(int(r), int(c)) for r, c in np.argwhere(cells)]
    if not where:
        return []
    # cut in a strip of the chosen cells alone (ink is cut within each cell's face, so
    # this cuts as the whole grid would, on the chosen cells' pixels only)
    stats = stats.only(cells)
    n = len(where)
    inside, boxes = _tile_faces(stats, 1, n, p, cfg)
    grow = _below(stats.grey, (stats.face_grey - cfg.ink_grow_level * stats.contrast)
                  .astype(np.float32), p)
    cut = _Cutter(stats.grey, inside, boxes, stats, p, split_pairs, cfg)
    found = cut(grow & inside, np.ones((1, n), bool))
    again = np.array([[not found[(0, k)].glyphs for k in range(n)]])
    if recut is not None:
        again &= recut[cells][None]
    if again.any():
        # only glyphs clear of the ink zone's sides: a shadow's or a tile edge's shading
        # breaks into specks along them at this level
        found.update((cell, cg) for cell, cg in cut(stats.ink & inside, again).items()
                     if cg.glyphs and not any(_at_side(g, boxes[cell], p) for g in cg.glyphs))
    return [_placed(found[(0, k)], cell, k, p) for k, cell in enumerate(where)]


def tile_tops_offset(found: list[CellGlyphs], p: int, least: int) -> np.ndarray | None:
    """(x, y), in cells: the median offset of the cut tiles' ink (the span of their glyphs,
    cut sanely) from their cells' centres, or None when fewer than ``least`` were cut."""
    offsets = [((x0 + x1) / 2 / p - c - 0.5, (y0 + y1) / 2 / p - r - 0.5)
               for cg in found if cg.glyphs and cg.seg_ok
               for (r, c), (x0, y0, x1, y1) in [(cg.cell, cg.span)]]
    return np.median(offsets, axis=0) if len(offsets) >= max(least, 1) else None


def _on_tile_tops(found: list[CellGlyphs], grid_bgr: np.ndarray, stats: CellStats,
                  kinds: np.ndarray, split_pairs: bool, cfg: TilesConfig) -> list[CellGlyphs]:
    """The cells' glyphs (``found``, :func:`ink_glyphs`) cut again with every cell moved by
    the tiles' median offset (:func:`tile_tops_offset`) when it is at least
    ``cfg.tile_tops``: a thick tile seen at a slant shows its face, and its ink, off its
    square by up to a fifth of a cell, all of them the same way, and a digit's ink across
    the cell's side is cut off (a 16 read 6). The cell's colours and whether it holds a
    tile stay the square's; only the ink is cut where the tile's face shows. A cell keeps
    its first cut where the second finds no glyph clear of the zone's sides. Dev Mixmath
    tier-2 renders: 2 of 300 photos more all right, none lost; real photos re-shot: 1 of
    132."""
    if cfg.tile_tops is None or not found:
        return found
    rows, cols = stats.face_grey.shape
    p = grid_bgr.shape[0] // rows
    offset = tile_tops_offset(found, p, cfg.tile_tops[1])
    if offset is None or np.abs(offset).max() < cfg.tile_tops[0]:
        return found
    dx, dy = (int(round(v)) for v in offset * p)
    moved = replace(stats, grey=_moved(stats.grey, dx, dy),
                    ink=_moved(stats.ink.view(np.uint8), dx, dy).view(bool))
    cut = np.zeros((rows, cols), bool)
    for cg in found:
        cut[cg.cell] = bool(cg.glyphs)
    again = {cg.cell: cg for cg in ink_glyphs(grid_bgr, rows, cols, moved, cut,
                                               split_pairs=split_pairs, config=cfg,
                                               recut=kinds != "fixed")}
    return [cut_again if (cut_again := again.get(cg.cell)) and _clear_of_sides(cut_again, p)
            else cg for cg in found]


def _clear_of_sides(cg: CellGlyphs, p: int) -> bool:
    """Whether a cell was cut into glyphs that keep clear of its ink zone's sides (what
    reaches them, moved onto a tile's face, is the grid's lines round an empty square)."""
    if not cg.glyphs or cg.zone is None:
        return False
    (r, c), (zx, zy, zw, zh) = cg.cell, cg.zone.box
    x0, y0 = zx - c * p, zy - r * p
    return not any(_at_side(g, (x0, y0, x0 + zw, y0 + zh), p) for g in cg.glyphs)


def _moved(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``image`` (2-D) moved so that pixel (x, y) shows what (x + dx, y + dy) did, the
    edge repeated where that lies outside.

    >>> _moved(np.arange(6, dtype=np.uint8).reshape(2, 3), 1, 0).tolist()
    [[1, 2, 2], [4, 5, 5]]
    """
    ax, ay = abs(dx), abs(dy)
    padded = cv2.copyMakeBorder(image, ay, ay, ax, ax, cv2.BORDER_REPLICATE)
    h, w = image.shape
    return np.ascontiguousarray(padded[ay + dy:ay + dy + h, ax + dx:ax + dx + w])


def _placed(cg: CellGlyphs, cell: tuple[int, int], k: int, p: int) -> CellGlyphs:
    """A cell's glyphs cut as the k-th cell of a strip, moved to its ``cell`` of the grid."""
    dx, dy = (cell[1] - k) * p, cell[0] * p
    cg.cell = cell
    for g in cg.glyphs + [g for g in (cg.zone, cg.area) if g is not None]:
        x, y, w, h = g.box
        g.cell, g.box = cell, (x + dx, y + dy, w, h)
    return cg


def _at_side(glyph: Glyph, box: np.ndarray, p: int) -> bool:
    """Whether a glyph reaches a side of its cell's ink zone (``box``: x0, y0, x1, y1 in
    the cell)."""
    r, c = glyph.cell
    x, y, w, h = glyph.box
    x, y = x - c * p, y - r * p
    x0, y0, x1, y1 = (int(v) for v in box)
    return x <= x0 or y <= y0 or x + w >= x1 or y + h >= y1


class _Cutter:
    """One pass of :func:`ink_glyphs` over a mask: its components, filtered and grouped
    per cell into glyphs."""

    def __init__(self, grey, inside, boxes, stats: CellStats, p: int, split_pairs: bool,
                 cfg: TilesConfig):
        self.grey, self.inside, self.boxes, self.stats = grey, inside, boxes, stats
        self.p, self.split_pairs, self.cfg = p, split_pairs, cfg

    def __call__(self, mask: np.ndarray, cells: np.ndarray) -> dict[tuple, CellGlyphs]:
        grey, p, cfg, boxes = self.grey, self.p, self.cfg, self.boxes
        # BBDT: on this sparse mask 2.5x faster than the default (Spaghetti) with stats
        n, labels, st, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            mask.view(np.uint8), 8, cv2.CV_32S, cv2.CCL_BBDT)
        seeded = np.zeros(n, bool)
        seeded[np.unique(labels[self.stats.ink & mask])] = True
        seeded[0] = False
        # each component's share of its pixels in its cell's edge band (edge_band)
        band = cfg.edge_band * p
        along = [(np.arange(k) % p < band) | (np.arange(k) % p >= p - band)
                 for k in mask.shape]
        in_band = np.bincount(labels[mask & (along[0][:, None] | along[1][None, :])],
                              minlength=n)
        edge_share = (in_band / np.maximum(st[:, cv2.CC_STAT_AREA], 1)).tolist()
        st = st.tolist()
        by_cell: dict[tuple[int, int], list[int]] = {}
        for i in np.nonzero(seeded)[0].tolist():
            x, y, w, h, _a = st[i]
            by_cell.setdefault(((y + h // 2) // p, (x + w // 2) // p), []).append(i)
        group_of = np.zeros(n, np.int32)     # component label -> glyph group id
        gid = 0
        face_grey, contrasts = self.stats.face_grey.tolist(), self.stats.contrast.tolist()
        n_max = 2 if self.split_pairs else 1
        out = {}
        for r, c in zip(*np.nonzero(cells)):
            r, c = int(r), int(c)
            cg = CellGlyphs((r, c))
            groups, ok = _group_components(st, by_cell.get((r, c), []), p, (c * p, r * p),
                                           boxes[r, c], self.split_pairs, cfg, edge_share)
            if not self.split_pairs and len(groups) == 1:   # a token: a − or a ÷?
                groups = [(groups[0][0] + _bar_dots(labels, st, groups[0][0], cfg), False)]
            face, contrast = face_grey[r][c], max(contrasts[r][c], 1.0)
            for members, split in groups:
                gid += 1
                group_of[members] = gid
                cg.glyphs += _cut_glyphs(grey, labels, group_of, gid, st, members, split,
                                         face, contrast, (r, c), cfg)
            cg.seg_ok = ok and 1 <= len(cg.glyphs) <= n_max
            if cg.glyphs:
                cg.zone = _ink_zone(grey, self.inside, (r, c), p, boxes[r, c], face,
                                    contrast)
                cg.area = _ink_area(cg.zone, cg.glyphs, p, cfg)
            out[(r, c)] = cg
        return out


def _members_box(st: list, members: list[int]) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1 (end exclusive) round the components ``members`` (stats ``st``)."""
    return (min(st[i][0] for i in members), min(st[i][1] for i in members),
            max(st[i][0] + st[i][2] for i in members), max(st[i][1] + st[i][3] for i in members))


def _bar_dots(labels: np.ndarray, st: list, members: list[int], cfg: TilesConfig
              ) -> list[int]:
    """The dots of a ÷ whose bar is the glyph ``members`` (a token's only glyph): when it
    is flat, the biggest component above it and below it, centred on it, within
    ``dot_reach`` of its width: dots too small or too faint for the speck filter and the
    seeding (a ÷ read as a −). [] unless both are there."""
    x0, y0, x1, y1 = _members_box(st, members)
    w = x1 - x0
    if y1 - y0 >= cfg.underline_flat * w:
        return []
    cx, reach = (x0 + x1) / 2, int(round(cfg.dot_reach * w))
    dots = []
    for wy0, wy1 in ((max(y0 - reach, 0), y0), (y1, min(y1 + reach, labels.shape[0]))):
        window = labels[wy0:wy1, int(cx - w / 4):int(cx + w / 4) + 1]
        near = [i for i in np.unique(window).tolist() if i and i not in members
                and st[i][2] <= w / 2 and st[i][3] <= w / 2
                and abs(st[i][0] + st[i][2] / 2 - cx) <= cfg.dot_off_centre * w
                and st[i][1] >= wy0 and st[i][1] + st[i][3] <= wy1]
        if not near:
            return []
        dots.append(max(near, key=lambda i: st[i][4]))
    return dots


def _ink_zone(grey: np.ndarray, inside: np.ndarray, cell: tuple[int, int], p: int,
              box: np.ndarray, face: float, contrast: float) -> Glyph:
    """The soft ink (face - grey) / contrast, 0..1, of a cell's ink zone (``box``: x0, y0,
    x1, y1 in the cell), nothing outside the tile's face."""
    oy, ox = cell[0] * p, cell[1] * p
    bx0, by0, bx1, by1 = (int(v) for v in box)
    x0, y0, x1, y1 = ox + bx0, oy + by0, ox + max(bx1, bx0), oy + max(by1, by0)
    ink = (face - grey[y0:y1, x0:x1].astype(np.float32)) * (1.0 / contrast)
    np.clip(ink, 0, 1, out=ink)
    ink *= inside[y0:y1, x0:x1]
    return Glyph(cell, ink, (x0, y0, x1 - x0, y1 - y0))


def _ink_area(zone: Glyph, glyphs: list[Glyph], p: int, cfg: TilesConfig) -> Glyph:
    """All the ink round a cell's glyphs, as the cutting did not see it: a box centred on
    them, at least ``area_min_h`` of a cell high and ``area_aspect`` times as wide as high
    (room for a digit the cutting dropped beside the one it kept), inside the cell's ink
    ``zone``, every pixel darker than the grow level, whatever component it belongs to."""
    x0, y0, x1, y1 = _span(glyphs)
    h = max(y1 - y0, cfg.area_min_h * p) * (1 + 2 * cfg.area_margin)
    w = max(x1 - x0, cfg.area_aspect * h)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    zx, zy, zw, zh = zone.box
    ax0, ax1 = max(zx, int(round(cx - w / 2))), min(zx + zw, int(round(cx + w / 2)))
    ay0, ay1 = max(zy, int(round(cy - h / 2))), min(zy + zh, int(round(cy + h / 2)))
    ink = zone.image[ay0 - zy:ay1 - zy, ax0 - zx:ax1 - zx].copy()
    ink[ink < cfg.ink_grow_level] = 0
    return Glyph(glyphs[0].cell, ink, (ax0, ay0, ax1 - ax0, ay1 - ay0))


def faint_cut(cg: CellGlyphs, config: TilesConfig | None = None) -> list[Glyph]:
    """A cell's glyphs grown into the faint ink round them (down to ``faint_level``, from
    the grow level): the hairline stem of a high-contrast serif 7 or 4, lost in blur,
    joined back to the bar the cutting kept. One glyph (the joined ink), or none when
    nothing was added."""
    cfg = config or TilesConfig()
    zone = cg.zone
    if zone is None or not cg.glyphs or zone.image.size == 0:
        return []
    zx, zy = zone.box[:2]
    mask = (zone.image >= cfg.faint_level).view(np.uint8)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    seeded = np.zeros(n, bool)
    for g in cg.glyphs:
        x, y, w, h = g.box
        part = labels[y - zy:y - zy + h, x - zx:x - zx + w]
        seeded[part[g.image[:part.shape[0], :part.shape[1]] > 0]] = True
    seeded[0] = False
    keep = seeded[labels]
    ys, xs = np.nonzero(keep)
    if len(xs) == 0:
        return []
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    gx0, gy0, gx1, gy1 = cg.span
    if y1 - y0 <= gy1 - gy0 + 1 and x1 - x0 <= gx1 - gx0 + 1:
        return []   # nothing faint joined on
    image = np.where(keep[y0:y1, x0:x1], zone.image[y0:y1, x0:x1], 0).astype(np.float32)
    return [Glyph(cg.cell, image, (zx + int(x0), zy + int(y0), int(x1 - x0), int(y1 - y0)))]


def other_cuts(glyphs: list[Glyph], n_max: int, config: TilesConfig | None = None,
               star: bool = False) -> list[list[Glyph]]:
    """Other ways to cut a doubtful cell's ink into glyphs — the thin hairlines of a serif
    0 lost ("(" and ")"), a 3's terminal cut off, two digits touching, a wide digit split:
    all of it as one glyph (if no wider than a digit, ``digit_max_aspect``: the classifier,
    trained on single glyphs, reads two digits taken as one with a confidence it should
    not have) and, for two-digit numbers, all of it cut in two at ``recut_columns``
    columns across its middle, and each of two glyphs out of line alone (a tile's rim or
    shadow taken for a 1: :func:`_misaligned`). The classifier judges which reads best.
    ``star``: the set's blanks wear a star, which may be cut in two as a wide pair is: all
    of the ink as one glyph however wide."""
    cfg = config or TilesConfig()
    if not glyphs or len(glyphs) > MAX_PIECES:
        return []
    whole = _joined(glyphs)
    x0, y0, w, h = whole.box
    out = []
    if (w <= cfg.digit_max_aspect * h or star) and len(glyphs) > 1:
        out.append([whole])
    if n_max == 2 and len(glyphs) == 2 and _misaligned(*glyphs, cfg):
        out += [[glyphs[0]], [glyphs[1]]]   # one of them is no digit (a tile's rim)
    if n_max == 2 and w >= 4:
        total = float(whole.image.sum())
        for x in sorted({int(round(f * w)) for f in np.linspace(*cfg.split_window,
                                                                  cfg.recut_columns)}):
            left = whole.image[:, :x]
            if not 0.1 * total <= float(left.sum()) <= 0.9 * total:
                continue
            out.append([_trimmed(Glyph(whole.cell, left, (x0, y0, x, h))),
                        _trimmed(Glyph(whole.cell, whole.image[:, x:], (x0 + x, y0, w - x, h)))])
    return out


MAX_PIECES = 6      # glyphs in a cell beyond which no other cuts are tried


def _misaligned(a: Glyph, b: Glyph, cfg: TilesConfig) -> bool:
    """Whether two glyphs are unlike the two digits of one number, which share their top
    and their baseline: one starts or ends more than ``pair_align`` of the taller's
    height above or below the other."""
    return not _in_line(a, b, cfg.pair_align)


def _in_line(a: Glyph, b: Glyph, share: float) -> bool:
    """Whether two glyphs' tops and baselines lie within ``share`` of the taller's height."""
    tol = share * max(a.box[3], b.box[3])
    return (abs(a.box[1] - b.box[1]) <= tol
            and abs(a.box[1] + a.box[3] - b.box[1] - b.box[3]) <= tol)


def side_by_side(reads: list, shape: tuple[int, int]) -> np.ndarray:
    """(rows, cols) bool: the cells of ``reads`` (:attr:`GridRead.reads`) whose plain cut
    was two glyphs that look like the two digits of one number, read surely
    (:func:`_surely_two_digits`), or one glyph as wide as two of the photo's digits
    (:func:`_too_wide`): such ink is two digits, whatever a whole-tile reader says.

    >>> reads = [(CellGlyphs((0, 0), two_digits=True), {}), (CellGlyphs((0, 2)), {})]
    >>> side_by_side(reads, (1, 3)).tolist()
    [[True, False, False]]
    """
    out = np.zeros(shape, bool)
    for cg, _ in reads:
        out[cg.cell] = cg.two_digits
    return out


def _surely_two_digits(reading: tuple, cfg: TilesConfig) -> bool:
    """Whether a plain cut's reading (value, q, scores, glyphs, ...) is two glyphs like the
    two digits of one number (:func:`_two_digits`) read at least ``pair_sure``.

    >>> g = lambda box: Glyph((0, 0), np.ones(box[:1:-1], np.float32), box)
    >>> cfg = TilesConfig()
    >>> [_surely_two_digits((81, 0.87, {}, cut), cfg) for cut in (
    ...     [g((10, 20, 24, 36)), g((34, 20, 13, 32))],   # an 8 and a thin 1
    ...     [g((10, 20, 19, 41)), g((29, 22, 31, 48))],   # a 3's rim taken for a digit
    ...     [g((10, 20, 4, 18)), g((14, 20, 3, 18))])]    # two slivers of one stroke
    [True, False, False]
    >>> _surely_two_digits((81, 0.5, {}, [g((10, 20, 24, 36)), g((34, 20, 13, 32))]), cfg)
    False
    """
    return (cfg.pair_sure is not None and reading[1] >= cfg.pair_sure
            and _two_digits(reading[3], cfg))


def _two_digits(glyphs: list[Glyph], cfg: TilesConfig) -> bool:
    """Whether a cut's glyphs look like the two digits of one number (``digit_pair``: h,
    a, w): as tall as each other (the shorter at least h of the taller), their tops and
    baselines in line (within a of that height), and as wide together as w of it (two
    slivers of one digit's strokes are not)."""
    if cfg.digit_pair is None or len(glyphs) != 2:
        return False
    tall, line, wide = cfg.digit_pair
    ha, hb = (g.box[3] for g in glyphs)
    x0, _, x1, _ = _span(glyphs)
    return (min(ha, hb) >= tall * max(ha, hb) and _in_line(*glyphs, line)
            and x1 - x0 >= wide * max(ha, hb))


def _joined(glyphs: list[Glyph]) -> Glyph:
    """Glyphs of one cell pasted into one (their ink, in their common box)."""
    if len(glyphs) == 1:
        return glyphs[0]
    x0, y0, x1, y1 = _span(glyphs)
    image = np.zeros((y1 - y0, x1 - x0), np.float32)
    for g in glyphs:
        x, y, w, h = g.box
        view = image[y - y0:y - y0 + h, x - x0:x - x0 + w]
        np.maximum(view, g.image, out=view)
    return Glyph(glyphs[0].cell, image, (x0, y0, x1 - x0, y1 - y0))


def _tile_faces(stats: CellStats, rows: int, cols: int, p: int, cfg: TilesConfig
                ) -> tuple[np.ndarray, np.ndarray]:
    """Where ink may lie: inside each cell's ink zone, less the strips along its sides
    that are dark all along — the square showing round a tile on a darker square, however
    dark, is no ink (with the tile's rim, ``face_inset``). Returns the (rows*p, cols*p)
    bool mask and (rows, cols, 4) int boxes (x0, y0, x1, y1: first and one past the last
    column and row, in the cell)."""
    ink = _cells_view(stats.ink, rows, cols)                      # (rows, cols, p, p)
    z = _centre(p, cfg.zone_frac)
    inset = int(round(cfg.face_inset * p))
    idx = np.arange(p)
    spans, ends = [], []
    across = cfg.surround_dark * (z.stop - z.start)               # ink pixels across the zone
    for dark in (ink[:, :, z, :].sum(axis=2, dtype=np.uint16),   # per column, per row
                 ink[:, :, :, z].sum(axis=3, dtype=np.uint16)):
        solid = dark[..., z] >= across                            # (rows, cols, zone)
        lead = np.cumprod(solid, axis=2).sum(axis=2)              # dark strips from the
        trail = np.cumprod(solid[..., ::-1], axis=2).sum(axis=2)  # start, from the end
        first = z.start + np.where(lead > 0, lead + inset, 0)
        last = z.stop - np.where(trail > 0, trail + inset, 0)
        spans.append((idx >= first[..., None]) & (idx < last[..., None]))
        ends.append((first, last))
    inside = spans[1][..., :, None] & spans[0][..., None, :]      # (rows, cols, p, p)
    (x0, x1), (y0, y1) = ends
    return (inside.transpose(0, 2, 1, 3).reshape(rows * p, cols * p),
            np.stack([x0, y0, x1, y1], axis=-1))


def _group_components(st: np.ndarray, comps: list[int], p: int, origin: tuple[int, int],
                      box: np.ndarray, split_pairs: bool, cfg: TilesConfig,
                      edge_share: list[float]):
    """Filter one cell's components and group them into glyphs, left to right. ``box``:
    (x0, y0, x1, y1) of the cell where ink may lie (:func:`_tile_faces`); a component
    reaching its sides is the square or the tile's rim, not a glyph, and so is one lying
    (``edge_share``, by component) nearly all in the cell's edge band along much of a
    side: the rim or the gap lines round a corner of a tile laid off its square, thin but
    an L (no thin box).

    Returns ([(member labels, split in two?)], found a glyph at all)."""
    ox, oy = origin
    band = cfg.edge_band * p
    thin = max(2.0, cfg.line_thin * p)
    bx0, by0, bx1, by1 = (int(v) for v in box)
    keep = []
    for i in comps:
        x, y, w, h, area = (int(v) for v in st[i])
        if area < cfg.speck_area * p * p:
            continue
        if h > cfg.glyph_max_h * p or w > cfg.glyph_max_w * p:
            continue
        x, y = x - ox, y - oy
        in_band = x + w <= band or x >= p - band or y + h <= band or y >= p - band
        elongated = max(w, h) >= cfg.edge_elongated * min(w, h)
        if in_band and (min(w, h) <= thin or elongated):
            continue  # a piece of grid line, gap, tile rim or the seam between two tiles
        if edge_share[i] >= cfg.edge_share[0] and max(w, h) >= cfg.edge_share[1] * p:
            continue
        sides = (x <= bx0) + (y <= by0) + (x + w >= bx1) + (y + h >= by1)
        cx, cy = x + w / 2, y + h / 2
        centre_in_band = min(cx, cy, p - cx, p - cy) < band
        if sides >= 2 or (sides == 1 and (elongated or centre_in_band)):
            continue  # the square's colour showing round an offset or turned tile
        keep.append(i)
    # marks: an underline (flat, below a much taller component it overlaps horizontally)
    # or a speck above or below one
    drop = set()
    for u in keep:
        xu, yu, wu, hu, au = st[u]
        # flat with nothing under it (a ÷'s bar has its lower dot)
        flat = hu < cfg.underline_flat * wu and not any(
            st[t][1] >= yu + hu and min(xu + wu, st[t][0] + st[t][2]) > max(xu, st[t][0])
            for t in keep if t != u)
        for t in keep:
            xt, yt, wt, ht, at = st[t]
            if t == u or ht < cfg.underline_taller * hu or min(xu + wu, xt + wt) <= max(xu, xt):
                continue
            outside = yu >= yt + ht or yu + hu <= yt
            if (flat and yu >= yt + 0.6 * ht) or (outside and au < cfg.speck_ratio * at):
                drop.add(u)
                break
    # a piece lying along the top or bottom of the ink zone, well apart from the larger
    # ink: a stretch of the tile's rim or shadow the zone took in (a tile a little off
    # its square), not the foot of a glyph
    rim = cfg.rim_piece_band * p
    for u in keep:
        _, yu, _, hu, au = st[u]
        if not (yu - oy >= by1 - rim or yu - oy + hu <= by0 + rim):
            continue
        others = [t for t in keep if t != u and t not in drop]
        if others and max(st[t][4] for t in others) > au and all(
                max(st[t][1] - (yu + hu), yu - (st[t][1] + st[t][3])) >= rim for t in others):
            drop.add(u)
    keep = sorted((i for i in keep if i not in drop), key=lambda i: st[i][0])
    # group by horizontal overlap
    groups: list[list[int]] = []
    spans: list[list[int]] = []
    for i in keep:
        x, y, w, h, _ = st[i]
        if groups:
            gx0, gx1 = spans[-1]
            overlap = min(gx1, x + w) - max(gx0, x)
            if overlap > cfg.merge_overlap * min(w, gx1 - gx0):
                groups[-1].append(i)
                spans[-1] = [min(gx0, x), max(gx1, x + w)]
                continue
        groups.append([i])
        spans.append([x, x + w])
    if not groups:
        return [], False
    heights = [max(st[i][1] + st[i][3] for i in g) - min(st[i][1] for i in g) for g in groups]
    tallest = max(heights)
    widest = max(x1 - x0 for x0, x1 in spans)
    if max(tallest, widest) < cfg.glyph_min_h * p:   # (a minus is flat but wide)
        return [], False
    out = []
    for g, (x0, x1), h in zip(groups, spans, heights):
        if h < cfg.mark_ratio * tallest:
            continue  # the dot after 6 / 9, a speck
        out.append((g, bool(split_pairs and (x1 - x0) > cfg.split_aspect * h)))
    return out, True


def _cut_glyphs(grey, labels, group_of, gid, st, members, split, face, contrast, cell,
                cfg) -> list[Glyph]:
    """The soft-ink image of a group: (face - grey) / contrast inside its components
    (dilated by a pixel: the soft edge), cropped to their box; ``split``: cut it in two at
    the thinnest ink column inside ``cfg.split_window``."""
    x0, y0, x1, y1 = _members_box(st, members)
    m = (group_of[labels[y0:y1, x0:x1]] == gid).view(np.uint8)
    ink = (face - grey[y0:y1, x0:x1].astype(np.float32)) * (1.0 / contrast)
    np.clip(ink, 0, 1, out=ink)
    ink *= cv2.dilate(m, _KERNEL3)
    if not split:
        return [Glyph(cell, ink, (x0, y0, x1 - x0, y1 - y0))]
    w = x1 - x0
    lo, hi = int(cfg.split_window[0] * w), max(int(cfg.split_window[1] * w), 1)
    prof = ink.sum(axis=0)
    cut = lo + int(np.argmin(prof[lo:hi])) if hi > lo else w // 2
    left = Glyph(cell, ink[:, :cut], (x0, y0, cut, y1 - y0))
    right = Glyph(cell, ink[:, cut:], (x0 + cut, y0, w - cut, y1 - y0))
    return [_trimmed(left), _trimmed(right)]


_KERNEL3 = np.ones((3, 3), np.uint8)


def _ink_span(image: np.ndarray) -> tuple[np.ndarray, int, int]:
    """A soft ink image cropped to the rows/columns that hold ink, and the crop's x, y in
    it (the whole image where none does)."""
    ys, xs = np.nonzero(image > 0.25)
    if len(xs) == 0:
        return image, 0, 0
    return image[ys.min():ys.max() + 1, xs.min():xs.max() + 1], int(xs.min()), int(ys.min())


def _trimmed(g: Glyph) -> Glyph:
    """Crop a glyph to the rows/columns that hold ink."""
    img, dx, dy = _ink_span(g.image)
    if img is g.image:
        return g
    x, y, _, _ = g.box
    return Glyph(g.cell, img, (x + dx, y + dy, img.shape[1], img.shape[0]))


# ------------------------------------------------------------------------- the reader

@dataclass(frozen=True)
class TileLook:
    """A set's tiles as calibrated: their face colour in the reader's balanced OpenCV 8-bit
    Lab (:func:`cell_stats`), measured by :func:`learn_look` and kept in a board profile
    (``profile.colours["tile"]``). Squares' colours are always measured in the photo
    being read (they shift with the light; the balance is relative to the board itself)."""

    tile_lab: tuple[float, float, float] | None = None


def tile_look(profile: Any) -> TileLook | None:
    """The TileLook of a profile: a TileLook, a ``calibration.profiles.BoardProfile`` (its
    ``colours``), a dict of colours, or None."""
    if profile is None or isinstance(profile, TileLook):
        return profile
    colours = getattr(profile, "colours", profile if isinstance(profile, dict) else None)
    tile = (colours or {}).get("tile")
    return TileLook(tuple(map(float, tile))) if tile is not None else None




def tile_set_values(game: str) -> list:
    """The values of one tile of each kind, ascending: how a calibration photo of the
    tile set lays them out (row by row from the top left)."""
    if game == "mixmath":
        return sorted(MIXMATH_VALUES)
    return list("0123456789+-x/")


def learn_set_glyphs(grid_bgr: np.ndarray, game: str, *,
                     shape: tuple[int, int] | None = None,
                     config: TilesConfig | None = None) -> digits.GlyphSamples:
    """Learn a set's own glyphs from a rectified photo of its tile set laid out in
    ascending order, row by row (:func:`tile_set_values`; the real Mathable calibration
    shot is laid out so). The tiles are found and cut as when reading; their values come
    from the order, and the generic classifier must agree on most of them (else the layout
    is not the expected one and nothing is learned).

    Raises
    ------
    ValueError
        The photo does not show the tile set in the expected order.
    """
    cfg = config or TilesConfig()
    rows, cols = _grid_shape(game, shape, None)
    values = tile_set_values(game)
    read = read_grid(grid_bgr, game, config=cfg, shape=(rows, cols), tesseract=False)
    found = [(r, c) for r in range(rows) for c in range(cols)
             if read.cells[r][c] is not None]
    if len(found) != len(values):
        raise ValueError(f"the tile-set photo shows {len(found)} tiles, expected "
                         f"{len(values)} (one of each value, in ascending order)")
    agree = sum(read.cells[r][c] == v for (r, c), v in zip(found, values))
    if agree < cfg.set_min_agreement * len(values):
        raise ValueError(f"only {agree} of {len(values)} tiles read as the ascending order "
                         "expects: lay the tile set out row by row, smallest first")
    by_cell = {cg.cell: cg for cg, _ in read.reads}
    images, heights, labels = [], [], []
    p = grid_bgr.shape[0] / rows
    for (r, c), v in zip(found, values):
        cg = by_cell.get((r, c))
        text = str(v)
        if cg is not None and len(cg.glyphs) == len(text):
            images += [g.image for g in cg.glyphs]
            heights += [g.box[3] / p for g in cg.glyphs]
            labels += [digits.CLASSES.index(ch) for ch in text]
    return digits.GlyphSamples(images, np.array(heights, np.float32), np.array(labels))


def learn_look(grid_bgr: np.ndarray, game: str, *, shape: tuple[int, int] | None = None,
               config: TilesConfig | None = None) -> TileLook:
    """Measure a set's TileLook from a rectified calibration photo with tiles on it: the
    median face of the cells read as tiles on plain squares (None when there are none)."""
    cfg = config or TilesConfig()
    rows, cols = _grid_shape(game, shape, None)
    stats = cell_stats(grid_bgr, rows, cols, cfg)
    tiles = tile_candidates(stats, cfg) & (square_kinds_of(game, rows, cols) == "plain")
    if not tiles.any():
        return TileLook(None)
    return TileLook(tuple(float(v) for v in np.median(stats.face_lab[tiles], axis=0)))


@lru_cache(maxsize=None)
def square_groups_of(game: str, rows: int, cols: int) -> np.ndarray:
    """(rows, cols) names of squares that share a colour: the kind, and within premium
    kinds the colour the game names (Calculissimo's yellow whole-calculation squares and
    green digit squares differ; its start square is yellow too), else the layout
    character. A sign or a printed centre number differs from its siblings only in its
    label, not its colour. Worked out once per board (read-only)."""
    from calibration.layouts import square_colours
    kinds = square_kinds_of(game, rows, cols)
    chars = _layout_chars(game, rows, cols)
    if chars is None:
        return kinds
    colour = square_colours(game)
    return _read_only(np.array([[f"{k}:{colour.get(chars[r][c], chars[r][c])}"
                                 if k.startswith("premium") else str(k)
                                 for c, k in enumerate(row)] for r, row in enumerate(kinds)]))


@lru_cache(maxsize=None)
def square_prints_of(game: str, rows: int, cols: int) -> np.ndarray:
    """(rows, cols) names of squares that carry the same print: the kind and the layout
    character (Mixmath's four signs are one colour but four labels). Read-only."""
    kinds = square_kinds_of(game, rows, cols)
    chars = _layout_chars(game, rows, cols)
    if chars is None:
        return kinds
    return _read_only(np.array([[f"{k}:{chars[r][c]}" for c, k in enumerate(row)]
                                for r, row in enumerate(kinds)]))


def unprinted(cells: list[list], confidence: np.ndarray, game: str,
              below: float) -> None:
    """A square that prints a number (Mixmath's centre 1 2 3 4) holds no tile in play (the
    rules let none go there), so a reading of that very number there is the print seen
    as a tile (a glare lifting the square's colour towards the tiles', a numeral as clear
    as a tile's): the cell is empty, as unsure as ``below``. Another value there is a
    tile read (a set laid out over the board) or a misreading, for the referee to
    question. ``cells`` and ``confidence`` change in place.

    >>> cells, conf = [[None] * 14 for _ in range(14)], np.ones((14, 14))
    >>> cells[7][7], cells[7][6] = 4, 18
    >>> unprinted(cells, conf, "mixmath", 0.8)
    >>> cells[7][6:8], conf[7, 6:8].tolist()
    ([18, None], [1.0, 0.8])
    """
    from calibration.layouts import fixed_numbers
    if _layout_chars(game, len(cells), len(cells[0])) is None:
        return
    for (r, c), n in fixed_numbers(game).items():
        if cells[r][c] == n:
            cells[r][c] = None
            confidence[r, c] = min(confidence[r, c], below)


def _layout_chars(game: str, rows: int, cols: int) -> list[str] | None:
    """The game's layout strings, None when its board is not rows x cols."""
    from calibration.layouts import layout_rows
    chars = layout_rows(game, rows, cols)
    if len(chars) != rows or any(len(row) != cols for row in chars):
        return None
    return chars


@lru_cache(maxsize=None)
def centre_of_play(game: str, rows: int, cols: int) -> tuple[tuple, np.ndarray]:
    """(the squares the tiles in play grow from, the squares printed as tiles): Mixmath's
    centre 1 2 3 4 (both), Calculissimo's start square (the first); none when the board
    is not the game's layout. The mask is read-only.

    >>> centre_of_play("calculissimo", 15, 15)[0], int(centre_of_play("mixmath", 14, 14)[1].sum())
    (((7, 7),), 4)
    """
    from calibration.layouts import fixed_numbers, starred_squares
    printed = np.zeros((rows, cols), bool)
    if _layout_chars(game, rows, cols) is None:
        return (), printed
    numbers = tuple(fixed_numbers(game))
    for r, c in numbers:
        printed[r, c] = True
    printed.flags.writeable = False
    return numbers + tuple(starred_squares(game)), printed


@lru_cache(maxsize=None)
def blank_tiles_of(game: str) -> int:
    """How many tiles of the game's set carry no ink (blanks, jokers): read once."""
    from calibration.layouts import blank_tiles
    return blank_tiles(game)


@lru_cache(maxsize=None)
def tile_counts_of(game: str) -> MappingProxyType:
    """{value: how many tiles of it the game's set has}, "?" its blanks (read-only, once)."""
    from calibration.layouts import tile_counts
    return MappingProxyType(tile_counts(game))


@lru_cache(maxsize=None)
def square_kinds_of(game: str, rows: int, cols: int) -> np.ndarray:
    """(rows, cols) kind names of the game's layout (all "plain" when it has none); worked
    out once per board (read-only)."""
    from calibration.layouts import square_kinds
    kinds = square_kinds(game, rows, cols)
    if kinds.shape != (rows, cols):
        kinds = np.full((rows, cols), "plain")
    return _read_only(kinds)


@lru_cache(maxsize=None)
def starred_of(game: str, rows: int, cols: int) -> tuple[tuple[int, int], ...]:
    """The squares printed with a star (the start square,
    :func:`calibration.layouts.starred_squares`); none on a board of another size."""
    from calibration.layouts import starred_squares
    return tuple(starred_squares(game)) if _layout_chars(game, rows, cols) is not None else ()


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _lab_distance(lab: np.ndarray, ref, l_weight: float) -> np.ndarray:
    d = lab - np.asarray(ref, np.float32)
    return np.sqrt((l_weight * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


@dataclass
class Squares:
    """The board's colours as this photo shows them (OpenCV 8-bit Lab).

    ``tile`` — the tiles' face (None when unknown); ``expected`` — (rows, cols, 3) the
    colour each cell's square has when empty (NaN where unknown: a kind whose every square
    looks covered); ``d_square`` / ``d_tile`` — (rows, cols) distance of each cell's face
    from its empty square / from the tiles (inf when unknown)."""

    tile: np.ndarray | None
    expected: np.ndarray
    d_square: np.ndarray
    d_tile: np.ndarray
    tile_calibrated: bool = False   # the tiles' colour came from a calibration (profile)


def board_colours(stats: CellStats, cand: np.ndarray, kinds: np.ndarray,
                  look: TileLook | None = None, config: TilesConfig | None = None,
                  groups: np.ndarray | None = None) -> Squares:
    """Estimate the tiles' colour and each kind of square's empty colour.

    Plain squares carry no print, so ink on one is a tile: the tiles' colour is the median
    face of those (else ``look.tile_lab``). A kind's colour comes from the photo, per
    group of squares that look alike (``groups``,
    :func:`square_groups_of`). Plain squares carry no print, so those showing no ink are
    empty. On a special square ink does not tell — its own label may be dark (a "2x" on a
    yellow square) — colour does: the squares of the group least like a tile are the
    empty ones. Plain squares take the median face of theirs (the light's fall across them
    is already evened out); a special group, a plane across the board through its empty
    squares' faces (:func:`vision.blanks.plane_across`; a hand over a few of them is left
    out). A group whose every square looks like a tile takes the colour of those of its squares
    that show no ink, else of its kind's other groups, else stays unknown."""
    cfg = config or TilesConfig()
    face = stats.face_lab
    w = cfg.lab_l_weight
    on_plain = cand & (kinds == "plain")
    tile = None
    if on_plain.any():
        tile = np.median(face[on_plain], axis=0)
    elif look is not None and look.tile_lab is not None:
        tile = np.asarray(look.tile_lab, np.float32)
    d_tile = _lab_distance(face, tile, w) if tile is not None else np.full(kinds.shape, np.inf)
    if groups is None:
        groups = kinds

    def empty_squares(sel: np.ndarray, plain: bool) -> np.ndarray:
        bare = sel & ~cand          # showing no ink
        if tile is not None and not plain:
            # the squares farthest from the tiles' colour (at least square_sep away), and
            # all of them once surely unlike a tile: a hand over a few is outvoted
            far = np.max(d_tile[sel])
            if far >= cfg.square_sep:
                near = max(cfg.square_sep, min(cfg.unlike_tile, far - cfg.group_tol))
                return sel & (d_tile >= near)
        elif not bare.any() and not plain:
            bare = sel
        # plain squares carry no print: those showing no ink are empty; so are squares of
        # a tile-like colour that show none
        return bare

    expected = np.full(face.shape, np.nan, np.float32)
    for group in np.unique(groups):
        sel = groups == group
        kind = str(group).split(":")[0]
        empty = empty_squares(sel, kind == "plain")
        if not empty.any():
            empty = empty_squares(kinds == kind, kind == "plain")
        if empty.any():
            # plain squares' light fall is already evened out (:func:`evened`); light that
            # washes one corner out shifts a saturated print's hue more than that takes
            # away: a special group's colour is a plane across the board
            expected[sel] = (np.median(face[empty], axis=0) if kind == "plain"
                             else plane_across(face, empty, cfg.group_plane_min)[sel])
    d_square = _lab_distance(face, expected, w)
    d_square[np.isnan(d_square)] = np.inf
    calibrated = look is not None and look.tile_lab is not None
    return Squares(tile, expected, d_square, d_tile, calibrated)


def tiles_on_squares(cand: np.ndarray, kinds: np.ndarray, colours: Squares,
                     washed: np.ndarray, config: TilesConfig | None = None) -> np.ndarray:
    """(rows, cols) bool: which candidate cells are tiles.

    Ink on a plain square is a tile. On a special square (2x, 3x, a sign, the printed
    centre numbers) a candidate is a tile only when its face differs from that kind's
    empty colour (``square_sep``) and lies nearer the tiles' colour, or differs less but
    lies far nearer the tiles' (``square_sep_nearer``: a white tile on a pale premium
    square; an empty special square's face lies at least 0.8 times as far from the tiles'
    colour as from its own on the development renders) (when the tiles' colour is unknown:
    differs by ``square_sep_alone``), or when it is ``washed`` white by a glare: then
    colour tells nothing, and the reader tells a square's own print by its likeness to
    its siblings' (:func:`_label_likeness`)."""
    cfg = config or TilesConfig()
    d_sq, d_tile = colours.d_square, colours.d_tile
    plain = kinds == "plain"
    no_colour = ~np.isfinite(d_sq) | washed      # to tell a tile by
    if colours.tile is not None:
        special = cand & (d_sq > cfg.square_sep) & (d_tile < d_sq)
        if cfg.square_sep_nearer is not None:
            least, k = cfg.square_sep_nearer
            special |= cand & (d_sq > least) & (d_tile <= k * d_sq)
    else:
        special = cand & (d_sq > cfg.square_sep_alone)
    return (cand & plain) | (~plain & (special | (cand & no_colour)))


def _label_likeness(stats: CellStats, prints: np.ndarray, kinds: np.ndarray,
                    is_tile: np.ndarray, cfg: TilesConfig) -> np.ndarray:
    """(rows, cols) float: how much each special square taken for a tile shows the same
    print as the empty squares with that print (``prints``, :func:`square_prints_of`; a
    "2x" washed pale by glare looks like a tile by colour, its label gives it away) — the
    correlation of the cell's pattern with the median of those squares not taken for
    tiles, each zero-mean and unit-variance (light or dark print alike). 0 elsewhere. A
    tile hides the print: ~0, rarely 0.5. (The median of different labels — four signs —
    is a blot in the middle, as like a tile's numeral as any label.)"""
    out = np.zeros(is_tile.shape, np.float32)
    rows, cols = is_tile.shape
    n = cfg.label_px
    small = cv2.resize(stats.grey, (cols * n, rows * n),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    small -= cv2.GaussianBlur(small, (0, 0), cfg.label_detail * n)
    inner = _centre(n, cfg.zone_frac)
    z = _cells_view(small, rows, cols)[:, :, inner, inner]
    z = z.reshape(rows, cols, -1)
    z = (z - z.mean(axis=2, keepdims=True)) / (z.std(axis=2, keepdims=True) + 1.0)
    for group in np.unique(prints[is_tile & (kinds != "plain")]):
        sel = prints == group
        empty = sel & ~is_tile
        if empty.sum() < cfg.label_min_squares:
            continue
        label = np.median(z[empty], axis=0)
        label /= np.sqrt((label ** 2).mean()) + 1e-6
        doubt = sel & is_tile
        out[doubt] = (z[doubt] @ label) / label.size
    return out


@dataclass
class GridRead:
    """Everything :func:`read_grid` worked out, for the reader and for looking into why a
    cell was read as it was (arrays (rows, cols) unless noted)."""

    cells: list[list[Any]]
    confidence: np.ndarray
    occluded: np.ndarray     # bool: hidden by a hand
    stats: CellStats
    colours: Squares
    candidate: np.ndarray    # bool: a light face with dark ink
    is_tile: np.ndarray      # bool: ... and a tile by colour (not a square's own print)
    blank: np.ndarray        # bool: a tile with no ink (a joker, a blank)
    explained: np.ndarray    # bool: an empty square or a tile read with some confidence
    sides_like: np.ndarray   # how like the inked tiles' a plain square's sides look
                             # (vision.blanks.tile_likeness: robust spreads; NaN where
                             # they cannot tell)
    glare: np.ndarray        # bool: a face washed white or lifted by a glare, where a
                             # faint tile's ink may not show
    blinded: np.ndarray      # bool: a face the camera clipped white by a glare (its square
                             # darker, or a tile beside it faded), which clips a tile's ink too
    reads: list = field(default_factory=list)  # (CellGlyphs, {value: probability}) of
                                               # every tile read by the classifier
    own_font: bool = False   # the tiles wear the font the set's profile learned
                             # (its glyphs read them, sharpened: :func:`_own_font`)


def read_cells(grid_bgr: np.ndarray, game: str, *, profile: Any = None,
               config: TilesConfig | None = None, shape: tuple[int, int] | None = None,
               timings: dict | None = None):
    """Read every cell of a rectified Mixmath or Calculissimo grid (:func:`read_grid`).

    Returns
    -------
    cells : list of rows of values (int / str / None)
    confidence : (rows, cols) float ndarray, 0..1
    occluded : list of (row, col)
    """
    read = read_grid(grid_bgr, game, profile=profile, config=config, shape=shape,
                     timings=timings)
    occluded = [(int(r), int(c)) for r, c in zip(*np.nonzero(read.occluded))]
    return read.cells, read.confidence, occluded


def read_grid(grid_bgr: np.ndarray, game: str, *, profile: Any = None,
              config: TilesConfig | None = None, shape: tuple[int, int] | None = None,
              timings: dict | None = None, tesseract: bool | None = None,
              stats: CellStats | None = None,
              known: dict[tuple[int, int], tuple[Any, float]] | None = None,
              inked_jokers: bool = False, unseen: np.ndarray | None = None) -> GridRead:
    """Read every cell of a rectified Mixmath or Calculissimo grid.

    Parameters
    ----------
    grid_bgr : (rows*p, cols*p, 3) uint8
        The playing grid from above, cell (r, c) at ``[r*p:(r+1)*p, c*p:(c+1)*p]``.
    game : "mixmath" or "calculissimo"
    profile : TileLook, BoardProfile, dict of Lab colours, or None
    shape : (rows, cols), default the game's board
    timings : dict, filled with the ms of each step when given
    tesseract : ask Tesseract about unsure cells (:func:`settle_unsure`); default
        ``config.use_tesseract``
    stats : the grid's :func:`cell_stats` when already known (the same grid read turned:
        ``read.stats.rotated(k)``)
    known : {(row, col): (value, confidence)}, cells another reader (the cell net) is sure
        of: where they are taken for tiles here, that is their reading, not cut nor
        classified (the glyph reader's slowest steps, on most tiles); beside a hand, such a
        tile with little skin on it is not hidden (``config.occluder_spares``)
    inked_jokers : the set's jokers and blanks carry a star (print-and-play): no tile is
        read as a blank for lack of ink, and a Mixmath tile whose glyph is a star is one
    unseen : (rows, cols) bool, cells outside the photo (the board runs out of the frame):
        hidden like those under a hand, but no sign of one

    Returns
    -------
    GridRead
    """
    if game not in GAMES:
        raise ValueError(f"read_cells reads numbered tiles and tokens ({', '.join(GAMES)}), "
                         f"not {game!r}")
    cfg = config or TilesConfig()
    rows, cols = _grid_shape(game, shape, profile)
    if grid_bgr.ndim != 3 or grid_bgr.shape[0] < rows or grid_bgr.shape[1] < cols:
        raise ValueError(f"expected a (rows*p, cols*p, 3) image of the {rows} x {cols} grid, "
                         f"got shape {grid_bgr.shape}")
    clock = _Clock(timings)
    if stats is None:
        stats = cell_stats(grid_bgr, rows, cols, cfg)
    kinds = square_kinds_of(game, rows, cols)
    cand = tile_candidates(stats, cfg)
    stats = evened(stats, (kinds == "plain") & ~cand, cfg)
    groups = square_groups_of(game, rows, cols)
    colours = board_colours(stats, cand, kinds, tile_look(profile), cfg, groups=groups)
    washed = (stats.face_lab[..., 0] >= cfg.glare_lightness) & (stats.chroma <= cfg.glare_chroma)
    is_tile = tiles_on_squares(cand, kinds, colours, washed, cfg)
    clipped = (stats.face_grey >= cfg.glare_clipped) & (stats.face_spread <= cfg.glare_spread)
    lifted = _lifted_by_glare(stats, colours, cfg)    # its square's colour, white light added
    blank, blank_by_sides, sides_like = find_blanks(grid_bgr, stats, colours, kinds, groups,
                                                    cand, cfg.blanks, most=blank_tiles_of(game),
                                                    glare=washed | clipped | lifted,
                                                    inked=inked_jokers)
    clock("cells.stats")

    cells: list[list[Any]] = [[None] * cols for _ in range(rows)]
    conf = np.ones((rows, cols), np.float64)
    # empty cells: less sure the nearer they came to looking like a tile
    conf[cand & ~is_tile] = cfg.conf_rejected_candidate
    mixmath = game == "mixmath"
    known = {cell: v for cell, v in (known or {}).items() if is_tile[cell]}
    known_at = np.zeros_like(is_tile)
    known_at[tuple(np.array(list(known), int).reshape(-1, 2).T)] = True
    to_cut = is_tile & ~known_at
    found = _on_tile_tops(ink_glyphs(grid_bgr, rows, cols, stats, to_cut, split_pairs=mixmath,
                                     config=cfg, recut=kinds != "fixed"),
                          grid_bgr, stats, kinds, mixmath, cfg)
    clock("cells.segment")
    p = grid_bgr.shape[0] / rows
    feats = glyph_features_of([cg.glyphs for cg in found], p)
    own = _own_font(feats, digits.load_set_glyphs(getattr(profile, "glyphs", None)), cfg)
    best = read_numbers(found, p, game, cfg, own, stars=mixmath and inked_jokers,
                        features=feats)
    for cell, (value, q) in known.items():
        found.append(CellGlyphs(cell))
        best[cell] = (value, q, {value: q}, [], True)
    clock("cells.classify")
    reads = []
    prints = square_prints_of(game, rows, cols)
    label = _label_likeness(stats, prints, kinds, is_tile, cfg)
    # a face of the tiles' colour that no glare can have paled to it: colour told a tile
    told = ~(washed | clipped | lifted) & (colours.d_tile <= cfg.square_sep)
    own_print = np.zeros_like(is_tile)
    for cg in found:
        r, c = cg.cell
        if cg.cell not in best:     # no glyph after all: not a tile
            conf[r, c] = cfg.conf_rejected_candidate
            continue
        if (label[r, c] >= cfg.label_match and best[cg.cell][1] < cfg.recut_below
                and (cfg.label_over_colour or not told[r, c])):
            is_tile[r, c] = False   # its square's own print, pale in glare
            own_print[r, c] = True
            conf[r, c] = cfg.conf_rejected_candidate
            continue
        value, q, scores, cg.glyphs, cg.seg_ok = best[cg.cell]
        cells[r][c] = value
        conf[r, c] = q
        reads.append((cg, scores))
    # a start square's printed star reads as a print-and-play joker's (a blank's joker,
    # put down below, shows no ink: no print)
    for r, c in starred_of(game, rows, cols):
        if cells[r][c] == "?":
            conf[r, c] = min(conf[r, c], cfg.conf_star_print)
    for r, c in zip(*np.nonzero(blank)):
        cells[r][c] = "?"
        conf[r, c] = cfg.conf_blank

    # what the board and the tiles explain; the rest may be a hand
    read_well, glyphed = np.zeros((rows, cols), bool), np.zeros((rows, cols), bool)
    for cg, _ in reads:
        read_well[cg.cell] = conf[cg.cell] >= cfg.explained_conf
        glyphed[cg.cell] = True
    glyphless = is_tile & ~blank        # taken for a tile, but no glyph found on it
    for cell in best:
        glyphless[cell] = False
    empty = ~is_tile | glyphless
    own_print |= _prints_taken(glyphless, prints, kinds)
    on_square = empty & (own_print | _square_colour(stats, colours, cfg))
    off_square = empty & ~on_square
    glare = washed | clipped | (empty & lifted)
    skin_like = _skin_like(stats, on_square, groups, read_well, glyphed, cfg)
    # ink on a tile-like face, no glyph in it and a tinge of skin: fingers as pale as tiles
    fingers = glyphless & (stats.skin_frac >= cfg.skin_tinge) & ~skin_like
    explained = (on_square & ~fingers) | read_well | (blank & ~blank_by_sides) | glare
    if unseen is not None:
        explained |= unseen
    # an empty cell unlike its square (a tile washed out by glare?): check it
    conf[off_square & ~blank] = np.minimum(conf[off_square & ~blank], cfg.conf_off_square)
    occluded = occlusion(stats, explained, off_square | fingers, skin_like, cfg)
    if cfg.occluder_spares is not None:   # the fringe's tiles read surely, little skin
        occluded &= ~(known_at & (stats.skin_frac < cfg.occluder_spares))
    if unseen is not None:
        occluded |= unseen
    for r, c in zip(*np.nonzero(occluded)):
        cells[r][c] = None
        conf[r, c] = 0.0
    clock("cells.occlusion")

    read = GridRead(cells, conf, occluded, stats, colours, cand, is_tile, blank, explained,
                    sides_like, glare, _blinded(stats, clipped, lifted, glyphed, cfg), reads,
                    own_font=own is not None)
    if cfg.use_tesseract if tesseract is None else tesseract:
        settle_unsure(grid_bgr, read, game, cfg)
        clock("cells.tesseract")
    return read


def glyph_features_of(cuts: list[list[Glyph]], p: float) -> np.ndarray:
    """(N, D) :func:`vision.digits.glyph_features` of the glyphs of ``cuts`` (each cell's
    glyphs), cut by cut in order (``p``: cell side in px)."""
    glyphs = [g for cut in cuts for g in cut]
    return digits.glyph_features([g.image for g in glyphs], [g.box[3] / p for g in glyphs])


def _own_font(features: np.ndarray, own: digits.SetGlyphs | None,
              cfg: TilesConfig) -> digits.SetGlyphs | None:
    """The set's learned glyphs (``own``) when the board's glyphs (their ``features``)
    look like them (the median likeness at least ``own_glyphs_likeness``), else None: a
    board whose profile matched by its colours may carry another face (another edition
    of the set)."""
    if own is None or not len(features):
        return None
    like = own.likeness(digits.load_model(), features)
    return own if like >= cfg.own_glyphs_likeness else None


def read_numbers(found: list[CellGlyphs], p: float, game: str,
                 config: TilesConfig | None = None, own: digits.SetGlyphs | None = None,
                 stars: bool = False, features: np.ndarray | None = None
                 ) -> dict[tuple[int, int], tuple]:
    """Read the tiles cut by :func:`ink_glyphs`: the glyph classifier on every glyph (one
    batch), doubtful cells cut again (:func:`other_cuts`, a second batch) and, on Mixmath,
    the whole-tile model (:mod:`vision.tilemodel`, one batch) as a second opinion that
    needs no cutting (:func:`combine_readings`).

    Parameters
    ----------
    found : the cut cells (those without glyphs are left out)
    p : cell side in px
    game : "mixmath" or "calculissimo"
    own : the set's own glyph prototypes, which sharpen the glyph model (given when the
        board's glyphs look like them: :func:`_own_font`)
    stars : the set's Mixmath blanks wear the joker star (boardsight's print-and-play):
        a tile whose lone glyph is a star is a blank, "?"
    features : :func:`glyph_features_of` ``found``'s glyphs, when the caller has them

    Returns
    -------
    {(row, col): (value, confidence, {value: score}, glyphs read, segmentation ok)}
    """
    cfg = config or TilesConfig()
    readings, tile_probs = cell_readings(found, p, game, cfg, own, stars, features)
    pairs = {cg.cell: cg.two_digits for cg in found}
    return {cell: combine_readings(rs, tile_probs.get(cell), cfg, pairs[cell])
            for cell, rs in readings.items()}


def cell_readings(found: list[CellGlyphs], p: float, game: str, config: TilesConfig,
                  own: digits.SetGlyphs | None = None, stars: bool = False,
                  features: np.ndarray | None = None) -> tuple[dict, dict]:
    """The glyph readings of every cut cell and the tile model's probabilities
    (:func:`read_numbers`; ``stars``: Mixmath blanks wear the joker star; ``features``:
    the plain cuts' glyph features, :func:`glyph_features_of`, when already made).

    Returns
    -------
    readings : {(row, col): [(value, q, {value: score}, glyphs, seg ok, weight), ...]}, the
        plain cut first (weight 1), then the other cuts of doubtful cells
        (``other_cut_prior``)
    tile_probs : {(row, col): (46,) probabilities over tilemodel.TILE_VALUES}, Mixmath
        with the tile model only
    """
    cfg = config
    model = digits.load_model()
    mixmath = game == "mixmath"
    classes = digits.DIGIT_CLASSES if mixmath and not stars else None

    def classify(cuts: list[list[Glyph]], feats: np.ndarray | None = None
                 ) -> list[np.ndarray]:
        """Class probabilities of each cut's glyphs, all in one batch."""
        if feats is None:
            feats = glyph_features_of(cuts, p)
        probs = model.predict_proba(feats, classes)
        if own is not None:   # the set's own font, learned from its calibration photo
            probs = own.adapt(model, feats, probs, classes)
        return np.split(probs, np.cumsum([len(cut) for cut in cuts])[:-1])

    decode = decode_mixmath if mixmath else decode_token
    n_max = 2 if mixmath else 1
    cells = [cg for cg in found if cg.glyphs]
    # every reading of a cell: (value, q, scores, cut, seg_ok, weight of the cut)
    readings: dict[tuple[int, int], list[tuple]] = {}
    for cg, pr in zip(cells, classify([cg.glyphs for cg in cells], features)):
        readings[cg.cell] = [(*decode(pr, cg.seg_ok), cg.glyphs, cg.seg_ok, 1.0)]
        cg.two_digits = mixmath and _surely_two_digits(readings[cg.cell][0], cfg)
    too_wide = set()    # one glyph, two of the photo's digits wide: cut it in two too
    if mixmath and cfg.too_wide is not None:
        too_wide = {cg.cell for cg, wide in zip(
            cells, _too_wide([readings[cg.cell][0] for cg in cells], cfg)) if wide}
        for cg in cells:
            cg.two_digits |= cg.cell in too_wide
    tile_model = tilemodel.load_tile_model() if mixmath and cfg.tile_weight > 0 else None
    tile_probs = {}
    if tile_model is not None and cells:
        tile_probs = dict(zip((cg.cell for cg in cells), tilemodel.tile_probs(
            tile_model, tilemodel.cell_features(cells, p))))

    def doubtful(cg: CellGlyphs) -> bool:
        value, q = readings[cg.cell][0][:2]
        disputed = cg.cell in tile_probs and tilemodel.TILE_VALUES[
            int(np.argmax(tile_probs[cg.cell]))] != value
        return q < cfg.recut_below or not cg.seg_ok or disputed or cg.cell in too_wide

    # doubtful cells (and a glyph too wide for one digit) are cut again in other ways
    def faint(cg: CellGlyphs) -> list[list[Glyph]]:
        """The faint cut and its other cuts; not of an operator read as one (a ÷'s dots
        are apart from its bar by design: grown, they join it into a +)."""
        grown = faint_cut(cg, cfg) if str(readings[cg.cell][0][0]).isdigit() else []
        return [grown] + other_cuts(grown, n_max, cfg) if grown else []

    recut = [(cg, cut, prior) for cg in cells if doubtful(cg)
             for cuts, prior in ((other_cuts(cg.glyphs, n_max, cfg, stars), cfg.other_cut_prior),
                                 (faint(cg), cfg.faint_cut_prior))
             for cut in cuts]
    for (cg, cut, prior), pr in zip(recut, classify([cut for _, cut, _ in recut])):
        ok = len(cut) <= n_max
        readings[cg.cell].append((*decode(pr, ok), cut, ok, prior))
    return readings, tile_probs


def _too_wide(plain: list[tuple], cfg: TilesConfig) -> list[bool]:
    """Of the cells' plain-cut readings (value, q, scores, glyphs, ...), those of one glyph
    read as a digit (not a 1: blur widens a thin stroke most) at least ``cfg.too_wide``
    times as wide for its height as the median of the photo's other lone glyphs read as
    that digit surely (``recut_below``; at least two of them, else no call): the set's
    face, in this photo's blur. On 360 collages of the real Mathable set (1080p re-shots
    and full size), its 81 read as one glyph (a thin 1 touching the 8) stood 1.44-1.57
    times as wide as the photo's 8s, 9s or 5s it was read as (one 1.24, a blurred shot);
    10 939 lone digits at most 1.43 (1 % over 1.08).

    >>> from vision.tiles import Glyph
    >>> g = lambda w: [Glyph((0, 0), np.ones((40, w), np.float32), (0, 0, w, 40))]
    >>> plain = [(8, 0.95, {}, g(26))] * 2 + [(8, 0.6, {}, g(40)), (3, 0.6, {}, g(40))]
    >>> _too_wide(plain, TilesConfig())
    [False, False, True, False]
    """
    aspect = [r[3][0].box[2] / max(r[3][0].box[3], 1) if len(r[3]) == 1 else np.nan
              for r in plain]
    sure: dict = {}
    for k, r in enumerate(plain):
        if r[1] >= cfg.recut_below and np.isfinite(aspect[k]):
            sure.setdefault(r[0], []).append(k)
    out = []
    for k, r in enumerate(plain):
        refs = [aspect[j] for j in sure.get(r[0], []) if j != k]
        out.append(r[0] in _WIDTH_TELLS and len(refs) >= 2 and np.isfinite(aspect[k])
                   and aspect[k] >= cfg.too_wide * float(np.median(refs)))
    return out


_WIDTH_TELLS = (0, 2, 3, 4, 5, 6, 7, 8, 9)   # digits whose width blur changes little


def combine_readings(readings: list[tuple], tile: np.ndarray | None, cfg: TilesConfig,
                     two_digits: bool = False) -> tuple:
    """One cell's value from its glyph readings (:func:`cell_readings`) and the tile
    model's probabilities (46,) or None; ``two_digits``: its ink is two digits
    (:attr:`CellGlyphs.two_digits`: a plain cut of two digits read surely, or one glyph
    too wide for one), no one-digit value.

    Glyphs alone: the plain cut's reading, unless another cut reads better even after its
    weight. With the tile model (Mixmath): the glyph evidence for a value is its best
    score over the cell's cuts, each weighted (a cut into too many glyphs halves, another
    cut counts ``other_cut_prior``), and ``tile_floor`` for a value no cut reads (a pair
    when every cut found one glyph); times the tile model's probability to the power
    ``tile_weight``, renormalised over the tile values: the confidence is the chosen
    value's share, the scores are the shares.

    A reading of a blank's star ("?") has no tile value: the glyphs alone decide there.

    Returns (value, confidence, {value: score}, glyphs read, segmentation ok)."""
    if tile is None or any(r[0] == "?" for r in readings):
        first, *others = readings
        best = first[:5]
        for value, q, scores, cut, ok, weight in others:
            if q * weight > best[1]:
                best = (value, q, scores, cut, ok)
        return best
    values = tilemodel.TILE_VALUES
    glyph = np.full(len(values), cfg.tile_floor)
    source = np.zeros(len(values), np.int64)   # which reading gave each value its evidence
    for k, (value, q, scores, _, _, weight) in enumerate(readings):
        seg = q / scores[value] if scores.get(value) else 1.0   # decode's penalty for a
        idx = _VALUE_INDEX[len(scores)]                         # doubtful segmentation
        ev = np.fromiter(scores.values(), np.float64, len(scores)) * (seg * weight)
        better = ev > glyph[idx]
        glyph[idx[better]] = ev[better]
        source[idx[better]] = k
    post = glyph * np.power(tile, cfg.tile_weight)
    if two_digits:
        post[_VALUE_INDEX[10]] = 0.0   # two digits' ink: no one-digit value
    post /= post.sum()
    i = int(np.argmax(post))
    _, _, _, cut, ok, _ = readings[source[i]]
    return values[i], float(post[i]), dict(zip(values, post.tolist())), cut, ok


_VALUE_INDEX = {n: np.array([tilemodel.TILE_VALUES.index(v) for v in vs])
                for vs in (range(10), sorted(v for v in tilemodel.TILE_VALUES if v >= 10))
                for n in [len(vs)]}
"""Indices into tilemodel.TILE_VALUES of decode_mixmath's scores (0..9 for one glyph, the
two-digit values for two), by their number."""


def settle_unsure(grid_bgr: np.ndarray, read: GridRead, game: str,
                  config: TilesConfig | None = None, among: np.ndarray | None = None) -> None:
    """Ask Tesseract — one batched call — about the numbers read with a confidence below
    ``unsure_below`` (not hidden ones; only those read as a number: Tesseract has no x,
    ÷ nor star; only ``among`` these cells when given), and update ``read`` with what it says
    (:func:`_settle_with_tesseract`)."""
    cfg = config or TilesConfig()
    cells, conf = read.cells, read.confidence
    mixmath = game == "mixmath"
    unsure = [(cg, scores) for cg, scores in read.reads
              if 0 < conf[cg.cell] < cfg.unsure_below and cg.glyphs   # (not cut: known)
              and (among is None or among[cg.cell])
              and str(cells[cg.cell[0]][cg.cell[1]]).isdigit()]
    if unsure:
        _settle_with_tesseract(unsure, cells, conf, grid_bgr.shape[0] // len(cells), mixmath,
                               cfg)


class _Clock:
    """Adds the ms since the last call under a name (when a dict was given)."""

    def __init__(self, out: dict | None):
        import time
        self.out, self.time = out, time.perf_counter
        self.t = self.time()

    def __call__(self, name: str) -> None:
        now = self.time()
        if self.out is not None:
            self.out[name] = self.out.get(name, 0.0) + (now - self.t) * 1000
        self.t = now


def decode_mixmath(probs: np.ndarray, seg_ok: bool = True):
    """The best *valid* Mixmath number for per-glyph digit probabilities (n, 10), or a
    blank's star ("?") where they are over every glyph class (n, 15) and a lone glyph is
    most like the star (a print-and-play set's blanks wear it).

    Returns (value, confidence, {value: probability}) — confidence is the probability of
    the chosen number (a product over its digits), so a reading the classifier would rather
    see as an impossible number (23) comes out unsure.

    >>> p = np.full((2, 10), 0.01); p[0, 2] = 0.91; p[1, 3] = 0.6; p[1, 1] = 0.31
    >>> v, q, _ = decode_mixmath(p); v, round(q, 2)     # "23" is no tile: 21
    (21, 0.28)
    >>> star = np.full((1, 15), 0.02); star[0, 14] = 0.72   # CLASSES[14] == "?"
    >>> decode_mixmath(star)[0], decode_mixmath(star[:, :10])[0]
    ('?', 0)
    """
    n = len(probs)
    if n == 0:
        return None, 0.0, {}
    if probs.shape[1] > 10:
        star = digits.CLASSES.index("?")
        if n == 1 and np.argmax(probs[0]) == star:
            q = float(probs[0, star])
            return "?", q * (1.0 if seg_ok else 0.5), {"?": q}
        probs = probs[:, digits.DIGIT_CLASSES]
        probs = probs / probs.sum(axis=1, keepdims=True)   # as a softmax over the digits
    if n > 2:   # keep the two most confident glyphs in their order
        keep = np.sort(np.argsort(-probs.max(axis=1))[:2])
        probs = probs[keep]
        n = 2
    if n == 1:
        scores = {v: float(probs[0, v]) for v in range(10)}
    else:
        joint = np.outer(probs[0], probs[1])
        scores = {v: float(joint[v // 10, v % 10]) for v in _PAIR_VALUES}
    value = max(scores, key=scores.get)
    q = scores[value] * (1.0 if seg_ok else 0.5)
    return value, q, scores


def decode_token(probs: np.ndarray, seg_ok: bool = True):
    """A Calculissimo token from glyph probabilities over CLASSES (n, 15): the most
    probable class of the tallest glyph ("?" is the joker star)."""
    if len(probs) == 0:
        return None, 0.0, {}
    row = probs[int(np.argmax(probs.max(axis=1)))] if len(probs) > 1 else probs[0]
    scores = {digits.CLASSES[i]: float(row[i]) for i in range(len(row))}
    value = max(scores, key=scores.get)
    return value, scores[value] * (1.0 if seg_ok and len(probs) == 1 else 0.5), scores


def upright_scores(grid_bgr: np.ndarray, game: str, stats: CellStats | None = None,
                   turns: tuple[int, ...] = (0, 1, 2, 3),
                   config: TilesConfig | None = None) -> np.ndarray:
    """How well the tiles read under each quarter turn of the grid (``np.rot90(grid, k)``
    for k in ``turns``): the mean log-probability of the best valid reading of up to
    ``upright_cells`` of the clearest tiles on plain squares (:func:`tile_candidates`;
    ``stats``: the grid's :func:`cell_stats` when known). Tiles lie upright on the board,
    so the turn they read best under is the board's; it settles a board whose own
    features are symmetric (Calculissimo's layout), before the board is read. Many tokens
    read alike upside down (0, 1, 8, the signs, 6 and 9), so the special squares' printed
    labels, when they show which way is up (:func:`label_scores`), are added.
    Returns (len(turns),) floats, higher is better.

    The tiles are cut once, as they lie; each turn reads their glyphs turned (a number's
    two digits turned a quarter read as one glyph, as a cut of the turned tile would
    join them): one batch for all turns."""
    cfg = config or TilesConfig()
    if stats is None:
        stats = cell_stats(grid_bgr, *_grid_shape(game, None, None), cfg)
    rows, cols = stats.face_grey.shape
    kinds = square_kinds_of(game, rows, cols)
    labels = label_scores(grid_bgr, kinds, cfg)[list(turns)]
    return _tile_upright_scores(grid_bgr, game, stats, kinds, turns, cfg) \
        + cfg.upright_label_weight * labels


def label_scores(grid_bgr: np.ndarray, kinds: np.ndarray, config: TilesConfig | None = None
                 ) -> np.ndarray:
    """(4,) how upright the special squares' printed labels stand under each quarter turn
    of the grid (``np.rot90(grid, k)``): a label is top-heavy — a big "2×" over a small
    "digit", a star over "3× all" — so each turn scores the mean over the squares of how
    far their ink's centre of mass lies above the middle of its rows (in those rows'
    height). Zeros when the labels do not tell up from down (within ``upright_label_z``
    standard errors: no labels printed, or too blurred to show): the layout's kinds are
    symmetric under these turns, so only the print can.

    >>> kinds = np.array([["premium2", "plain"]])
    >>> grid = np.full((32, 64, 3), 200, np.uint8)
    >>> label_scores(grid, kinds).tolist()      # a bare square says nothing
    [0.0, 0.0, 0.0, 0.0]
    """
    cfg = config or TilesConfig()
    special = kinds != "plain"
    rows, cols = kinds.shape
    if special.sum() < 2:
        return np.zeros(4)
    q = cfg.upright_label_px
    small = cv2.resize(grid_bgr, (cols * q, rows * q), interpolation=cv2.INTER_AREA)
    inner = _centre(q, 1 - 2 * cfg.upright_label_inset)
    sq = _cells_view(small, rows, cols)[special][:, inner, inner].astype(np.float32)
    n, h, w, _ = sq.shape
    # each square on its own colours' main axis: a label printed lighter or darker than its
    # square, or only in another hue, departs from the square's colour along it
    x = sq.reshape(n, -1, 3)
    mu = x.mean(axis=1)[:, :, None]
    cov = x.transpose(0, 2, 1) @ x / x.shape[1] - mu @ mu.transpose(0, 2, 1)
    grey = (x @ np.linalg.eigh(cov)[1][:, :, -1:]).reshape(n, h, w)   # less the median below
    dev = np.abs(grey - np.median(grey.reshape(n, -1), axis=1)[:, None, None])
    most = dev.reshape(n, -1).max(axis=1)[:, None, None]
    ink = np.maximum(dev - cfg.upright_label_ink * most, 0)
    ink = ink[ink.reshape(n, -1).sum(axis=1) > 0]                  # a plain-coloured square
    n = len(ink)
    if n < 2:
        return np.zeros(4)
    top = _top_heaviness(ink.sum(axis=2))         # heavy at the top
    left = _top_heaviness(ink.sum(axis=1))        # heavy on the left
    # np.rot90 by k turns counter-clockwise: on top come the right side (k = 1, heavy
    # there as much as the left is light), the bottom (k = 2) and the left side (k = 3)
    heavy = np.stack([top, -left, -top, left], axis=1)
    mean = heavy.mean(axis=0)
    se = heavy.std(axis=0) / math.sqrt(n) + 1e-9
    if abs(mean[0]) < cfg.upright_label_z * se[0] and abs(mean[1]) < cfg.upright_label_z * se[1]:
        return np.zeros(4)
    return mean


def _top_heaviness(m: np.ndarray) -> np.ndarray:
    """(n,) for n ink profiles (n, length): how far the ink's centre of mass lies before
    the middle of the span that holds ink, in that span's length."""
    y = np.arange(m.shape[1])
    on = m > 0
    first = np.argmax(on, axis=1)
    last = m.shape[1] - 1 - np.argmax(on[:, ::-1], axis=1)
    cy = (m * y).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    return ((first + last) / 2 - cy) / (last - first + 1)


def clearest_tiles(stats: CellStats, kinds: np.ndarray, config: TilesConfig | None = None
                   ) -> np.ndarray:
    """(rows, cols) bool: up to ``upright_cells`` tiles on plain squares, the most
    contrasted (:func:`tile_candidates`): what tells which way the board is up."""
    cfg = config or TilesConfig()
    sel = tile_candidates(stats, cfg) & (kinds == "plain")
    if sel.sum() > cfg.upright_cells:
        contrast = np.where(sel, stats.contrast, -np.inf)
        sel = contrast >= np.sort(contrast, axis=None)[-cfg.upright_cells]
    return sel


def _tile_upright_scores(grid_bgr: np.ndarray, game: str, stats: CellStats,
                         kinds: np.ndarray, turns: tuple[int, ...], cfg: TilesConfig
                         ) -> np.ndarray:
    """The tiles' part of :func:`upright_scores`."""
    rows, cols = stats.face_grey.shape
    p = grid_bgr.shape[0] // rows
    sel = clearest_tiles(stats, kinds, cfg)
    mixmath = game == "mixmath"
    found = [cg for cg in ink_glyphs(grid_bgr, rows, cols, stats, sel, split_pairs=mixmath,
                                     config=cfg) if cg.glyphs]
    if not found:
        return np.zeros(len(turns))
    # (turn, cell): the glyphs as the turned tile shows them
    cuts = [_turned_cut(cg.glyphs, k, mixmath, cfg) for k in turns for cg in found]
    glyphs = [g for cut in cuts for g in cut]
    feats = digits.glyph_features([im for im, _ in glyphs], [h / p for _, h in glyphs])
    probs = digits.load_model().predict_proba(feats, digits.DIGIT_CLASSES if mixmath else None)
    decode = decode_mixmath if mixmath else decode_token
    logq = np.zeros(len(cuts))
    i = 0
    for j, cut in enumerate(cuts):
        q = decode(probs[i:i + len(cut)], found[j % len(found)].seg_ok)[1]
        logq[j] = math.log(q + 1e-3)
        i += len(cut)
    return logq.reshape(len(turns), len(found)).mean(axis=1)


_TURNED_XY = [np.array(m, float) for m in ([[1, 0], [0, 1]], [[0, -1], [1, 0]],
                                            [[-1, 0], [0, -1]], [[0, 1], [-1, 0]])]
"""Where ``np.rot90(image, k)`` takes a point's (x, y) (up to a shift): ``xy @ _TURNED_XY[k]``."""


def _turned_cut(glyphs: list[Glyph], k: int, pairs: bool, cfg: TilesConfig
                ) -> list[tuple[np.ndarray, int]]:
    """A tile's glyphs as the tile turned by ``np.rot90`` ``k`` shows them, (image, height)
    each: glyphs side by side there are read one by one, left to right; glyphs one above
    the other there, as one, as a cut of the turned tile would join them. Ink wider there
    than a digit (``pairs``: a number's two digits, touching) is cut in two at its
    thinnest column: the glyph reader, trained on single glyphs, reads two digits as one
    with a confidence it should not have. (The tiles are cut as they lie in the grid: on
    a board found a quarter turn off, a number's two digits lie one above the other, and
    touching they are one piece, or two cut across both.)"""
    if len(glyphs) > 1:
        centres = np.array([(x + w / 2, y + h / 2) for x, y, w, h in (g.box for g in glyphs)])
        turned = centres @ _TURNED_XY[k % 4]
        across, down = np.ptp(turned, axis=0)
        if across > down:
            return [(np.rot90(glyphs[i].image, k), glyphs[i].box[2 if k % 2 else 3])
                    for i in np.argsort(turned[:, 0])]
    image = np.rot90(_joined(glyphs).image, k)
    h, w = image.shape
    if pairs and w > cfg.digit_max_aspect * h:
        lo, hi = (int(round(f * w)) for f in cfg.split_window)
        x = lo + int(np.argmin(image[:, lo:hi + 1].sum(axis=0)))
        halves = (_ink_span(np.ascontiguousarray(part))[0]
                  for part in (image[:, :x], image[:, x:]))
        return [(half, half.shape[0]) for half in halves]
    return [(image, h)]


# ------------------------------------------------------------------------ Tesseract

def tesseract_sheet(crops: list[np.ndarray], height: int, per_row: int = 8, gap: float = 1.0):
    """Paste grey crops (ink dark on white), each scaled to ``height`` px, on one white
    sheet, ``per_row`` to a row, ``gap`` * height apart. Returns (sheet, boxes) with each
    crop's (x0, y0, x1, y1) on the sheet."""
    pad = int(gap * height)
    scaled = []
    for crop in crops:
        h, w = crop.shape
        s = height / max(h, 1)
        scaled.append(cv2.resize(crop, (max(1, round(w * s)), height),
                                 interpolation=cv2.INTER_CUBIC))
    rows = [scaled[i:i + per_row] for i in range(0, len(scaled), per_row)]
    width = max(pad + sum(im.shape[1] + pad for im in row) for row in rows)
    sheet = np.full((pad + len(rows) * (height + pad), width), 255, np.uint8)
    boxes = []
    for k, row in enumerate(rows):
        y = pad + k * (height + pad)
        x = pad
        for im in row:
            sheet[y:y + height, x:x + im.shape[1]] = im
            boxes.append((x, y, x + im.shape[1], y + height))
            x += im.shape[1] + pad
    return sheet, boxes


TESSERACT_THREADS = "1"
"""Tesseract's OpenMP threads (``OMP_THREAD_LIMIT``, where the user has not set it): on
a sheet of cells its threads cost more than they give — a whole board's 196 cells took
1.7-1.8 s on two threads and 0.85-0.9 s on one, three cells 230-250 ms either way
(session 55); and readers run side by side (an archive on every core) would make threads
that fight over the cores (tesseract-ocr/tesseract#3109)."""


def tesseract_read(crops: list[np.ndarray], height: int = 48) -> list[str]:
    """Digits Tesseract reads in each crop — ONE ``pytesseract.image_to_boxes`` call for
    all of them (one sheet with gaps; each character goes to the crop its box centre lies
    in, left to right). Tesseract runs on one thread unless ``OMP_THREAD_LIMIT`` says
    otherwise (:data:`TESSERACT_THREADS`)."""
    import pytesseract
    if not crops:
        return []
    os.environ.setdefault("OMP_THREAD_LIMIT", TESSERACT_THREADS)   # read by its child
    sheet, boxes = tesseract_sheet(crops, height)
    text = pytesseract.image_to_boxes(
        sheet, config="--psm 6 -c tessedit_char_whitelist=0123456789")
    found: list[list[tuple[float, str]]] = [[] for _ in crops]
    h = sheet.shape[0]
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        x0, y0, x1, y1 = (int(v) for v in parts[1:5])
        cx, cy = (x0 + x1) / 2, h - (y0 + y1) / 2    # boxes count y from the bottom
        for i, (bx0, by0, bx1, by1) in enumerate(boxes):
            if bx0 - height / 4 <= cx <= bx1 + height / 4 and by0 <= cy <= by1:
                found[i].append((cx, parts[0]))
                break
    return ["".join(ch for _, ch in sorted(f)) for f in found]


def _glyph_crop(cg: CellGlyphs) -> np.ndarray:
    """The cell's kept glyphs pasted back where they were: dark ink on white, uint8."""
    ink = _joined(cg.glyphs).image
    canvas = np.pad(ink, max(2, ink.shape[0] // 4))
    return (255 * (1 - canvas)).astype(np.uint8)


def _settle_with_tesseract(unsure, cells, conf, p, mixmath, cfg) -> None:
    """Ask Tesseract (one batched call) about the unsure cells and combine its answer with
    the classifier's scores: a read Tesseract agrees with gains confidence; a different
    valid read wins when the classifier gave it a fair chance."""
    reads = tesseract_read([_glyph_crop(cg) for cg, _ in unsure], cfg.tesseract_px)
    t = cfg.tesseract_trust
    for (cg, scores), text in zip(unsure, reads):
        r, c = cg.cell
        if not text:
            continue
        value = int(text) if mixmath else text
        if value not in scores:
            continue  # not a valid reading: Tesseract is no help here
        # Tesseract's mistakes fall on look-alikes (8/3, 1/7), the classifier's rivals
        # too: its read weighs t against 1 - t, a tie-break more than a verdict
        post = {v: s * (t if v == value else 1 - t) for v, s in scores.items()}
        total = sum(post.values()) or 1.0
        best = max(post, key=post.get)
        cells[r][c] = best
        conf[r, c] = post[best] / total


# ------------------------------------------------------------------------ occlusion

def _skin_like(stats: CellStats, empty: np.ndarray, groups: np.ndarray, tiles: np.ndarray,
               glyphed: np.ndarray, cfg: TilesConfig) -> np.ndarray:
    """(rows, cols) bool: cells where skin colour says nothing of a hand — empty squares
    of a kind that is itself skin-coloured (a pink or tan board), and tiles when the
    tiles are (pale wood under warm light): every cell with a glyph read on it, however
    poorly (a finger shows none). ``empty``, ``tiles``: cells seen to be so (``tiles``:
    read well, which says whether the set is skin-coloured); ``glyphed``: the cells whose
    glyphs were read (the tiles read well among them).

    Pale wood (skin-coloured tiles read well): a tile read poorly is still no hand's, a
    skin-coloured cell with no glyph may be one:

    >>> from types import SimpleNamespace
    >>> stats = SimpleNamespace(skin_frac=np.array([[0.8, 0.9, 0.7, 0.8]]))
    >>> well, glyphed = np.array([[1, 1, 0, 0]], bool), np.array([[1, 1, 1, 0]], bool)
    >>> nothing = np.zeros((1, 4), bool)
    >>> _skin_like(stats, nothing, np.zeros((1, 4), int), well, glyphed, TilesConfig()
    ...            ).astype(int)
    array([[1, 1, 1, 0]])

    White tiles (little skin where read well): skin on any tile counts.

    >>> stats.skin_frac[0, :2] = 0.1
    >>> _skin_like(stats, nothing, np.zeros((1, 4), int), well, glyphed, TilesConfig()
    ...            ).astype(int)
    array([[0, 0, 0, 0]])
    """
    def skin_coloured(sel):
        seen = stats.skin_frac[sel]
        return len(seen) > 0 and float(np.median(seen)) >= cfg.skin_min_frac

    out = glyphed & skin_coloured(tiles)
    for group in np.unique(groups):
        sel = groups == group
        out[sel & empty] = skin_coloured(sel & empty)
    return out


def _prints_taken(glyphless: np.ndarray, prints: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: the ``glyphless`` cells (taken for tiles by colour, no glyph on
    them) of a special square's print of which most squares are such cells: the squares
    themselves, their colour misjudged (a bright light washing them pale), not tiles nor
    a hand (a hand covers one part of the board, a print's squares lie all over it).

    >>> prints = np.array([["p:2", "p:2", "p:3"], ["p:2", ".", "p:3"]])
    >>> kinds = np.where(prints == ".", "plain", "premium")
    >>> _prints_taken(np.array([[1, 1, 1], [0, 0, 0]], bool), prints, kinds).astype(int)
    array([[1, 1, 0],
           [0, 0, 0]])
    """
    out = np.zeros_like(glyphless)
    for print_ in np.unique(prints[glyphless & (kinds != "plain")]):
        squares = prints == print_
        if 2 * (glyphless & squares).sum() > squares.sum():
            out |= glyphless & squares
    return out


def _lifted_by_glare(stats: CellStats, colours: Squares, cfg: TilesConfig) -> np.ndarray:
    """(rows, cols) bool: the face is its square's colour with white light added — B, G
    and R raised, those not near white by about the same amount (a glare turns an olive
    square tan, a hue no square of the board has; skin or a sleeve over it raises the
    channels unevenly)."""
    exp = colours.expected
    known = np.isfinite(exp).all(axis=-1)
    d = np.zeros(exp.shape, np.float32)
    d[known] = stats.face_balanced[known] - _bgr(exp[known])
    # a channel near white may have been lifted less than the others: clipped by the
    # camera (as shot) or by the balance (which scales a dim photo up to 255)
    near_white = stats.face_balanced >= cfg.glare_near_white
    if cfg.glare_white_as_shot:
        near_white |= stats.face_bgr >= cfg.glare_near_white
    free = np.where(near_white, np.nan, d)
    with warnings.catch_warnings():     # all near white: NaN, judged by the lift alone
        warnings.simplefilter("ignore", RuntimeWarning)
        lift = np.nanmean(free, axis=-1)
        apart = np.nanmax(free, axis=-1) - np.nanmin(free, axis=-1)
    even = ~(lift < cfg.glare_lift) & ~(apart > cfg.glare_tint[0] + cfg.glare_tint[1] * lift)
    return known & (d.max(axis=-1) >= cfg.glare_lift) & even


def _blinded(stats: CellStats, clipped: np.ndarray, lifted: np.ndarray, inked: np.ndarray,
             cfg: TilesConfig) -> np.ndarray:
    """(rows, cols) bool: faces the camera ``clipped`` white where a glare did it, not the
    exposure (which leaves a tile's ink dark): ``lifted`` above their square's colour, or
    beside an ``inked`` tile whose ink has faded well below the others'. There a tile's
    ink would be clipped too."""
    contrast = stats.contrast
    faded = np.zeros_like(inked)
    if inked.any():
        faded = inked & (contrast < cfg.glare_faded * np.median(contrast[inked]))
    near = cv2.dilate(faded.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return clipped & (lifted | near)


def _bgr(lab: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_lab`: (..., 3) OpenCV 8-bit-scaled Lab -> float BGR 0..255."""
    shape = lab.shape
    lab = (np.asarray(lab, np.float32) - np.array([0, 128, 128], np.float32)) \
        * np.array([100 / 255, 1, 1], np.float32)
    return cv2.cvtColor(lab.reshape(-1, 1, 3), cv2.COLOR_LAB2BGR).reshape(shape) * 255.0


def _square_colour(stats: CellStats, colours: Squares, cfg: TilesConfig) -> np.ndarray:
    """(rows, cols) bool: the face is its square's usual colour, allowing for shade and
    glare (lightness may change a lot, hue and chroma little)."""
    d = stats.face_lab - colours.expected
    lighter = d[..., 0]
    return ((np.hypot(d[..., 1], d[..., 2]) <= cfg.square_chroma_tol)
            & (lighter >= -cfg.square_darker_tol) & (lighter <= cfg.square_lighter_tol))


def seam_depths(stats: CellStats, config: TilesConfig | None = None) -> np.ndarray:
    """(rows, cols, 4) how much darker than either side each cell's border is (top,
    bottom, left, right; in the face's grey): the gap between two tiles or the line
    between two squares, lightest where a hand lies across it."""
    cfg = config or TilesConfig()
    rows, cols = stats.face_grey.shape
    p = stats.grey.shape[0] // rows
    d = max(int(round(cfg.blanks.rim_reach[0] * p)), 0)     # px outside the cell, as
    prof = rim_profiles(stats.grey, rows, cols, cfg.blanks)   # rim_profiles takes them
    prof = prof.reshape(rows, cols, 4, -1)
    s = max(2, int(round(cfg.seam_width * p)))
    seam = prof[..., max(d - s, 0):d + s].min(axis=-1)
    beside = np.minimum(np.median(prof[..., :max(d - s, 1)], axis=-1),
                        np.median(prof[..., d + s:], axis=-1))
    return (beside - seam) / np.maximum(stats.face_grey, 1.0)[..., None]


def _parted_by_seams(blob: np.ndarray, seams: np.ndarray, cfg: TilesConfig) -> bool:
    """Whether the cells of ``blob`` ((rows, cols) bool) show a seam (:func:`seam_depths`)
    on ``seam_share`` of their sides (at least ``seam_least`` sides): a hand or a sleeve
    lies across the borders of the cells it hides, and hides them."""
    depth = seams[blob].ravel()
    return len(depth) >= cfg.seam_least and (depth >= cfg.seam_depth).mean() >= cfg.seam_share


def occlusion(stats: CellStats, explained: np.ndarray, foreign: np.ndarray,
              skin_like: np.ndarray | None = None,
              config: TilesConfig | None = None) -> np.ndarray:
    """(rows, cols) bool: cells a hand or arm hides.

    ``explained``: cells the board or a tile accounts for (an empty square of its usual
    colour, a tile read with some confidence, a blank). The others are suspect, and a blob
    of them is a hand when it holds a skin-coloured cell (not where skin colour is what
    the square or tile looks like anyway, ``skin_like``) and ``occluder_min_cells``
    cells, or ``occluder_foreign_cells`` cells ``foreign`` (neither its square's colour
    nor a tile with a glyph: a sleeve, a glove, fingers as pale as the tiles) —
    hard-to-read tiles alone are no hand — nor is a blob whose cells show the seams
    between them (:func:`_parted_by_seams`: tiles or squares in odd light, each lying in
    its cell; a hand lies across the borders). Hidden are the blob and its partly covered
    fringe (a finger over part of a tile: some skin colour where there should be none)."""
    cfg = config or TilesConfig()
    suspect = ~explained
    skin = (stats.skin_frac >= cfg.skin_min_frac) & suspect
    if skin_like is not None:
        skin &= ~skin_like
    if not suspect.any():
        return suspect
    n, labels, st, _ = cv2.connectedComponentsWithStats(suspect.astype(np.uint8), connectivity=8)
    n_skin = np.bincount(labels[skin], minlength=n)
    n_off = np.bincount(labels[foreign & suspect], minlength=n)
    big = [i for i in range(1, n) if (n_skin[i] > 0 and st[i, cv2.CC_STAT_AREA]
                                      >= cfg.occluder_min_cells)
           or n_off[i] >= cfg.occluder_foreign_cells]
    if big:     # ... unless its cells' borders show: things in odd light, each in its cell
        seams = seam_depths(stats, cfg)
        big = [i for i in big if not _parted_by_seams(labels == i, seams, cfg)]
    hidden = np.isin(labels, big)
    edge = stats.skin_frac >= cfg.skin_edge_frac
    if skin_like is not None:
        edge &= ~skin_like | suspect
    for _ in range(cfg.occluder_grow):
        grown = cv2.dilate(hidden.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        hidden = hidden | (grown & edge)
    return hidden

