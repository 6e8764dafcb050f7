"""Turn numbers written for people: ``"2–6"``, ``"1–3, 5"``, or ``"none"``.

A replay reports which earlier turns a call reaches as tuples of numbers; tables and
explorers show them as runs. Runs are built from spans, so a long conversation's
evicted turns are written from the gaps between visible spans, never one by one.

>>> turn_runs([2, 3, 4, 5, 6]), turn_runs([5, 1, 2, 3]), turn_runs([4]), turn_runs([])
('2–6', '1–3, 5', '4', 'none')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: What a turn range shows when it holds no turns at all.
NO_TURNS = "none"

#: A run of consecutive turns, as (first, last).
Span = tuple[int, int]


def turn_runs(turns: Iterable[int]) -> str:
    """Turn numbers written as runs: ``"2–6"``, ``"1–3, 5"``, or ``"none"``."""
    return write_spans(turn_spans(sorted(set(turns))))


def turn_spans(ordered: Sequence[int]) -> list[Span]:
    """The maximal runs of consecutive numbers in sorted *ordered*, as (first, last).

    >>> turn_spans([1, 2, 3, 5])
    [(1, 3), (5, 5)]
    """
    spans: list[Span] = []
    for t in ordered:
        if spans and t == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], t)
        else:
            spans.append((t, t))
    return spans


def gap_spans(spans: Sequence[Span], turn: int) -> list[Span]:
    """The runs of turns 1..turn-1 that *spans* leave out: the evicted turns, run by run.

    >>> gap_spans([(3, 4)], 7)
    [(1, 2), (5, 6)]
    """
    gaps: list[Span] = []
    expected = 1
    for first, last in [*spans, (turn, turn)]:
        if first > expected:
            gaps.append((expected, first - 1))
        expected = last + 1
    return gaps


def write_spans(spans: Sequence[Span]) -> str:
    """*spans* written as runs, ``"none"`` when there are none.

    >>> write_spans([(1, 3), (5, 5)]), write_spans([])
    ('1–3, 5', 'none')
    """
    if not spans:
        return NO_TURNS
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in spans)
