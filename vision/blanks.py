"""Blank tiles: a tile with no ink on it — a Mixmath blank, a Calculissimo joker without a
printed star. Ink does not find them; only the tile itself does.

:func:`find_blanks` is called by :func:`vision.tiles.read_grid` with what it has worked
out of the grid: cell statistics, the board's colours, the square kinds and groups, and
the cells with ink (``cand``).

How a blank shows without a calibrated tile colour: its face is a square 80-95 % of a
cell, offset up to 10 %, turned up to 10°, bounded by its rim, its sides or its shadow —
but an empty square is a square too, bounded by the gaps between squares, and a blank's
face may have nearly the colour of the square under it. So each cell's *face outline* is
measured (:func:`face_outlines`): going out from the face's colour at the cell's centre,
where the colour first leaves it, sharply, on seven strips across each side; a straight
line through each side's crossings. Every empty square of a colour group shows the same
outline in one photo — what the light and the blur do to the gaps varies smoothly across
the board, and a neighbouring tile (its shadow, its sides) or the board's edge does the
same to each square beside it — so the ink-less cells tell what an empty square looks
like here (:func:`unlike_empty`). The evidence for a blank adds up how much narrower,
farther off centre and more turned its outline is than that, how far its colour is from
its square's and how like the inked tiles' its sides are (see below; :class:`BlanksConfig`).
Glare and a soft shadow have no sharp square outline; a square's printed label, a digit
or a star is ink.

A blank of its square's very colour shows little of that; but it stands on the board as
every tile does, with the same rim, sides and shadow, lit by the same light and seen from
the same angle, and the photo's inked tiles show what those look like here
(:func:`tile_likeness`). A cell whose sides are far more like theirs than the empty
squares' are, with a little outline evidence besides, is a blank too — unless that makes
more blanks than the set has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from .tiles import CellStats, Squares


@dataclass(frozen=True)
class BlanksConfig:
    """Tunables of the blank finder. Colour distances are in the reader's balanced Lab;
    lengths are fractions of a cell."""

    # -- with a calibrated tile colour (a profile)
    match: float = 12.0            # an ink-less face this near the tiles' ...
    square_sep: float = 28.0       # ... and this far from its square's is a blank
    max_contrast: float = 18.0     # ... showing no more ink than this

    # -- the face outline (face_outlines)
    px: int = 32                   # cell side the outline is measured at (a 10° turn moves
                                   # an edge 1.2 px along the strips: still measurable)
    reach: float = 0.25            # profiles start this far outside the cell (a tile may
                                   # overhang its square by its offset)
    strips: tuple[float, ...] = (-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3)  # along each side
                                   # (those cutting a corner rounded by up to 18 % of a
                                   # tile, or the corner of an offset one, are dropped)
    strip_px: int = 4              # each strip's width (px at ``px``)
    search: float = 0.375          # the face's edge is looked for this far into the cell
    face_frac: float = 0.3         # the face's colour: the median of the cell's centre
    leave: float = 0.12            # the face ends where its colour (BGR, L1) leaves it by
    leave_abs: float = 7.0         # this share of its grey level plus this: a grey 4 %
                                   # darker (a rim at 90 % of the face's brightness still
                                   # counts; noise does not)
    sharp: float = 0.25            # ... within a few px: a crossing whose slope is below
                                   # this * the threshold per px is a soft fall (glare, a
                                   # shadow's penumbra), no edge ...
    strong: float = 2.0            # ... nor is one that barely leaves the face's colour
                                   # (a faint gap: where it crosses is mostly noise)
    line_tol: float = 0.8          # px: a strip this far off its side's line is dropped
    min_strips: int = 4            # ... and each side keeps at least this many of 7
    max_rms: float = 0.6           # px: a side's crossings lie this close to one line
    max_turn_spread: float = 6.0   # degrees: the four sides turn alike (a square)
    max_aspect: float = 0.08       # the face's width and height differ at most this much
    face_size: tuple[float, float] = (0.55, 1.1)   # the face's side, a share of a cell (a
                                   # tile of 80 % inside a 6 % rim, blurred: ~0.6)
    ink_window: float = 0.36       # the face's centre this wide shows no ink ...
    ink_level: float = 0.05        # ... no pixel (3x3-blurred grey) darker than its median
    ink_abs: float = 10.0          # by this share, at least this many levels (noise of
                                   # 6/255 blurred: < 8; glare-washed ink: 15-30) ...
    ink_share: float = 0.02        # ... in more than this share of it (a star, a digit,
                                   # even a lone "1" or "-" cover more than 4 %) ...
    ink_colour: float = 40.0       # ... nor (at ``px``) this far from the face's colour
                                   # (BGR, L1: noise stays under 25)

    # -- unlike the empty squares (what an empty square's outline is in this photo)
    min_empty: int = 3             # ink-less cells a group needs to tell its outline
    plane_empty: int = 8           # ... and to fit it as a plane across the board
    side_spread: float = 1.0       # a side's place tells only beyond this many robust
                                   # spreads of the empty squares' beside alike neighbours
    # The evidence that a face is a tile's adds up: a face this much narrower on both
    # axes than an empty square's ...
    shrink_unit: float = 0.094
    shift_unit: float = 0.125      # ... this much farther off its square's centre ...
    turn_unit: float = 1.67        # ... turned this many degrees more ...
    colour_unit: float = 12.5      # ... its colour this far from its square's ...
    colour_cap: float = 25.0       # ... (up to this far: glare whitens a square beyond)
    like_unit: float = 12.5        # ... its sides this many robust spreads more like the
    like_cap: float = 25.0         # inked tiles' than the empty squares' (tile_likeness;
                                   # up to this many) ...
                                   # ... each count 1 (the sides beside a tile or the
                                   # board's edge beyond what they do to empty squares
                                   # here). Of ~90 000 empty squares in ~1 000 renders
                                   # none reached 2.2 (1 reached 2.0); with the sides
                                   # counted, none of ~130 000 in 2 100; beside a hand a
                                   # few do (such a frame is rejected anyway) ...
    evidence: float = 2.2          # ... a blank's reaches this (~70 % of blank jokers and
                                   # blanks in renders: the others look like the square
                                   # under them: about its size, straight, centred) ...
    colour_min: float = 4.0        # ... and its face's colour differs at least this much
                                   # from its square's (an empty square's: < 1.4 in 75 %,
                                   # > 4 in a few %: glare, a shadow)
    max_chroma: float = 45.0       # a tile's face is not vivid (pale wood ~30)
    min_l: float = 100.0           # ... nor dark (balanced Lab L; tiles are light)
    off_square: float = 25.0       # on a square no tile looks like (vivid, dark), a pale
                                   # face this far from its colour with a clean outline
                                   # is a tile
    near: int = 2                  # the empty squares this many cells around ...
    near_least: int = 3            # ... at least this many of them, set the colour a face
                                   # is compared with (besides the board-wide model's)
    l_weight: float = 0.5          # lightness counts half in colour distances (as in
                                   # vision.tiles)

    # -- like the tiles with ink (tile_likeness): the light across each side of a cell,
    # where a tile shows its rim, its sides and its shadow as every tile in the photo does
    rim_reach: tuple[float, float] = (0.25, 0.19)   # profiles this far out of and into
                                   # the cell (its neighbour's rim, the gap, its own rim,
                                   # sides and shadow) ...
    rim_span: tuple[float, float] = (0.2, 0.8)   # ... averaged along this part of a side
    rim_least: tuple[int, int] = (5, 10)         # inked tiles, bare squares needed
    rim_z: float = 10.0            # a bare cell this many robust spreads of the bare
    rim_dev: float = 1.0           # squares' towards the tiles, with at least this much
                                   # outline evidence and little skin (a hand is no blank;
    rim_skin: float = 0.3          # a cream joker in warm light passes for skin in up to
                                   # ~30 % of its face) is a blank, unless that makes more
                                   # blanks than the set has: then the photo's light, not
                                   # its tiles, set the squares apart (dev seeds: over 40 %
                                   # of the blanks the outline missed; an empty square in
                                   # ~10 000)


@dataclass
class Outlines:
    """Each cell's face outline (arrays (rows, cols); lengths in px at ``px`` per cell)."""

    px: int
    width: np.ndarray        # face width along the row through its centre
    height: np.ndarray
    dx: np.ndarray           # face centre's offset from the cell's (right, down positive)
    dy: np.ndarray
    turn: np.ndarray         # degrees (the four sides' median)
    turn_spread: np.ndarray  # degrees between the most and least turned side
    strips: np.ndarray       # fewest strips on a side's line
    rms: np.ndarray          # largest rms distance of a side's strips from its line
    inked: np.ndarray        # bool: ink in the face's centre
    insets: np.ndarray       # (rows, cols, 4) each side's line (top, bottom, left, right)
                             # inside the cell's border at the side's middle
    slopes: np.ndarray       # (rows, cols, 4) each side's slope, signed so that the four
                             # agree for a turned square

    def clean(self, cfg: BlanksConfig) -> np.ndarray:
        """A sharp square outline of a tile's size."""
        q = self.px
        lo, hi = cfg.face_size[0] * q, cfg.face_size[1] * q
        return ((self.strips >= cfg.min_strips) & (self.rms <= cfg.max_rms)
                & (self.turn_spread <= cfg.max_turn_spread)
                & (np.abs(self.width - self.height) <= cfg.max_aspect * q)
                & (self.width >= lo) & (self.width <= hi)
                & (self.height >= lo) & (self.height <= hi))


_SIGN = np.array([1.0, -1.0, -1.0, 1.0])   # side slopes that agree for a turned square
                                           # (top, bottom, left, right)


def face_outlines(grid_bgr: np.ndarray, rows: int, cols: int,
                  config: BlanksConfig | None = None, where: np.ndarray | None = None,
                  grey: np.ndarray | None = None) -> Outlines:
    """Measure the face outline of every cell, or of the cells ``where`` is True (the
    others get NaN, no strips, and ink); vectorised over the grid (see the module).
    ``grey``: the grid in grey, 3x3-blurred (made when not given)."""
    cfg = config or BlanksConfig()
    q = cfg.px
    m = int(round(cfg.reach * q))
    n = m + int(round(cfg.search * q))             # profile length: outside -> inside
    p = grid_bgr.shape[0] // rows
    grey_full = grey if grey is not None else cv2.blur(
        cv2.cvtColor(grid_bgr[:rows * p, :cols * p], cv2.COLOR_BGR2GRAY), (3, 3))
    small = cv2.resize(grid_bgr[:rows * p, :cols * p], (cols * q, rows * q),
                       interpolation=cv2.INTER_AREA)
    sel_r, sel_c = np.nonzero(np.ones((rows, cols), bool) if where is None else where)
    if len(sel_r) == 0:
        nan = np.full((rows, cols), np.nan, np.float32)
        nan4 = np.full((rows, cols, 4), np.nan, np.float32)
        return Outlines(q, nan, nan, nan, nan, nan, nan, np.zeros((rows, cols), np.float32),
                        nan, np.ones((rows, cols), bool), nan4, nan4)
    # the face's colour: the median of the cell's centre
    a = int(round(q * (1 - cfg.face_frac) / 2))
    centre = small.reshape(rows, q, cols, q, 3)[sel_r, a:q - a, sel_c, a:q - a]
    face = np.median(centre.reshape(len(sel_r), -1, 3), axis=1).astype(np.int16)
    grey = face.mean(axis=-1)
    tau = cfg.leave * grey + cfg.leave_abs                         # (cells,)

    # strips across each side at fixed places along it: box means over strip_px, then
    # every cell's profiles are slices (bottom and right padded farther for that); the
    # distance from the face's colour summed over the channels, one channel at a time
    pad = cv2.copyMakeBorder(small, m, m + q, m, m + q, cv2.BORDER_REPLICATE)
    w = cfg.strip_px
    along = np.rint(np.asarray(cfg.strips) * q).astype(int)     # px from the side's middle
    k = len(along)
    at_x = ((m + q // 2 - w // 2 + along)[None, :] + (np.arange(cols) * q)[:, None]).ravel()
    at_y = ((m + q // 2 - w // 2 + along)[None, :] + (np.arange(rows) * q)[:, None]).ravel()
    o = q + 2 * m - n               # where the bottom (right) profile's inner end lies
    face8 = face.astype(np.uint8)
    dist = np.zeros((len(sel_r), 4, k, n), np.uint16)
    for ch, plane in enumerate(cv2.split(pad)):
        # strips running down (top, bottom sides) are rows of the turned plane
        turned = cv2.transpose(plane)
        hs = sum(turned[at_x + j].astype(np.uint16) for j in range(w))
        vs = sum(plane[at_y + j].astype(np.uint16) for j in range(w))
        hs = ((hs + w // 2) // w).astype(np.uint8).reshape(cols, k, -1)     # (cols, k, Hp)
        vs = ((vs + w // 2) // w).astype(np.uint8).reshape(rows, k, -1)     # (rows, k, Wp)
        top = hs[:, :, :rows * q].reshape(cols, k, rows, q)[..., :n][sel_c, :, sel_r]
        bot = hs[:, :, o:o + rows * q].reshape(cols, k, rows, q)[..., :n][sel_c, :, sel_r]
        left = vs[:, :, :cols * q].reshape(rows, k, cols, q)[..., :n][sel_r, :, sel_c]
        right = vs[:, :, o:o + cols * q].reshape(rows, k, cols, q)[..., :n][sel_r, :, sel_c]
        f = face8[:, ch, None, None]
        for i, prof in enumerate((top, bot[..., ::-1], left, right[..., ::-1])):
            dist[:, i] += np.maximum(prof, f) - np.minimum(prof, f)    # (cells, k, n)
    d = dist.astype(np.float32)

    # where, going out from the centre, the colour first leaves the face (subpixel)
    t = tau[:, None, None, None]
    beyond = (d > t)[..., ::-1]
    idx = np.where(beyond.any(-1), (n - 1) - np.argmax(beyond, axis=-1), -1)  # innermost
    i0 = np.clip(idx, 1, n - 2)[..., None]
    d0 = np.take_along_axis(d, i0, -1)[..., 0]
    d1 = np.take_along_axis(d, i0 + 1, -1)[..., 0]
    before = np.take_along_axis(d, i0 - 1, -1)[..., 0]
    t = t[..., 0]
    at = i0[..., 0] + np.clip((d0 - t) / np.maximum(d0 - d1, 1e-3), 0, 1)
    ok = ((idx > 1) & (idx < n - 2)
          & ((before - d1) / 2 >= cfg.sharp * t)                 # a sharp fall ...
          & (np.maximum(d0, before) >= cfg.strong * t))           # ... of a real edge

    # a line through each side's crossings, the worst strips dropped
    x = along.astype(np.float32)
    powers = np.stack([np.ones_like(x), x, x * x], axis=1)          # (k, 3)
    wgt = ok.astype(np.float32)
    for it in range(k - cfg.min_strips + 1):
        s0, sx, sxx = np.moveaxis(wgt @ powers, -1, 0)
        sy, sxy = np.moveaxis((wgt * at) @ powers[:, :2], -1, 0)
        det = s0 * sxx - sx * sx
        slope = (s0 * sxy - sx * sy) / np.where(det > 1e-6, det, np.inf)
        icpt = (sy - slope * sx) / np.maximum(s0, 1)               # at the side's middle
        res = np.abs(at - (icpt[..., None] + slope[..., None] * x)) * wgt
        cnt = s0
        if it == k - cfg.min_strips:
            break
        drop = (res.max(-1) > cfg.line_tol) & (cnt > cfg.min_strips)
        if not drop.any():
            break
        worst = res.argmax(-1)[..., None]
        np.put_along_axis(wgt, worst, np.where(drop[..., None], 0.0,
                                               np.take_along_axis(wgt, worst, -1)), -1)
    cnt = wgt.sum(-1)
    rms = np.sqrt((res ** 2).sum(-1) / np.maximum(cnt, 1))
    inset = icpt + 0.5 - m
    slopes = slope * _SIGN
    turn = np.degrees(np.arctan(np.median(slopes, -1)))
    spread = np.degrees(np.arctan(slopes.max(-1) - slopes.min(-1)))
    width = q - inset[:, 2] - inset[:, 3]
    height = q - inset[:, 0] - inset[:, 1]
    dx = (inset[:, 2] - inset[:, 3]) / 2
    dy = (inset[:, 0] - inset[:, 1]) / 2

    # ink in the face's centre (a star, a digit, a sign), looked for at full resolution
    # (a thin minus sign fades at px) ...
    f = p / q
    h = max(2, int(round(cfg.ink_window * p / 2)))
    sp = np.arange(-h, h)
    cy = np.clip(np.rint((q / 2 + dy) * f).astype(np.intp), h, p - h)
    cx = np.clip(np.rint((q / 2 + dx) * f).astype(np.intp), h, p - h)
    win = grey_full[(sel_r * p + cy)[:, None, None] + sp[:, None],
                    (sel_c * p + cx)[:, None, None] + sp[None, :]]     # (cells, 2h, 2h)
    level = face @ np.array([0.114, 0.587, 0.299])
    dark = level - np.maximum(cfg.ink_abs, cfg.ink_level * level)
    inked = (win < dark[:, None, None]).mean(axis=(-1, -2)) > cfg.ink_share
    # ... or of a colour (pale print washed out by the light: orange, red)
    h = max(2, int(round(cfg.ink_window * q / 2)))
    sp = np.arange(-h, h)
    cy = np.clip(np.rint(q / 2 + dy).astype(np.intp), h, q - h)
    cx = np.clip(np.rint(q / 2 + dx).astype(np.intp), h, q - h)
    yy = (sel_r * q + cy)[:, None, None] + sp[:, None]
    xx = (sel_c * q + cx)[:, None, None] + sp[None, :]
    off = np.zeros(yy.shape[:1] + (2 * h, 2 * h), np.uint16)
    for ch, plane in enumerate(cv2.split(small)):
        win = plane[yy, xx]
        fc = face8[:, ch, None, None]
        off += np.maximum(win, fc) - np.minimum(win, fc)
    inked |= (off > cfg.ink_colour).mean(axis=(-1, -2)) > cfg.ink_share

    def full(v, fill=np.nan):
        v = np.asarray(v)
        outv = np.full((rows, cols) + v.shape[1:], fill,
                       dtype=v.dtype if fill is not np.nan else np.float32)
        outv[sel_r, sel_c] = v
        return outv
    return Outlines(q, full(width), full(height), full(dx), full(dy), full(turn),
                    full(spread), full(cnt.min(-1), 0.0), full(rms.max(-1)),
                    full(inked, True), full(inset), full(slopes))


def _nanmedian(a: np.ndarray) -> np.ndarray:
    """Median over the last axis leaving out NaNs (NaN where all are)."""
    a = np.sort(a, axis=-1)                          # NaNs go last
    n = (~np.isnan(a)).sum(-1)[..., None]
    lo = np.take_along_axis(a, np.maximum(n - 1, 0) // 2, -1)
    hi = np.take_along_axis(a, n // 2 - (n == 0), -1)
    return np.where(n > 0, (lo + hi) / 2, np.nan)[..., 0]


def plane_across(values: np.ndarray, sel: np.ndarray, min_cells: int) -> np.ndarray:
    """values (rows, cols, k) as the cells ``sel`` (alike when evenly lit: the empty
    squares of one kind) would show them at each cell: a plane across the board in the
    cell's position, fitted robustly through them (a hand or a tile over a few is left
    out); their median when fewer than ``min_cells``."""
    rows, cols = sel.shape
    v = values[sel].astype(np.float64)
    if len(v) < min_cells:
        return np.broadcast_to(np.median(v, axis=0), values.shape)
    y, x = np.mgrid[0:rows, 0:cols]
    terms = np.stack([np.ones((rows, cols)), (x + 0.5) / cols - 0.5, (y + 0.5) / rows - 0.5],
                     axis=-1)
    a = terms[sel]
    keep = np.ones(len(v), bool)
    for _ in range(3):
        ak = a[keep]
        coef = np.linalg.solve(ak.T @ ak + 1e-6 * np.eye(3), ak.T @ v[keep])
        resid = np.abs(v - a @ coef)
        scale = 1.4826 * np.median(resid[keep], axis=0) + 0.1
        keep = (resid <= 3 * scale).all(axis=1)
        if keep.sum() < 4:
            return np.broadcast_to(np.median(v, axis=0), values.shape)
    return terms @ coef


def near_empty(values: np.ndarray, bare: np.ndarray, groups: np.ndarray, cells,
               radius: int, least: int) -> np.ndarray:
    """(len(cells), k): for each (row, col) of ``cells``, the median of ``values`` (rows,
    cols, k) over the ``bare`` cells of its group within ``radius`` cells (NaN where fewer
    than ``least``)."""
    out = np.full((len(cells), values.shape[-1]), np.nan)
    for i, (r, c) in enumerate(cells):
        win = (slice(max(r - radius, 0), r + radius + 1),
               slice(max(c - radius, 0), c + radius + 1))
        use = bare[win] & (groups[win] == groups[r, c])
        if r - win[0].start < use.shape[0] and c - win[1].start < use.shape[1]:
            use[r - win[0].start, c - win[1].start] = False
        if use.sum() >= least:
            out[i] = np.median(values[win][use], axis=0)
    return out


def unlike_empty(out: Outlines, bare: np.ndarray, groups: np.ndarray, taken: np.ndarray,
                 cfg: BlanksConfig) -> np.ndarray:
    """(rows, cols) how unlike an empty square's of its group each cell's outline is, in
    units of evidence (see BlanksConfig); NaN where too few empty squares tell.

    An empty square's outline here: each side's line where the ``bare`` cells with a
    clean outline of its group put it (a plane across the board; the whole board's when
    a group has too few: its squares' labels, say), moved as much as those cells' are on
    that side when the neighbour there is ``taken`` by a tile (its shadow, its sides) or
    is the board's edge."""
    q = out.px
    rows, cols = bare.shape
    vals = np.concatenate([out.insets, out.slopes], axis=-1)               # (r, c, 8)
    exp = np.full(vals.shape, np.nan)
    bare = bare & out.clean(cfg)
    board = None
    for g in np.unique(groups):
        sel = groups == g
        use = sel & bare
        if use.sum() >= cfg.min_empty:
            exp[sel] = plane_across(vals, use, cfg.plane_empty)[sel]
        elif bare.sum() >= cfg.min_empty:
            if board is None:
                board = plane_across(vals, bare, cfg.plane_empty)
            exp[sel] = board[sel]
    # what a neighbouring tile (or the board's edge) does to a side
    t = np.pad(taken, 1, constant_values=False)
    e = np.pad(np.zeros_like(taken), 1, constant_values=True)
    nb = [(slice(0, rows), slice(1, cols + 1)), (slice(2, rows + 2), slice(1, cols + 1)),
          (slice(1, rows + 1), slice(0, cols)), (slice(1, rows + 1), slice(2, cols + 2))]
    dev = vals - exp
    # each side's neighbour: (4 sides, rows, cols) 0 free, 1 a tile, 2 the board's edge
    kind = np.stack([np.where(e[win], 2, np.where(t[win], 1, 0)) for win in nb])
    kind = np.concatenate([kind, kind])                      # places, then slopes
    # how far the empty squares' sides lie from the plane beside each kind of neighbour,
    # and how much that varies (a neighbour's shadow and sides vary more): only beyond
    # that does a side tell anything; where too few tell, nothing
    d = np.moveaxis(dev, -1, 0)                              # (8, rows, cols)
    ref = bare & np.isfinite(d)
    cls = np.stack([np.where(ref & (kind == k), d, np.nan) for k in range(3)], axis=1)
    cls = cls.reshape(8, 3, -1)                                         # (8, 3, cells)
    enough = (~np.isnan(cls)).sum(-1) >= cfg.min_empty
    mid = _nanmedian(cls)                                               # (8, 3)
    spread = cfg.side_spread * 1.4826 * _nanmedian(np.abs(cls - mid[..., None]))
    idx = np.arange(8)[:, None, None]
    x = d - mid[idx, kind]
    d = np.where(enough[idx, kind], np.sign(x) * np.maximum(np.abs(x) - spread[idx, kind], 0.0),
                 0.0)
    dev = np.moveaxis(d, 0, -1)
    d_t, d_b, d_l, d_r = (dev[..., i] for i in range(4))
    shrink = np.minimum(d_t + d_b, d_l + d_r)
    shift = np.hypot((d_l - d_r) / 2, (d_t - d_b) / 2)
    turn = np.degrees(np.arctan(np.abs(np.median(dev[..., 4:], axis=-1))))
    return shrink / (cfg.shrink_unit * q) + shift / (cfg.shift_unit * q) + turn / cfg.turn_unit


def find_blanks(grid_bgr: np.ndarray, stats: CellStats, colours: Squares, kinds: np.ndarray,
                groups: np.ndarray, cand: np.ndarray,
                config: BlanksConfig | None = None, most: int | None = None,
                glare: np.ndarray | None = None, inked: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, cols) bool: cells holding a blank tile, and (a part of them) those told by
    their sides alone (:func:`tile_likeness`: weaker evidence, which does not explain a
    cell away when a hand may be over the board); and (rows, cols) float, how like the
    photo's inked tiles' each plain square's sides are (:func:`tile_likeness`; NaN on other
    squares, and everywhere when too few tiles or squares show to tell), for weighing with
    another reader's doubt (:func:`vision.cellnet.fuse`).

    Parameters
    ----------
    grid_bgr : (rows*p, cols*p, 3) uint8, the rectified grid
    stats : the cells' statistics (:func:`vision.tiles.cell_stats`, evened)
    colours : the board's colours as this photo shows them
    kinds, groups : (rows, cols) the layout's square kinds and colour groups
    cand : (rows, cols) bool, cells with tile-like ink
    most : how many blanks the set has (None: no limit)
    glare : (rows, cols) bool, faces a glare may have washed or lifted towards white
    inked : the set's blanks wear ink (a print-and-play star): none is found here, only
        the sides' likeness is measured (no face outlines: a third of a tier-1 read's
        cell statistics)

    A blank, with a calibrated tile colour (a profile): no ink, the tiles' colour, far
    from its square's, a clean outline, no glare on it, and no more such faces than the
    set has blanks. Without (or besides): a tile's outline unlike the empty squares'
    and a tile's colour a little unlike its square's (see the module); or sides like
    those of the photo's inked tiles (:func:`tile_likeness`) and an outline a little
    unlike an empty square's. Or, on a square of a colour no tile has, a pale face with a
    tile's outline.
    """
    if inked:
        cfg = config or BlanksConfig()
        plain = groups == "plain"
        # the empty squares as blank_evidence takes them, less its outlines' ink test
        bare = ~cand & _pale_uninked(stats, cfg)[0]
        like = tile_likeness(stats.grey, stats.face_grey, cand & plain, bare & plain, cfg)
        blank = by_sides = np.zeros_like(cand)
    else:
        blank, _, _, by_sides, like = blank_evidence(grid_bgr, stats, colours, groups, cand,
                                                     config, most, glare)
    told = (groups == "plain") & like.any()   # tile_likeness is all zero when it cannot tell
    return blank, by_sides, np.where(told, like, np.nan)


def blank_evidence(grid_bgr: np.ndarray, stats: CellStats, colours: Squares,
                   groups: np.ndarray, cand: np.ndarray, config: BlanksConfig | None = None,
                   most: int | None = None, glare: np.ndarray | None = None):
    """:func:`find_blanks` and what it saw: (blank, outlines, evidence, by sides, sides'
    likeness to the inked tiles')."""
    cfg = config or BlanksConfig()
    rows, cols = cand.shape
    blank = np.zeros_like(cand)
    maybe, grey = _pale_uninked(stats, cfg)
    out = face_outlines(grid_bgr, rows, cols, cfg, where=maybe, grey=grey)
    if colours.tile is not None and colours.tile_calibrated:
        # by its colour, with a clean outline (fingers as pale as the tiles show none); not
        # where a glare, or light the board's light model missed (beside a hand's shadow),
        # lifts a square towards white and so towards a pale tile; and more such faces than
        # the set has blanks are light or a hand, not blanks
        by_colour = (~cand & out.clean(cfg) & (colours.d_square > cfg.square_sep)
                     & (colours.d_tile < cfg.match) & (stats.contrast < cfg.max_contrast)
                     & (True if glare is None else ~glare))
        if most is None or by_colour.sum() <= most:
            blank |= by_colour
    bare = ~cand & ~out.inked
    dev = unlike_empty(out, bare, groups, cand, cfg)
    # how like the inked tiles' its sides are (only where light plain squares tell)
    plain = groups == "plain"
    like = tile_likeness(stats.grey, stats.face_grey, cand & plain, bare & plain, cfg)
    sides = np.clip(like, 0.0, cfg.like_cap) / cfg.like_unit
    # at most the colour's share of the evidence is missing: the face's colour against the
    # empty squares of its group nearby (a hand's shadow, a glare or a gradient the
    # board-wide light model missed shade them alike) and against the board-wide model
    shape_ok = (~out.inked & out.clean(cfg)
                & (dev + sides >= cfg.evidence - cfg.colour_cap / cfg.colour_unit))
    cells = np.argwhere(shape_ok)
    evidence = np.where(shape_ok, dev, np.nan)
    if len(cells):
        r, c = cells.T
        near = near_empty(stats.face_lab, bare, groups, cells, cfg.near, cfg.near_least)
        d = near - stats.face_lab[r, c]
        d_near = np.sqrt((cfg.l_weight * d[:, 0]) ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2)
        d_sq = np.fmin(d_near, colours.d_square[r, c])
        evidence[r, c] = (dev[r, c] + np.minimum(d_sq, cfg.colour_cap) / cfg.colour_unit
                          + sides[r, c])
        blank[r, c] |= (d_sq >= cfg.colour_min) & (evidence[r, c] >= cfg.evidence)
    # a pale face on a square no tile looks like: what else covers it with a tile's clean
    # outline? (A hand shows none. A glare keeps the square's outline too, but washes a
    # vivid square pale only in part: none did in ~750 renders, with hands or without.)
    known = np.isfinite(colours.d_square)
    blank |= (maybe & ~out.inked & out.clean(cfg) & known
              & ~_tile_coloured(colours.expected, cfg) & (colours.d_square >= cfg.off_square))
    # or its sides look like the inked tiles' (a blank the colour of its square, its
    # outline a little unlike an empty one's): on a plain square, whose bare look the
    # likeness is measured from (a special square's sides are unlike a plain one's)
    rim = (plain & maybe & ~out.inked & (like >= cfg.rim_z)
           & (np.nan_to_num(dev) >= cfg.rim_dev) & (stats.skin_frac <= cfg.rim_skin))
    rim &= ~blank
    if most is not None and (blank | rim).sum() > most:
        rim[:] = False
    return blank | rim, out, evidence, rim, like


def _pale_uninked(stats: CellStats, cfg: BlanksConfig) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) bool: the light, pale cells with no ink in their very centre, which
    alone may be blanks (or tell what an empty square looks like: a group of coloured
    squares is told by the plain ones); and the grid's grey, 3x3-blurred."""
    rows, cols = stats.face_grey.shape
    grey = cv2.blur(stats.grey, (3, 3))
    return _tile_coloured(stats.face_lab, cfg) & ~_centre_inked(grey, rows, cols, cfg), grey


def _tile_coloured(lab: np.ndarray, cfg: BlanksConfig) -> np.ndarray:
    """(...) bool: a colour (balanced Lab, (..., 3)) a tile's face may have: light, pale."""
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    return (lab[..., 0] >= cfg.min_l) & (chroma <= cfg.max_chroma)


def rim_profiles(grey: np.ndarray, rows: int, cols: int, cfg: BlanksConfig) -> np.ndarray:
    """(rows, cols, 4 * n) the grey across each side of every cell (top, bottom, left,
    right; from ``rim_reach[0]`` outside the cell to ``rim_reach[1]`` inside, n px),
    averaged along the middle ``rim_span`` of the side."""
    p = grey.shape[0] // rows
    d = max(int(round(cfg.rim_reach[0] * p)), 0)        # outside the cell
    e = max(int(round(cfg.rim_reach[1] * p)), 1)        # inside
    a, b = (int(round(f * p)) for f in cfg.rim_span)
    g = cv2.copyMakeBorder(grey[:rows * p, :cols * p], d, d, d, d, cv2.BORDER_REFLECT)
    # each row's mean over the middle of every cell's width, each column's over its height
    along_rows = g[:, d:d + cols * p].reshape(-1, cols, p)[:, :, a:b].sum(-1, np.uint32)
    along_cols = g[d:d + rows * p].reshape(rows, p, -1)[:, a:b].sum(1, np.uint32)
    along_rows = along_rows / np.float32(b - a)                                 # (H+2d, cols)
    along_cols = along_cols / np.float32(b - a)                                 # (rows, W+2d)
    k = np.arange(d + e)                        # from d px outside the side to e inside
    top = along_rows[np.arange(rows)[:, None] * p + k].transpose(0, 2, 1)       # (r, c, d+e)
    bottom = along_rows[(np.arange(rows)[:, None] + 1) * p + 2 * d - 1 - k].transpose(0, 2, 1)
    left = along_cols[:, np.arange(cols)[:, None] * p + k]
    right = along_cols[:, (np.arange(cols)[:, None] + 1) * p + 2 * d - 1 - k]
    return np.concatenate([top, bottom, left, right], axis=-1)


def tile_likeness(grey: np.ndarray, face_grey: np.ndarray, tiles: np.ndarray,
                  bare: np.ndarray, cfg: BlanksConfig) -> np.ndarray:
    """(rows, cols) how like this photo's inked ``tiles`` each cell looks across its sides
    (:func:`rim_profiles`, relative to its face): the projection that best tells the tiles
    from the ``bare`` squares (Fisher's, per photo: the light, the tiles' height and the
    camera's angle make each photo's own), in robust spreads of the bare squares' from
    their median. Zero when too few of either show."""
    rows, cols = tiles.shape
    if tiles.sum() < cfg.rim_least[0] or bare.sum() < cfg.rim_least[1]:
        return np.zeros((rows, cols))
    f = rim_profiles(grey, rows, cols, cfg) / np.maximum(face_grey, 1.0)[..., None]
    pos, neg = f[tiles], f[bare]
    var = (pos.var(0) * len(pos) + neg.var(0) * len(neg)) / (len(pos) + len(neg)) + 1e-4
    score = f @ ((pos.mean(0) - np.median(neg, 0)) / var)
    mid = np.median(score[bare])
    spread = 1.4826 * np.median(np.abs(score[bare] - mid)) + 1e-6
    return (score - mid) / spread


def _centre_inked(grey: np.ndarray, rows: int, cols: int, cfg: BlanksConfig) -> np.ndarray:
    """(rows, cols) bool: ink in the middle of the cell (the test of :func:`face_outlines`
    on a smaller window at the cell's centre: a tile there, offset or not, shows it)."""
    p = grey.shape[0] // rows
    a = int(round(p * (1 - cfg.ink_window * 0.75) / 2))
    win = grey[:rows * p, :cols * p].reshape(rows, p, cols, p)[:, a:p - a, :, a:p - a]
    win = win.transpose(0, 2, 1, 3).reshape(rows, cols, -1)
    level = np.median(win, axis=-1)
    dark = level - np.maximum(cfg.ink_abs, cfg.ink_level * level)
    return (win < dark[..., None]).mean(axis=-1) > cfg.ink_share
