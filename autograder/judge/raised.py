"""What the judge raises into a hidden test when a call into the student's kernel goes wrong.

A student's exception never crosses with its text: :func:`exception_for` turns the names
of its classes into the built-in exception a test can catch, or :class:`StudentRaised`.
"""

from __future__ import annotations

import builtins
from typing import Any


class JudgeError(Exception):
    """Base of what the channel raises into a hidden test."""


class KernelGone(JudgeError):
    """The student's kernel was killed or died: no call can be answered."""


class CallTimedOut(JudgeError):
    """A call used up its CPU time (or its wall-clock ceiling) and was interrupted."""


class StudentRaised(JudgeError):
    """The student's function raised something that is not a built-in exception."""


class LibraryUsed(JudgeError):
    """The student's function reached a windowmem helper the question does not allow.

    Its text (which helper) is for the instructor's log; the feedback says only that a
    helper was used.
    """


class Unreadable(JudgeError):
    """The kernel's answer was not plain data the judge could read."""


def exception_for(classes: list[Any]) -> BaseException:
    """The exception the judge raises for a student's exception, from its classes' names.

    The first built-in ``Exception`` class in the student's exception's order stands for it,
    without a message; a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``, a class of the student's) becomes :class:`StudentRaised`.

    >>> type(exception_for(["NotMine", "ValueError", "Exception", "BaseException", "object"]))
    <class 'ValueError'>
    >>> type(exception_for(["SystemExit", "BaseException", "object"])).__name__
    'StudentRaised'
    """
    for name in classes:
        if type(name) is not str or name in ("Exception", "BaseException", "object"):
            continue
        known = getattr(builtins, name, None)
        if isinstance(known, type) and issubclass(known, Exception):
            return known()
    return StudentRaised()
