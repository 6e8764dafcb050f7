"""Lesson 6's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem.budget import help_centre, prepare, run_task
from windowmem.budget.money import policy_costs
from windowmem.cost import tokens_per_call
from windowmem.design.anchor_facts import with_fact_in_system_prompt
from windowmem.examples import ANCHOR_FACTS, generated_support
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies import N8nSimpleMemory
from windowmem.prices import price_of
from windowmem.recall import fact_visible
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter

QWEN = qwen_counter()
BUDGET = 1500
POLICIES = ("unbounded", "truncate", "compact", "retrieve", "just-in-time")
#: The model self-check 3 prices the runs on.
MODEL = "gpt-5.4-mini"


@cache
def _prepared() -> Any:
    return prepare(help_centre())


@cache
def _runs() -> dict[str, Any]:
    # Section 2's five runs at the lesson's budget.
    return {name: run_task(_prepared(), BUDGET, name) for name in POLICIES}


def _check_1() -> dict[str, Any]:
    prepared = _prepared()
    corpus = prepared.corpus
    unbounded = _runs()["unbounded"]
    # 1a's premise: 14 calls, from 193 tokens to 2,951.
    calls = [s.used for s in unbounded.trace if s.event.value == "call"]
    if (len(calls), calls[0], calls[-1]) != (14, 193, 2951):
        raise AssertionError(f"self-check 1a's premise no longer holds: {calls}")
    ratio_12_6 = (
        run_task(prepare(corpus, 12), 10**6, "unbounded").bill.input_tokens
        / run_task(prepare(corpus, 6), 10**6, "unbounded").bill.input_tokens
    )
    return {"1a": round(unbounded.bill.input_tokens, -3), "1b": round(ratio_12_6)}


def _check_1a_mistakes() -> dict[Any, str]:
    unbounded = _runs()["unbounded"]
    calls, last = unbounded.bill.calls, unbounded.bill.peak
    return {
        round(
            calls * last, -3
        ): "that charges every call at the last size; the earlier calls are smaller",
        round(
            calls * last / 2, -3
        ): "close, but the first call already carries the system prompt and the task "
        "text: average the first and the last call's size",
        round(last, -3): "the window is paid for on every call, not once",
        last: "the window is paid for on every call, not once",
    }


def _check_2() -> dict[str, Any]:
    runs = _runs()
    return {"2a": runs["truncate"].answered, "2b": runs["just-in-time"].bill.calls}


def _check_2a_mistakes() -> dict[Any, str]:
    # The reads the last call's size holds under truncate at 1,500: one of them holds no fact.
    last = _runs()["truncate"].trace[-1].context
    reads = [item for item in last if item.kind.value == "read"]
    return {
        len(reads): "that many reads fit, but one of them (Q10's first) holds no fact",
        len(reads) + 1: "one read too many: add the opening 193 tokens before the reads",
        12: "truncation drops the oldest reads and nothing brings them back",
        0: "the last reads are still in the window when the answering starts",
    }


def _check_3() -> dict[str, Any]:
    costs = policy_costs(_runs().values(), (price_of(MODEL),))
    return {"3": min(costs, key=lambda c: c.dollars).policy}


def _check_4() -> dict[str, Any]:
    long_chat = generated_support(300)
    order = ANCHOR_FACTS["support_60"]
    last = long_chat.turn_count
    window_10 = N8nSimpleMemory(10)
    plain = tokens_per_call(long_chat, window_10, QWEN)
    pinned = pinned_chat(long_chat, order)
    with_pin = tokens_per_call(pinned, window_10, QWEN)
    # 4's premise: the pinned sentence adds the same few tokens to every call, and only the
    # pinned window still shows the order number on the last turn.
    extra = {p - w for p, w in zip(with_pin, plain, strict=True)}
    recent, kept = (
        turn_view(long_chat, window_10, last, QWEN),
        turn_view(pinned, window_10, last, QWEN),
    )
    if len(extra) != 1 or fact_visible(recent, order) or not fact_visible(kept, order):
        raise AssertionError(f"self-check 4's premise no longer holds: {extra}")
    return {"4": sum(with_pin) - sum(plain)}


def _check_4_mistakes() -> dict[Any, str]:
    long_chat = generated_support(300)
    window_10 = N8nSimpleMemory(10)
    last = long_chat.turn_count
    per_call = (
        turn_view(
            pinned_chat(long_chat, ANCHOR_FACTS["support_60"]), window_10, last, QWEN
        ).input_tokens
        - turn_view(long_chat, window_10, last, QWEN).input_tokens
    )
    return {
        per_call: "that is one call's share: the system message is sent again on every call",
        0: "the window still holds 10 turns; the system message is extra, on every call",
    }


def pinned_chat(long_chat: Any, order: str) -> Any:
    """The long chat with the order number pinned in its system message, as the page builds it."""
    return with_fact_in_system_prompt(long_chat, f"The customer's order number is {order}.")


BOOK = CheckBook(
    6,
    [
        Expectation(
            "1a",
            _check_1,
            hint="average the first and the last call's size, times the calls; round to the nearest thousand",
            mistakes=_check_1a_mistakes,
            why="each call resends a size that grows from 193 to 2,951, so the bill is about the average size times 14",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="twice the calls, and each call carries about twice as much",
            mistakes={
                2: "that would hold if every call cost the same; later calls carry every earlier read",
                8: "too high: the bill grows with the square of the task, not the cube",
            },
            why="twice the calls, each with about twice the window: the bill grows with the square of the reads",
            transfer="a task of half the length",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="take 193 tokens from 1,500 and count how many reads of about 200 tokens fit; "
            "then ask which of the last reads hold a fact",
            mistakes=_check_2a_mistakes,
            why="six reads fit after the opening 193 tokens, and one of them, Q10's first, holds no fact",
            transfer="truncation's answers counted from the budget, before any bounded run is shown",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="count the first pass's calls, then one call for each question read again by "
            "its id, then the call that writes the answers",
            mistakes={
                14: "that is the first pass and the answers call; each question is read again while answering",
                25: "count the call that writes the answers too",
                27: "a read by id needs no search: Q10 is not read twice again, its reference names the right chunk",
                38: "a read again by id is one call, not a search of up to three reads",
                13: "13 is the first pass's reads; each read is one call, and the answering adds more",
            },
            why="13 calls read the chunks once, 12 read a chunk again by its id while answering, "
            "and one writes the answers",
            transfer="the just-in-time policy, before its run is shown",
        ),
        Expectation(
            "3",
            _check_3,
            hint="a cached token costs a tenth; which run keeps sending the same beginning, "
            "and which runs change it or stay under 1,024 tokens?",
            mistakes={
                "just-in-time": "it sends the fewest tokens, but every call is under 1,024 tokens, "
                "so none is read from the cache",
                "truncate": "each drop changes the window right after the task text, so little is "
                "read from the cache, and it answers only 5",
                "compact": "each compaction rewrites the window's beginning, so the cache starts again",
                "retrieve": "it sends the most tokens, in the most calls, most of them after a drop",
            },
            why="the unbounded window only appends, so every call from the sixth is served the "
            "call before it from the cache, at a tenth of the price",
            transfer="the budget policies in dollars, before the priced table",
            form='one of "unbounded", "truncate", "compact", "retrieve" or "just-in-time"',
        ),
        Expectation(
            "4",
            _check_4,
            hint="the system message goes out on every call",
            mistakes=_check_4_mistakes,
            why="the pinned sentence rides on every one of the 300 calls",
            transfer="the price of pinning, which the lesson has not worked",
        ),
    ],
)
check = BOOK.check
