"""Mixmath referee: the rules digest's Mixmath section, the real recorded game, edge cases."""

import copy
import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import referee
from referee.core import IllegalMove, load_definition, parse_cell
from referee.mixmath import (BLANK, BonusDraw, EndTurn, Exchange, MixmathGame, MixmathState, Pass,
                             Placement, Withdraw, best_order, line_results, solves)

REAL = Path(__file__).parents[1].parent / "shared" / "real" / "mathable" / "truth.json"
GAME = MixmathGame()


def P(text: str) -> Placement:
    return Placement.parse(text)


def grid_with(tiles: dict[str, int]) -> list:
    grid = GAME.empty_cells()
    for name, value in tiles.items():
        r, c = parse_cell(name)
        grid[r][c] = value
    return grid


def position(tiles: dict[str, int], **kw) -> MixmathState:
    return GAME.state_from_cells(grid_with(tiles), **kw)


def plain_game() -> MixmathGame:
    """The same game on a board with no premiums and no signs."""
    d = copy.deepcopy(load_definition("mixmath"))
    d["layout"] = ["." * 14] * 6 + ["......12......", "......34......"] + ["." * 14] * 6
    d["tiles"]["1"] = 100
    return MixmathGame(d)


# -- the set and the board


def test_tile_set_has_106_numbered_tiles_and_2_blanks():
    products = {a * b for a in range(1, 11) for b in range(1, 11) if 21 <= a * b <= 99}
    assert sum(GAME.tiles.values()) == 106 and GAME.blanks == 2 and GAME.tile_count == 108
    assert set(GAME.tiles) == set(range(0, 21)) | products
    assert all(GAME.tiles[v] == 7 for v in range(1, 11))
    assert GAME.tiles[0] == 1 and all(GAME.tiles[v] == 1 for v in set(GAME.tiles) - set(range(11)))


def test_layout_squares():
    assert {name: GAME.square(parse_cell(name)).fixed for name in ("7G", "7H", "8G", "8H")} == \
        {"7G": 1, "7H": 2, "8G": 3, "8H": 4}
    assert GAME.square(parse_cell("7D")).sign == "x" and GAME.square(parse_cell("7E")).sign == "+"
    assert GAME.square(parse_cell("1A")).premium == 3 and GAME.square(parse_cell("2B")).premium == 2
    squares = [sq for row in GAME.squares for sq in row]
    assert all(sum(sq.sign == sign for sq in squares) == 8 for sign in "+-x/")
    assert sum(sq.premium == 3 for sq in squares) == 12
    assert sum(sq.premium == 2 for sq in squares) == 16


def test_load_uses_game_class_and_centre_reads_as_none():
    game = referee.load("mixmath")
    assert isinstance(game, MixmathGame)
    state = game.new_initial_state(players=3)
    assert state.cells() == game.empty_cells()          # the printed 1 2 3 4 read as None
    assert state.tile(parse_cell("8H")) == 4           # ... but act as tiles
    assert state.racks == [7, 7, 7] and state.pouch == 108 - 21
    with pytest.raises(referee.RefereeError):
        game.new_initial_state(players=5)


# -- arithmetic


def test_line_results_order_free_and_exact_division():
    assert line_results(8, 2) == line_results(2, 8) == {"+": 10, "-": 6, "x": 16, "/": 4}
    assert "/" not in line_results(7, 2)
    assert "/" not in line_results(0, 5)              # min 0: no division
    assert solves(0, 0, 5) and not solves(0, 0, 5, "/")  # 0 = 0×5, never 0÷5
    assert solves(4, 12, 16) and solves(4, 16, 12) and not solves(4, 16, 12, "+")
    assert solves(3, 9, 3, "/") and not solves(4, 9, 2, "/")


# -- the opening and single placements


def test_opening_best_tile_is_12():
    state = GAME.new_initial_state()
    placements = [m for m in state.legal_moves() if isinstance(m, Placement)]
    assert max(m.value for m in placements) == 12
    assert {str(m) for m in placements if m.value == 12} == {"8F=12", "8I=12"}
    assert P("7F=3") in placements and P("7F=4") not in placements
    assert state.apply(P("7F=3")).score == 3


def test_legal_moves_with_a_hand_and_a_blank():
    state = GAME.new_initial_state()
    moves = state.legal_moves([12, 5, 3])
    assert {str(m) for m in moves if isinstance(m, Placement)} == {"8F=12", "8I=12", "7F=3",
                                                                    "7I=3", "9G=3", "6G=3"}
    assert Pass() in moves and Exchange(7) in moves and EndTurn() not in moves
    blanks = [m for m in state.legal_moves([BLANK]) if isinstance(m, Placement)]
    assert P("8F=?7") in blanks and all(m.blank for m in blanks)


def test_placement_between_its_operands_is_not_valid():
    state = position({"5C": 2, "5E": 3})
    with pytest.raises(IllegalMove, match="no two tiles in a line"):
        state.apply(P("5D=5"))
    assert state.tile(parse_cell("5D")) is None          # nothing changed


def test_occupied_and_fixed_squares_are_illegal():
    state = GAME.new_initial_state()
    state.apply(P("7F=3"))
    with pytest.raises(IllegalMove, match="already holds 3"):
        state.apply(P("7F=3"))
    with pytest.raises(IllegalMove, match="fixed centre number 1"):
        state.apply(P("7G=1"))


def test_sign_square_takes_only_its_sign():
    # 4G is a + square; below it 6 and 2.
    tiles = {"5G": 6, "6G": 2}
    assert position(tiles).apply(P("4G=8")).score == 8
    for wrong in (4, 12, 3):
        with pytest.raises(IllegalMove, match="only a \\+ counts"):
            position(tiles).apply(P(f"4G={wrong}"))
    # the same line on a plain square (4C, below it 6 and 2) takes all four
    plain = {"5C": 6, "6C": 2}
    assert [position(plain).apply(P(f"4C={x}")).score for x in (8, 4, 12, 3)] == [8, 4, 12, 3]


def test_directions_and_premium_multiply():
    # 3C is a 2x square; 4+1 to its right and 2+3 below both give 5.
    state = position({"3D": 4, "3E": 1, "4C": 2, "5C": 3})
    verdict = state.apply(P("3C=5"))
    assert verdict.score == 5 * 2 * 2 and sorted(verdict.details["directions"]) == ["down", "right"]
    # a plain square, one direction
    assert position({"3D": 4, "3E": 1}).apply(P("3C=5")).score == 10
    with pytest.raises(IllegalMove, match="only a × counts"):     # 5G: 4−1 on a × square
        position({"5F": 4, "5E": 1}).apply(P("5G=3"))
    # the real game's 6I=10: 6+4 below, 6+4 to the left -> 10 x 2
    assert position({"7I": 4, "8I": 6, "6H": 6, "6G": 4}).apply(P("6I=10")).score == 20


def test_sign_square_counts_only_its_sign_directions():
    # 5G is a x square: 2x3 below gives 6; 4+2 to its right gives 6 too but is a sum.
    state = position({"6G": 2, "7G": 1, "5H": 4, "5I": 2})
    # below 5G: 6G=2, 7G=1 -> 2x1 = 2; right: 5H=4, 5I=2 -> 4x2 = 8
    assert state.apply(P("5G=8")).details["directions"] == ["right"]
    with pytest.raises(IllegalMove):
        position({"6G": 2, "7G": 1, "5H": 4, "5I": 2}).apply(P("5G=6"))


def test_zero_scores_nothing_but_is_valid():
    state = position({"3D": 5, "3E": 5})
    verdict = state.apply(P("3C=0"))                    # 5 − 5, on a 2x square
    assert verdict.legal and verdict.score == 0
    assert position({"3D": 5, "3E": 5}).apply(P("3C=?10")).score == GAME.blank_score == 0


def test_value_limits_and_copies():
    with pytest.raises(IllegalMove, match="no 23 tile"):
        position({"3D": 20, "3E": 3}).apply(P("3C=23"))
    with pytest.raises(IllegalMove, match="all 1 tiles of 20"):
        position({"3D": 10, "3E": 2, "9A": 20}).apply(P("3C=20"))


# -- turns


def test_turn_score_and_full_rack_bonus():
    state = GAME.new_initial_state()
    for text in ("7F=3", "7E=4", "7D=12", "7C=16", "7B=4", "7A=20", "7I=3"):
        state.apply(P(text))
    verdict = state.apply(EndTurn())
    assert verdict.score == 99 + 3 + 50 and verdict.details["full_rack_bonus"] == 50
    assert state.scores == [152, 0] and state.racks == [7, 7] and state.pouch == 108 - 14 - 7


def test_bonus_is_counted_once_when_the_turn_is_seen_by_the_camera():
    # In a game, a change scores its placements and says the bonus is earned; the end of
    # the turn adds it, so the turn's verdicts never count it twice.
    state = GAME.new_initial_state()
    seven = {"7F": 3, "7I": 3, "6G": 4, "6H": 6, "9G": 4, "9H": 6, "8F": 7}
    verdict = state.apply_change(grid_with(seven))
    assert verdict.score == 33 and verdict.details["full_rack_bonus"] == 50
    assert state.apply(EndTurn()).score == 33 + 50 and state.scores == [83, 0]


def test_bonus_draw_keeps_the_rack_from_being_emptied():
    state = GAME.new_initial_state()
    state.apply(P("7F=3"))
    with pytest.raises(IllegalMove, match="sign square"):
        state.apply(BonusDraw())
    state.apply(P("7E=4"))                              # a + square: a bonus tile may be drawn
    assert BonusDraw() in state.legal_moves()
    state.apply(BonusDraw())
    for text in ("7D=12", "7C=16", "7B=4", "7A=20", "7I=3"):
        state.apply(P(text))
    assert state.racks[0] == 1 and state.apply(EndTurn()).score == 102   # no bonus


def test_invalid_placement_withdrawn_ends_the_turn_keeping_points():
    state = GAME.new_initial_state()
    state.apply(P("7F=3"))
    with pytest.raises(IllegalMove, match="solves no line"):
        state.apply(P("7E=9"))
    with pytest.raises(IllegalMove, match="challenge fails"):
        state.apply(Withdraw(P("7E=4")))
    verdict = state.apply(Withdraw(P("7E=9")))
    assert verdict.score == 3 and state.scores == [3, 0] and state.current_player == 1
    assert state.record[-1].moves == ("7F=3", "7E=9 withdrawn")


def test_pass_exchange_and_passes_end_the_game():
    state = GAME.new_initial_state(players=2)
    assert state.apply(Exchange(3)).score == 0 and state.current_player == 1
    state.apply(Pass())
    state.apply(Exchange(7))                            # an exchange breaks the run of passes
    state.apply(Pass())
    assert not state.is_terminal()
    state.apply(Pass())
    assert state.is_terminal() and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        state.apply(Pass())
    with pytest.raises(IllegalMove, match="7 tiles left"):
        state.finish([[1, 2], [3] * 7])
    assert state.finish([[10, 2, 0, 1, 1, 1, BLANK], [3] * 7]) == [-15, -21]
    with pytest.raises(IllegalMove, match="already"):
        state.finish([[1] * 7, [1] * 7])


def test_emptying_the_rack_with_an_empty_pouch_ends_the_game():
    state = GAME.new_initial_state()
    with pytest.raises(IllegalMove, match="not over"):
        state.finish([[], []])
    state.pouch, state.racks = 0, [1, 4]
    state.turn_started_full = False                     # as if the pouch ran dry earlier
    state.apply(P("7F=3"))
    verdict = state.apply(EndTurn())
    assert verdict.details["game_over"] and state.went_out == 0 and state.is_terminal()
    assert verdict.score == 3                           # began the turn with 1 tile: no bonus
    assert state.finish([[], [9, 9, 1, 0]]) == [3, -19]


# -- judging pictures


def test_judge_a_single_opening_tile():
    verdict = GAME.judge(GAME.empty_cells(), grid_with({"7F": 3}))
    assert (verdict.legal, verdict.score, verdict.move) == (True, 3, "7F=3")
    assert verdict.details["placements"] == [{"cell": "7F", "value": 3, "blank": False,
                                              "score": 3, "directions": ["right"]}]


@pytest.mark.parametrize("before, after, message", [
    ({"7F": 3}, {"7F": None}, "a tile was removed at 7F — tiles are never taken back"),
    ({"7F": 3}, {"7F": 8}, "the tile at 7F changed from 3 to 8 — placed tiles never change"),
    ({}, {"7F": 120}, "the tile at 7F reads 120; tiles are 0..99"),
    ({}, {"7F": "3"}, "reads '3', not a number"),
    ({}, {"7F": 23}, "the set has no 23"),
    ({}, {"7G": 5}, "7G, on the fixed centre number 1"),
    ({}, {}, "nothing changed"),
    ({f"1{c}": 4 for c in "ABCDEFG"}, {"1H": 4}, "8 tiles of 4 (1A, 1B, 1C, 1D, 1E, 1F, 1G, 1H)"),
])
def test_misread_pictures_name_the_cells(before, after, message):
    verdict = GAME.judge(grid_with(before), grid_with({**before, **after}))
    assert not verdict.legal and message in verdict.reason


def test_misread_before_picture_is_reported():
    verdict = GAME.judge(grid_with({"3A": 77}), grid_with({"3A": 77, "7F": 3}))
    assert not verdict.legal and "before" in verdict.reason and "3A" in verdict.reason


def test_printed_centre_number_read_as_a_tile_is_ignored():
    after = grid_with({"7F": 3, "7G": 1})              # the printed 1 read by a careless reader
    assert GAME.judge(GAME.empty_cells(), after).score == 3


def test_several_tiles_are_put_in_a_valid_order():
    after = grid_with({"7A": 20, "7B": 4, "7C": 16, "7D": 12, "7E": 4, "7F": 3})
    verdict = GAME.judge(GAME.empty_cells(), after)
    assert verdict.legal and verdict.score == 99
    assert verdict.move == "7F=3 7E=4 7D=12 7C=16 7B=4 7A=20"
    assert verdict.details["order"] == verdict.move.split()
    assert [p["score"] for p in verdict.details["placements"]] == [3, 4, 12, 16, 4, 60]


def test_unplaceable_tiles_are_named_with_the_best_partial_order():
    verdict = GAME.judge(GAME.empty_cells(), grid_with({"7F": 3, "7E": 4, "7B": 40}))
    assert not verdict.legal and verdict.score == 0
    assert verdict.reason.startswith("no legal order places 7B=40")
    assert "no two tiles in a line" in verdict.reason
    assert verdict.details["order"] == ["7F=3", "7E=4"] and verdict.details["partial_score"] == 7
    assert verdict.details["unplaceable"] == ["7B=40"]
    # a tile that has lines but no solution: what its lines give is said
    verdict = GAME.judge(GAME.empty_cells(), grid_with({"7F": 3, "7E": 9}))
    assert "7E=9" in verdict.reason and "3 and 1 to its right give 4, not 9" in verdict.reason


def test_judge_full_rack_bonus_rules():
    # seven tiles on plain squares: the rack must have been full and is now empty
    seven = {"7F": 3, "7I": 3, "6G": 4, "6H": 6, "9G": 4, "9H": 6, "8F": 7}
    verdict = GAME.judge(GAME.empty_cells(), grid_with(seven))
    assert verdict.score == 33 + 50 and verdict.details["full_rack_bonus"] == 50
    # seven tiles, two on sign squares: bonus draws may have refilled the rack, so unless told
    signs = {"7A": 20, "7B": 4, "7C": 16, "7D": 12, "7E": 4, "7F": 3, "7I": 3}
    empty = GAME.empty_cells()
    assert GAME.judge(empty, grid_with(signs)).score == 102
    assert GAME.judge(empty, grid_with(signs), rack_emptied=True).score == 152
    assert GAME.judge(empty, grid_with(signs), bonus_draws=0).score == 152
    assert GAME.judge(empty, grid_with(signs), bonus_draws=1).score == 102
    told_wrong = GAME.judge(empty, grid_with(seven), rack_emptied=False)
    assert not told_wrong.legal and "cannot be" in told_wrong.reason
    # eight tiles with one on a sign square: the one bonus draw was needed, the rack is empty
    eight = {**seven, "7E": 4}
    assert GAME.judge(empty, grid_with(eight)).score == 37 + 50
    assert GAME.judge(empty, grid_with(eight), bonus_draws=1).score == 37 + 50
    # eight tiles with two on sign squares: one or two draws; unproven, so no bonus
    eight = {**seven, "7E": 4, "7D": 12}
    del eight["8F"]
    assert GAME.judge(empty, grid_with(eight)).score == 33 - 7 + 4 + 12


def test_too_many_new_tiles_for_a_rack():
    eight = {"7F": 3, "7I": 3, "6G": 4, "6H": 6, "9G": 4, "9H": 6, "8F": 7, "8I": 7}
    verdict = GAME.judge(GAME.empty_cells(), grid_with(eight))
    assert not verdict.legal and "8 new tiles, but the player holds 7" in verdict.reason


def test_judge_change_continues_the_turn_and_apply_change_plays_it():
    state = GAME.new_initial_state()
    verdict = state.apply_change(grid_with({"7F": 3, "7E": 4}))
    assert verdict.score == 7 and state.racks[0] == 5 and state.turn_score == 7
    before = state.cells()
    assert state.judge_change(before).reason == "nothing changed between the two pictures"
    assert state.cells() == before                      # judging changes nothing
    state.apply(EndTurn())
    assert state.scores == [7, 0]
    # a declared blank scores blank_score
    verdict = state.apply_change(grid_with({"7F": 3, "7E": 4, "7I": 3}), blanks=["7I"])
    assert verdict.move == "7I=?3" and verdict.score == 0 and parse_cell("7I") in state.blank_cells


# -- many tiles at once: fast, exact


def _replay_total(state: MixmathState, order: list[Placement]) -> int:
    """Play ``order`` on a copy of ``state`` (any illegal step raises) and sum the scores."""
    scratch = copy.deepcopy(state)
    scratch.racks[scratch.current_player] = len(order)
    return sum(scratch.apply(p).score for p in order)


def test_ten_and_twelve_tiles_of_the_real_game_at_once():
    moves = ["7F=3", "7E=4", "7D=12", "7C=16", "7B=4", "7A=20",
             "7I=3", "7J=6", "7K=9", "7L=15", "7M=24", "7N=9"]
    state = GAME.new_initial_state()
    for n, expected in ((10, 99 + 3 + 6 + 9 + 15), (12, 99 + 84)):
        tiles = [P(m) for m in reversed(moves[:n])]    # given in the wrong order
        found = best_order(state, tiles)
        order = [tiles[i] for i in found.order]
        assert found.exact and not found.unplaceable and found.total == expected
        assert _replay_total(state, order) == found.total


def _row_of_ones(n: int) -> tuple[MixmathState, list[Placement]]:
    """n 1s on row 3 below two rows of 1s (plain board, enough 1s): every tile is valid at
    once (1 = 1×1 above it) and gains a direction for each side whose two neighbours came
    first, so every order is valid and all 2^n subsets are reachable."""
    state = plain_game().new_initial_state()
    for c in range(14):
        state.board[0][c] = state.board[1][c] = 1
    return state, [Placement((2, c), 1) for c in range(n)]


def _row_of_ones_score(order: tuple[int, ...], n: int) -> int:
    """An independent model of the same position: 1 point per tile, +1 per side whose two
    neighbours were placed before it."""
    when = {t: i for i, t in enumerate(order)}
    before = lambda a, b, t: 0 <= a < n and 0 <= b < n and when[a] < when[t] and when[b] < when[t]
    return sum(1 + before(t - 1, t - 2, t) + before(t + 1, t + 2, t) for t in order)


def test_order_search_matches_brute_force_on_a_row_of_ones():
    state, tiles = _row_of_ones(7)
    best = max(_row_of_ones_score(p, 7) for p in itertools.permutations(range(7)))
    found = best_order(state, tiles)
    assert found.exact and found.total == best == 12
    assert _row_of_ones_score(found.order, 7) == found.total


def test_twelve_mutually_dependent_tiles_exact():
    state, tiles = _row_of_ones(12)
    found = best_order(state, tiles)
    assert found.exact and len(found.order) == 12
    assert _replay_total(state, [tiles[i] for i in found.order]) == found.total
    assert _row_of_ones_score(found.order, 12) == found.total
    # the brute force of the model gives 2n − 2 for n = 5..9; 12! orders are too many to try
    assert found.total == 2 * 12 - 2


def _random_position(seed: int, placements: int):
    """A position reached by random valid placements (a turn every 5), and those placements."""
    rng = random.Random(seed)
    state = GAME.new_initial_state()
    played = []
    for k in range(placements):
        options = [m for m in state.legal_moves() if isinstance(m, Placement)]
        if not options:
            break
        move = rng.choice(options)
        state.apply(move)
        played.append(move)
        if k % 5 == 4:
            state.apply(EndTurn())
    return state, played


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(0, 25))
def test_single_placement_judged_scores_as_applied(seed, length):
    state, _ = _random_position(seed, length)
    options = [m for m in state.legal_moves() if isinstance(m, Placement)]
    move = random.Random(seed).choice(options)
    after = state.cells()
    after[move.cell[0]][move.cell[1]] = move.value
    verdict = state.judge_change(after)
    assert verdict.legal and verdict.move == str(move)
    assert verdict.score == copy.deepcopy(state).apply(move).score


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(6, 30), k=st.integers(2, 5))
def test_order_search_is_valid_and_best(seed, length, k):
    state, played = _random_position(seed, length)
    k = min(k, len(played))
    new = played[-k:]
    base = GAME.state_from_cells(_without(state.cells(), new))
    shuffled = random.Random(seed).sample(new, k)
    found = best_order(base, shuffled)
    assert not found.unplaceable                        # the played order proves it
    assert _replay_total(base, [shuffled[i] for i in found.order]) == found.total
    brute = 0
    for perm in itertools.permutations(shuffled):
        try:
            brute = max(brute, _replay_total(base, list(perm)))
        except IllegalMove:
            continue
    assert found.total == brute


def _without(cells, placements):
    cells = [list(row) for row in cells]
    for p in placements:
        cells[p.cell[0]][p.cell[1]] = None
    return cells


# -- the real recorded game (Mathable board, same rules)


@pytest.fixture(scope="module")
def real():
    if not REAL.exists():
        pytest.skip("../shared/real/mathable is not here")
    return json.loads(REAL.read_text("utf-8"))


def _turns(real):
    firsts = [t["first_move"] for t in real["turns"]]
    ends = firsts[1:] + [firsts[0] + len(real["moves"])]
    for turn, first, end in zip(real["turns"], firsts, ends):
        yield turn, [m for m in real["moves"] if first <= m["move"] < end]


def test_real_game_replayed_placement_by_placement(real):
    state = GAME.new_initial_state(players=2)
    scores = []
    for turn, moves in _turns(real):
        for m in moves:
            assert state.apply(Placement(parse_cell(m["cell"]), m["value"])).legal
        scores.append(state.apply(EndTurn()).score)
    assert scores == [t["score"] for t in real["turns"]] == [99, 84, 8, 52]
    assert state.cells() == real["photos"][f"game-{len(real['moves']):02d}.jpg"]["cells"]


def test_real_game_each_turn_judged_as_one_change(real):
    photos = real["photos"]
    state = GAME.new_initial_state(players=2)
    before = photos["empty-1.jpg"]["cells"]
    for turn, moves in _turns(real):
        after = photos[moves[-1]["photo"]]["cells"]
        verdict = GAME.judge(before, after)             # no history
        assert verdict.legal and verdict.score == turn["score"]
        assert sorted(verdict.move.split()) == sorted(f"{m['cell']}={m['value']}" for m in moves)
        tracked = state.apply_change(after)              # the same, through a game in progress
        assert tracked.score == turn["score"]
        assert state.apply(EndTurn()).score == turn["score"]
        before = after
    assert state.scores == [99 + 8, 84 + 52]
