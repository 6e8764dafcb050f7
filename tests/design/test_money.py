"""Lesson 5's designs in dollars (windowmem.design.money) against windowmem.prices, worked by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from windowmem.design.money import (
    CHATS,
    FILLER,
    SYSTEM_PROMPT_TOKENS,
    WINDOW_MESSAGES,
    design_costs,
    support_designs,
    with_system_prompt_of,
)
from windowmem.errors import WindowMemError
from windowmem.messages import assistant, system, user
from windowmem.policies.langgraph import LangGraphThread
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.prices import MODEL_PRICES, conversation_bill, price_of
from windowmem.tokens import count_words

CHAT = [system("Be brief.")] + [
    m for t in range(1, 9) for m in (user(f"question {t}"), assistant(f"answer {t}"))
]


def test_the_system_prompt_grows_by_whole_filler_lines_to_the_size_asked():
    longer = with_system_prompt_of(CHAT, 40)
    prompt = longer.messages[0].content
    assert prompt.startswith("Be brief.\n") and count_words(longer.messages[0]) >= 40
    lines = prompt.split("\n")[1:]
    assert set(lines) == {FILLER}
    # One line fewer would be under the size: the prompt is the shortest that reaches it.
    assert len(("\n".join(["Be brief.", *lines[:-1]])).split()) < 40
    assert longer.messages[1:] == tuple(CHAT[1:])
    assert with_system_prompt_of(CHAT, 0).messages[0].content == "Be brief."


@pytest.mark.parametrize("tokens", [-1, 1.5, True, "40"])
def test_a_size_that_is_not_a_whole_number_is_refused(tokens):
    with pytest.raises(WindowMemError, match="whole number"):
        with_system_prompt_of(CHAT, tokens)


def test_a_chat_without_a_system_prompt_is_refused():
    with pytest.raises(WindowMemError, match="no system prompt"):
        with_system_prompt_of(CHAT[1:], 10)


def test_each_design_costs_its_bill_on_each_model_per_thousand_chats():
    designs = [("whole", CHAT, LangGraphThread()), ("window", CHAT, N8nSimpleMemory(1))]
    costs = design_costs(designs)
    assert [(c.design, c.model) for c in costs] == [
        (name, p.name) for name, _, _ in designs for p in MODEL_PRICES
    ]
    for cost in costs:
        policy = dict((n, p) for n, _, p in designs)[cost.design]
        price = next(p for p in MODEL_PRICES if p.name == cost.model)
        bill = conversation_bill(CHAT, policy, price, count_words)
        assert cost.dollars == bill.dollars * CHATS
        assert (cost.input, cost.cached, cost.output) == (
            bill.total("input"),
            bill.total("cached"),
            bill.total("output"),
        )
    with pytest.raises(WindowMemError, match="at least one"):
        design_costs([])


def test_a_window_on_a_short_prompt_is_never_cached_and_by_hand():
    """Eight turns of two words a message, a 2-word prompt: under every cache's 1,024-token floor."""
    (cost,) = design_costs(
        [("window", CHAT, N8nSimpleMemory(1))], models=[price_of("gpt-5.4-mini")]
    )
    # Call t sends the prompt, turn t-1's two messages (none on turn 1) and question t.
    by_hand = sum(2 + (4 if t > 1 else 0) + 2 for t in range(1, 9))
    assert (cost.input, cost.cached, cost.cached_share) == (by_hand, 0, 0.0)
    assert cost.output == 8 * 2
    expected = (by_hand * Decimal("0.75") + 16 * Decimal("4.5")) / 1_000_000 * CHATS
    assert cost.dollars == expected


def test_lesson_5_s_designs_are_the_five_it_prices():
    designs = support_designs()
    names = [name for name, _, _ in designs]
    assert names[:2] == ["whole history", f"window of {WINDOW_MESSAGES} messages"]
    prompts = [chat.messages[0] for _, chat, _ in designs]
    assert all(count_words(p) >= SYSTEM_PROMPT_TOKENS for p in prompts)
    pinned = dict((n, c) for n, c, _ in designs)[f"window of {WINDOW_MESSAGES}, order pinned"]
    assert "#7781" in pinned.messages[0].content
    assert "#7781" not in designs[0][1].messages[0].content


def test_the_summary_instruction_is_langchain_s_own():
    """The summariser's instruction lesson 5 prices is LangChain's DEFAULT_SUMMARY_PROMPT
    without the messages it summarises, counted in Qwen2.5 tokens."""
    summarization = pytest.importorskip("langchain.agents.middleware.summarization")
    from windowmem.design.money import SUMMARY_INSTRUCTION_TOKENS
    from windowmem.tokens import count_text

    prompt = summarization.DEFAULT_SUMMARY_PROMPT
    assert "{messages}" in prompt
    assert count_text(prompt.replace("{messages}", "")) == SUMMARY_INSTRUCTION_TOKENS


def test_summariser_calls_read_what_the_middleware_replaces_and_write_its_summary():
    from windowmem.design.money import SUMMARY_INSTRUCTION_TOKENS, summariser_calls
    from windowmem.policies.langgraph import LangChainSummarization

    policy = LangChainSummarization(2, trigger_tokens=None, trigger_messages=5, counter=count_words)
    chat = [m for t in range(1, 5) for m in (user(f"q {t}"), assistant(f"a {t}"))]
    call = summariser_calls(("s", chat, policy), count_words)[0]
    # Before turn 3's answer the thread holds 5 messages: the oldest 3 are summarised.
    assert call.turn == 3 and call.cached == 0
    assert call.input == SUMMARY_INSTRUCTION_TOKENS + 3 * 2
    assert summariser_calls(("w", chat, N8nSimpleMemory(1)), count_words) == ()


def test_per_call_by_block_averages_each_block_of_calls():
    from windowmem.design.money import per_call_by_block
    from windowmem.prices import call_cost

    model = price_of("gpt-5.4-mini")
    design = ("w", CHAT, N8nSimpleMemory(1))
    calls = [
        call_cost(c, model) for c in conversation_bill(CHAT, design[2], model, count_words).calls
    ]
    blocks = per_call_by_block(design, model, block=3)
    assert len(blocks) == 3 and blocks[-1] == sum(calls[6:]) / 2 * CHATS
    assert blocks[0] == sum(calls[:3]) / 3 * CHATS
    with pytest.raises(WindowMemError, match="block must be a whole number >= 1"):
        per_call_by_block(design, model, block=0)
