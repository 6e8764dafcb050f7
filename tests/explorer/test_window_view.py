"""The window explorer's pure view: the timeline, the n8n arithmetic, partial turns, turn ranges.

Expectations come from outside the code under test: the plain arithmetic of n8n's rule
(turn t sees turns max(1, t-k) .. t-1; k = 0 sees everything) and hand-made chats. The
seed's worked example (Marta, Empanadas) is checked through the view in
``tests/test_seed_examples.py``, with every other path that shows it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.explorer.conftest import view_of
from windowmem.errors import WindowMemError
from windowmem.explorer.window_view import CURRENT, EVICTED, LATER, PARTIAL, VISIBLE
from windowmem.messages import assistant, system, tool, user
from windowmem.tokens import count_messages


def test_timeline_marks_each_turn_from_the_answered_turns_point_of_view(marta):
    assert [m.status for m in view_of(marta, 5, 7).timeline] == [EVICTED] + [VISIBLE] * 5 + [
        CURRENT
    ]
    assert [m.status for m in view_of(marta, 5, 3).timeline] == [VISIBLE, VISIBLE, CURRENT] + [
        LATER
    ] * 4
    assert view_of(marta, 5, 1).timeline[0].preview == "user: Hi, I'm Marta, my order is #6023."


def plain_chat(turns: int):
    return [system("S")] + [
        m for t in range(1, turns + 1) for m in (user(f"u{t}"), assistant(f"a{t}"))
    ]


@settings(max_examples=200, deadline=None)
@given(turns=st.integers(1, 25), window=st.integers(0, 12), data=st.data())
def test_view_follows_n8n_arithmetic(turns, window, data):
    """On plain question/reply turns, the view shows turns max(1, t-k)..t-1 (k = 0: all)."""
    turn = data.draw(st.integers(1, turns))
    view = view_of(plain_chat(turns), window, turn, counter=count_messages)
    first = 1 if window == 0 else max(1, turn - window)
    assert view.visible_turns == tuple(range(first, turn))
    assert set(view.visible_turns) | set(view.evicted_turns) == set(range(1, turn))
    assert view.messages_in_window == 2 * len(view.visible_turns)
    statuses = [m.status for m in view.timeline]
    assert statuses.count(CURRENT) == 1 and statuses.count(LATER) == turns - turn
    assert statuses.count(VISIBLE) == len(view.visible_turns)


def test_a_turn_cut_by_a_tool_exchange_is_marked_partial():
    # n8n counts messages: window 1 loads the last 2, which cuts turn 1's four messages.
    chat = [user("q1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1"), user("q2")]
    view = view_of(chat, 1, 2)
    assert [m.content for m in view.sent] == ["r1", "a1", "q2"]
    assert [m.status for m in view.timeline] == [PARTIAL, CURRENT]


class TestTurnRange:
    def test_out_of_range_turn_says_which_turns_exist(self, marta):
        with pytest.raises(WindowMemError, match="pick a turn from 1 to 7"):
            view_of(marta, 5, 8)

    def test_conversation_without_turns_is_refused(self):
        with pytest.raises(WindowMemError, match="no turns"):
            view_of([system("only a system message")], 5, 1)
