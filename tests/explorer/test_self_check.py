"""Self-check feedback: a prediction compared with windowmem's answer, a bool only for yes/no."""

from __future__ import annotations

from windowmem.explorer.self_check import self_check


def test_self_check_wants_a_bool_for_yes_no_questions():
    assert self_check("x", 1, True).endswith("not yet.")
    assert self_check("x", True, True).endswith("correct.")
    assert self_check("x", [2, 3], (2, 3)).endswith("correct.")
