"""mulberry32: the small 32-bit generator the reference engine draws its lossy summaries from.

It is re-implemented here, on explicit 32-bit unsigned arithmetic, so that a Python run
draws exactly the numbers the JavaScript original draws for the same seed.

>>> draws = mulberry32(23)
>>> round(next(draws), 6), round(next(draws), 6)
(0.092723, 0.068312)
"""

from __future__ import annotations

from collections.abc import Iterator

_MASK = 0xFFFFFFFF
_INCREMENT = 0x6D2B79F5


def mulberry32_step(state: int) -> tuple[int, float]:
    """The generator's next state after *state*, and the draw in [0, 1) it yields."""
    state = (state + _INCREMENT) & _MASK
    t = state
    t = ((t ^ (t >> 15)) * (t | 1)) & _MASK
    t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & _MASK)) & _MASK
    return state, ((t ^ (t >> 14)) & _MASK) / 2**32


def mulberry32(seed: int) -> Iterator[float]:
    """An endless stream of draws in [0, 1) from a generator seeded with *seed*."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"mulberry32 needs an integer seed, got {seed!r}")
    state = seed & _MASK
    while True:
        state, draw = mulberry32_step(state)
        yield draw
