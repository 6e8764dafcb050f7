"""The input bill: C_in = Σ_t |W_t|, checked against the seed's table, a closed form and the unbounded chat."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, conversations, turns
from windowmem.conversation import Conversation
from windowmem.cost import input_bill, tokens_per_call, unbounded_tokens_per_call
from windowmem.errors import PolicyError, WindowMemError
from windowmem.examples import load_example
from windowmem.frames import (
    COST_BY_LENGTH_COLUMNS,
    COST_BY_WINDOW_COLUMNS,
    cost_by_conversation_length,
    cost_by_window,
)
from windowmem.messages import assistant, interactions, system, user
from windowmem.policies.n8n import N8nSimpleMemory, n8n_uniform_bill
from windowmem.tokens import count_words, qwen_counter


def test_marta_bill_in_messages_follows_the_seed_table():
    # Seed table at window 5: turn t sees min(t-1, 5) interactions; each call also carries
    # the system message and the new user message.
    expected = [1 + 2 * min(t - 1, 5) + 1 for t in range(1, 8)]
    assert (
        tokens_per_call(load_example("marta"), N8nSimpleMemory(5))
        == expected
        == [2, 4, 6, 8, 10, 12, 12]
    )
    assert input_bill(load_example("marta"), N8nSimpleMemory(5)) == 54


def uniform_chat(turn_count: int, s: int, u: int, r: int) -> Conversation:
    head = [system(" ".join(["s"] * s))] if s else []
    body = [
        m
        for _ in range(turn_count)
        for m in (user(" ".join(["u"] * u)), assistant(" ".join(["r"] * r)))
    ]
    return Conversation.of(head + body)


@PROPERTY_SETTINGS
@given(
    st.integers(1, 30), st.integers(0, 12), st.integers(0, 5), st.integers(1, 5), st.integers(0, 5)
)
def test_n8n_bill_equals_the_closed_form(turn_count, window, s, u, r):
    bill = input_bill(uniform_chat(turn_count, s, u, r), N8nSimpleMemory(window), count_words)
    assert bill == n8n_uniform_bill(turn_count, window, s, u, r)


def test_closed_form_past_the_window_grows_linearly():
    # Past turn k+1 every call costs s + u + k(u + r): the bill's increments are constant.
    bills = [n8n_uniform_bill(t, 5, 20, 10, 30) for t in range(7, 12)]
    steps = {b - a for a, b in zip(bills, bills[1:])}
    assert steps == {20 + 10 + 5 * (10 + 30)}


@PROPERTY_SETTINGS
@given(conversations(max_turns=8, mid_chat_system=False))
def test_unbounded_equals_n8n_window_0(messages):
    assert unbounded_tokens_per_call(messages, count_words) == tokens_per_call(
        messages, N8nSimpleMemory(0), count_words
    )


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
    assert by_name["input bill"].tolist()[1] == 54


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
