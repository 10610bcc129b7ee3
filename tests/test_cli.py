"""The console script's contracts: JSON out, exit codes, clear errors on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from boardsight.cli import EXIT_ILLEGAL, EXIT_OK, EXIT_UNREADABLE, main

SAMPLES = Path(__file__).parents[1] / "samples" / "changes"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def write_cells(path, cells, **extra):
    path.write_text(json.dumps({"cells": cells, **extra}))
    return str(path)


def test_rules_prints_the_definition(capsys):
    code, definition = run(capsys, "rules", "mixmath")
    assert code == EXIT_OK
    assert definition["rows"] == definition["cols"] == 14
    assert definition["layout"][6][6:8] == "12"


def test_check_scores_the_bundled_opening_turn(capsys):
    code, verdict = run(capsys, "check", "mixmath", str(SAMPLES / "mixmath-before.json"),
                        str(SAMPLES / "mixmath-after.json"))
    assert code == EXIT_OK
    assert verdict["legal"] is True and verdict["reason"] is None
    assert verdict["score"] == 99  # the score the players wrote down for this real turn
    assert verdict["move"].split() == ["7F=3", "7E=4", "7D=12", "7C=16", "7B=4", "7A=20"]


def test_check_explains_a_removed_tile(capsys, tmp_path):
    before = json.loads((SAMPLES / "mixmath-after.json").read_text())["cells"]
    after = [row[:] for row in before]
    after[6][5] = None  # the 3 at 7F vanished
    code, verdict = run(capsys, "check", "mixmath", write_cells(tmp_path / "b.json", before),
                        write_cells(tmp_path / "a.json", after))
    assert code == EXIT_ILLEGAL
    assert verdict["legal"] is False and "7F" in verdict["reason"]


def test_check_breakthrough_step(capsys, tmp_path):
    start = [["b"] * 8, ["b"] * 8] + [[None] * 8 for _ in range(4)] + [["w"] * 8, ["w"] * 8]
    after = [row[:] for row in start]
    after[6][0], after[5][0] = None, "w"
    code, verdict = run(capsys, "check", "breakthrough", write_cells(tmp_path / "b.json", start),
                        write_cells(tmp_path / "a.json", after))
    assert code == EXIT_OK and verdict["move"] == "a2-a3"


@pytest.mark.parametrize("content, needle", [
    ("not json", "not a readable JSON"),
    ('{"board": []}', '"cells"'),
])
def test_check_rejects_malformed_files(capsys, tmp_path, content, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, answer = run(capsys, "check", "mixmath", str(bad), str(bad))
    assert code == EXIT_UNREADABLE and needle in answer["error"]


def test_check_rejects_a_grid_of_the_wrong_size(capsys, tmp_path):
    small = write_cells(tmp_path / "s.json", [[None] * 3] * 3)
    code, verdict = run(capsys, "check", "mixmath", small, small)
    assert code == EXIT_ILLEGAL and "rows" in verdict["reason"]


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "boardsight", "rules", "breakthrough"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["name"] == "breakthrough"


def test_print_writes_png_pages(capsys, tmp_path):
    code, answer = run(capsys, "print", "breakthrough", str(tmp_path / "bt.png"), "--rows", "5",
                       "--cols", "5", "--dpi", "60", "--paper", "a4")
    assert code == EXIT_OK
    assert answer["files"] and all(Path(f).stat().st_size > 1000 for f in answer["files"])


def test_print_refuses_an_unknown_format(capsys, tmp_path):
    code, answer = run(capsys, "print", "mixmath", str(tmp_path / "board.doc"))
    assert code == EXIT_UNREADABLE and ".pdf" in answer["error"]


def test_output_cut_short_by_its_reader_ends_quietly():
    """``boardsight ... | head``: the pipe closed before the JSON is written ends the
    command with exit 1 and no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "boardsight", "check", "mixmath",
                             str(SAMPLES / "mixmath-before.json"),
                             str(SAMPLES / "mixmath-after.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()          # gone before the command has read its files
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err
