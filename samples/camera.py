"""A virtual phone camera over a board: a pinhole with a proper 3x4 projection matrix.

World coordinates are the board's own, in mm: ``x`` to the right and ``y`` down from the
board's top-left corner (row 0 at the top), and ``z`` the height *above* the board's top
surface (a peg's top is at ``z = h``; the table under the board at ``z = -thickness``).
Internally the world frame is right-handed with its third axis pointing into the table, so
a point at height ``z`` is ``(x, y, -z)`` there.

The pose is the one a person holding a phone over a table describes: ``elevation`` (90 =
straight down, 45 = oblique), ``azimuth`` (where around the board the camera stands: 0 =
at the board's bottom edge, so the board looks upright; 90 = at its right edge, so the
board appears turned a quarter), a small ``roll`` (the phone not held level), the
``distance`` from the camera to the point it looks at, and the focal length in pixels.

>>> cam = Camera(elevation=90, azimuth=0, distance=1000, focal_px=1000,
...              resolution=(641, 481), target=(0.0, 0.0))
>>> cam.project([[0, 0, 0], [100, 0, 0], [0, 100, 0]]).round(1).tolist()
[[320.0, 240.0], [420.0, 240.0], [320.0, 340.0]]
>>> cam.project([[100, 0, 500]]).round(1).tolist()  # half way up to the lens: twice as far out
[[520.0, 240.0]]
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from functools import cached_property

import numpy as np

from calibration.geometry import BoardGeometry

FULL_FRAME_DIAGONAL_MM = 43.27
"""Diagonal of a 36x24 mm frame: phone focal lengths are quoted as 35 mm equivalents."""


@dataclass(frozen=True)
class CameraRanges:
    """What :func:`sample_camera` draws from (``../shared/BOARDS.md``)."""

    elevation: tuple[float, float] = (45.0, 90.0)
    azimuth: tuple[float, float] = (0.0, 360.0)
    roll: tuple[float, float] = (-8.0, 8.0)
    fill: tuple[float, float] = (0.30, 0.95)  # board extent / the picture's short side
    focal_eq_mm: tuple[float, float] = (24.0, 52.0)  # phone main camera to 2x tele
    min_cell_px: float = 24.0  # every cell at least this many px on its shorter side
    edge_margin: float = 0.02  # the board keeps this share of the short side from the edges
    tries: int = 40  # rejection sampling when a pose cannot meet the cell size


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at ``target`` (board mm on the board plane)."""

    elevation: float  # degrees above the board plane, 90 = straight down
    azimuth: float  # degrees; 0 = camera at the board's bottom edge, 90 = at its right edge
    distance: float  # mm from the optical centre to the target
    focal_px: float
    resolution: tuple[int, int]  # (width, height)
    target: tuple[float, float]  # board mm the optical axis passes through
    roll: float = 0.0  # degrees, turning the picture about the optical axis

    # -- the matrices

    @cached_property
    def K(self) -> np.ndarray:
        """(3, 3) intrinsics: square pixels, principal point at the picture's centre."""
        w, h = self.resolution
        return np.array([[self.focal_px, 0, (w - 1) / 2],
                         [0, self.focal_px, (h - 1) / 2],
                         [0, 0, 1]], float)

    @cached_property
    def centre(self) -> np.ndarray:
        """(3,) the optical centre in the internal world frame (third axis into the table)."""
        el, az = math.radians(self.elevation), math.radians(self.azimuth)
        tx, ty = self.target
        return np.array([tx + self.distance * math.cos(el) * math.sin(az),
                         ty + self.distance * math.cos(el) * math.cos(az),
                         -self.distance * math.sin(el)])

    @cached_property
    def R(self) -> np.ndarray:
        """(3, 3) world -> camera rotation (rows: the camera's x right, y down, z forward)."""
        el, az = math.radians(self.elevation), math.radians(self.azimuth)
        forward = np.array([-math.cos(el) * math.sin(az), -math.cos(el) * math.cos(az),
                            math.sin(el)])
        # The far side of the board is "up" in the picture, at any elevation (straight
        # down included, where the azimuth alone says which way the phone is turned).
        up = np.array([-math.sin(az), -math.cos(az), 0.0])
        up = up - up.dot(forward) * forward
        down = -up / np.linalg.norm(up)
        right = np.cross(down, forward)
        roll = math.radians(self.roll)
        x = math.cos(roll) * right + math.sin(roll) * down
        y = -math.sin(roll) * right + math.cos(roll) * down
        return np.stack([x, y, forward])

    @cached_property
    def P(self) -> np.ndarray:
        """(3, 4) projection of internal world points (x, y, -height, 1) to pixels."""
        R = self.R
        t = -R @ self.centre
        return self.K @ np.hstack([R, t[:, None]])

    def homography(self, height: float = 0.0) -> np.ndarray:
        """(3, 3) map from board mm (x, y, 1) on the plane ``height`` mm above the board to
        pixels (``cv2.warpPerspective``'s convention, with a texture scale composed in)."""
        P = self.P
        return np.column_stack([P[:, 0], P[:, 1], P[:, 3] - height * P[:, 2]])

    # -- projecting points

    def project(self, points) -> np.ndarray:
        """(N, 2) pixels of (N, 3) board points ``(x mm, y mm, height mm)`` (or (N, 2) on
        the board plane)."""
        pts = np.asarray(points, float).reshape(-1, np.shape(points)[-1])
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.zeros(len(pts))])
        world = np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2], np.ones(len(pts))])
        img = world @ self.P.T
        return img[:, :2] / img[:, 2:3]

    def depth(self, points) -> np.ndarray:
        """(N,) distance along the optical axis of (N, 3) board points: larger is farther."""
        pts = np.asarray(points, float).reshape(-1, 3)
        world = np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2]])
        return (world - self.centre) @ self.R[2]

    def px_per_mm(self, points) -> np.ndarray:
        """(N,) local scale (px per mm, the larger of the two directions) on the board plane
        at (N, 2) board points: how finely a texture there must be drawn."""
        pts = np.asarray(points, float).reshape(-1, 2)
        base = self.project(pts)
        dx = np.linalg.norm(self.project(pts + [1.0, 0.0]) - base, axis=1)
        dy = np.linalg.norm(self.project(pts + [0.0, 1.0]) - base, axis=1)
        return np.maximum(dx, dy)

    def sees_from(self, x: float, y: float) -> np.ndarray:
        """(2,) horizontal unit vector from the board point (x, y) towards the camera."""
        c = self.centre
        v = np.array([c[0] - x, c[1] - y])
        n = np.linalg.norm(v)
        return v / n if n > 1e-9 else np.zeros(2)

    def as_dict(self) -> dict:
        """The pose for the truth JSON: plain floats, K, and P as a (3, 4) map from board
        points (x mm, y mm, height above the board mm, 1) to homogeneous pixels."""
        d = asdict(self)
        d["resolution"] = list(self.resolution)
        d["target"] = [float(v) for v in self.target]
        d["K"] = self.K.round(4).tolist()
        # in the board's convention: (x mm, y mm, height above the board mm, 1) -> px
        d["P"] = (self.P @ np.diag([1.0, 1.0, -1.0, 1.0])).tolist()
        return d


def focal_px_for(focal_eq_mm: float, resolution: tuple[int, int]) -> float:
    """Focal length in pixels of a 35 mm-equivalent focal length at this resolution.

    >>> round(focal_px_for(26, (4032, 3024)))
    3028
    """
    w, h = resolution
    return focal_eq_mm / FULL_FRAME_DIAGONAL_MM * math.hypot(w, h)


def board_fill(camera: Camera, geometry: BoardGeometry) -> float:
    """The board's projected extent (larger side of its bounding box) / the short side."""
    pts = camera.project(geometry.board_corners_mm())
    extent = (pts.max(0) - pts.min(0)).max()
    return float(extent / min(camera.resolution))


def min_cell_px(camera: Camera, geometry: BoardGeometry) -> float:
    """The shortest projected cell side anywhere on the grid, in px."""
    x0, y0 = geometry.grid_origin_mm
    xs = x0 + np.arange(geometry.cols + 1) * geometry.cell_mm
    ys = y0 + np.arange(geometry.rows + 1) * geometry.cell_mm
    gx, gy = np.meshgrid(xs, ys)
    pts = camera.project(np.column_stack([gx.ravel(), gy.ravel()]))
    pts = pts.reshape(geometry.rows + 1, geometry.cols + 1, 2)
    horizontal = np.linalg.norm(np.diff(pts, axis=1), axis=2)
    vertical = np.linalg.norm(np.diff(pts, axis=0), axis=2)
    return float(min(horizontal.min(), vertical.min()))


def in_frame(camera: Camera, geometry: BoardGeometry, margin: float = 0.0) -> bool:
    """Whether the whole board lies inside the picture, ``margin`` (share of the short
    side) away from its edges."""
    w, h = camera.resolution
    m = margin * min(w, h)
    pts = camera.project(geometry.board_corners_mm())
    return bool((pts[:, 0] >= m).all() and (pts[:, 0] <= w - 1 - m).all()
                and (pts[:, 1] >= m).all() and (pts[:, 1] <= h - 1 - m).all())


def fit_distance(camera: Camera, geometry: BoardGeometry, fill: float) -> Camera:
    """The same pose moved along its line of sight so the board fills ``fill`` of the
    picture's short side (the projected size goes as 1/distance; a few steps converge)."""
    for _ in range(4):
        camera = replace(camera, distance=camera.distance * board_fill(camera, geometry) / fill)
    return camera


def sample_camera(rng: np.random.Generator, geometry: BoardGeometry,
                  resolution: tuple[int, int], ranges: CameraRanges = CameraRanges(),
                  **fixed) -> Camera:
    """A random phone pose over ``geometry`` at ``resolution`` within ``ranges``.

    Any of ``elevation``, ``azimuth``, ``roll``, ``fill``, ``focal_eq_mm`` can be fixed by
    keyword. The board is placed anywhere in the frame with the whole board visible; poses
    whose farthest cell would come out smaller than ``ranges.min_cell_px`` get a larger
    fill, and are drawn again when even the largest fill cannot meet it (so at 1280x720 a
    big board is seen from higher elevations more often).
    """
    unknown = set(fixed) - {"elevation", "azimuth", "roll", "fill", "focal_eq_mm", "offset"}
    if unknown:
        raise TypeError(f"unknown camera parameter(s): {', '.join(sorted(unknown))}")
    board_w, board_h = geometry.size_mm
    centre = (board_w / 2, board_h / 2)
    best = None
    for attempt in range(ranges.tries):
        draw = {k: fixed.get(k, rng.uniform(*getattr(ranges, k)))
                for k in ("elevation", "azimuth", "roll", "fill", "focal_eq_mm")}
        offset = fixed.get("offset", rng.uniform(-1, 1, size=2))
        focal = focal_px_for(draw["focal_eq_mm"], resolution)
        cam = Camera(draw["elevation"], draw["azimuth"] % 360.0, 10 * max(board_w, board_h),
                     focal, tuple(resolution), centre, draw["roll"])
        cam = fit_distance(cam, geometry, draw["fill"])
        cell = min_cell_px(cam, geometry)
        fill = draw["fill"]
        if cell < ranges.min_cell_px:
            fill = fill * ranges.min_cell_px / cell * 1.02
            if fill > ranges.fill[1]:
                best = best or cam
                continue
            cam = fit_distance(cam, geometry, fill)
        placed = _place_in_frame(cam, geometry, np.asarray(offset, float), ranges.edge_margin)
        if placed is None or min_cell_px(placed, geometry) < ranges.min_cell_px:
            # Aiming off-centre moved the far cells a little farther: try it centred.
            placed = _place_in_frame(cam, geometry, np.zeros(2), ranges.edge_margin)
        if (placed is not None and min_cell_px(placed, geometry) >= ranges.min_cell_px
                and ranges.fill[0] <= board_fill(placed, geometry) <= ranges.fill[1]):
            return placed
        best = best or cam
    if "elevation" in fixed or best is None:
        raise ValueError(f"no camera pose meets {ranges.min_cell_px} px a cell at "
                         f"{resolution[0]}x{resolution[1]} for this board within the ranges")
    return sample_camera(rng, geometry, resolution, ranges,
                         **{**fixed, "elevation": 90.0})


def _place_in_frame(cam: Camera, geometry: BoardGeometry, offset: np.ndarray,
                    margin: float) -> Camera | None:
    """Aim the camera off the board's centre so the board sits ``offset`` (-1..1 in x, y)
    of the way towards the picture's edges, keeping it whole in frame."""
    w, h = cam.resolution
    pts = cam.project(geometry.board_corners_mm())
    lo, hi = pts.min(0), pts.max(0)
    m = margin * min(w, h)
    room = np.array([(w - 1 - 2 * m - (hi[0] - lo[0])) / 2, (h - 1 - 2 * m - (hi[1] - lo[1])) / 2])
    if (room < 0).any():
        return None
    mid = (lo + hi) / 2
    want = np.array([(w - 1) / 2, (h - 1) / 2]) + offset * room  # the box's wanted centre
    # Turning the camera moves the picture of the board the other way: aim at the board
    # point that projects where the picture's centre should fall relative to the box.
    aim_px = np.array([(w - 1) / 2, (h - 1) / 2]) + (mid - want)
    for _ in range(3):
        Hinv = np.linalg.inv(cam.homography(0.0))
        p = Hinv @ np.array([aim_px[0], aim_px[1], 1.0])
        cam = replace(cam, target=(float(p[0] / p[2]), float(p[1] / p[2])))
        if in_frame(cam, geometry, margin):
            return cam
        offset = offset * 0.5
        pts = cam.project(geometry.board_corners_mm())
        mid = (pts.min(0) + pts.max(0)) / 2
        want = np.array([(w - 1) / 2, (h - 1) / 2]) + offset * room
        aim_px = np.array([(w - 1) / 2, (h - 1) / 2]) + (mid - want)
    return cam if in_frame(cam, geometry, margin) else None
