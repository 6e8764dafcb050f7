"""Lesson 5's bill: every row is what summary_savings and rolling_summary say of that design."""

from __future__ import annotations

import pytest

from windowmem.design.anchor_facts import with_fact_in_system_prompt
from windowmem.design.bill import design_bill
from windowmem.design.rolling_summary import rolling_summary, summary_savings
from windowmem.errors import WindowMemError
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.frames import BILL_COLUMNS, bill_frame
from windowmem.tokens import count_words

LONG = load_example("support_60")
LINE = f"Order on file for this customer: {ANCHOR_FACTS['support_60']}"
PLANS = [(3, 1), (3, 2), (5, 5)]


@pytest.fixture(scope="module")
def bill():
    return {r.mechanism: r for r in design_bill(LONG, LINE, plans=PLANS, counter=count_words)}


def test_the_designs_without_a_summary_are_the_plain_agent(bill):
    savings = summary_savings(LONG, every=3, keep_turns=1, counter=count_words)
    whole = summary_savings(LONG, every=3, keep_turns=1, counter=count_words, baseline_window=0)
    assert bill["whole history, no summary"].agent_input == whole.plain_tokens
    assert bill["window 5 alone"].agent_input == savings.plain_tokens
    pinned = rolling_summary(with_fact_in_system_prompt(LONG, LINE), window=5, counter=count_words)
    assert bill["window 5, the fact in the system prompt"].agent_input == sum(
        t.input_tokens for t in pinned
    )
    for name in (
        "whole history, no summary",
        "window 5 alone",
        "window 5, the fact in the system prompt",
    ):
        row = bill[name]
        assert (row.summariser_input, row.summariser_output, row.calls_sending_summary) == (0, 0, 0)
        assert row.total == row.agent_input


@pytest.mark.parametrize(("every", "keep"), PLANS)
def test_a_plan_s_row_is_its_savings_and_its_schedule(bill, every, keep):
    row = bill[f"summary every {every} turns, keep {keep}"]
    saving = summary_savings(
        LONG, every=every, keep_turns=keep, counter=count_words, baseline_window=0
    )
    assert row.agent_input == saving.summarised_tokens
    assert row.summariser_input == saving.summariser_tokens + saving.summariser_prompt_tokens
    assert row.summariser_output == saving.summary_output_tokens > 0
    assert row.total == saving.summarised_tokens + row.summariser_input
    assert row.share == pytest.approx(row.total / saving.plain_tokens)
    schedule = rolling_summary(LONG, window=5, every=every, keep_turns=keep)
    assert row.calls_sending_summary == sum(1 for t in schedule if t.summary_sent)


def test_the_rows_run_from_the_cheapest_and_the_whole_history_is_the_yardstick(bill):
    rows = design_bill(LONG, LINE, plans=PLANS, counter=count_words)
    assert [r.total for r in rows] == sorted(r.total for r in rows)
    assert bill["whole history, no summary"].share == 1.0
    # The guide's layout at window 5: its summary reaches no call, so its agent pays the window.
    guide = bill["summary every 5 turns, keep 5"]
    assert (
        guide.calls_sending_summary == 0 and guide.agent_input == bill["window 5 alone"].agent_input
    )


def test_the_frame_shows_each_row_in_order():
    rows = design_bill(LONG, LINE, plans=PLANS[:1], counter=count_words)
    frame = bill_frame(rows)
    assert tuple(frame.columns) == BILL_COLUMNS and frame.index.name == "design"
    assert list(frame.index) == [r.mechanism for r in rows]
    assert frame["input total"].tolist() == [r.total for r in rows]
    assert frame["share of whole history"].tolist() == [f"{r.share:.0%}" for r in rows]


@pytest.mark.parametrize(
    ("window", "plans", "message"),
    [
        (0, [], "window must be a whole number >= 1"),
        (5, [(0, 1)], "a plan's every must be a whole number >= 1"),
        (5, [(3, -1)], "a plan's keep_turns must be a whole number >= 0"),
        (True, [], "window must be a whole number"),
    ],
)
def test_bad_settings_are_refused_with_what_to_give(window, plans, message):
    with pytest.raises(WindowMemError, match=message):
        design_bill(LONG, LINE, window=window, plans=plans)


def test_a_conversation_without_turns_is_refused():
    with pytest.raises(WindowMemError, match="no turns to bill"):
        design_bill([], LINE)
