"""Self-check feedback: a prediction compared with windowmem's answer, a bool only for yes/no, a foreseen mistake explained."""

from __future__ import annotations

from windowmem.explorer.self_check import self_check


def test_self_check_explains_a_foreseen_mistake_and_hints_at_the_rest():
    mistakes = {(1, 2, 3): "that was the window one turn earlier", 10: "count both messages"}
    assert self_check("x", [1, 2, 3], (2, 3, 4), hint="h", mistakes=mistakes) == (
        "x: not yet: that was the window one turn earlier."
    )
    assert self_check("x", [9], (2, 3, 4), hint="h", mistakes=mistakes) == "x: not yet: h."
    assert self_check("x", (2, 3, 4), (2, 3, 4), mistakes=mistakes) == "x: correct."
    # a foreseen wrong bool does not catch 1, and an uncomparable answer is simply wrong
    assert self_check("x", 1, False, hint="h", mistakes={True: "no"}) == "x: not yet: h."
    assert self_check("x", object(), 3, hint="h").endswith("not yet: h.")


def test_self_check_wants_a_bool_for_yes_no_questions():
    assert self_check("x", 1, True).endswith("not yet.")
    assert self_check("x", True, True).endswith("correct.")
    assert self_check("x", [2, 3], (2, 3)).endswith("correct.")
