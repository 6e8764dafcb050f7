"""Money: windowmem.prices against genai-prices' own table and calculator, and the prompt
cache's prefix rule on windows that grow and windows that slide."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from genai_prices import Usage, calc_price
from hypothesis import given
from hypothesis import strategies as st

from windowmem.errors import PolicyError
from windowmem.messages import assistant, system, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.prices import (
    ANTHROPIC_CACHE,
    GEMINI_CACHE,
    MODEL_PRICES,
    OPENAI_CACHE,
    PRICES_CHECKED,
    CallTokens,
    cache_tokens,
    call_cost,
    conversation_bill,
    price_of,
    without_cache,
)
from windowmem.tokens import count_words

WHEN = datetime.datetime.fromisoformat(PRICES_CHECKED)


def _theirs(price, input_tokens, cached, written, output) -> Decimal:
    usage = Usage(
        input_tokens=input_tokens,
        cache_read_tokens=cached,
        cache_write_tokens=written,
        output_tokens=output,
    )
    return calc_price(
        usage, model_ref=price.model, provider_id=price.provider, genai_request_timestamp=WHEN
    ).total_price


@pytest.mark.parametrize("price", MODEL_PRICES, ids=lambda p: p.model)
def test_each_price_is_the_one_genai_prices_records(price):
    million = 1_000_000
    assert _theirs(price, million, 0, 0, 0) == price.input
    assert _theirs(price, million, million, 0, 0) == price.cached_input
    assert _theirs(price, 0, 0, 0, million) == price.output
    if price.cache_write is not None:
        assert _theirs(price, million, 0, million, 0) == price.cache_write


@pytest.mark.parametrize("price", MODEL_PRICES, ids=lambda p: p.model)
def test_each_context_window_is_the_one_genai_prices_records(price):
    from genai_prices import data

    (provider,) = [p for p in data.providers if p.id == price.provider]
    assert {m.context_window for m in provider.models if m.id == price.model} == {
        price.context_window
    }


@pytest.mark.parametrize("price", MODEL_PRICES, ids=lambda p: p.model)
@given(
    cached=st.integers(0, 150_000),
    written=st.integers(0, 40_000),
    uncached=st.integers(0, 40_000),
    output=st.integers(0, 20_000),
)
def test_a_calls_cost_is_what_genai_prices_computes(price, cached, written, uncached, output):
    if price.cache_write is None:
        written = 0
    total = cached + written + uncached
    ours = call_cost(CallTokens(1, total, cached, written, output), price)
    assert ours == _theirs(price, total, cached, written, output)


def _chat(turns: int, system_words: int) -> list:
    messages = [system(" ".join(["rule"] * system_words))]
    for t in range(1, turns + 1):
        messages += [user(" ".join([f"u{t}"] * 100)), assistant(" ".join([f"a{t}"] * 100))]
    return messages


def test_an_unbounded_history_reads_every_earlier_call_from_the_cache():
    chat = _chat(8, 1100)
    bill = conversation_bill(chat, N8nSimpleMemory(100), "gpt-5.4-mini", count_words)
    sizes = [c.input for c in bill.calls]
    assert sizes == [1100 + 100 + 200 * t for t in range(8)]
    # Call t starts with all of call t-1; OpenAI serves it in steps of 128 tokens from 1,024.
    expected = [0] + [1024 + (s - 1024) // 128 * 128 for s in sizes[:-1]]
    assert [c.cached for c in bill.calls] == expected
    assert [c.written for c in bill.calls] == [0] * 8


def test_a_sliding_window_keeps_only_the_system_message_in_the_cache():
    chat = _chat(8, 1100)
    bill = conversation_bill(chat, N8nSimpleMemory(2), "gpt-5.4-mini", count_words)
    # Turns 2 and 3 still grow the prompt; from turn 4 the oldest turn leaves the front.
    assert [c.cached for c in bill.calls][:3] == [0, 1152, 1280]
    assert [c.cached for c in bill.calls][3:] == [1024] * 5  # the system message's 1,100, in steps


def test_a_short_system_message_leaves_a_sliding_window_nothing_to_cache():
    bill = conversation_bill(_chat(8, 300), N8nSimpleMemory(2), "gpt-5.4-mini", count_words)
    assert [c.cached for c in bill.calls][3:] == [0] * 5


def test_an_explicit_cache_reads_at_breakpoints_and_writes_the_rest():
    a = [system("s " * 1200), user("x " * 50)]
    b = [*a, assistant("y " * 50), user("z " * 50)]
    slid = [a[0], user("q " * 50)]
    got = cache_tokens([a, b, slid], ANTHROPIC_CACHE, count_words)
    assert got == [(0, 1250), (1250, 100), (1200, 50)]
    # The same calls on an automatic cache: nothing is written, the same prefixes are read.
    assert cache_tokens([a, b, slid], OPENAI_CACHE, count_words) == [(0, 0), (1152, 0), (1152, 0)]


@pytest.mark.parametrize("price", MODEL_PRICES, ids=lambda p: p.model)
def test_a_window_that_halves_the_tokens_can_cost_more(price):
    # 30 turns behind a 1,100-word system message: window 5 sends half the tokens, but every
    # call after turn 6 misses the cache past the system message, and the whole history hits it.
    chat = _chat(30, 1100)
    full = conversation_bill(chat, N8nSimpleMemory(100), price, count_words)
    window = conversation_bill(chat, N8nSimpleMemory(5), price, count_words)
    assert window.total("input") / full.total("input") < 0.52
    assert window.dollars > full.dollars


@pytest.mark.parametrize("price", MODEL_PRICES, ids=lambda p: p.model)
def test_a_stamp_atop_the_system_message_leaves_nothing_to_cache(price):
    # The same 30 turns with the time at the top of the system message: no call shares a
    # prefix with another, every token is paid in full, and fewer tokens cost less again.
    chat = _chat(30, 1100)
    stamp = {"stamp": lambda turn: f"Now: turn {turn}"}
    full = conversation_bill(chat, N8nSimpleMemory(100), price, count_words, **stamp)
    window = conversation_bill(chat, N8nSimpleMemory(5), price, count_words, **stamp)
    plain = conversation_bill(chat, N8nSimpleMemory(100), price, count_words)
    assert full.total("cached") == window.total("cached") == 0
    # "Now: turn t" is three words more on every call.
    assert full.total("input") == plain.total("input") + 3 * 30
    assert window.dollars < full.dollars
    if price.cache_write is not None:  # the caller still asks to cache: written, never read
        assert full.total("written") == full.total("input")


def test_a_stamp_must_be_text():
    with pytest.raises(PolicyError, match="non-empty string"):
        conversation_bill(_chat(2, 5), N8nSimpleMemory(5), "gpt-5.4-mini", stamp=lambda t: "")


def test_an_unknown_model_or_kind_says_what_to_use():
    with pytest.raises(PolicyError, match="gpt-5.4-mini"):
        price_of("gpt-2")
    bill = conversation_bill(_chat(1, 10), N8nSimpleMemory(5), "gemini-2.5-flash", count_words)
    with pytest.raises(ValueError, match="input, cached"):
        bill.total("tokens")


def test_behind_system_message_replaces_the_system_message_and_keeps_the_turns():
    from windowmem.prices import behind_system_message

    chat = _chat(3, 5)
    longer = behind_system_message(chat, "policies " * 40)
    assert longer.messages[0] == system("policies " * 40)
    assert longer.messages[1:] == tuple(chat[1:])
    assert behind_system_message(chat[1:], "S").messages[0] == system("S")
    with pytest.raises(PolicyError, match="non-empty"):
        behind_system_message(chat, "  ")


def test_gemini_2_5_flash_caches_from_2048_tokens_as_google_s_page_says():
    """Google's caching page (last updated 2026-10-13) gives 2,048 for Gemini 2.5 Flash: an
    unbounded chat whose calls share up to 1,600 tokens reads nothing from Gemini's cache, while
    OpenAI's 1,024 serves them."""
    chat = _chat(3, 1300)  # a 1,300-word system message, then turns of 100 + 100 words
    gemini = conversation_bill(chat, N8nSimpleMemory(100), "gemini-2.5-flash", count_words)
    gpt = conversation_bill(chat, N8nSimpleMemory(100), "gpt-5.4-mini", count_words)
    assert [c.input for c in gemini.calls] == [1400, 1600, 1800]
    assert [c.cached for c in gemini.calls] == [0, 0, 0]
    assert [c.cached for c in gpt.calls] == [0, 1280, 1536]
    longer = conversation_bill(
        _chat(3, 2100), N8nSimpleMemory(100), "gemini-2.5-flash", count_words
    )
    assert [c.cached for c in longer.calls] == [0, 2200, 2400]
    assert GEMINI_CACHE.cacheable(2047) == 0 < GEMINI_CACHE.cacheable(2048)


def test_without_cache_prices_every_input_token_at_the_input_price():
    price = price_of("claude-sonnet-4-6")
    chat = _chat(4, 1100)
    bill = conversation_bill(chat, N8nSimpleMemory(100), without_cache(price), count_words)
    assert bill.total("cached") == bill.total("written") == 0
    assert bill.dollars == sum(
        (Decimal(c.input) * price.input + Decimal(c.output) * price.output) / 1_000_000
        for c in bill.calls
    )
