"""The seed lesson's worked example and exercises, each asserted once, through every path that shows it.

Marta's table, the turn-7 array, the per-call formula and the Empanadas exercise are
facts of the seed. Each test below checks one of them against the replay engine, n8n's
arithmetic, the pandas frame and the explorer's view at once, so a fact lives in one
place and every way the course shows it must agree with it.
"""

from __future__ import annotations

import pytest

from windowmem.cost import input_bill, tokens_per_call
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_view import window_view
from windowmem.frames import REPLAY_COLUMNS, replay_frame
from windowmem.messages import Role
from windowmem.policies.n8n import N8nSimpleMemory, visible_turns
from windowmem.recall import fact_visible, smallest_window_recalling
from windowmem.replay import replay, turn_view
from windowmem.tokens import count_messages
from windowmem.turn_ranges import turn_runs

# The seed's table: the turns in the buffer when each of Marta's turns is processed,
# at the default Context Window Length 5.
MARTA_TABLE = {
    1: (),
    2: (1,),
    3: (1, 2),
    4: (1, 2, 3),
    5: (1, 2, 3, 4),
    6: (1, 2, 3, 4, 5),
    7: (2, 3, 4, 5, 6),
}

# The seed's turn-7 message array, written out from the lesson text.
MARTA_TURN_7_SENT = [
    (
        "system",
        "You are the support assistant for TuTienda. Respond in English, in a warm, direct tone.",
    ),
    ("user", "Do you ship to Medellín?"),
    ("assistant", "Yes, we cover the whole country, including Medellín."),
    ("user", "Can I pay by bank transfer?"),
    ("assistant", "Yes, we accept bank transfer in addition to card."),
    ("user", "Do you have a physical store in Bogotá?"),
    ("assistant", "Yes, in Zona T."),
    ("user", "How long does a size exchange take?"),
    ("assistant", "Between 3 and 5 business days from when we receive the item."),
    ("user", "And the warranty, how long does it last?"),
    ("assistant", "6 months for manufacturing defects."),
    ("user", "To recap: what was the order number I gave you at the start?"),
]


@pytest.fixture(scope="module")
def marta():
    return load_example("marta")


@pytest.fixture(scope="module")
def marta_frame(marta):
    return replay_frame(marta, N8nSimpleMemory(5))


@pytest.fixture(scope="module")
def marta_explorer(marta):
    return ReplayCache(marta, count_messages)


@pytest.mark.parametrize("turn, expected", sorted(MARTA_TABLE.items()))
def test_marta_table(marta, marta_frame, marta_explorer, turn, expected):
    evicted = tuple(t for t in range(1, turn) if t not in expected)
    view = turn_view(marta, N8nSimpleMemory(5), turn)
    assert (view.visible_turns, view.evicted_turns) == (expected, evicted)
    assert visible_turns(5, turn) == expected
    row = marta_frame.iloc[turn - 1]
    assert (row["visible"], row["evicted"]) == (turn_runs(expected), turn_runs(evicted))
    assert row["interactions in window"] == len(expected)
    assert row["messages in window"] == 2 * len(expected)
    shown = window_view(marta_explorer, 5, turn)
    assert (shown.visible_turns, shown.evicted_turns) == (expected, evicted)


def test_marta_frame_has_the_documented_columns_and_a_running_total(marta_frame):
    assert tuple(marta_frame.columns) == REPLAY_COLUMNS
    assert marta_frame["user message"].iloc[0] == "Hi, I'm Marta, my order is #6023."
    assert marta_frame["cumulative input tokens"].iloc[-1] == marta_frame["input tokens"].sum()


def test_marta_turn_7_sends_system_turns_2_to_6_and_the_new_question(marta, marta_explorer):
    view = turn_view(marta, N8nSimpleMemory(5), 7)
    assert [(m.role.value, m.content) for m in view.sent] == MARTA_TURN_7_SENT
    assert view.sent_turns == (None, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7)
    assert view.evicted_turns == (1,)
    assert len(view.window) == 10  # five interactions are ten messages
    assert not fact_visible(view, "#6023")
    shown = window_view(marta_explorer, 5, 7, fact="#6023")
    assert shown.sent == view.sent and shown.sent_turns == view.sent_turns
    assert shown.messages_in_window == 10 and shown.interactions_in_window == 5
    assert shown.fact_visible is False and shown.fact_turns == (1,)


def test_marta_turn_6_still_has_turn_1_and_window_10_keeps_it_at_turn_7(marta, marta_explorer):
    assert fact_visible(turn_view(marta, N8nSimpleMemory(5), 6), "#6023")
    assert window_view(marta_explorer, 5, 6, fact="#6023").fact_visible is True
    view = turn_view(marta, N8nSimpleMemory(10), 7)
    assert view.visible_turns == (1, 2, 3, 4, 5, 6)
    assert view.evicted_turns == ()
    assert fact_visible(view, "#6023")
    shown = window_view(marta_explorer, 10, 7, fact="#6023")
    assert shown.fact_visible is True and shown.evicted_turns == ()


def test_marta_per_call_formula(marta, marta_explorer):
    # Seed table at window 5: turn t sees min(t-1, 5) interactions; each call also carries
    # the system message and the new user message.
    per_call = [1 + 2 * min(t - 1, 5) + 1 for t in range(1, 8)]
    assert per_call == [2, 4, 6, 8, 10, 12, 12]
    assert tokens_per_call(marta, N8nSimpleMemory(5)) == per_call
    assert input_bill(marta, N8nSimpleMemory(5)) == sum(per_call) == 54
    for turn in range(1, 8):
        shown = window_view(marta_explorer, 5, turn)
        assert shown.tokens_this_call == per_call[turn - 1] == len(shown.sent)
        assert shown.running_bill == sum(per_call[:turn])


def test_exercise_1_empanadas_turn_5_sees_2_3_4_without_carlos_ruiz():
    chat = load_example("empanadas")
    assert chat.turn_count == 5
    assert ANCHOR_FACTS["empanadas"] == "Carlos Ruiz" and "Carlos Ruiz" in chat.messages[1].content
    view = turn_view(chat, N8nSimpleMemory(3), 5)
    assert list(view.visible_turns) == [2, 3, 4]
    assert visible_turns(3, 5) == (2, 3, 4)
    assert not fact_visible(view, "Carlos Ruiz")
    shown = window_view(ReplayCache(chat), 3, 5, fact="Carlos Ruiz")
    assert shown.visible_turns == (2, 3, 4) and shown.fact_visible is False
    # The solution's turn-by-turn reconstruction.
    assert [v.visible_turns for v in replay(chat, N8nSimpleMemory(3))] == [
        (),
        (1,),
        (1, 2),
        (1, 2, 3),
        (2, 3, 4),
    ]


def test_the_system_message_is_sent_every_turn_and_never_stored(marta):
    for view in replay(marta, N8nSimpleMemory(5)):
        assert view.sent[0].role is Role.SYSTEM
        assert all(m.role is not Role.SYSTEM for m in view.window)


def test_exercise_3_smallest_window_recalling_the_start_at_turn_12_is_11():
    chat = load_example("mentioned_at_start")
    fact = ANCHOR_FACTS["mentioned_at_start"]
    assert chat.turn_count == 12
    assert chat.interactions[11].messages[0].content.startswith("Like I mentioned at the start")
    assert smallest_window_recalling(chat, fact, 12) == 11
    for window in range(1, 11):
        assert not fact_visible(turn_view(chat, N8nSimpleMemory(window), 12), fact), window
    for window in (11, 12, 50, 0):  # 0 loads everything in n8n
        assert fact_visible(turn_view(chat, N8nSimpleMemory(window), 12), fact), window


def test_default_window_5_forgets_the_start_by_turn_12():
    chat = load_example("mentioned_at_start")
    assert 1 not in turn_view(chat, N8nSimpleMemory(), 12).visible_turns
