"""The hidden tests' one random source: a small seeded linear congruential generator.

Every hidden test that draws its cases at random draws them from here, seeded by the cell
(``_SEED = 4111``), so a cell's cases are the same on every run and on every machine, and
no ``random`` module a notebook could reseed is involved. The generator is the classic
one of C's ``rand`` example: the state steps as ``(s * 1103515245 + 12345) % 2**31`` and
a draw below *n* is ``(s >> 8) % n`` (the low bits of such a generator cycle quickly, so
they are dropped). Changing any constant here changes every assignment's graded cases;
``tests/autograder/judge/test_seeded_cases.py`` holds a digest of each hidden test's cases.

A test finds :func:`drawer` and :func:`chooser` ready as ``_drawer`` and ``_chooser``
(:data:`autograder.judge.support.COMMON_NAMES`); a ``hidden_support.py`` imports them.

>>> draw = drawer(4111)
>>> [draw(10) for _ in range(5)]
[8, 8, 4, 4, 0]
>>> pick = chooser(4111)
>>> [pick("abcdefghij") for _ in range(5)]
['i', 'i', 'e', 'e', 'a']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

MULTIPLIER = 1103515245
INCREMENT = 12345
MODULUS = 2**31
#: The low bits a draw drops (they repeat with short periods).
SHIFT = 8

T = TypeVar("T")


def step(state: int) -> int:
    """The generator's next state after *state*.

    >>> step(0)
    12345
    """
    return (state * MULTIPLIER + INCREMENT) % MODULUS


def drawer(seed: int) -> Callable[[int], int]:
    """A draw function seeded with *seed*: each ``draw(n)`` steps the state, then gives a
    number in ``range(n)``.

    >>> draw = drawer(0)
    >>> draw(100), draw(100)
    (48, 30)
    >>> drawer(0)(0)
    Traceback (most recent call last):
    ...
    ValueError: draw(n) needs n of at least 1, not 0
    """
    if type(seed) is not int:
        raise TypeError(f"a drawer's seed is an int (the cell's _SEED), not {type(seed).__name__}")
    state = seed

    def draw(n: int) -> int:
        nonlocal state
        if n < 1:
            raise ValueError(f"draw(n) needs n of at least 1, not {n}")
        # step(state) written out: a cell draws tens of thousands of times
        state = (state * MULTIPLIER + INCREMENT) % MODULUS
        return (state >> SHIFT) % n

    return draw


def chooser(seed: int) -> Callable[[Sequence[T]], T]:
    """A choose function seeded with *seed*: each ``choose(options)`` picks one of *options*,
    the one at ``draw(len(options))`` of a :func:`drawer` of the same seed.

    >>> choose = chooser(0)
    >>> choose(("a", "b", "c")), choose(range(100))
    ('a', 30)
    """
    draw = drawer(seed)

    def choose(options: Sequence[T]) -> T:
        return options[draw(len(options))]

    return choose
