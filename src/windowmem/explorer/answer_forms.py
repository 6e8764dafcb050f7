"""How a self-check reads a learner's answer: the form forgiven, the substance kept.

A learner who means the right thing should not be told "not yet" for how they wrote it.
:func:`same_answer` compares an answer with a value in the value's own form:

* text ignores case, surrounding and repeated spaces, a trailing period and a leading
  "the" (``"Window "``, ``"same."`` and ``"the same"`` are one answer);
* a number may be written as text, in digits or in words (``"11"``, ``"eleven"``,
  ``"twenty-two"``, ``"1,725"``);
* a list, a tuple or a range of the same items in the same order are one answer, and so is
  a list written as text (``"2, 3, 4"``); where a check asks for a set (which claims hold,
  whose history is shared), :func:`same_items` takes the items in any order;
* a yes-or-no answer is ``True`` or ``False``, or ``"yes"``/``"no"``/``"true"``/``"false"``
  as text; ``1`` is a number, not ``True``.

:func:`readable_as` tells an answer that is wrong from one in a form the check cannot read
(a list where a number is asked, a sentence where a yes or no is), and :func:`form_needed`
says what form is wanted, without giving the value away.

>>> same_answer(" Window.", "window"), same_answer("eleven", 11), same_answer("2, 3", (2, 3))
(True, True, True)
>>> same_answer(1, True), readable_as([3], 3), form_needed(3)
(False, False, 'write one number, without quotes, a unit or a list around it')
"""

from __future__ import annotations

import ast
import re
from typing import Any

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
#: The value of each number word a learner might write.
NUMBER_WORDS: dict[str, int] = {
    **{word: value for value, word in enumerate(_UNITS)},
    **{word: 10 * value for value, word in enumerate(_TENS, start=2)},
}
_SCALES = {"thousand": 1_000, "million": 1_000_000}
_DIGITS = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_YES, _NO = {"yes", "true", "y"}, {"no", "false", "n"}


def is_number(value: Any) -> bool:
    """Whether *value* is an int or a float, and not a bool.

    >>> is_number(3), is_number(2.5), is_number(True), is_number("3")
    (True, True, False, False)
    """
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_sequence(value: Any) -> bool:
    """Whether *value* is a list, a tuple or a range: the forms a run of items may take."""
    return isinstance(value, (list, tuple, range))


def folded_text(text: str) -> str:
    """*text* as compared: lower case, single spaces, no trailing period, no leading "the".

    >>> folded_text("  The   Same. "), folded_text("11:20 "), folded_text("Key parameter is empty.")
    ('same', '11:20', 'key parameter is empty')
    """
    return " ".join(text.split()).casefold().rstrip(".").strip().removeprefix("the ")


def _number_in_words(text: str) -> int | None:
    # "one thousand seven hundred and twenty-five": units and tens add, hundred multiplies
    # what came before it, thousand and million close a group.
    words = [w for w in re.split(r"[\s-]+", text) if w and w != "and"]
    if not words:
        return None
    total = group = 0
    for word in words:
        if word in NUMBER_WORDS:
            group += NUMBER_WORDS[word]
        elif word == "hundred":
            group = (group or 1) * 100
        elif word in _SCALES:
            total += (group or 1) * _SCALES[word]
            group = 0
        else:
            return None
    return total + group


def number_from_text(text: str) -> int | float | None:
    """The number *text* writes, in digits or in words, or None when it writes none.

    A dollar sign in front is form, not substance: an amount may be written ``$650``; so is
    a number sign, as in an order number written ``#4417``.

    >>> [number_from_text(t) for t in ("11", " 1,725 ", "eleven.", "Twenty-two", "2.5", "11 turns")]
    [11, 1725, 11, 22, 2.5, None]
    >>> [number_from_text(t) for t in ("$650", "US$ 650", "$ 6.75", "650$")]
    [650, 650, 6.75, None]
    >>> [number_from_text(t) for t in ("#4417", "# 4417.", "4417#")]
    [4417, 4417, None]
    """
    folded = folded_text(text)
    for sign in ("us$", "$", "#"):
        if folded.startswith(sign):
            folded = folded.removeprefix(sign).strip()
            break
    if _DIGITS.fullmatch(folded):
        plain = folded.replace(",", "")
        return float(plain) if "." in plain else int(plain)
    return _number_in_words(folded)


def _sequence_from_text(text: str) -> tuple[Any, ...] | None:
    # "[2, 3, 4]", "(2, 3, 4)" and "2, 3, 4" are Python literals; "2 3 4" is read item by item.
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = None
    if is_sequence(value):
        return tuple(value)
    items = [i for i in re.split(r"[\s,;]+", text.strip().strip("[]()")) if i]
    numbers = [number_from_text(i) for i in items]
    if len(items) > 1 and all(n is not None for n in numbers):
        return tuple(numbers)
    return None


def _truth_from_text(text: str) -> bool | None:
    folded = folded_text(text)
    return True if folded in _YES else False if folded in _NO else None


def readable_as(answer: Any, like: Any) -> bool:
    """Whether *answer* is in a form that can be compared with *like* at all.

    A list of the wrong length is readable (it is a wrong answer); a list where a number is
    asked, or a word where a list of numbers is, is not (it is the wrong form).

    >>> readable_as("three", 4), readable_as([1, 2], (4, 5, 6)), readable_as("a lot", 4)
    (True, True, False)
    >>> readable_as(True, 4), readable_as(4, True), readable_as(["x"], [4, 5])
    (False, False, False)
    """
    if isinstance(like, bool):
        return isinstance(answer, bool) or (
            isinstance(answer, str) and _truth_from_text(answer) is not None
        )
    if is_number(like):
        return is_number(answer) or (
            isinstance(answer, str) and number_from_text(answer) is not None
        )
    if isinstance(like, str):
        return isinstance(answer, str)
    if is_sequence(like):
        items = answer if is_sequence(answer) else None
        if isinstance(answer, str):
            items = _sequence_from_text(answer)
        if items is None:
            return False
        return not like or all(readable_as(item, like[0]) for item in items)
    return True


def same_answer(answer: Any, like: Any) -> bool:
    """Whether *answer* says what *like* says, whatever its form (see the module's rules).

    >>> same_answer([1, 2], (1, 2)), same_answer(True, 1), same_answer("x", 3)
    (True, False, False)
    >>> same_answer("yes", True), same_answer(["MARTA "], ("marta",)), same_answer("4", [4])
    (True, True, False)
    """
    if isinstance(like, bool):
        if isinstance(answer, str):
            return _truth_from_text(answer) is like
        return answer is like
    if is_number(like):
        if isinstance(answer, str):
            answer = number_from_text(answer)
        return is_number(answer) and answer == like
    if isinstance(like, str):
        return isinstance(answer, str) and folded_text(answer) == folded_text(like)
    if is_sequence(like):
        items = _sequence_from_text(answer) if isinstance(answer, str) else answer
        if items is None or not is_sequence(items) or len(items) != len(like):
            return False
        return all(same_answer(a, b) for a, b in zip(items, like, strict=True))
    try:
        return bool(answer == like)
    except Exception:  # an answer of a type that cannot be compared is simply not it
        return False


def same_items(answer: Any, like: Any) -> bool:
    """Whether *answer* lists what *like* lists, in any order (a set of claims, of names).

    >>> same_items([3, 2], (2, 3)), same_items("3, 2", (2, 3)), same_items(["marta "], ["Marta"])
    (True, True, True)
    >>> same_items([2, 2], (2, 3)), same_items([2], (2, 3)), same_items(2, (2,))
    (False, False, False)
    """
    items = _sequence_from_text(answer) if isinstance(answer, str) else answer
    if items is None or not is_sequence(items) or not is_sequence(like) or len(items) != len(like):
        return False
    left = list(like)
    for item in items:
        match = next((i for i, wanted in enumerate(left) if same_answer(item, wanted)), None)
        if match is None:
            return False
        del left[match]
    return True


def same_case(answer: Any, like: Any) -> bool:
    """Whether *answer* is *like* letter for letter, case included: only surrounding spaces are
    form (a key that a database matches byte for byte).

    >>> same_case(" a__B ", "a__B"), same_case("a__b", "a__B"), same_case(3, "3")
    (True, False, False)
    """
    return isinstance(answer, str) and answer.strip() == like


def form_needed(like: Any, *, any_order: bool = False) -> str:
    """What form an answer to a check whose answer is *like* takes, without saying *like*.

    >>> form_needed(False)
    'answer True or False'
    >>> form_needed((2, 3, 4))
    'write a list of numbers in square brackets, one number per item, in order'
    >>> form_needed(["Carlos"])
    'write a list of names or phrases in square brackets, each in quotes'
    """
    if isinstance(like, bool):
        return "answer True or False"
    if is_number(like):
        return "write one number, without quotes, a unit or a list around it"
    if isinstance(like, str):
        return "write your answer as text in quotes, in the words the question uses"
    if is_sequence(like):
        order = "in any order" if any_order else "in order"
        if like and is_number(like[0]):
            return f"write a list of numbers in square brackets, one number per item, {order}"
        if like and isinstance(like[0], str):
            return "write a list of names or phrases in square brackets, each in quotes"
        return "write a list in square brackets"
    return f"write a value of the form the question asks for ({type(like).__name__})"
