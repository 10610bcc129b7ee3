"""Development photos kept as the tests that name them found them."""

from __future__ import annotations

from samples.render import position_rng, random_cells, render


def before_blanks(game: str, tier: int, seed: int, tiles: dict, **kwargs):
    """``samples.render.sample_photo(game, tier, seed, **kwargs)`` as it was before the
    renders laid the set's Mixmath blanks (session 43): ``tiles`` ({(row, col): value}) go
    back where the position now draws a blank; nothing else of the photo changed."""
    cells = random_cells(game, position_rng(seed))
    for (r, c), value in tiles.items():
        assert cells[r][c] == "?", (r, c)
        cells[r][c] = value
    return render(game, cells, tier=tier, seed=seed, **kwargs)
