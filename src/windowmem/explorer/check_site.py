"""A lesson's self-checks for the course website: the notebook's feedback, exported as data.

On the site a learner types an answer into a box under each check cell. What they type is
read as the notebook would get it (:func:`site_answer`: a Python literal if it is one,
otherwise the text) and ``website/_static/windowmem/explorers.js`` shows the line
:meth:`~.self_check.CheckBook.feedback` gives for it. The script judges nothing itself: for
each check, :func:`check_data` exports the lines the book gives for the expected value and
each foreseen mistake, keyed by :func:`answer_key`, and the lines for an unforeseen answer
and for one in a form the check cannot read. Which forms of an answer the book forgives
(case and spaces, numbers written as text, yes and no, a list written as text) is found by
asking the book itself (:func:`forgiven_forms`), so the script's small normaliser does only
what the notebook does. ``tests/browser/test_site_live_browser.py`` compares the two on the
same inputs.

Keys are hashed (:func:`fnv1a`) so the answers cannot be read off the page's data at a
glance; that is a courtesy, not a secret.

>>> fold("  The Same. "), answer_key(" Window.", "text", {"fold": True})
('same', 'swindow')
>>> answer_key([2, 3.0], "numbers", {}), answer_key(True, "bool", {}), answer_key("3", "number", {})
('l[n2,n3]', 'bTrue', None)
>>> answer_key([3, 2], "numbers", {"any_order": True})
'l[n2,n3]'
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Mapping
from typing import Any

from windowmem.explorer.self_check import CheckBook


def site_answer(text: str) -> Any:
    """What a learner typed on the site, as the notebook would get it: a literal if it is one, else the text.

    >>> site_answer("[2, 3, 4]"), site_answer("2, 3"), site_answer(" scope "), site_answer("")
    ([2, 3, 4], (2, 3), 'scope', None)
    """
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return stripped


def fold(text: str) -> str:
    """*text* with case, repeated spaces, a trailing period and a leading "the" left out."""
    return " ".join(text.split()).casefold().rstrip(".").strip().removeprefix("the ")


def fnv1a(text: str) -> str:
    """The 32-bit FNV-1a hash of *text*'s UTF-16 code units, in hex (what the script computes).

    >>> fnv1a(""), fnv1a("a")
    ('811c9dc5', 'e40c292c')
    """
    value = 0x811C9DC5
    data = text.encode("utf-16-le")
    for unit in (int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)):
        value = ((value ^ unit) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def kind_of(expected: Any) -> str:
    """The kind of answer a check takes: bool, number, text, numbers or texts.

    >>> [kind_of(v) for v in (False, 3, "scope", (2, 3), ["Carlos"], ())]
    ['bool', 'number', 'text', 'numbers', 'texts', 'numbers']
    """
    if isinstance(expected, bool):
        return "bool"
    if _is_number(expected):
        return "number"
    if isinstance(expected, str):
        return "text"
    if isinstance(expected, (list, tuple, range)):
        items = list(expected)
        return "texts" if items and isinstance(items[0], str) else "numbers"
    raise TypeError(
        f"a self-check's answer must be a bool, a number, text or a list, not {expected!r}"
    )


def answer_key(value: Any, kind: str, forms: Mapping[str, bool]) -> str | None:
    """*value*'s key as an answer of *kind* (None: not an answer of that kind), folding text if *forms* say so."""
    if kind == "bool":
        return f"b{value}" if isinstance(value, bool) else None
    if kind == "number":
        return f"n{_number(value)}" if _is_number(value) else None
    if kind == "text":
        if not isinstance(value, str):
            return None
        return "s" + (fold(value) if forms.get("fold") else value)
    if not isinstance(value, (list, tuple, range)):
        return None
    keys = [answer_key(item, kind[:-1], forms) for item in value]
    if None in keys:
        return None
    # A set written as a list (Expectation.any_order): its items in one order, the script's too.
    ordered = sorted(str(k) for k in keys) if forms.get("any_order") else [str(k) for k in keys]
    return "l[" + ",".join(ordered) + "]"


def _number_words() -> dict[str, int]:
    # The words a forgiving book reads as numbers, where it publishes them (issue 34's
    # windowmem.explorer.answer_forms); the book is asked below whether it reads them.
    try:
        module = importlib.import_module("windowmem.explorer.answer_forms")
    except ImportError:
        return {}
    words = getattr(module, "NUMBER_WORDS", {})
    return {str(word): int(value) for word, value in words.items()}


def forgiven_forms(book: CheckBook, check_id: str, words: Mapping[str, int]) -> dict[str, bool]:
    """Which forms of *check_id*'s expected answer *book* takes as that answer, found by asking it."""
    expected = book.expected(check_id)
    right = book.feedback(check_id, expected)

    def takes(answer: Any) -> bool:
        return book.feedback(check_id, answer) == right

    kind = kind_of(expected)
    forms: dict[str, bool] = {}
    if kind == "text":
        forms["fold"] = takes(f"  {expected.upper()}. ")
    elif kind == "texts" and expected:
        forms["fold"] = takes([f" {item.upper()}." for item in expected])
    elif kind == "number":
        forms["text"] = takes(f" {_number(expected)} ")
        # Number words are the book's rule, not one check's: asked where the expected
        # number has a word, assumed with the digits elsewhere.
        named = [word for word, value in words.items() if value == expected]
        forms["words"] = forms["text"] and bool(words) and (not named or takes(named[0].upper()))
    elif kind == "bool":
        forms["yes"] = takes("Yes" if expected else "No")
    if kind == "numbers" and len(expected) > 1:
        forms["text"] = takes(" ".join(_number(item) for item in expected))
    elif kind == "numbers" and expected:
        # One number cannot be written as a list in text; ask whether the book reads a
        # two-number list written as text at all (a wrong answer, not a form it refuses).
        two = " ".join(_number(item) for item in (*expected, *expected))
        forms["text"] = book.feedback(check_id, two) != book.feedback(check_id, _Unreadable())
    if kind in {"numbers", "texts"}:
        # Whether order is substance is the check's own declaration (a one-item answer
        # cannot show it by being reversed).
        forms["any_order"] = book.expectation(check_id).any_order
    return forms


class _Unreadable:
    """An answer no check can read: what the book says to a form it does not take."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


def _unforeseen(kind: str, seen: list[Any]) -> Any:
    # A readable answer that is neither right nor a foreseen mistake: its line is the hint.
    if kind == "number":
        return max([0, *(v for v in seen if _is_number(v))]) + 1001
    if kind == "text":
        return "an answer nobody foresaw"
    if kind in {"numbers", "texts"}:
        return [-1001] if kind == "numbers" else ["an answer nobody foresaw"]
    if kind == "bool":  # the other truth value, unless it is a foreseen mistake
        left = [v for v in (True, False) if not any(s is v for s in seen)]
        return left[0] if left else None
    return None


def check_data(book: CheckBook, check_id: str, words: Mapping[str, int]) -> dict[str, Any]:
    """What the site needs to give *check_id*'s feedback: lines keyed by hashed answer keys."""
    expected = book.expected(check_id)
    kind = kind_of(expected)
    forms = forgiven_forms(book, check_id, words)
    foreseen = [expected, *book.mistakes(check_id)]
    answers: dict[str, str] = {}
    for value in foreseen:
        key = answer_key(value, kind, forms)
        if key is not None:
            answers.setdefault(fnv1a(key), book.feedback(check_id, value))
    unforeseen = _unforeseen(kind, foreseen)
    form_line = book.feedback(check_id, _Unreadable())
    return {
        "kind": kind,
        "forms": forms,
        "answers": answers,
        "unanswered": book.feedback(check_id, None),
        "hint": form_line if unforeseen is None else book.feedback(check_id, unforeseen),
        "form": form_line,
    }


def book_data(book: CheckBook) -> dict[str, Any]:
    """Every self-check of *book*, with the number words a forgiving book reads."""
    words = _number_words()
    return {
        "words": words,
        "checks": {check_id: check_data(book, check_id, words) for check_id in book.ids},
    }
