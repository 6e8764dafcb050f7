"""Lesson 5's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from windowmem.design.money import last_call, support_designs
from windowmem.design.side_by_side import framework_lineup, side_by_side
from windowmem.design.sizing import calls_sent, parallel_tool_chat, smallest_window
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.policies.langgraph import LangChainSummarization
from windowmem.prices import price_of
from windowmem.prices.cache import OPENAI_CACHE
from windowmem.tokens import count_messages, qwen_counter

count_tokens = qwen_counter()
chat = load_example("two_orders")
fact = ANCHOR_FACTS["two_orders"]


@cache
def _rows() -> Any:
    # The six frameworks' call on every turn of the two-orders chat (section 2's table).
    return side_by_side(chat, framework_lineup())


def _check_1() -> dict[str, Any]:
    # The smallest max_tokens whose every model call of turn 12 (the tool round and the
    # answer) still sends the last 3 turns whole, found by trying each size on the model.
    sized = smallest_window(
        parallel_tool_chat(12, calls=STOCK_CALLS),
        lambda n: LangChainTrimState(n, counter=count_messages),
        12,
        3,
    )
    return {"1": sized}


#: Self-check 1's agent: tool calls asked at once in one model round, every turn
#: (stock, price and delivery date).
STOCK_CALLS = 3
#: Section 2's larger window, the size section 1's fix gives (4 earlier turns of 5 messages):
#: ``max_tokens`` of the lesson's ``keep_last_10``; turn 7 is the last to send turn 1.
LARGER_WINDOW = 24


#: Section 2's turn 10: Valentina corrects the order number she gave on turn 1.
CORRECTION = "Sorry, I mistyped on turn 1. My first order is #4471."
#: Self-check 2's turn 11: a second order number, not a correction.
NEW_ORDER = "Thanks. And #4432 arrived today."
#: The pattern the lesson's remember_order searches the user's messages with.
ORDER_NUMBER = re.compile(r"#\d+")


def pinned_order(questions: list[str]) -> str | None:
    """What the lesson's remember_order keeps after *questions*: on each turn's first call the
    thread ends with the turn's question, and it looks for a number only while none is saved
    (tests/design/test_lesson05_snippets.py holds the lesson's own cell to it)."""
    saved = None
    for question in questions:
        if saved is None and (found := ORDER_NUMBER.search(question)):
            saved = found.group()
    return saved


def pinned_newest(questions: list[str]) -> str | None:
    """What the lesson's newest-first remember_order (the fold after "A fact that changes")
    keeps after *questions*: on every call the newest user message holding a number wins, so
    each turn whose question holds one replaces the saved order."""
    saved = None
    for question in questions:
        if found := ORDER_NUMBER.search(question):
            saved = found.group()
    return saved


def _check_2() -> dict[str, Any]:
    questions = [turn.messages[0].content for turn in chat.interactions]
    pinned = pinned_newest([*questions, CORRECTION, NEW_ORDER])
    assert pinned is not None
    return {"2": int(pinned.removeprefix("#"))}


def _check_4() -> dict[str, Any]:
    # Going further's check: the turns whose call is shorter than the call before: each a new summary replaced the
    # thread's older messages (turns 16, 26, 36, ...), on a chat without tools.
    middleware = LangChainSummarization(10, trigger_tokens=None, trigger_messages=30)
    sizes = [len(sent) for sent in calls_sent(parallel_tool_chat(40, calls=0), middleware)]
    summarised = [turn for turn in range(2, len(sizes) + 1) if sizes[turn - 1] < sizes[turn - 2]]
    return {"4": summarised[1]}


@cache
def _check_3() -> dict[str, Any]:
    # Lucía's turn-60 call under the window of 10 on GPT-5.4 mini, the last call still cached:
    # which part of it is read from the cache, from the tokens the bill counts as cached.
    _, chat_60, _ = window = support_designs(count_tokens)[1]
    call = last_call(window, price_of("gpt-5.4-mini"), count_tokens)
    system = OPENAI_CACHE.cacheable(count_tokens(chat_60.messages[0]))
    if call.cached == 0:
        return {"3": "nothing"}
    if call.uncached == 0:
        return {"3": "everything"}
    return {
        "3": "the system prompt" if call.cached == system else "the system prompt and 8 messages"
    }


BOOK = CheckBook(
    5,
    [
        Expectation(
            "1",
            _check_1,
            hint="the trim runs before each model call of the turn; find the call at which the thread is fullest and count what it holds",
            mistakes={
                3: "3 counts turns; max_tokens counts messages here (token_counter=len)",
                18: "18 holds three turns of 6, but max_tokens also counts what the current turn has put in the thread",
                19: "19 is enough for the turn's first call, but the trim runs again before the answering call, when the thread also holds this turn's tool-call message and three results: that call keeps only two whole turns, and the rewrite deletes the third from the saved thread",
                24: "one too many: before the answering call the thread holds this turn's question, its call message and its three results, but not yet its answer",
                25: "LangChain's one AI message carries all three calls: a turn stores 6, not 8",
                31: "LangChain's one AI message carries all three calls: a turn stores 6, not 8",
                11: "11 is the rule for turns without tools; this agent's turns store more",
            },
            why="a turn stores 1 + 1 + 3 + 1 = 6 messages; the answering call's thread holds three of them (18) and the current turn's 5 messages before its answer: (3 + 1) x 6 - 1 = 23",
            transfer="sizing a LangChain window for an agent with three tool calls in every turn",
        ),
        Expectation(
            "2",
            _check_2,
            hint="the newest-first version reads her messages on every call, newest first: which is the newest message of hers that holds a number?",
            mistakes={
                4471: "#4471 was pinned after turn 10, but the newest-first version reads her messages again on turn 11, and turn 11's question holds a number too",
                4417: "that is what the first version of remember_order keeps; the newest-first version reads her messages on every call and keeps the newest number",
            },
            why="the newest-first version pins the newest number in her messages, and turn 11's question holds #4432; a pattern cannot tell a correction from a new order, so the pin now names her second order",
            transfer="what a fact pinned by a pattern becomes when the user gives a second value of another kind",
            form="one order number, in digits (the # may be left out)",
        ),
        Expectation(
            "3",
            _check_3,
            hint="a prefix is read from the cache only where the new call starts with exactly the same tokens as the last one: compare the two window calls token by token from the start",
            mistakes={
                "nothing": "S opens both calls unchanged, and its 1,701 tokens pass the 1,024 a prefix needs: its first 13 blocks of 128 match the last call and are read from the cache",
                "the system prompt and 8 messages": "those 8 messages are in both calls, but two places earlier in the new call: after S it starts with message 32 where the last call had message 30, and a prefix must match from the first token on",
                "everything": "that is the whole history's call, which repeats all of the last one; the window drops its oldest turn, so after S the two calls differ",
            },
            why="after S the window's new call starts with message 32 where the last call had message 30, so the shared prefix ends with the system prompt: on turn 60 its 1,664 tokens (13 blocks of 128) are read from the cache and the 173 after them pay the full price, while the whole history's call reads 3,072 from the cache and pays the full price for 101",
            transfer="which part of a sliding window's call a provider's prefix cache can read",
            form='one of "nothing", "the system prompt", "the system prompt and 8 messages" or "everything", in quotes',
        ),
        Expectation(
            "4",
            _check_4,
            hint="count what the thread holds after turn 16 (the summary, the newest 10 and the answer); each turn adds 2: when does a call reach 30 again?",
            mistakes={
                16: "turn 16's call carries the first summary; the question asks for the second",
                25: "turn 25's call holds 29 messages: not yet 30",
                30: "30 counts messages; the question asks for a turn",
                31: "that counts 15 turns again from an empty thread; after turn 16 the thread already holds the summary and the newest 10",
                32: "that counts from an empty thread; after turn 16 the thread already holds the summary and the newest 10",
            },
            why="after turn 16 the thread holds 12 messages and each turn adds 2: turn n's call holds 2n - 21, 31 on turn 26, the first at 30 or more since",
            transfer="when the framework's own summary fires again, on a chat without tools",
        ),
    ],
)
check = BOOK.check
