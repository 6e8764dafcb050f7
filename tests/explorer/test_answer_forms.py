"""How a self-check reads an answer: each form rule, and where form ends and substance begins."""

from __future__ import annotations

import pytest

from windowmem.explorer.answer_forms import (
    folded_text,
    form_needed,
    number_from_text,
    readable_as,
    same_answer,
)


@pytest.mark.parametrize(
    ("answer", "like"),
    [
        ("Window", "window"),
        ("WINDOW", "window"),
        ("  window  ", "window"),
        ("window.", "window"),
        ("same", "the same"),
        ("The same.", "the same"),
        ("11:20 ", "11:20"),
        ("key   parameter is empty", "Key parameter is empty"),
    ],
)
def test_text_forgives_case_spaces_a_trailing_period_and_a_leading_the(answer, like):
    assert same_answer(answer, like)


@pytest.mark.parametrize(
    ("answer", "like"),
    [("window", "scope"), ("11:25", "11:20"), ("higher", "the same"), ("wf1__", "wf1__abc")],
)
def test_text_still_has_to_say_the_same_thing(answer, like):
    assert not same_answer(answer, like)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("11", 11),
        (" 11 ", 11),
        ("11.", 11),
        ("eleven", 11),
        ("Eleven", 11),
        ("zero", 0),
        ("twenty-two", 22),
        ("twenty two", 22),
        ("one hundred and five", 105),
        ("1,725", 1725),
        ("one thousand seven hundred twenty-five", 1725),
        ("twenty-two thousand", 22000),
        ("2.5", 2.5),
        ("$650", 650),
        ("US$ 650", 650),
    ],
)
def test_a_number_may_be_written_in_digits_or_in_words(text, number):
    assert number_from_text(text) == number
    assert same_answer(text, number)


@pytest.mark.parametrize("text", ["11 turns", "about 11", "a lot", "", "1,72", "eleventh"])
def test_text_that_is_not_only_a_number_is_not_read_as_one(text):
    assert number_from_text(text) is None
    assert not readable_as(text, 11)


@pytest.mark.parametrize(
    "answer", [[2, 3, 4], (2, 3, 4), range(2, 5), "2, 3, 4", "[2, 3, 4]", "2 3 4"]
)
def test_a_run_of_items_may_be_a_list_a_tuple_a_range_or_written_as_text(answer):
    assert same_answer(answer, (2, 3, 4))
    assert same_answer(answer, [2, 3, 4])


def test_a_list_compares_item_by_item_in_order_with_each_item_forgiven_its_form():
    assert same_answer(["carlos "], ["Carlos"])
    assert same_answer(("4", "six"), [4, 6])
    assert not same_answer([4, 3, 2], [2, 3, 4])
    assert not same_answer([2, 3], [2, 3, 4])
    assert not same_answer(4, [4]) and not same_answer([4], 4)


def test_a_yes_or_no_is_a_bool_or_the_word_and_never_a_number():
    assert same_answer("yes", True) and same_answer("False", False) and same_answer(" No. ", False)
    assert not same_answer(1, True) and not same_answer(0, False)
    assert not same_answer(True, 1), "a bool is not a count"
    assert not readable_as(1, True) and not readable_as(True, 1)


@pytest.mark.parametrize(
    ("answer", "like", "readable"),
    [
        (5, (4, 5, 6), False),  # a count where the turns themselves are asked
        ([5], 5, False),
        ("five turns", 5, False),
        (5, "window", False),
        ("maybe", True, False),
        (["x"], (4, 5), False),
        ([9, 9], (4, 5, 6), True),  # the right form, the wrong answer
        ("scope", "window", True),
        ("seven", 5, True),
    ],
)
def test_an_answer_in_the_wrong_form_is_told_apart_from_a_wrong_answer(answer, like, readable):
    assert readable_as(answer, like) is readable


@pytest.mark.parametrize(
    "like", [0, 7, 1725, "window", "the same", True, False, (2, 3, 4), ["Carlos"], []]
)
def test_the_form_asked_for_never_states_the_value(like):
    said = form_needed(like)
    assert said and not said.endswith(("?", "."))
    for item in like if isinstance(like, (list, tuple)) else [like]:
        if isinstance(item, str):
            assert item.lower() not in said.lower(), (like, said)
        elif not isinstance(item, bool):
            assert str(item) not in said.split(), (like, said)


def test_folded_text_keeps_what_is_not_form():
    assert folded_text("wf1__abc") == "wf1__abc"
    assert folded_text("the") == "the"
    assert folded_text("Theory") == "theory"
