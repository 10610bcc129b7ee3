"""The benchmarks' tallies: what their columns count."""

from __future__ import annotations

import cv2
import numpy as np

from bench.cells import corner_error
from bench.vision import Tally


def test_tally_counts_photos_cells_and_the_cells_of_boards_found():
    t = Tally()
    truth = [[None, 5], [7, None]]
    t.add(truth, [[None, 5], [7, None]], 10.0)              # all right
    t.add(truth, [[None, 5], [1, None]], 30.0, flagged=True)  # one cell wrong
    t.add(truth, None, 20.0)                                # no board: 4 cells lost
    row = t.row()
    assert row["photos"] == 3 and row["no board"] == 1
    assert row["all right"] == "33.3 %"
    assert row["cells"] == "58.333 %"                       # 7 of 12
    assert row["cells, board found"] == "87.500 %"          # 7 of 8
    assert row["median ms"] == "20"
    assert row["hot spots"] == "7→1 ×1"
    assert t.flagged == 1


def test_silent_errors_are_wrong_cells_the_reader_showed_as_sure():
    t = Tally()
    truth = [[None, 5], [7, None]]
    t.add(truth, [[None, 5], [1, None]], 10.0, unsure={(1, 0)})   # its error shown unsure
    t.add(truth, [[None, 5], [1, 2]], 10.0, unsure={(1, 0)})      # (1, 1) wrong, shown sure
    t.add(truth, [[None, 5], [7, None]], 10.0, unsure={(0, 1)})   # right, a doubt shown
    t.add(truth, None, 10.0, unsure=set())                        # no board: said so
    t.add(truth, [[None, 5], [7, None]], 10.0, unsure={(0, 0), (0, 1), (1, 1)})
    assert t.row()["silent errors"] == "20.0 %"
    assert t.row()["checks a photo"] == "1.5"                     # 6 cells, 4 boards found
    assert Tally().row()["silent errors"] == "-"                  # a reader with no doubts
    assert Tally().row()["checks a photo"] == "-"


def test_a_symmetric_board_found_any_way_up_is_found():
    # an empty Calculissimo board looks the same every way up (its layout is symmetric);
    # a token on it, or Mixmath's signs and centre numbers, tell the turn
    true = [[0.0, 0.0], [300.0, 0.0], [300.0, 300.0], [0.0, 300.0]]
    turned = np.roll(np.array(true), 1, axis=0)
    empty = {"game": "calculissimo", "rows": 15, "cols": 15, "grid_corners": true,
             "cells": [[None] * 15 for _ in range(15)]}
    assert corner_error(turned, empty) == 0.0
    assert corner_error(np.array(true) + 2.0, empty) == 2.0
    empty["cells"][0][1] = "3"
    assert corner_error(turned, empty) == 300.0
    mixmath = {"game": "mixmath", "rows": 14, "cols": 14, "grid_corners": true,
               "cells": [[None] * 14 for _ in range(14)]}
    assert corner_error(np.roll(np.array(true), 2, axis=0), mixmath) == 300.0


def test_the_fusion_bench_replays_the_readers_own_weighing():
    """What bench.fusion replays from a read's trace is what the reader made of it (with
    Tesseract's tie-break, which it does not replay, off); and taking a rule out changes
    nothing else: the net alone is the net's likeliest class wherever it may speak."""
    from dataclasses import replace

    from bench.fusion import Read, score, weighed
    from samples.render import sample_photo
    from vision import board, cellnet, tiles
    from vision.reader import read_located
    img, truth, _ = sample_photo("calculissimo", 2, 1244100186, fonts="held_out", hand=False,
                                 resolution=(1920, 1080))
    cfg = replace(tiles.TilesConfig(), use_tesseract=False)
    trace: dict = {}
    reading = read_located(img, "calculissimo", board.find_board(img, "calculissimo"),
                           config=cfg, trace=trace)
    assert set(trace) == {"glyph_cells", "glyph_confidence", "leave", "probs", "probs_once",
                          "sides", "glare", "inked_jokers", "occluded", "glyph_scores",
                          "pairs"}
    read = Read("calculissimo", truth["cells"], trace)
    assert weighed(read, cfg) == reading.cells
    assert score([read], cfg) == (1, 0)                       # (the fair-rule test's photo)
    # (the counts and both readers' odds mend it too)
    no_fair = replace(cfg, cellnet_fair=None, cellnet_set_counts=False, cellnet_joint=None)
    assert score([read], no_fair)[0] == 0
    net = weighed(read, replace(cfg, cellnet_sure=0.0, cellnet_set_counts=False))
    classes = cellnet.CLASSES["calculissimo"]
    best = trace["probs"].argmax(-1)
    assert all(net[r][c] == classes[best[r, c]] for r in range(15) for c in range(15)
               if not trace["leave"][r, c] and classes[best[r, c]] != "?")


def test_the_real_photos_re_shot_carry_their_truth_and_the_hand_hides_cells(real_truth):
    """bench.vision's re-shot real photos: 1080p, the photo's own cells as truth; with a
    hand, only photos where it hides cells, those cells in the truth."""
    from bench.vision import _reshot_real
    some = dict(sorted(real_truth.items())[:3])
    clean = list(_reshot_real(some, 1))
    assert len(clean) == 3
    for (image, truth), name in zip(clean, sorted(some)):
        assert image.shape == (1080, 1920, 3)
        assert truth["cells"] == some[name]["cells"] and truth["occluded"] == []
    hands = list(_reshot_real(some, 2, hand=True))
    assert hands and all(len(t["occluded"]) > 0 for _, t in hands)


def test_another_games_boards_are_counted_as_refused_or_taken_for_which_game(monkeypatch):
    """bench.vision's other-game row: every photo of a Breakthrough or Mastermind board is
    asked for as each game; a refusal counts as right, a board found is named in the hot
    spots by what it was taken for (here, a finder that takes every Mastermind board)."""
    import bench.vision as bv
    from vision.board import BoardNotFound

    def find(image, game):
        if image.mean() == 2:           # the stand-in Mastermind photo
            return object()
        raise BoardNotFound("no board")

    def photos(game, tier, n, **kw):
        for _ in range(n):
            yield np.full((4, 4, 3), 1 + OTHER.index(game), np.uint8), {}

    OTHER = bv.OTHER_GAMES
    monkeypatch.setattr(bv.vboard, "find_board", find)
    monkeypatch.setattr(bv, "_photos", photos)
    row = bv._other_games(["mixmath", "calculissimo"], [1, 2], 3)
    assert row["photos"] == 2 * 2 * 3 * 2 and row["no board"] == 12
    assert row["all right"] == "50.0 %"
    assert row["hot spots"] == "mastermind→mixmath ×6, mastermind→calculissimo ×6"


def test_the_motion_set_is_the_clean_set_smeared_within_its_range():
    """bench.vision's photos smeared by motion: the same scenes as the clean ones of their
    seeds (the same truth), each smeared by MOTION_PX at 1080p in its own direction."""
    from bench.vision import MOTION_PX, _photos
    kw = dict(salt=0, resolution=(1280, 720), hand=False, desc="")
    clean = list(_photos("mixmath", 1, 2, **kw))
    moved = list(_photos("mixmath", 1, 2, motion=True, **kw))
    for (sharp, t0), (smeared, t1) in zip(clean, moved):
        assert t1["cells"] == t0["cells"] and t0["finish"]["motion"] is None
        length, direction = t1["finish"]["motion"]
        assert MOTION_PX[0] <= length <= MOTION_PX[1] and 0 <= direction <= 180
        # a smear keeps the mean and takes the fine detail
        grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(float) for im in (sharp, smeared)]
        assert abs(grey[0].mean() - grey[1].mean()) < 2
        detail = [cv2.Laplacian(g, cv2.CV_64F).var() for g in grey]
        assert detail[1] < 0.5 * detail[0]
    assert moved[0][1]["finish"]["motion"] != moved[1][1]["finish"]["motion"]


def test_a_tile_whose_ink_the_photo_lost_is_counted_as_erased():
    """bench.vision's *ink erased*: a glare clipped this tile's face and ink alike to
    white (a reader reads it by luck only); another photo of the same series lost none."""
    from bench.vision import erased
    from samples.render import sample_photo
    lost, kept = (sample_photo("calculissimo", 1, seed, resolution=(1920, 1080), hand=False,
                               fonts="held_out")[:2] for seed in (2527613801, 1688853154))
    assert erased(*lost) and not erased(*kept)
    t = Tally()
    t.add(lost[1]["cells"], lost[1]["cells"], 10.0, unsure=set(), erased=True)
    t.add(kept[1]["cells"], kept[1]["cells"], 10.0, unsure=set(), erased=False)
    assert t.row()["ink erased"] == "50.0 %" and Tally().row()["ink erased"] == "-"
    assert t.row()["all right, ink kept"] == "100.0 %"
    missed = [row[:] for row in kept[1]["cells"]]
    missed[7][7] = "5" if missed[7][7] != "5" else "6"
    t.add(kept[1]["cells"], missed, 10.0, unsure=set(), erased=False)
    assert t.row()["all right"] == "66.7 %" and t.row()["all right, ink kept"] == "50.0 %"


def test_the_table_says_how_fast_the_machine_was_at_its_start_and_end(monkeypatch, capsys):
    """Read times drift with a shared machine: the footer carries a fixed workload's time
    measured before and after the photos, to set runs of different days side by side."""
    from bench import vision as bench
    speeds = iter([12.0, 18.5])
    monkeypatch.setattr(bench, "machine_ms", lambda: next(speeds))
    monkeypatch.setattr(bench, "run", lambda args: [])
    assert bench.main(["--n", "0"]) == 0
    assert "reference workload 12.0 ms at the start, 18.5 ms at the end" in capsys.readouterr().out
