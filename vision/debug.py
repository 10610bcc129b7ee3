"""What the reader found, drawn on the photo (``boardsight read --debug OUT.png``).

Grid lines where the board was found, each value read at its cell (green when sure, red
when unsure: "check this cell"; a cell read empty but unsure is ringed in red, not marked
"?", which is a joker's value), cells hidden by a hand crossed out in orange. People use
it to see why a read failed, so it draws exactly what the reading says.
"""

from __future__ import annotations

import cv2
import numpy as np

from .reading import UNSURE_BELOW, BoardReading

SURE, UNSURE, HIDDEN, GRID = (60, 200, 60), (40, 40, 235), (0, 150, 255), (255, 200, 0)


def cell_map(reading: BoardReading) -> np.ndarray:
    """3x3 homography from grid units (x = column, y = row, 0..cols, 0..rows) to photo px."""
    corners = getattr(reading, "grid_corners", None)
    corners = reading.corners if corners is None else corners
    src = np.array([[0, 0], [reading.cols, 0], [reading.cols, reading.rows], [0, reading.rows]],
                   np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))


def _to_photo(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float32).reshape(-1, 1, 2), h).reshape(-1, 2)


def draw_reading(image_bgr: np.ndarray, reading: BoardReading, max_side: int = 1600) -> np.ndarray:
    """A copy of the photo (scaled to at most ``max_side`` px) with the reading drawn on it."""
    scale = min(1.0, max_side / max(image_bgr.shape[:2]))
    out = cv2.resize(image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h = np.diag([scale, scale, 1.0]) @ cell_map(reading)
    rows, cols = reading.rows, reading.cols
    for r in range(rows + 1):
        a, b = _to_photo(h, [[0, r], [cols, r]])
        cv2.line(out, tuple(map(int, a)), tuple(map(int, b)), GRID, 1, cv2.LINE_AA)
    for c in range(cols + 1):
        a, b = _to_photo(h, [[c, 0], [c, rows]])
        cv2.line(out, tuple(map(int, a)), tuple(map(int, b)), GRID, 1, cv2.LINE_AA)
    board = _to_photo(np.diag([scale, scale, 1.0]), reading.corners).astype(np.int32)
    cv2.polylines(out, [board], True, GRID, 2, cv2.LINE_AA)
    cv2.putText(out, "TL", tuple(int(v) for v in board[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.6, GRID, 2)

    pitch = np.linalg.norm(np.subtract(*_to_photo(h, [[0, 0], [1, 0]])))
    font_scale = max(0.3, pitch / 45)
    hidden = set(map(tuple, reading.occluded))
    centres = _to_photo(h, [[c + 0.5, r + 0.5] for r in range(rows) for c in range(cols)])
    for k, (x, y) in enumerate(centres):
        r, c = divmod(k, cols)
        if (r, c) in hidden:
            d = int(pitch / 3)
            cv2.line(out, (int(x) - d, int(y) - d), (int(x) + d, int(y) + d), HIDDEN, 2)
            cv2.line(out, (int(x) - d, int(y) + d), (int(x) + d, int(y) - d), HIDDEN, 2)
            continue
        value, conf = reading.cells[r][c], float(reading.confidence[r, c])
        unsure = conf < UNSURE_BELOW
        if value is None:
            if unsure:
                cv2.circle(out, (int(x), int(y)), max(int(pitch / 3), 2), UNSURE, 2, cv2.LINE_AA)
            continue
        text = str(value)
        colour = UNSURE if unsure else SURE
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, 2)
        org = (int(x - tw / 2), int(y + th / 2))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, 2, cv2.LINE_AA)
    caption = (f"{reading.game}: {sum(v is not None for row in reading.cells for v in row)} "
               f"pieces, {len(reading.unsure())} unsure, {len(hidden)} hidden, "
               f"{reading.ms:.0f} ms" + (": take it again" if reading.is_doubtful() else ""))
    cv2.putText(out, caption, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, caption, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2,
                cv2.LINE_AA)
    return out
