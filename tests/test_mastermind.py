"""Mastermind: feedback counting, the codemaker's mistakes, rounds, scoring, change reasons."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import referee
from referee.core import IllegalMove, load_definition
from referee.mastermind import (NEW_ROUND, Guess, MastermindGame, check_feedback, feedback,
                                guesser_points)

PALETTE = load_definition("mastermind")["palette"]
SECRET = ["pink", "red", "cyan", "yellow"]  # the example from the rules text

codes = st.lists(st.sampled_from(PALETTE), min_size=4, max_size=4)


def board(*guesses, top=False):
    """A 12x4 reading with ``guesses`` in guess order from the first guess row."""
    grid = [[None] * 4 for _ in range(12)]
    for i, guess in enumerate(guesses):
        grid[i if top else 11 - i] = list(guess)
    return grid


def code(text):
    return text.split()


def make_game(**extra):
    return MastermindGame({**load_definition("mastermind"), **extra})


# -- feedback properties


@given(codes, codes)
def test_feedback_counts_at_most_one_peg_per_hole(secret, guess):
    red, white = feedback(secret, guess)
    assert red >= 0 and white >= 0 and red + white <= 4


@given(codes, codes)
def test_feedback_is_symmetric(secret, guess):
    assert feedback(secret, guess) == feedback(guess, secret)


@given(codes, codes)
def test_red_counts_equal_positions(secret, guess):
    assert feedback(secret, guess)[0] == sum(s == g for s, g in zip(secret, guess))


@given(codes, codes, st.permutations(PALETTE), st.permutations(range(4)))
def test_feedback_ignores_renaming_colours_and_reordering_holes(secret, guess, renamed, order):
    rename = dict(zip(PALETTE, renamed))
    assert feedback([rename[c] for c in secret], [rename[c] for c in guess]) == \
        feedback(secret, guess)
    assert feedback([secret[i] for i in order], [guess[i] for i in order]) == \
        feedback(secret, guess)


@given(codes, codes, st.integers(0, 4), st.integers(0, 4))
def test_check_feedback_accepts_exactly_the_right_pegs(secret, guess, red, white):
    right = feedback(secret, guess)
    assert check_feedback(secret, guess, *right) is None
    if (red, white) != right:
        assert "should be" in check_feedback(secret, guess, red, white) or red + white > 4


@given(codes)
def test_the_secret_itself_is_all_red(secret):
    assert feedback(secret, secret) == (4, 0)


@pytest.mark.parametrize("secret, guess, expected", [
    ("red orange yellow green", "red orange yellow green", (4, 0)),
    ("red orange yellow green", "green yellow orange red", (0, 4)),
    ("red orange yellow green", "blue cyan pink white", (0, 0)),
    ("red orange yellow green", "red red red red", (1, 0)),  # one red in the secret
    ("red red blue blue", "red blue red green", (1, 2)),
    ("red red red blue", "red red blue blue", (3, 0)),
    ("red red blue blue", "blue blue red red", (0, 4)),
    ("pink red cyan yellow", "red pink green yellow", (1, 2)),
])
def test_feedback_hand_examples(secret, guess, expected):
    assert feedback(code(secret), code(guess)) == expected


def test_the_example_from_the_text_scores_4():
    guess = code("red pink green yellow")  # 2 right colours misplaced, 1 in place
    assert feedback(SECRET, guess) == (1, 2)
    assert guesser_points(*feedback(SECRET, guess)) == 4
    assert guesser_points(4, 0) == 2 * 4 + 10


@pytest.mark.parametrize("red, white, words", [
    (2, 1, "1 peg marked red is in a wrong hole (white)"),
    (0, 3, "1 peg marked white is in the right hole (red)"),
    (1, 1, "1 right colour was not marked"),
    (1, 3, "1 peg too many: the guess has only 3 right colours"),
    (3, 2, "5 feedback pegs for 4 holes"),
])
def test_check_feedback_says_what_the_codemaker_got_wrong(red, white, words):
    message = check_feedback(SECRET, code("red pink green yellow"), red, white)
    assert words in message
    if red + white <= 4:
        assert message.startswith(
            f"the feedback should be 1 red and 2 white, not {red} red and {white} white")


# -- the secret and the repeats variant


def test_a_secret_with_repeats_is_refused_unless_the_variant_is_on():
    state = MastermindGame().new_initial_state()
    with pytest.raises(IllegalMove, match="repeats red"):
        state.set_secret(code("red red blue green"))
    variant = make_game(repeats=True).new_initial_state()
    variant.set_secret(code("red red blue green"))
    assert variant.secret == ("red", "red", "blue", "green")


@pytest.mark.parametrize("secret, reason", [
    ("red blue green", "has 3 pegs"),
    ("red blue green purple", "unknown colour 'purple' in hole 4 of the secret"),
])
def test_a_malformed_secret_is_refused(secret, reason):
    with pytest.raises(IllegalMove, match=reason):
        MastermindGame().new_initial_state().set_secret(code(secret))


def test_a_guess_may_repeat_colours_even_without_the_variant():
    state = MastermindGame().new_initial_state()
    state.set_secret(SECRET)
    verdict = state.apply(code("red red red red"))
    assert verdict.details["feedback"] == [1, 0]


# -- scoring tables


@pytest.mark.parametrize("players, row, points", [
    (3, 1, 5), (3, 6, 10), (3, 7, 14), (3, 12, 34), (3, None, 40),
    (4, 1, 5), (4, 7, 13), (4, 11, 25), (4, 12, 28), (4, None, 30),
    (5, 1, 5), (5, 7, 12), (5, 10, 18), (5, 12, 22), (5, None, 25),
])
def test_codemaker_table(players, row, points):
    assert MastermindGame().codemaker_score(players, row) == points


def misses(n, start=0):
    """n guesses that never crack SECRET, with varied feedback."""
    pool = [code("red pink green yellow"), code("white white white white"),
            code("pink red yellow cyan"), code("blue blue cyan cyan")]
    return [pool[(start + i) % len(pool)] for i in range(n)]


def test_three_player_round_cracked_on_row_7():
    state = MastermindGame().new_initial_state(players=3)
    state.set_secret(SECRET)
    totals = [0, 0, 0]
    for guess in misses(6):
        verdict = state.apply(guess)
        totals[verdict.details["player"]] += guesser_points(*feedback(SECRET, guess))
        assert verdict.score == guesser_points(*feedback(SECRET, guess))
    last = state.apply(SECRET)
    assert last.details["player"] == 1 and last.score == 18
    assert last.details["cracked_on"] == 7 and last.details["codemaker_points"] == 14
    totals[1] += 18
    totals[0] += 14
    assert state.scores == totals
    assert state.is_round_over() and not state.is_terminal()


@pytest.mark.parametrize("players, figure", [(3, 40), (4, 30), (5, 25)])
def test_codemaker_scores_the_not_cracked_figure(players, figure):
    state = MastermindGame().new_initial_state(players=players)
    state.set_secret(SECRET)
    for guess in misses(12):
        verdict = state.apply(guess)
    assert verdict.details["round_over"] and verdict.details["cracked_on"] is None
    assert verdict.details["codemaker_points"] == figure
    guessed = sum(guesser_points(*feedback(SECRET, g)) for g in misses(12))
    assert state.scores[0] == figure and sum(state.scores) == figure + guessed


# -- 2 players: rounds won


def test_two_player_rounds_swap_roles_and_may_tie():
    state = MastermindGame().new_initial_state(players=2)
    assert state.rounds == 2 and state.codemaker == 0 and state.current_player == 1
    state.set_secret(SECRET)
    for guess in misses(2):
        state.apply(guess)
    verdict = state.apply(SECRET)  # cracked on row 3: the codebreaker wins the round
    assert verdict.details["round_winner"] == 1 and state.scores == [0, 1]
    assert verdict.score == 18  # the verdict still shows the row's points
    assert state.apply(NEW_ROUND).details["codemaker"] == 1
    assert state.current_player == 0
    state.set_secret(code("blue green orange white"))
    for guess in misses(12):
        verdict = state.apply(guess)
    assert verdict.details["round_winner"] == 1  # not cracked: the codemaker wins it
    assert state.is_terminal() and state.scores == [0, 2] and state.winners == [1]
    assert verdict.details["game_over"] and verdict.details["winners"] == [1]


def test_two_players_tie():
    state = MastermindGame().new_initial_state(players=2, rounds=2)
    state.set_secret(SECRET)
    state.apply(SECRET)  # player 1 cracks at once
    state.apply(NEW_ROUND)
    state.set_secret(SECRET)
    state.apply(SECRET)  # player 0 cracks at once
    assert state.scores == [1, 1] and state.winners == [0, 1]


def test_two_players_need_an_even_number_of_rounds():
    with pytest.raises(referee.RefereeError, match="even number of rounds"):
        MastermindGame().new_initial_state(players=2, rounds=3)
    assert MastermindGame().new_initial_state(players=2, rounds=4).rounds == 4


def test_player_counts_outside_2_to_5_are_refused():
    with pytest.raises(referee.RefereeError, match="2-5 players"):
        MastermindGame().new_initial_state(players=6)


# -- 3-5 players: rotation


def test_rotation_of_guessers_and_codemakers():
    state = MastermindGame().new_initial_state(players=4)
    assert state.rounds == 4
    seen = []
    for rnd in range(4):
        assert state.codemaker == rnd
        state.set_secret(SECRET)
        players = [state.apply(guess).details["player"] for guess in misses(4)]
        players.append(state.apply(SECRET).details["player"])
        seen.append(players)
        if rnd < 3:
            state.apply(NEW_ROUND)
    assert seen == [[1, 2, 3, 1, 2], [2, 3, 0, 2, 3], [3, 0, 1, 3, 0], [0, 1, 2, 0, 1]]
    assert state.is_terminal() and list(state.legal_moves()) == []
    with pytest.raises(IllegalMove, match="match is over"):
        state.apply(NEW_ROUND)


def test_rotation_starts_from_the_first_codemaker():
    state = MastermindGame().new_initial_state(players=3, first_codemaker=2)
    assert state.codemaker == 2 and state.guessers() == [0, 1]


def test_legal_moves_are_all_guesses_then_the_clearing():
    state = MastermindGame().new_initial_state()
    assert sum(1 for _ in state.legal_moves()) == 8 ** 4
    state.set_secret(SECRET)
    state.apply(SECRET)
    assert list(state.legal_moves()) == [NEW_ROUND]


def test_pop_takes_back_a_guess():
    state = MastermindGame().new_initial_state(players=3)
    state.set_secret(SECRET)
    state.apply(code("red pink green yellow"))
    state.apply(SECRET)
    state.pop()
    assert state.scores == [0, 4, 0] and state.cells() == board(code("red pink green yellow"))
    assert not state.is_round_over() and state.guesser == 2


# -- reading changes


def test_apply_change_plays_guesses_from_readings():
    state = MastermindGame().new_initial_state(players=3)
    state.set_secret(SECRET)
    first = code("red pink green yellow")
    verdict = state.apply_change(board(first))
    assert verdict.legal and verdict.move == "red pink green yellow" and verdict.score == 4
    assert verdict.details["feedback"] == [1, 2] and verdict.details["row"] == 1
    verdict = state.apply_change(board(first, SECRET))
    assert verdict.details["cracked"] and verdict.details["codemaker_points"] == 6
    assert state.scores == [6, 4, 18]
    verdict = state.apply_change(board())
    assert verdict.legal and verdict.move == "new round" and state.codemaker == 1
    assert state.cells() == board()


def test_judge_gives_feedback_when_the_secret_is_known():
    before = board(code("white white white white"))
    after = board(code("white white white white"), code("red pink green yellow"))
    verdict = MastermindGame().judge(before, after, secret=SECRET)
    assert verdict.legal and verdict.details["feedback"] == [1, 2] and verdict.score == 4
    assert verdict.details["row"] == 2


def test_judge_without_the_secret_accepts_the_row_unscored():
    verdict = MastermindGame().judge(board(), board(SECRET))
    assert verdict.legal and verdict.details["feedback"] is None and verdict.score == 0


def test_judge_checks_the_codemakers_feedback_pegs():
    guess = code("red pink green yellow")
    game = MastermindGame()
    assert game.judge(board(), board(guess), secret=SECRET, feedback=[1, 2]).legal
    wrong = game.judge(board(), board(guess), secret=SECRET, feedback=[2, 1])
    assert not wrong.legal and wrong.move == "red pink green yellow"
    assert "should be 1 red and 2 white" in wrong.reason


def test_judge_scores_the_given_feedback_without_a_secret():
    verdict = MastermindGame().judge(board(), board(code("red red red red")), feedback=[1, 3])
    assert verdict.legal and verdict.score == 5 and verdict.details["feedback"] == [1, 3]


def test_clearing_a_finished_round_is_the_new_round_move():
    game = MastermindGame()
    cracked = board(code("red pink green yellow"), SECRET)
    verdict = game.judge(cracked, board(), secret=SECRET)
    assert verdict.legal and verdict.move == "new round"
    assert verdict.details["round"] == 2 and verdict.details["codemaker"] == 1
    full = board(*misses(12))
    assert game.judge(full, board(), secret=SECRET).legal
    early = game.judge(board(*misses(3)), board(), secret=SECRET)
    assert not early.legal and "cleared before round 1 ended" in early.reason


def test_a_cracked_round_takes_no_more_rows():
    cracked = board(SECRET)
    verdict = MastermindGame().judge(cracked, board(SECRET, misses(1)[0]), secret=SECRET)
    assert not verdict.legal and "clear the board" in verdict.reason


@pytest.mark.parametrize("before, after, reason", [
    ([], [code("red blue None green")], "the guess row (row 1) has 3 pegs"),
    (misses(3), misses(3) + [[None] * 4, code("red blue green cyan")],
     "row 5 was filled before row 4"),
    (misses(3), misses(3) + [code("red blue green cyan"), code("red blue green cyan")],
     "pegs appeared in rows 4, 5; a turn fills one row"),
    ([code("red red red red"), code("blue blue red white")],
     [code("red red red red"), code("blue blue orange white"), code("red blue green cyan")],
     "a peg changed in an earlier row (row 2, hole 3: red -> orange)"),
    ([code("red red red red")], [code("red red None red")],
     "a peg was removed from an earlier row (row 1, hole 3: red)"),
    ([], [code("red blue green purple")], "unknown colour 'purple' at row 1, hole 4 (palette: "
                                          "red, orange, yellow, green, cyan, blue, pink, white)"),
    (misses(2), misses(2), "nothing changed"),
])
def test_change_reasons(before, after, reason):
    after = [[None if p == "None" else p for p in row] for row in after]
    verdict = MastermindGame().judge(board(*before), board(*after))
    assert not verdict.legal and reason in verdict.reason


def test_a_misread_earlier_reading_is_explained():
    before = board(["red", "blue", None, "green"])
    verdict = MastermindGame().judge(before, before)
    assert not verdict.legal and "earlier reading: row 1 has 3 pegs" in verdict.reason


def test_guesses_can_start_from_the_top_row():
    game = make_game(first_guess_row="top")
    state = game.new_initial_state()
    state.set_secret(SECRET)
    verdict = state.apply_change(board(code("red pink green yellow"), top=True))
    assert verdict.legal and verdict.details["feedback"] == [1, 2]
    assert state.cells()[0] == code("red pink green yellow")
    wrong_end = MastermindGame().judge(board(), board(SECRET, top=True))
    assert not wrong_end.legal and "row 12 was filled before row 1" in wrong_end.reason


def test_guess_notation_round_trip():
    assert Guess.from_notation("red, pink green  yellow") == Guess(
        ("red", "pink", "green", "yellow"))
    assert str(Guess(("a", "b", "c", "d"))) == "a b c d"


def test_loaded_through_the_registry():
    assert isinstance(referee.load("mastermind"), MastermindGame)
