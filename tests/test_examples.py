"""The sample conversations: they load, their anchor facts live in turn 1, the long chat is the seeded generator's."""

from __future__ import annotations

import pytest

from windowmem.errors import WindowMemError
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.messages import Role


def test_sample_conversations_load_and_their_anchor_facts_live_in_turn_1_only():
    from windowmem.examples import example_names

    assert set(example_names()) == {
        "marta",
        "empanadas",
        "mentioned_at_start",
        "tool_use",
        "support_60",
        "two_orders",
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

    with pytest.raises(WindowMemError, match="no sample conversation called 'maria'.*marta"):
        load_example("maria")
