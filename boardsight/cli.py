"""The ``boardsight`` console script.

Exit codes (a contract, see ARCHITECTURE.md): 0 success (for ``check``: the change is a legal
move), 1 the change is not a legal move, 2 an unreadable or malformed input file, 3 no board
found in a picture.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import referee

EXIT_OK, EXIT_ILLEGAL, EXIT_UNREADABLE, EXIT_NO_BOARD = 0, 1, 2, 3


class CliError(Exception):
    """An error to print as ``{"error": ...}`` with an exit code."""

    def __init__(self, message: str, code: int = EXIT_UNREADABLE):
        super().__init__(message)
        self.code = code


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


def _read_json(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict) or "cells" not in data:
        raise CliError(f'{path}: expected a JSON object with "cells" (the boardsight read shape)')
    return data


def cmd_rules(args: argparse.Namespace) -> int:
    _print_json(referee.load_definition(args.game))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    before, after = _read_json(args.before), _read_json(args.after)
    game = referee.load(args.game)
    # What the board cannot show (a Mastermind secret, whose turn it is) may ride along in
    # either file; the AFTER file wins.
    context = {k: v for k, v in {**before, **after}.items()
                if k not in ("cells", "confidence", "corners", "ms", "game", "rows", "cols")}
    try:
        verdict = game.judge(before["cells"], after["cells"], **context)
    except referee.RefereeError as exc:
        verdict = referee.Verdict.illegal(str(exc))
    _print_json(verdict.as_dict())
    return EXIT_OK if verdict.legal else EXIT_ILLEGAL


def cmd_print(args: argparse.Namespace) -> int:
    from calibration.printing import print_game  # imports OpenCV: only when printing

    try:
        paths = print_game(args.game, args.out, paper=args.paper, cell_mm=args.cell_mm,
                           rows=args.rows, cols=args.cols, dpi=args.dpi)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    _print_json({"files": [str(p) for p in paths]})
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    from vision.board import BoardNotFound
    from vision.photo import UnreadablePhoto, load_photo
    from vision.reader import read_board

    try:
        image = load_photo(args.image)
    except UnreadablePhoto as exc:
        raise CliError(str(exc), EXIT_UNREADABLE) from None
    try:
        reading = read_board(image, args.game, profile=args.profile)
    except BoardNotFound as exc:
        raise CliError(f"{args.image}: {exc}", EXIT_NO_BOARD) from None
    except KeyError as exc:  # an unknown --profile
        raise CliError(str(exc.args[0] if exc.args else exc), EXIT_UNREADABLE) from None
    if args.debug:
        from vision.debug import draw_reading

        import cv2
        cv2.imwrite(str(args.debug), draw_reading(image, reading))
    if args.json:
        _print_json(reading.to_json())
    else:
        sys.stdout.write(format_reading(reading))
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from calibration.profiles import user_profile_dir
    from vision.board import BoardNotFound
    from vision.calibrate import calibrate_set, save_set
    from vision.photo import UnreadablePhoto, load_photo

    try:
        empty = load_photo(args.empty)
        tiles = load_photo(args.tiles) if args.tiles else None
    except UnreadablePhoto as exc:
        raise CliError(str(exc), EXIT_UNREADABLE) from None
    try:
        profile, samples = calibrate_set(args.game, empty, tiles, name=args.name)
    except BoardNotFound as exc:
        raise CliError(f"no {args.game} board in the calibration photos: {exc}",
                       EXIT_NO_BOARD) from None
    except ValueError as exc:           # the tile set is not laid out as expected
        raise CliError(f"{args.tiles}: {exc}", EXIT_UNREADABLE) from None
    source = f"boardsight calibrate {args.game} --empty {args.empty}" + (
        f" --tiles {args.tiles}" if args.tiles else "")
    paths = save_set(replace(profile, source=f"{source} ({profile.source})"), samples,
                     args.out or user_profile_dir())
    _print_json({"profile": profile.name, "files": [str(p) for p in paths],
                 "tile_colour_lab": [round(v, 1) for v in profile.colours.get("tile", ())],
                 "glyphs": 0 if samples is None else len(samples.labels)})
    return EXIT_OK


def format_reading(reading) -> str:
    """The reading as a text grid for people: unsure cells marked with '?', hidden ones '#'."""
    hidden = set(map(tuple, reading.occluded))
    unsure = set(reading.unsure()) - hidden
    lines = [f"{reading.game} {reading.rows}x{reading.cols}, read in {reading.ms:.0f} ms"]
    for r, row in enumerate(reading.cells):
        out = []
        for c, value in enumerate(row):
            text = "#" if (r, c) in hidden else ("." if value is None else str(value))
            out.append(f"{text + ('?' if (r, c) in unsure else ''):>4}")
        lines.append("".join(out))
    if hidden:
        lines.append(f"{len(hidden)} cells hidden by a hand or object: take the photo again")
    if reading.is_doubtful():
        lines.append("every cell is unsure: the photo is too blurred, dark or small to read "
                     "(hold the camera still, nearer the board): take it again")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boardsight", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("rules", help="print a game's definition (board, pieces, scoring) as JSON")
    p.add_argument("game", choices=referee.GAMES)
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("check", help="judge the change between two readings of a board")
    p.add_argument("game", choices=referee.GAMES)
    p.add_argument("before", help='JSON with "cells" (the boardsight read shape)')
    p.add_argument("after", help='JSON with "cells" after the move')
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("print", help="write a print-and-play set (board and cut-out sheets) "
                                     "as PDF or PNG")
    p.add_argument("game", choices=referee.GAMES)
    p.add_argument("out", help="OUT.pdf, or OUT.png (several pages: OUT-1.png, OUT-2.png, ...)")
    p.add_argument("--paper", choices=("a4", "a3", "letter"), default="a4")
    p.add_argument("--cell-mm", type=float, default=None,
                   help="cell size in mm (default: the game's)")
    p.add_argument("--rows", type=int, default=None, help="Breakthrough only: board rows")
    p.add_argument("--cols", type=int, default=None, help="Breakthrough only: board columns")
    p.add_argument("--dpi", type=int, default=300)
    p.set_defaults(func=cmd_print)

    p = sub.add_parser("read", help="read every cell of a board in a photo")
    p.add_argument("image", help="a photo (JPEG, PNG) of the board")
    p.add_argument("--game", required=True, choices=("mixmath", "calculissimo"))
    p.add_argument("--json", action="store_true", help="print the boardsight read JSON")
    p.add_argument("--profile", default=None,
                   help="board profile of an own set (default: recognise a known one)")
    p.add_argument("--debug", metavar="OUT.png", help="draw what was found into OUT.png")
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("calibrate", help="learn an own set (its board, its tiles' colour and "
                                         "font) from photos, so read recognises it")
    p.add_argument("game", choices=("mixmath", "calculissimo"))
    p.add_argument("--empty", required=True, help="a photo of the empty board, whole")
    p.add_argument("--tiles", help="a photo of one tile of each value laid out on the board "
                                   "in ascending order, row by row from the top left")
    p.add_argument("--name", default="own", help="the set's name (default: own)")
    p.add_argument("--out", help="folder for NAME.json and NAME.glyphs.npz (default: the "
                                 "user's profile folder, where read finds it)")
    p.set_defaults(func=cmd_calibrate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CliError as exc:
        _print_json({"error": str(exc)})
        return exc.code
    except BrokenPipeError:
        # whoever read the output stopped (``| head``): nothing more to say, and nothing
        # left to flush into the closed pipe at exit
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
