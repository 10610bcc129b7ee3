"""The table under the board: procedural wood, cloth or plain surfaces, drawn in the table's
own plane (mm) and warped into the photo with the camera, so the grain foreshortens and
recedes as a real table does.

>>> rng = np.random.default_rng(0)
>>> t = sample_table(rng)
>>> tex = table_texture(t, (120, 80), 1.0)
>>> tex.shape, tex.dtype
((80, 120, 3), dtype('uint8'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from samples.camera import Camera

TABLE_KINDS = ("wood", "cloth", "plain")
TABLE_KIND_WEIGHTS = (0.6, 0.2, 0.2)

# BGR: light oak, beech, teak, walnut, mahogany (the real Mathable photos' table), grey oak
WOOD_COLOURS = ((118, 170, 212), (132, 180, 220), (62, 110, 168), (46, 72, 104),
                (38, 64, 128), (110, 128, 140), (80, 130, 190))
# BGR: white, light grey, dark grey, black, green felt, navy, beige, terracotta, sky blue
PLAIN_COLOURS = ((232, 234, 236), (190, 192, 194), (88, 90, 92), (36, 36, 38), (58, 110, 40),
                 (96, 52, 30), (170, 200, 220), (70, 96, 170), (200, 170, 120))

TABLE_REACH_MM = 1400.0
"""How far from the board the table texture is drawn; beyond it the texture is mirrored."""
TEXEL_BUDGET = 0.35e6
"""Texels of a table texture per megapixel of the photo (bounds the drawing time)..."""
MAX_TEXELS = 1.5e6
"""...and at most this many (a 12 MP photo's table is then a little soft: it is blurred
and out of focus in most phone photos anyway)."""


@dataclass(frozen=True)
class Table:
    """How a table surface looks; drawn deterministically from ``seed``."""

    kind: str  # "wood" | "cloth" | "plain"
    colour: tuple[int, int, int]  # BGR base colour
    grain_angle: float  # degrees between the grain (or weave) and the board's x axis
    ring_mm: float  # wood: spacing of the growth rings; cloth: weave period
    plank_mm: float  # wood: plank width, 0 = one slab
    contrast: float  # 0..1: how strongly grain, weave or mottling shows
    seed: int


def sample_table(rng: np.random.Generator, kind: str | None = None) -> Table:
    """A random table surface."""
    kind = kind or TABLE_KINDS[rng.choice(len(TABLE_KINDS), p=TABLE_KIND_WEIGHTS)]
    palette = WOOD_COLOURS if kind == "wood" else PLAIN_COLOURS
    base = np.array(palette[rng.integers(len(palette))], float)
    base = np.clip(base * rng.uniform(0.85, 1.15) + rng.normal(0, 6, 3), 0, 255)
    return Table(
        kind=kind,
        colour=tuple(int(v) for v in base),
        grain_angle=float(rng.choice([0.0, 90.0]) + rng.normal(0, 4)) if kind == "wood"
        else float(rng.uniform(0, 180)),
        ring_mm=float(rng.uniform(3, 9) if kind == "wood" else rng.uniform(0.8, 2.5)),
        plank_mm=float(rng.choice([0.0, rng.uniform(90, 200)])) if kind == "wood" else 0.0,
        contrast=float(rng.uniform(0.25, 0.9)),
        seed=int(rng.integers(2**31)),
    )


def _noise(rng: np.random.Generator, size: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth value noise in -1..1 of ``size`` (w, h) from a ``cells`` (nx, ny) lattice."""
    nx, ny = max(2, cells[0]), max(2, cells[1])
    lattice = rng.uniform(-1, 1, (ny, nx)).astype(np.float32)
    return cv2.resize(lattice, size, interpolation=cv2.INTER_CUBIC)


def table_texture(table: Table, size_mm: tuple[float, float], texels_per_mm: float) -> np.ndarray:
    """(H, W, 3) uint8 BGR texture of ``size_mm`` (w, h) of table, grain along its x axis."""
    rng = np.random.default_rng(table.seed)
    w = max(8, int(round(size_mm[0] * texels_per_mm)))
    h = max(8, int(round(size_mm[1] * texels_per_mm)))
    base = np.array(table.colour, np.float32)
    k = table.contrast
    ramp = np.linspace(0, 1, 256, dtype=np.float32)[:, None]
    if table.kind == "wood":
        tone = _wood_tone(rng, table, w, h, texels_per_mm)  # 0 light .. 1 dark
        lut = base * 1.1 + (base * 0.6 - base * 1.1) * ramp * k
    else:  # brightness 0.8 .. 1.2 as tone 0 .. 1
        if table.kind == "cloth":
            period = max(table.ring_mm * texels_per_mm, 2.1)
            xs = np.sin(np.arange(w, dtype=np.float32) * np.float32(2 * math.pi / period))
            ys = np.sin(np.arange(h, dtype=np.float32) * np.float32(2 * math.pi / period))
            mottle = _noise(rng, (w, h), (int(size_mm[0] / 120), int(size_mm[1] / 120)))
            f = (0.05 * k) * (ys[:, None] * xs[None, :]) + (0.07 * k) * mottle
        else:
            mottle = _noise(rng, (w, h), (int(size_mm[0] / 200), int(size_mm[1] / 200)))
            fine = _noise(rng, (w, h), (int(size_mm[0] / 8), int(size_mm[1] / 8)))
            f = (0.05 * k) * mottle + (0.02 * k) * fine
        tone = np.clip(f * 2.5 + 0.5, 0, 1)
        lut = base * (0.8 + 0.4 * ramp)
    t8 = (tone * 255 + 0.5).astype(np.uint8)
    lut = np.clip(lut + 0.5, 0, 255).astype(np.uint8)[:, None, :]
    return cv2.LUT(cv2.merge([t8, t8, t8]), lut)


def _wood_tone(rng, table: Table, w: int, h: int, tpm: float) -> np.ndarray:
    """(h, w) float 0..1 darkness of flat-sawn wood, grain along x. The surface cuts the
    tree's growth rings at a slant, so rings show as nested arches ("cathedrals"); fine
    grain lines and pores run along them; planks each have their own tree and shade."""
    f32 = np.float32
    x_mm = np.arange(w, dtype=f32)[None, :] / f32(tpm)
    y_mm = np.arange(h, dtype=f32)[:, None] / f32(tpm)
    plank_mm = f32(table.plank_mm or h / tpm + 1)
    plank = np.floor(y_mm / plank_mm).astype(np.int32)
    n = int(plank.max()) + 1

    def per_plank(lo, hi):
        return rng.uniform(lo, hi, n).astype(f32)[plank]

    # per plank: the pith's line (across position, depth under the surface, slant)
    pith_y = (plank.astype(f32) + per_plank(0.2, 0.8)) * plank_mm
    depth, slant, shift = per_plank(5, 40), per_plank(-0.08, 0.08), per_plank(0, 500)
    wobble = _noise(rng, (w, h), (int(w / tpm / 120), int(h / tpm / 40)))
    across = (y_mm - pith_y) ** 2
    along = depth + slant * (x_mm + shift)
    phase = np.sqrt(across + along * along) * f32(1 / table.ring_mm) + f32(0.6) * wobble
    frac = phase - np.floor(phase)
    # latewood: a dark band late in each ring, soft on both sides
    rings = (np.minimum(np.maximum((frac - f32(0.55)) * f32(5), 0), 1)
             * np.minimum((1 - frac) * f32(1 / 0.12), 1))
    grain = _noise(rng, (w, h), (int(w / tpm / 150), int(h / tpm / 2.5)))
    pores = _noise(rng, (w, h), (int(w / tpm / 12), int(h / tpm / 0.6)))
    tone = (f32(0.55) * rings + f32(0.09) * grain + f32(0.12) * np.maximum(pores - f32(0.5), 0)
            + f32(0.06) * wobble + (f32(0.15) + per_plank(-0.1, 0.1)))
    if table.plank_mm:
        seam = np.abs(y_mm - np.round(y_mm / plank_mm) * plank_mm) < 0.5
        tone = np.where(seam, f32(1.0), tone)
    return np.minimum(np.maximum(tone, 0), 1)


def render_table(table: Table, camera: Camera, board_size_mm: tuple[float, float],
                 height_mm: float) -> np.ndarray:
    """The table as the camera sees it: (H, W, 3) uint8, the table plane lying
    ``height_mm`` above the board's top (negative: below it)."""
    w, h = camera.resolution
    bw, bh = board_size_mm
    cx, cy = bw / 2, bh / 2
    H_table = camera.homography(height_mm)
    # The part of the table in view (rays nearly level are cut at TABLE_REACH_MM).
    corners_px = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1],
                           [(w - 1) / 2, 0], [(w - 1) / 2, h - 1], [0, (h - 1) / 2],
                           [w - 1, (h - 1) / 2]], float)
    pts = cv2.perspectiveTransform(corners_px[None], np.linalg.inv(H_table))[0]
    reach = max(bw, bh) / 2 + TABLE_REACH_MM
    a = math.radians(table.grain_angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    rel = np.clip((pts - [cx, cy]) @ rot, -reach, reach)  # in the grain's frame
    lo, hi = rel.min(0) - 5, rel.max(0) + 5
    area = float(np.prod(hi - lo))
    near = float(camera.px_per_mm([[cx, cy]])[0])
    budget = min(TEXEL_BUDGET * w * h / 1e6, MAX_TEXELS)
    tpm = min(near, math.sqrt(budget / area))
    tex = table_texture(table, tuple(hi - lo), tpm)
    # texel -> grain frame mm -> board mm -> pixels
    A = np.array([[1 / tpm, 0, lo[0]], [0, 1 / tpm, lo[1]], [0, 0, 1]])
    Rm = np.eye(3)
    Rm[:2, :2] = rot
    Rm[:2, 2] = [cx, cy]
    M = H_table @ Rm @ A
    return cv2.warpPerspective(tex, M, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)
