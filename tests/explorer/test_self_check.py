"""A lesson's check book: one line per answer, the feedback for that answer only, never the answer."""

from __future__ import annotations

import pytest

from windowmem.explorer.self_check import CheckBook, Expectation


def _book(calls: list[str] | None = None) -> CheckBook:
    def window() -> dict[str, object]:
        if calls is not None:
            calls.append("computed")
        return {"1a": (2, 3, 4), "1b": False}

    return CheckBook(
        9,
        [
            Expectation(
                "1a",
                window,
                hint="h",
                mistakes={(1, 2, 3): "that was the window one turn earlier", 10: "count both"},
                why="turn 5 sees turns 2 to 4",
            ),
            Expectation("1b", window, hint="think again", mistakes=lambda: {True: "no"}),
        ],
    )


def test_feedback_explains_a_foreseen_mistake_hints_at_the_rest_and_says_why_when_right():
    book = _book()
    assert book.feedback("1a", [1, 2, 3]) == "1a: not yet: that was the window one turn earlier."
    assert book.feedback("1a", [9]) == "1a: not yet: h."
    assert book.feedback("1a", (2, 3, 4)) == "1a: correct: turn 5 sees turns 2 to 4."
    assert book.feedback("1b", False) == "1b: correct."
    assert book.feedback("1a", None).startswith("1a: write your prediction")
    # an answer the check cannot read is told the form, not the reasoning hint
    assert book.feedback("1a", object()) == (
        "1a: not a form this check reads: write a list of numbers in square brackets, "
        "one number per item, in order."
    )


def test_a_yes_no_question_wants_a_bool_and_a_computed_mistake_list_is_used():
    book = _book()
    assert book.feedback("1b", 0) == "1b: not a form this check reads: answer True or False."
    assert book.feedback("1b", True) == "1b: not yet: no."
    assert book.feedback("1b", "Yes") == "1b: not yet: no."
    assert book.feedback("1b", "no.") == "1b: correct."


def test_a_hint_or_a_reason_that_is_a_question_ends_without_a_period():
    book = CheckBook(
        9,
        [
            Expectation(
                "1", lambda: {"1": 4}, hint="which turns are stored?", mistakes={3: "is it?"}
            )
        ],
    )
    assert book.feedback("1", 5) == "1: not yet: which turns are stored?"
    assert book.feedback("1", 3) == "1: not yet: is it?"
    assert book.feedback("1", "four") == "1: correct."


def test_a_wrong_form_gets_the_form_the_check_wants_and_an_expectation_may_word_it():
    book = CheckBook(
        9,
        [
            Expectation("n", lambda: {"n": 4, "t": "window"}, hint="count the turns"),
            Expectation(
                "t",
                lambda: {"n": 4, "t": "window"},
                hint="which layer decides what is sent",
                form="answer one of 'scope', 'storage' or 'window'",
            ),
        ],
    )
    assert book.feedback("n", "4 turns") == (
        "n: not a form this check reads: write one number, without quotes, a unit or a list "
        "around it."
    )
    assert book.feedback("n", [4]).startswith("n: not a form")
    assert book.feedback("n", "five") == "n: not yet: count the turns."
    assert book.feedback("t", 3) == (
        "t: not a form this check reads: answer one of 'scope', 'storage' or 'window'."
    )
    assert book.feedback("t", "scope") == "t: not yet: which layer decides what is sent."


def test_the_book_lists_the_checks_whose_right_answer_has_no_reason():
    book = _book()
    assert book.unexplained() == ["1b"]
    assert CheckBook(1, [Expectation("1", dict, hint="h", why="   ")]).unexplained() == ["1"]


def test_the_parts_of_one_question_are_computed_once():
    calls: list[str] = []
    book = _book(calls)
    book.feedback("1a", 1)
    book.feedback("1b", 1)
    assert calls == ["computed"]


def test_check_prints_one_line_and_an_unknown_id_names_the_known_ones(capsys):
    book = _book()
    book.check("1a", [2, 3, 4])
    assert capsys.readouterr().out == "1a: correct: turn 5 sees turns 2 to 4.\n"
    with pytest.raises(KeyError, match="no self-check '2'; its checks are 1a, 1b"):
        book.check("2", 1)


def test_a_book_refuses_a_repeated_id_and_an_expectation_without_a_hint():
    with pytest.raises(ValueError, match="defined twice"):
        CheckBook(1, [Expectation("1", dict, hint="h"), Expectation("1", dict, hint="h")])
    with pytest.raises(ValueError, match="give a hint"):
        Expectation("1", dict, hint="")
