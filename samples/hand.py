"""A hand and arm reaching over the table: a skin-toned, shaded shape drawn in its own
(tilted) plane and projected by the camera, with a soft shadow below it.

The hand lies in a plane through its fingertips, ``tip_height`` mm above the board, that
rises along the arm by ``tilt`` degrees; sprite pixels map to that plane affinely, so the
plane maps to the picture by one homography (and to its shadow on the board by another).

>>> rng = np.random.default_rng(3)
>>> spec = sample_hand(rng, tip=(100.0, 120.0))
>>> sprite, origin, res = hand_sprite(spec, 1.0)
>>> sprite.shape[2], int(sprite[..., 3].max())
(4, 255)
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from samples.camera import Camera
from samples.solids import Light

# BGR skin tones from very light to very dark, and sleeve colours
SKIN_TONES = ((172, 196, 238), (150, 178, 228), (128, 162, 214), (104, 140, 196),
              (82, 114, 168), (62, 88, 134), (44, 62, 96))
SLEEVES = ((40, 40, 40), (200, 200, 200), (120, 60, 30), (40, 40, 140), (60, 110, 60),
           (150, 150, 60), (30, 30, 90), (210, 210, 220))
POSES = ("flat", "point", "pinch", "fist")


@dataclass(frozen=True)
class HandSpec:
    """One hand: where its fingertips are, where the arm comes from, how it is held."""

    tip: tuple[float, float]  # board mm under the middle fingertip
    heading: float  # degrees: direction from the fingertips back along the arm (board axes)
    tip_height: float  # mm above the board
    tilt: float  # degrees the arm rises towards the elbow
    pose: str
    scale: float  # 1 = an adult hand of 190 mm
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int] | None
    sleeve_from: float  # mm from the wrist where the sleeve starts
    mirror: bool  # left hand
    spread: float  # degrees between neighbouring fingers


def sample_hand(rng: np.random.Generator, tip: tuple[float, float],
                heading: float | None = None, tip_height: float | None = None,
                pose: str | None = None) -> HandSpec:
    """A random hand with its middle fingertip over ``tip`` (board mm)."""
    return HandSpec(
        tip=(float(tip[0]), float(tip[1])),
        heading=float(rng.uniform(0, 360) if heading is None else heading),
        tip_height=float(rng.uniform(8, 70) if tip_height is None else tip_height),
        tilt=float(rng.uniform(6, 22)),
        pose=pose or POSES[rng.integers(len(POSES))],
        scale=float(rng.uniform(0.85, 1.1)),
        skin=tuple(int(v) for v in np.clip(
            np.array(SKIN_TONES[rng.integers(len(SKIN_TONES))]) + rng.normal(0, 6, 3), 0, 255)),
        sleeve=SLEEVES[rng.integers(len(SLEEVES))] if rng.random() < 0.6 else None,
        sleeve_from=float(rng.uniform(40, 220)),
        mirror=bool(rng.random() < 0.5),
        spread=float(rng.uniform(1, 9)),
    )


ARM_MM = 900.0  # the arm is drawn this far back from the wrist (out of the picture)
SHADOW_SCALE = 4  # the hand's shadow is drawn at 1/4 of the resolution


def _capsule(p0, p1, w0, w1, n: int = 10) -> np.ndarray:
    """Polygon of a tapered capsule from p0 (width w0) to p1 (width w1), rounded ends."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    L = np.linalg.norm(d)
    d = d / L if L > 1e-9 else np.array([1.0, 0.0])
    nrm = np.array([-d[1], d[0]])
    a = np.linspace(-math.pi / 2, math.pi / 2, n)
    cap1 = p1 + (w1 / 2) * (np.cos(a)[:, None] * d + np.sin(a)[:, None] * nrm)
    cap0 = p0 + (w0 / 2) * (-np.cos(a)[:, None] * d - np.sin(a)[:, None] * nrm)
    return np.concatenate([cap1, cap0])


def _parts(spec: HandSpec) -> list[tuple[str, np.ndarray, tuple | None]]:
    """(kind, polygon in hand mm, bone) from the arm to the fingertips: u runs from the
    middle fingertip (0) back along the arm, v across the hand; a finger's bone is (base,
    tip, width) for its nail and knuckle creases."""
    s = spec.scale
    finger_len = {"flat": (62, 76, 80, 75), "point": (76, 38, 36, 32),
                  "pinch": (58, 52, 46, 40), "fist": (34, 38, 36, 32)}[spec.pose]
    palm_u0, palm_u1 = 82 * s, 185 * s  # knuckles .. wrist
    parts: list[tuple[str, np.ndarray]] = []
    wrist = np.array([palm_u1, 0.0])
    parts.append(("arm", _capsule(wrist + [ARM_MM * s, 0], wrist - [10 * s, 0], 110 * s, 60 * s)))
    parts.append(("palm", _capsule([palm_u1 - 18 * s, 0], [palm_u0 + 12 * s, 0], 72 * s, 86 * s, 16)))
    # thumb from the palm's side near the wrist, towards the fingers
    side = -1.0
    t0 = np.array([palm_u1 - 40 * s, side * 30 * s])
    t_ang = math.radians(38 if spec.pose != "pinch" else 20)
    t1 = t0 + 62 * s * np.array([-math.cos(t_ang), side * math.sin(t_ang)])
    if spec.pose == "fist":
        t1 = t0 + 45 * s * np.array([-math.cos(1.0), side * 0.2])
    parts.append(("finger", _capsule(t0, t1, 26 * s, 20 * s), (t0, t1, 22 * s)))
    # index, middle, ring, little: knuckles across the palm's end
    offsets = (-28.5, -9.5, 9.5, 27.0)
    widths = (18.5, 19.0, 18.0, 16.0)
    for k, (off, wd, ln) in enumerate(zip(offsets, widths, finger_len)):
        ang = math.radians(spec.spread * (k - 1.3))
        base = np.array([palm_u0 + abs(off) * 0.18 * s + 6 * s, off * s])
        tipp = base + ln * s * np.array([-math.cos(ang), math.sin(ang)])
        parts.append(("finger", _capsule(base, tipp, wd * s, wd * s * 0.88), (base, tipp, wd * s)))
    parts = [p if len(p) == 3 else (*p, None) for p in parts]
    if spec.mirror:
        flip = np.array([1.0, -1.0])
        parts = [(kind, poly * flip,
                  None if bone is None else (bone[0] * flip, bone[1] * flip, bone[2]))
                 for kind, poly, bone in parts]
    return parts


@lru_cache(maxsize=4)
def hand_sprite(spec: HandSpec, res: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The hand seen from above in its own plane: (H, W, 4) BGRA sprite at ``res`` px/mm,
    the hand-mm point of sprite pixel (0, 0), and ``res`` (cached: read-only). Parts are
    shaded as rounded limbs (by their distance to their own edge); a sleeve covers the
    arm."""
    parts = _parts(spec)
    pts = np.concatenate([p for _, p, _ in parts])
    lo = pts.min(0) - 4
    hi = pts.max(0) + 4
    w, h = (np.ceil((hi - lo) * res)).astype(int) + 1
    colour = np.zeros((h, w, 3), np.float32)
    alpha = np.zeros((h, w), np.float32)
    skin = np.asarray(spec.skin, np.float32)
    for kind, poly, bone in parts:
        m = np.zeros((h, w), np.uint8)
        p = np.round((poly - lo) * res * 16).astype(np.int32)
        cv2.fillPoly(m, [p], 255, cv2.LINE_AA, 4)
        x, y, bw, bh = cv2.boundingRect(m)
        if bw == 0 or bh == 0:
            continue
        sub = m[y:y + bh, x:x + bw]
        dist = cv2.distanceTransform((sub > 127).astype(np.uint8), cv2.DIST_L2, 3)
        half = max(float(dist.max()), 1.0)
        roundness = np.sqrt(np.clip(dist / half, 0, 1))
        shade = 0.55 + 0.5 * roundness
        a = sub.astype(np.float32) / 255
        base = skin
        if kind == "arm" and spec.sleeve is not None:
            base = np.where((np.arange(x, x + bw) / res + lo[0] > 185 * spec.scale
                             + spec.sleeve_from)[None, :, None],
                            np.asarray(spec.sleeve, np.float32), skin)
        col = base * shade[..., None]
        if kind == "finger":  # a dark rim keeps neighbouring fingers apart
            rim = np.clip(dist / (0.9 * res + 0.5), 0, 1)
            col = col * (0.7 + 0.3 * rim)[..., None]
        if bone is not None:
            _finger_details(col, bone, lo, res, (x, y), skin)
        roi_c, roi_a = colour[y:y + bh, x:x + bw], alpha[y:y + bh, x:x + bw]
        roi_c[:] = roi_c * (1 - a[..., None]) + col * a[..., None]
        roi_a[:] = np.maximum(roi_a, a)
    # skin is never one flat colour: a faint blotchy variation
    rng = np.random.default_rng(zlib.crc32(repr((spec.skin, spec.scale)).encode()))
    lattice = rng.uniform(-1, 1, (max(2, int(h / res / 15)), max(2, int(w / res / 15))))
    colour *= (1 + 0.05 * cv2.resize(lattice.astype(np.float32), (w, h),
                                     interpolation=cv2.INTER_CUBIC))[..., None]
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(colour + 0.5, 0, 255)
    out[..., 3] = np.clip(alpha * 255 + 0.5, 0, 255)
    out.setflags(write=False)
    return out, lo, res


def _finger_details(col: np.ndarray, bone, lo, res: float, offset, skin) -> None:
    """Draw a nail near the tip and two knuckle creases on a finger's colour patch (in
    place; ``offset`` is the patch's place in the sprite)."""
    base, tip, width = bone
    d = tip - base
    length = float(np.linalg.norm(d))
    if length < 1e-6:
        return
    d = d / length

    def px(p):
        q = (np.asarray(p) - lo) * res - offset
        return (int(round(q[0] * 16)), int(round(q[1] * 16)))

    angle = math.degrees(math.atan2(d[1], d[0]))
    if length > 1.6 * width:  # an outstretched finger shows its nail
        nail = tip - d * 0.42 * width
        axes = (int(0.3 * width * res * 16), int(0.27 * width * res * 16))
        pink = np.clip(np.asarray(skin) * 1.1 + [10, 12, 24], 0, 255)
        cv2.ellipse(col, px(nail), axes, angle, 0, 360, tuple(float(v) for v in pink * 0.95),
                    -1, cv2.LINE_AA, 4)
        cv2.ellipse(col, px(nail), axes, angle, 0, 360,
                    tuple(float(v) for v in np.asarray(skin) * 0.7), 1, cv2.LINE_AA, 4)
    across = np.array([-d[1], d[0]]) * width * 0.28
    crease = tuple(float(v) for v in np.asarray(skin) * 0.72)
    for f in (0.38, 0.68):
        c = tip - d * length * f
        cv2.line(col, px(c - across), px(c + across), crease, 1, cv2.LINE_AA, 4)


def _plane(spec: HandSpec, origin: np.ndarray, res: float) -> np.ndarray:
    """(4, 3): sprite px (i, j, 1) -> board point (x, y, height, 1)."""
    head, tilt = math.radians(spec.heading), math.radians(spec.tilt)
    a = np.array([math.cos(head) * math.cos(tilt), math.sin(head) * math.cos(tilt),
                  math.sin(tilt)])  # along the arm, rising
    b = np.array([-math.sin(head), math.cos(head), 0.0])  # across, level
    o = np.array([spec.tip[0], spec.tip[1], spec.tip_height]) + origin[0] * a + origin[1] * b
    M = np.zeros((4, 3))
    M[:3, 0] = a / res
    M[:3, 1] = b / res
    M[:3, 2] = o
    M[3, 2] = 1
    return M


def _to_internal(M: np.ndarray) -> np.ndarray:
    """Board (x, y, height, 1) rows -> the camera's internal world (x, y, -height, 1)."""
    F = np.diag([1.0, 1.0, -1.0, 1.0])
    return F @ M


def hand_homography(spec: HandSpec, origin, res, camera: Camera) -> np.ndarray:
    """(3, 3) sprite px -> picture px."""
    return camera.P @ _to_internal(_plane(spec, np.asarray(origin), res))


def shadow_homography(spec: HandSpec, origin, res, camera: Camera, light: Light,
                      surface_height: float = 0.0) -> np.ndarray:
    """(3, 3) sprite px -> picture px of the hand's shadow on the plane ``surface_height``
    (board top 0): each point drops along the light by its height above that plane."""
    M = _plane(spec, np.asarray(origin), res)
    sv = light.shadow_vector
    S = np.zeros((3, 3))
    S[0] = M[0] + sv[0] * (M[2] - surface_height * M[3])
    S[1] = M[1] + sv[1] * (M[2] - surface_height * M[3])
    S[2] = M[3]
    return camera.homography(surface_height) @ S


def arm_fits(spec: HandSpec, camera: Camera) -> bool:
    """Whether the whole drawn arm stays well below the camera (else it would pass
    through the lens)."""
    far = spec.tip_height + (ARM_MM + 200) * spec.scale * math.sin(math.radians(spec.tilt))
    return far < 0.7 * (-camera.centre[2])


def draw_hand(img: np.ndarray, spec: HandSpec, camera: Camera, light: Light,
              res: float, shadow_surface: float = 0.0) -> np.ndarray:
    """Draw the hand's soft shadow and then the hand into ``img`` (BGR uint8, in place).
    Returns the hand's coverage of the picture: (H, W) float32 0..1."""
    sprite, origin, res = hand_sprite(spec, res)
    h, w = img.shape[:2]
    Hs = shadow_homography(spec, origin, res, camera, light, shadow_surface)
    # the shadow is soft: draw and blur it at a quarter of the resolution
    f = SHADOW_SCALE
    small = (max(1, w // f), max(1, h // f))
    S = np.diag([1.0 / f, 1.0 / f, 1.0])
    sh = cv2.warpPerspective(sprite[..., 3], S @ Hs, small, flags=cv2.INTER_AREA)
    if sh.any():
        sigma = max(0.7, 0.15 * spec.tip_height * float(camera.px_per_mm([spec.tip])[0]) / f)
        sh = cv2.GaussianBlur(sh.astype(np.float32) * np.float32(light.shadow * 0.8 / 255),
                              (0, 0), sigma)
        ys, xs = np.nonzero(sh > 1e-3)
        if len(ys):
            x0, x1 = int(xs.min()) * f, min(w, (int(xs.max()) + 1) * f)
            y0, y1 = int(ys.min()) * f, min(h, (int(ys.max()) + 1) * f)
            k = 1 - cv2.resize(sh, (small[0] * f, small[1] * f),
                               interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1]
            img[y0:y1, x0:x1] = cv2.multiply(img[y0:y1, x0:x1],
                                             cv2.cvtColor(k, cv2.COLOR_GRAY2BGR),
                                             dtype=cv2.CV_8U)
    Hh = hand_homography(spec, origin, res, camera)
    cover = np.zeros((h, w), np.float32)
    warped = _warp_roi(sprite, Hh, (w, h))
    if warped is not None:
        (x0, y0, x1, y1), part = warped
        a = part[..., 3:].astype(np.float32) / 255
        roi = img[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + part[..., :3] * a + 0.5, 0,
                                    255).astype(np.uint8)
        cover[y0:y1, x0:x1] = a[..., 0]
    return cover


def hand_cover(spec: HandSpec, camera: Camera, res: float) -> np.ndarray:
    """(H, W) float32 0..1: where the hand would cover the picture (nothing drawn)."""
    sprite, origin, res = hand_sprite(spec, res)
    w, h = camera.resolution
    cover = np.zeros((h, w), np.float32)
    warped = _warp_roi(sprite[..., 3], hand_homography(spec, origin, res, camera), (w, h))
    if warped is not None:
        (x0, y0, x1, y1), part = warped
        cover[y0:y1, x0:x1] = part.astype(np.float32) / 255
    return cover


def _warp_roi(src: np.ndarray, H: np.ndarray, size: tuple[int, int]):
    """warpPerspective of ``src`` into the part of a ``size`` picture it covers:
    ((x0, y0, x1, y1), patch) or None when it lands outside."""
    w, h = size
    sh, sw = src.shape[:2]
    corners = np.array([[0, 0, 1], [sw - 1, 0, 1], [sw - 1, sh - 1, 1], [0, sh - 1, 1]], float)
    p = corners @ H.T
    if (p[:, 2] <= 0).any():
        return None
    p = p[:, :2] / p[:, 2:]
    x0, y0 = np.floor(p.min(0)).astype(int) - 1
    x1, y1 = np.ceil(p.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return None
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    patch = cv2.warpPerspective(src, T @ H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return (x0, y0, x1, y1), patch
