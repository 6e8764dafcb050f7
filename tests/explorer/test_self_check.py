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
    # an uncomparable answer is simply wrong
    assert book.feedback("1a", object()) == "1a: not yet: h."


def test_a_yes_no_question_wants_a_bool_and_a_computed_mistake_list_is_used():
    book = _book()
    assert book.feedback("1b", 0) == "1b: not yet: think again."
    assert book.feedback("1b", True) == "1b: not yet: no."


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
