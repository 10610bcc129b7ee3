"""Things that lie on the table beside the board: a cup, a tile rack, a score pad and
pencil, a hand resting at the edge. Each is drawn in the picture with the camera and kept
clear of the board (an object whose picture would touch the board is left out), so it
never hides a cell.

>>> from calibration.geometry import board_geometry
>>> from samples.camera import sample_camera
>>> g = board_geometry("breakthrough")
>>> cam = sample_camera(np.random.default_rng(0), g, (640, 480))
>>> len(board_polygon(cam, g, -3.0))
4
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from samples import hand as hands
from samples.camera import Camera
from samples.solids import Light

OBJECT_KINDS = ("cup", "rack", "pad", "hand")
CUP_COLOURS = ((235, 235, 235), (40, 40, 160), (160, 90, 30), (40, 40, 40), (80, 160, 220),
               (210, 220, 230))
DRINKS = ((18, 38, 62), (30, 70, 120), (210, 225, 235), (40, 90, 150))  # coffee, tea, milk..
RACK_COLOURS = ((70, 120, 170), (40, 70, 110), (30, 30, 30), (60, 60, 150), (150, 150, 150))
CLEARANCE_PX = 6  # an object's picture keeps this far from the board's


def board_polygon(camera: Camera, geometry: BoardGeometry, table_height: float) -> np.ndarray:
    """(4, 2) px of the board's outline where it stands on the table (board top 0)."""
    corners = geometry.board_corners_mm()
    return camera.project(np.column_stack([corners, np.full(4, table_height)]))


def _mask_of(shape, polys) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for p in polys:
        cv2.fillPoly(m, [np.round(np.asarray(p) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    return m


def _clear_of(board_mask: np.ndarray, polys) -> bool:
    m = _mask_of(board_mask.shape, polys)
    return not np.any((m > 0) & (board_mask > 0))


def _table_spot(rng, geometry: BoardGeometry, near: float, far: float) -> tuple[float, float]:
    """A point on the table ``near``..``far`` mm outside the board's edge."""
    w, h = geometry.size_mm
    side = rng.integers(4)
    d = rng.uniform(near, far)
    t = rng.uniform(-0.2, 1.2)
    return [(t * w, -d), (w + d, t * h), (t * w, h + d), (-d, t * h)][side]


def _cup(img, camera, light, rng, at, table_h, board_mask) -> bool:
    r = rng.uniform(35, 45)
    height = rng.uniform(80, 105)
    colour = np.array(CUP_COLOURS[rng.integers(len(CUP_COLOURS))], np.float32)
    drink = DRINKS[rng.integers(len(DRINKS))]
    circle = np.stack([np.cos(np.linspace(0, 2 * math.pi, 40, endpoint=False)),
                       np.sin(np.linspace(0, 2 * math.pi, 40, endpoint=False))], 1)

    def ring(z, rad):
        pts = np.asarray(at) + rad * circle
        return camera.project(np.column_stack([pts, np.full(len(pts), table_h + z)]))

    base, top = ring(0, r * 0.82), ring(height, r)
    hull = cv2.convexHull(np.concatenate([base, top]).astype(np.float32)).reshape(-1, 2)
    foot = np.concatenate([np.asarray(at) + 0.82 * r * circle,
                           np.asarray(at) + r * circle + light.shadow_vector * height])
    shadow = camera.project(np.column_stack([foot, np.full(len(foot), table_h)]))
    shadow = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2)
    if not _clear_of(board_mask, [hull, shadow]):
        return False
    _soft_shadow(img, shadow, light, sigma=0.06 * height * float(camera.px_per_mm([at])[0]))
    # body: shaded across its width as seen
    x0, y0 = np.floor(hull.min(0)).astype(int)
    x1, y1 = np.ceil(hull.max(0)).astype(int) + 1
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1:
        return False
    m = _mask_of((y1 - y0, x1 - x0), [hull - [x0, y0]]).astype(np.float32) / 255
    axis = top.mean(0) - base.mean(0)
    c = base.mean(0)
    perp = np.array([-axis[1], axis[0]]) / (np.linalg.norm(axis) + 1e-9)
    if np.linalg.norm(axis) < 1e-3:
        perp = np.array([1.0, 0.0])
    half = max(float(np.abs((top - top.mean(0)) @ perp).max()), 1.0)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    s = np.clip(((xs - c[0]) * perp[0] + (ys - c[1]) * perp[1]) / half, -1, 1)
    ldir = np.asarray(light.direction)
    side = 0.62 + 0.38 * np.clip(np.sqrt(1 - s ** 2) * 0.6 + s * float(ldir[0]) * 0.6, 0, 1)
    body = colour[None, None, :] * side[..., None]
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(roi * (1 - m[..., None]) + body * m[..., None], 0, 255).astype(np.uint8)
    # rim and the drink inside
    cv2.fillPoly(img, [np.round(top * 16).astype(np.int32)], tuple(float(v) for v in colour * 1.02),
                 cv2.LINE_AA, 4)
    inner = ring(height * 0.8, r * 0.88)
    cv2.fillPoly(img, [np.round(inner * 16).astype(np.int32)], drink, cv2.LINE_AA, 4)
    return True


def _soft_shadow(img, poly, light: Light, sigma: float) -> None:
    """Darken ``img`` under the polygon ``poly`` (px), blurred by ``sigma`` px (drawn at a
    reduced scale when it is soft: a blurred shadow has no fine detail)."""
    sigma = max(1.0, sigma)
    pad = int(3 * sigma) + 2
    H, W = img.shape[:2]
    x0, y0 = np.floor(poly.min(0)).astype(int) - pad
    x1, y1 = np.ceil(poly.max(0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x0 >= x1 or y0 >= y1:
        return
    f = int(min(4, max(1, sigma // 2)))
    w, h = -(-(x1 - x0) // f), -(-(y1 - y0) // f)
    m = _mask_of((h, w), [(poly - [x0, y0]) / f]).astype(np.float32)
    m = cv2.GaussianBlur(m, (0, 0), sigma / f) * np.float32(light.shadow / 255)
    if f > 1:
        m = cv2.resize(m, (w * f, h * f), interpolation=cv2.INTER_LINEAR)
    k = cv2.cvtColor(1 - m[:y1 - y0, :x1 - x0], cv2.COLOR_GRAY2BGR)
    img[y0:y1, x0:x1] = cv2.multiply(img[y0:y1, x0:x1], k, dtype=cv2.CV_8U)


def _box_faces(camera, centre, size, angle, z0):
    """Projected visible faces of a box (w, d, h mm) standing at ``centre`` turned by
    ``angle`` degrees: list of (polygon px, outward normal (3,))."""
    w, d, h = size
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    c = np.asarray(centre, float)
    foot = np.array([c - u * w / 2 - v * d / 2, c + u * w / 2 - v * d / 2,
                     c + u * w / 2 + v * d / 2, c - u * w / 2 + v * d / 2])
    lo = np.column_stack([foot, np.full(4, z0)])
    hi = np.column_stack([foot, np.full(4, z0 + h)])
    eye = camera.centre * [1, 1, -1]  # board axes, height up
    faces = []
    for i in range(4):
        j = (i + 1) % 4
        mid = (foot[i] + foot[j]) / 2
        n2 = (mid - c) / np.linalg.norm(mid - c)
        if n2 @ (eye[:2] - mid) > 0:
            quad = np.array([lo[i], lo[j], hi[j], hi[i]])
            faces.append((camera.project(quad), np.array([n2[0], n2[1], 0.0])))
    faces.append((camera.project(hi), np.array([0.0, 0.0, 1.0])))
    return faces, np.concatenate([lo, hi])


def _rack(img, camera, light, rng, at, table_h, board_mask, tile_sprites) -> bool:
    size = (rng.uniform(170, 210), rng.uniform(22, 30), rng.uniform(14, 22))
    angle = float(rng.uniform(0, 180))
    colour = np.array(RACK_COLOURS[rng.integers(len(RACK_COLOURS))], np.float32)
    faces, corners = _box_faces(camera, at, size, angle, table_h)
    hull = cv2.convexHull(camera.project(corners).astype(np.float32)).reshape(-1, 2)
    sh = corners.copy()
    sh[:, :2] += np.outer(sh[:, 2] - table_h, light.shadow_vector)
    sh[:, 2] = table_h
    shadow = cv2.convexHull(camera.project(sh).astype(np.float32)).reshape(-1, 2)
    if not _clear_of(board_mask, [hull, shadow]):
        return False
    _soft_shadow(img, shadow, light, sigma=0.3 * size[2] * float(camera.px_per_mm([at])[0]))
    for poly, normal in faces:
        k = float(light.facing(normal[None, :2], normal[2])[0])
        cv2.fillConvexPoly(img, np.round(poly * 16).astype(np.int32),
                           tuple(float(v) for v in colour * k), cv2.LINE_AA, 4)
    # tiles standing on the rack, seen as their tops (a thin face) - a row of pale strips
    if tile_sprites:
        n = len(tile_sprites)
        a = math.radians(angle)
        u = np.array([math.cos(a), math.sin(a)])
        v = np.array([-math.sin(a), math.cos(a)])
        tile = min(size[0] / (n + 1), 22.0)
        for k, sprite in enumerate(tile_sprites):
            c = np.asarray(at) + u * (k - (n - 1) / 2) * tile * 1.05
            quad = np.array([c - u * tile * 0.48 - v * 4, c + u * tile * 0.48 - v * 4,
                             c + u * tile * 0.48 + v * 4, c - u * tile * 0.48 + v * 4])
            px = camera.project(np.column_stack([quad, np.full(4, table_h + size[2] + 0.5)]))
            col = sprite[sprite.shape[0] // 2, 2, :3].astype(float)
            cv2.fillConvexPoly(img, np.round(px * 16).astype(np.int32),
                               tuple(col * 0.9), cv2.LINE_AA, 4)
    return True


def _pad(img, camera, light, rng, at, table_h, board_mask) -> bool:
    """A score pad: white paper with ruled lines and a few pencil scores."""
    w, h = rng.uniform(90, 150), rng.uniform(130, 210)
    angle = rng.uniform(-30, 30)
    ppm = 3.0
    tex = np.full((int(h * ppm), int(w * ppm), 3), 245, np.uint8)
    tex[:] = np.clip(np.array([238, 244, 246]) + rng.normal(0, 4, 3), 0, 255)
    for y in np.arange(15, h - 5, 7.5):
        cv2.line(tex, (0, int(y * ppm)), (tex.shape[1], int(y * ppm)), (205, 190, 170), 1)
    for y in np.arange(15, h * rng.uniform(0.3, 0.9), 7.5):  # scribbled scores
        x = 8 * ppm
        for _ in range(int(rng.integers(2, 4))):
            cv2.putText(tex, str(int(rng.integers(1, 99))), (int(x), int((y - 1.2) * ppm)),
                        cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.45 * ppm / 3, (90, 80, 75), 1,
                        cv2.LINE_AA)
            x += rng.uniform(25, 40) * ppm
    a = math.radians(angle)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    mm = local @ R.T + at
    px = camera.project(np.column_stack([mm, np.full(4, table_h + 0.5)]))
    if not _clear_of(board_mask, [px]):
        return False
    src = np.array([[0, 0], [tex.shape[1] - 1, 0], [tex.shape[1] - 1, tex.shape[0] - 1],
                    [0, tex.shape[0] - 1]], np.float32)
    M = cv2.getPerspectiveTransform(src, px.astype(np.float32))
    cv2.warpPerspective(tex, M, (img.shape[1], img.shape[0]), dst=img,
                        flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    return True


def _resting_hand(img, camera, light, rng, geometry, table_h, board_mask) -> bool:
    """A hand lying on the table just outside the board, fingers towards it."""
    w, h = geometry.size_mm
    side = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9)
    gap = rng.uniform(15, 60)
    tip, heading = [((t * w, -gap), -90.0), ((w + gap, t * h), 0.0),
                    ((t * w, h + gap), 90.0), ((-gap, t * h), 180.0)][side]
    spec = hands.sample_hand(rng, tip, heading=heading + rng.normal(0, 20),
                             tip_height=table_h + rng.uniform(10, 25), pose="flat")
    if not hands.arm_fits(spec, camera):
        return False
    res = min(4.0, float(camera.px_per_mm([tip])[0]) * 0.8)
    cover = hands.hand_cover(spec, camera, 0.4)
    if np.any((cover > 0.02) & (board_mask > 0)):
        return False
    hands.draw_hand(img, spec, camera, light, res, shadow_surface=table_h)
    return True


def place_objects(img, camera: Camera, geometry: BoardGeometry, light: Light,
                  rng: np.random.Generator, kinds, table_height: float,
                  tile_sprites=()) -> list[str]:
    """Draw the ``kinds`` of objects on the table around the board (in place), each at a
    random spot clear of the board. Returns the kinds actually drawn."""
    board_px = board_polygon(camera, geometry, table_height)
    top_px = camera.project(geometry.board_corners_mm())
    board_mask = _mask_of(img.shape[:2], [cv2.convexHull(
        np.concatenate([board_px, top_px]).astype(np.float32)).reshape(-1, 2)])
    board_mask = cv2.dilate(board_mask, np.ones((2 * CLEARANCE_PX + 1,) * 2, np.uint8))
    drawn = []
    for kind in kinds:
        for _ in range(6):
            at = _table_spot(rng, geometry, 60, 260)
            if kind == "cup":
                ok = _cup(img, camera, light, rng, at, table_height, board_mask)
            elif kind == "rack":
                ok = _rack(img, camera, light, rng, at, table_height, board_mask, tile_sprites)
            elif kind == "pad":
                ok = _pad(img, camera, light, rng, at, table_height, board_mask)
            else:
                ok = _resting_hand(img, camera, light, rng, geometry, table_height, board_mask)
            if ok:
                drawn.append(kind)
                break
    return drawn
