"""Breakthrough: perft figures, a naive second move generator, wins, and change reasons."""

import random
import time

import pytest

import referee
from referee.breakthrough import BreakthroughGame, Move, perft
from referee.core import IllegalMove, load_definition


def make_game(rows=8, cols=8, **extra):
    return BreakthroughGame({**load_definition("breakthrough"), "rows": rows, "cols": cols,
                             **extra})


def start_grid(rows=8, cols=8):
    return ([["b"] * cols for _ in range(2)] + [[None] * cols for _ in range(rows - 4)]
            + [["w"] * cols for _ in range(2)])


def put(grid, **squares):
    """A copy of ``grid`` with squares set by name: put(g, a3="w", a2=None) (8 rows)."""
    grid = [row[:] for row in grid]
    rows = len(grid)
    for name, value in squares.items():
        grid[rows - int(name[1:])][ord(name[0]) - ord("a")] = value
    return grid


def empty(rows=8, cols=8):
    return [[None] * cols for _ in range(rows)]


# -- a second move generator, written separately: plain loops over the grid


def naive_moves(grid, colour, white_home="bottom"):
    """Every legal move as notation, from first principles; no moves once the game is over."""
    rows, cols = len(grid), len(grid[0])
    white_step = -1 if white_home == "bottom" else 1
    step = white_step if colour == "w" else -white_step
    enemy = "b" if colour == "w" else "w"
    white_goal = 0 if white_step == -1 else rows - 1
    black_goal = rows - 1 - white_goal
    if "w" in grid[white_goal] or "b" in grid[black_goal]:
        return set()
    if not any(v == colour for row in grid for v in row):
        return set()
    if not any(v == enemy for row in grid for v in row):
        return set()

    def name(r, c):
        return "abcdefghijklmnopqrstuvwxyz"[c] + str(rows - r)

    moves = set()
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] != colour:
                continue
            to_r = r + step
            if not 0 <= to_r < rows:
                continue
            for dc in (-1, 0, 1):
                to_c = c + dc
                if not 0 <= to_c < cols:
                    continue
                target = grid[to_r][to_c]
                if target is None:
                    moves.add(name(r, c) + "-" + name(to_r, to_c))
                elif target == enemy and dc != 0:
                    moves.add(name(r, c) + "x" + name(to_r, to_c))
    return moves


def naive_play(grid, notation):
    rows = len(grid)
    a, b = notation[:2], notation[3:]
    grid = [row[:] for row in grid]
    ar, ac = rows - int(a[1:]), ord(a[0]) - 97
    br, bc = rows - int(b[1:]), ord(b[0]) - 97
    grid[br][bc], grid[ar][ac] = grid[ar][ac], None
    return grid


def naive_perft(grid, colour, depth):
    if depth == 0:
        return 1
    nxt = "b" if colour == "w" else "w"
    return sum(naive_perft(naive_play(grid, m), nxt, depth - 1)
               for m in naive_moves(grid, colour))


def notations(state):
    moves = [m.notation for m in state.legal_moves()]
    assert len(moves) == len(set(moves))
    return set(moves)


# -- perft


def test_perft_from_the_8x8_start_depths_1_to_4():
    state = BreakthroughGame().new_initial_state()
    assert [perft(state, d) for d in range(1, 5)] == [22, 484, 11132, 256036]
    assert perft(state, 0) == 1


@pytest.mark.slow
def test_perft_depth_5_and_its_speed():
    state = BreakthroughGame().new_initial_state()
    began = time.perf_counter()
    assert perft(state, 5) == 6182818
    assert time.perf_counter() - began < 30  # about 0.4 s on the reference machine


def test_perft_agrees_with_playing_move_objects():
    # The bulk counter against legal_moves()/apply()/pop() on the state itself.
    state = BreakthroughGame().new_initial_state()

    def slow(depth):
        if depth == 0:
            return 1
        total = 0
        for move in state.legal_moves():
            state.apply(move)
            total += slow(depth - 1)
            state.pop()
        return total

    assert slow(3) == perft(state, 3) == 11132
    assert state.cells() == start_grid()


@pytest.mark.parametrize("rows, cols, depth", [(4, 3, 6), (5, 2, 7), (4, 4, 5), (6, 5, 4)])
def test_perft_on_small_boards_where_games_end(rows, cols, depth):
    # On these boards pieces meet at once and games end within the depth, so the count also
    # checks that a finished game has no further moves.
    state = make_game(rows, cols).new_initial_state()
    assert perft(state, depth) == naive_perft(start_grid(rows, cols), "w", depth)


# -- the two generators agree move for move


def random_play_positions(seed, rows, cols, games):
    rng = random.Random(seed)
    game = make_game(rows, cols)
    for _ in range(games):
        state = game.new_initial_state()
        while True:
            yield state
            moves = state.legal_moves()
            if not moves:
                break
            state.apply(rng.choice(sorted(moves, key=str)))


def test_generators_agree_over_random_games():
    checked = 0
    for rows, cols in [(8, 8), (5, 5), (6, 5), (7, 3), (4, 6), (10, 9)]:
        for state in random_play_positions(rows * cols, rows, cols, games=3):
            assert notations(state) == naive_moves(state.cells(), state.turn), state
            checked += 1
    assert checked > 300


def test_generators_agree_on_random_sparse_boards():
    rng = random.Random(2024)
    checked = 0
    while checked < 400:
        rows, cols = rng.randint(4, 10), rng.randint(1, 10)
        density = rng.uniform(0.05, 0.5)
        grid = [[rng.choice("wb") if rng.random() < density else None for _ in range(cols)]
                for _ in range(rows)]
        colour = rng.choice("wb")
        white_home = rng.choice(["bottom", "top"])
        white_goal, black_goal = (grid[0], grid[-1]) if white_home == "bottom" else (grid[-1],
                                                                                    grid[0])
        if "w" in white_goal and "b" in black_goal:
            continue  # both on the far row: no position of a game
        game = make_game(rows, cols, white_home=white_home)
        state = game.state_from_cells(grid, colour)
        assert notations(state) == naive_moves(grid, colour, white_home), (grid, colour)
        checked += 1


# -- setup and configuration


def test_initial_position_on_any_board():
    state = make_game(6, 5).new_initial_state()
    assert state.cells() == start_grid(6, 5)
    assert state.turn == "w" and state.current_player == 0 and state.scores == [0, 0]
    assert {m.notation for m in state.legal_moves()} >= {"a2-a3", "a2-b3", "e2-e3", "e2-d3"}
    assert len(state.legal_moves()) == 3 * 5 - 2


def test_black_first_and_white_on_top_are_configurable():
    game = make_game(first_player="b", white_home="top")
    state = game.new_initial_state()
    assert state.cells()[0] == ["w"] * 8 and state.cells()[7] == ["b"] * 8
    assert state.turn == "b" and state.current_player == 0 and game.players == ("b", "w")
    assert "a1-a2" not in notations(state) and "a2-a3" in notations(state)  # black climbs


def test_a_board_too_small_for_two_sides_is_refused():
    with pytest.raises(referee.RefereeError, match="no room"):
        make_game(3, 7)


def test_loaded_through_the_registry():
    assert isinstance(referee.load("breakthrough"), BreakthroughGame)


# -- notation


@pytest.mark.parametrize("text, move", [
    ("a2-a3", Move((0, 1), (0, 2))),
    ("b4xc5", Move((1, 3), (2, 4), True)),
    ("h10-g11", Move((7, 9), (6, 10))),
])
def test_notation_round_trip(text, move):
    assert Move.from_notation(text) == move and move.notation == text


def test_bad_notation_is_explained():
    with pytest.raises(referee.RefereeError, match="not a move like"):
        Move.from_notation("a2a3x")


# -- playing, winning, taking back


def test_apply_and_pop_restore_the_position():
    state = BreakthroughGame().new_initial_state()
    state.apply("d2-d3")
    state.apply(Move.from_notation("e7-e6"))
    assert state.turn == "w"
    assert state.pop().notation == "e7-e6" and state.turn == "b"
    state.undo()
    assert state.cells() == start_grid() and state.turn == "w" and not state.move_stack


def test_apply_marks_a_capture_even_without_the_x():
    grid = put(empty(), b4="w", c5="b", h8="b", a1="w")
    state = BreakthroughGame().state_from_cells(grid, "w")
    verdict = state.apply("b4-c5")
    assert verdict.move == "b4xc5" and verdict.details["capture"] is True


@pytest.mark.parametrize("move, reason", [
    ("a2-a4", "a2 to a4 is two squares"),
    ("a7-a6", "it is white's turn"),
    ("a2-b2", "pawns move forward only"),
    ("a1-b2", "blocked by a white piece on b2"),
    ("c3-c4", "no piece on c3"),
    ("a2xa3", "not a capture: a3 is empty"),
    ("a2-a9", "off this 8x8 board"),
])
def test_illegal_moves_raise_naming_the_rule(move, reason):
    state = BreakthroughGame().new_initial_state()
    with pytest.raises(IllegalMove, match=reason):
        state.apply(move)
    assert state.cells() == start_grid() and state.turn == "w"


def test_reaching_the_far_row_wins():
    grid = put(empty(), g7="w", a7="b", b1="w")
    state = BreakthroughGame().state_from_cells(grid, "w")
    verdict = state.apply("g7-g8")
    assert verdict.score == 1 and verdict.details["winner"] == "w"
    assert state.is_terminal() and state.winner == "w" and state.scores == [1, 0]
    assert state.legal_moves() == []
    with pytest.raises(IllegalMove, match="the game is over: white has won"):
        state.apply("a7-a6")


def test_capturing_the_last_piece_wins():
    grid = put(empty(), d4="w", c5="b")
    state = BreakthroughGame().state_from_cells(grid, "w")
    assert not state.is_terminal()
    state.apply("d4xc5")
    assert state.winner == "w" and state.scores == [1, 0]


def test_black_wins_on_white_home_row():
    grid = put(empty(), b2="b", e5="w")
    state = BreakthroughGame().state_from_cells(grid, "b")
    assert state.apply("b2-a1").details["winner"] == "b"
    assert state.scores == [0, 1]


def test_a_side_with_no_move_loses_on_a_one_column_board():
    game = make_game(3, 1, home_rows=1)
    state = game.new_initial_state()
    assert not state.is_terminal()
    verdict = state.apply("a1-a2")  # black's only piece is now blocked straight ahead
    assert verdict.details["game_over"] and state.winner == "w" and verdict.score == 1


def test_random_games_always_end_with_one_winner():
    # No draws: every random game on a 2+ column board ends with a winner.
    for state in random_play_positions(7, 6, 5, games=20):
        if state.is_terminal():
            assert sorted(state.scores) == [0, 1]


# -- judging two readings


def judge(before, after, **context):
    return BreakthroughGame().judge(before, after, **context)


def test_judge_a_step_and_infer_the_mover():
    before = start_grid()
    verdict = judge(before, put(before, a2=None, a3="w"))
    assert verdict.legal and verdict.move == "a2-a3" and verdict.score == 0
    assert verdict.details["player"] == "w" and not verdict.details["game_over"]


def test_judge_a_capture():
    before = put(empty(), b4="w", c5="b", h8="b")
    verdict = judge(before, put(before, b4=None, c5="w"), to_move="w")
    assert verdict.legal and verdict.move == "b4xc5" and verdict.details["capture"]


def test_judge_a_winning_move_scores_one():
    before = put(empty(), c7="w", h7="b")
    verdict = judge(before, put(before, c7=None, d8="w"))
    assert verdict.legal and verdict.score == 1 and verdict.details["winner"] == "w"


def test_judge_change_does_not_change_the_state():
    state = BreakthroughGame().new_initial_state()
    after = put(start_grid(), a2=None, a3="w")
    assert state.judge_change(after).legal
    assert state.cells() == start_grid() and state.turn == "w"
    assert state.apply_change(after).move == "a2-a3"
    assert state.cells() == after and state.turn == "b"


@pytest.mark.parametrize("after, context, reason, move", [
    (dict(a2=None, b2=None, a3="w", b3="w"), {}, "two pieces moved", None),
    (dict(c3="w"), {}, "a white piece appeared at c3 but none left a square", None),
    (dict(a2=None), {}, "a white piece left a2 but arrived nowhere", None),
    (dict(a2=None, a4="w"), {}, "a2 to a4 is two squares", "a2-a4"),
    (dict(a2=None, a3="w"), {"to_move": "b"}, "it is black's turn", "a2-a3"),
    (dict(a7=None, a6="b"), {"to_move": "white"}, "it is white's turn", "a7-a6"),
    (dict(d7="w"), {}, "a piece changed colour at d7 without a capture", None),
    (dict(a2=None, a3="b"), {}, "a white piece left a2 but a black piece appeared at a3",
     None),
    (dict(a2=None, a3="w", d7="w"), {}, "a piece changed colour at d7 without a capture", None),
    (dict(c3="x"), {}, "c3 reads 'x'", None),
    ({}, {}, "nothing changed", None),
])
def test_change_reasons_from_the_start(after, context, reason, move):
    before = start_grid()
    verdict = judge(before, put(before, **after), **context)
    assert not verdict.legal and reason in verdict.reason
    assert verdict.move == move


@pytest.mark.parametrize("before, after, reason", [
    (dict(b4="w", b5="b"), dict(b4=None, b5="w"), "straight captures are not allowed"),
    (dict(b4="w", h8="b"), dict(b4=None, b3="w"), "pawns move forward only"),
    (dict(b4="w", h8="b"), dict(b4=None, c4="w"), "pawns move forward only"),
    (dict(b4="w", h8="b"), dict(b4=None, b6="w"), "b4 to b6 is two squares"),
    (dict(b4="w", h8="b"), dict(b4=None, d5="w"), "b4 to d5 is two squares"),
    (dict(b4="w", c5="b", d5="b"), dict(b4=None, c5="w", d5="w"),
     "pieces changed colour at c5 and d5"),
    (dict(b8="w", h3="b"), dict(h3=None, h2="b"), "the game is over: white has won"),
])
def test_change_reasons_on_hand_made_boards(before, after, reason):
    grid = put(empty(), **before)
    verdict = judge(grid, put(grid, **after))
    assert not verdict.legal and reason in verdict.reason


def test_a_reading_of_the_wrong_size_is_explained():
    verdict = judge(start_grid(), start_grid(6, 8))
    assert not verdict.legal and "rows" in verdict.reason


def test_judge_ignores_unrelated_context():
    before = start_grid()
    verdict = judge(before, put(before, h2=None, g3="w"), confidence=[[1.0]], ms=3)
    assert verdict.legal and verdict.move == "h2-g3"
