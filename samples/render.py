"""Photos of board positions with exact ground truth, as a phone would take them.

A position (the ``cells`` of ``boardsight read``) is drawn flat by
:mod:`calibration.artwork`, tiles and pieces get their height (:mod:`samples.solids`), and
the board is photographed by a virtual pinhole camera (:mod:`samples.camera`) lying on a
table (:mod:`samples.table`) under some light, sometimes with a cup or a rack beside it
(:mod:`samples.objects`) or a hand over it (:mod:`samples.hand`), then blurred, noised and
JPEG-compressed (:mod:`samples.light`). Every random choice comes from ``seed`` (each part
from its own stream, so fixing one part by keyword leaves the others as they were).

Two tiers: ``tier=1`` is the print-and-play set exactly as ``boardsight print`` draws it
(with markers); ``tier=2`` an "own set" drawn at random within ``../shared/BOARDS.md``
(:mod:`samples.styles`).

>>> import numpy as np
>>> cells = random_cells("breakthrough", np.random.default_rng(1), fill=0.3)
>>> img, truth = render_photo("breakthrough", cells, tier=1, seed=7, resolution=(640, 480))
>>> img.shape, truth["rows"], truth["cells"] == cells
((480, 640, 3), 8, True)

The truth (a JSON-ready dict) beside each photo:

- ``game``, ``rows``, ``cols``, ``cells``: the ``boardsight read`` shape, row 0 at the top
  as the board is oriented (the Mixmath centre 1-2-3-4 squares are null);
- ``corners``, ``grid_corners``: the board's and the playing grid's corners in the
  picture (px, OpenCV's convention: integer coordinates are pixel centres), in the board's
  own order TL TR BR BL however the camera turned it;
- ``hand``: a hand covers part of the board; ``occluded``: ``[[row, col], ...]`` of the
  cells it hides at least COVERED_SHARE of; ``hand_spec``: how it was drawn;
- ``tier``, ``style`` (the Style's fields, faces as file names), ``geometry`` (cell size
  and margins in mm), ``build`` (thicknesses, heights, margin print);
- ``camera``: elevation, azimuth, roll, distance, focal_px, target, K, and P, the (3, 4)
  projection of board points (x mm, y mm, height above the board mm, 1); ``fill`` (board
  extent / short side) and ``min_cell_px``;
- ``resolution``, ``seed``, and how the scene was made: ``table``, ``light``, ``objects``
  (drawn beside the board), ``finish`` (white balance, exposure, shadow, glare, blur,
  noise, JPEG quality); Mastermind ``keys`` ([reds, whites] per row) when key pegs are
  drawn.

Command line (one JPEG and one JSON truth per photo; photo ``i`` is regenerated alone by
``sample_photo(game, tier, photo_seed(seed, i))``)::

    python -m samples.render --game mixmath --tier 2 --n 200 --seed 1 OUTDIR
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zlib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import cv2
import numpy as np

from calibration import artwork
from calibration.geometry import BoardGeometry
from calibration.styles import Style, bgr
from referee.core import GAMES, check_grid, load_definition
from samples import hand as hands
from samples.camera import Camera, board_fill, min_cell_px, sample_camera
from samples.light import Finish, finish_photo, sample_finish
from samples.objects import OBJECT_KINDS, place_objects
from samples.solids import (PROFILES, Light, View, cast_shadows, draw_round_solid,
                            draw_tile_solid, shadow_polygon)
from samples.styles import Build, decorate, print_set, random_set, style_summary
from samples.table import TABLE_KINDS, Table, render_table, sample_table

DEFAULT_RESOLUTION = (1920, 1080)
RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "12mp": (4032, 3024)}
HAND_PROBABILITY = 0.15  # default share of photos with a hand over the board
OBJECT_PROBABILITY = 0.4  # share of photos with things on the table beside the board
COVERED_SHARE = 0.15
HAND_DETAIL = 0.8  # hand sprite px/mm per picture px/mm at the board (the hand is soft)
HAND_MAX_RES = 4.0  # px/mm: a sharper hand costs more than it shows (the arm is 1 m long)
PROBE_RES = 0.4  # px/mm of the rough hand drawn to decide where a hand goes  # a cell is "occluded" when the hand hides this share of it
PPM_STEP = 2 ** 0.25  # board textures are drawn at px/mm on this ladder (draws are cached)
TEXTURE_DETAIL = 0.9  # texture px per picture px at the board's nearest corner
MAX_TEXTURE_PX = 4200  # a board texture's longer side stays under this


@dataclass(frozen=True)
class Scene:
    """Where the set lies and how it is lit: all the random parts of a photo besides the
    set itself, the camera and the finish."""

    table: Table
    light: Light
    objects: tuple[str, ...] = ()
    hand: bool = False
    max_offset: float = 0.1  # tiles and pieces lie up to this share of a cell off centre
    max_angle: float = 10.0  # tiles turn up to this many degrees


_CAMERA_KEYS = {"elevation", "azimuth", "roll", "fill", "focal_eq_mm", "offset"}
_FINISH_KEYS = {f.name for f in fields(Finish)}
_SCENE_KEYS = {"table", "light", "objects", "max_offset", "max_angle"}
_SET_KEYS = {"geometry", "build", "fonts", "keys", "hand_spec", "clean"}


def _rng(seed: int, part: str) -> np.random.Generator:
    """The random stream of one part of a photo."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(part.encode())])


def position_rng(seed: int) -> np.random.Generator:
    """The random stream :func:`sample_photo` draws photo ``seed``'s position from (with
    :func:`random_cells`)."""
    return _rng(seed, "cells")


def photo_seed(seed: int, i: int) -> int:
    """The seed of photo ``i`` of a batch started with ``seed``.

    >>> photo_seed(1, 0) == photo_seed(1, 0) != photo_seed(1, 1)
    True
    """
    return int(np.random.SeedSequence([int(seed), int(i)]).generate_state(1)[0])


# -- positions -------------------------------------------------------------------------------


def random_cells(game: str, rng: np.random.Generator, fill: float | None = None,
                 rows: int | None = None, cols: int | None = None) -> list[list]:
    """A random position of ``game`` in the ``boardsight read`` shape.

    ``fill`` is the share of the board covered (random when None). Mixmath and
    Calculissimo: values drawn from the game's tile/token bag (within its counts, Mixmath
    blanks and Calculissimo jokers "?" included), laid as a connected group grown from
    the centre as in play, the Mixmath centre squares left None. Mastermind: rows filled
    from the bottom with palette colours (the top one sometimes half done). Breakthrough:
    "w" and "b" anywhere, at most two rows' worth of each.
    """
    definition = load_definition(game)
    rows = rows or definition["rows"]
    cols = cols or definition["cols"]
    grid: list[list] = [[None] * cols for _ in range(rows)]
    if fill is None:
        fill = float(rng.uniform(0.0, 0.6 if game in ("mixmath", "calculissimo") else 1.0))
    if game in ("mixmath", "calculissimo"):
        bag = _bag(game, definition)
        centre = set(artwork.printed_numbers(game))
        free = rows * cols - len(centre)
        n = min(len(bag), int(round(fill * free)))
        values = [bag[i] for i in rng.permutation(len(bag))[:n]]
        placed = _grow(rng, rows, cols, centre, n)
        for (r, c), v in zip(placed, values):
            grid[r][c] = v
        if game == "mixmath" and placed:
            # The blanks among n tiles drawn from the whole pouch, on random tiles of the
            # group; drawn last, so that a seed's position is otherwise as before blanks.
            k = int(rng.hypergeometric(definition["blanks"], len(bag), len(placed)))
            for i in rng.choice(len(placed), k, replace=False):
                r, c = placed[i]
                grid[r][c] = "?"
    elif game == "mastermind":
        palette = definition["palette"]
        filled = fill * rows
        for k in range(int(math.ceil(filled))):
            r = rows - 1 - k
            row = list(rng.choice(palette, cols, replace=bool(rng.random() < 0.25)))
            if k + 1 > filled and rng.random() < 0.5:  # a guess being placed
                keep = rng.random(cols) < 0.5
                row = [v if kp else None for v, kp in zip(row, keep)]
            grid[r] = [str(v) if v is not None else None for v in row]
    elif game == "breakthrough":
        cap = 2 * cols
        n = int(round(fill * rows * cols))
        spots = rng.permutation(rows * cols)[:n]
        whites = min(cap, int(rng.integers(0, n + 1)) if n else 0)
        blacks = min(cap, n - whites)
        for k, s in enumerate(spots[:whites + blacks]):
            grid[s // cols][s % cols] = "w" if k < whites else "b"
    else:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return grid


def _bag(game: str, definition: dict) -> list:
    if game == "mixmath":
        return [int(v) for v, n in definition["tiles"].items() for _ in range(n)]
    return ([v for v, n in definition["tokens"].items() for _ in range(n)]
            + ["?"] * definition.get("jokers", 0))


def _grow(rng, rows, cols, blocked: set, n: int) -> list[tuple[int, int]]:
    """``n`` cells forming a connected group that touches the board's centre."""
    start = set(blocked) or {(rows // 2, cols // 2)}
    taken: list[tuple[int, int]] = []
    seen = set(taken) | set(blocked)
    frontier = {(r + dr, c + dc) for r, c in start for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                if 0 <= r + dr < rows and 0 <= c + dc < cols} - seen
    if not blocked:
        frontier |= start
    while len(taken) < n and frontier:
        options = sorted(frontier)
        cell = options[rng.integers(len(options))]
        frontier.discard(cell)
        taken.append(cell)
        seen.add(cell)
        r, c = cell
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nb = (r + dr, c + dc)
            if 0 <= nb[0] < rows and 0 <= nb[1] < cols and nb not in seen:
                frontier.add(nb)
    return taken


# -- the picture --------------------------------------------------------------------------------


def render_photo(game: str, cells, *, tier: int, seed: int,
                 resolution: tuple[int, int] = DEFAULT_RESOLUTION, hand=None,
                 style: Style | None = None, camera: Camera | dict | None = None,
                 **overrides) -> tuple[np.ndarray, dict]:
    """Photograph ``cells`` of ``game`` on a tier-1 or tier-2 set.

    Parameters
    ----------
    cells : rows x cols grid (the ``boardsight read`` shape), None for empty.
    tier : 1 (print-and-play, markers) or 2 (a random own set, no markers).
    seed : every random choice derives from it.
    resolution : (width, height), 1280x720 .. 4032x3024.
    hand : None (a hand over the board in HAND_PROBABILITY of photos), a probability, or
        a bool.
    style : a Style to draw instead of the tier's (the geometry then is the game's
        print-and-play one unless ``geometry=`` is given).
    camera : a Camera, or a dict of pose parameters to fix (elevation, azimuth, roll,
        fill, focal_eq_mm, offset), the rest random.
    **overrides : fix any other part by name: pose parameters as above; Finish fields
        (kelvin, awb, brightness, gradient, shadow, glare, vignette, blur, motion, noise,
        jpeg);
        ``table`` (a Table or a kind: "wood", "cloth", "plain"), ``light`` (a Light),
        ``objects`` (kinds from OBJECT_KINDS, or a bool), ``max_offset``, ``max_angle``;
        ``geometry``, ``build``, ``fonts`` ("train", "held_out", "any"; tier 2),
        ``keys`` (Mastermind key pegs per row: (reds, whites) or None), ``hand_spec`` (a
        HandSpec), ``clean=True`` (no blur, noise, JPEG, glare, shadow or colour cast).

    Returns
    -------
    image : (H, W, 3) BGR uint8, the photo as decoded from its JPEG.
    truth : dict, see the module docstring.
    """
    photo, truth, _ = render(game, cells, tier=tier, seed=seed, resolution=resolution,
                             hand=hand, style=style, camera=camera, **overrides)
    return photo, truth


def render(game: str, cells, *, tier: int, seed: int,
           resolution: tuple[int, int] = DEFAULT_RESOLUTION, hand=None,
           style: Style | None = None, camera: Camera | dict | None = None,
           **overrides) -> tuple[np.ndarray, dict, bytes | None]:
    """:func:`render_photo`, also returning the JPEG bytes (None without JPEG)."""
    unknown = set(overrides) - _CAMERA_KEYS - _FINISH_KEYS - _SCENE_KEYS - _SET_KEYS
    if unknown:
        raise TypeError(f"render_photo got unknown option(s): {', '.join(sorted(unknown))}")
    if tier not in (1, 2):
        raise ValueError(f"tier is 1 (print-and-play) or 2 (own sets), not {tier!r}")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    rows = len(cells)
    cols = len(cells[0]) if rows else 0
    grid = check_grid(cells, rows, cols, "position")

    # the set
    if style is None:
        if tier == 1:
            style, geometry, build = print_set(game, rows, cols)
        else:
            style, geometry, build = random_set(game, _rng(seed, "style"),
                                                overrides.get("fonts", "train"), rows, cols)
    else:
        _, geometry, build = print_set(game, rows, cols)
        if tier == 2:
            build = Build()
    geometry = overrides.get("geometry", geometry)
    build = overrides.get("build", build)
    if (geometry.rows, geometry.cols) != (rows, cols):
        raise ValueError(f"the cells are {rows} x {cols} but the board is "
                         f"{geometry.rows} x {geometry.cols}")

    # the camera
    pose = {k: overrides[k] for k in _CAMERA_KEYS if k in overrides}
    if isinstance(camera, dict):
        pose.update(camera)
        camera = None
    if camera is None:
        camera = sample_camera(_rng(seed, "camera"), geometry, tuple(resolution), **pose)
    w, h = camera.resolution

    # the scene
    scene = _sample_scene(_rng(seed, "scene"), overrides)
    hand_rng = _rng(seed, "hand")
    if hand is None:
        hand = HAND_PROBABILITY
    wants_hand = bool(hand) if isinstance(hand, bool) else bool(hand_rng.random() < float(hand))
    board_px = camera.project(geometry.board_corners_mm())
    finish = sample_finish(_rng(seed, "finish"), (w, h), board_px)
    finish = replace(finish, **{k: overrides[k] for k in _FINISH_KEYS if k in overrides})
    if overrides.get("clean"):
        finish = replace(finish, kelvin=5600.0, brightness=1.0, gradient=(0.0, 0.0),
                         shadow=None, glare=None, vignette=0.0, blur=0.0, noise=0.0, jpeg=None)

    # table, board edge and shadow, objects beside the board
    table_h = -build.board_mm
    img = render_table(scene.table, camera, geometry.size_mm, table_h)
    _board_body(img, camera, geometry, build, scene.light)
    drawn = []
    if scene.objects:
        sprites = []
        if game in artwork.TILE_GAMES:
            bag = _bag(game, load_definition(game))
            srng = _rng(seed, "rack")
            sprites = [artwork.draw_tile(game, bag[i], style, 32)
                       for i in srng.permutation(len(bag))[:int(srng.integers(3, 8))]]
        drawn = place_objects(img, camera, geometry, scene.light, _rng(seed, "objects"),
                              scene.objects, table_h, sprites)

    # the board with its tiles and pieces
    texture, mask, view = _board_texture(game, grid, style, geometry, build, camera, scene,
                                         _rng(seed, "pieces"), overrides.get("keys"))
    T = np.array([[1 / view.ppm, 0, -view.pad], [0, 1 / view.ppm, -view.pad], [0, 0, 1]])
    _composite(img, texture, mask, camera.homography(0.0) @ T)

    # a hand over the board
    cover = None
    hand_spec = overrides.get("hand_spec")
    if wants_hand or hand_spec is not None:
        hand_spec, cover = place_hand(img, camera, geometry, scene.light, hand_rng, hand_spec)
    occluded = occluded_cells(cover, camera, geometry) if cover is not None else []

    photo, jpeg = finish_photo(img, finish)
    truth = _truth(game, grid, tier, seed, style, geometry, build, camera, scene, finish,
                   drawn, hand_spec if cover is not None else None, cover, occluded,
                   overrides.get("keys"))
    return photo, truth, jpeg


def sample_light(rng: np.random.Generator) -> Light:
    """The key light of a random scene: from any side, 35-80 degrees up."""
    a = rng.uniform(0, 2 * math.pi)
    return Light(direction=(math.cos(a), math.sin(a)), elevation=float(rng.uniform(35, 80)),
                 shadow=float(rng.uniform(0.25, 0.55)), softness=float(rng.uniform(0.05, 0.25)))


def _sample_scene(rng: np.random.Generator, overrides: dict) -> Scene:
    table = overrides.get("table")
    if not isinstance(table, Table):
        if table is not None and table not in TABLE_KINDS:
            raise ValueError(f"table is a Table or one of {', '.join(TABLE_KINDS)}")
        table = sample_table(rng, table)
    else:
        rng.random()
    if overrides.get("light"):
        rng.uniform()   # the draw a random light begins with: the draws after it stay put
        light = overrides["light"]
    else:
        light = sample_light(rng)
    objects = overrides.get("objects")
    if objects is None or objects is True:
        if objects is True or rng.random() < OBJECT_PROBABILITY:
            k = int(rng.integers(1, 3))
            objects = tuple(OBJECT_KINDS[i] for i in rng.permutation(len(OBJECT_KINDS))[:k])
        else:
            objects = ()
    elif objects is False:
        objects = ()
    return Scene(table=table, light=light, objects=tuple(objects),
                 max_offset=float(overrides.get("max_offset", 0.1)),
                 max_angle=float(overrides.get("max_angle", 10.0)))


def _board_body(img, camera: Camera, geometry: BoardGeometry, build: Build, light: Light):
    """The board's soft shadow on the table and its visible cut edges (in place)."""
    from samples.objects import _soft_shadow

    t = build.board_mm
    corners = geometry.board_corners_mm()
    top = np.column_stack([corners, np.zeros(4)])
    bottom = np.column_stack([corners, np.full(4, -t)])
    sv = light.shadow_vector
    foot = np.concatenate([corners, corners + sv * t + 0.0])
    shadow = camera.project(np.column_stack([foot, np.full(8, -t)]))
    shadow = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2)
    ppm = float(camera.px_per_mm(corners.mean(0, keepdims=True))[0])
    _soft_shadow(img, shadow, replace(light, shadow=light.shadow * 0.8), sigma=(1.5 + t) * ppm)
    eye = camera.centre[:2]
    centre = corners.mean(0)
    edge = np.array(bgr(build.board_edge_rgb), float)
    for i in range(4):
        j = (i + 1) % 4
        mid = (corners[i] + corners[j]) / 2
        normal = (mid - centre) / np.linalg.norm(mid - centre)
        if normal @ (eye - mid) <= 0:
            continue
        quad = camera.project(np.array([top[i], top[j], bottom[j], bottom[i]]))
        k = float(light.facing(normal[None, :])[0])
        cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32),
                           tuple(float(v) for v in edge * k), cv2.LINE_AA, 4)


def _texture_ppm(camera: Camera, geometry: BoardGeometry) -> float:
    """Texture px/mm matched to the board's nearest (largest) projection, on a ladder."""
    need = float(camera.px_per_mm(geometry.board_corners_mm()).max()) * TEXTURE_DETAIL
    need = min(need, MAX_TEXTURE_PX / max(geometry.size_mm))
    return float(PPM_STEP ** math.ceil(math.log(max(need, 0.5), PPM_STEP)))


def _board_texture(game, grid, style: Style, geometry: BoardGeometry, build: Build,
                   camera: Camera, scene: Scene, rng: np.random.Generator, keys):
    """The board as the camera sees it from straight along its rays: the flat board with
    every tile and piece drawn at its apparent place (:mod:`samples.solids`), on a texture
    padded round the board for pieces that lean out over its edge. Returns (texture BGR,
    mask uint8 of what is board or piece, the View)."""
    ppm = _texture_ppm(camera, geometry)
    c = camera.centre
    view0 = View(nadir=(float(c[0]), float(c[1])), height=float(-c[2]), ppm=ppm, pad=0.0)
    light = scene.light
    solids = _solids(game, grid, style, geometry, build, rng, scene, keys)
    tallest = max((s["height"] for s in solids), default=0.0)
    corners = geometry.board_corners_mm()
    reach = float(np.linalg.norm(corners - view0.nadir, axis=1).max())
    pad = 3.0 + reach * (view0.scale(tallest) - 1) + (geometry.cell_mm if solids else 0)
    pad = min(pad, 0.5 * max(geometry.size_mm))
    pad_px = int(math.ceil(pad * ppm))
    view = replace(view0, pad=pad_px / ppm)
    board = artwork.draw_board(geometry, style, ppm)
    decorate(board, geometry, build, ppm, style.label_font)
    bh, bw = board.shape[:2]
    texture = np.zeros((bh + 2 * pad_px, bw + 2 * pad_px, 3), np.uint8)
    texture[pad_px:pad_px + bh, pad_px:pad_px + bw] = board
    mask = np.zeros(texture.shape[:2], np.uint8)
    mask[pad_px:pad_px + bh, pad_px:pad_px + bw] = 255
    # shadows first, on the bare board
    polys, heights = [], []
    for s in solids:
        polys.append(shadow_polygon(view, light, s["footprint"], s["height"]))
        heights.append(s["height"] * ppm)
    cast_shadows(texture, polys, heights, light)
    # then the solids, farthest from the camera first
    nadir = np.asarray(view.nadir)
    for s in sorted(solids, key=lambda s: -np.linalg.norm(s["centre"] - nadir)):
        if s["kind"] == "tile":
            draw_tile_solid(texture, mask, view, light, s["centre"], s["side"], s["angle"],
                            s["height"], s["edge"], s["sprite"](view.scale(s["height"]) * ppm),
                            s["shade"])
        else:
            draw_round_solid(texture, mask, view, light, s["centre"], s["radius"], s["shape"],
                             s["colour"], s["sprite"](view.scale(s["height"]) * ppm))
    return texture, mask, view


def _solids(game, grid, style: Style, geometry: BoardGeometry, build: Build, rng,
            scene: Scene, keys) -> list[dict]:
    """Every tile, peg or piece to draw: where, how big, how tall, with which top view."""
    cell = geometry.cell_mm
    centres = geometry.cell_centres_mm()
    out = []
    occupied = [[v is not None for v in row] for row in grid]
    # One random stream per cell: a piece keeps its offset, turn and shade when others are
    # added, as on a real table (recorded games photograph the same pieces move after move).
    base = int(rng.integers(2**32))
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if value is None:
                continue
            rng = np.random.default_rng((base, r, c))
            if game in artwork.TILE_GAMES:
                side = style.tile_frac * cell
                angle = float(_spread(rng, scene.max_angle))
                offset = _tile_offset(rng, occupied, r, c, style.tile_frac, angle,
                                      scene.max_offset) * cell
                centre = centres[r, c] + offset
                edge = bgr(build.tile_side_rgb) if build.tile_side_rgb else tuple(
                    int(v * 0.8) for v in bgr(style.tile_edge_rgb))
                shade = 1 + float(rng.uniform(-1, 1)) * build.tile_shade
                out.append(dict(kind="tile", centre=centre, side=side, angle=angle,
                                height=build.tile_mm, edge=edge, shade=shade,
                                footprint=_square(centre, side, angle),
                                sprite=_tile_sprite(game, value, style, side)))
            else:
                if game == "mastermind":
                    radius, shape = style.peg_frac * cell / 2, "peg"
                    colour = bgr(style.peg_rgb(value))
                    offset = rng.uniform(-0.025, 0.025, 2) * cell
                else:
                    radius, shape = style.piece_frac * cell / 2, style.piece_shape
                    colour = bgr(style.piece_colour(value))
                    offset = _spread(rng, scene.max_offset, 2) * cell
                out.append(_round(game, value, style, centres[r, c] + offset, radius, shape,
                                  colour, build))
    if game == "mastermind" and keys is not None:
        holes = geometry.key_hole_centres_mm()
        red, white = style.key_palette[0][0], style.key_palette[1][0]
        for r, fb in enumerate(keys):
            if fb is None:
                continue
            reds, whites = fb
            for hole, colour in zip(holes[r], [red] * reds + [white] * whites):
                out.append(_round(game, colour, style, hole, style.key_peg_frac * cell / 2,
                                  "peg", bgr(style.peg_rgb(colour)), build, 0.8))
    return out


def _round(game, value, style, centre, radius, shape, colour, build, tall=1.0) -> dict:
    spec = PROFILES[shape]
    k = build.piece_height * tall
    solid = dict(profile=tuple((z * k, r) for z, r in spec["profile"]))
    if "head" in spec:
        solid["head"] = (spec["head"][0] * k, spec["head"][1])
        top = solid["head"][0] + solid["head"][1]
    else:
        solid["top"], solid["top_r"] = spec["top"] * k, spec["top_r"]
        top = max(z for z, _ in solid["profile"])
    return dict(kind="round", centre=np.asarray(centre, float), radius=radius, shape=solid,
                colour=colour, height=top * radius, footprint=_disc(centre, radius),
                sprite=lambda ppm_at_top: artwork.draw_piece_top(
                    game, value, style, max(3, int(round(2 * radius * ppm_at_top)))))


def _tile_sprite(game, value, style, side):
    return lambda ppm_at_top: artwork.draw_tile(game, value, style,
                                                max(4, int(round(side * ppm_at_top))))


def _tile_offset(rng, occupied, r, c, frac, angle, max_offset) -> np.ndarray:
    """A tile's offset (share of a cell): up to ``max_offset`` towards a free neighbour,
    only into the gap towards a taken one (tiles do not overlap)."""
    a = math.radians(abs(angle))
    reach = frac * (math.cos(a) + math.sin(a)) / 2  # half the turned tile's extent
    gap = max(0.0, 0.5 - reach)
    rows, cols = len(occupied), len(occupied[0])

    def limit(dr, dc):
        rr, cc = r + dr, c + dc
        taken = 0 <= rr < rows and 0 <= cc < cols and occupied[rr][cc]
        return min(max_offset, gap) if taken else max_offset

    x, y = _spread(rng, 1.0, 2)
    x = x * (limit(0, 1) if x > 0 else limit(0, -1))
    y = y * (limit(1, 0) if y > 0 else limit(-1, 0))
    return np.array([x, y])


def _spread(rng, limit: float, size=None):
    """How far people misplace things: mostly a little, now and then up to ``limit``
    (a normal of ``limit / 3`` clipped to +-limit)."""
    return np.clip(rng.normal(0.0, limit / 3, size), -limit, limit)


def _square(centre, side, angle) -> np.ndarray:
    a = math.radians(angle)
    u = np.array([math.cos(a), -math.sin(a)]) * side / 2
    v = np.array([math.sin(a), math.cos(a)]) * side / 2
    c = np.asarray(centre, float)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def _disc(centre, radius, n: int = 16) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.asarray(centre, float) + radius * np.stack([np.cos(a), np.sin(a)], 1)


def _composite(img: np.ndarray, texture: np.ndarray, mask: np.ndarray, M: np.ndarray) -> None:
    """Warp the board texture into the picture where its mask says (in place)."""
    h, w = img.shape[:2]
    th, tw = mask.shape
    corners = np.array([[0, 0], [tw - 1, 0], [tw - 1, th - 1], [0, th - 1]], np.float32)
    p = cv2.perspectiveTransform(corners[None], M)[0]
    x0, y0 = np.maximum(np.floor(p.min(0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(p.max(0)).astype(int) + 2, [w, h])
    if x0 >= x1 or y0 >= y1:
        return
    S = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ M
    size = (int(x1 - x0), int(y1 - y0))
    tex = cv2.warpPerspective(texture, S, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpPerspective(mask, S, size, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT)
    a = a.astype(np.float32) * np.float32(1 / 255)
    img[y0:y1, x0:x1] = cv2.blendLinear(tex, img[y0:y1, x0:x1], a, 1 - a)


# -- the hand ---------------------------------------------------------------------------------


def place_hand(img, camera: Camera, geometry: BoardGeometry, light: Light, rng,
               spec: hands.HandSpec | None):
    """Draw a hand reaching over the board (a given one, or a random one whose picture
    covers part of the grid). Returns (spec, coverage (H, W) float32)."""
    x0, y0 = geometry.grid_origin_mm
    gw, gh = geometry.grid_size_mm
    res = min(HAND_MAX_RES,
              float(camera.px_per_mm([[x0 + gw / 2, y0 + gh / 2]])[0]) * HAND_DETAIL)
    if spec is None:
        grid_px = camera.project(geometry.grid_corners_mm())
        grid_mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(grid_mask, np.round(grid_px).astype(np.int32), 255)
        for attempt in range(8):
            tip = (x0 + rng.uniform(0.1, 0.9) * gw, y0 + rng.uniform(0.1, 0.9) * gh)
            cand = hands.sample_hand(rng, tip)
            if not hands.arm_fits(cand, camera):
                cand = replace(cand, tilt=3.0, tip_height=min(cand.tip_height, 25.0))
                if not hands.arm_fits(cand, camera):
                    continue
            probe = hands.hand_cover(cand, camera, PROBE_RES)
            if (probe[grid_mask > 0] > 0.5).sum() > 0.02 * (grid_mask > 0).sum():
                spec = cand
                break
        if spec is None:
            return None, None
    cover = hands.draw_hand(img, spec, camera, light, res)
    return spec, cover


def occluded_cells(cover: np.ndarray, camera: Camera, geometry: BoardGeometry,
                   px_per_cell: int = 8) -> list[list[int]]:
    """[[row, col], ...] of the cells the hand hides at least COVERED_SHARE of."""
    n = px_per_cell
    x0, y0 = geometry.grid_origin_mm
    k = n / geometry.cell_mm
    # grid px -> board mm -> picture px
    G = np.array([[1 / k, 0, x0 + 0.5 / k], [0, 1 / k, y0 + 0.5 / k], [0, 0, 1]], float)
    M = camera.homography(0.0) @ G
    share = cv2.warpPerspective(cover, M, (geometry.cols * n, geometry.rows * n),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    share = share.reshape(geometry.rows, n, geometry.cols, n).mean(axis=(1, 3))
    return [[int(r), int(c)] for r, c in zip(*np.nonzero(share >= COVERED_SHARE))]


# -- the truth -------------------------------------------------------------------------------


def _truth(game, grid, tier, seed, style, geometry: BoardGeometry, build, camera: Camera,
           scene: Scene, finish: Finish, drawn, hand_spec, cover, occluded, keys) -> dict:
    """What the photo shows, in the ``boardsight read`` shape plus how it was made."""
    board = camera.project(geometry.board_corners_mm())
    grid_px = camera.project(geometry.grid_corners_mm())
    on_board = False
    if cover is not None:
        mask = np.zeros(cover.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(board).astype(np.int32), 1)
        on_board = bool((cover[mask > 0] > 0.5).any())
    cam = camera.as_dict()
    cam["fill"] = board_fill(camera, geometry)
    cam["min_cell_px"] = min_cell_px(camera, geometry)
    return {
        "game": game,
        "rows": geometry.rows,
        "cols": geometry.cols,
        "cells": [list(row) for row in grid],
        "corners": board.round(3).tolist(),
        "grid_corners": grid_px.round(3).tolist(),
        "hand": on_board,
        "occluded": occluded,
        "tier": tier,
        "style": style_summary(style),
        "geometry": {"cell_mm": geometry.cell_mm, "margins_mm": list(geometry.margins_mm),
                     "size_mm": list(geometry.size_mm)},
        "build": asdict(build),
        "camera": cam,
        "resolution": list(camera.resolution),
        "seed": int(seed),
        "table": asdict(scene.table),
        "light": asdict(scene.light),
        "objects": list(drawn),
        "finish": asdict(finish),
        "hand_spec": asdict(hand_spec) if hand_spec is not None else None,
        **({"keys": [list(k) if k is not None else None for k in keys]} if keys is not None
           else {}),
    }


# -- batches and the command line ----------------------------------------------------------------


def sample_photo(game: str, tier: int, seed: int, fill: float | None = None,
                 rows: int | None = None, cols: int | None = None, **kwargs):
    """A random position of ``game`` photographed: (image, truth, jpeg bytes). Everything,
    the position included, derives from ``seed`` (see :func:`photo_seed` for batches).
    Mastermind rows that are complete get the key pegs of a random secret code."""
    rng = position_rng(seed)
    cells = random_cells(game, rng, fill=fill, rows=rows, cols=cols)
    if game == "mastermind" and "keys" not in kwargs:
        palette = load_definition(game)["palette"]
        secret = [str(v) for v in rng.choice(palette, len(cells[0]), replace=False)]
        kwargs["keys"] = [feedback(row, secret) if all(v is not None for v in row) else None
                          for row in cells]
    return render(game, cells, tier=tier, seed=seed, **kwargs)


def feedback(guess, secret) -> tuple[int, int]:
    """Mastermind key pegs (reds: right colour, right hole; whites: right colour, wrong
    hole).

    >>> feedback(["red", "blue", "green", "pink"], ["red", "green", "blue", "white"])
    (1, 2)
    """
    reds = sum(g == s for g, s in zip(guess, secret))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return reds, common - reds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m samples.render",
        description="Render random positions as phone photos with ground-truth JSON.")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--game", required=True, choices=GAMES)
    parser.add_argument("--tier", type=int, choices=(1, 2), default=2)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolution", default="1080p",
                        help="1080p, 720p, 12mp or WxH (default 1080p)")
    parser.add_argument("--hand", type=float, default=None,
                        help=f"probability of a hand over the board (default {HAND_PROBABILITY})")
    parser.add_argument("--fill", type=float, default=None, help="share of the board covered")
    parser.add_argument("--fonts", choices=("train", "held_out", "any"), default="train",
                        help="numeral faces of tier-2 sets: the train or held-out split")
    parser.add_argument("--rows", type=int, default=None, help="board rows (Breakthrough)")
    parser.add_argument("--cols", type=int, default=None, help="board columns (Breakthrough)")
    args = parser.parse_args(argv)
    res = RESOLUTIONS.get(args.resolution.lower())
    if res is None:
        try:
            res = tuple(int(v) for v in args.resolution.lower().split("x"))
        except ValueError:
            parser.error(f"resolution {args.resolution!r} is not 1080p, 720p, 12mp or WxH")
    from tqdm import tqdm

    args.outdir.mkdir(parents=True, exist_ok=True)
    for i in tqdm(range(args.n), desc=f"{args.game} tier {args.tier}", unit="photo"):
        s = photo_seed(args.seed, i)
        photo, truth, jpeg = sample_photo(args.game, args.tier, s, fill=args.fill,
                                          rows=args.rows, cols=args.cols, resolution=res,
                                          hand=args.hand, fonts=args.fonts)
        stem = args.outdir / f"{args.game}-t{args.tier}-{args.seed}-{i}"
        truth["batch"] = {"seed": args.seed, "i": i}
        stem.with_suffix(".jpg").write_bytes(jpeg)
        stem.with_suffix(".json").write_text(json.dumps(truth) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
