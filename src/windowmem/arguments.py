"""argparse types shared by every ``windowmem`` subcommand: whole numbers, with a floor or not.

Each raises :class:`argparse.ArgumentTypeError`, so a bad value reaches the user as
one line naming the option (``argument --size: must be a whole number, got '2.5'``).

>>> whole_number("5"), whole_number("-1"), at_least(1)("3")
(5, -1, 3)
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable


def whole_number(text: str) -> int:
    """``"5"`` -> 5, ``"-1"`` -> -1; ``"2.5"`` or ``"abc"`` are refused.

    Whether a negative window size is allowed is the policy's decision, not the parser's.
    Only ASCII digits count: ``int()`` would also take ``"٥"`` (Arabic-Indic five), which
    nobody types on purpose as a window size.

    >>> whole_number("٥")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a whole number, got '٥'
    """
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text, flags=re.ASCII):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(text)


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type for whole numbers of at least *minimum*.

    >>> at_least(1)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be at least 1, got 0
    """

    def parse(text: str) -> int:
        value = whole_number(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse
