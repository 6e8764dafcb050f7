"""Feedback for a lesson's self-check cells: compare a learner's prediction with windowmem's answer.

Self-checks are not graded (the nbgrader assignment is); they tell the learner at once
whether a prediction matches what the library computes, without giving the answer away.

>>> print(self_check("1a", None, (2, 3, 4)))
1a: write your prediction in the cell above, then run this cell again.
>>> print(self_check("1a", [2, 3, 4], (2, 3, 4)))
1a: correct.
>>> print(self_check("1a", (1, 2, 3), (2, 3, 4), hint="count interactions, not messages"))
1a: not yet: count interactions, not messages.
"""

from __future__ import annotations

from typing import Any


def _comparable(value: Any) -> Any:
    # A learner may write a list, a tuple or a range for a run of turns: compare contents.
    if isinstance(value, (list, tuple, range)):
        return tuple(value)
    return value


def self_check(label: str, answer: Any, expected: Any, hint: str = "") -> str:
    """One line of feedback on *answer* (None = not answered yet) against *expected*."""
    if answer is None:
        return f"{label}: write your prediction in the cell above, then run this cell again."
    # True must not pass for 1 (nor 1 for True): a yes/no question wants a bool.
    right = (
        answer is expected
        if isinstance(expected, bool)
        else _comparable(answer) == _comparable(expected)
    )
    if right:
        return f"{label}: correct."
    return f"{label}: not yet{': ' + hint if hint else ''}."
