"""The pandas tables: a replay's rows agree with its views; cost tables agree with the bills they summarise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, conversations, turns
from windowmem.cost import input_bill, unbounded_tokens_per_call
from windowmem.errors import PolicyError, WindowMemError
from windowmem.examples import load_example
from windowmem.frames import (
    COST_BY_LENGTH_COLUMNS,
    COST_BY_WINDOW_COLUMNS,
    cost_by_conversation_length,
    cost_by_window,
    price_table,
    replay_frame,
)
from windowmem.messages import assistant, interactions, system, user
from windowmem.policies.n8n import N8nSimpleMemory, n8n_uniform_bill
from windowmem.replay import replay
from windowmem.tokens import count_words, qwen_counter
from windowmem.turn_ranges import turn_runs


@settings(PROPERTY_SETTINGS, max_examples=60)  # a DataFrame per example: fewer suffice
@given(conversations(max_turns=10, tools=True), st.integers(1, 4))
def test_frame_ranges_agree_with_the_views(messages, window):
    frame = replay_frame(messages, N8nSimpleMemory(window), count_words)
    views = replay(messages, N8nSimpleMemory(window), count_words)
    assert frame["visible"].tolist() == [turn_runs(v.visible_turns) for v in views]
    assert frame["evicted"].tolist() == [turn_runs(v.evicted_turns) for v in views]
    assert frame["input tokens"].tolist() == [v.input_tokens for v in views]


def test_cost_by_window_grows_with_the_window_and_tops_out_at_unbounded():
    chat = load_example("support_60")
    frame = cost_by_window(chat, N8nSimpleMemory, [1, 3, 5, 10, 30, 59, 60], qwen_counter())
    assert tuple(frame.columns) == COST_BY_WINDOW_COLUMNS
    bills = frame["input bill"].tolist()
    assert bills == sorted(bills) and bills[0] < bills[-1]
    unbounded = unbounded_tokens_per_call(chat, qwen_counter())
    assert bills[-2] == bills[-1] == sum(unbounded)
    assert frame["last-turn tokens"].iloc[-1] == unbounded[-1]
    assert frame["max tokens per call"].iloc[-1] == max(unbounded)
    assert frame["mean tokens per call"].iloc[0] == pytest.approx(bills[0] / 60)


def test_cost_by_window_takes_a_policy_name():
    marta = load_example("marta")
    by_name = cost_by_window(marta, "n8n", [2, 5])
    by_class = cost_by_window(marta, N8nSimpleMemory, [2, 5])
    assert by_name.equals(by_class)
    assert by_name["input bill"].tolist() == [
        input_bill(marta, N8nSimpleMemory(size)) for size in (2, 5)
    ]


def test_cost_by_conversation_length_equals_the_bill_of_each_prefix():
    chat = load_example("support_60")
    frame = cost_by_conversation_length(
        chat, N8nSimpleMemory(5), count_words, lengths=[1, 6, 7, 30, 60]
    )
    assert tuple(frame.columns) == COST_BY_LENGTH_COLUMNS
    for row in frame.itertuples(index=False):
        turns_kept = interactions(chat.messages)[: row[0]]
        prefix = [chat.messages[0]] + [m for t in turns_kept for m in t.messages]
        assert row[2] == input_bill(prefix, N8nSimpleMemory(5), count_words)
        assert row[4] == input_bill(prefix, N8nSimpleMemory(0), count_words)
    assert (frame["input bill"] <= frame["unbounded input bill"]).all()


def test_cost_by_conversation_length_defaults_to_every_length():
    frame = cost_by_conversation_length(turns(9), N8nSimpleMemory(2))
    assert frame["turns"].tolist() == list(range(1, 10))


@pytest.mark.parametrize("length", [0, 10, 2.5])
def test_cost_by_conversation_length_refuses_lengths_out_of_range(length):
    with pytest.raises(WindowMemError, match="out of range"):
        cost_by_conversation_length(turns(9), N8nSimpleMemory(2), lengths=[length])


def test_bad_factories_and_empty_conversations_are_named():
    with pytest.raises(PolicyError, match="make_policy must build a policy"):
        cost_by_window(turns(3), 5, [1])  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="unknown window policy"):
        cost_by_window(turns(3), "mem0", [1])
    with pytest.raises(WindowMemError, match="no turns"):
        cost_by_window([system("S")], N8nSimpleMemory, [1])
    with pytest.raises(WindowMemError, match="window must be a whole number"):
        n8n_uniform_bill(3, -1, 0, 1, 1)


def test_price_table_prices_each_window_on_each_model_by_hand():
    chat = [system("rule " * 1100)]
    chat += [m for t in range(8) for m in (user(f"u{t} " * 100), assistant(f"a{t} " * 100))]
    table = price_table(
        chat, N8nSimpleMemory, [2, 0], ["gpt-5.4-mini", "gemini-2.5-flash"], count_words
    )
    assert table.index.tolist() == [2, 0] and table.index.name == "window"
    # No limit: call t is 1,100 + 200 (t - 1) + 100 words; each starts with the whole call
    # before it, which OpenAI serves from 1,024 tokens on in steps of 128.
    sizes = [1200 + 200 * t for t in range(8)]
    cached = [0] + [1024 + (s - 1024) // 128 * 128 for s in sizes[:-1]]
    assert table.loc[0, "input tokens"] == sum(sizes) == 15200
    dollars = ((sum(sizes) - sum(cached)) * 0.75 + sum(cached) * 0.075 + 800 * 4.5) / 1e6
    assert table.loc[0, "GPT-5.4 mini, US$ per 1,000 chats"] == round(dollars * 1000, 2)
    # Window 2 slides from turn 4 on: after that only the system message is served from the cache.
    assert table.loc[2, "input tokens"] == 1200 + 1400 + 6 * 1600
    assert list(table.columns)[2] == "Gemini 2.5 Flash, US$ per 1,000 chats"


def test_price_table_needs_a_size_and_a_model():
    with pytest.raises(WindowMemError, match="one window size and one model"):
        price_table([user("u"), assistant("a")], N8nSimpleMemory, [], ["gpt-5.4-mini"])
