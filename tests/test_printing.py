"""calibration.printing: pages the size of the paper, decodable markers where geometry says,
every piece of the set exactly once on the cut-out sheets."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from PIL import Image

from calibration.geometry import CORNERS, board_geometry, decode_marker_id
from calibration.printing import (OVERLAP_MM, full_set, paper_size_mm, print_game,
                                  printable_area_mm, render_pages, sheet_layout, split_board)
from referee.core import GAMES, load_definition
from tests.test_artwork import detect_markers

DPI = 100  # enough for the markers (a 12 mm marker is 47 px) and quick


@lru_cache(maxsize=None)
def pages_of(game, paper="a4", cell_mm=None, rows=None, cols=None):
    return tuple(render_pages(game, paper, cell_mm, rows, cols, dpi=DPI))


def expected_set(game, rows=None, cols=None) -> Counter:
    """The set straight from the game's JSON (not via printing.full_set)."""
    d = load_definition(game)
    if game == "mixmath":
        return Counter({**{int(v): n for v, n in d["tiles"].items()}, "blank": d["blanks"]})
    if game == "calculissimo":
        return Counter({**d["tokens"], "?": d["jokers"]})
    if game == "breakthrough":
        n = d["home_rows"] * (cols or d["cols"])
        return Counter({"w": n, "b": n})
    return Counter()


def boxes_overlap(a, b, eps=1e-6):
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps


CASES = [("mixmath", "a4", None, None, None), ("calculissimo", "letter", None, None, None),
         ("mastermind", "a4", None, None, None), ("breakthrough", "a3", None, None, None),
         ("breakthrough", "a4", 22.0, 5, 6), ("mixmath", "a4", 11.0, None, None)]


@pytest.mark.parametrize("game,paper,cell,rows,cols", CASES)
def test_pages_are_the_paper_at_the_dpi(game, paper, cell, rows, cols):
    w, h = paper_size_mm(paper)
    ppm = DPI / 25.4
    for page in pages_of(game, paper, cell, rows, cols):
        assert page.image.dtype == np.uint8
        assert page.image.shape[:2] in {(round(h * ppm), round(w * ppm)),
                                        (round(w * ppm), round(h * ppm))}
        assert page.legend


@pytest.mark.parametrize("game,paper,cell,rows,cols", CASES)
def test_markers_decode_in_the_right_corners_of_the_board(game, paper, cell, rows, cols):
    geometry = board_geometry(game, rows, cols, cell)
    ppm = DPI / 25.4
    seen = set()
    for page in pages_of(game, paper, cell, rows, cols):
        if page.kind != "board":
            assert detect_markers(page.image) == {}
            continue
        for marker, corners in detect_markers(page.image).items():
            decoded = decode_marker_id(marker)
            assert decoded is not None and decoded[0] == game
            expected = np.array(page.board_origin_px) + geometry.marker_corners_mm(decoded[1]) * ppm
            assert np.abs(corners - expected).max() < 1.5, decoded
            seen.add(decoded[1])
    assert seen == set(CORNERS)


@pytest.mark.parametrize("game", GAMES)
def test_every_piece_of_the_set_is_on_the_sheets_exactly_once(game):
    pages = pages_of(game)
    kinds = {"mixmath": "tiles", "calculissimo": "tokens", "breakthrough": "pieces",
             "mastermind": "calibration"}
    sheets = [p for p in pages if p.kind == kinds[game]]
    assert sheets
    drawn = Counter(v for p in sheets for v, _ in p.items)
    if game == "mastermind":
        palette = load_definition("mastermind")["palette"]
        assert drawn == Counter(palette + ["key red", "key white"])
    else:
        assert drawn == expected_set(game)
    if game == "mixmath":
        assert sum(drawn.values()) == 108
    for page in sheets:
        x0, y0, x1, y1 = printable_area_mm(page.size_mm)
        boxes = [b for _, b in page.items]
        for i, b in enumerate(boxes):
            assert x0 - 1e-6 <= b[0] < b[2] <= x1 + 1e-6 and y0 - 1e-6 <= b[1] < b[3] <= y1 + 1e-6
            assert not any(boxes_overlap(b, o) for o in boxes[i + 1:])


def test_the_sheets_show_a_tile_in_every_box():
    page = next(p for p in pages_of("mixmath") if p.kind == "tiles")
    ppm = DPI / 25.4
    tile_bgr = np.array([196, 238, 252])  # print style's tile face
    for value, (x0, y0, x1, y1) in page.items:
        # a strip near the top of the tile, above the numeral
        patch = page.image[round((y0 + 0.2 * (y1 - y0)) * ppm), round((x0 + x1) / 2 * ppm)]
        assert np.abs(patch.astype(int) - tile_bgr).max() < 20, value


def test_breakthrough_set_follows_rows_and_cols():
    assert Counter(full_set("breakthrough", 5, 6)) == expected_set("breakthrough", 5, 6)
    page = next(p for p in pages_of("breakthrough", "a4", 22.0, 5, 6) if p.kind == "pieces")
    assert len(page.items) == 24


# -- layout functions


def test_split_windows_cover_the_board_and_overlap_by_the_glue_strip():
    for size, paper in [((316.0, 316.0), "a4"), ((600.0, 250.0), "letter"), ((100, 80), "a3")]:
        split = split_board(size, paper)
        x0, y0, x1, y1 = printable_area_mm(split.page_mm)
        xs = sorted({(w[0], w[2]) for w in split.windows})
        ys = sorted({(w[1], w[3]) for w in split.windows})
        assert len(split.windows) == split.cols * split.rows == len(xs) * len(ys)
        for axis, room, length in ((xs, x1 - x0, size[0]), (ys, y1 - y0, size[1])):
            assert axis[0][0] == 0 and axis[-1][1] == pytest.approx(length)
            for (a0, a1), (b0, b1) in zip(axis, axis[1:]):
                assert a1 - b0 == pytest.approx(OVERLAP_MM)
            assert all(b - a <= room + 1e-9 for a, b in axis)


def test_split_uses_the_fewest_pages():
    assert split_board((180.0, 260.0), "a4").pages == 1
    assert split_board((260.0, 180.0), "a4").page_mm == (297.0, 210.0)   # landscape
    assert split_board((316.0, 316.0), "a4").pages == 4
    assert split_board((316.0, 316.0), "a3").pages == 2


def test_sheet_layout_fills_rows_then_sheets():
    sheets = sheet_layout(list(range(7)), 10.0, 10.0, (0.0, 0.0, 35.0, 25.0))
    assert [len(s) for s in sheets] == [6, 1]
    assert [v for s in sheets for v, _ in s] == list(range(7))
    with pytest.raises(ValueError, match="does not fit"):
        sheet_layout([1], 50.0, 50.0, (0.0, 0.0, 40.0, 40.0))


# -- files


def test_png_pages_are_numbered_and_carry_the_dpi(tmp_path):
    paths = print_game("mastermind", tmp_path / "mm.png", dpi=DPI)
    assert [p.name for p in paths] == ["mm-1.png", "mm-2.png"]
    with Image.open(paths[0]) as im:
        assert im.size == (round(210 / 25.4 * DPI), round(297 / 25.4 * DPI))
        assert im.info["dpi"][0] == pytest.approx(DPI, abs=0.5)


def test_pdf_has_a_page_per_sheet_of_the_paper_size(tmp_path):
    out = tmp_path / "set.pdf"
    assert print_game("calculissimo", out, paper="letter", dpi=60) == [out]
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    pages = render_pages("calculissimo", "letter", dpi=60)
    assert data.count(b"/Type /Page\n") == len(pages)
    boxes = set(re.findall(rb"/MediaBox \[[^\]]*\]", data))
    assert boxes and boxes <= {b"/MediaBox [0 0 612.00 792.00]", b"/MediaBox [0 0 792.00 612.00]"}


@pytest.mark.parametrize("kwargs,match", [
    ({"paper": "a5"}, "unknown paper"), ({"rows": 10}, "Breakthrough"),
    ({"cell_mm": 500}, "out of range")])
def test_bad_options_say_what_to_do(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        print_game("mixmath", tmp_path / "x.pdf", **kwargs)


def test_other_extensions_are_refused(tmp_path):
    with pytest.raises(ValueError, match=".pdf or a .png"):
        print_game("mixmath", tmp_path / "x.jpg")
