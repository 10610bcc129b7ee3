"""boardsight: the app that glues vision and the referee (CLI, game table, records)."""

__version__ = "0.1.0"
