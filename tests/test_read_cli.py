"""`boardsight read` and `boardsight calibrate`: the contract of ARCHITECTURE.md (JSON
shape, exit 2 for an unreadable file, 3 for no board), bad input, and the readings
themselves on the committed sample games and the real Mathable photos."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from boardsight.cli import EXIT_NO_BOARD, EXIT_OK, EXIT_UNREADABLE, main
from samples.light import motion_kernel

ROOT = Path(__file__).parents[1]
GAMES = ROOT / "samples" / "games"
REAL = ROOT.parent / "shared" / "real" / "mathable"
CONTRACT = {"game", "rows", "cols", "cells", "confidence", "corners", "ms"}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    return code, json.loads(capsys.readouterr().out)


def recorded(game: str) -> tuple[dict, list[dict]]:
    truth = json.loads((GAMES / game / "game.json").read_text())
    return truth, truth["photos"]


@pytest.mark.parametrize("game", ["mixmath", "calculissimo"])
def test_read_a_committed_sample_photo(capsys, game):
    truth, photos = recorded(game)
    last = photos[len(photos) // 2]
    code, out = run(capsys, "read", GAMES / game / last["file"], "--game", game, "--json")
    assert code == EXIT_OK
    assert set(out) >= CONTRACT and out["game"] == game
    assert (out["rows"], out["cols"]) == (truth["rows"], truth["cols"])
    assert out["cells"] == last["cells"]
    conf = np.array(out["confidence"])
    assert conf.shape == (truth["rows"], truth["cols"]) and 0 <= conf.min() <= conf.max() <= 1
    assert len(out["corners"]) == 4 and out["ms"] > 0


def test_recorded_games_read_right_nearly_everywhere():
    """Every photo of the committed recordings: at most one cell in a thousand wrong (the
    propped-up camera's glare washes out a tile or two of the Mixmath game)."""
    from vision.reader import read_board
    wrong = cells = 0
    for game in ("mixmath", "calculissimo"):
        truth, photos = recorded(game)
        for photo in photos:
            reading = read_board(cv2.imread(str(GAMES / game / photo["file"])), game)
            for r, row in enumerate(photo["cells"]):
                for c, v in enumerate(row):
                    cells += 1
                    wrong += reading.cells[r][c] != v
    assert wrong <= 0.001 * cells


def test_read_prints_a_grid_and_draws_what_it_found(capsys, tmp_path):
    truth, photos = recorded("mixmath")
    debug = tmp_path / "debug.png"
    code = main(["read", str(GAMES / "mixmath" / photos[3]["file"]), "--game", "mixmath",
                 "--debug", str(debug)])
    text = capsys.readouterr().out
    assert code == EXIT_OK
    assert text.startswith("mixmath 14x14") and len(text.splitlines()) >= 15
    assert "every cell is unsure" not in text
    drawn = cv2.imread(str(debug))
    assert drawn is not None and drawn.shape[2] == 3 and max(drawn.shape[:2]) >= 800


def test_a_photo_smeared_by_motion_is_to_be_taken_again(capsys, tmp_path):
    """The camera moved: every glyph smeared along one direction (~20 px at 1080p). The
    reading doubts the photo as a whole, and says what to do."""
    truth, photos = recorded("mixmath")
    image = cv2.imread(str(GAMES / "mixmath" / photos[3]["file"]))
    moved = tmp_path / "moved.png"
    cv2.imwrite(str(moved), cv2.filter2D(image, -1, motion_kernel(21, 30)))
    code = main(["read", str(moved), "--game", "mixmath"])
    text = capsys.readouterr().out
    assert code == EXIT_OK
    assert "every cell is unsure" in text and "take it again" in text


def test_not_an_image_is_exit_2(capsys, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("shopping list")
    code, out = run(capsys, "read", bad, "--game", "mixmath", "--json")
    assert code == EXIT_UNREADABLE and "not an image" in out["error"]


def test_missing_file_is_exit_2(capsys, tmp_path):
    code, out = run(capsys, "read", tmp_path / "nope.jpg", "--game", "mixmath")
    assert code == EXIT_UNREADABLE and "no such file" in out["error"]


def test_truncated_jpeg_is_exit_2(capsys, tmp_path):
    data = (GAMES / "mixmath" / "photo-000.jpg").read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) // 2])
    code, out = run(capsys, "read", cut, "--game", "mixmath", "--json")
    assert code == EXIT_UNREADABLE and "truncated" in out["error"]


def _heic(image_bgr: np.ndarray, quality: int = 90) -> bytes:
    """The picture as an iPhone saves it: HEIC (HEVC in a HEIF container)."""
    import io

    import pillow_heif
    from PIL import Image
    out = io.BytesIO()
    pillow_heif.from_pillow(Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))).save(
        out, format="HEIF", quality=quality)
    return out.getvalue()


def test_an_iphone_heic_photo_is_read_as_its_jpeg(capsys, tmp_path):
    """iPhones save HEIC by default: such a photo of a recorded game is decoded to the same
    picture (HEVC's own losses aside) and read, every cell as the truth has it."""
    from vision.photo import decode_photo
    truth, photos = recorded("calculissimo")
    last = photos[-1]
    jpeg = cv2.imread(str(GAMES / "calculissimo" / last["file"]))
    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(_heic(jpeg))
    decoded = decode_photo(heic.read_bytes())
    assert decoded.shape == jpeg.shape and decoded.dtype == np.uint8
    assert np.abs(decoded.astype(int) - jpeg).mean() < 3
    code, out = run(capsys, "read", heic, "--game", "calculissimo", "--json")
    assert code == EXIT_OK and out["cells"] == last["cells"]


def test_a_truncated_or_oversized_heic_is_refused(capsys, tmp_path):
    from vision.photo import UnreadablePhoto, decode_photo
    data = _heic(np.full((64, 96, 3), 200, np.uint8))
    cut = tmp_path / "cut.heic"
    cut.write_bytes(data[: len(data) // 2])
    code, out = run(capsys, "read", cut, "--game", "mixmath", "--json")
    assert code == EXIT_UNREADABLE and "HEIC" in out["error"] and "truncated" in out["error"]
    with pytest.raises(UnreadablePhoto, match="megapixels"):    # from the header, undecoded
        decode_photo(data, max_pixels=64 * 96 - 1)


def _saved_by_another_app(image_bgr: np.ndarray, kind: str) -> bytes:
    """The picture as other apps save it: a screenshot (RGBA PNG), a raw converter's 16-bit
    PNG, a WebP or TIFF export, or a phone held sideways (the pixels stored turned, the
    EXIF orientation tag saying how to stand them up)."""
    import io

    from PIL import Image
    if kind == "rgba png":
        return cv2.imencode(".png", cv2.cvtColor(image_bgr, cv2.COLOR_BGR2BGRA))[1].tobytes()
    if kind == "16-bit png":
        return cv2.imencode(".png", image_bgr.astype(np.uint16) * 257)[1].tobytes()
    rgb = Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))
    out = io.BytesIO()
    if kind == "sideways jpeg":
        stored = rgb.transpose(Image.Transpose.ROTATE_90)    # turned a quarter anticlockwise
        exif = stored.getexif()
        exif[0x0112] = 6     # EXIF orientation 6: to be turned a quarter clockwise to view
        stored.save(out, format="JPEG", quality=95, exif=exif)
    else:
        rgb.save(out, format=kind.upper(), **({"lossless": True} if kind == "webp" else {}))
    return out.getvalue()


@pytest.mark.parametrize("kind", ["rgba png", "16-bit png", "webp", "tiff", "sideways jpeg"])
def test_a_photo_saved_by_another_app_decodes_to_the_same_picture(kind):
    from vision.photo import decode_photo
    _, photos = recorded("mixmath")
    image = cv2.imread(str(GAMES / "mixmath" / photos[-1]["file"]))
    decoded = decode_photo(_saved_by_another_app(image, kind))
    assert decoded.shape == image.shape and decoded.dtype == np.uint8
    assert np.abs(decoded.astype(int) - image).mean() < (2 if kind == "sideways jpeg" else 0.01)


def test_a_photo_taken_sideways_reads_as_taken_upright(capsys, tmp_path):
    _, photos = recorded("mixmath")
    upright = GAMES / "mixmath" / photos[len(photos) // 2]["file"]
    sideways = tmp_path / "IMG_0002.JPG"
    sideways.write_bytes(_saved_by_another_app(cv2.imread(str(upright)), "sideways jpeg"))
    code, out = run(capsys, "read", sideways, "--game", "mixmath", "--json")
    assert code == EXIT_OK
    assert out["cells"] == photos[len(photos) // 2]["cells"]
    _, straight = run(capsys, "read", upright, "--game", "mixmath", "--json")
    assert np.abs(np.subtract(out["corners"], straight["corners"])).max() < 2


def test_a_100_megapixel_image_is_refused_before_decoding(capsys, tmp_path):
    big = tmp_path / "panorama.png"
    ok, png = cv2.imencode(".png", np.zeros((10_000, 10_000), np.uint8))
    big.write_bytes(png.tobytes())
    code, out = run(capsys, "read", big, "--game", "mixmath", "--json")
    assert code == EXIT_UNREADABLE and "100 megapixels" in out["error"]


def test_a_table_with_no_board_is_exit_3(capsys, tmp_path):
    from calibration.geometry import board_geometry
    from samples.camera import sample_camera
    from samples.render import DEFAULT_RESOLUTION
    from samples.table import render_table, sample_table

    g = board_geometry("mixmath")
    rng = np.random.default_rng(5)
    camera = sample_camera(rng, g, DEFAULT_RESOLUTION)
    table = render_table(sample_table(rng, "wood"), camera, g.size_mm, 0.0)
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), table)
    code, out = run(capsys, "read", path, "--game", "mixmath", "--json")
    assert code == EXIT_NO_BOARD and out["error"]


def test_an_unknown_profile_is_exit_2(capsys):
    code, out = run(capsys, "read", GAMES / "mixmath" / "photo-000.jpg", "--game", "mixmath",
                    "--profile", "no-such-set")
    assert code == EXIT_UNREADABLE and "no-such-set" in out["error"]


# ----------------------------------------------------------------------- calibrate

def test_calibrate_learns_a_set_that_read_then_recognises(capsys, tmp_path, monkeypatch,
                                                           real_truth):
    """The Mathable set calibrated afresh into a user profile folder: board, tiles' colour
    and font; read then finds it by itself and reads a game photo right."""
    monkeypatch.setenv("BOARDSIGHT_PROFILES", str(tmp_path))
    code, out = run(capsys, "calibrate", "mixmath", "--empty", REAL / "empty-2.jpg",
                    "--tiles", REAL / "tile-set.jpg", "--name", "my-mathable")
    assert code == EXIT_OK
    assert sorted(Path(f).name for f in out["files"]) == ["my-mathable.glyphs.npz",
                                                          "my-mathable.json"]
    assert out["glyphs"] >= 70 and len(out["tile_colour_lab"]) == 3
    profile = json.loads((tmp_path / "my-mathable.json").read_text())
    assert profile["game"] == "mixmath" and "tile" in profile["colours_lab"]
    assert "empty-2.jpg" in profile["source"]

    from calibration.profiles import known_profiles, load_profile
    assert "my-mathable" in known_profiles("mixmath")
    assert load_profile("my-mathable").glyphs == str(tmp_path / "my-mathable.glyphs.npz")
    code, out = run(capsys, "read", REAL / "game-12.jpg", "--game", "mixmath", "--json",
                    "--profile", "my-mathable")
    assert code == EXIT_OK and out["cells"] == real_truth["game-12.jpg"]["cells"]


def test_calibrate_refuses_a_tile_photo_out_of_order(capsys, tmp_path, real_truth):
    """A game photo is not a tile-set photo: nothing is written."""
    code, out = run(capsys, "calibrate", "mixmath", "--empty", REAL / "empty-1.jpg",
                    "--tiles", REAL / "game-19.jpg", "--out", tmp_path)
    assert code == EXIT_UNREADABLE and "expected 46" in out["error"]
    assert list(tmp_path.iterdir()) == []


def test_calibrate_with_no_board_is_exit_3(capsys, tmp_path):
    blank = tmp_path / "wall.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 200, np.uint8))
    code, out = run(capsys, "calibrate", "mixmath", "--empty", blank, "--out", tmp_path)
    assert code == EXIT_NO_BOARD and "no mixmath board" in out["error"]
    assert list(tmp_path.iterdir()) == [blank]


def test_the_debug_drawing_rings_an_unsure_empty_cell_and_writes_a_jokers_value():
    """An unsure empty cell is ringed in red (no "?": that is a joker's value); an unsure
    joker is written "?" in red; a sure empty cell is left as photographed."""
    import numpy as np

    from vision.debug import UNSURE, draw_reading
    from vision.reading import BoardReading
    photo = np.full((400, 400, 3), 255, np.uint8)
    corners = [[0, 0], [400, 0], [400, 400], [0, 400]]
    reading = BoardReading("calculissimo", 2, 2, [[None, "?"], [None, "5"]],
                           np.array([[0.5, 0.5], [1.0, 1.0]]), corners, grid_corners=corners)
    drawn = draw_reading(photo, reading)
    red = np.all(drawn == UNSURE, axis=-1)

    def red_in(r, c, inner):          # red pixels in the cell, within ``inner`` of its centre
        y0, x0 = 200 * r + 100, 200 * c + 100
        box = red[y0 - inner:y0 + inner, x0 - inner:x0 + inner]
        return int(box.sum())

    assert red_in(0, 0, 80) > 100 and red_in(0, 0, 30) == 0      # a ring: nothing in the middle
    assert red_in(0, 1, 30) > 0                                   # the joker's "?" is written
    assert red_in(1, 0, 90) == 0 and red_in(1, 1, 90) == 0        # sure cells: no red
