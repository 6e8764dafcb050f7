"""A lesson's self-checks: compare a learner's prediction with windowmem's answer, out of sight.

Self-checks are not graded (the nbgrader assignment is); they tell the learner at once
whether a prediction matches what the library computes. A lesson's check cell is one
call, ``check("3a", answer)``: the expected value, the hint and the feedback for each
foreseen mistake live in the lesson's check book (``course/checks/lessonNN.py``), never
on the page, so nothing there can be read off or found by elimination. The learner sees
one line: the feedback for the answer given, never the others, and never the answer.

>>> book = CheckBook(3, [Expectation("1a", lambda: {"1a": (2, 3, 4)},
...     hint="count interactions, not messages",
...     mistakes={(1, 2, 3): "that is the buffer before turn 4 was stored"},
...     why="the window holds the three turns before the one being answered")])
>>> print(book.feedback("1a", None))
1a: write your prediction in the cell above, then run this cell again (reading without running it? note your answer, then open the worked answer below).
>>> print(book.feedback("1a", [2, 3, 4]))
1a: correct: the window holds the three turns before the one being answered.
>>> print(book.feedback("1a", (1, 2, 3)))
1a: not yet: that is the buffer before turn 4 was stored.
>>> print(book.feedback("1a", [5]))
1a: not yet: count interactions, not messages.

The check forgives form, never substance (:mod:`.answer_forms`): ``"2, 3, 4"`` is read as
the list, ``"Window."`` as ``"window"``, ``"eleven"`` as 11. An answer in a form the check
cannot read gets a format hint, never the reasoning hint:

>>> print(book.feedback("1a", "2 to 4"))
1a: not a form this check reads: write a list of numbers in square brackets, one number per item, in order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from windowmem.explorer.answer_forms import (
    form_needed,
    readable_as,
    same_answer,
    same_case,
    same_items,
)

UNANSWERED = (
    "write your prediction in the cell above, then run this cell again"
    " (reading without running it? note your answer, then open the worked answer below)"
)

__all__ = ["UNANSWERED", "CheckBook", "Expectation", "same_answer", "sentence"]


def sentence(text: str) -> str:
    """*text* closed with a period, unless it already ends a sentence (a hint may be a question).

    >>> sentence("count the turns"), sentence("which turns are stored?"), sentence("done.")
    ('count the turns.', 'which turns are stored?', 'done.')
    """
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


@dataclass(frozen=True)
class Expectation:
    """One self-check: how its answer is computed and what to say to each answer.

    *compute* returns a mapping of check ids to expected values; checks that share a
    computation (the parts of one question) share the function, and the book calls it
    once. *mistakes* maps each foreseen wrong answer to what went wrong; it may be a
    function when a wrong answer is itself a figure windowmem computes. *transfer* names the case the lesson has not worked (another product, a tool
    turn, another key, another timing) when the check asks the learner to carry the idea
    over; it is empty for a check that applies the section's worked example. *why* is what
    a right answer is told: every check needs one (:meth:`CheckBook.unexplained` lists the
    checks without it, and the lessons' tests fail on them). *form* says what form the
    answer takes when the learner's cannot be read ("one of 'scope', 'storage' or 'window'");
    left empty, the form is worded from the expected value's type. *any_order* marks an
    answer that is a set written as a list (which claims hold): its items match in any order.
    *exact_case* marks an answer whose letters' case is substance (a key a database matches
    byte for byte): it is compared as written, past surrounding spaces.
    """

    id: str
    compute: Callable[[], Mapping[str, Any]]
    hint: str
    mistakes: Mapping[Any, str] | Callable[[], Mapping[Any, str]] = field(default_factory=dict)
    why: str = ""
    transfer: str = ""
    form: str = ""
    any_order: bool = False
    exact_case: bool = False

    def same(self, answer: Any, like: Any) -> bool:
        """Whether *answer* says what *like* (the expected value or a foreseen mistake) says,
        under this check's rules of form."""
        if self.exact_case:
            return same_case(answer, like)
        return same_items(answer, like) if self.any_order else same_answer(answer, like)

    def __post_init__(self) -> None:
        if not self.hint:
            raise ValueError(f"self-check {self.id}: give a hint for answers nobody foresaw")


class CheckBook:
    """A lesson's self-checks by id, with their expected values computed once, on first use."""

    def __init__(self, lesson: int, expectations: Iterable[Expectation]) -> None:
        self.lesson = lesson
        self._by_id: dict[str, Expectation] = {}
        for expectation in expectations:
            if expectation.id in self._by_id:
                raise ValueError(f"lesson {lesson}: self-check {expectation.id} is defined twice")
            self._by_id[expectation.id] = expectation
        self._computed: dict[Callable[[], Mapping[str, Any]], Mapping[str, Any]] = {}

    @property
    def ids(self) -> list[str]:
        """The check ids, in the order the book lists them."""
        return list(self._by_id)

    def expectation(self, check_id: str) -> Expectation:
        """The expectation behind *check_id*, or a clear error naming the ids that exist."""
        try:
            return self._by_id[check_id]
        except KeyError:
            known = ", ".join(self._by_id)
            raise KeyError(
                f"lesson {self.lesson} has no self-check {check_id!r}; its checks are {known}"
            ) from None

    def expected(self, check_id: str) -> Any:
        """The value windowmem computes for *check_id* (for the lesson's tests, not its page)."""
        compute = self.expectation(check_id).compute
        if compute not in self._computed:
            self._computed[compute] = compute()
        return self._computed[compute][check_id]

    def mistakes(self, check_id: str) -> Mapping[Any, str]:
        """The foreseen wrong answers of *check_id* and what to say to each."""
        mistakes = self.expectation(check_id).mistakes
        return mistakes() if callable(mistakes) else mistakes

    def unexplained(self) -> list[str]:
        """The checks whose right answer would be told no reason (each needs a *why*)."""
        return [check_id for check_id, e in self._by_id.items() if not e.why.strip()]

    def form_hint(self, check_id: str) -> str:
        """What form *check_id*'s answer takes: the expectation's *form*, or one worded from its value."""
        expectation = self.expectation(check_id)
        return expectation.form or form_needed(
            self.expected(check_id), any_order=expectation.any_order
        )

    def feedback(self, check_id: str, answer: Any) -> str:
        """The one line a learner sees for *answer* (None = not answered yet)."""
        expectation = self.expectation(check_id)
        if answer is None:
            return f"{check_id}: {UNANSWERED}."
        expected = self.expected(check_id)
        same = expectation.same
        if same(answer, expected):
            reason = f": {expectation.why}" if expectation.why.strip() else ""
            return sentence(f"{check_id}: correct{reason}")
        for wrong, why in self.mistakes(check_id).items():
            if same(answer, wrong):
                return sentence(f"{check_id}: not yet: {why}")
        if not readable_as(answer, expected):
            return sentence(f"{check_id}: not a form this check reads: {self.form_hint(check_id)}")
        return sentence(f"{check_id}: not yet: {expectation.hint}")

    def check(self, check_id: str, answer: Any) -> None:
        """Print the feedback for *answer*: the one call a lesson's check cell makes."""
        # One write, not print's two (text, then newline): a kernel that flushes between
        # them stores the feedback as two outputs, and the lesson shows an empty one.
        sys.stdout.write(self.feedback(check_id, answer) + "\n")
