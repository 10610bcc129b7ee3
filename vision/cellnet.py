"""The cell net: every cell of a board, seen with a rim of its neighbours -> what lies there.

The glyph reader (:mod:`vision.tiles`, :mod:`vision.digits`) decides "tile or empty" by
hand-made rules (ink on a face that is not the square's own print) and then reads cut
glyphs. Its misses are tiles a person sees at once: a blank joker whose face is the colour
of its square but whose edge and shadow show, a faint token whose ink is too pale for the
ink threshold, a ÷ whose dots blurred into its bar. This small convolutional net looks at
the whole cell and a sixth of a cell round it (the tile's edge, its shadow, the gap to the
next square) and gives the probabilities of "empty" and of every value of the game's set,
all cells of a board in one batch. :func:`vision.reader.read_board` weighs it with the
glyph reading (:func:`fuse`).

Input (:func:`cell_crops`): the board rectified from the photo at ``CELL_PX`` a cell with a
``MARGIN_PX`` rim, each cell's ``CROP_PX`` square, its colour centred on the board's
median (the plain squares) and scaled by the board's spread, so the light's colour and
strength are taken out but the tile's own colour against its square is kept. A net that
reads in context (trained with ``--context``; the reader gives it one) sees each crop
beside the photo's own empty square and inked tile (:func:`context_of`: the median crop of
the plain squares and of the tiles with ink), so a white joker on a pale square is told
by how it differs from both. Both shipped nets do (blanks on pale squares are the
commonest miss of both games): see the README.

Net (:class:`CellNet`, numpy forward; three 2-strided 3x3 convolutions of ``CONVS``
channels, then a dense layer of ``HIDDEN`` and the classes): about 0.6 million
multiply-adds a cell, ~8 ms a board of 225 cells on one core (about 30 GFLOP/s: ONNX
Runtime runs it no faster).

Training (:func:`train`, needs PyTorch: ``pip install -e ".[train]"``, only for this):
crops of rendered photos (:mod:`samples.render`, both tiers, TRAIN fonts, no hand; seeds far
from the development and benchmark ones), from grids whose corners are jittered by a few
hundredths of a cell as the board finder leaves them, lit afresh at every step, a share
of them under a synthetic glare (:func:`glared`). The weights ship in
``vision/models/cellnet-GAME.npz``; they were made with::

    python -m vision.cellnet --data GAME --photos 2500                  # ~ 8 min a game
    python -m vision.cellnet --data GAME --photos 2500 --seed 9600000   # as many again
    python -m vision.cellnet --train mixmath --threads 1                # ~ 25 min
    python -m vision.cellnet --train mixmath --carry-on --epochs 3      # ~ 9 min
    python -m vision.cellnet --train mixmath --carry-on --context --epochs 3  # ~ 14 min
    python -m vision.cellnet --train calculissimo --context --threads 1 # ~ 45 min
    python -m vision.cellnet --train-turns calculissimo --threads 2     # ~ 3 min
    # then both nets, on fresh crops (--data ... --seed 9700000, and 9800000):
    python -m vision.cellnet --train GAME --carry-on --context --epochs 3 --blank-times 4 # ~30 min

(``--data`` keeps each crop's context, which ``--train`` leaves aside unless
``--context``.) Mixmath's net was made before its renders laid blanks, reading cells
alone with no class for one, and then carried on twice (``--carry-on``: its weights kept,
a third of the learning rate) on crops of renders with blanks: to learn the blank class,
then to read in context (the context's weights starting at 0). A net trained afresh on
those crops read the renders as well but 3 of 110 real Mathable photos re-shot wrong
where the first net read all 110 (session 43); carried on, it reads them all still.
Both nets were last carried on with every blank's crop seen four times an epoch
(``--blank-times``; blanks are a few in a thousand crops and the commonest miss).

The blank judge (:data:`BLANK_JUDGE`, ``vision/models/blankjudge.npz``; four convolutions
of ``JUDGE_CONVS``, two classes: empty, blank) sees a cell at twice the net's scale
(``JUDGE_CELL_PX``, a quarter cell of rim) beside the photo's context, and settles blank or
empty where the readers may be wrong (:func:`vision.reader.judge_blanks`). It was trained on
both games' tier-2 renders (2400 each, its seeds; every blank, the empty cells the net gave
a blank 0.02 or more, a twentieth of the rest; 15 % of the boards held out: 11 of 8650
held-out crops wrong against the net's 95, 3 against 81 where the net said "blank") with
the steps of::

    python -m vision.cellnet --judge-data mixmath --photos 2400          # ~ 19 min
    python -m vision.cellnet --judge-data calculissimo --photos 2400     # ~ 19 min
    python -m vision.cellnet --train-judge --epochs 6                    # ~ 18 min

(the first weights by the same steps run as a script of session 52, its own training
loop — batches of 128 — which :func:`train_judge` now runs through :func:`_fit`; its start
weights were drawn unseeded, as the sign judge's were: a training now draws them from its
``seed``, so it repeats itself, but does not repeat these). The shipped weights are those
carried on three epochs on as many renders again, of other seeds (session 55; 57 446
crops; on their held-out boards 24 wrong of 9173 against the first weights' 33, but 9
against 6 of the 1519 the net called blanks)::

    python -m vision.cellnet --judge-data calculissimo --photos 2400 --seed 8600000 --store DIR
    python -m vision.cellnet --judge-data mixmath --photos 2400 --seed 8500000 --store DIR
    python -m vision.cellnet --train-judge --carry-on --epochs 3 --store DIR   # ~ 10 min

The reader shows a judge its rectified grid scaled down (:func:`judge_padded`), not a warp
of its own.

The sign judge (:data:`SIGN_JUDGE`, ``vision/models/signjudge.npz``; the same net, four
classes: + − × ÷) tells Calculissimo's signs apart where the readers were unsure
(:func:`vision.reader.judge_signs`): on small blurred boards a ÷'s dots melt into its bar.
Trained on every sign of 4800 tier-2 renders (3 × 1600, its seed and two more; 15 % of the
boards held out: 121 of 14 072 held-out crops wrong against the net's 214) with::

    python -m vision.cellnet --judge signjudge --judge-data calculissimo --photos 1600   # ~ 11 min
    #   ... again with --seed 8310000 and --seed 8320000
    python -m vision.cellnet --judge signjudge --train-judge --epochs 6                 # ~ 20 min

(a third of the renders made it no better than the net: 65 against 78 wrong held out, but
sure and wrong on renders of a held-out font.)

The turn net (:func:`train_turns`, ``vision/models/turnnet-calculissimo.npz``, a smaller
net of the same kind) tells which of four quarter turns a token's crop lies at: a board
the same every way up (Calculissimo's) is turned the way its clearest tokens lie upright
(:func:`turn_scores`; the reader asks it before reading the tokens under each turn, and
reads them only when its vote is close).

(1.3 million crops a game; ``bench.cells`` and ``bench.vision`` measure the result.)

>>> CLASSES["calculissimo"][:3], CLASSES["mixmath"][:3], len(CLASSES["mixmath"])
((None, '0', '1'), (None, 0, 1), 48)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

CELL_PX = 24     # a cell in the net's picture: the smallest cell a photo may have (BOARDS.md)
MARGIN_PX = 4    # the rim seen round it: the tile's edge and shadow, the gap between squares
CROP_PX = CELL_PX + 2 * MARGIN_PX

MODELS = Path(__file__).parent / "models"
TRAIN_SEED = 9_100_000   # far from development (555 000..) and benchmark (7 300 000) seeds


def _classes(game: str) -> tuple:
    from .tiles import tile_set_values
    values = sorted(set(tile_set_values(game)),
                    key=lambda v: (not str(v).isdigit(), int(v) if str(v).isdigit() else 0, v))
    return (None, *values, "?")


CLASSES = {game: _classes(game) for game in ("mixmath", "calculissimo")}
"""Per game: None (empty), then the set's values as the reader writes them (Mixmath's as
numbers, Calculissimo's as text), then "?" (a Mixmath blank, a Calculissimo joker)."""


# -- input -----------------------------------------------------------------------------------

def padded_grid(image_bgr: np.ndarray, location, p: int = CELL_PX, m: int = MARGIN_PX
                ) -> np.ndarray:
    """The grid of a :class:`vision.board.BoardLocation` top-down at ``p`` (CELL_PX) a cell
    with an ``m`` (MARGIN_PX) rim all round (as :func:`vision.board.rectify_grid`, with the
    rim)."""
    from .board import _warp
    g = location.geometry
    to_out = np.array([[p, 0, m - 0.5], [0, p, m - 0.5], [0, 0, 1.0]]) @ location.grid_homography
    return _warp(image_bgr, to_out, (g.cols * p + 2 * m, g.rows * p + 2 * m),
                 location.cell_px() / p)


def cell_crops(padded: np.ndarray, rows: int, cols: int, p: int = CELL_PX, m: int = MARGIN_PX
               ) -> np.ndarray:
    """(rows*cols, p + 2m, p + 2m, 3) uint8, row-major: each cell with its rim, of a
    :func:`padded_grid` at ``p`` a cell with an ``m`` rim (the net's: CROP_PX square)."""
    crop = p + 2 * m
    win = np.lib.stride_tricks.sliding_window_view(padded, (crop, crop), axis=(0, 1))
    win = win[::p, ::p][:rows, :cols]                     # (rows, cols, 3, crop, crop)
    return np.ascontiguousarray(win.transpose(0, 1, 3, 4, 2)).reshape(
        rows * cols, crop, crop, 3)


def board_norm(padded: np.ndarray, m: int = MARGIN_PX) -> np.ndarray:
    """(2, 3) the board's median colour (mostly plain squares) and its spread (5th to 95th
    percentile, per channel, at least 24 levels): what :func:`normalised` takes out (of a
    :func:`padded_grid` with an ``m`` rim)."""
    inner = padded[m:-m, m:-m].reshape(-1, 3)[::7]
    lo, med, hi = percentiles_u8(inner, (5, 50, 95))
    return np.stack([med, np.maximum(hi - lo, 24.0)]).astype(np.float32)


def percentiles_u8(x: np.ndarray, qs: tuple) -> np.ndarray:
    """``np.percentile(x, qs, axis=0)`` (linear interpolation) of uint8 ``x`` (n, k),
    found by counting the 256 levels: the same numbers, ~7x faster than sorting.

    >>> x = np.array([[0, 9], [10, 5], [20, 255], [30, 7]], np.uint8)
    >>> bool(np.array_equal(percentiles_u8(x, (5, 50, 95)), np.percentile(x, [5, 50, 95], 0)))
    True
    """
    n = len(x)
    at = np.asarray(qs, float) / 100 * (n - 1)
    below = np.floor(at).astype(int)
    out = np.empty((len(at), x.shape[1]))
    for ch in range(x.shape[1]):
        cum = np.cumsum(np.bincount(x[:, ch], minlength=256))
        v_lo = np.searchsorted(cum, below, side="right")          # the below-th smallest
        v_hi = np.searchsorted(cum, np.minimum(below + 1, n - 1), side="right")
        out[:, ch] = v_lo + (at - below) * (v_hi - v_lo)
    return out


def median_u8(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` of uint8 ``x`` (float64), by a radix sort of each place's
    values (numpy's stable sort of 8-bit data): the same numbers, ~1.6x faster than the
    partition np.median makes along a strided axis (:func:`percentiles_u8` counts one
    column at a time: for a few columns, not a crop's thousands of pixels).

    >>> x = np.random.default_rng(1).integers(0, 256, (6, 5, 3), dtype=np.uint8)
    >>> bool(np.array_equal(median_u8(x), np.median(x, axis=0)))
    True
    """
    n = len(x)
    if n == 0:
        return np.median(x, axis=0)     # NaN, as np.median says of no values
    s = np.sort(x.reshape(n, -1).T, axis=-1, kind="stable")
    mid = s[:, n // 2].astype(np.float64)
    if n % 2 == 0:
        mid = (s[:, n // 2 - 1] + mid) / 2
    return mid.reshape(x.shape[1:])


def normalised(crops: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """uint8 crops (N, H, W, 3) -> float32 net input, centred on the board's median;
    ``norm`` is one board's (2, 3) or each crop's (N, 2, 3)."""
    norm = norm if norm.ndim == 2 else norm[:, None, None]
    return (crops.astype(np.float32) - norm[..., 0, :]) / norm[..., 1, :]


CONTEXT_CELLS = 48   # at most this many cells of each kind make a context's median


def context_of(crops: np.ndarray, plain: np.ndarray, inked: np.ndarray,
               most: int = CONTEXT_CELLS, step: int = 1) -> np.ndarray:
    """(2, CROP_PX, CROP_PX, 3) uint8, the photo's context for the net: the per-pixel
    median of the ``plain`` squares' crops (most are empty: what an empty square looks
    like here) and of the ``inked`` tiles' (what a tile's face, rim and shadow look like
    here; none: the plain squares' again). ``crops``: every cell's (:func:`cell_crops`);
    ``plain``, ``inked``: (rows, cols) bool. A white joker on a pale square differs from
    the square by a colour one crop alone cannot place; beside the photo's own empty
    square and tile it can. At most ``most`` cells of each kind, evenly spread; with
    ``step`` > 1, the medians of every ``step``-th pixel, scaled back up (smooth images:
    the judge's larger crops, for a fraction of the cost).

    >>> c = np.zeros((4, CROP_PX, CROP_PX, 3), np.uint8); c[2:] = 200
    >>> ctx = context_of(c, np.array([[1, 1], [1, 0]], bool), np.array([[0, 0], [1, 1]], bool))
    >>> ctx.shape, int(ctx[0].max()), int(ctx[1].min())
    ((2, 32, 32, 3), 0, 200)
    """
    def median(sel):
        idx = np.flatnonzero(sel.ravel())
        if len(idx) > most:   # evenly spread over the board
            idx = idx[np.linspace(0, len(idx) - 1, most).astype(int)]
        if step == 1:
            return median_u8(crops[idx]).astype(np.uint8)
        side = crops.shape[1]
        return cv2.resize(median_u8(crops[idx, ::step, ::step]).astype(np.uint8),
                          (side, side), interpolation=cv2.INTER_LINEAR)
    empty = median(plain)
    return np.stack([empty, median(inked) if inked.any() else empty])


@dataclass(frozen=True)
class BoardView:
    """The board as the nets see it: its :func:`padded_grid` and :func:`board_norm`."""

    padded: np.ndarray
    norm: np.ndarray
    rows: int
    cols: int
    context: np.ndarray | None = None   # :func:`context_of`, for a net that reads in it

    @classmethod
    def of(cls, image_bgr: np.ndarray, location) -> BoardView:
        padded = padded_grid(image_bgr, location)
        g = location.geometry
        return cls(padded, board_norm(padded), g.rows, g.cols)

    def turned(self, k: int) -> BoardView:
        """The view of ``location.rotated(k)``: the same pixels turned (``np.rot90``); the
        norm is kept (a sample of the turned pixels differs by a level or two)."""
        from .tiles import turned
        rows, cols = (self.cols, self.rows) if k % 2 else (self.rows, self.cols)
        context = (None if self.context is None
                   else np.stack([turned(c, k) for c in self.context]))
        return BoardView(turned(self.padded, k), self.norm, rows, cols, context)

    def in_context(self, plain: np.ndarray, inked: np.ndarray) -> BoardView:
        """The view with its :func:`context_of` the ``plain`` squares and ``inked`` tiles
        ((rows, cols) bool)."""
        return replace(self, context=context_of(self.crops(), plain, inked))

    def crops(self, cells: np.ndarray | None = None) -> np.ndarray:
        """:func:`cell_crops` of every cell, or of the ``cells`` ((rows, cols) bool)."""
        crops = cell_crops(self.padded, self.rows, self.cols)
        return crops if cells is None else crops[cells.ravel()]

    def shifted_crops(self, cells: np.ndarray, shifts: tuple) -> np.ndarray:
        """(len(shifts), n, CROP_PX, CROP_PX, 3): the crops of the ``cells`` ((rows, cols)
        bool) with each window moved by (dy, dx) pixels (at most 1; the rim is extended by
        its edge)."""
        edged = np.pad(self.padded, ((1, 1), (1, 1), (0, 0)), mode="edge")
        win = np.lib.stride_tricks.sliding_window_view(edged, (CROP_PX, CROP_PX), axis=(0, 1))
        r, c = np.nonzero(cells)
        return np.stack([win[r * CELL_PX + 1 + dy, c * CELL_PX + 1 + dx] for dy, dx in shifts]
                        ).transpose(0, 1, 3, 4, 2)


# -- the net (numpy forward) ------------------------------------------------------------------

CONVS = ((16, 3), (24, 3), (48, 3))   # (channels, kernel) of each convolution, stride 2
HIDDEN = 128                          # the dense layer between them and the classes
BATCH = 32                            # crops a forward pass takes at once: their unrolled
                                      # windows stay in the cache (measured: 169 crops at
                                      # once take twice as long; 32 to 64, the same)
_FIRST_TAPS = 3 * 3                   # the first layer's kernel (CONVS, TURN_CONVS: 3x3)


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int,
          pad_value: np.ndarray | float = 0.0, relu: bool = True) -> np.ndarray:
    """NHWC convolution, 'same' padding (with ``pad_value``), then ReLU (unless not
    ``relu``), by one matrix product. w: (k*k*C, O), rows in (ky, kx, C) order; b: (O,),
    or per place (ho, wo, O)."""
    n, h, wd, c = x.shape
    k = int(round(np.sqrt(w.shape[0] // c)))
    pad = k // 2
    xp = np.empty((n, h + 2 * pad, wd + 2 * pad, c), np.float32)
    if pad:   # only the rim: the inside is x (uint8 crops are converted in the copy)
        xp[:, :pad], xp[:, -pad:], xp[:, :, :pad], xp[:, :, -pad:] = (pad_value,) * 4
    xp[:, pad:pad + h, pad:pad + wd] = x
    ho, wo = (h + stride - 1) // stride, (wd + stride - 1) // stride
    sn, sh, sw, sc = xp.strides
    # each window row (kx, C) is contiguous in memory: copy runs of k*C, not of C
    win = np.lib.stride_tricks.as_strided(xp, (n, ho, wo, k, k * c),
                                          (sn, stride * sh, stride * sw, sh, sc))
    out = (win.reshape(n * ho * wo, k * k * c) @ w).reshape(n, ho, wo, -1)
    out += b
    return np.maximum(out, 0, out=out) if relu else out


class CellNet:
    """The trained net of one game: ``probabilities(crops, norm)``."""

    def __init__(self, weights: dict[str, np.ndarray], classes: tuple):
        self.w = {k: np.asarray(v, np.float32) for k, v in weights.items()}
        self.classes = classes

    @property
    def reads_context(self) -> bool:
        """Whether the net sees each crop beside the board's :func:`context_of` (its
        first layer takes 9 channels: the crop's, the empty square's, the tile's)."""
        return self.w["conv0.w"].shape[0] == _FIRST_TAPS * 9

    def probabilities(self, crops: np.ndarray, norm: np.ndarray,
                      context: np.ndarray | None = None) -> np.ndarray:
        """(N, CROP, CROP, 3) uint8 crops of one board and its :func:`board_norm` (and
        :func:`context_of`, for a net that :attr:`reads_context`) -> (N, classes)
        probabilities. The normalisation is folded into the first layer (padding with
        the board's median is padding the normalised crop with 0); the context's part of
        the first layer is the same for every cell, so it is worked out once, a bias."""
        med, spread = norm
        w0, b0 = self.w["conv0.w"], self.w["conv0.b"]
        taps = _FIRST_TAPS
        if self.reads_context:
            if context is None:
                raise ValueError("this net reads a cell beside its board's context: "
                                 "give one (BoardView.in_context)")
            w0 = w0.reshape(taps, 3, 3, -1)       # (tap, crop | empty | tile, BGR, out)
            side = context.shape[1]
            ctx = normalised(context, norm).transpose(1, 2, 0, 3).reshape(1, side, side, 6)
            b0 = b0 + _conv(ctx, w0[:, 1:].reshape(taps * 6, -1), 0.0, 2, relu=False)[0]
            w0 = w0[:, 0].reshape(taps * 3, -1)
        w0 = w0 / np.tile(spread, taps)[:, None]
        b0 = b0 - np.tile(med, taps) @ w0
        convs = sum(name.startswith("conv") for name in self.w) // 2   # (w and b each)
        z = np.empty((len(crops), len(self.w["fc1.b"])), np.float32)
        for i in range(0, len(crops), BATCH):
            x = _conv(crops[i:i + BATCH], w0, b0, 2, med)
            for k in range(1, convs):
                x = _conv(x, self.w[f"conv{k}.w"], self.w[f"conv{k}.b"], 2)
            x = np.maximum(x.reshape(len(x), -1) @ self.w["fc0.w"] + self.w["fc0.b"], 0)
            z[i:i + BATCH] = x @ self.w["fc1.w"] + self.w["fc1.b"]
        z -= z.max(1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(1, keepdims=True)

    def save(self, path: Path) -> None:
        np.savez_compressed(path, **self.w)


def _weights(name: str) -> dict[str, np.ndarray] | None:
    """The shipped weights ``vision/models/NAME.npz``, or None when there are none."""
    path = MODELS / f"{name}.npz"
    if not path.exists():
        return None
    with np.load(path) as f:
        return dict(f)


def _shipped(name: str, classes: tuple) -> CellNet | None:
    w = _weights(name)
    if w is None:
        return None
    if len(w["fc1.b"]) != len(classes):
        raise ValueError(f"{MODELS / name}.npz tells {len(w['fc1.b'])} classes apart, this "
                         f"code {len(classes)}: train it again (python -m vision.cellnet)")
    return CellNet(w, classes)


def _carried_on_from(game: str) -> CellNet:
    """The shipped net of ``game`` to train on from (``--carry-on``): its classes the
    game's, or all but the last, "?" (a net made before it had a class for a blank)."""
    w, classes = _weights(f"cellnet-{game}"), CLASSES[game]
    if w is None:
        raise ValueError(f"no shipped net of {game} to carry on from: --train it afresh")
    return CellNet(w, classes[:-1] if len(w["fc1.b"]) == len(classes) - 1 else classes)


@lru_cache(maxsize=None)
def load(game: str) -> CellNet | None:
    """The shipped net of ``game``, or None when there is none."""
    return _shipped(f"cellnet-{game}", CLASSES[game])


@lru_cache(maxsize=None)
def load_turns(game: str) -> CellNet | None:
    """The shipped turn net of ``game`` (:func:`train_turns`), or None when there is none."""
    return _shipped(f"turnnet-{game}", (0, 1, 2, 3))


TRUSTED_ON_BLANKS = {"calculissimo": True, "mixmath": False}
"""Per game, whether its net's "empty" is trusted where a bare blank may lie (measured
end to end on development tier-2 renders, 1080p, held-out fonts): Calculissimo's, yes —
doubted, 300 photos gave 267 all right instead of 268, 7 with a sure miss instead of 6;
Mixmath's, no — it takes some white blanks on white squares for the square, surely:
trusted, 600 photos gave 541 all right instead of 540 (two blanks the glyph reader
imagined, shown to check anyway, put right) but 17 with a sure miss instead of 16 (a
blank the glyph reader saw, put off surely)."""


def sees_blanks(game: str) -> bool:
    """Whether ``game``'s net is trusted to tell a bare blank from the square it lies on
    (:data:`TRUSTED_ON_BLANKS`; every cell net has a class for one, "?")."""
    return TRUSTED_ON_BLANKS.get(game, False)


def turn_scores(view: BoardView, game: str, cells: np.ndarray) -> np.ndarray | None:
    """(4,) how upright the tiles at ``cells`` ((rows, cols) bool) lie after each quarter
    turn of the grid (``np.rot90(grid, k)``): the mean log-probability the turn net gives
    them of lying upright then; None when ``game`` has no turn net. A token that reads
    alike turned (0, 8, +, x) says little."""
    net = load_turns(game)
    if net is None:
        return None
    crops = view.crops(cells)
    if not len(crops):
        return np.zeros(4)
    # a crop turned k from upright is upright again after the grid turns -k
    logp = np.log(net.probabilities(crops, view.norm) + 1e-3)
    return np.array([logp[:, -t % 4].mean() for t in range(4)])


def read_probabilities(view: BoardView, game: str) -> np.ndarray | None:
    """(rows, cols, classes) the net's probabilities for every cell of the board in
    ``view``, or None when ``game`` has no net."""
    net = load(game)
    if net is None:
        return None
    return net.probabilities(view.crops(), view.norm, view.context).reshape(
        view.rows, view.cols, -1)


SECOND_LOOK = tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
"""The crops' shifts (pixels of CELL_PX) a doubtful cell is seen again at."""


def second_look(view: BoardView, game: str, probs: np.ndarray, below: float) -> np.ndarray:
    """``probs`` (of :func:`read_probabilities`) with every cell whose likeliest class has
    less than ``below`` seen again: the mean of the net's nine readings of its crop, as it
    was and moved a pixel each way (SECOND_LOOK). The finder leaves the grid a pixel or so
    off, and a glyph cut by the crop's edge, or a ÷ whose dots fall on the net's stride,
    reads better so (on development photos, ~7 cells a board, a third fewer boards with a
    net misread)."""
    doubtful = probs.max(-1) < below
    if not doubtful.any():
        return probs
    crops = view.shifted_crops(doubtful, SECOND_LOOK)
    more = load(game).probabilities(crops.reshape(-1, *crops.shape[2:]), view.norm,
                                    view.context)
    out = probs.copy()
    out[doubtful] = (probs[doubtful] + more.reshape(len(SECOND_LOOK), -1, probs.shape[-1])
                     .sum(0)) / (1 + len(SECOND_LOOK))
    return out


def _numbers(*values) -> bool:
    """Whether all ``values`` are numbered tiles (Mixmath's), not tokens nor empty."""
    return all(isinstance(v, (int, np.integer)) for v in values)


def _one_of_its_digits(digit, number) -> bool:
    """Whether ``digit`` is one of a two-digit Mixmath ``number``'s digits (81: 8 or 1)."""
    return _numbers(digit, number) and digit < 10 <= number and digit in divmod(number, 10)


def _top(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's likeliest class (index) and its probability."""
    best = probs.argmax(-1)
    return best, np.take_along_axis(probs, best[..., None], -1)[..., 0]


def sure_values(probs: np.ndarray, classes: tuple, sure: float
                ) -> dict[tuple[int, int], tuple[Any, float]]:
    """{(row, col): (value, p)}: the cells ``probs`` reads as a tile with a glyph (not empty,
    not a joker) at least ``sure``; the glyph reader need not cut and classify those
    (:func:`vision.tiles.read_grid`'s ``known``), where :func:`fuse` would take the net's
    answer anyway.

    >>> sure_values(np.array([[[0.01, 0.99, 0], [0.99, 0.01, 0], [0.01, 0, 0.99]]]),
    ...             (None, 7, "?"), 0.97)
    {(0, 0): (7, 0.99)}
    """
    best, p_best = _top(probs)
    return {(int(r), int(c)): (classes[best[r, c]], float(p_best[r, c]))
            for r, c in zip(*np.nonzero(p_best >= sure))
            if classes[best[r, c]] not in (None, "?")}


def held(cells: list[list]) -> np.ndarray:
    """(rows, cols) bool: the cells a reading puts a tile on.

    >>> held([[None, "4"], ["?", None]]).tolist()
    [[False, True], [True, False]]
    """
    return np.array([[v is not None for v in row] for row in cells], bool)


def bare_of_jokers(probs: np.ndarray, classes: tuple, sides: np.ndarray,
                   glyph_cells: list[list], below: float) -> np.ndarray:
    """The net's probabilities with the joker's odds given to the empty square where the
    square's ``sides`` look like the empty squares' (below ``below`` robust spreads
    towards the photo's inked tiles: :func:`vision.blanks.tile_likeness`; NaN, where they
    cannot tell, is left alone) and the glyph reader saw no joker. A blank joker is a
    tile: its rim and shadow show beside it; the net's close crop sees little of them, and
    on boards whose empty squares look like white tiles it puts down jokers that are not
    there. (Calculissimo tier-2 development photos: +8 of ~590 all right; missed jokers'
    sides 3-9, the net's false ones' 0-2.4.)

    >>> probs = np.array([[[0.1, 0.0, 0.9], [0.1, 0.0, 0.9], [0.1, 0.0, 0.9]]])
    >>> bare_of_jokers(probs, (None, "4", "?"), np.array([[1.0, 6.0, np.nan]]),
    ...                [[None, None, None]], 3.0)[0, :, 0].round(2).tolist()
    [1.0, 0.1, 0.1]
    """
    if "?" not in classes:
        return probs
    joker, empty = classes.index("?"), classes.index(None)
    with np.errstate(invalid="ignore"):
        bare = (sides < below) & (np.array(glyph_cells, dtype=object) != "?")
    if not bare.any():
        return probs
    probs = probs.copy()
    probs[bare, empty] += probs[bare, joker]
    probs[bare, joker] = 0.0
    return probs


def doubt_the_unseen(cells: list[list], confidence: np.ndarray, leave: np.ndarray,
                     probs: np.ndarray, classes: tuple, glare: np.ndarray | None = None,
                     glared_odds: float | None = None) -> None:
    """An empty reading is no surer than the net (``probs``, before the sides' veto)
    leaves room for where a tile may lie unseen. Where the net's answer is a joker,
    whichever rule kept the square empty (the sides' veto, the set's count of jokers): a
    blank joker on a square of its own colour shows no rim the photo keeps. And under a
    ``glare`` ((rows, cols) bool, :attr:`vision.tiles.GridRead.glare`), which may have
    taken a tile's ink: there the glyph reader's empty square is worth ``glared_odds`` to
    one at most, the net's odds on it multiplied by that. Neither reader can rule such a
    tile out; the players can ("check this cell"). ``confidence`` changes in place; the
    cells to ``leave`` stay.

    Development photos, 1080p (Calculissimo tier 2, 299): photos with a wrong cell shown
    sure 20 -> 15 by the jokers, -> 10 by the glare at odds 3 (odds 1, 5, 10: 10, 11, 13),
    cells shown "check this" 3.0 -> 3.4 -> 4.1 a photo. There the glyph reader's empty
    square proved worth 6-30 to one (of the cells the net gave an empty square 0.3-0.6,
    94 % were empty); 3 leaves room. Mixmath tier 2 (100): 1 -> 0, 2.2 -> 2.5; tier 1:
    none either way, +0.05 a photo. On 300 fresh development photos, Calculissimo tier 2:
    11 -> 4, 2.7 -> 3.5 (Mixmath tier 2, 200: 3 -> 3, 1.6 -> 2.0); on the benchmark's 300,
    15 -> 13, 2.6 -> 3.3 (docs/vision-log.md).

    >>> conf = np.array([[1.0, 1.0, 1.0, 1.0]])
    >>> probs = np.array([[[0.1, 0.0, 0.9], [0.7, 0.0, 0.3], [0.1, 0.0, 0.9], [0.4, 0.6, 0]]])
    >>> doubt_the_unseen([[None, None, "4", None]], conf, np.zeros((1, 4), bool), probs,
    ...                  (None, "4", "?"), np.array([[False, False, False, True]]), 3.0)
    >>> conf.round(2).tolist()
    [[0.1, 1.0, 1.0, 0.67]]
    """
    empty = ~leave & ~held(cells)
    if "?" in classes:
        joker = classes.index("?")
        doubted = empty & (probs.argmax(-1) == joker)
        confidence[doubted] = np.minimum(confidence[doubted], 1 - probs[doubted, joker])
    if glare is not None and glared_odds is not None:
        glared = empty & glare
        p = probs[glared, classes.index(None)]
        confidence[glared] = np.minimum(confidence[glared],
                                        glared_odds * p / (glared_odds * p + 1 - p))


@dataclass(frozen=True)
class Weighing:
    """When :func:`fuse` takes the net's answer over the glyph reading's (the thresholds
    come from :class:`vision.tiles.TilesConfig`'s ``cellnet_*``; None: the rule is off)."""
    sure: float = 0.97                          # the net is at least this sure, or
    doubt: float = 0.6                          # the glyph reading below this
    fair: tuple[float, float] | None = None     # (p, c): the net >= p, the glyph < c
    likely_joker: float | None = None           # a joker over an empty reading
    sided: tuple[float, float] | None = None    # (p, z): a tile where the sides say one
    glared: float | None = None                 # a tile under a glare
    faded_dots: float | None = None             # a ÷ over a − or + reading
    digit_count: float | None = None            # two digits over a one-digit reading
    lost_digit: float | None = None             # a digit of a two-digit reading over it:
                                                # at most this sure
    joint: float | None = None                  # two tiles, the glyph reader in doubt:
                                                # both readers' odds (the glyph reader's
                                                # raised by this floor)


def fuse(cells: list[list], confidence: np.ndarray, leave: np.ndarray,
         probs: np.ndarray, classes: tuple, rules: Weighing, *,
         blanks: int | None = None, sides: np.ndarray | None = None,
         glare: np.ndarray | None = None, inked_jokers: bool = False,
         sees_blanks: bool = True, scores: dict | None = None,
         pairs: np.ndarray | None = None) -> None:
    """Weigh the glyph reading (``cells``, ``confidence``, changed in place) with the net's
    ``probs`` under ``rules``: where they differ, the net's answer is taken when it is at
    least ``sure`` or the glyph reading's confidence is below ``doubt`` (its empty square
    over the glyph reader's tile only when it is at least as sure of it: on a font it was
    not taught, a real Mathable set re-shot far, its empty at 0.2-0.4 took tiles read right
    at 0.4-0.6; on renders it said empty over a tile at 0.9 or more), or (``fair``: p, c)
    when it is at least p and the glyph reading's below c; the cells to ``leave`` (hidden
    ones) and readings the net has no class for are left alone. An agreement is
    as sure as the surer of the two, but on an empty square whose ``sides`` look like a
    tile's (``sided``'s z) only as sure as the net where the set's jokers have no ink: the
    glyph reader, blind to an ink-less joker, says nothing against one there (dev
    Calculissimo tier 2: jokers missed, shown sure, while the net gave them 0.2-0.45). A
    net that does not ``sees_blanks`` (:func:`sees_blanks`: Mixmath's) takes some white
    blanks on pale squares for the square, surely: its "empty" never overrules a blank
    the glyph reader saw. A kept reading the net disputes no surer than the net leaves
    room for. The set has ``blanks`` jokers at most: past that, the jokers the net put
    down least surely go back to the glyph reading; short of that, a joker the net gives
    at least ``likely_joker`` where the glyph reader saw an empty square is put down too,
    the surest first (a joker has no ink: the glyph reader's blind spot, and the net's
    false jokers are mostly on boards where it sees many). Where the glyph reader saw an
    empty square whose ``sides`` look like the photo's inked tiles' by at least z
    robust spreads (``sided``: p, z; :func:`vision.blanks.tile_likeness`: the rim, sides
    and shadow every tile shows, which the net's close crop barely sees), the net's tile
    is taken when it gives it at least p: a joker while the set has more, any other tile
    (one washed out by glare: too little ink for the glyph reader) at once. Where it saw
    an empty square under a ``glare`` ((rows, cols) bool, :attr:`vision.tiles.GridRead.glare`),
    whose ink a tile may have lost there, the net's tile (not a joker: a glare whitens a
    square as a joker's face is white) is taken when it gives it at least ``glared``.
    Where the set's jokers wear a star (``inked_jokers``: boardsight's print-and-play), a
    joker has ink, and those two rules for an ink-less joker put none down. Where it read a
    − or a +, the net's ÷ is taken when it gives it at least ``faded_dots``: blur or glare
    fades a ÷'s small dots below the glyph reader's ink, or blurs them into a bar across
    it, and the net still sees them (dev photos: on a −, right every time it gave it 0.8
    or more, 4 at tier 1 and 2 at tier 2; on a +, Calculissimo tier 2, 1200 photos
    replayed: +2 all right, none lost). Where the glyph reader doubts its tile (below
    ``doubt``) and the net, not ``sure``, reads another, the tile is the one both find
    likeliest together (``joint``: the net's probabilities times the glyph reader's
    ``scores``, {cell: {value: probability}}, raised by that floor: a value the glyph
    reader gave nothing is not ruled out), as sure as its share of their product: the
    glyph reader's doubt no longer hands the cell to whatever the net says. Where the
    glyph reader read one digit and the net a two-digit number (``digit_count``), the
    net's is taken when it gives it at least that: the glyph reader lost a faint or thin
    digit (dev Mixmath tier 2: the net right on 15 of 18 cells where the two counted
    digits differently; the other way round, a real Mathable tile, the net had lost one).
    Where the net's digit is one of the glyph reader's two (``lost_digit``), the net's is
    taken at most that sure: the net, taught on renders, loses a real set's thin 1 or
    off-centre 3 (collages of the real set re-shot: 81 read 8 at 0.93-0.98, 63 read 6 at
    0.96; dev Mixmath tier 2 renders, 600 photos: the net right both times, at 0.51 and
    0.89). But where the glyph reader read its two digits from two glyphs side by side
    (``pairs``, (rows, cols) bool: :func:`vision.tiles.side_by_side`), the ink of two
    digits, its reading stands, no surer than the net leaves room for (those collages'
    81s: an 8 and a 1 as tall; the render-taught whole-tile readers lose the set's thin 1).

    >>> cells, conf = [[None, "5", None, "7"]], np.array([[1.0, 0.5, 1.0, 0.8]])
    >>> probs = np.array([[[0.02, 0, 0, 0.98], [0.1, 0.9, 0, 0], [0.01, 0, 0, 0.99],
    ...                    [0.99, 0, 0, 0.01]]])
    >>> fuse(cells, conf, np.zeros((1, 4), bool), probs, (None, "4", "5", "?"), Weighing(),
    ...      blanks=1)
    >>> cells, conf.round(2).tolist()
    ([[None, '4', '?', '7']], [[1.0, 0.9, 0.99, 0.8]])

    Two jokers the net is fairly sure of on empty-read squares, room for one more:

    >>> cells, conf = [[None, None, "?"]], np.ones((1, 3))
    >>> probs = np.array([[[0.25, 0, 0, 0.75], [0.2, 0, 0, 0.8], [0.01, 0, 0, 0.99]]])
    >>> fuse(cells, conf, np.zeros((1, 3), bool), probs, (None, "4", "5", "?"),
    ...      Weighing(likely_joker=0.7), blanks=2)
    >>> cells
    [[None, '?', '?']]

    An empty square the net, too, reads empty, but whose sides look like a tile's: as sure
    as the net alone:

    >>> cells, conf = [[None, None]], np.ones((1, 2))
    >>> odds = np.array([[[0.6, 0, 0, 0.4], [0.6, 0, 0, 0.4]]])
    >>> fuse(cells, conf, np.zeros((1, 2), bool), odds, (None, "4", "5", "?"),
    ...      Weighing(sided=(0.5, 4.0)), blanks=2, sides=np.array([[6.0, 1.0]]))
    >>> cells, conf.round(2).tolist()
    ([[None, None]], [[0.6, 1.0]])

    A net blind to a blank on its square (``sees_blanks`` False) leaves the glyph
    reader's blank, however sure its empty square:

    >>> cells, conf = [["?"]], np.array([[0.7]])
    >>> fuse(cells, conf, np.zeros((1, 1), bool), np.array([[[0.98, 0, 0, 0.02]]]),
    ...      (None, "4", "5", "?"), Weighing(), blanks=2, sees_blanks=False)
    >>> cells, conf.round(2).tolist()
    ([['?']], [[0.7]])

    On boardsight's print-and-play board, whose jokers wear a star, it puts none down:

    >>> cells = [[None, None, "?"]]
    >>> fuse(cells, np.ones((1, 3)), np.zeros((1, 3), bool), probs, (None, "4", "5", "?"),
    ...      Weighing(likely_joker=0.7), blanks=2, inked_jokers=True)
    >>> cells
    [[None, None, '?']]
    """
    sure, doubt, fair = rules.sure, rules.doubt, rules.fair
    likely_joker, sided, glared = rules.likely_joker, rules.sided, rules.glared
    faded_dots = rules.faded_dots
    best, p_best = _top(probs)
    known = set(classes)
    tile_class = np.array([v is not None and v != "?" for v in classes])
    put = []          # the net's answers taken: (its p, cell, the glyph reading, its confidence)
    likely = []       # jokers the net gives over an empty reading, not surely: (p, cell, conf)
    for r, c in zip(*np.nonzero(~leave)):
        mine = cells[r][c]
        theirs = classes[best[r, c]]
        if mine not in known or (mine == "?" and theirs is None and not sees_blanks):
            continue
        p = p_best[r, c]
        if pairs is not None and pairs[r, c] and _one_of_its_digits(theirs, mine):
            confidence[r, c] = min(confidence[r, c], 1 - p)   # two digits' ink: one lost
            continue
        tile_sides = (mine is None and sided is not None and sides is not None
                      and sides[r, c] >= sided[1])
        sided_tile = tile_sides and p >= sided[0]
        glared_tile = (mine is None and glared is not None and glare is not None
                       and glare[r, c] and p >= glared and theirs != "?")
        dots = (faded_dots is not None and mine in ("-", "+") and theirs == "/"
                and p >= faded_dots)
        digits = (rules.digit_count is not None and p >= rules.digit_count
                  and _numbers(mine, theirs) and mine < 10 <= theirs)
        # two tiles, the glyph reader in doubt and the net unsure: whichever both favour
        doubted_tile = (rules.joint is not None and scores is not None and (r, c) in scores
                        and mine not in (None, "?") and theirs not in (None, "?")
                        and p < sure and confidence[r, c] < doubt)
        if doubted_tile and theirs != mine:
            glyph = np.array([scores[r, c].get(v, 0.0) for v in classes]) + rules.joint
            odds = np.where(tile_class, probs[r, c] * glyph, 0.0)
            k = int(odds.argmax())
            cells[r][c], confidence[r, c] = classes[k], odds[k] / odds.sum()
        elif theirs == mine:
            inkless = mine is None and bool(blanks) and not inked_jokers
            if inkless and sees_blanks and tile_sides:
                # a joker has no ink: where the sides say a tile lies, the glyph reader's
                # empty square says nothing against one, and the net alone says how sure
                confidence[r, c] = p
            else:
                confidence[r, c] = max(confidence[r, c], p)
        elif p >= sure or (confidence[r, c] < doubt
                           and (theirs is not None or p >= confidence[r, c])) or (
                fair is not None and p >= fair[0] and confidence[r, c] < fair[1]) or (
                sided_tile and theirs != "?") or glared_tile or dots or digits:
            put.append((p, (r, c), mine, confidence[r, c]))
            cells[r][c] = theirs
            confidence[r, c] = p
        else:
            if theirs == "?" and mine is None and not inked_jokers and (
                    sided_tile or (likely_joker is not None and p >= likely_joker)):
                likely.append((p, (r, c), confidence[r, c]))
            confidence[r, c] = min(confidence[r, c], 1 - p)
        if rules.lost_digit is not None and _one_of_its_digits(cells[r][c], mine):
            confidence[r, c] = min(confidence[r, c], rules.lost_digit)
    if blanks is not None:
        jokers = sum(v == "?" for row in cells for v in row)
        for p, (r, c), conf in sorted(likely, reverse=True)[:max(blanks - jokers, 0)]:
            put.append((p, (r, c), None, conf))
            cells[r][c], confidence[r, c] = "?", p
        extra = sum(v == "?" for row in cells for v in row) - blanks
        for _, (r, c), mine, conf in sorted(p for p in put if cells[p[1][0]][p[1][1]] == "?"):
            if extra <= 0:
                break
            cells[r][c], confidence[r, c] = mine, conf
            extra -= 1


def keep_to_set(cells: list[list], confidence: np.ndarray, probs: np.ndarray,
                classes: tuple, counts: dict, scores: dict | None = None) -> None:
    """No board holds more tiles of a value than the set has (``counts``: value -> tiles).
    While more cells read a value than that, one of them is wrong: of those, the cell the
    net gives the least odds for the value against another answer (a value with tiles
    left, or an empty square) takes that answer, as unsure as the net is of it. ``cells``
    and ``confidence`` change in place; readings the net has no class for (a Mixmath
    blank) stay. (Dev photos, tier 2: +1..+5 photos all right a set of 100, none lost;
    most of it a blurred ÷ read as + on a board with all nine + down.)

    With ``scores`` (the glyph reader's odds, {cell: {value: probability}}) both readers
    are weighed: a reading is as sure as its confidence (the two readers weighed) where
    that is more than the net's odds, and another answer as likely as the likelier reader
    gives it. A real Mathable board showed why: its one 80 read by both readers (the
    glyph reader at 0.99, the net at 0.55) and a 60 the net read 80 at 0.91 (the glyph
    reader 60 at 0.64): by the net's odds alone the true 80 went to 90 and the wrong one
    stayed, sure. (Not on Calculissimo's signs: there the glyph reader is surer of a
    blurred ÷ or + than it is right, and by both readers' odds they trade places.)

    >>> cells, conf = [["+", "+", "/", None]], np.array([[0.9, 0.8, 0.9, 1.0]])
    >>> probs = np.array([[[0, 0.9, 0.1], [0.1, 0.5, 0.4], [0, 0.1, 0.9], [1, 0, 0]]])
    >>> keep_to_set(cells, conf, probs, (None, "+", "/"), {"+": 1, "/": 2})
    >>> cells, conf.round(2).tolist()
    ([['+', '/', '/', None]], [[0.9, 0.4, 0.9, 1.0]])
    >>> cells, conf = [[80, 80]], np.array([[0.99, 0.91]])
    >>> probs = np.array([[[0.0, 0.55, 0.35, 0.1], [0.0, 0.91, 0.03, 0.06]]])
    >>> scores = {(0, 0): {80: 0.99}, (0, 1): {60: 0.64, 80: 0.28}}
    >>> keep_to_set(cells, conf, probs, (None, 80, 90, 60), {80: 1, 90: 1, 60: 1}, scores)
    >>> cells, conf.round(2).tolist()
    ([[80, 60]], [[0.99, 0.64]])
    """
    index = {v: i for i, v in enumerate(classes)}
    tally = Counter(v for row in cells for v in row if v is not None)

    def too_many() -> set:
        return {v for v, n in tally.items() if v in index and n > counts.get(v, n)}

    over = too_many()
    if not over:    # (most boards: nothing to weigh)
        return
    odds_of = probs
    if scores is not None:
        odds_of = probs.copy()
        for (r, c), s in scores.items():
            for v, q in s.items():
                if v in index:
                    odds_of[r, c, index[v]] = max(odds_of[r, c, index[v]], q)
    log_p = np.log(odds_of + 1e-6)
    while over:
        room = np.array([v is None or tally[v] < counts.get(v, tally[v] + 1) for v in classes])
        at = [(r, c) for r, row in enumerate(cells) for c, v in enumerate(row) if v in over]
        r, c = np.array(at).T
        mine = log_p[r, c, [index[cells[i][j]] for i, j in at]]
        if scores is not None:
            mine = np.maximum(mine, np.log(confidence[r, c] + 1e-6))
        odds = np.where(room, mine[:, None] - log_p[r, c], np.inf)   # (cells, classes)
        i, k = np.unravel_index(np.argmin(odds), odds.shape)
        tally[cells[r[i]][c[i]]] -= 1
        cells[r[i]][c[i]] = classes[k]
        if classes[k] is not None:
            tally[classes[k]] += 1
        confidence[r[i], c[i]] = min(confidence[r[i], c[i]], odds_of[r[i], c[i], k])
        over = too_many()


def keep_connected(cells: list[list], confidence: np.ndarray, probs: np.ndarray,
                   classes: tuple, anchors: tuple, also_taken: np.ndarray,
                   unsure_below: float, blanks: int) -> None:
    """The tiles of a board in play are one group reaching its centre (``anchors``:
    Mixmath's printed 1 2 3 4, Calculissimo's start square): every turn's tiles touch the
    board's. A group of tiles the reading leaves apart from it is one of two misreadings:
    a tile missed on a square between them, or tiles seen where there are none. Only
    readings shown to check (confidence below ``unsure_below``) are changed, and they
    stay so: of a square beside both read empty (the least sure of them) and the group's
    own cells, the side whose readings are likelier wrong, by their confidences, is
    taken wrong. The missed tile is an inkless one (the set has ``blanks``, blanks or
    jokers, "?"; neither reader saw ink there) while fewer than that are down — with all
    of them down no gap is bridged, only the unsure group dropped — else (a set without
    them) the net's likeliest value (``probs``, ``classes``: its empty class first). ``also_taken`` (bool, rows x cols):
    squares taken whatever the reading (Mixmath's printed numbers; cells a hand hides or
    the photo cuts off, which may hold tiles). Nothing changes on a board whose anchors
    are not taken. ``cells`` and ``confidence`` change in place. (Development photos,
    tier 2, 600 a game: Mixmath 528 -> 531 all right, Calculissimo 537 -> 538, none lost:
    mostly blanks and jokers missed between tiles; most misses lie at the group's edge,
    where nothing tells.)

    >>> cells = [[None, 5, None, 7, None, 7]]          # anchor (0, 1); two 7s lie apart
    >>> conf = np.array([[1.0, 1.0, 0.2, 0.95, 1.0, 0.7]])
    >>> probs = np.array([[[1, 0, 0], [0, .9, .1], [.6, .1, .3], [0, .1, .9], [1, 0, 0],
    ...                    [.4, 0, .6]]])
    >>> keep_connected(cells, conf, probs, (None, 5, 7), ((0, 1),), np.zeros((1, 6), bool),
    ...                0.9, blanks=0)
    >>> cells                      # a 7 missed at (0, 2); the last 7 seen where none is
    [[None, 5, 7, 7, None, None]]
    """
    read = held(cells)
    taken = read | also_taken
    n, label = cv2.connectedComponents(taken.astype(np.uint8), connectivity=4)
    main = np.isin(label, [label[r, c] for r, c in anchors if taken[r, c]])
    if not main.any():
        return
    unsure = confidence < unsure_below
    jokers_left = blanks - sum(v == "?" for row in cells for v in row)
    for k in np.unique(label[taken & ~main]):
        group = label == k
        # the odds each side is wrong, its readings' confidences taken as probabilities
        drop = np.prod(1 - confidence[group]) if (unsure & read)[group].all() else 0.0
        gaps = _beside(group) & _beside(main) & ~taken & unsure
        if blanks and jokers_left <= 0:
            gaps[:] = False         # the missed tile would be a joker the set has not
        r, c = np.unravel_index(np.argmin(np.where(gaps, confidence, np.inf)), gaps.shape)
        bridge = 1 - confidence[r, c] if gaps.any() else 0.0   # its least sure gap
        if max(drop, bridge) == 0:
            continue
        if bridge >= drop:
            cells[r][c] = "?" if blanks else classes[1 + int(probs[r, c, 1:].argmax())]
            jokers_left -= bool(blanks)
            main |= group
            main[r, c] = True
        else:
            for r, c in np.argwhere(group):
                jokers_left += cells[r][c] == "?"
                cells[r][c] = None


def _beside(mask: np.ndarray) -> np.ndarray:
    """The cells next to ``mask`` (above, below, left, right) and not in it."""
    near = np.zeros_like(mask)
    near[1:] |= mask[:-1]
    near[:-1] |= mask[1:]
    near[:, 1:] |= mask[:, :-1]
    near[:, :-1] |= mask[:, 1:]
    return near & ~mask


# -- training data ---------------------------------------------------------------------------

def _jittered(grid_corners, cols: int, rng, sd: float) -> np.ndarray:
    """The true grid corners (4, 2) each moved by ~sd of a cell, as the finder leaves them."""
    src = np.float32(grid_corners)
    cell = np.linalg.norm(src[1] - src[0]) / cols
    return src + rng.normal(0, sd * cell, src.shape).clip(-3 * sd * cell, 3 * sd * cell)


def make_data(game: str, n_photos: int, seed: int = TRAIN_SEED, empty_keep: float = 0.25,
              jitters: int = 2, fonts: str = "train", hand: bool = False, progress=True):
    """Labelled crops of rendered photos of both tiers: (uint8 crops, norms, labels,
    photo index, board index, boards' contexts). All tiles are kept, ``empty_keep`` of the
    empty cells (all of them on special squares, whose print must never pass for a tile).
    A board is one photo seen through one jittered grid; its context is
    :func:`context_of` with the truth's inked tiles (the reader uses the ink it sees)."""
    from samples.render import photo_seed, sample_photo
    from tqdm import tqdm

    from .board import BoardLocation
    from .tiles import square_kinds_of
    index = {v: i for i, v in enumerate(CLASSES[game])}
    inked = np.array([v not in (None, "?") for v in CLASSES[game]])
    rng = np.random.default_rng(seed)
    crops, norms, labels, photos, boards, contexts = [], [], [], [], [], []
    for i in tqdm(range(n_photos), desc=f"cellnet data {game}", disable=not progress,
                  file=sys.stderr):
        tier = 1 + i % 2
        res = (4032, 3024) if i % 10 == 9 else (1280, 720) if i % 10 == 7 else (1920, 1080)
        image, truth, _ = sample_photo(game, tier, photo_seed(seed + tier, i), hand=hand,
                                       fonts=fonts, resolution=res)
        rows, cols = truth["rows"], truth["cols"]
        shown = np.ones((rows, cols), bool)
        for r, c in truth.get("occluded", []):
            shown[r, c] = False
        plain = square_kinds_of(game, rows, cols) == "plain"
        lab = np.array([[index[v] for v in row]
                        for row in truth["cells"]]).ravel()
        for j in range(jitters):
            corners = _jittered(truth["grid_corners"], cols, rng, 0.03 if j else 0.015)
            padded = padded_grid(image, BoardLocation.from_grid_corners(game, corners))
            c = cell_crops(padded, rows, cols)
            keep = (lab != 0) | ~plain.ravel() | (rng.random(lab.size) < empty_keep)
            keep &= shown.ravel()
            crops.append(c[keep])
            norms.append(np.repeat(board_norm(padded)[None], keep.sum(), 0))
            labels.append(lab[keep])
            photos.append(np.full(keep.sum(), i))
            boards.append(np.full(keep.sum(), len(contexts)))
            contexts.append(context_of(c, plain & shown, inked[lab].reshape(rows, cols)
                                       & plain & shown))
    return (np.concatenate(crops), np.concatenate(norms), np.concatenate(labels),
            np.concatenate(photos), np.concatenate(boards), np.stack(contexts))


# -- training (PyTorch) ----------------------------------------------------------------------

def _torch_net(n_classes: int, convs=CONVS, hidden: int = HIDDEN, channels: int = 3,
               crop: int = CROP_PX, seed: int = 0):
    """A fresh torch net of ``convs`` and ``hidden``, its start weights drawn from ``seed``
    (a training is the same run again)."""
    import torch
    import torch.nn as nn
    torch.manual_seed(seed)
    layers, c = [], channels
    for o, k in convs:
        layers += [nn.Conv2d(c, o, k, stride=2, padding=k // 2), nn.BatchNorm2d(o), nn.ReLU()]
        c = o
    side = -(-crop // 2 ** len(convs))     # each 2-strided 'same' convolution rounds up
    layers += [nn.Flatten(), nn.Linear(c * side * side, hidden), nn.ReLU(), nn.Dropout(0.2),
               nn.Linear(hidden, n_classes)]
    return nn.Sequential(*layers)


def _torch_from(net: CellNet, classes: tuple, channels: int | None = None,
                convs=CONVS, hidden: int = HIDDEN, crop: int = CROP_PX):
    """A torch net doing what the exported ``net`` does (:func:`_exported` undone: each
    BatchNorm an identity, its statistics folded in the convolution before it), its last
    layer laid out for ``classes``: a class the net had keeps its row, a new one starts
    from nothing (weights 0, a low bias: rarely said until trained). With 9 ``channels``
    from a net of 3, a net that reads in context, not looking at it yet (weights 0).
    ``convs``, ``hidden``, ``crop``: the net's shape (a cell net's by default, a judge's)."""
    import torch
    had = net.w["conv0.w"].shape[0] // _FIRST_TAPS
    channels = channels or had
    model = _torch_net(len(classes), convs, hidden, channels, crop)
    mods = list(model)
    at = [i for i, m in enumerate(mods) if isinstance(m, torch.nn.Conv2d)]   # the convolutions
    with torch.no_grad():
        for j, i in enumerate(at):
            conv, bn = mods[i], mods[i + 1]
            o, c, k = conv.out_channels, conv.in_channels, conv.kernel_size[0]
            c_had = had if j == 0 else c
            w = net.w[f"conv{j}.w"].reshape(k, k, c_had, o).transpose(3, 2, 0, 1)
            conv.weight.zero_()
            conv.weight[:, :c_had] = torch.from_numpy(np.ascontiguousarray(w))
            conv.bias.copy_(torch.from_numpy(net.w[f"conv{j}.b"]))
            bn.weight.fill_(1.0)
            bn.bias.zero_()
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        lins = [m for m in mods if isinstance(m, torch.nn.Linear)]
        side, last = -(-crop // 2 ** len(at)), mods[at[-1]].out_channels
        w0 = net.w["fc0.w"].T.reshape(-1, side, side, last).transpose(0, 3, 1, 2)
        lins[0].weight.copy_(torch.from_numpy(np.ascontiguousarray(w0.reshape(len(w0), -1))))
        lins[0].bias.copy_(torch.from_numpy(net.w["fc0.b"]))
        lins[1].weight.zero_()
        lins[1].bias.fill_(-4.0)
        for new, value in enumerate(classes):
            if value in net.classes:
                old = net.classes.index(value)
                lins[1].weight[new] = torch.from_numpy(net.w["fc1.w"][:, old])
                lins[1].bias[new] = float(net.w["fc1.b"][old])
    return model


def _exported(model, classes: tuple, crop: int = CROP_PX) -> CellNet:
    """The torch net's weights with each BatchNorm folded into its convolution, laid out
    for :func:`_conv` (NHWC, (ky, kx, C) rows); ``crop``: the side of its input."""
    import torch.nn as nn
    w = {}
    mods = list(model)
    convs = [i for i, m in enumerate(mods) if isinstance(m, nn.Conv2d)]
    for j, i in enumerate(convs):
        conv, bn = mods[i], mods[i + 1]
        scale = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy()
        k = conv.weight.detach().numpy() * scale[:, None, None, None]      # (O, C, ky, kx)
        b = (conv.bias.detach().numpy() - bn.running_mean.numpy()) * scale + bn.bias.detach().numpy()
        w[f"conv{j}.w"] = k.transpose(2, 3, 1, 0).reshape(-1, k.shape[0])
        w[f"conv{j}.b"] = b
    lins = [m for m in mods if isinstance(m, nn.Linear)]
    side = -(-crop // 2 ** len(convs))
    # torch flattens (C, H, W); the numpy forward flattens (H, W, C)
    channels = mods[convs[-1]].out_channels
    w0 = lins[0].weight.detach().numpy().reshape(-1, channels, side, side).transpose(0, 2, 3, 1)
    w["fc0.w"] = w0.reshape(w0.shape[0], -1).T
    w["fc0.b"] = lins[0].bias.detach().numpy()
    w["fc1.w"] = lins[1].weight.detach().numpy().T
    w["fc1.b"] = lins[1].bias.detach().numpy()
    return CellNet(w, classes)


GLARE_SHARE = 0.3   # of the training crops seen under a glare (glared)


def glared(crops: np.ndarray, rng, share: float) -> np.ndarray:
    """float32 copies of uint8 ``crops`` (N, H, W, 3), ``share`` of them under a specular
    glare: a soft, elongated spot of light added and clipped at white, anywhere from the
    crop's middle to a cell off, 0.3-2 cells in radius, 0.2-0.85 of white at its peak, the
    light's colour a little off grey. The photos a net trains on show a glare on few cells,
    and a glare-washed tile (its ink a few levels under a face clipped white) is what the
    reader misses most."""
    out = crops.astype(np.float32)
    hit = np.flatnonzero(rng.random(len(crops)) < share)
    if not len(hit):
        return out
    n, side = len(hit), crops.shape[1]
    centre = side / 2 + rng.uniform(-1, 1, (n, 2)) * CELL_PX
    radius = rng.uniform(0.3, 2.0, n) * CELL_PX
    turn = rng.uniform(0, np.pi, n)
    stretch = rng.uniform(1.0, 1.6, n)
    ys, xs = np.mgrid[0:side, 0:side].astype(np.float32) + 0.5
    dx = xs[None] - centre[:, 0, None, None]
    dy = ys[None] - centre[:, 1, None, None]
    cos, sin = np.cos(turn)[:, None, None], np.sin(turn)[:, None, None]
    u = (dx * cos + dy * sin) / (radius * stretch)[:, None, None]
    v = (dy * cos - dx * sin) / radius[:, None, None]
    d2 = u * u + v * v
    spot = 0.6 * np.exp(-2 * d2) + 0.4 * np.exp(-10 * d2)
    light = 1 + 0.06 * rng.standard_normal((n, 3))
    light /= light.max(1, keepdims=True)
    peak = 255 * rng.uniform(0.2, 0.85, n)
    out[hit] = np.minimum(out[hit] + (peak[:, None] * light)[:, None, None] * spot[..., None],
                          255)
    return out


def _fit(model, crops: np.ndarray, norms: np.ndarray, labels: np.ndarray | None,
         epochs: int, seed: int, threads: int, log, boards: np.ndarray | None = None,
         contexts: np.ndarray | None = None, glare: float = 0.0, max_lr: float = 3e-3,
         keep_norms: bool = False, pool: np.ndarray | None = None, turns: str | None = None,
         batch: int = 256, no_tile: float = 0.1, after_epoch=None):
    """Train ``model`` on the crops (``norms``: each crop's board's :func:`board_norm`);
    ``labels`` None: each crop is turned a random number of quarter turns, which is its
    label (:func:`train_turns`). With ``contexts`` (each board's :func:`context_of`;
    ``boards``: each crop's board), each crop is seen beside its board's; ``no_tile`` of
    the time with the empty square's for the tile's (a board with no inked tile).
    ``turns``: each crop (and its context) turned at random, "any" quarter turn and
    mirrored half the time, or "half" (a half turn or none, mirrored half the time: the
    turns a sign reads the same under). ``keep_norms``: the BatchNorms keep their
    statistics (a net carried on from :func:`_torch_from`). ``pool``: the crops' indices an
    epoch draws (a crop listed twice is seen twice), all of them once by default; ``batch``
    of them a step. ``after_epoch(model)`` is called after each epoch, the model in eval
    mode (a held-out report)."""
    import torch
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    pool = np.arange(len(crops)) if pool is None else pool
    n = len(pool)
    rng = np.random.default_rng(seed)

    def batch_of(idx):
        idx = np.sort(idx)
        xb = normalised(glared(crops[idx], rng, glare), norms[idx])
        if contexts is not None:
            ctx = normalised(contexts[boards[idx]], norms[idx][:, None])
            swap = rng.random(len(idx)) < no_tile
            ctx[swap, 1] = ctx[swap, 0]
            xb = np.concatenate([xb, ctx[:, 0], ctx[:, 1]], -1)
        if labels is None:
            yb = rng.integers(0, 4, len(idx))
            xb = np.stack([np.rot90(x, k) for x, k in zip(xb, yb)])
        else:
            yb = labels[idx]
        if turns is not None:
            k = rng.integers(0, 4, len(idx)) if turns == "any" else 2 * rng.integers(0, 2, len(idx))
            mirror = rng.random(len(idx)) < 0.5
            xb = np.stack([np.rot90(x[:, ::-1] if f else x, t) for x, t, f in zip(xb, k, mirror)])
        xb = np.ascontiguousarray(xb.transpose(0, 3, 1, 2))
        return torch.from_numpy(xb), torch.from_numpy(yb.astype(np.int64))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((n + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    t0 = time.time()
    for epoch in range(epochs):
        model.train()
        if keep_norms:
            for m in model:
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        order = pool[torch.randperm(n, generator=gen).numpy()]
        total, right = 0.0, 0
        for s in range(0, n, batch):
            xb, yb = batch_of(order[s:s + batch])
            # light the crops afresh: brightness, contrast, a colour cast, noise
            g = 1 + 0.15 * torch.randn(len(xb), 1, 1, 1, generator=gen)
            cast = 0.08 * torch.randn(len(xb), 3, 1, 1, generator=gen).repeat(
                1, xb.shape[1] // 3, 1, 1)     # the same light on the crop and its context
            xb = xb * g + cast + 0.03 * torch.randn(xb.shape, generator=gen)
            out = model(xb)
            loss = torch.nn.functional.cross_entropy(out, yb, label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(yb)
            right += (out.argmax(1) == yb).sum().item()
            if s // batch % 500 == 0:
                log(f"  batch {s // batch}: loss {loss.item():.4f}, {time.time() - t0:.0f} s")
        log(f"epoch {epoch + 1}/{epochs}: loss {total / n:.4f}, "
            f"train accuracy {100 * right / n:.3f} %, {time.time() - t0:.0f} s")
        if after_epoch is not None:
            model.eval()
            after_epoch(model)
    model.eval()
    return model


def _load_data(data: list[Path]) -> tuple[np.ndarray, ...]:
    """crops, norms, labels, boards, contexts of the :func:`make_data` files (boards
    numbered across them; the last two None when a file has no contexts)."""
    parts = [np.load(path) for path in data]
    out = [np.concatenate([f[k] for f in parts]) for k in ("crops", "norms", "labels")]
    if not all("contexts" in f for f in parts):
        return (*out, None, None)
    counts = np.cumsum([0] + [len(f["contexts"]) for f in parts[:-1]])
    boards = np.concatenate([f["boards"] + k for f, k in zip(parts, counts)])
    return (*out, boards, np.concatenate([f["contexts"] for f in parts]))


def epoch_pool(labels: np.ndarray, label: int, times: int) -> np.ndarray:
    """The crops an epoch draws: every one once, those of ``label`` ``times`` times.

    >>> epoch_pool(np.array([0, 3, 1, 3]), 3, 3).tolist()
    [0, 1, 2, 3, 1, 3, 1, 3]
    """
    return np.concatenate([np.arange(len(labels))]
                          + [np.flatnonzero(labels == label)] * (times - 1))


def train(game: str, data: list[Path], epochs: int = 8, seed: int = 0, threads: int = 2,
          log=print, context: bool = False, glare: float = GLARE_SHARE,
          start: CellNet | None = None, blank_times: int = 1) -> CellNet:
    """Fit the net of ``game`` on the crops of :func:`make_data` saved in ``data``, ``glare``
    of them seen under a spot of light (:func:`glared`); with ``context``, a net that reads
    each crop beside its board's :func:`context_of` (the files must hold the contexts).
    From a ``start`` (a trained net): carried on at a third of the learning rate, its
    BatchNorms' statistics kept, a class it lacked learnt anew, and (``context``, from a
    net that sees the cell alone) the context learnt from nothing. Each blank's crop (the
    class "?") is seen ``blank_times`` times an epoch: the rarest tile, and the hardest."""
    crops, norms, labels, boards, contexts = _load_data(data)
    if context and contexts is None:
        raise ValueError("these crops were saved without their boards' contexts: "
                         "make them again with --data")
    if not context:
        boards = contexts = None
    classes = CLASSES[game]
    if start is not None and start.reads_context and not context:
        raise ValueError("the net carried on from reads context: train it with --context")
    channels = 9 if context else 3
    model = (_torch_net(len(classes), channels=channels, seed=seed) if start is None
             else _torch_from(start, classes, channels))
    pool = epoch_pool(labels, classes.index("?"), blank_times)
    model = _fit(model, crops, norms, labels, epochs, seed, threads, log, boards, contexts,
                 glare, max_lr=3e-3 if start is None else 1e-3, keep_norms=start is not None,
                 pool=pool)
    return _exported(model, classes)


TURN_CONVS = ((8, 3), (16, 3), (32, 3))   # the turn net: a token's way up is a simpler
TURN_HIDDEN = 64                          # question than its value


def train_turns(game: str, data: list[Path], epochs: int = 4, seed: int = 0,
                threads: int = 2, tiles: int = 400_000, log=print) -> CellNet:
    """Fit ``game``'s turn net: which of four quarter turns (``np.rot90`` k) a tile's crop
    was turned by, on up to ``tiles`` of the tiles with a glyph among the crops of
    :func:`make_data` (the classes: 0..3)."""
    crops, norms, labels, *_ = _load_data(data)
    glyph = np.array([c not in (None, "?") for c in CLASSES[game]])[labels]
    pick = np.flatnonzero(glyph)
    pick = np.sort(np.random.default_rng(seed).permutation(pick)[:tiles])
    model = _fit(_torch_net(4, TURN_CONVS, TURN_HIDDEN, seed=seed), crops[pick], norms[pick], None,
                 epochs, seed, threads, log)
    return _exported(model, (0, 1, 2, 3))


# -- the judges -------------------------------------------------------------------------------
#
# A blank tile lying on a square of its own colour shows only by its rim and its shadow, a ÷
# on a small blurred board only by two dots beside its bar: a few pixels at the net's 24 px a
# cell, where the readers take one for the other. A judge sees such a cell at twice the net's
# scale, beside the photo's own empty square and inked tile as the net does, and tells apart
# only the few values of its question (Judge.classes); the reader asks it about the cells
# the readers may have wrong (vision.reader.judge_blanks, judge_signs).

JUDGE_CELL_PX = 48     # twice the net's cell: the rim and shadow of a tile, a few px more
JUDGE_MARGIN_PX = 12   # a quarter of a cell round it: the tile's edge, shadow and the gap
JUDGE_CROP_PX = JUDGE_CELL_PX + 2 * JUDGE_MARGIN_PX
JUDGE_CONVS = ((16, 3), (32, 3), (48, 3), (64, 3))
JUDGE_HIDDEN = 64
JUDGE_CONTEXT_STEP = 2   # its context's medians taken every other px and scaled up: a
                         # median of 48 crops is smooth, and a fifth of the cost (dev: as
                         # many photos all right)


@dataclass(frozen=True, eq=False)   # (one of each: known by itself, as lru_cache keys it)
class Judge:
    """A judge's question and how it is taught: ``classes``, the values it tells apart;
    ``seeds``, per game whose renders it learns from, their seed; ``any_turn``, whether
    its crops are turned any quarter turn and mirrored in training (a blank has no way
    up) or only half turns and mirrors (a − on its side is no sign); ``sample_first``:
    its first class is most cells of a board (empty squares), of which it learns those
    the net gives one of the others at least 0.02 and a twentieth of the rest, and sees
    the hard ones (a 0.1 or more, and every cell of the other classes) three times an
    epoch. Its weights ship in ``vision/models/NAME.npz``."""

    name: str
    classes: tuple
    seeds: dict
    any_turn: bool
    sample_first: bool = False


BLANK_JUDGE = Judge("blankjudge", (None, "?"), {"mixmath": 8_100_000, "calculissimo": 8_200_000},
                    any_turn=True, sample_first=True)
SIGN_JUDGE = Judge("signjudge", ("+", "-", "x", "/"), {"calculissimo": 8_300_000},
                   any_turn=False)
JUDGES = {judge.name: judge for judge in (BLANK_JUDGE, SIGN_JUDGE)}


@lru_cache(maxsize=None)
def load_judge(judge: Judge) -> CellNet | None:
    """The shipped weights of ``judge``, or None."""
    return _shipped(judge.name, judge.classes)


def judge_padded(grid_bgr: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The reader's board at the judges' scale, from its rectified grid (:func:`vision.board.
    rectify_grid`, 64 px a cell): scaled to JUDGE_CELL_PX a cell (linearly: area averaging
    at 3/4 costs five times as much), its rim the grid's edge drawn out. A warp of the
    photo for the judge alone costs as much again as the judge; on development renders it
    judges the same from either."""
    p, m = JUDGE_CELL_PX, JUDGE_MARGIN_PX
    small = cv2.resize(grid_bgr, (cols * p, rows * p), interpolation=cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(small, m, m, m, m, cv2.BORDER_REPLICATE)


def judge_view(padded: np.ndarray, rows: int, cols: int, plain: np.ndarray,
               inked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, norm, context) of every cell of a board at the judges' scale (``padded``:
    JUDGE_CELL_PX a cell, a JUDGE_MARGIN_PX rim): :func:`cell_crops`, :func:`board_norm`
    and :func:`context_of` (``plain`` squares, ``inked`` tiles: (rows, cols) bool)."""
    p, m = JUDGE_CELL_PX, JUDGE_MARGIN_PX
    crops = cell_crops(padded, rows, cols, p, m)
    return (crops, board_norm(padded, m),
            context_of(crops, plain, inked, step=JUDGE_CONTEXT_STEP))


def judge_odds(judge: Judge, view: tuple, cells: np.ndarray) -> np.ndarray | None:
    """(n, len(judge.classes)) ``judge``'s odds of each of its classes for the ``cells``
    ((rows, cols) bool, row-major) of a :func:`judge_view`, or None when it does not
    ship."""
    net = load_judge(judge)
    if net is None:
        return None
    crops, norm, context = view
    return net.probabilities(crops[cells.ravel()], norm, context)


def make_judge_data(judge: Judge, game: str, n_photos: int, seed: int, progress=True) -> dict:
    """``judge``'s crops of ``n_photos`` tier-2 renders of ``game`` (TRAIN fonts, no hand;
    1080p, every tenth 12 MP and every tenth 720p), each seen through a grid jittered by
    0.02 of a cell: the cells whose value is one of its classes (its first class sampled,
    :class:`Judge`); with their labels (the class's index), the net's probabilities of the
    judge's classes (``net``), each crop's board and the boards' norms and contexts (from
    the truth's inked tiles on plain squares, as the net's training takes them)."""
    from samples.render import photo_seed, sample_photo
    from tqdm import tqdm

    from .board import BoardLocation
    from .tiles import square_kinds_of
    net, asked = load(game), [CLASSES[game].index(c) for c in judge.classes]
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("crops", "labels", "net", "boards", "contexts", "norms")}
    for i in tqdm(range(n_photos), desc=f"{judge.name} data {game}", disable=not progress,
                  file=sys.stderr):
        res = (4032, 3024) if i % 10 == 9 else (1280, 720) if i % 10 == 7 else (1920, 1080)
        image, truth, _ = sample_photo(game, 2, photo_seed(seed, i), hand=False,
                                       fonts="train", resolution=res)
        rows, cols = truth["rows"], truth["cols"]
        values = [v for row in truth["cells"] for v in row]
        labels = np.array([judge.classes.index(v) if v in judge.classes else -1
                           for v in values])
        plain = square_kinds_of(game, rows, cols) == "plain"
        inked = np.array([v not in (None, "?") for v in values]).reshape(rows, cols) & plain
        location = BoardLocation.from_grid_corners(
            game, _jittered(truth["grid_corners"], cols, rng, 0.02))
        view = BoardView.of(image, location).in_context(plain, inked)
        odds = net.probabilities(view.crops(), view.norm, view.context)[:, asked]
        keep = labels >= 0
        if judge.sample_first:
            keep &= ((labels > 0) | (odds[:, 1:].sum(1) >= 0.02)
                     | (rng.random(labels.size) < 0.05))
        if not keep.any():
            continue
        crops, norm, context = judge_view(padded_grid(image, location, JUDGE_CELL_PX,
                                                      JUDGE_MARGIN_PX), rows, cols, plain, inked)
        for key, value in (("crops", crops[keep]), ("labels", labels[keep].astype(np.int8)),
                           ("net", odds[keep].astype(np.float32)),
                           ("boards", np.full(keep.sum(), len(out["contexts"])))):
            out[key].append(value)
        out["contexts"].append(context)
        out["norms"].append(norm)
    return {k: np.concatenate(v) if k in ("crops", "labels", "net", "boards") else np.stack(v)
            for k, v in out.items()}


def train_judge(judge: Judge, data: list[Path], epochs: int = 6, seed: int = 0,
                threads: int = 2, held_out: float = 0.15, log=print,
                start: CellNet | None = None) -> CellNet:
    """Fit ``judge`` on the :func:`make_judge_data` files ``data`` (of every game it learns
    from: a blank's rim is a tile's in either), ``held_out`` of the boards kept aside and
    its errors on them logged after each epoch beside the net's (its most likely of the
    judge's classes; on all of them and where the net said other than the first class).
    Each crop is seen beside its board's context, turned (:class:`Judge`) and lit afresh
    (:func:`_fit`). From a ``start`` (the shipped judge): carried on at a third of the
    learning rate, its BatchNorms' statistics kept (as :func:`train` carries a net on)."""
    import torch
    files = [np.load(path) for path in data]
    crops, labels, net = (np.concatenate([f[k] for f in files]) for k in ("crops", "labels", "net"))
    labels = labels.astype(np.int64)
    offsets = np.cumsum([0] + [len(f["contexts"]) for f in files[:-1]])
    boards = np.concatenate([f["boards"] + k for f, k in zip(files, offsets)])
    contexts = np.concatenate([f["contexts"] for f in files])
    norms = np.concatenate([f["norms"] for f in files])[boards]
    rng = np.random.default_rng(seed)
    val = (rng.random(len(contexts)) < held_out)[boards]
    fit, check = np.flatnonzero(~val), np.flatnonzero(val)
    hard = (labels[fit] > 0) | (net[fit, 1:].sum(1) >= 0.1)
    pool = np.repeat(fit, np.where(hard, 3, 1)) if judge.sample_first else fit

    def held_out_input(idx):    # as _fit gives its crops, unlit and unturned
        ctx = normalised(contexts[boards[idx]], norms[idx][:, None])
        x = np.concatenate([normalised(crops[idx], norms[idx]), ctx[:, 0], ctx[:, 1]], -1)
        return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))

    def report(model):
        with torch.no_grad():   # 512 at a time: all of them at once is gigabytes of floats
            said = np.concatenate([model(held_out_input(check[s:s + 512])).argmax(1).numpy()
                                   for s in range(0, len(check), 512)])
        y, by_net = labels[check], net[check].argmax(1)
        for name, sel in (("all", np.ones(len(check), bool)),
                          (f"the net says other than {judge.classes[0]}", by_net > 0)):
            log(f"   held out, {name}: {sel.sum()} cells; judge wrong "
                f"{(said[sel] != y[sel]).sum()}, the net {(by_net[sel] != y[sel]).sum()}")

    model = (_torch_net(len(judge.classes), JUDGE_CONVS, JUDGE_HIDDEN, 9, JUDGE_CROP_PX, seed)
             if start is None else
             _torch_from(start, judge.classes, 9, JUDGE_CONVS, JUDGE_HIDDEN, JUDGE_CROP_PX))
    model = _fit(model, crops, norms, labels, epochs, seed, threads, log, boards, contexts,
                 pool=pool, turns="any" if judge.any_turn else "half", batch=128,
                 no_tile=0.0, after_epoch=report, max_lr=3e-3 if start is None else 1e-3,
                 keep_norms=start is not None)
    return _exported(model, judge.classes, JUDGE_CROP_PX)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.cellnet", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", metavar="GAME", help="render the training crops of GAME")
    parser.add_argument("--train", metavar="GAME", help="fit GAME's net on its crops")
    parser.add_argument("--train-turns", metavar="GAME",
                        help="fit GAME's turn net (which way up a tile lies) on its crops")
    parser.add_argument("--photos", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=None,
                        help=f"the renders' seed (--data: default {TRAIN_SEED}; --judge-data: "
                             "the judge's for the game)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--glare", type=float, default=GLARE_SHARE,
                        help="--train: the share of crops seen under a spot of light "
                             f"(default {GLARE_SHARE})")
    parser.add_argument("--context", action="store_true",
                        help="--train a net that reads each cell beside its photo's "
                             "empty square and inked tile (context_of)")
    parser.add_argument("--blank-times", type=int, default=1, metavar="K",
                        help="--train: each blank's crop seen K times an epoch")
    parser.add_argument("--carry-on", action="store_true",
                        help="--train (--train-judge) on from the shipped net (judge), "
                             "learning a class it lacks, rather than afresh")
    parser.add_argument("--judge", choices=sorted(JUDGES), default=BLANK_JUDGE.name,
                        help="the judge --judge-data and --train-judge are for (default "
                             f"{BLANK_JUDGE.name})")
    parser.add_argument("--judge-data", metavar="GAME",
                        help="render the judge's crops of GAME (its seed for GAME)")
    parser.add_argument("--train-judge", action="store_true",
                        help="fit the judge on its crops of every game")
    parser.add_argument("--store", type=Path, default=Path("/tmp/cellnet"),
                        help="where the crops are kept between --data and --train (all "
                             "GAME-*.npz there are trained on)")
    args = parser.parse_args(argv)
    args.store.mkdir(parents=True, exist_ok=True)
    if args.data:
        seed = TRAIN_SEED if args.seed is None else args.seed
        crops, norms, labels, photos, boards, contexts = make_data(args.data, args.photos,
                                                                   seed)
        np.savez(args.store / f"{args.data}-{seed}.npz", crops=crops, norms=norms,
                 labels=labels, photos=photos, boards=boards, contexts=contexts)
        print(f"{len(labels)} crops, {np.count_nonzero(labels)} tiles")
    if args.train:
        net = train(args.train, sorted(args.store.glob(f"{args.train}*.npz")),
                    epochs=args.epochs, threads=args.threads, context=args.context,
                    glare=args.glare, blank_times=args.blank_times,
                    start=_carried_on_from(args.train) if args.carry_on else None)
        net.save(MODELS / f"cellnet-{args.train}.npz")
        print(f"saved {MODELS / f'cellnet-{args.train}.npz'}")
    judge = JUDGES[args.judge]
    if args.judge_data:
        seed = judge.seeds[args.judge_data] if args.seed is None else args.seed
        data = make_judge_data(judge, args.judge_data, args.photos, seed)
        np.savez(args.store / f"{judge.name}-{args.judge_data}-{seed}.npz", **data)
        print(f"{len(data['labels'])} crops:", dict(zip(judge.classes, np.bincount(
            data["labels"], minlength=len(judge.classes)).tolist())))
    if args.train_judge:
        net = train_judge(judge, sorted(args.store.glob(f"{judge.name}-*.npz")), args.epochs,
                          threads=args.threads,
                          start=load_judge(judge) if args.carry_on else None)
        net.save(MODELS / f"{judge.name}.npz")
        print(f"saved {MODELS / f'{judge.name}.npz'}")
    if args.train_turns:
        net = train_turns(args.train_turns,
                          sorted(args.store.glob(f"{args.train_turns}*.npz")),
                          threads=args.threads)
        net.save(MODELS / f"turnnet-{args.train_turns}.npz")
        print(f"saved {MODELS / f'turnnet-{args.train_turns}.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
