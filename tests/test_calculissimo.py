"""Calculissimo's referee: the rules digest's worked examples, precedence and fractions,
the one-x rule, premiums given once to the more profitable calculation, jokers, hands and
the end of the game, reasons for misread photos, and properties of the move generator."""

import copy
import json
import random
from collections import Counter
from fractions import Fraction
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import load
from referee.calculissimo import (JOKER, Calculation, CalculissimoGame, Exchange, Pass, Play,
                                  evaluate, penalty)
from referee.core import IllegalMove, load_definition, parse_cell

CENTRE = "8H"


def game_with(premiums=None, **options) -> CalculissimoGame:
    """A plain 15x15 board with the start square in the centre and the given premium
    squares (cell name -> layout char: g b digit, y p calculation)."""
    definition = copy.deepcopy(load_definition("calculissimo"))
    rows = [["."] * 15 for _ in range(15)]
    rows[7][7] = "*"
    for name, char in (premiums or {}).items():
        r, c = parse_cell(name)
        rows[r][c] = char
    definition["layout"] = ["".join(row) for row in rows]
    definition.update(options)
    return CalculissimoGame(definition)


def grid(tokens=None, rows=15, cols=15):
    """A reading with the given tokens by cell name."""
    cells = [[None] * cols for _ in range(rows)]
    for name, value in (tokens or {}).items():
        r, c = parse_cell(name)
        cells[r][c] = value
    return cells


def line(first: str, text: str, vertical: bool = False) -> dict:
    """Tokens of ``text`` ("6/2+9") laid from cell ``first`` rightwards (or downwards)."""
    r, c = parse_cell(first)
    return {_name(r + i, c) if vertical else _name(r, c + i): t for i, t in enumerate(text)}


def _name(r, c):
    return f"{r + 1}{'ABCDEFGHIJKLMNO'[c]}"


def test_loads_through_the_registry():
    game = load("calculissimo")
    assert isinstance(game, CalculissimoGame)
    assert (game.rows, game.cols, game.start) == (15, 15, (7, 7))
    assert game.bag_total == 96 and game.hand_size == 7


# -- the five worked examples of the rules digest


def test_example_1_first_move_on_the_start_square_scores_48():
    # 6[2x] / 2 + 9[2x] with the 2 on the yellow start square: (12 / 2 + 18) x 2 = 48
    game = game_with({"8F": "g", "8J": "g"})
    verdict = game.judge(grid(), grid(line("8F", "6/2+9")))
    assert verdict.legal, verdict.reason
    assert verdict.score == 48
    assert verdict.move == "8F=6 8G=/ 8H=2 8I=+ 8J=9"
    [calc] = verdict.details["calculations"]
    assert calc["expression"] == "6 / 2 + 9" and calc["value"] == 12
    assert calc["scored"] == "(6[x2] / 2 + 9[x2]) x2" and calc["score"] == 48


def later_turn(text, premiums, existing):
    """The worked examples 2-5 as a later turn: row 5 from 5D spells ``text``; the token
    at index ``existing`` is already on the board, the top of a column calculation
    ``t + 1``. ``premiums`` maps token indices to layout chars."""
    row = line("5D", text)
    names = list(row)
    anchor = names[existing]
    before = {anchor: row[anchor], **line(_name(5, parse_cell(anchor)[1]), "+1", vertical=True)}
    game = game_with({names[i]: char for i, char in premiums.items()})
    return game.judge(grid(before), grid({**before, **row}))


@pytest.mark.parametrize("text, premiums, existing, score", [
    ("4-2+3", {0: "g", 4: "g"}, 2, 12),               # (4x2) - 2 = 6; 6 + (3x2) = 12
    ("3x4-1", {0: "b", 4: "b"}, 2, 33),               # (3x3) x 4 = 36; 36 - (1x3) = 33
    ("6+4-3+5", {0: "b", 2: "g", 6: "b"}, 4, 38),     # 18 + 8 - 3 + 15 = 38
    ("1x7+5", {2: "g"}, 0, 19),                       # 1 x (7x2) + 5 = 19
])
def test_examples_2_to_5(text, premiums, existing, score):
    verdict = later_turn(text, premiums, existing)
    assert verdict.legal, verdict.reason
    assert verdict.score == score
    [calc] = verdict.details["calculations"]  # the column below the old token is not changed
    assert calc["line"] == "row 5"


def test_example_1_through_a_game_in_progress():
    game = game_with({"8F": "g", "8J": "g"})
    state = game.new_initial_state(players=3)
    verdict = state.apply_change(grid(line("8F", "6/2+9")))
    assert verdict.legal and verdict.score == 48
    assert state.scores == [48, 0, 0] and state.current_player == 1
    assert state.hand_sizes == [7, 7, 7] and state.bag_size == 96 - 21 - 5


# -- values: precedence, fractions, positive integers, at most one x


@pytest.mark.parametrize("text, value", [
    ("2+3x4", 14), ("8/4/2", 1), ("7-2x3", 1), ("2-3", -1), ("1/2+1/2", 1), ("3/2", Fraction(3, 2)),
    ("9-8/2x3", -3), ("6/4x2", 3), ("5", 5), ("1+2-3+4", 4),
])
def test_precedence_and_exact_fractions(text, value):
    assert evaluate(text) == value


def calc(text):
    return Calculation(tuple((7, c) for c in range(len(text))), tuple(text), vertical=False)


@pytest.mark.parametrize("text", ["2+3x4", "8/4/2", "7-2x3", "1/2+1/2", "0+5", "9/3x2"])
def test_valid_calculations(text):
    assert calc(text).problem() is None


@pytest.mark.parametrize("text, words", [
    ("2-3", "= -1 is not a positive integer"),
    ("3/2", "= 1.5 is not a positive integer"),
    ("1/3", "= 1/3 is not a positive integer"),
    ("5-5", "= 0 is not a positive integer"),
    ("8/0", "divides by zero"),
    ("2x3x4", "two x in one calculation"),
    ("56", "8A 8B in row 8: two digits side by side"),
    ("5++3", "8B 8C in row 8: two operators side by side"),
    ("+5", "begins with +"),
    ("5-", "ends with -"),
])
def test_invalid_calculations_say_why(text, words):
    assert words in calc(text).problem()


def test_more_multiplications_when_the_definition_allows_them():
    assert calc("2x3x4").problem(max_multiplications=2) is None


def test_one_x_rule_on_the_board():
    before = line("8G", "2x3")
    after = {**before, "9I": "x", "10I": "2"}  # column I: 3 x 2, another calculation: fine
    assert game_with().judge(grid(before), grid(after)).score == 6
    after = {**before, "8J": "x", "8K": "2"}  # row 8 becomes 2 x 3 x 2
    verdict = game_with().judge(grid(before), grid(after))
    assert not verdict.legal and "row 8: two x in one calculation" in verdict.reason


def test_an_invalid_line_names_it():
    before = line("8G", "8/2")
    verdict = game_with().judge(grid(before), grid({**before, "9I": "/", "10I": "4"}))
    assert not verdict.legal
    assert verdict.reason == "column I: 2 / 4 = 0.5 is not a positive integer"
    verdict = game_with().judge(grid(before), grid({**before, "8J": "3"}))
    assert "8I 8J in row 8: two digits side by side" in verdict.reason


def test_premiums_must_keep_the_calculation_valid():
    # 9 - 4 = 5, but the 4 on a green square makes it 9 - 8 = 1: still fine
    before = line("8H", "9")
    assert game_with({"8J": "g"}).judge(grid(before), grid(line("8H", "9-4"))).score == 1
    # 5 - 3 = 2 is valid, but (5 - 3[x2]) x2 = -2 is not (rule 7: valid with and without)
    verdict = game_with({"8J": "g"}).judge(grid(), grid(line("8H", "5-3")))
    assert not verdict.legal and "(5 - 3[x2]) x2 = -2 is not" in verdict.reason
    # and without them: 1 + 3[x2] / 2 would be 4, but 1 + 3 / 2 is not a whole number
    verdict = game_with({"8J": "g"}).judge(grid(), grid(line("8H", "1+3/2")))
    assert not verdict.legal and "1 + 3 / 2 = 2.5 is not a positive integer" in verdict.reason


# -- premiums: only when covered, once, to the more profitable calculation


def cross_position():
    """Column I holds 4 + 5 (4I-6I) and 2 x 3 (8I-10I) with a gap at 7I;
    a new row 7 through the gap makes both a row and a longer column calculation."""
    return {**line("4I", "4+5", vertical=True), **line("8I", "2x3", vertical=True)}


@pytest.mark.parametrize("row, square, score, winner", [
    ("1+6", "y", 15 * 2 + 7, "column I"),      # 30 + 7 beats 15 + 14
    ("9+8", "y", 15 + 17 * 2, "row 7"),        # 15 + 34 beats 30 + 17
    ("1+6", "p", 15 * 3 + 7, "column I"),
])
def test_a_premium_serving_two_calculations_goes_to_the_more_profitable(row, square, score,
                                                                         winner):
    before = cross_position()
    after = {**before, **line("7H", row)}
    verdict = game_with({"7I": square}).judge(grid(before), grid(after))
    assert verdict.legal, verdict.reason
    assert verdict.score == score
    calcs = {c["line"]: c for c in verdict.details["calculations"]}
    assert calcs["column I"]["expression"] == "4 + 5 + 2 x 3"
    assert [c["line"] for c in calcs.values() if c["premiums"]] == [winner]


def test_premiums_count_only_in_the_turn_they_are_covered():
    game = game_with({"8F": "g", "8J": "g"})
    state = game.new_initial_state()
    assert state.apply(Play.parse("8F=6 8G=/ 8H=2 8I=+ 8J=9")).score == 48
    # extending row 8 re-scores it, without the premiums already used: 6/2+9+1 = 13
    assert state.apply(Play.parse("8K=+ 8L=1")).score == 13


def test_calculation_premiums_multiply_or_keep_the_largest():
    premiums = {"8F": "p"}
    assert game_with(premiums).judge(grid(), grid(line("8F", "1+2"))).score == 3 * 3 * 2
    largest = game_with(premiums, calculation_premiums_combine="largest")
    assert largest.judge(grid(), grid(line("8F", "1+2"))).score == 3 * 3


def test_a_digit_premium_under_an_operator_does_nothing():
    verdict = game_with({"8I": "b"}).judge(grid(), grid(line("8H", "2+3")))
    assert verdict.score == 10 and verdict.details["calculations"][0]["premiums"] == [
        "8H start square x2 calculation"]


# -- where a turn's tokens may go


@pytest.mark.parametrize("after, words", [
    (line("8A", "1+2"), "must cover the start square 8H"),
    (line("8G", "1+2"), "digit on the start square 8H"),
    ({**line("8H", "1+2"), "9H": "+", "10H": "3"}, "not in one row or column"),
    ({"8H": "1", "8I": "+", "8K": "2"}, "leave a gap at 8J"),
    (line("8H", "5"), "makes no calculation"),
])
def test_first_move_shape(after, words):
    verdict = game_with().judge(grid(), grid(after))
    assert not verdict.legal and words in verdict.reason


def test_later_tokens_must_touch_the_board():
    before = line("8H", "1+2")
    verdict = game_with().judge(grid(before), grid({**before, **line("2B", "3+4")}))
    assert not verdict.legal and "do not touch" in verdict.reason


def test_tokens_already_on_the_board_may_fill_the_span():
    before = line("8H", "1+2")
    after = {**before, "8G": "+", "8F": "3", "8K": "x", "8L": "4"}  # 3 + [1 + 2] x 4
    verdict = game_with().judge(grid(before), grid(after))
    assert verdict.legal and verdict.score == 12 and verdict.move == "8F=3 8G=+ 8K=x 8L=4"


def test_several_lines_in_one_turn_when_the_definition_allows_them():
    after = {**line("8H", "4+1"), **line("9H", "-1", vertical=True)}  # an L through 8H
    assert "not in one row or column" in game_with().judge(grid(), grid(after)).reason
    verdict = game_with(one_line_per_turn=False).judge(grid(), grid(after))
    # row 4 + 1 = 5 and column 4 - 1 = 3; the start square's x2 goes to the row
    assert verdict.legal and verdict.score == 5 * 2 + 3
    after["11A"] = "7"
    verdict = game_with(one_line_per_turn=False).judge(grid(), grid(after))
    assert not verdict.legal and "11A touch neither" in verdict.reason


# -- reasons for misread photos


def test_a_removed_token_is_not_a_move():
    before = line("8H", "1+2")
    after = {**before, "8K": "+", "8L": "3"}
    del after["8I"]
    verdict = game_with().judge(grid(before), grid(after))
    assert not verdict.legal and "removed at 8I" in verdict.reason


def test_a_changed_token_is_not_a_move():
    before = line("8H", "1+2")
    verdict = game_with().judge(grid(before), grid({**before, "8J": "3"}))
    assert not verdict.legal and "8J changed from 2 to 3" in verdict.reason


def test_an_equals_sign_is_no_calculissimo_token():
    verdict = game_with().judge(grid(), grid({**line("8H", "1+2"), "8K": "="}))
    assert not verdict.legal and "8K reads '='" in verdict.reason


def test_nothing_new_is_not_a_move():
    before = grid(line("8H", "1+2"))
    verdict = game_with().judge(before, before)
    assert not verdict.legal and "no token was added" in verdict.reason


def test_digits_may_come_as_ints():
    verdict = game_with().judge(grid(), grid({"8H": 1, "8I": "+", "8J": 2}))
    assert verdict.legal and verdict.move == "8H=1 8I=+ 8J=2"


# -- jokers


def test_a_joker_takes_its_declared_value_but_no_premium():
    game = game_with({"8F": "g", "8J": "g"})
    after = grid({**line("8F", "6/2+"), "8J": JOKER})
    verdict = game.judge(grid(), after, jokers={"8J": "9"})
    assert verdict.legal and verdict.move == "8F=6 8G=/ 8H=2 8I=+ 8J=?9"
    assert verdict.score == (12 // 2 + 9) * 2


def test_an_undeclared_joker_is_named():
    verdict = game_with().judge(grid(), grid({**line("8H", "1+"), "8J": JOKER}))
    assert not verdict.legal and "the joker at 8J has no declared value" in verdict.reason


def test_a_joker_cannot_stand_for_x():
    verdict = game_with().judge(grid(), grid({**line("8H", "1"), "8I": JOKER, "8J": "2"}),
                                jokers={"8I": "x"})
    assert not verdict.legal and "cannot stand for x" in verdict.reason
    with pytest.raises(IllegalMove, match="cannot stand for x"):
        game_with().new_initial_state().apply(Play.parse("8H=1 8I=?x 8J=2"))


def test_a_joker_keeps_its_value_for_the_rest_of_the_game():
    state = game_with().new_initial_state()
    state.apply_change(grid({**line("8H", "1+"), "8J": JOKER}), jokers={"8J": "2"})
    assert state.jokers == {(7, 9): "2"} and state.cells()[7][9] == JOKER
    column = {**line("8H", "1+"), "8J": JOKER, "9J": "x", "10J": "3"}
    assert state.judge_change(grid(column)).score == 6                  # 2 x 3
    verdict = state.judge_change(grid(column), jokers={"8J": "3"})
    assert not verdict.legal and "declared 2 and stays 2" in verdict.reason
    # the camera (or the table) may show the joker as the token it stands for
    assert state.judge_change(grid({**column, "8J": "2"})).score == 6
    # with no history, the declaration of an old joker comes with the picture
    before = grid({**line("8H", "1+"), "8J": JOKER})
    assert state.game.judge(before, grid(column), jokers={"8J": "2"}).score == 6
    assert "no declared value" in state.game.judge(before, grid(column)).reason


# -- hands, the bag and the end of the game


def small_game(hand_size, **tokens):
    return game_with(hand_size=hand_size, tokens=tokens, jokers=0)


def test_an_emptied_hand_draws_again_and_the_same_player_continues():
    state = small_game(3, **{"1": 4, "2": 4, "+": 4}).new_initial_state()
    assert state.bag_size == 6
    verdict = state.apply(Play.parse("8H=1 8I=+ 8J=2"))
    assert verdict.details["hand_emptied"] and verdict.details["continues"]
    assert state.current_player == 0 and state.hand_sizes == [3, 3] and state.bag_size == 3
    state.apply(Play.parse("8K=+ 8L=1"))
    assert state.current_player == 1 and state.hand_sizes == [3, 3] and state.bag_size == 1


def test_the_game_ends_when_the_bag_is_empty_and_a_hand_is_emptied():
    state = small_game(3, **{"6": 1, "/": 1, "2": 1, "7": 1, "+": 1, "4": 1}).new_initial_state()
    assert state.bag_size == 0
    verdict = state.apply(Play.parse("8H=6 8I=/ 8J=2"))
    assert verdict.details["game_over"] and state.is_terminal()
    assert list(state.legal_moves(["7"])) == []
    with pytest.raises(IllegalMove, match="game is over"):
        state.apply(Pass())
    with pytest.raises(IllegalMove, match="player 2 should hold 3"):
        state.finish([[], ["7", "+"]])
    assert state.finish([[], ["7", "+", "4"]]) == [6, -21]


def test_the_game_ends_when_nobody_can_play_and_hands_are_subtracted():
    state = game_with().new_initial_state(players=2)
    state.apply(Play.parse("8H=1 8I=+ 8J=2"))
    with pytest.raises(IllegalMove, match="not over"):
        state.finish([[], []])
    state.apply(Pass())
    assert not state.is_terminal()
    state.apply(Pass())
    assert state.is_terminal()
    hands = [["1", "2", "3", "4", "5", "6", "9"], ["+", "-", "x", "/", "?", "0", "9"]]
    assert state.finish(hands) == [6 - 30, 0 - 59]


def test_exchange_loses_the_turn_and_keeps_the_counts():
    state = game_with().new_initial_state(players=2)
    verdict = state.apply(Exchange(3))
    assert verdict.legal and verdict.move == "exchange 3"
    assert state.current_player == 1 and state.hand_sizes == [7, 7] and state.bag_size == 82
    assert not state.judge_move(Exchange(8)).legal
    state.bag_size = 0
    assert "bag is empty" in state.judge_move(Exchange(1)).reason


def test_a_play_larger_than_the_hand_is_a_misreading():
    state = small_game(3, **{"1": 6, "+": 6}).new_initial_state()
    verdict = state.judge_change(grid(line("8F", "1+1+1")))
    assert not verdict.legal and "holds 3" in verdict.reason


def test_end_penalties():
    assert penalty(["7", "0", "+", "-", "x", "/", "?"]) == 7 + 50
    assert penalty([]) == 0
    assert game_with(operator_penalty=5, joker_penalty=20).penalty(["+", "?", "3"]) == 28


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players):
    with pytest.raises(ValueError, match="2-4 players"):
        game_with().new_initial_state(players=players)


# -- the command line


def test_boardsight_check_with_a_declared_joker(tmp_path, capsys):
    from boardsight.cli import main
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps({"cells": grid()}))
    after.write_text(json.dumps({"cells": grid({"8H": "?", "8I": "x", "8J": "3"}),
                                 "jokers": {"8H": "4"}}))
    assert main(["check", "calculissimo", str(before), str(after)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["legal"] and verdict["score"] == 12 and verdict["move"] == "8H=?4 8I=x 8J=3"


# -- properties


expressions = st.builds(
    lambda first, rest: first + "".join(op + d for op, d in rest),
    st.sampled_from("0123456789"),
    st.lists(st.tuples(st.sampled_from("+-x/"), st.sampled_from("0123456789")), max_size=6))


@given(expressions)
def test_evaluation_matches_python_fractions(text):
    python = " ".join(f"Fraction({t})" if t.isdigit() else t.replace("x", "*") for t in text)
    try:
        expected = eval(python, {"Fraction": Fraction})
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            evaluate(text)
        return
    assert evaluate(text) == expected


def draw_hand(bag, rng, n):
    return [bag.pop(rng.randrange(len(bag))) for _ in range(min(n, len(bag)))]


def full_bag(game):
    return [t for t, n in game.definition["tokens"].items() for _ in range(n)] + \
        [JOKER] * game.definition["jokers"]


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_generated_plays_are_judged_legal_as_pictures_with_the_same_score(seed):
    rng = random.Random(seed)
    game = CalculissimoGame()
    state = game.new_initial_state(players=2)
    bag = full_bag(game)
    for _ in range(6):
        hand = draw_hand(list(bag), rng, 7)
        moves = [m for m in islice(state.legal_moves(hand), 25) if isinstance(m, Play)]
        if not moves:
            break
        for move in rng.sample(moves, min(4, len(moves))):
            assert not Counter(move.hand_tokens) - Counter(hand)
            expected = state.judge_move(move)
            assert expected.legal
            after = state.cells()
            jokers = {}
            for (r, c), value in move.tokens:
                after[r][c] = JOKER if value.startswith(JOKER) else value
                if value.startswith(JOKER):
                    jokers[_name(r, c)] = value[1:]
            verdict = state.judge_change(after, jokers=jokers)
            assert verdict.legal, verdict.reason
            assert (verdict.score, verdict.move) == (expected.score, str(move))
            old = {_name(r, c): v for (r, c), v in state.jokers.items()}
            fresh = game.judge(state.cells(), after, jokers={**old, **jokers})
            assert (fresh.legal, fresh.score) == (True, expected.score)
        state.apply(rng.choice(moves))


@pytest.mark.parametrize("seed", range(3))
def test_random_games_keep_hands_and_bag_in_step(seed):
    rng = random.Random(seed)
    game = CalculissimoGame()
    state = game.new_initial_state(players=3)
    bag = full_bag(game)
    hands = [draw_hand(bag, rng, 7) for _ in range(3)]
    for _ in range(300):
        if state.is_terminal():
            break
        player = state.current_player
        moves = list(islice(state.legal_moves(hands[player]), 12))
        plays = [m for m in moves if isinstance(m, Play)]
        move = rng.choice(plays) if plays else Pass()
        before = state.scores[player]
        verdict = state.apply(move)
        assert state.scores[player] == before + verdict.score
        if isinstance(move, Play):
            assert verdict.score > 0
            left = Counter(hands[player]) - move.hand_tokens
            hands[player] = list(left.elements())
            hands[player] += draw_hand(bag, rng, 7 - len(hands[player]))
        assert state.bag_size == len(bag)
        assert state.hand_sizes == [len(h) for h in hands]
    assert state.is_terminal()
    totals = state.scores
    assert state.finish(hands) == [t - penalty(h) for t, h in zip(totals, hands)]


def test_the_default_board_is_symmetric_around_the_start_square():
    game = CalculissimoGame()
    layout = game.layout
    assert layout == layout[::-1] and layout == [row[::-1] for row in layout]
    assert layout == ["".join(col) for col in zip(*layout)]
    assert game.premiums[game.start].kind == "calculation" and game.premiums[game.start].factor == 2


def test_first_moves_from_any_tokens_cover_the_start_square():
    state = CalculissimoGame().new_initial_state()
    moves = list(islice(state.legal_moves(), 60))
    plays = [m for m in moves if isinstance(m, Play)]
    assert len(plays) == 60
    for play in plays:
        cells = dict(play.tokens)
        assert (7, 7) in cells and cells[(7, 7)].lstrip(JOKER).isdigit()
        assert state.judge_move(play).score > 0


def test_generated_jokers_never_stand_for_x_and_hands_are_respected():
    state = game_with().new_initial_state()
    state.apply(Play.parse("8H=1 8I=+ 8J=2"))
    moves = list(state.legal_moves(["?", "x", "5"]))
    plays = [m for m in moves if isinstance(m, Play)]
    assert plays and moves[-2:] == [Pass(), Exchange(7)]
    assert all(v != "?x" for p in plays for _, v in p.tokens)
    assert all(not p.hand_tokens - Counter(["?", "x", "5"]) for p in plays)
    assert Play.parse("8K=x 8L=5") in plays and Play.parse("8K=?+ 8L=5") in plays
