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
from windowmem.prices import conversation_bill, price_of, without_cache
from windowmem.recall import fact_visible
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter

QWEN = qwen_counter()
BUDGET = 1500
POLICIES = ("unbounded", "truncate", "compact", "retrieve", "just-in-time")
#: The model self-check 3 prices truncate on, with its cache and without: one that charges
#: nothing to write, so the check turns on the prefixes alone (Claude's write charge is in Going
#: further).
MODEL = "gpt-5.4-mini"
#: The model self-check 5 prices the long chat on.
CHAT_MODEL = "gpt-5.4-mini"
#: Self-check 3's three choices: truncate's bill with GPT-5.4 mini's cache against without it.
UNDER_HALF, A_LITTLE_LESS, MORE = "under half", "a little less", "more"
#: Self-check 5's three choices: keeping every turn's dollars, in windows' dollars, as ranges.
UNDER_1, ONE_TO_3, OVER_10 = "under 1", "1 to 3", "over 10"
#: Self-check 2's budget, one the lesson does not work (its table is at BUDGET).
TRUNCATE_BUDGET = 1300
#: The order number Lucía gives on turn 1 of the long chat (section 4).
ORDER = ANCHOR_FACTS["support_60"]


@cache
def _prepared() -> Any:
    return prepare(help_centre())


@cache
def _runs() -> dict[str, Any]:
    # Section 2's five runs at the lesson's budget.
    return {name: run_task(_prepared(), BUDGET, name) for name in POLICIES}


#: Self-check 1's four choices: the task's input bill in last calls' sizes.
ONCE, THREE, ABOUT_7, FOURTEEN = 1, 3, 7, 14


def _check_1() -> dict[str, Any]:
    unbounded = _runs()["unbounded"]
    # 1's premise: 14 calls, from 193 tokens to 2,951.
    calls = [s.used for s in unbounded.trace if s.event.value == "call"]
    if (len(calls), calls[0], calls[-1]) != (14, 193, 2951):
        raise AssertionError(f"self-check 1's premise no longer holds: {calls}")
    ratio = unbounded.bill.input_tokens / unbounded.bill.peak
    # The nearest of the four choices to the bill in last calls' sizes.
    return {"1": min((ONCE, THREE, ABOUT_7, FOURTEEN), key=lambda c: abs(c - ratio))}


@cache
def _truncated() -> Any:
    return run_task(_prepared(), TRUNCATE_BUDGET, "truncate")


def _check_2() -> dict[str, Any]:
    return {"2": _truncated().answered}


def _check_2_mistakes() -> dict[Any, str]:
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


def _check_4() -> dict[str, Any]:
    window = last_call(_runs()["just-in-time"])
    return {"4": len({q for item in window for q in item.facts})}


def truncate_priced() -> tuple[Any, Any]:
    """Self-check 3's two bills: truncate at 1,500 on GPT-5.4 mini, cached and not."""
    price = price_of(MODEL)
    truncate = _runs()["truncate"]
    cached = policy_costs([truncate], (price,))[0].dollars
    plain = policy_costs([truncate], (without_cache(price),))[0].dollars
    return cached, plain


def _check_3() -> dict[str, Any]:
    cached, plain = truncate_priced()
    ratio = float(cached / plain)
    # The choices are far apart except "a little less" against "more": the answer must not sit
    # on 1, where a rounding could flip it.
    if not (ratio < 0.45 or 0.55 < ratio < 0.99 or ratio > 1.01):
        raise AssertionError(f"self-check 3's answer sits near a choice's edge: {ratio:.3f}")
    return {"3": UNDER_HALF if ratio < 0.5 else A_LITTLE_LESS if ratio < 1 else MORE}


def _pinning_bills() -> tuple[list[int], list[int]]:
    """Each call's tokens over the 300 turns, for the 10-turn window without and with the pin."""
    long_chat = generated_support(300)
    window_10 = N8nSimpleMemory(10)
    return (
        tokens_per_call(long_chat, window_10, QWEN),
        tokens_per_call(pinned_chat(long_chat, ORDER), window_10, QWEN),
    )


def _pinning_premise() -> None:
    """Section 4's worked answer: the pin adds 12 tokens to every call, about 4% of the bill."""
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
        raise AssertionError(f"section 4's pin no longer adds 12 tokens a call: {extra}")
    if fact_visible(recent, ORDER) or not fact_visible(kept, ORDER):
        raise AssertionError("section 4's premise no longer holds: who shows the order number")
    # "Once full, the window's calls carry about 270 tokens", and 12 on such a call is the same
    # whole percentage (4) as on the bill.
    full = plain[10:]
    if round(sum(full) / len(full), -1) != 270 or round(100 * 12 / 270) != round(
        100 * (sum(with_pin) / sum(plain) - 1)
    ):
        raise AssertionError("section 4's premise no longer holds: calls of about 270 tokens")


def chat_dollars() -> tuple[Any, Any]:
    """The long chat on GPT-5.4 mini, every turn kept and a 10-turn window: the two bills."""
    long_chat = generated_support(300)
    return (
        conversation_bill(long_chat, N8nSimpleMemory(300), CHAT_MODEL, QWEN),
        conversation_bill(long_chat, N8nSimpleMemory(10), CHAT_MODEL, QWEN),
    )


def _check_5() -> dict[str, Any]:
    _pinning_premise()
    keep_all, window = chat_dollars()
    # The question's premise: 14 times the window's input tokens.
    if round(keep_all.total("input") / window.total("input")) != 14:
        raise AssertionError("self-check 5's premise no longer holds: 14 times the tokens")
    # The facts the question gives: 96% of the kept turns' input from the cache, none of the
    # window's, and the same replies.
    if (
        round(100 * keep_all.total("cached") / keep_all.total("input")) != 96
        or window.total("cached") != 0
        or keep_all.total("output") != window.total("output")
    ):
        raise AssertionError(
            "self-check 5's worked answer no longer holds: 96% cached, same replies"
        )
    ratio = float(keep_all.dollars / window.dollars)
    # The ranges are far apart, so no rounding decides the answer.
    if not (ratio < 0.8 or 1.2 < ratio < 2.8 or ratio > 12):
        raise AssertionError(f"self-check 5's answer sits near a range's edge: {ratio:.2f}")
    return {"5": UNDER_1 if ratio < 1 else ONE_TO_3 if ratio <= 3 else OVER_10}


def pinned_chat(long_chat: Any, order: str) -> Any:
    """The long chat with the order number pinned in its system message, as the page builds it."""
    return with_fact_in_system_prompt(long_chat, f"The customer's order number is {order}.")


BOOK = CheckBook(
    6,
    [
        Expectation(
            "1",
            _check_1,
            hint="each call resends everything before it: what is the average call's size, "
            "against the last one, and how many calls are there?",
            mistakes={
                ONCE: "the window is paid for on every call, not once: each call resends all the "
                "reads before it",
                THREE: "too few: an early read is paid again on every later call, so the calls "
                "average about half the last one, and there are 14 of them",
                FOURTEEN: "that charges every call at the last call's size; the early calls are "
                "small, so the calls average about half the last one",
            },
            why="each call resends all the call before did plus one chunk, from 193 tokens to 2,951, "
            "so the calls average about half the last one, and 14 of them come to about 7.6 last calls",
            transfer="the whole task's bill from one call's array, before the lesson adds the calls up",
            form="one of the whole numbers 1, 3, 7 or 14",
        ),
        Expectation(
            "2",
            _check_2,
            hint="take 193 tokens from 1,300 and see whether the last five or six reads fit; "
            "then ask which of the last reads hold a fact",
            mistakes=_check_2_mistakes,
            why="five reads fit after the opening 193 tokens, and one of them, Q10's first, holds no fact",
            transfer="truncation's answers at a budget the lesson does not run",
        ),
        Expectation(
            "3",
            _check_3,
            hint="after truncation's first drop, how many tokens does each call share with the "
            "start of the call before? Is that over the 1,024 minimum? How many of the 14 calls "
            "does the cache serve?",
            mistakes={
                UNDER_HALF: "that is what a window that only appends gets; truncation drops the "
                "read right after the opening 193 tokens at almost every call, so those calls "
                "share nothing over 1,024 tokens, and the cache serves only calls 6 and 10",
                MORE: "on GPT-5.4 mini the cache only ever lowers a price, so it can only lower "
                "the bill; the question is by how much, when it serves only calls 6 and 10",
            },
            why="after the first drop every call but one shares only the opening 193 tokens with "
            "the call before, under the 1,024 minimum, so the cache serves only calls 6 and 10: "
            "a discount on two calls of fourteen, and no price the cache raises",
            transfer="truncate's few prefixes priced with a cache: the lesson prices the runs "
            "only after this check",
            form='one of "under half", "a little less" or "more"',
        ),
        Expectation(
            "4",
            _check_4,
            hint="a reference holds no fact: which chunk is still a read on the last call?",
            mistakes={
                12: "twelve are answered, but each answer went on the list while its chunk was in "
                "the window; on the last call the others are references, which hold no fact",
                0: "the chunk read again for the last question is still a read on the last call",
                2: "two chunks sit in the window only while a question is answered; the next "
                "call turns the older one into a reference",
            },
            why="the last call carries twelve references and Q12's chunk, read again by its id: "
            "one fact; the other answers went on the answer list earlier, each while its chunk, "
            "read again by its id, was in the window",
            transfer="just-in-time's last call, before the explorer shows it",
        ),
        Expectation(
            "5",
            _check_5,
            hint="keeping every turn only appends: how much of its input can the cache serve, at "
            "what price? The window drops its oldest turn at every call: what does the cache "
            "serve it? Then add the same replies to both",
            mistakes={
                OVER_10: "that is the ratio of the tokens; keeping every turn only appends, so almost all "
                "of its input is read from the cache at a tenth of the price",
                UNDER_1: "too low: the cache makes the kept turns' input cheap, not free; 14 times the "
                "tokens at about a tenth of the price is still more than the window pays",
            },
            why="keeping every turn only appends, so almost all its input is read from the cache at "
            "a tenth of the price, while the window's calls are under 1,024 tokens and pay in full",
            transfer="the long chat priced with the prompt cache, which the lesson has not worked",
            form='one of "under 1", "1 to 3" or "over 10"',
        ),
    ],
)
check = BOOK.check
