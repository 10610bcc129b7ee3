"""The glyph classifier: one digit, sign or joker star cut from a tile -> class probabilities.

Features (:func:`glyph_features`, all glyphs of a board in one batch): the soft-ink glyph
scaled into a ``GLYPH_PX`` square keeping its aspect ratio, then

- a gradient-orientation histogram (HOG-like: 8 signed orientations, 5 x 5 cells, square
  root and L2 normalised) — the strokes' directions and where they are;
- the ink itself pooled to 10 x 10, and its row and column projections;
- its outline: how deep the ink starts from each of the four sides, row by row and column
  by column (the open side of a 3, the hook of a 6);
- the glyph's aspect ratio and height (a minus is flat, a 1 is narrow).

Model (:class:`GlyphModel`): a small numpy MLP (one hidden layer; ``hidden=0`` gives a
plain multinomial logistic regression) trained with Adam on glyphs cut — by the same code
the reader uses, :func:`vision.tiles.ink_glyphs` — from two kinds of TRAIN-font pictures:

- synthetic tiles (:func:`synth_cell`): the TRAIN faces of
  :func:`calibration.fonts.font_split` and other cuts of their families
  (:data:`EXTRA_TRAIN_FACES`), numerals with the font's own spacing or set apart, wider or
  narrower, slanted, thinner or bolder, signs from the font or drawn, the joker star, the
  6/9 underline or dot; tile, square and ink colours, offset, rotation; then a photo of
  it (:class:`SynthConfig`: 24..120 px cells with more of the small end, foreshortening,
  lens blur before exposure so bright light thins the strokes, white balance, a glare,
  noise, JPEG);
- whole rendered photos (:func:`render_glyphs`, :mod:`samples.render` with the train
  faces; seeds far from the development and benchmark ones), cut from the grid the true
  corners rectify.

The trained weights ship in ``vision/models/glyphs.npz``; rebuild them (seeded,
reproducible) with::

    python -m vision.digits --train          # ~ 25 minutes on one core
    python -m vision.digits --eval           # accuracy on HELD-OUT fonts

A physical set's own font is learned from its calibration photo of the tile set (laid out
in ascending order, ``boardsight calibrate``): its :class:`GlyphSamples` are kept beside
its board profile, and their :class:`SetGlyphs` prototypes sharpen the model on that set.

>>> CLASSES[:10] == tuple("0123456789"), CLASSES[10:]
(True, ('+', '-', 'x', '/', '?'))
>>> img = np.zeros((30, 18), np.float32); img[:, 7:11] = 1          # a bar: a "1"
>>> glyph_features([img]).shape == (1, N_FEATURES)
True
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

CLASSES: tuple[str, ...] = tuple("0123456789") + ("+", "-", "x", "/", "?")
"""Glyph classes: the ten digits, the four operators (÷ written "/") and the joker star."""

DIGIT_CLASSES = slice(0, 10)
GLYPH_PX = 20          # side of the normalised glyph square
HOG_BINS = 8           # signed gradient orientations
HOG_CELLS = 5          # HOG_CELLS x HOG_CELLS spatial cells
POOL_PX = 10           # the ink pooled to POOL_PX x POOL_PX
N_FEATURES = HOG_BINS * HOG_CELLS ** 2 + POOL_PX ** 2 + 6 * GLYPH_PX + 3

MODEL_PATH = Path(__file__).parent / "models" / "glyphs.npz"


# ----------------------------------------------------------------------------- features

def normalise_glyph(image: np.ndarray, size: int = GLYPH_PX) -> np.ndarray:
    """Scale a soft-ink glyph (h, w) so its longer side fills ``size - 2`` px, centred in a
    (size, size) float32 square (the aspect ratio is kept: a 1 stays narrow).

    >>> normalise_glyph(np.ones((10, 5), np.float32)).shape
    (20, 20)
    """
    h, w = image.shape
    out = np.zeros((size, size), np.float32)
    if h == 0 or w == 0:
        return out
    scale = (size - 2) / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    r = cv2.resize(image.astype(np.float32), (nw, nh), interpolation=interp)
    y0, x0 = (size - nh) // 2, (size - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = r
    return out


def glyph_features(images: list[np.ndarray], heights: np.ndarray | None = None) -> np.ndarray:
    """(N, N_FEATURES) float32 features of N soft-ink glyphs.

    Parameters
    ----------
    images : list of (h_i, w_i) float arrays, 1 = ink
    heights : (N,) glyph height as a fraction of the cell (default 0.4 for all)
    """
    n = len(images)
    if n == 0:
        return np.zeros((0, N_FEATURES), np.float32)
    g = np.stack([normalise_glyph(im) for im in images])                   # (N, G, G)
    shape = shape_features(g, GLYPH_PX // HOG_CELLS, GLYPH_PX // POOL_PX)
    shapes = np.array([im.shape for im in images], np.float32)
    aspect = np.log((shapes[:, 1] + 1) / (shapes[:, 0] + 1))
    hts = np.full(n, 0.4, np.float32) if heights is None else np.asarray(heights, np.float32)
    aux = np.stack([aspect, hts, g.mean(axis=(1, 2))], axis=1)
    return np.concatenate([shape, aux], axis=1).astype(np.float32)


def shape_features(g: np.ndarray, hog_cell: int, pool: int) -> np.ndarray:
    """(N, D) shape features of N normalised soft-ink images ``g`` (N, H, W): a HOG
    (HOG_BINS signed orientations in ``hog_cell`` x ``hog_cell`` px cells), the ink pooled
    ``pool`` x ``pool``, its row and column projections and its outline (how deep the ink
    starts from each side, per row / column). H and W are multiples of both sizes;
    D = HOG_BINS * (H / hog_cell) * (W / hog_cell) + (H / pool) * (W / pool) + 3 * (H + W)."""
    n, height, width = g.shape
    cols = width // hog_cell
    n_cells = (height // hog_cell) * cols
    cell_of_pixel = ((np.arange(height)[:, None] // hog_cell) * cols
                     + np.arange(width)[None, :] // hog_cell).reshape(-1)
    g = g.astype(np.float32, copy=False)
    gp = np.pad(g, ((0, 0), (1, 1), (1, 1)))
    gx = gp[:, 1:-1, 2:] - gp[:, 1:-1, :-2]
    gy = gp[:, 2:, 1:-1] - gp[:, :-2, 1:-1]
    mag = cv2.magnitude(gx.reshape(-1, width), gy.reshape(-1, width)).reshape(n, -1)
    ang = np.arctan2(gy, gx).reshape(n, -1) * np.float32(HOG_BINS / (2 * np.pi))
    ang %= HOG_BINS
    floor = np.floor(ang)
    w1 = ang - floor
    b0 = floor.astype(np.int32) % HOG_BINS
    b1 = b0 + 1
    b1[b1 == HOG_BINS] = 0
    # each pixel's magnitude split between its two nearest orientations, summed per
    # (image, orientation, cell) by bincount
    base = (np.arange(n, dtype=np.int32)[:, None] * (HOG_BINS * n_cells)
            + cell_of_pixel.astype(np.int32))
    size = n * HOG_BINS * n_cells
    upper = mag * w1
    hog = (np.bincount((base + b0 * n_cells).ravel(), (mag - upper).ravel(), minlength=size)
           + np.bincount((base + b1 * n_cells).ravel(), upper.ravel(), minlength=size)
           ).reshape(n, -1)
    hog = np.sqrt(hog)
    hog /= np.linalg.norm(hog, axis=1, keepdims=True) + 1e-6
    q = pool
    pooled = sum(g[:, i::q, j::q] for i in range(q) for j in range(q)).reshape(n, -1) / (q * q)
    total = g.sum(axis=(1, 2))[:, None] + 1e-6
    proj = np.concatenate([g.sum(axis=2), g.sum(axis=1)], axis=1) / total
    # outline profiles: how deep the ink starts from each side, per row / column (the
    # open left side of a 3, the hook of a 6, the flag of a 1)
    ink = g > 0.5
    rows_in, cols_in = ink.any(axis=2), ink.any(axis=1)
    profiles = [np.where(rows_in, ink.argmax(axis=2), width) / float(width),
                np.where(rows_in, ink[:, :, ::-1].argmax(axis=2), width) / float(width),
                np.where(cols_in, ink.argmax(axis=1), height) / float(height),
                np.where(cols_in, ink[:, ::-1, :].argmax(axis=1), height) / float(height)]
    return np.concatenate([hog, pooled, proj] + profiles, axis=1)


# -------------------------------------------------------------------------------- model

@dataclass
class GlyphModel:
    """Standardise, (optional) ReLU hidden layer, softmax over :data:`CLASSES`."""

    mean: np.ndarray
    scale: np.ndarray
    layers: list[tuple[np.ndarray, np.ndarray]]
    meta: dict

    def logits(self, features: np.ndarray) -> np.ndarray:
        x = (features - self.mean) / self.scale
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0)
        return x

    def predict_proba(self, features: np.ndarray, classes: slice | None = None) -> np.ndarray:
        """(N, K) probabilities; ``classes`` restricts the softmax (e.g. DIGIT_CLASSES)."""
        z = self.logits(features)
        if classes is not None:
            z = z[:, classes]
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: Path = MODEL_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = _flush_subnormal(w.astype(np.float32))
            arrays[f"b{i}"] = b.astype(np.float32)
        np.savez_compressed(path, meta=np.array(json.dumps(self.meta)), **arrays)

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> GlyphModel:
        with np.load(path) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(_flush_subnormal(z[f"w{i}"]), z[f"b{i}"]) for i in range(n)]
            return cls(z["mean"], z["scale"], layers, json.loads(str(z["meta"])))


def _flush_subnormal(w: np.ndarray) -> np.ndarray:
    """``w`` with its subnormal float32 weights (below 1.2e-38: weight decay's leftovers on
    dead inputs, over half the shipped glyph model's first layer) set to 0. They add nothing
    to a logit, but every product with one takes the CPU's slow path: with them a batch of
    glyphs took ~40x longer to score in float32 (measured: 400 glyphs 190 ms, flushed 5 ms).

    >>> _flush_subnormal(np.array([1e-39, -1e-40, 0.5], np.float32)).tolist()
    [0.0, 0.0, 0.5]
    """
    return np.where(np.abs(w) < np.finfo(np.float32).tiny, np.float32(0), w).astype(w.dtype)


@lru_cache(maxsize=1)
def load_model() -> GlyphModel:
    """The shipped model (vision/models/glyphs.npz); trains and saves it when missing."""
    if not MODEL_PATH.exists():
        model = train()
        model.save(MODEL_PATH)
        return model
    return GlyphModel.load(MODEL_PATH)


def fit(x: np.ndarray, y: np.ndarray, *, hidden: int = 128, epochs: int = 30,
        batch: int = 256, lr: float = 2e-3, l2: float = 1e-4, seed: int = 0,
        n_classes: int = len(CLASSES), log=None) -> GlyphModel:
    """Train a GlyphModel with minibatch Adam on features ``x`` (N, D), labels ``y`` (N,)."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = ((x - mean) / scale).astype(np.float32)
    dims = [x.shape[1]] + ([hidden] if hidden else []) + [n_classes]
    params = []
    for a, b in zip(dims[:-1], dims[1:]):
        params += [rng.normal(0, math.sqrt(2 / a), (a, b)).astype(np.float32),
                   np.zeros(b, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    onehot = np.eye(n_classes, dtype=np.float32)
    for epoch in range(epochs):
        order = rng.permutation(len(xs))
        rate = lr * 0.5 * (1 + math.cos(math.pi * epoch / epochs))   # cosine decay
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            xb, yb = xs[idx], onehot[y[idx]]
            acts = [xb]
            h = xb
            for i in range(0, len(params), 2):
                h = h @ params[i] + params[i + 1]
                if i < len(params) - 2:
                    h = np.maximum(h, 0)
                acts.append(h)
            z = acts[-1] - acts[-1].max(axis=1, keepdims=True)
            prob = np.exp(z)
            prob /= prob.sum(axis=1, keepdims=True)
            grad = (prob - yb) / len(idx)
            grads = [None] * len(params)
            for i in range(len(params) - 2, -1, -2):
                grads[i] = acts[i // 2].T @ grad + l2 * params[i]
                grads[i + 1] = grad.sum(axis=0)
                if i > 0:
                    grad = (grad @ params[i].T) * (acts[i // 2] > 0)
            step += 1
            for j, (p, g) in enumerate(zip(params, grads)):
                m[j] = 0.9 * m[j] + 0.1 * g
                v[j] = 0.999 * v[j] + 0.001 * g * g
                mh = m[j] / (1 - 0.9 ** step)
                vh = v[j] / (1 - 0.999 ** step)
                p -= rate * mh / (np.sqrt(vh) + 1e-8)
        if log:
            log(f"epoch {epoch + 1}/{epochs}")
    layers = [(params[i], params[i + 1]) for i in range(0, len(params), 2)]
    return GlyphModel(mean.astype(np.float32), scale.astype(np.float32), layers,
                      {"hidden": hidden, "epochs": epochs, "seed": seed})


# ------------------------------------------------------------ one set's own glyphs

SET_TEMPERATURE = 0.05   # cosine-similarity scale of the prototype vote
SET_WEIGHT = 1.0         # exponent of the prototype vote against the model's probabilities


@dataclass
class GlyphSamples:
    """Glyphs cut from one set's tiles, with their classes: the raw material of
    :class:`SetGlyphs`, kept beside the set's board profile (``NAME.glyphs.npz``) so that
    a retrained model or new features never invalidate it."""

    images: list[np.ndarray]   # (h_i, w_i) float soft-ink glyphs, 1 = ink
    heights: np.ndarray        # (N,) glyph height over the cell
    labels: np.ndarray         # (N,) class indices into CLASSES

    def save(self, path: Path) -> Path:
        """Write ``path`` (.npz) atomically."""
        path = Path(path)
        shapes = np.array([im.shape for im in self.images], np.int32).reshape(-1, 2)
        flat = (np.concatenate([im.ravel() for im in self.images]) if self.images
                else np.zeros(0))
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, shapes=shapes,
                                ink=(255 * np.clip(flat, 0, 1)).astype(np.uint8),
                                heights=np.asarray(self.heights, np.float32),
                                labels=np.asarray(self.labels, np.int64))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: Path) -> GlyphSamples:
        with np.load(path) as z:
            ends = np.cumsum([h * w for h, w in z["shapes"]])
            flat = z["ink"].astype(np.float32) / 255
            images = [chunk.reshape(h, w) for chunk, (h, w)
                      in zip(np.split(flat, ends[:-1]), z["shapes"])]
            return cls(images, z["heights"], z["labels"])


@dataclass
class SetGlyphs:
    """Glyph prototypes of one physical set (its tiles' own font), learned from its
    calibration photo: features as the model standardises them, unit length, and labels.

    :meth:`adapt` sharpens the generic model's probabilities with a vote of the nearest
    prototype of each class: the set's 6 looks like the set's 6, whatever other fonts do.
    """

    features: np.ndarray   # (M, D) float32, standardised and L2-normalised
    labels: np.ndarray     # (M,) int class indices

    @staticmethod
    def _embed(model: GlyphModel, features: np.ndarray) -> np.ndarray:
        z = (features - model.mean) / model.scale
        return z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-6)

    @classmethod
    def from_samples(cls, model: GlyphModel, samples: GlyphSamples) -> SetGlyphs:
        features = glyph_features(samples.images, samples.heights)
        return cls(cls._embed(model, features).astype(np.float32),
                   np.asarray(samples.labels, np.int64))

    def likeness(self, model: GlyphModel, features: np.ndarray) -> float:
        """How much these glyphs (N, D) look like the set's: the median over them of the
        cosine similarity to their nearest prototype (the set's own tiles ~0.97, another
        face ~0.3-0.6). A board whose profile matched by colour may carry other tiles."""
        if len(features) == 0:
            return 0.0
        return float(np.median((self._embed(model, features) @ self.features.T).max(axis=1)))

    def adapt(self, model: GlyphModel, features: np.ndarray, probs: np.ndarray,
              classes: slice | None = None) -> np.ndarray:
        """Combine (N, K) model probabilities over ``classes`` with the prototype vote."""
        if len(features) == 0:
            return probs
        sims = self._embed(model, features) @ self.features.T          # (N, M)
        idx = np.arange(len(CLASSES))[classes if classes is not None else slice(None)]
        best = np.full((len(features), len(idx)), -1.0, np.float32)
        for j, k in enumerate(idx):
            mine = self.labels == k
            if mine.any():
                best[:, j] = sims[:, mine].max(axis=1)
        known = (best > -1).any(axis=0)
        vote = np.exp((best - best.max(axis=1, keepdims=True)) / SET_TEMPERATURE)
        vote[:, ~known] = vote[:, known].mean(axis=1, keepdims=True) if known.any() else 1
        out = probs * vote ** SET_WEIGHT
        return out / out.sum(axis=1, keepdims=True)


def load_set_glyphs(path: str | Path | None) -> SetGlyphs | None:
    """The glyph prototypes of a set from its samples file (a board profile's
    ``glyphs``), or None. Cached by the file's time of change: a set calibrated again
    while the program runs is read again."""
    if path is None or not Path(path).exists():
        return None
    return _set_glyphs(str(path), Path(path).stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _set_glyphs(path: str, mtime_ns: int) -> SetGlyphs:
    return SetGlyphs.from_samples(load_model(), GlyphSamples.load(Path(path)))


# ---------------------------------------------------------------------------- synthesis

EXTRA_TRAIN_FACES = (
    "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSerifCondensed.ttf",
    "DejaVuSerifCondensed-Bold.ttf", "LiberationSansNarrow-Regular.ttf",
    "LiberationSansNarrow-Bold.ttf", "NimbusSansNarrow-Regular.otf", "NimbusSansNarrow-Bold.otf",
    "texgyreheroscn-regular.otf", "texgyreheroscn-bold.otf", "OpenSans-Semibold.ttf",
    "OpenSans-ExtraBold.ttf", "OpenSans-CondBold.ttf", "Cantarell-ExtraBold.otf")
"""Other cuts (narrow, semibold, extra bold) of TRAIN families: more shapes to learn from,
none of them a held-out face in disguise (the split is by family)."""


def extra_train_faces() -> list[Path]:
    """The installed :data:`EXTRA_TRAIN_FACES`."""
    from calibration.fonts import FONT_DIRS
    found = {p.name: p for root in FONT_DIRS if root.is_dir() for p in sorted(root.rglob("*"))
             if p.name in EXTRA_TRAIN_FACES}
    return [found[name] for name in EXTRA_TRAIN_FACES if name in found]


MARKS = ("underline", "dot")
"""The marks real sets put under / after 6 and 9 (and, in some sets, 18 and 81)."""
MARKED = frozenset({"6", "9", "18", "81", "66", "69", "96", "99"})
"""Texts a set may mark: those that read as another number turned upside down."""
SIGN_GLYPHS = {"+": "+", "-": "\u2212", "x": "\u00d7", "/": "\u00f7"}
"""The characters tokens print their signs with (+ − × ÷) when drawn from a font."""


@dataclass(frozen=True)
class SynthConfig:
    """Ranges of the synthetic tiles the classifier trains and is evaluated on: at least
    those of BOARDS.md and of the renders (samples.render, calibration.artwork), a little
    wider where real sets vary more (spacing, weight, width of the face)."""

    px: int = 64                            # rectified cell side
    hires: int = 2                          # drawn at hires * px, then degraded
    tile_frac: tuple[float, float] = (0.78, 0.96)
    numeral_frac: tuple[float, float] = (0.34, 0.58)  # height of a "0", of the tile
    max_width: tuple[float, float] = (0.70, 0.88)  # a numeral is shrunk to fit this share
    natural_p: float = 0.5                  # two digits set with the font's own spacing;
    gap: tuple[float, float] = (-0.03, 0.22)  # ... else this far apart, of digit height
    offset: float = 0.10                    # of a cell, each axis
    rotation_deg: float = 10.0
    stretch: tuple[float, float] = (0.85, 1.15)  # width of the face (condensed .. extended)
    slant: tuple[float, float] = (-0.08, 0.08)  # shear of the numerals, x per y
    weight: tuple[int, int] = (-1, 3)       # hires px of erosion (<0) or extra stroke (>0)
    font_sign_p: float = 0.6                # signs in the font's + − × ÷, else drawn shapes
    sign_scale: tuple[float, float] = (0.9, 1.4)  # font signs: size of a digit's font, times
    star_radius: tuple[float, float] = (0.15, 0.34)  # joker star, of the tile
    mark_p: float = 0.7                     # MARKED texts carry an underline or dot this often
    mark_any_p: float = 0.05                # ... other numbers too (a mark must never read)
    source_px: tuple[float, float] = (24.0, 120.0)  # shorter cell side in the photo, log-uniform
    small_p: float = 0.4                    # ... or, this often, uniform in
    small_px: tuple[float, float] = (24.0, 40.0)   # (the hard end gets more examples)
    squeeze: tuple[float, float] = (0.6, 1.0)  # foreshortening: the other side is longer
    alias_p: float = 0.3                    # shrunk without area averaging (a warped texture)
    blur: tuple[float, float] = (0.0, 1.6)  # Gaussian sigma in photo px (the lens: before light)
    noise: tuple[float, float] = (0.0, 6.0)  # sensor noise sigma, 8-bit levels
    jpeg: tuple[int, int] = (60, 95)
    brightness: tuple[float, float] = (0.5, 1.5)  # log-uniform; bright light clips the face
    cast: float = 0.18                      # white balance: per-channel gain spread
    ramp: float = 0.2                       # light gradient across the cell
    glare_p: float = 0.3                    # a specular glare this often ...
    glare: tuple[float, float] = (0.15, 0.8)  # ... adding this share of white at its centre


def _light_colour(rng, l_range=(0.72, 1.0), chroma=0.10):
    """A light, low-chroma RGB colour (tile faces: white, ivory, cream, pale wood)."""
    base = rng.uniform(*l_range)
    hue = rng.uniform(0, 2 * np.pi)
    c = rng.uniform(0, chroma)
    warm = np.array([1.0, 0.9, 0.7]) if rng.random() < 0.6 else np.array([1.0, 1.0, 1.0])
    rgb = base * (warm * (1 - c) + c * (0.5 + 0.5 * np.array(
        [np.cos(hue), np.cos(hue - 2.1), np.cos(hue + 2.1)])))
    return tuple(int(v) for v in np.clip(rgb * 255, 0, 255))


def _ink_colour(rng):
    """A dark RGB ink: near-black grey, or a dark navy, brown, green or red."""
    if rng.random() < 0.6:
        level = rng.integers(0, 70)
        return tuple(int(np.clip(level + v, 0, 255)) for v in rng.integers(-12, 13, 3))
    hue = rng.uniform(0, 2 * np.pi)
    chroma = rng.uniform(15, 55)
    level = rng.uniform(20, 60)
    rgb = level + chroma * np.array([np.cos(hue), np.cos(hue - 2.1), np.cos(hue + 2.1)])
    return tuple(int(v) for v in np.clip(rgb, 0, 255))


def _square_colour(rng):
    """The board square under a tile: light plain or a saturated special square."""
    if rng.random() < 0.5:
        return _light_colour(rng, (0.75, 1.0), 0.25)
    return tuple(int(v) for v in rng.integers(20, 256, 3))


@lru_cache(maxsize=256)
def _font(path: str, size: int):
    from PIL import ImageFont
    return ImageFont.truetype(path, size)


def _font_size(font_path: str, digit_h: float) -> int:
    """The font size whose "0" is ``digit_h`` px of ink high."""
    x0, y0, x1, y1 = _font(font_path, 200).getbbox("0")
    return max(6, int(round(200 * digit_h / max(1, y1 - y0))))


def _draw_digits(draw, text, font_path, digit_h, centre, gap):
    """Draw ``text`` near ``centre`` with a "0" ``digit_h`` high: with the font's own
    spacing (``gap`` None) or each digit placed by its own box ``gap`` digit heights apart
    (touching when negative). The caller centres the ink afterwards."""
    font = _font(font_path, _font_size(font_path, digit_h))
    zero = font.getbbox("0")
    top = centre[1] - (zero[3] - zero[1]) / 2 - zero[1]
    if gap is None:
        x0, _, x1, _ = font.getbbox(text)
        draw.text((centre[0] - (x0 + x1) / 2, top), text, font=font, fill=255)
        return
    boxes = [font.getbbox(ch) for ch in text]
    widths = [b[2] - b[0] for b in boxes]
    x = centre[0] - (sum(widths) + gap * digit_h * (len(text) - 1)) / 2
    for ch, b, w in zip(text, boxes, widths):
        draw.text((x - b[0], top), ch, font=font, fill=255)
        x += w + gap * digit_h


def _draw_sign(draw, sign, centre, size, width):
    """+ - x / (÷) drawn as shapes, ``size`` across and ``width`` thick."""
    cx, cy = centre
    h = size / 2
    if sign in "+x":
        pts = [((cx - h, cy), (cx + h, cy)), ((cx, cy - h), (cx, cy + h))]
        if sign == "x":
            a = h * 0.8
            pts = [((cx - a, cy - a), (cx + a, cy + a)), ((cx - a, cy + a), (cx + a, cy - a))]
        for p in pts:
            draw.line(p, fill=255, width=width)
    elif sign == "-":
        draw.line(((cx - h, cy), (cx + h, cy)), fill=255, width=width)
    elif sign == "/":
        draw.line(((cx - h, cy), (cx + h, cy)), fill=255, width=width)
        r = width * 0.8
        for dy in (-h * 0.65, h * 0.65):
            draw.ellipse((cx - r, cy + dy - r, cx + r, cy + dy + r), fill=255)


def _star(centre, radius, inner, turn):
    """The joker's five-pointed star: (10, 2) polygon points."""
    k = np.arange(10)
    r = np.where(k % 2 == 0, radius, radius * inner)
    a = -np.pi / 2 + turn + k * np.pi / 5
    return [(centre[0] + rr * np.cos(aa), centre[1] + rr * np.sin(aa)) for rr, aa in zip(r, a)]


def _ink_mask(text, font_path, rng, cfg: SynthConfig, side, tf, mark):
    """(side, side) float32 ink coverage 0..1 of a tile's print, centred on the canvas:
    the numeral (or sign, or star) and its mark, in a tile of ``tf`` px."""
    from PIL import Image, ImageDraw
    img = Image.new("L", (side, side), 0)
    d = ImageDraw.Draw(img)
    c = side / 2
    digit_h = rng.uniform(*cfg.numeral_frac) * tf
    is_number = text.isdigit()
    if is_number:
        gap = None if len(text) == 1 or rng.random() < cfg.natural_p else rng.uniform(*cfg.gap)
        _draw_digits(d, text, font_path, digit_h, (c, c), gap)
    elif text == "?":
        d.polygon(_star((c, c), rng.uniform(*cfg.star_radius) * tf, rng.uniform(0.38, 0.5),
                        rng.uniform(-0.1, 0.1)), fill=255)
    elif rng.random() < cfg.font_sign_p:
        size = _font_size(font_path, digit_h) * rng.uniform(*cfg.sign_scale)
        font = _font(font_path, max(6, int(size)))
        x0, y0, x1, y1 = font.getbbox(SIGN_GLYPHS[text])
        d.text((c - (x0 + x1) / 2, c - (y0 + y1) / 2), SIGN_GLYPHS[text], font=font, fill=255)
    else:
        size = digit_h * rng.uniform(0.7, 1.0)
        _draw_sign(d, text, (c, c), size, max(2, int(size * rng.uniform(0.12, 0.22))))
    mask = np.asarray(img, np.float32) / 255
    # centre the ink, change the face's width and slant, and fit the tile's width
    ys, xs = np.nonzero(mask > 0.5)
    if len(xs) == 0:
        return mask
    cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
    sx = rng.uniform(*cfg.stretch) if text != "?" else 1.0
    shear = rng.uniform(*cfg.slant) if is_number else 0.0
    w, h = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    width = sx * w + abs(shear) * h
    fit = min(1.0, rng.uniform(*cfg.max_width) * tf / width) if is_number else 1.0
    m = np.float32([[fit * sx, fit * shear, 0], [0, fit, 0]])
    m[:, 2] = np.float32([c, c]) - m[:, :2] @ np.float32([cx, cy])
    mask = cv2.warpAffine(mask, m, (side, side), flags=cv2.INTER_LINEAR)
    weight = int(rng.integers(cfg.weight[0], cfg.weight[1] + 1))
    if weight:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(weight) + 1,) * 2)
        mask = (cv2.dilate if weight > 0 else cv2.erode)(mask, kernel)
    if mark and is_number:
        ys, xs = np.nonzero(mask > 0.5)
        x0, x1, y1 = xs.min(), xs.max() + 1, ys.max() + 1
        digit_h *= fit
        t = digit_h * rng.uniform(0.08, 0.16)
        if mark == "underline":
            inset = rng.uniform(0, 0.12) * (x1 - x0)
            y = y1 + digit_h * rng.uniform(0.08, 0.22)
            cv2.rectangle(mask, (int(x0 + inset), int(y)), (int(x1 - inset), int(y + t)), 1.0,
                          -1)
        else:
            x = x1 + digit_h * rng.uniform(0.06, 0.2) + t / 2
            cv2.circle(mask, (int(x), int(y1 - t / 2)), max(1, int(t / 2)), 1.0, -1)
    return mask


def synth_cell(text: str, font_path: str, rng: np.random.Generator,
               cfg: SynthConfig = SynthConfig(), mark: str | None = None) -> np.ndarray:
    """A rectified cell (px, px, 3) BGR holding a tile with ``text`` on it, photographed.

    ``text``: digits ("7", "42"), one sign of "+-x/" or the joker star "?"; ``mark``:
    "underline" / "dot" drawn under / after the number (the 6/9 mark; never a glyph)."""
    from PIL import Image, ImageDraw
    px, hr = cfg.px, cfg.hires
    side = px * hr
    big = side * 3 // 2                  # canvas: the cell in the middle, room to rotate
    bg = Image.new("RGB", (big, big), _square_colour(rng))
    d = ImageDraw.Draw(bg)
    line = tuple(int(v) for v in rng.integers(0, 120, 3))
    lw = int(rng.integers(0, int(0.08 * side) + 1))
    m0 = (big - side) // 2
    if lw:
        for k in (m0, m0 + side):
            d.rectangle((k - lw // 2, 0, k + (lw + 1) // 2, big), fill=line)
            d.rectangle((0, k - lw // 2, big, k + (lw + 1) // 2), fill=line)
    # the tile, drawn upright on its own layer, then turned and shifted
    tile = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    t = ImageDraw.Draw(tile)
    tf = rng.uniform(*cfg.tile_frac) * side
    c = big / 2
    face = _light_colour(rng)
    rim = tuple(int(v * rng.uniform(0.7, 0.95)) for v in face)
    radius = rng.uniform(0, 0.15) * tf
    t.rounded_rectangle((c - tf / 2, c - tf / 2, c + tf / 2, c + tf / 2), radius=radius,
                        fill=rim + (255,))
    e = rng.uniform(0.0, 0.06) * tf
    t.rounded_rectangle((c - tf / 2 + e, c - tf / 2 + e, c + tf / 2 - e, c + tf / 2 - e),
                        radius=max(0, radius - e), fill=face + (255,))
    arr = np.array(tile).astype(np.float32)
    ink = _ink_mask(text, font_path, rng, cfg, big, tf, mark)[..., None]
    arr[..., :3] = arr[..., :3] * (1 - ink) + np.float32(_ink_colour(rng)) * ink
    angle = rng.uniform(-cfg.rotation_deg, cfg.rotation_deg)
    dx, dy = rng.uniform(-cfg.offset, cfg.offset, 2) * side
    m = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    m[:, 2] += (dx, dy)
    arr = cv2.warpAffine(arr, m, (big, big), flags=cv2.INTER_LINEAR)
    base = np.array(bg).astype(np.float32)
    alpha = arr[..., 3:] / 255
    shadow = rng.uniform(0, 0.4)
    if shadow > 0.05:
        sa = cv2.GaussianBlur(alpha, (0, 0), 0.03 * side)
        sa = np.roll(sa, (int(0.03 * side), int(0.03 * side)), axis=(0, 1))[..., None]
        base *= 1 - shadow * sa
    img = base * (1 - alpha) + arr[..., :3] * alpha
    img = img[m0:m0 + side, m0:m0 + side]
    return _photograph(img[..., ::-1], rng, cfg)


def _photograph(bgr: np.ndarray, rng, cfg: SynthConfig) -> np.ndarray:
    """Resample a float BGR cell to the photo's resolution (with foreshortening), blur it
    (the lens), light it (white balance, exposure that may clip, a gradient, a glare), add
    noise and JPEG, and scale back to the rectified size: what rectify_grid gives for a
    cell of that photo."""
    if rng.random() < cfg.small_p:
        s = rng.uniform(*cfg.small_px)
    else:
        s = math.exp(rng.uniform(math.log(cfg.source_px[0]), math.log(cfg.source_px[1])))
    longer = s / rng.uniform(*cfg.squeeze)
    sx, sy = (s, longer) if rng.random() < 0.5 else (longer, s)
    interp = cv2.INTER_LINEAR if rng.random() < cfg.alias_p else cv2.INTER_AREA
    small = cv2.resize(bgr.astype(np.float32), (round(sx), round(sy)), interpolation=interp)
    sigma = rng.uniform(*cfg.blur)
    if sigma > 0.2:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    h, w = small.shape[:2]
    gains = np.exp(rng.uniform(math.log(cfg.brightness[0]), math.log(cfg.brightness[1])))
    gains = gains * (1 + rng.uniform(-cfg.cast, cfg.cast, 3))
    a = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[-1:1:h * 1j, -1:1:w * 1j]
    light = 1 + rng.uniform(0, cfg.ramp) * (xx * np.cos(a) + yy * np.sin(a)) / 1.42
    small = small * gains * light[..., None]
    if rng.random() < cfg.glare_p:
        gx, gy = rng.uniform(-1, 1, 2)
        r = rng.uniform(0.3, 1.5)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (r * r))
        small = small + 255 * rng.uniform(*cfg.glare) * spot[..., None]
    small = small + rng.normal(0, rng.uniform(*cfg.noise), small.shape)
    small = np.clip(small, 0, 255).astype(np.uint8)
    q = int(rng.integers(cfg.jpeg[0], cfg.jpeg[1] + 1))
    ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, q])
    small = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return cv2.resize(small, (cfg.px, cfg.px), interpolation=cv2.INTER_LINEAR)


# ----------------------------------------------------------------------------- datasets

def _mixmath_values() -> list[int]:
    products = {a * b for a in range(1, 11) for b in range(1, 11)}
    return sorted(set(range(21)) | {n for n in products if n <= 90})


def random_text(rng: np.random.Generator, kind: str) -> str:
    """A tile text: "mixmath" (a tile-set value, or any 0..99 for digit coverage) or
    "token" (a digit, a sign, or the joker star)."""
    if kind == "mixmath":
        if rng.random() < 0.5:
            vals = _mixmath_values()
            return str(vals[int(rng.integers(len(vals)))])
        return str(int(rng.integers(0, 100)))
    r = rng.random()
    if r < 0.6:
        return str(int(rng.integers(10)))
    return "+-x/?"[int(rng.integers(5))]


def _keep_labelled(found, texts: dict, px: int, cand, feats, labels, records, images) -> None:
    """Keep the glyphs of each cut tile whose glyph count matches its text (labelled by it).

    ``found``: CellGlyphs of the tiles; ``texts``: (row, col) -> text; ``cand``: (rows, cols)
    bool, the tile test's answer; records receive (text, glyph count, detected)."""
    for cg in found:
        text = texts[cg.cell]
        glyphs = cg.glyphs
        records.append((text, len(glyphs), bool(cand[cg.cell])))
        if len(glyphs) == len(text):
            feats.append(glyph_features([g.image for g in glyphs],
                                        [g.box[3] / px for g in glyphs]))
            if images is not None:
                images += [(g.image, g.box[3] / px) for g in glyphs]
            labels += [CLASSES.index(ch) for ch in text]


def _dataset(feats, labels, records):
    x = np.concatenate(feats) if feats else np.zeros((0, N_FEATURES), np.float32)
    return x, np.array(labels, np.int64), records


def synth_glyphs(fonts: list[str], n_cells: int, seed: int, cfg: SynthConfig = SynthConfig(),
                 grid: int = 8, images: list | None = None):
    """Render ``n_cells`` synthetic tiles, cut them with :func:`vision.tiles.ink_glyphs`, and
    return (features (N, D), labels (N,), per-tile records) — only tiles whose glyph count
    matches their text give glyphs; records hold (text, read glyph count, detected).
    ``images``: a list that receives each glyph's (image, height) too."""
    from . import tiles
    rng = np.random.default_rng(seed)
    feats, labels, records = [], [], []
    per = grid * grid
    for start in range(0, n_cells, per):
        n = min(per, n_cells - start)
        texts, imgs = {}, []
        kind = "mixmath" if rng.random() < 0.7 else "token"
        for i in range(n):
            text = random_text(rng, kind)
            p_mark = cfg.mark_p if text in MARKED else cfg.mark_any_p
            mark = MARKS[int(rng.integers(2))] if rng.random() < p_mark else None
            font = fonts[int(rng.integers(len(fonts)))]
            imgs.append(synth_cell(text, font, rng, cfg, mark))
            texts[divmod(i, grid)] = text
        blank = np.zeros((cfg.px, cfg.px, 3), np.uint8) + 200
        imgs += [blank] * (per - n)
        board = np.vstack([np.hstack(imgs[r * grid:(r + 1) * grid]) for r in range(grid)])
        stats = tiles.cell_stats(board, grid, grid)
        want = np.zeros((grid, grid), bool)
        want.flat[:n] = True
        found = tiles.ink_glyphs(board, grid, grid, stats, want, split_pairs=kind == "mixmath")
        _keep_labelled(found, texts, cfg.px, tiles.tile_candidates(stats), feats, labels,
                       records, images)
    return _dataset(feats, labels, records)


RENDER_TRAIN_SEED = 900_000
"""Seed of the rendered training photos: far from the development (555_000) and
benchmark seeds."""


def rendered_tiles(n_photos: int, seed: int, fonts: str, px: int = 64,
                   games: tuple[str, ...] | None = None):
    """Tiles of whole rendered photos (:mod:`samples.render`, no hand): ``n_photos`` of each
    game (``games``, default both) and tier, the full range of camera, light and (tier 2)
    set looks with numerals in ``fonts`` faces; each photo rectified from its true grid
    corners and cut by :func:`vision.tiles.ink_glyphs`. Yields (game, tier, CellGlyphs of
    the tiles, {(row, col): text}, the tile test's (rows, cols) bool answer) per photo."""
    from samples.render import photo_seed, sample_photo

    from . import board, tiles
    for salt, game in enumerate(tiles.GAMES):
        if games is not None and game not in games:
            continue
        for tier in (1, 2):
            for i in range(n_photos):
                image, truth, _ = sample_photo(game, tier, photo_seed(
                    seed + 1000 * salt + 10 * tier, i), hand=False, fonts=fonts)
                rows, cols = truth["rows"], truth["cols"]
                loc = board.BoardLocation.from_grid_corners(game, truth["grid_corners"])
                grid = board.rectify_grid(image, loc, px)
                texts = {(r, c): str(v) for r, row in enumerate(truth["cells"])
                         for c, v in enumerate(row) if v is not None}
                want = np.zeros((rows, cols), bool)
                for cell in texts:
                    want[cell] = True
                stats = tiles.cell_stats(grid, rows, cols)
                found = tiles.ink_glyphs(grid, rows, cols, stats, want,
                                         split_pairs=game == "mixmath")
                yield game, tier, found, texts, tiles.tile_candidates(stats)


def render_glyphs(n_photos: int, seed: int = RENDER_TRAIN_SEED, fonts: str = "train",
                  px: int = 64, images: list | None = None):
    """The labelled glyphs of :func:`rendered_tiles`; returns what :func:`synth_glyphs`
    does."""
    feats, labels, records = [], [], []
    for _, _, found, texts, cand in rendered_tiles(n_photos, seed, fonts, px):
        _keep_labelled(found, texts, px, cand, feats, labels, records, images)
    return _dataset(feats, labels, records)


def train(seed: int = 0, n_cells: int = 200000, n_photos: int = 600, hidden: int = 256,
          epochs: int = 30, log=print) -> GlyphModel:
    """Train the glyph model on the TRAIN fonts (seeded, reproducible): ``n_cells``
    synthetic tiles (:func:`synth_glyphs`, the train faces and other cuts of their families)
    and ``n_photos`` rendered photos of each game and tier (:func:`render_glyphs`)."""
    from calibration.fonts import font_split
    train_fonts = font_split()[0] + extra_train_faces()
    t0 = time.perf_counter()
    x1, y1, _ = synth_glyphs([str(f) for f in train_fonts], n_cells, seed)
    if log:
        log(f"{len(y1)} glyphs from {n_cells} synthetic tiles in {time.perf_counter() - t0:.0f} s")
    t0 = time.perf_counter()
    x2, y2, _ = render_glyphs(n_photos, RENDER_TRAIN_SEED + seed)
    if log:
        log(f"{len(y2)} glyphs from {4 * n_photos} rendered photos in "
            f"{time.perf_counter() - t0:.0f} s")
    model = fit(np.concatenate([x1, x2]), np.concatenate([y1, y2]), hidden=hidden,
                epochs=epochs, seed=seed, log=log)
    model.meta.update({"n_cells": n_cells, "n_photos": n_photos,
                       "train_fonts": [f.name for f in train_fonts]})
    return model


def evaluate(model: GlyphModel, fonts: list[str], n_cells: int = 4000, seed: int = 10_001):
    """Per-glyph accuracy (digits scored over the digit classes) on synthetic tiles in
    ``fonts``, the share of tiles cut into the right number of glyphs, and the detection
    rate."""
    x, y, rec = synth_glyphs(fonts, n_cells, seed)
    is_digit = y < 10
    pd = model.predict_proba(x[is_digit], DIGIT_CLASSES).argmax(axis=1)
    pa = model.predict_proba(x[~is_digit]).argmax(axis=1)
    return {"digit_acc": float((pd == y[is_digit]).mean()),
            "sign_acc": float((pa == y[~is_digit]).mean()) if (~is_digit).any() else None,
            "n_digits": int(is_digit.sum()),
            "segmented": sum(1 for t, k, _ in rec if k == len(t)) / max(1, len(rec)),
            "detected": sum(1 for r in rec if r[2]) / max(1, len(rec))}


RENDER_EVAL_SEED = 560_000
"""Development seed of the rendered photos :func:`evaluate_renders` reads (apart from
bench.cells' 555_000 and from the training renders)."""
SURE = 0.9
"""A reading at least this confident is taken as it is (the reader's ``unsure_below``)."""


def evaluate_renders(model: GlyphModel, n_photos: int = 50, seed: int = RENDER_EVAL_SEED,
                     fonts: str = "held_out", games: tuple[str, ...] | None = None,
                     config=None, tile_only: bool = False) -> dict:
    """Tile readings on rendered photos (:func:`rendered_tiles`, tier 2 in ``fonts``), by
    game and tier: tiles, misread (any wrong value, also when cut into the wrong number of
    glyphs) and sure-misread (wrong with confidence >= :data:`SURE`) shares in %, and the
    share of right readings below SURE (sent to the fallback).

    The glyph classifier alone on the plain cut, or, with ``config`` (a
    :class:`vision.tiles.TilesConfig`), the reader's own decoding
    (:func:`vision.tiles.read_numbers`: other cuts of doubtful cells and, on Mixmath, the
    whole-tile model); ``tile_only``: the tile model alone (Mixmath)."""
    from . import tiles, tilemodel
    out: dict = {}
    for game, tier, found, texts, _ in rendered_tiles(n_photos, seed, fonts, games=games):
        found = [cg for cg in found if cg.glyphs]
        mixmath = game == "mixmath"
        if tile_only:
            if not mixmath:
                continue
            probs = tilemodel.tile_probs(tilemodel.load_tile_model(),
                                         tilemodel.cell_features(found, 64))
            reads = [(tilemodel.TILE_VALUES[int(np.argmax(pr))], float(pr.max()))
                     for pr in probs]
        elif config is not None:
            best = tiles.read_numbers(found, 64, game, config)
            reads = [best[cg.cell][:2] for cg in found]
        else:
            glyphs = [g for cg in found for g in cg.glyphs]
            feats = glyph_features([g.image for g in glyphs], [g.box[3] / 64 for g in glyphs])
            probs = model.predict_proba(feats, DIGIT_CLASSES if mixmath else None)
            parts = np.split(probs, np.cumsum([len(cg.glyphs) for cg in found])[:-1])
            reads = [(tiles.decode_mixmath(p, cg.seg_ok) if mixmath
                      else tiles.decode_token(p, cg.seg_ok))[:2] for cg, p in zip(found, parts)]
        tally = out.setdefault(f"{game} tier {tier}", {"tiles": 0, "misread": 0, "sure": 0,
                                                       "unsure right": 0})
        for cg, (value, q) in zip(found, reads):
            right = str(value) == texts[cg.cell]
            tally["tiles"] += 1
            tally["misread"] += not right
            tally["sure"] += (not right) and q >= SURE
            tally["unsure right"] += right and q < SURE
    return {key: {"tiles": t["tiles"],
                  "misread %": round(100 * t["misread"] / max(1, t["tiles"]), 3),
                  "sure misread %": round(100 * t["sure"] / max(1, t["tiles"]), 3),
                  "unsure right %": round(100 * t["unsure right"] / max(1, t["tiles"]), 2)}
            for key, t in out.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.digits", description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="rebuild vision/models/glyphs.npz")
    ap.add_argument("--eval", action="store_true", help="accuracy on held-out fonts")
    ap.add_argument("--cells", type=int, default=200000)
    ap.add_argument("--photos", type=int, default=600)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.train:
        model = train(args.seed, args.cells, args.photos, args.hidden, args.epochs)
        model.save(MODEL_PATH)
        print(f"saved {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KB)")
    if args.eval:
        from calibration.fonts import font_split
        _, held_out = font_split()
        model = GlyphModel.load(MODEL_PATH)
        print("synthetic tiles:", json.dumps(evaluate(model, [str(f) for f in held_out]),
                                             indent=1))
        print("rendered photos:", json.dumps(evaluate_renders(model), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
