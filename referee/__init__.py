"""boardsight's referee: pure-Python rules for the four games (no OpenCV, no I/O but the
game definitions in ``games/*.json``).

>>> game = load("breakthrough")
>>> game.rows, game.cols
(8, 8)
"""

from importlib import import_module

from referee.core import (GAMES, Cell, Change, Game, Grid, IllegalMove, NotAMove, RefereeError,
                          State, Value, Verdict, load_definition)

__all__ = ["GAMES", "Cell", "Change", "Game", "Grid", "IllegalMove", "NotAMove", "RefereeError",
           "State", "Value", "Verdict", "load", "load_definition"]


def load(name: str, definition: dict | None = None) -> Game:
    """The :class:`Game` called ``name``, from its shipped definition or the one given."""
    if name not in GAMES:
        raise RefereeError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    module = import_module(f"referee.{name}")
    return module.GAME_CLASS(definition)
