"""Feedback for a lesson's self-check cells: compare a learner's prediction with windowmem's answer.

Self-checks are not graded (the nbgrader assignment is); they tell the learner at once
whether a prediction matches what the library computes. A wrong answer gets feedback
that explains it: the explanation written for that very mistake when the lesson
foresaw it (*mistakes*), otherwise the general *hint*. Neither states the answer.

>>> print(self_check("1a", None, (2, 3, 4)))
1a: write your prediction in the cell above, then run this cell again.
>>> print(self_check("1a", [2, 3, 4], (2, 3, 4)))
1a: correct.
>>> print(self_check("1a", (1, 2, 3), (2, 3, 4), hint="count interactions, not messages"))
1a: not yet: count interactions, not messages.
>>> print(self_check("1a", [1, 2, 3], (2, 3, 4), hint="rebuild it turn by turn",
...                  mistakes={(1, 2, 3): "that is the buffer before turn 4 was stored"}))
1a: not yet: that is the buffer before turn 4 was stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _comparable(value: Any) -> Any:
    # A learner may write a list, a tuple or a range for a run of turns: compare contents.
    if isinstance(value, (list, tuple, range)):
        return tuple(value)
    return value


def _same(answer: Any, expected: Any) -> bool:
    # True must not pass for 1 (nor 1 for True): a yes/no question wants a bool.
    if isinstance(expected, bool) or isinstance(answer, bool):
        return answer is expected
    try:
        return bool(_comparable(answer) == _comparable(expected))
    except Exception:  # an answer of a type that cannot be compared is simply not it
        return False


def self_check(
    label: str,
    answer: Any,
    expected: Any,
    hint: str = "",
    mistakes: Mapping[Any, str] | None = None,
) -> str:
    """One line of feedback on *answer* (None = not answered yet) against *expected*.

    *mistakes* maps foreseen wrong answers (lists and tuples match each other) to the
    explanation of that mistake; any other wrong answer gets *hint*.
    """
    if answer is None:
        return f"{label}: write your prediction in the cell above, then run this cell again."
    if _same(answer, expected):
        return f"{label}: correct."
    for wrong, why in (mistakes or {}).items():
        if _same(answer, wrong):
            return f"{label}: not yet: {why}."
    return f"{label}: not yet{': ' + hint if hint else ''}."
