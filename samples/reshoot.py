"""A real photo of a board seen again: from another phone pose, in other light.

The real photos in ``../shared/real/`` were all taken straight down with the camera never
moving; the product must read such a set from any pose the visual contract allows
(``../shared/BOARDS.md``: 45-90 degrees, any rotation, cells from 24 px, other light and
phones). :func:`reshoot` maps the photo's board plane, where the board finder put it,
into a random pose of :func:`samples.camera.sample_camera` and gives the picture a random
:func:`samples.light.sample_finish` (white balance, brightness, shadow, glare, blur,
noise, JPEG) over the light it already had.

What it cannot do: the tiles stand a few mm above the board, and a view from the side
would show their edges; re-shot, they stay as flat as they were photographed (the
renders in ``samples.render`` cover the tiles' height). The table beyond the original
picture is filled with its edge's median colour (a plain table).

>>> import numpy as np
>>> from calibration.geometry import BoardGeometry
>>> g = BoardGeometry("mixmath", rows=2, cols=2, margins_mm=(10.0, 10.0, 10.0, 10.0))
>>> image = np.full((400, 400, 3), 90, np.uint8)
>>> board_h = np.array([[5.0, 0, 50], [0, 5.0, 50], [0, 0, 1]])   # mm -> px
>>> shot = reshoot(image, np.linalg.inv(board_h), g, np.random.default_rng(1), (640, 480))
>>> shot.image.shape, shot.camera.resolution
((480, 640, 3), (640, 480))
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from samples.camera import Camera, CameraRanges, sample_camera
from samples.light import Finish, finish_photo, sample_finish
from samples.render import occluded_cells, place_hand, sample_light


@dataclass(frozen=True)
class Reshot:
    """One re-shot photo: the picture, and the pose and light it was given."""

    image: np.ndarray  # (H, W, 3) BGR uint8, decoded from its JPEG when the finish has one
    camera: Camera
    finish: Finish
    jpeg: bytes | None
    occluded: list[list[int]]  # [[row, col], ...] the cells a drawn hand hides (as the renders')


def reshoot(image: np.ndarray, to_board: np.ndarray, geometry: BoardGeometry,
            rng: np.random.Generator, resolution: tuple[int, int] = (1920, 1080),
            ranges: CameraRanges = CameraRanges(), hand: bool = False) -> Reshot:
    """``image`` (BGR uint8) seen by a random camera at ``resolution``; with ``hand``, a
    hand reaching over the board as the renders draw one (:func:`samples.render.place_hand`)
    in a random key light.

    ``to_board``: (3, 3) homography from the image's pixels to the board's mm (a
    :class:`vision.board.BoardLocation`'s ``homography``), ``geometry`` the board's.
    """
    camera = sample_camera(rng, geometry, resolution, ranges)
    to_new = camera.homography() @ to_board            # old px -> new px, on the board plane
    # shrink by halvings first: warpPerspective samples, and a 4080-px photo going to
    # 1080p would alias (the smallest factor the board is shrunk by anywhere is enough)
    src = image
    while _shrink(to_new, geometry, to_board) > 2.0 and min(src.shape[:2]) > 64:
        src = cv2.pyrDown(src)
        to_new = to_new @ np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])
        to_board = to_board @ np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])
    edge = np.concatenate([src[0], src[-1], src[:, 0], src[:, -1]])
    table = tuple(float(v) for v in np.median(edge, axis=0))
    w, h = resolution
    picture = cv2.warpPerspective(src, to_new, (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=table)
    occluded = []
    if hand:
        _, cover = place_hand(picture, camera, geometry, sample_light(rng), rng, None)
        occluded = occluded_cells(cover, camera, geometry) if cover is not None else []
    finish = sample_finish(rng, resolution, camera.project(geometry.board_corners_mm()))
    photo, jpeg = finish_photo(picture, finish)
    return Reshot(photo, camera, finish, jpeg, occluded)


def _shrink(to_new: np.ndarray, geometry: BoardGeometry, to_board: np.ndarray) -> float:
    """The least factor by which ``to_new`` shrinks the board's sides (old px per new px)."""
    old = cv2.perspectiveTransform(geometry.board_corners_mm()[None].astype(np.float64),
                                   np.linalg.inv(to_board))[0]
    new = cv2.perspectiveTransform(old[None], to_new)[0]
    side = lambda pts: np.linalg.norm(pts - np.roll(pts, -1, 0), axis=1)  # noqa: E731
    return float((side(old) / np.maximum(side(new), 1e-9)).min())
