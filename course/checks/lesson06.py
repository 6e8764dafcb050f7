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
#: The model self-check 4 prices the runs on.
MODEL = "gpt-5.4-mini"
#: Self-check 2a's budget, one the lesson does not work (its table is at BUDGET).
TRUNCATE_BUDGET = 1300
#: The order number Lucía gives on turn 1 of the long chat (section 5, self-check 5).
ORDER = ANCHOR_FACTS["support_60"]


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


@cache
def _truncated() -> Any:
    return run_task(_prepared(), TRUNCATE_BUDGET, "truncate")


def _check_2() -> dict[str, Any]:
    return {"2a": _truncated().answered, "2b": _runs()["just-in-time"].bill.calls}


def _check_2a_mistakes() -> dict[Any, str]:
    # The reads the last call's size holds under truncate at 1,300: one of them holds no fact.
    last = _truncated().trace[-1].context
    reads = [item for item in last if item.kind.value == "read"]
    return {
        len(reads): "that many reads fit, but one of them (Q10's first) holds no fact",
        len(reads) + 1: "one read too many: take the opening 193 tokens from the budget first",
        len(reads) - 2: "one read too few: 1,107 tokens hold five reads of about 200",
        12: "truncation drops the oldest reads and nothing brings them back",
        0: "the last reads are still in the window when the answering starts",
    }


def last_call(result: Any) -> Any:
    """The context of *result*'s last call: the one that writes the answers."""
    return [s for s in result.trace if s.event.value == "call"][-1].context


def _check_3() -> dict[str, Any]:
    window = last_call(_runs()["just-in-time"])
    return {"3": len({q for item in window for q in item.facts})}


def _check_4() -> dict[str, Any]:
    costs = policy_costs(_runs().values(), (price_of(MODEL),))
    return {"4": min(costs, key=lambda c: c.dollars).policy}


def _pinning_bills() -> tuple[list[int], list[int]]:
    """Each call's tokens over the 300 turns, for the 10-turn window without and with the pin."""
    long_chat = generated_support(300)
    window_10 = N8nSimpleMemory(10)
    return (
        tokens_per_call(long_chat, window_10, QWEN),
        tokens_per_call(pinned_chat(long_chat, ORDER), window_10, QWEN),
    )


def _pinning_premise() -> None:
    """Section 5's worked answer: the pin adds 12 tokens to every call, about 4% of the bill."""
    long_chat = generated_support(300)
    last = long_chat.turn_count
    window_10 = N8nSimpleMemory(10)
    plain, with_pin = _pinning_bills()
    # The pinned sentence adds the same 12 tokens to every call (3,600 over the 300), and only
    # the pinned window still shows the order number on the last turn.
    extra = {p - w for p, w in zip(with_pin, plain, strict=True)}
    recent, kept = (
        turn_view(long_chat, window_10, last, QWEN),
        turn_view(pinned_chat(long_chat, ORDER), window_10, last, QWEN),
    )
    if extra != {12} or sum(with_pin) - sum(plain) != 3600:
        raise AssertionError(f"section 5's pin no longer adds 12 tokens a call: {extra}")
    if fact_visible(recent, ORDER) or not fact_visible(kept, ORDER):
        raise AssertionError("section 5's premise no longer holds: who shows the order number")
    # "Once full, the window's calls carry about 270 tokens", and 12 on such a call is the same
    # whole percentage (4) as on the bill.
    full = plain[10:]
    if round(sum(full) / len(full), -1) != 270 or round(100 * 12 / 270) != round(
        100 * (sum(with_pin) / sum(plain) - 1)
    ):
        raise AssertionError("section 5's premise no longer holds: calls of about 270 tokens")


def _check_5() -> dict[str, Any]:
    _pinning_premise()
    long_chat = generated_support(300)
    window_10 = N8nSimpleMemory(10)
    # The first turn whose call, under the plain 10-turn window, no longer carries the number.
    lost = next(
        turn
        for turn in range(1, long_chat.turn_count + 1)
        if not fact_visible(turn_view(long_chat, window_10, turn, QWEN), ORDER)
    )
    return {"5": lost}


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
            hint="take 193 tokens from 1,300 and count how many reads of about 200 tokens fit; "
            "then ask which of the last reads hold a fact",
            mistakes=_check_2a_mistakes,
            why="five reads fit after the opening 193 tokens, and one of them, Q10's first, holds no fact",
            transfer="truncation's answers at a budget the lesson does not run",
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
            hint="a reference holds no fact: which chunk is still a read on the last call?",
            mistakes={
                12: "twelve are answered, but each answer was taken while its chunk was in the "
                "window; on the last call the others are references, which hold no fact",
                0: "the chunk read again for the last question is still a read on the last call",
                2: "two chunks sit in the window only while a question is answered; the next "
                "call turns the older one into a reference",
            },
            why="the last call carries twelve references and Q12's chunk, read again by its id: "
            "one fact; the other answers were kept aside",
            transfer="just-in-time's last call, before the explorer shows it",
        ),
        Expectation(
            "4",
            _check_4,
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
            "5",
            _check_5,
            hint="a window of 10 turns loads the 10 turns before the current one: "
            "from which turn is turn 1 not among them?",
            mistakes={
                11: "turn 11's call still loads the 10 turns before it, turns 1 to 10",
                10: "turn 10's call loads turns 1 to 9, and turn 11's turns 1 to 10: turn 1 is still there",
                2: "the window holds 10 turns, not one: turn 1 stays loaded for a while",
                21: "the window counts turns (a question and its answer), not messages",
                300: "the plain window loses it long before the last turn",
            },
            why="turn t's call loads turns t - 10 to t - 1: turn 11's still holds turn 1, turn 12's "
            "starts at turn 2",
            transfer="when a 10-turn window loses an early fact, which the lesson has not worked",
            form="a whole number, a turn of the 300",
        ),
    ],
)
check = BOOK.check
