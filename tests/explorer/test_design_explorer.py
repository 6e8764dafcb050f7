"""Lesson 5's explorer: the pure view against the library, its HTML, and the widgets without a browser."""

from __future__ import annotations

import re

import pytest

from windowmem.design.anchor_facts import turns_reached
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import FactPlace, default_lineup, framework_lineup, side_by_side
from windowmem.errors import WindowMemError
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.design_html import render_design_html
from windowmem.explorer.design_view import DesignCache, design_view
from windowmem.messages import Role
from windowmem.tokens import count_words

CHAT = load_example("two_orders")
FACT = ANCHOR_FACTS["two_orders"]
POLICIES = default_lineup(count_words)


@pytest.fixture(scope="module")
def cache() -> DesignCache:
    return DesignCache.build(CHAT, POLICIES, FACT)


def test_each_card_is_that_product_s_array(cache):
    rows = side_by_side(CHAT, POLICIES)
    for turn in (1, 4, 9):
        view = design_view(cache, turn, counter=count_words)
        mine = [r for r in rows if r.turn == turn]
        assert [len(c.lines) for c in view.products] == [len(r.sent) for r in mine]
        assert [c.place for c in view.products] == [r.fact_place(FACT) for r in mine]
        reached = [p.name for p in POLICIES if turn in turns_reached(rows, FACT, p.name)]
        assert view.reaching == len(reached)


def test_each_card_says_what_the_memory_sent_in_messages_and_turns(cache):
    """The card counts the memory's messages and names the turns it cut, as the replay has them."""
    rows = [r for r in side_by_side(CHAT, POLICIES) if r.turn == 9]
    view = design_view(cache, 9, counter=count_words)
    for cell, row in zip(view.products, rows, strict=True):
        assert cell.memory_messages == row.memory_messages
        assert cell.partial_turns == row.partial_turns
    n8n = next(c for c in view.products if c.policy == "n8n")
    assert n8n.memory_line == "from memory: 9 messages, turns 5–8 (turn 5 only in part)"
    page = render_design_html(view)
    assert (
        "window 5 message pairs (the last 10 messages); from memory: 9 messages, turns 5–8 (turn 5 only in part); then the new question"
        in page
    )
    assert "this call holds" not in page  # the old count mixed a partial turn and the input in
    spring = next(c for c in view.products if c.policy == "spring-ai")
    assert spring.memory_line == "from memory: 16 messages, turns 1–8"
    first = design_view(cache, 1, counter=count_words)
    assert {c.memory_line for c in first.products} == {"from memory: nothing"}
    agents = next(c for c in first.products if c.policy == "openai-agents")
    assert agents.amount == "1 item" and "1 item with the new question" in render_design_html(first)


def test_the_toggle_puts_the_fact_in_every_array(cache):
    view = design_view(cache, 9, fact_in_system=True)
    assert {c.place for c in view.products} == {FactPlace.SYSTEM}
    assert view.reaching == len(POLICIES)


def test_the_schedule_is_the_rolling_summary(cache):
    view = design_view(cache, 2, every=2, keep_turns=1, counter=count_words)
    rolled = rolling_summary(CHAT, window=5, every=2, keep_turns=1, counter=count_words)
    assert [r.summarised_tokens for r in view.schedule] == [t.input_tokens for t in rolled]
    assert view.summarised_total == sum(t.input_tokens for t in rolled)
    assert view.full_total == sum(
        t.input_tokens for t in rolling_summary(CHAT, window=0, counter=count_words)
    )
    off = design_view(cache, 2, every=0, counter=count_words)
    assert off.summarised_total == off.plain_total and off.summariser_total == 0


def test_html_carries_the_data_the_browser_reads(cache):
    view = design_view(cache, 9, every=3, keep_turns=1, counter=count_words)
    page = render_design_html(view)
    assert 'data-turn="9"' in page and 'data-in-system="false"' in page
    assert page.count('class="wm-product"') == len(POLICIES)
    assert "<style" not in page and "<script" not in page
    saved = int(re.search(r'data-saved="(-?\d+)"', page).group(1))
    assert saved == view.full_total - view.summarised_total - view.summariser_total
    assert 'class="wm-fact"' in page  # Spring AI still sends turn 1


def test_a_turn_outside_the_conversation_is_refused(cache):
    with pytest.raises(WindowMemError, match="from 1 to 9"):
        design_view(cache, 10)
    with pytest.raises(WindowMemError, match="said nowhere"):
        DesignCache.build(CHAT, POLICIES, "#0000")


def test_widgets_follow_their_controls():
    from windowmem.explorer.design_widgets import IN_SYSTEM, DesignExplorer

    explorer = DesignExplorer(CHAT, POLICIES, FACT, turn=9, counter=count_words)
    cache = DesignCache.build(CHAT, POLICIES, FACT)
    assert explorer.output.value == render_design_html(design_view(cache, 9, counter=count_words))
    explorer.fact_toggle.value = IN_SYSTEM
    assert 'data-in-system="true"' in explorer.output.value
    explorer.every.value = 0
    assert 'data-every="0"' in explorer.output.value
    explorer.turn.value = 2
    assert 'data-turn="2"' in explorer.output.value
    assert explorer.snapshot_html().endswith(explorer.output.value)


def test_langchain_s_len_counter_is_shown_in_messages():
    """``token_counter=len`` counts one "token" a message: the card says messages, the new question in."""
    lineup = framework_lineup()
    view = design_view(DesignCache.build(CHAT, lineup, FACT), 9, counter=count_words)
    langchain = next(c for c in view.products if c.policy == "langchain-trim-state")
    row = next(
        r for r in side_by_side(CHAT, lineup) if r.turn == 9 and r.policy == langchain.policy
    )
    # The array without its system prompt: the messages the trim kept, the new question among them.
    expected = len([m for m in row.sent if m.role is not Role.SYSTEM])
    assert langchain.size == "10 messages" and langchain.amount == f"{expected} messages"
    page = render_design_html(view)
    assert (
        f"window 10 messages; {langchain.memory_line}; {expected} messages with the new question"
        in page
    )
    card = page.split('data-policy="langchain-trim-state"')[1].split('class="wm-product"')[0]
    assert "token" not in card
