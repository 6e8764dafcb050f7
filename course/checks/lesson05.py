"""Lesson 5's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from windowmem.design.anchor_facts import turns_reached
from windowmem.design.money import support_designs
from windowmem.design.side_by_side import framework_lineup, side_by_side
from windowmem.design.sizing import calls_sent, parallel_tool_chat, smallest_window
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.policies.langgraph import LangChainSummarization
from windowmem.prices import call_cost, conversation_bill, price_of, without_cache
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
#: Self-check 2's larger window, the size section 1's rule gives (4 earlier turns of 5 messages):
#: ``max_tokens`` of the lesson's ``keep_last_10``; turn 7 is the last to send turn 1.
LARGER_WINDOW = 24


#: Going further's turn 10: Valentina corrects the order number she gave on turn 1.
CORRECTION = "Sorry, I mistyped on turn 1. My first order is #4471."
#: Self-check 4's turn 11 (Going further): a second order number, not a correction.
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
    """What the lesson's newest-first remember_order (Going further's "A fact that changes")
    keeps after *questions*: on every call the newest user message holding a number wins, so
    each turn whose question holds one replaces the saved order."""
    saved = None
    for question in questions:
        if found := ORDER_NUMBER.search(question):
            saved = found.group()
    return saved


def _check_2() -> dict[str, Any]:
    # Section 2: keep_last_10 at max_tokens=24, on Valentina's chat: the last turn any of whose
    # calls still sends turn 1 (and so #4417), by windowmem's model of the middleware.
    larger = LangChainTrimState(LARGER_WINDOW, counter=count_messages)
    return {"2": max(turns_reached(side_by_side(chat, [larger]), fact, larger.name))}


#: Self-check 3's chats: the users reply further apart than the cache lasts (every call is
#: priced with nothing read from the cache), and a chat runs this many turns.
DECISION_TURNS = 20
#: Self-check 3's answers, by the name of the design in windowmem.design.money.
DESIGN_ANSWERS = {
    "whole history": "whole history",
    "window of 10 messages": "window",
    "window of 10, order pinned": "pinned window",
}


def decision_costs(warm: bool = False) -> dict[str, tuple[float, bool]]:
    """Self-check 3: each design's first DECISION_TURNS calls of Lucía's chat, in US$ per 1,000
    chats, with the cache warm (replies within a minute) or expired (*warm* False: replies 30
    minutes apart), and whether every one of those calls sends #7781."""
    listed = price_of("gpt-5.4-mini")
    model = listed if warm else without_cache(listed)
    fact_60 = ANCHOR_FACTS["support_60"]
    out = {}
    for name, conversation, policy in support_designs(count_tokens)[:3]:
        calls = conversation_bill(conversation, policy, model, count_tokens).calls
        dollars = sum(call_cost(c, model) for c in calls[:DECISION_TURNS]) * 1000
        system = conversation.messages[0]
        sent = calls_sent(conversation.messages, policy)[:DECISION_TURNS]
        keeps = all(
            fact_60 in str(system.content) or any(fact_60 in str(m.content) for m in call)
            for call in sent
        )
        out[DESIGN_ANSWERS[name]] = (float(dollars), keeps)
    return out


@cache
def turn_1_gone() -> dict[str, int]:
    """Self-check 3's worked answer: on Lucía's chat, the first turn whose call sends nothing of
    turn 1 (her question with #7781 and its answer), under section 3's window of exactly 10
    messages and under section 1's ``keep_last_10``, which also starts the kept 10 on a question."""
    messages = support_designs(count_tokens)[1][1].messages  # messages[0] is the system prompt
    turn_1 = {str(m.content) for m in messages[1:3]}
    windows = {
        "window of 10": support_designs(count_tokens)[1][2],
        "keep_last_10": LangChainTrimState(10, counter=count_messages),
    }
    return {
        name: next(
            turn
            for turn, sent in enumerate(calls_sent(messages, policy), 1)
            if not any(str(m.content) in turn_1 for m in sent)
        )
        for name, policy in windows.items()
    }


_WARM_WHOLE = (
    "with replies within a minute the cache is warm: the whole history reads its old messages"
    " at a tenth of the price, costs less than a pinned window over 20 turns, and keeps every fact"
)
_COLD_PINNED = (
    "30 minutes is longer than the cache lasts, so every old message pays the full price;"
    " a window sends at most 10 of them, and the pin keeps the order number"
)


def _check_3_mistakes() -> dict[Any, str]:
    gone = turn_1_gone()
    window = (
        f"a plain window sends nothing of turn 1 from turn {gone['keep_last_10']} on with"
        f" keep_last_10 (from turn {gone['window of 10']} with section 3's window of exactly 10),"
        " so the order number is gone long before turn 20"
    )
    return {
        (
            "pinned window",
            "pinned window",
        ): f"right for the second shop; for the first, {_WARM_WHOLE}",
        (
            "whole history",
            "whole history",
        ): f"right for the first shop; for the second, {_COLD_PINNED}",
        (
            "pinned window",
            "whole history",
        ): "the two are swapped: the cache is warm only at the first shop",
        ("whole history", "window"): f"right for the first shop; for the second, {window}",
        ("window", "pinned window"): f"right for the second shop; for the first, {window}",
        ("window", "window"): window,
    }


def _check_3() -> dict[str, Any]:
    # For each shop, the cheapest design whose every call sends the order number: replies
    # within a minute (the cache warm), then replies 30 minutes apart (the cache expired).
    chosen = []
    for warm in (True, False):
        costs = decision_costs(warm)
        keeping = {name: dollars for name, (dollars, keeps) in costs.items() if keeps}
        chosen.append(min(keeping, key=keeping.get))
    return {"3": tuple(chosen)}


def _check_4() -> dict[str, Any]:
    questions = [turn.messages[0].content for turn in chat.interactions]
    pinned = pinned_newest([*questions, CORRECTION, NEW_ORDER])
    assert pinned is not None
    return {"4": int(pinned.removeprefix("#"))}


def _check_5() -> dict[str, Any]:
    # Going further's check: the turns whose call is shorter than the call before: each a new summary replaced the
    # thread's older messages (turns 16, 26, 36, ...), on a chat without tools.
    middleware = LangChainSummarization(10, trigger_tokens=None, trigger_messages=30)
    sizes = [len(sent) for sent in calls_sent(parallel_tool_chat(40, calls=0), middleware)]
    summarised = [turn for turn in range(2, len(sizes) + 1) if sizes[turn - 1] < sizes[turn - 2]]
    return {"5": summarised[1]}


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
            hint="use section 1's printout: turn 1 is sent while the fullest call of a turn (its answering call) still fits it within 24 messages; add up what turns 1 to n - 1 stored, then this turn's messages before its answer",
            mistakes={
                8: "turn 8 is the first turn whose calls no longer send turn 1: its first call holds turns 1 to 7 (25 messages) and its question, 26, over 24; the question asks for the last turn that still sends it",
                5: "that counts every turn as 5 messages, the rule's largest turn; most of her turns store fewer, so 24 reaches further back",
                4: "4 is how many earlier turns the rule guarantees, not the last turn that still sends turn 1",
                9: "turn 9's calls hold turns 1 to 8, 27 messages before its question, over 24: turn 1 is gone by then",
            },
            why="turn 7's answering call holds turns 1 to 6 (21 messages) and its question, tool request and result: 24, so turn 1 still fits; turn 8's first call holds turns 1 to 7 (25) and its question, 26, so turn 1 goes. A larger window only moves the loss later",
            transfer="where a larger LangChain window first loses a fact from turn 1, on a chat with tool turns of different sizes",
        ),
        Expectation(
            "3",
            _check_3,
            hint="for each shop, compare its reply gap with how long OpenAI's cache keeps a call, then ask which designs still send the order number on turn 20",
            mistakes=_check_3_mistakes,
            why="within a minute the cache is warm, so the whole history pays a tenth for its old messages, costs less than the pinned window and keeps every fact; 30 minutes apart the cache has expired, every token pays in full, the window sends fewer, and the pin keeps the order number for 12 tokens more",
            transfer="choosing a design by how far apart replies come, against how long the prompt cache lasts",
            form='a list of two designs in quotes, the first shop\'s then the second\'s, each "whole history", "window" or "pinned window"',
        ),
        Expectation(
            "4",
            _check_4,
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
            "5",
            _check_5,
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
