"""Fact queries: a fact must be named to be looked for."""

from __future__ import annotations

import pytest

from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.registry import make_policy
from windowmem.recall import fact_visible, smallest_window_recalling
from windowmem.replay import turn_view


def test_fact_visible_needs_a_needle():
    view = turn_view(load_example("marta"), N8nSimpleMemory(5), 2)
    with pytest.raises(WindowMemError, match="non-empty string"):
        fact_visible(view, "")


def test_smallest_window_recalling_takes_any_policy_and_says_none_when_no_size_recalls():
    marta = load_example("marta")
    # n8n counts interactions: turn 1 is out of reach at turn 7 until the window is 6.
    assert smallest_window_recalling(marta, "#6023", 7) == 6
    # Tensorify counts messages: turn 1's two messages are 11 and 12 back from turn 7.
    by_messages = smallest_window_recalling(
        marta, "#6023", 7, policy_for_size=lambda size: make_policy("tensorify", size)
    )
    assert by_messages == 11
    assert smallest_window_recalling(marta, "#6023", 7, sizes=[1, 2, 3]) is None
    assert smallest_window_recalling(marta, "never said", 7) is None
