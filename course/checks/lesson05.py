"""Lesson 5's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem.design.anchor_facts import turns_reached
from windowmem.design.money import design_costs, support_designs
from windowmem.design.side_by_side import framework_lineup, side_by_side
from windowmem.design.sizing import calls_sent, parallel_tool_chat, smallest_window
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.policies.langgraph import LangChainSummarization
from windowmem.prices import price_of
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
#: Self-check 2's window, the size section 1's fix gives (4 earlier turns of 5 messages):
#: ``max_tokens`` of the lesson's ``keep_last_10``, and the larger window of section 2's table.
LARGER_WINDOW = 24


def _check_2() -> dict[str, Any]:
    larger = LangChainTrimState(LARGER_WINDOW, counter=count_messages)
    return {"2": turns_reached(side_by_side(chat, [larger]), fact, larger.name)}


def _check_4() -> dict[str, Any]:
    # Going further's check: the turns whose call is shorter than the call before: each a new summary replaced the
    # thread's older messages (turns 16, 26, 36, ...), on a chat without tools.
    middleware = LangChainSummarization(10, trigger_tokens=None, trigger_messages=30)
    sizes = [len(sent) for sent in calls_sent(parallel_tool_chat(40, calls=0), middleware)]
    summarised = [turn for turn in range(2, len(sizes) + 1) if sizes[turn - 1] < sizes[turn - 2]]
    return {"4": summarised[1]}


@cache
def _check_3() -> dict[str, Any]:
    # Lucía's 60 turns on GPT-5.4 mini, every call within the cache's lifetime of the last: the
    # window of 10 against the whole history, "about the same" within 5% either way.
    costs = {
        c.design: c.dollars
        for c in design_costs(
            support_designs(count_tokens)[:2], count_tokens, [price_of("gpt-5.4-mini")]
        )
    }
    ratio = float(costs["window of 10 messages"] / costs["whole history"])
    if ratio < 1 - SAME_WITHIN:
        return {"3": "much cheaper"}
    return {"3": "about the same" if ratio <= 1 + SAME_WITHIN else "much dearer"}


#: Self-check 3's "about the same": within 5% of the whole history's bill.
SAME_WITHIN = 0.05


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
            hint="add up the stored counts turn by turn; turn 1 leaves once the earlier turns and this turn's messages so far pass 24 at some call (the answering call holds the question, the call and its result)",
            mistakes={
                (1, 2, 3): "that is the window of 10 the cell ran; this one keeps 24 messages",
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "turn 7's answering call holds turns 1 to 6 (21 messages) and its question, call and result: 24, which still fits",
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                    7,
                    8,
                ): "on turn 8 the thread holds turns 1 to 7, 25 messages, before the question: more than 24",
                (
                    2,
                    3,
                    4,
                    5,
                    6,
                    7,
                ): "on turn 1 the fact is in the user's own message, which is sent too",
            },
            why="the stored turns are 2, 4, 5, 4, 4, 2, 4 messages: turn 7's answering call holds 21 + 3 = 24, turn 8's first call 25 + 1 = 26, so only calls up to turn 7 still reach turn 1",
            transfer="when a fact said on turn 1 leaves a window of tool turns, turn by turn",
        ),
        Expectation(
            "3",
            _check_3,
            hint="compare what each design pays the full price for on one call, and what it reads from the cache at a tenth of it",
            mistakes={
                "much cheaper": "that is what a count of tokens suggests, and it holds once the cache has expired; with the cache warm, the whole history reads its older turns at a tenth of the price, while the window pays the full price for its 10 messages on every call, since they never match the call before",
                "much dearer": "the window pays the full price for more tokens a call than the whole history does, but the whole history reads ever more cached tokens: over the chat the two nearly cancel out",
            },
            why="with the cache warm, the window of 10 costs $20.23 per 1,000 chats against $20.11 for the whole history, 0.6% more: the whole history's older turns are read from the cache at a tenth of the price, and the window's 10 messages pay the full price on every call",
            transfer="whether a shorter window saves money once the provider's prompt cache is counted",
            form='one of "much cheaper", "about the same" or "much dearer", in quotes',
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
