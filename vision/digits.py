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
the reader uses, :func:`vision.tiles.ink_glyphs` — from synthetic tiles rendered with many
fonts (:func:`synth_cell`: the TRAIN faces of :func:`calibration.fonts.font_split`, tile
and ink colours, size, offset, rotation, stroke weight, perspective squeeze, resolution,
blur, noise, JPEG). The trained weights ship in ``vision/models/glyphs.npz``; rebuild them
(seeded, reproducible) with::

    python -m vision.digits --train          # ~ 10 minutes on one core
    python -m vision.digits --eval           # accuracy on HELD-OUT fonts

A physical set's own font is learned from its calibration photo of the tile set (laid out
in ascending order): :class:`SetGlyphs` prototypes in ``vision/models/set-PROFILE.npz``
sharpen the model on that set (the shipped Mathable one comes from
``../shared/real/mathable/tile-set.jpg``)::

    python -m vision.digits --learn-set mathable ../shared/real/mathable/tile-set.jpg

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
    gp = np.pad(g, ((0, 0), (1, 1), (1, 1)))
    gx = gp[:, 1:-1, 2:] - gp[:, 1:-1, :-2]
    gy = gp[:, 2:, 1:-1] - gp[:, :-2, 1:-1]
    mag = np.hypot(gx, gy).reshape(n, -1)
    ang = (np.arctan2(gy, gx).reshape(n, -1) / (2 * np.pi)) % 1.0 * HOG_BINS
    b0 = np.floor(ang).astype(np.int64) % HOG_BINS
    w1 = ang - np.floor(ang)
    b1 = (b0 + 1) % HOG_BINS
    npix = GLYPH_PX * GLYPH_PX
    orient = np.zeros((n, HOG_BINS, npix), np.float32)
    ni = np.arange(n)[:, None]
    pi = np.arange(npix)[None, :]
    orient[ni, b0, pi] += mag * (1 - w1)
    orient[ni, b1, pi] += mag * w1
    k = GLYPH_PX // HOG_CELLS
    hog = orient.reshape(n, HOG_BINS, HOG_CELLS, k, HOG_CELLS, k).sum(axis=(3, 5))
    hog = np.sqrt(hog.reshape(n, -1))
    hog /= np.linalg.norm(hog, axis=1, keepdims=True) + 1e-6
    q = GLYPH_PX // POOL_PX
    pooled = g.reshape(n, POOL_PX, q, POOL_PX, q).mean(axis=(2, 4)).reshape(n, -1)
    total = g.sum(axis=(1, 2))[:, None] + 1e-6
    proj = np.concatenate([g.sum(axis=2), g.sum(axis=1)], axis=1) / total
    # outline profiles: how deep the ink starts from each side, per row / column (the
    # open left side of a 3, the hook of a 6, the flag of a 1)
    ink = g > 0.5
    rows_in, cols_in = ink.any(axis=2), ink.any(axis=1)
    side = float(GLYPH_PX)
    profiles = [np.where(rows_in, ink.argmax(axis=2), side),
                np.where(rows_in, ink[:, :, ::-1].argmax(axis=2), side),
                np.where(cols_in, ink.argmax(axis=1), side),
                np.where(cols_in, ink[:, ::-1, :].argmax(axis=1), side)]
    outline = np.concatenate(profiles, axis=1) / side
    shapes = np.array([im.shape for im in images], np.float32)
    aspect = np.log((shapes[:, 1] + 1) / (shapes[:, 0] + 1))
    hts = np.full(n, 0.4, np.float32) if heights is None else np.asarray(heights, np.float32)
    aux = np.stack([aspect, hts, g.mean(axis=(1, 2))], axis=1)
    return np.concatenate([hog, pooled, proj, outline, aux], axis=1).astype(np.float32)


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
            arrays[f"w{i}"] = w.astype(np.float32)
            arrays[f"b{i}"] = b.astype(np.float32)
        np.savez_compressed(path, meta=np.array(json.dumps(self.meta)), **arrays)

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> GlyphModel:
        with np.load(path) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(n)]
            return cls(z["mean"], z["scale"], layers, json.loads(str(z["meta"])))


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
class SetGlyphs:
    """Glyph prototypes of one physical set (its tiles' own font), learned from its
    calibration photo: features as the model standardises them, unit length, and labels.

    :meth:`adapt` sharpens the generic model's probabilities with a vote of the nearest
    prototype of each class: the set's 6 looks like the set's 6, whatever other fonts do.
    """

    name: str
    features: np.ndarray   # (M, D) float32, standardised and L2-normalised
    labels: np.ndarray     # (M,) int class indices

    @staticmethod
    def _embed(model: GlyphModel, features: np.ndarray) -> np.ndarray:
        z = (features - model.mean) / model.scale
        return z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-6)

    @classmethod
    def from_glyphs(cls, name: str, model: GlyphModel, features: np.ndarray,
                    labels: np.ndarray) -> SetGlyphs:
        return cls(name, cls._embed(model, features).astype(np.float32),
                   np.asarray(labels, np.int64))

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

    def save(self, path: Path) -> None:
        np.savez_compressed(path, name=np.array(self.name),
                            features=self.features.astype(np.float16), labels=self.labels)

    @classmethod
    def load(cls, path: Path) -> SetGlyphs:
        with np.load(path) as z:
            return cls(str(z["name"]), z["features"].astype(np.float32), z["labels"])


def set_glyphs_path(name: str) -> Path:
    return MODEL_PATH.parent / f"set-{name}.npz"


@lru_cache(maxsize=8)
def load_set_glyphs(name: str | None) -> SetGlyphs | None:
    """The shipped glyph prototypes of the set profile ``name``, or None."""
    if not name:
        return None
    path = set_glyphs_path(name)
    return SetGlyphs.load(path) if path.exists() else None


# ---------------------------------------------------------------------------- synthesis

MARKS = ("underline", "dot", None)


@dataclass(frozen=True)
class SynthConfig:
    """Ranges of the synthetic tiles the classifier trains and is evaluated on."""

    px: int = 64                            # rectified cell side
    hires: int = 2                          # drawn at hires * px, then degraded
    tile_frac: tuple[float, float] = (0.80, 0.95)
    numeral_frac: tuple[float, float] = (0.36, 0.55)
    offset: float = 0.10                    # of a cell, each axis
    rotation_deg: float = 10.0
    gap: tuple[float, float] = (-0.03, 0.22)  # space between two digits, of digit height
    stroke: tuple[int, int] = (-1, 3)       # hires px of erosion (<0) or extra stroke (>0)
    source_px: tuple[float, float] = (24.0, 120.0)  # cell side in the photo
    squeeze: tuple[float, float] = (0.6, 1.0)  # perspective foreshortening of one axis
    blur: tuple[float, float] = (0.0, 1.5)  # Gaussian sigma in photo px
    noise: tuple[float, float] = (0.0, 6.0)  # sensor noise sigma, 8-bit levels
    jpeg: tuple[int, int] = (60, 95)
    brightness: tuple[float, float] = (0.5, 1.5)
    mark_p: float = 0.7                     # 6/9 carry an underline or dot this often


def _light_colour(rng, l_range=(0.72, 1.0), chroma=0.10):
    """A light, low-chroma RGB colour (tile faces: white, ivory, cream, pale wood)."""
    base = rng.uniform(*l_range)
    hue = rng.uniform(0, 2 * np.pi)
    c = rng.uniform(0, chroma)
    warm = np.array([1.0, 0.9, 0.7]) if rng.random() < 0.6 else np.array([1.0, 1.0, 1.0])
    rgb = base * (warm * (1 - c) + c * (0.5 + 0.5 * np.array(
        [np.cos(hue), np.cos(hue - 2.1), np.cos(hue + 2.1)])))
    return tuple(int(v) for v in np.clip(rgb * 255, 0, 255))


def _square_colour(rng):
    """The board square under a tile: light plain or a saturated special square."""
    if rng.random() < 0.5:
        return _light_colour(rng, (0.75, 1.0), 0.25)
    return tuple(int(v) for v in rng.integers(20, 256, 3))


@lru_cache(maxsize=256)
def _font(path: str, size: int):
    from PIL import ImageFont
    return ImageFont.truetype(path, size)


def _draw_text(draw, text, font_path, digit_h, centre, gap, ink, stroke):
    """Draw ``text`` (digits / a sign) centred at ``centre`` with ink height ``digit_h``.

    Each character is placed by its own ink box so two digits sit ``gap`` (of the
    digit height) apart, touching when the gap is negative."""
    ref = _font(font_path, 200)
    x0, y0, x1, y1 = ref.getbbox("0")
    size = max(6, int(round(200 * digit_h / max(1, y1 - y0))))
    font = _font(font_path, size)
    boxes = [font.getbbox(ch) for ch in text]
    widths = [b[2] - b[0] for b in boxes]
    gap_px = gap * digit_h
    total = sum(widths) + gap_px * (len(text) - 1)
    x = centre[0] - total / 2
    zero = font.getbbox("0")
    top = centre[1] - (zero[3] - zero[1]) / 2 - zero[1]
    extents = []
    for ch, b, w in zip(text, boxes, widths):
        draw.text((x - b[0], top), ch, font=font, fill=ink,
                  stroke_width=max(0, stroke), stroke_fill=ink)
        extents.append((x, top + b[1], x + w, top + b[3]))
        x += w + gap_px
    return extents


def _draw_sign(draw, sign, centre, size, width, ink):
    """+ - x / (÷) and the joker star, drawn as shapes (fonts disagree on them)."""
    cx, cy = centre
    h = size / 2
    if sign in "+x":
        pts = [((cx - h, cy), (cx + h, cy)), ((cx, cy - h), (cx, cy + h))]
        if sign == "x":
            a = h * 0.8
            pts = [((cx - a, cy - a), (cx + a, cy + a)), ((cx - a, cy + a), (cx + a, cy - a))]
        for p in pts:
            draw.line(p, fill=ink, width=width)
    elif sign == "-":
        draw.line(((cx - h, cy), (cx + h, cy)), fill=ink, width=width)
    elif sign == "/":
        draw.line(((cx - h, cy), (cx + h, cy)), fill=ink, width=width)
        r = width * 0.8
        for dy in (-h * 0.65, h * 0.65):
            draw.ellipse((cx - r, cy + dy - r, cx + r, cy + dy + r), fill=ink)
    elif sign == "?":
        pts = []
        for k in range(10):
            rad = h if k % 2 == 0 else h * 0.45
            a = -np.pi / 2 + k * np.pi / 5
            pts.append((cx + rad * np.cos(a), cy + rad * np.sin(a)))
        draw.polygon(pts, fill=ink)


def synth_cell(text: str, font_path: str, rng: np.random.Generator,
               cfg: SynthConfig = SynthConfig(), mark: str | None = None) -> np.ndarray:
    """A rectified cell (px, px, 3) BGR holding a tile with ``text`` on it, photographed.

    ``text``: digits ("7", "42") or one sign of "+-x/?"; ``mark``: "underline" / "dot"
    drawn under / after the number (the 6/9 mark; never a glyph)."""
    from PIL import Image, ImageDraw
    px, hr = cfg.px, cfg.hires
    side = px * hr
    big = side * 3 // 2                  # canvas: the cell in the middle, room to rotate
    square = _square_colour(rng)
    bg = Image.new("RGB", (big, big), square)
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
    radius = rng.uniform(0, 0.12) * tf
    t.rounded_rectangle((c - tf / 2, c - tf / 2, c + tf / 2, c + tf / 2), radius=radius,
                        fill=rim + (255,))
    e = rng.uniform(0.0, 0.05) * tf
    t.rounded_rectangle((c - tf / 2 + e, c - tf / 2 + e, c + tf / 2 - e, c + tf / 2 - e),
                        radius=max(0, radius - e), fill=face + (255,))
    ink_l = int(rng.integers(0, 70))
    ink = tuple(int(np.clip(ink_l + v, 0, 255)) for v in rng.integers(-12, 13, 3)) + (255,)
    digit_h = rng.uniform(*cfg.numeral_frac) * tf
    stroke = int(rng.integers(cfg.stroke[0], cfg.stroke[1] + 1))
    if text.isdigit():
        gap = rng.uniform(*cfg.gap)
        ext = _draw_text(t, text, font_path, digit_h, (c, c), gap, ink, stroke)
        width = ext[-1][2] - ext[0][0]
        if width > 0.88 * tf:            # too wide for the tile: draw smaller
            tile = Image.new("RGBA", (big, big), (0, 0, 0, 0))
            t = ImageDraw.Draw(tile)
            t.rounded_rectangle((c - tf / 2, c - tf / 2, c + tf / 2, c + tf / 2),
                                radius=radius, fill=rim + (255,))
            t.rounded_rectangle((c - tf / 2 + e, c - tf / 2 + e, c + tf / 2 - e,
                                 c + tf / 2 - e), radius=max(0, radius - e), fill=face + (255,))
            digit_h *= 0.85 * tf / width
            ext = _draw_text(t, text, font_path, digit_h, (c, c), gap, ink, stroke)
        x0, y1, x1 = ext[0][0], max(b[3] for b in ext), ext[-1][2]
        sw = max(2.0, digit_h * rng.uniform(0.06, 0.12))
        if mark == "underline":
            y = y1 + digit_h * rng.uniform(0.10, 0.22)
            t.rectangle((x0 + 0.1 * (x1 - x0), y, x1 - 0.1 * (x1 - x0), y + sw), fill=ink)
        elif mark == "dot":
            r = sw * rng.uniform(0.6, 1.0)
            x = x1 + digit_h * rng.uniform(0.08, 0.2)
            t.ellipse((x - r, y1 - 2 * r, x + r, y1), fill=ink)
    else:
        size = digit_h * rng.uniform(0.7, 1.0)
        width = max(2, int(size * rng.uniform(0.12, 0.22)))
        _draw_sign(t, text, (c, c), size, width, ink)
    arr = np.array(tile)
    if stroke < 0:   # thinner strokes: erode the ink (dark) = dilate the face
        rgb = cv2.dilate(arr[..., :3], np.ones((1 - 2 * stroke, 1 - 2 * stroke), np.uint8))
        arr[..., :3] = np.where(arr[..., 3:] > 0, rgb, arr[..., :3])
    angle = rng.uniform(-cfg.rotation_deg, cfg.rotation_deg)
    dx, dy = rng.uniform(-cfg.offset, cfg.offset, 2) * side
    m = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    m[:, 2] += (dx, dy)
    arr = cv2.warpAffine(arr, m, (big, big), flags=cv2.INTER_LINEAR)
    base = np.array(bg).astype(np.float32)
    alpha = arr[..., 3:].astype(np.float32) / 255
    shadow = rng.uniform(0, 0.4)
    if shadow > 0.05:
        sa = cv2.GaussianBlur(alpha, (0, 0), 0.03 * side)
        sa = np.roll(sa, (int(0.03 * side), int(0.03 * side)), axis=(0, 1))[..., None]
        base *= 1 - shadow * sa
    img = base * (1 - alpha) + arr[..., :3].astype(np.float32) * alpha
    img = img[m0:m0 + side, m0:m0 + side]
    return _photograph(img[..., ::-1], rng, cfg)


def _photograph(rgb_float_as_bgr: np.ndarray, rng, cfg: SynthConfig) -> np.ndarray:
    """Light, resample to the photo's resolution (with foreshortening), blur, noise, JPEG,
    and back to the rectified size: what rectify_grid gives for a cell of that photo."""
    img = rgb_float_as_bgr
    wb = rng.uniform(0.85, 1.15, 3)
    img = img * wb * rng.uniform(*cfg.brightness)
    h, w = img.shape[:2]
    ramp = 1 + rng.uniform(-0.15, 0.15) * np.linspace(-1, 1, w)[None, :, None]
    img = np.clip(img * ramp, 0, 255)
    s = math.exp(rng.uniform(math.log(cfg.source_px[0]), math.log(cfg.source_px[1])))
    k = rng.uniform(*cfg.squeeze)
    sx, sy = (s * k, s) if rng.random() < 0.5 else (s, s * k)
    small = cv2.resize(img.astype(np.float32), (max(4, round(sx)), max(4, round(sy))),
                       interpolation=cv2.INTER_AREA)
    sigma = rng.uniform(*cfg.blur)
    if sigma > 0.2:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
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
        texts, imgs = [], []
        kind = "mixmath" if rng.random() < 0.7 else "token"
        for i in range(n):
            text = random_text(rng, kind)
            mark = None
            if any(ch in "69" for ch in text) and rng.random() < cfg.mark_p:
                mark = MARKS[int(rng.integers(2))]
            font = fonts[int(rng.integers(len(fonts)))]
            imgs.append(synth_cell(text, font, rng, cfg, mark))
            texts.append(text)
        blank = np.zeros((cfg.px, cfg.px, 3), np.uint8) + 200
        rows = []
        for r in range(grid):
            row = [imgs[r * grid + c] if r * grid + c < n else blank for c in range(grid)]
            rows.append(np.hstack(row))
        board = np.vstack(rows)
        stats = tiles.cell_stats(board, grid, grid)
        cand = tiles.tile_candidates(stats)
        want = np.zeros((grid, grid), bool)
        want.flat[:n] = True
        for cg in tiles.ink_glyphs(board, grid, grid, stats, want,
                                   split_pairs=kind == "mixmath"):
            i = cg.cell[0] * grid + cg.cell[1]
            text = texts[i]
            glyphs = cg.glyphs
            records.append((text, len(glyphs), bool(cand[cg.cell])))
            if len(glyphs) == len(text):
                feats.append(glyph_features([g.image for g in glyphs],
                                            [g.box[3] / cfg.px for g in glyphs]))
                if images is not None:
                    images += [(g.image, g.box[3] / cfg.px) for g in glyphs]
                labels += [CLASSES.index(ch) for ch in text]
    x = np.concatenate(feats) if feats else np.zeros((0, N_FEATURES), np.float32)
    return x, np.array(labels, np.int64), records


def train(seed: int = 0, n_cells: int = 40000, hidden: int = 128, epochs: int = 30,
          log=print) -> GlyphModel:
    """Train the glyph model on the TRAIN fonts (seeded, reproducible)."""
    from calibration.fonts import font_split
    train_fonts, _ = font_split()
    t0 = time.perf_counter()
    x, y, _ = synth_glyphs([str(f) for f in train_fonts], n_cells, seed)
    if log:
        log(f"{len(y)} glyphs from {n_cells} tiles in {time.perf_counter() - t0:.0f} s")
    model = fit(x, y, hidden=hidden, epochs=epochs, seed=seed, log=log)
    model.meta.update({"n_cells": n_cells, "train_fonts": [f.name for f in train_fonts]})
    return model


def evaluate(model: GlyphModel, fonts: list[str], n_cells: int = 4000, seed: int = 10_001):
    """Per-glyph accuracy (digits scored over the digit classes) on ``fonts``, the share of
    tiles cut into the right number of glyphs, and the detection rate."""
    x, y, rec = synth_glyphs(fonts, n_cells, seed)
    is_digit = y < 10
    pd = model.predict_proba(x[is_digit], DIGIT_CLASSES).argmax(axis=1)
    pa = model.predict_proba(x[~is_digit]).argmax(axis=1)
    return {"digit_acc": float((pd == y[is_digit]).mean()),
            "sign_acc": float((pa == y[~is_digit]).mean()) if (~is_digit).any() else None,
            "n_digits": int(is_digit.sum()),
            "segmented": sum(1 for t, k, _ in rec if k == len(t)) / max(1, len(rec)),
            "detected": sum(1 for r in rec if r[2]) / max(1, len(rec))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.digits", description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="rebuild vision/models/glyphs.npz")
    ap.add_argument("--eval", action="store_true", help="accuracy on held-out fonts")
    ap.add_argument("--cells", type=int, default=40000)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--learn-set", nargs=2, metavar=("PROFILE", "PHOTO"),
                    help="learn a set's own glyphs from a photo of its tile set laid out in "
                         "ascending order (writes vision/models/set-PROFILE.npz)")
    ap.add_argument("--game", default="mixmath")
    args = ap.parse_args(argv)
    if args.learn_set:
        import cv2 as _cv2
        from . import board, tiles
        name, photo = args.learn_set
        image = _cv2.imread(photo)
        if image is None:
            raise SystemExit(f"cannot read {photo}")
        grid = board.rectify_grid(image, board.find_board(image, args.game, profile=name))
        own = tiles.learn_set_glyphs(grid, args.game, name)
        own.save(set_glyphs_path(name))
        print(f"learned {len(own.labels)} glyphs of {name} -> {set_glyphs_path(name)}")
    if args.train:
        model = train(args.seed, args.cells, args.hidden, args.epochs)
        model.save(MODEL_PATH)
        print(f"saved {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KB)")
    if args.eval:
        from calibration.fonts import font_split
        _, held_out = font_split()
        model = GlyphModel.load(MODEL_PATH)
        print(json.dumps(evaluate(model, [str(f) for f in held_out]), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
