"""The seed lesson's worked example and exercises, and peers.md's n8n run, come out exactly."""

from __future__ import annotations

import pytest

from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.messages import Role, assistant, user
from windowmem.policies.base import Memory
from windowmem.policies.n8n import N8nSimpleMemory, visible_turns
from windowmem.recall import fact_visible, smallest_window_recalling
from windowmem.replay import replay, turn_view

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


@pytest.mark.parametrize("turn, expected", sorted(MARTA_TABLE.items()))
def test_marta_table_row_by_replay_and_by_arithmetic(marta, turn, expected):
    assert turn_view(marta, N8nSimpleMemory(5), turn).visible_turns == expected
    assert visible_turns(5, turn) == expected


def test_marta_turn_7_sends_system_turns_2_to_6_and_the_new_question(marta):
    view = turn_view(marta, N8nSimpleMemory(5), 7)
    assert [(m.role.value, m.content) for m in view.sent] == MARTA_TURN_7_SENT
    assert view.evicted_turns == (1,)
    assert len(view.window) == 10  # five interactions are ten messages
    assert not fact_visible(view, "#6023")


def test_marta_turn_6_still_has_turn_1(marta):
    assert fact_visible(turn_view(marta, N8nSimpleMemory(5), 6), "#6023")


def test_marta_at_window_10_turn_7_still_has_the_order_number(marta):
    view = turn_view(marta, N8nSimpleMemory(10), 7)
    assert view.visible_turns == (1, 2, 3, 4, 5, 6)
    assert view.evicted_turns == ()
    assert fact_visible(view, "#6023")


def test_the_system_message_is_sent_every_turn_and_never_stored(marta):
    for view in replay(marta, N8nSimpleMemory(5)):
        assert view.sent[0].role is Role.SYSTEM
        assert all(m.role is not Role.SYSTEM for m in view.window)


def test_exercise_1_empanadas_turn_5_sees_2_3_4_without_carlos_ruiz():
    chat = load_example("empanadas")
    assert chat.turn_count == 5
    assert ANCHOR_FACTS["empanadas"] == "Carlos Ruiz" and "Carlos Ruiz" in chat.messages[1].content
    view = turn_view(chat, N8nSimpleMemory(3), 5)
    assert list(view.visible_turns) == [2, 3, 4]
    assert visible_turns(3, 5) == (2, 3, 4)
    assert not fact_visible(view, "Carlos Ruiz")
    # The solution's turn-by-turn reconstruction.
    assert [v.visible_turns for v in replay(chat, N8nSimpleMemory(3))] == [
        (),
        (1,),
        (1, 2),
        (1, 2, 3),
        (2, 3, 4),
    ]


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


def test_peers_n8n_run_k5_after_turn_7_saved_loads_u3_to_a7_and_stores_all_14():
    memory = Memory(N8nSimpleMemory(5))
    for t in range(1, 8):
        memory.add(user(f"u{t}"))
        memory.add(assistant(f"a{t}"))
    expected = [f"{r}{t}" for t in range(3, 8) for r in ("u", "a")]
    assert [m.content for m in memory.load()] == expected
    assert len(memory.stored) == 14


def test_peers_n8n_run_k5_start_of_turn_7_loads_u2_to_a6():
    chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    view = turn_view(chat, N8nSimpleMemory(5), 7)
    assert [m.content for m in view.window] == [f"{r}{t}" for t in range(2, 7) for r in ("u", "a")]


def test_sample_conversations_load_and_their_anchor_facts_live_in_turn_1_only():
    from windowmem.examples import example_names

    assert set(example_names()) == {
        "marta",
        "empanadas",
        "mentioned_at_start",
        "tool_use",
        "support_60",
    }
    for name in example_names():
        chat = load_example(name)
        fact = ANCHOR_FACTS[name]
        holders = [
            t.number for t in chat.interactions if any(fact in m.content for m in t.messages)
        ]
        assert holders == [1], (name, holders)


def test_the_shipped_long_chat_is_the_seeded_generator_output():
    from windowmem.examples import EXAMPLE_SEED, generated_support

    shipped = load_example("support_60")
    generated = generated_support(60, EXAMPLE_SEED)
    assert shipped.messages == generated.messages and shipped.turn_count == 60
    assert generated_support(60, EXAMPLE_SEED + 1).messages != shipped.messages


def test_the_tool_chat_links_every_result_to_a_call():
    chat = load_example("tool_use")
    calls = [c for m in chat.messages for c in m.tool_calls]
    answered = [m.tool_call_id for m in chat.messages if m.role is Role.TOOL]
    assert calls == answered and len(set(calls)) == len(calls) >= 3


def test_unknown_example_names_the_choices():
    from windowmem.errors import WindowMemError

    with pytest.raises(WindowMemError, match="no sample conversation called 'maria'.*marta"):
        load_example("maria")
