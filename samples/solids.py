"""Tiles, pegs and pieces with height, drawn into the board texture as the camera sees them.

The trick that keeps this cheap and exact: a point at height ``h`` above the board is seen
along the ray from the camera's optical centre, which meets the board plane at

    apparent(p, h) = nadir + (p - nadir) * D / (D - h)

where ``nadir`` is the board point straight below the camera and ``D`` the camera's height
above the board. Central projection between parallel planes is a uniform scaling about the
nadir, so a disc at height ``h`` is still a disc in the texture (larger and pushed away from
the nadir: it *leans away from the camera*), and the silhouette of a body between two
heights is the convex hull of its two discs. Drawing every solid in these "apparent" board
coordinates and warping the texture once with the board-plane homography puts them exactly
where a 3D renderer would, hidden surfaces included (painter's order: farthest from the
nadir first).

Coordinates here are texture pixels: board mm ``p`` is at ``(p + pad) * ppm``.

>>> v = View(nadir=(0.0, 0.0), height=100.0, ppm=1.0, pad=0.0)
>>> v.apparent((10.0, 0.0), 50.0).tolist()  # half way up: twice as far from the nadir
[20.0, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# Profiles of round solids: (height, radius) pairs from the base up, in units of the piece's
# radius as seen from above; ``top`` is the height where the sprite of the top view is laid
# and ``top_r`` its radius.
PROFILES: dict[str, dict] = {
    "peg": {"profile": ((0.0, 0.55), (0.25, 0.9), (0.9, 1.0), (1.25, 0.92)),
            "top": 1.25, "top_r": 1.0},
    "checker": {"profile": ((0.0, 0.97), (0.42, 1.0)), "top": 0.42, "top_r": 1.0},
    "stone": {"profile": ((0.0, 0.55), (0.12, 0.85), (0.3, 1.0)), "top": 0.3, "top_r": 1.0},
    "pawn": {"profile": ((0.0, 1.0), (0.22, 1.0), (0.34, 0.8), (0.5, 0.55), (1.55, 0.33),
                         (1.65, 0.6), (1.78, 0.55), (1.85, 0.34)),
             "head": (2.2, 0.52)},  # a ball: centre height, radius
    "cup": {"profile": ((0.0, 0.75), (0.1, 0.82), (2.0, 1.0)), "top": 2.0, "top_r": 1.0},
}

AMBIENT = 0.72  # share of light that reaches a surface facing away from the key light
DIFFUSE = 0.36


@dataclass(frozen=True)
class Light:
    """The key light: horizontal direction it comes *from* (unit, board mm axes) and its
    elevation in degrees. Shadows fall the other way, ``h / tan(elevation)`` long."""

    direction: tuple[float, float]
    elevation: float
    shadow: float = 0.45  # darkness of a full shadow, 0..1
    softness: float = 0.08  # shadow blur as a share of the caster's height (plus a floor)

    @property
    def shadow_vector(self) -> np.ndarray:
        """Board mm a point 1 mm above the board throws its shadow by."""
        d = np.asarray(self.direction, float)
        return -d / math.tan(math.radians(self.elevation))

    def facing(self, normal_xy: np.ndarray, normal_z: float = 0.0) -> np.ndarray:
        """Lambert factor (ambient + diffuse) for surface normals (horizontal part, up part)."""
        el = math.radians(self.elevation)
        d = np.asarray(self.direction, float)
        dot = (np.asarray(normal_xy) @ d) * math.cos(el) + normal_z * math.sin(el)
        return AMBIENT + DIFFUSE * np.maximum(dot, 0.0)


@dataclass(frozen=True)
class View:
    """Where the camera is over the board, and the texture's scale: everything the
    apparent-position trick needs."""

    nadir: tuple[float, float]  # board mm below the camera
    height: float  # mm of the camera above the board
    ppm: float  # texture px per mm
    pad: float  # mm of texture beyond the board on every side

    def scale(self, h: float) -> float:
        return self.height / (self.height - h)

    def apparent(self, p, h: float) -> np.ndarray:
        """Texture px where the board point(s) ``p`` (mm) raised by ``h`` mm appear."""
        n = np.asarray(self.nadir, float)
        q = n + (np.asarray(p, float) - n) * self.scale(h)
        return (q + self.pad) * self.ppm

    def away(self, p) -> np.ndarray:
        """Unit horizontal vector from the nadir to ``p``: the way things lean there."""
        v = np.asarray(p, float) - self.nadir
        n = np.linalg.norm(v)
        return v / n if n > 1e-9 else np.array([0.0, 1.0])


def _circle_pts(centre, r, n: int = 28) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.asarray(centre)[None, :] + r * np.stack([np.cos(a), np.sin(a)], 1)


def _shade(colour, k: float) -> tuple:
    return tuple(float(min(255.0, c * k)) for c in colour)


def _fill(img, pts, colour, mask=None):
    """Anti-aliased convex polygon, sub-pixel vertices (cv2 fixed point, 4 bits)."""
    p = np.round(np.asarray(pts) * 16).astype(np.int32)
    cv2.fillConvexPoly(img, p, colour, cv2.LINE_AA, 4)
    if mask is not None:
        cv2.fillConvexPoly(mask, p, 255, cv2.LINE_AA, 4)


def _hull(points) -> np.ndarray:
    return cv2.convexHull(np.asarray(points, np.float32)).reshape(-1, 2)


def _roi(img, pts, grow: int = 2):
    h, w = img.shape[:2]
    x0, y0 = np.floor(pts.min(0)).astype(int) - grow
    x1, y1 = np.ceil(pts.max(0)).astype(int) + grow + 1
    return max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)


def draw_round_solid(img, mask, view: View, light: Light, centre_mm, radius_mm: float,
                     shape, colour_bgr, top_sprite=None) -> None:
    """A peg, checker, stone, pawn or cup standing at ``centre_mm`` (board mm), its radius
    seen from above ``radius_mm``; ``shape`` names a profile of PROFILES (or is one): the body shaded by the key light, then the top view
    (``top_sprite``, BGRA, or a shaded ball for a pawn's head) laid at its height."""
    spec = PROFILES[shape] if isinstance(shape, str) else shape
    c = np.asarray(centre_mm, float)
    R = radius_mm
    rings = [(z * R, r * R) for z, r in spec["profile"]]
    outline = np.concatenate([_circle_pts(view.apparent(c, z), r * view.scale(z) * view.ppm)
                              for z, r in rings])
    x0, y0, x1, y1 = _roi(img, outline)
    if x0 >= x1 or y0 >= y1:
        return
    # body: hull of consecutive rings, shaded as a surface of revolution
    roi_mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for (za, ra), (zb, rb) in zip(rings, rings[1:]):
        pa = _circle_pts(view.apparent(c, za), ra * view.scale(za) * view.ppm)
        pb = _circle_pts(view.apparent(c, zb), rb * view.scale(zb) * view.ppm)
        _fill(roi_mask, _hull(np.concatenate([pa, pb])) - [x0, y0], 255)
    away = view.away(c)
    perp = np.array([-away[1], away[0]])
    axis0 = view.apparent(c, 0.0) - [x0, y0]
    yy, xx = np.mgrid[0:y1 - y0, 0:x1 - x0].astype(np.float32)
    r_px = R * view.ppm * view.scale(rings[-1][0])
    s = np.clip(((xx - axis0[0]) * perp[0] + (yy - axis0[1]) * perp[1]) / r_px, -1, 1)
    # the visible side of a round body faces the camera (towards the nadir) turned by asin(s)
    toward = -away
    nx = toward[0] * np.sqrt(1 - s ** 2) + perp[0] * s
    ny = toward[1] * np.sqrt(1 - s ** 2) + perp[1] * s
    lit = light.facing(np.stack([nx, ny], -1))
    body = np.asarray(colour_bgr, np.float32)[None, None, :] * lit[..., None]
    _blend(img, mask, x0, y0, body, roi_mask.astype(np.float32) / 255)
    if "head" in spec:
        zc, rh = spec["head"]
        _draw_ball(img, mask, view, light, c, zc * R, rh * R, colour_bgr)
    elif top_sprite is not None:
        z, rt = spec["top"] * R, spec["top_r"] * R
        paste(img, mask, top_sprite, view.apparent(c, z), 2 * rt * view.scale(z) * view.ppm)


def _draw_ball(img, mask, view, light, centre_mm, z, r, colour_bgr):
    """A sphere of radius ``r`` mm whose centre is ``z`` mm above ``centre_mm``."""
    ctr = view.apparent(centre_mm, z)
    rp = r * view.scale(z) * view.ppm
    x0, y0, x1, y1 = _roi(img, np.array([ctr - rp, ctr + rp]))
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = (xx - ctr[0]) / rp, (yy - ctr[1]) / rp
    d2 = dx ** 2 + dy ** 2
    alpha = np.clip((1 - np.sqrt(d2)) * rp + 0.5, 0, 1)
    nz = np.sqrt(np.clip(1 - d2, 0, 1))
    lit = light.facing(np.stack([dx, dy], -1), nz)
    spec = np.clip(np.stack([dx, dy], -1) @ np.asarray(light.direction) * 0.5 + nz * 0.8, 0,
                   1) ** 24 * 120
    body = np.asarray(colour_bgr, np.float32)[None, None, :] * lit[..., None] + spec[..., None]
    _blend(img, mask, x0, y0, body, alpha)


def _blend(img, mask, x0, y0, colour, alpha):
    """img[roi] = colour over img with ``alpha`` (float 0..1, ROI-sized); mask likewise."""
    h, w = alpha.shape
    roi = img[y0:y0 + h, x0:x0 + w].astype(np.float32)
    a = alpha[..., None]
    img[y0:y0 + h, x0:x0 + w] = np.clip(roi * (1 - a) + colour * a + 0.5, 0, 255).astype(np.uint8)
    if mask is not None:
        m = mask[y0:y0 + h, x0:x0 + w].astype(np.float32)
        mask[y0:y0 + h, x0:x0 + w] = np.maximum(m, alpha * 255).astype(np.uint8)


def paste(img, mask, sprite, centre_px, size_px: float, angle_deg: float = 0.0,
          shade: float = 1.0) -> None:
    """Alpha-blend a square BGRA sprite scaled to ``size_px`` across, its centre at the
    sub-pixel ``centre_px``, turned ``angle_deg`` counter-clockwise (image axes), its
    colour times ``shade``."""
    n = sprite.shape[0]
    k = size_px / n
    half = math.ceil(size_px * 0.75) + 2
    cx, cy = centre_px
    x0, y0 = math.floor(cx) - half, math.floor(cy) - half
    size = 2 * half + 1
    M = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), angle_deg, k)
    M[0, 2] += cx - x0 - (n - 1) / 2
    M[1, 2] += cy - y0 - (n - 1) / 2
    interp = cv2.INTER_AREA if k < 0.8 else cv2.INTER_LINEAR
    warped = cv2.warpAffine(np.asarray(sprite), M, (size, size), flags=interp,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    ix0, iy0 = max(x0, 0), max(y0, 0)
    ix1, iy1 = min(x0 + size, img.shape[1]), min(y0 + size, img.shape[0])
    if ix0 >= ix1 or iy0 >= iy1:
        return
    part = warped[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0].astype(np.float32)
    colour = part[..., :3] * np.float32(shade) if shade != 1.0 else part[..., :3]
    _blend(img, mask, ix0, iy0, colour, part[..., 3] / 255)


def draw_tile_solid(img, mask, view: View, light: Light, centre_mm, side_mm: float,
                    angle_deg: float, thickness_mm: float, edge_bgr, sprite,
                    shade: float = 1.0) -> None:
    """A square tile of ``side_mm`` and ``thickness_mm`` lying at ``centre_mm`` turned
    ``angle_deg`` (counter-clockwise as seen from above): visible sides shaded by the key
    light, the top view ``sprite`` (BGRA) on top."""
    c = np.asarray(centre_mm, float)
    a = math.radians(angle_deg)
    # counter-clockwise on the picture with y down is clockwise in maths axes
    u = np.array([math.cos(a), -math.sin(a)]) * side_mm / 2
    v = np.array([math.sin(a), math.cos(a)]) * side_mm / 2
    base = np.array([c - u - v, c + u - v, c + u + v, c - u + v])
    if thickness_mm > 0:
        b = view.apparent(base, 0.0)
        t = view.apparent(base, thickness_mm)
        for i in range(4):
            j = (i + 1) % 4
            mid = (base[i] + base[j]) / 2
            normal = (mid - c) / np.linalg.norm(mid - c)
            if normal @ (np.asarray(view.nadir) - mid) <= 0:
                continue  # faces away from the camera: hidden under the top
            k = float(light.facing(normal[None, :])[0]) * 0.85
            _fill(img, [b[i], b[j], t[j], t[i]], _shade(edge_bgr, k), mask)
    top = view.apparent(c, thickness_mm)
    paste(img, mask, sprite, top, side_mm * view.scale(thickness_mm) * view.ppm, angle_deg,
          shade)


def shadow_polygon(view: View, light: Light, footprint_mm: np.ndarray, height_mm: float):
    """Texture px of the shadow a prism of ``footprint_mm`` (N, 2) and ``height_mm`` casts
    on the board: the hull of its base and its top pushed along the shadow vector."""
    top = footprint_mm + light.shadow_vector * height_mm
    pts = np.concatenate([footprint_mm, top])
    return _hull((pts + view.pad) * view.ppm)


def cast_shadows(img, polygons, heights_px, light: Light) -> None:
    """Darken ``img`` (the board texture) under the shadow polygons, each softened in
    proportion to its caster's height (a few blur levels, each one Gaussian pass)."""
    if not polygons:
        return
    h, w = img.shape[:2]
    # work at reduced resolution: shadows are soft
    f = 0.5 if max(h, w) > 800 else 1.0
    sh = np.zeros((max(1, int(h * f)), max(1, int(w * f))), np.float32)
    levels: dict[int, np.ndarray] = {}
    for poly, hp in zip(polygons, heights_px):
        sigma = max(0.8, light.softness * hp * f + 0.6)
        level = int(round(math.log2(sigma) * 2))
        layer = levels.setdefault(level, np.zeros_like(sh))
        p = np.round(np.asarray(poly) * f * 16).astype(np.int32)
        cv2.fillConvexPoly(layer, p, 1.0, cv2.LINE_AA, 4)
    for level, layer in levels.items():
        sigma = 2 ** (level / 2)
        sh = np.maximum(sh, cv2.GaussianBlur(layer, (0, 0), sigma))
    if f != 1.0:
        sh = cv2.resize(sh, (w, h), interpolation=cv2.INTER_LINEAR)
    k = 1 - light.shadow * np.clip(sh, 0, 1)
    img[:] = np.clip(img.astype(np.float32) * k[..., None] + 0.5, 0, 255).astype(np.uint8)
