"""What light and the phone do to a picture: white balance, exposure, a gradient or soft
shadow across the scene, a specular glare, lens blur, sensor noise and JPEG.

All of it is one :class:`Finish` (recorded in the truth) applied by :func:`finish_photo`
to a rendered BGR uint8 picture. Blur is given at 1080p and scales with the resolution.

>>> [round(v, 2) for v in kelvin_rgb(6500)]
[1.0, 1.0, 0.98]
>>> kelvin_rgb(2700)[2] < kelvin_rgb(2700)[0]  # warm light: little blue
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

REFERENCE_KELVIN = 5600.0
"""The white balance the camera is set for: light of this temperature looks neutral."""
AWB_CORRECTION = (0.3, 0.6)
"""Phones correct part of a colour cast; this share of the cast is removed."""


@dataclass(frozen=True)
class Finish:
    """Light and camera effects of one photo (BOARDS.md ranges)."""

    kelvin: float = 5600.0  # 2700..6500
    awb: float = 0.5  # share of the cast the phone's auto white balance removes
    brightness: float = 1.0  # 0.5..1.5
    gradient: tuple[float, float] = (0.0, 0.0)  # (direction degrees, strength 0..0.35)
    shadow: tuple[float, float, float, float, float] | None = None  # x, y (0..1 of the
    # picture), radius (share of the short side), softness (share of radius), darkness
    glare: tuple[float, float, float, float] | None = None  # x, y px, radius px, strength
    vignette: float = 0.0  # darkening at the corners, 0..0.3
    blur: float = 0.0  # Gaussian sigma in px at 1080p, 0..1.5
    motion: tuple[float, float] | None = None  # (length px at 1080p, direction degrees):
    # the camera moved while the shutter was open, a smear along one direction. Beyond
    # BOARDS.md's photos (never sampled): the reader is to doubt such a photo, not read it
    noise: float = 0.0  # sensor noise sigma in 1/255 units, 0..6
    jpeg: int | None = 90  # quality 60..95, None: no JPEG round trip
    noise_seed: int = 0


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """Relative (r, g, b) of a black body at ``kelvin`` (Tanner Helland's fit), max 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = (99.4708025861 * math.log(t) - 161.1195681661 if t <= 66
         else 288.1221695283 * (t - 60) ** -0.0755148492)
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10)
                               - 305.0447927307)
    rgb = np.clip([r, g, b], 1, 255)
    return tuple(float(v) for v in rgb / rgb.max())


def white_balance_gains(kelvin: float, awb: float) -> np.ndarray:
    """(3,) BGR gains of light at ``kelvin`` seen by a camera balanced for
    REFERENCE_KELVIN that has removed ``awb`` of the cast; mean gain 1."""
    light = np.array(kelvin_rgb(kelvin))
    ref = np.array(kelvin_rgb(REFERENCE_KELVIN))
    cast = (light / ref) ** (1 - awb)
    cast = cast / cast.mean()
    return cast[::-1].astype(np.float32)  # rgb -> bgr


def sample_finish(rng: np.random.Generator, resolution: tuple[int, int],
                  board_px: np.ndarray | None = None) -> Finish:
    """Random light and camera effects; the glare lands on the board (``board_px``, its
    (4, 2) corners in the picture) when given."""
    w, h = resolution
    shadow = None
    if rng.random() < 0.45:
        shadow = (float(rng.uniform(-0.2, 1.2)), float(rng.uniform(-0.2, 1.2)),
                  float(rng.uniform(0.3, 0.9)), float(rng.uniform(0.3, 1.0)),
                  float(rng.uniform(0.1, 0.4)))
    glare = None
    if rng.random() < 0.5:
        if board_px is not None:
            wts = rng.dirichlet(np.ones(4))
            cx, cy = wts @ np.asarray(board_px, float)
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        glare = (float(cx), float(cy), float(rng.uniform(0.015, 0.06) * min(w, h)),
                 float(rng.uniform(0.25, 0.8)))
    return Finish(
        kelvin=float(rng.uniform(2700, 6500)),
        awb=float(rng.uniform(*AWB_CORRECTION)),
        brightness=float(np.exp(rng.uniform(math.log(0.5), math.log(1.5)))),
        gradient=(float(rng.uniform(0, 360)), float(rng.uniform(0, 0.35))),
        shadow=shadow,
        glare=glare,
        vignette=float(rng.uniform(0, 0.25)),
        blur=float(rng.uniform(0, 1.5)),
        noise=float(rng.uniform(0, 6)),
        jpeg=int(rng.integers(60, 96)),
        noise_seed=int(rng.integers(2**31)),
    )


def light_field(finish: Finish, resolution: tuple[int, int], gains=None,
                fixed_point: int | None = None) -> np.ndarray:
    """(H, W) float32 multiplicative light over the picture: gradient, soft shadow,
    vignette (drawn small and enlarged: light varies slowly); (H, W, 3) times the BGR
    ``gains`` when given; uint16 in units of 1 / ``fixed_point`` when that is given."""
    w, h = resolution
    sw, sh = max(8, w // 16), max(8, h // 16)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u, v = (xs + 0.5) / sw, (ys + 0.5) / sh
    a = math.radians(finish.gradient[0])
    t = (u - 0.5) * math.cos(a) + (v - 0.5) * math.sin(a)  # -0.7..0.7 across the picture
    field = 1 + finish.gradient[1] * t / 0.7
    aspect = w / h
    if finish.shadow is not None:
        x, y, radius, soft, dark = finish.shadow
        d = np.hypot((u - x) * aspect, v - y) / (radius * max(1, aspect))
        inside = np.clip((1 - d) / max(soft, 1e-3) + 0.5, 0, 1)
        inside = inside * inside * (3 - 2 * inside)  # smoothstep
        field = field * (1 - dark * inside)
    if finish.vignette:
        r2 = ((u - 0.5) * aspect) ** 2 + (v - 0.5) ** 2
        field = field * (1 - finish.vignette * r2 / (0.25 * aspect ** 2 + 0.25))
    field = field.astype(np.float32)
    if gains is not None:
        field = field[..., None] * np.asarray(gains, np.float32)[None, None, :]
    if fixed_point:
        field = np.clip(field * fixed_point + 0.5, 0, 65535).astype(np.uint16)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


FIELD_ONE = 4096  # the light field is applied in fixed point: this code means gain 1
NOISE_ONE = 16  # the noise bank stores sigma 1 as this many int8 steps


def finish_photo(img: np.ndarray, finish: Finish) -> tuple[np.ndarray, bytes | None]:
    """Apply ``finish`` to a rendered (H, W, 3) BGR uint8 picture. Returns the photo and,
    when ``finish.jpeg``, the JPEG bytes it was decoded from (write those, not a
    re-encoding). Integer arithmetic throughout: a 12 MP photo is 36 M samples."""
    h, w = img.shape[:2]
    scale = min(w, h) / 1080.0
    if finish.blur > 0.05:  # the lens blurs the scene; light varies too slowly to care
        img = cv2.GaussianBlur(img, (0, 0), finish.blur * scale)
    if finish.motion is not None:
        img = cv2.filter2D(img, -1, motion_kernel(finish.motion[0] * scale, finish.motion[1]))
    gains = white_balance_gains(finish.kelvin, finish.awb) * finish.brightness
    field = light_field(finish, (w, h), gains, fixed_point=FIELD_ONE)
    photo = cv2.multiply(img, field, scale=1.0 / FIELD_ONE, dtype=cv2.CV_8U)
    if finish.glare is not None:
        _add_glare(photo, finish.glare, gains)
    if finish.noise > 0:
        photo = _add_noise(photo, finish.noise, finish.noise_seed)
    if finish.jpeg is None:
        return photo, None
    ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, int(finish.jpeg)])
    data = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), data


def motion_kernel(length: float, degrees: float) -> np.ndarray:
    """A smear ``length`` px long along ``degrees`` (0: to the right, counter-clockwise
    as the picture shows it), normalised: the path a point takes while the camera moves.

    >>> k = motion_kernel(5, 0)
    >>> k.shape, round(float(k.sum()), 6), [round(float(v), 2) for v in k[2]]
    ((5, 5), 1.0, [0.2, 0.2, 0.2, 0.2, 0.2])
    """
    n = max(1, int(round(length)))
    size = n | 1                                   # odd: the smear centred on the point
    line = np.zeros((size, size), np.float32)
    line[size // 2, (size - n) // 2:(size - n) // 2 + n] = 1.0
    turn = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), degrees, 1.0)
    kernel = cv2.warpAffine(line, turn, (size, size), flags=cv2.INTER_LINEAR)
    return kernel / kernel.sum()


def _add_glare(photo: np.ndarray, glare, gains) -> None:
    """A specular highlight: a bright, slightly elongated soft spot of the light's colour
    (added in place, saturating)."""
    x, y, radius, strength = glare
    h, w = photo.shape[:2]
    r = int(math.ceil(radius * 3))
    x0, y0, x1, y1 = max(0, int(x) - r), max(0, int(y) - r), min(w, int(x) + r), min(h, int(y) + r)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d2 = ((xs - x) / (radius * 1.4)) ** 2 + ((ys - y) / radius) ** 2
    spot = np.exp(-d2 * 2.0) * 0.6 + np.exp(-d2 * 10.0) * 0.4
    add = (255.0 * strength) * spot[..., None] * (gains / gains.max())[None, None, :]
    roi = photo[y0:y1, x0:x1]
    photo[y0:y1, x0:x1] = cv2.add(roi, add.astype(np.float32), dtype=cv2.CV_8U)


LUMA_SHARE, CHROMA_SHARE = 0.8, 0.9  # enlarging the chroma noise 4x smooths it to ~0.6 of
# its sigma, so the per-pixel total is sqrt(0.8^2 + (0.9 * 0.6)^2) ~ 1 sigma (measured)
NOISE_BANK_PX = 2048  # noise is cut from one fixed bank of this size (tiled beyond it)


@lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    """(N, N, 3) int8 noise, sigma 1 = NOISE_ONE steps per pixel, the same in every
    process: shared luminance grain plus blotchy colour noise (phones smooth chroma
    noise), made once."""
    rng = np.random.default_rng(20240611)
    n = NOISE_BANK_PX
    luma = rng.standard_normal((n, n), dtype=np.float32) * np.float32(LUMA_SHARE)
    chroma = rng.standard_normal((n // 4, n // 4, 3), dtype=np.float32)
    chroma = cv2.resize(chroma, (n, n), interpolation=cv2.INTER_LINEAR)
    bank = (chroma * np.float32(CHROMA_SHARE) + luma[..., None]) * np.float32(NOISE_ONE)
    bank = np.clip(np.round(bank), -127, 127).astype(np.int8)
    bank.setflags(write=False)
    return bank


def _add_noise(photo: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """``photo`` plus sensor noise of ``sigma`` (uint8, saturating): the bank from a
    random offset, block by block (drawing fresh Gaussian noise for every pixel of a
    12 MP photo would take longer than the whole render)."""
    h, w = photo.shape[:2]
    rng = np.random.default_rng(seed)
    bank = _noise_bank()
    n = NOISE_BANK_PX
    oy, ox = (int(v) for v in rng.integers(0, n, 2))
    out = np.empty_like(photo)
    for y0 in range(0, h, n):
        for x0 in range(0, w, n):
            bh, bw = min(n, h - y0), min(n, w - x0)
            by, bx = (oy + y0) % (n - bh + 1), (ox + x0) % (n - bw + 1)
            out[y0:y0 + bh, x0:x0 + bw] = cv2.addWeighted(
                photo[y0:y0 + bh, x0:x0 + bw], 1.0, bank[by:by + bh, bx:bx + bw],
                float(sigma) / NOISE_ONE, 0.0, dtype=cv2.CV_8U)
    return out
