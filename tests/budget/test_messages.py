"""A budget-task call as the message array it sends (lesson 6's first picture)."""

from __future__ import annotations

import pytest

from windowmem.budget import help_centre, prepare, run_task
from windowmem.budget.messages import call_messages, show_call
from windowmem.budget.money import call_steps
from windowmem.budget.prompts import SYSTEM_PROMPT
from windowmem.tokens import count_text

PREPARED = prepare(help_centre())
UNBOUNDED = run_task(PREPARED, 1500, "unbounded")


def test_each_item_of_the_call_is_one_message_in_order_with_its_tokens():
    for number, step in enumerate(call_steps(UNBOUNDED), start=1):
        sent = call_messages(UNBOUNDED, number, PREPARED)
        assert [m.tokens for m in sent] == [i.tokens for i in step.context]
        assert [m.role for m in sent] == ["system", "user"] + ["tool"] * (len(sent) - 2)


def test_the_texts_are_the_ones_counted():
    sent = call_messages(UNBOUNDED, 4, PREPARED)
    assert sent[0].text == SYSTEM_PROMPT
    assert all(count_text(m.text) == m.tokens for m in sent)
    assert [m.what for m in sent[2:]] == ["Q1's chunk", "Q2's chunk", "Q3's chunk"]


def test_references_and_summaries_are_named_without_text():
    jit = run_task(PREPARED, 1500, "just-in-time")
    sent = call_messages(jit, len(call_steps(jit)), PREPARED)
    references = [m for m in sent if m.what.startswith("reference")]
    assert len(references) == 12 and all(m.text == "" for m in references)


def test_the_printed_array_is_one_line_a_message():
    shown = show_call(call_messages(UNBOUNDED, 4, PREPARED)).splitlines()
    assert shown[0] == "[" and shown[-1] == "]" and len(shown) == 7
    assert shown[1].startswith('  {"role": "system", "content": "You are a research agent.')
    assert shown[1].endswith("# system prompt, 33 tokens")


@pytest.mark.parametrize("bad", [0, 15, True, "2"])
def test_a_call_the_run_did_not_make_is_refused(bad):
    with pytest.raises(ValueError, match="use 1 to 14"):
        call_messages(UNBOUNDED, bad, PREPARED)
