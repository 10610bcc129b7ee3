"""The benchmark's tally: what its columns count."""

from __future__ import annotations

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
