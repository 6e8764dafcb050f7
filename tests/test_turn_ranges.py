"""Turn numbers written as runs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from windowmem.turn_ranges import gap_spans, turn_runs, turn_spans, write_spans


def test_turn_runs_of_scattered_turns():
    assert turn_runs([9, 1, 2, 3, 7, 8, 5]) == "1–3, 5, 7–9"
    assert turn_runs(()) == "none"


def read_runs(text: str) -> set[int]:
    """The turns a run text names, read back independently of the writer."""
    if text == "none":
        return set()
    turns: set[int] = set()
    for part in text.split(", "):
        first, _, last = part.partition("–")
        turns.update(range(int(first), int(last or first) + 1))
    return turns


@given(st.sets(st.integers(1, 80)))
def test_runs_name_exactly_the_turns_given(turns):
    assert read_runs(turn_runs(turns)) == turns


@given(st.sets(st.integers(1, 40)), st.integers(1, 41))
def test_gaps_are_the_earlier_turns_the_spans_leave_out(turns, turn):
    earlier = {t for t in turns if t < turn}
    gaps = gap_spans(turn_spans(sorted(earlier)), turn)
    assert read_runs(write_spans(gaps)) == set(range(1, turn)) - earlier
