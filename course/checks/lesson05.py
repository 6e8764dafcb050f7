"""Lesson 5's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem.calls.agent_calls import agent_runs
from windowmem.design.anchor_facts import turns_reached
from windowmem.design.money import design_costs, support_designs
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import framework_lineup, side_by_side
from windowmem.design.sizing import parallel_tool_chat, smallest_window
from windowmem.design.units import (
    n8n_loaded_messages,
    stored_turn_sizes,
    tool_calls_per_turn,
    turns_in_window,
)
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.tokens import count_messages, qwen_counter

count_tokens = qwen_counter()
chat = load_example("two_orders")
fact = ANCHOR_FACTS["two_orders"]
sizes = stored_turn_sizes(tool_calls_per_turn(chat.messages))


@cache
def _rows() -> Any:
    # The six frameworks' call on every turn of the two-orders chat (section 2's table).
    return side_by_side(chat, framework_lineup())


def _check_1() -> dict[str, Any]:
    coverage = turns_in_window(n8n_loaded_messages(5), sizes[:8])
    turn_9_call = agent_runs(chat, N8nSimpleMemory(5))[8].calls[0]
    # 1c: the smallest max_tokens whose every model call of turn 12 (the tool round and the
    # answer) still sends the last 3 turns whole, found by trying each size on the model.
    sized = smallest_window(
        parallel_tool_chat(12, calls=STOCK_CALLS),
        lambda n: LangChainTrimState(n, counter=count_messages),
        12,
        3,
    )
    return {"1a": coverage.whole_turns, "1b": min(turn_9_call.memory_turns), "1c": sized}


#: Self-check 1c's agent: tool calls asked at once in one model round, every turn
#: (stock, price and delivery date).
STOCK_CALLS = 3


def _check_2() -> dict[str, Any]:
    rows = _rows()
    return {
        "2a": turns_reached(rows, fact, "langchain-trim-state"),
        "2b": max(turns_reached(side_by_side(chat, [N8nSimpleMemory(10)]), fact, "n8n")),
    }


def _check_3() -> dict[str, Any]:
    long_chat = load_example("support_60")
    eight_turns = [m for turn in long_chat.interactions[:8] for m in turn.messages]
    fits = [
        r
        for r in range(7)
        if rolling_summary(eight_turns, window=5, every=6, keep_turns=r)[7].summary_sent
    ]
    valentina_schedule = rolling_summary(
        chat, window=5, every=4, keep_turns=1, counter=count_tokens
    )
    return {
        "3a": max(fits),
        "3b": next(t.turn for t in valentina_schedule if t.summary_sent is False),
    }


@cache
def _check_4() -> dict[str, Any]:
    costs = {
        c.design: c.dollars
        for c in design_costs(support_designs(count_tokens)[:4], count_tokens)
        if c.model == "GPT-5.4 mini"
    }
    asked = {name: costs[design] for name, design in CHECK_4_DESIGNS.items()}
    return {"4": max(asked, key=asked.__getitem__)}


#: Self-check 4's three answers, each the design it names in the lesson's table.
CHECK_4_DESIGNS = {
    "whole history": "whole history",
    "window of 10": "window of 10 messages",
    "window of 40": "window of 40 messages",
}


BOOK = CheckBook(
    5,
    [
        Expectation(
            "1a",
            _check_1,
            hint="add the stored sizes from turn 8 backwards until the next one no longer fits in 10",
            mistakes={
                5: "5 would be right if every turn stored two messages; count the tool messages",
                4: "turn 5's four messages do not all fit: only part of it is loaded",
                10: "10 counts messages; the question asks for whole turns",
            },
            why="from turn 8 back, 2 + 4 + 2 = 8 messages fit and turn 5's four do not all fit",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="the window ends inside one turn; which of that turn's messages survive the clean-up?",
            mistakes={
                6: "the window also holds the tail of an older turn; check which of those messages survive the clean-up",
                4: "turn 4 is entirely outside the ten messages",
            },
            why="the cut leaves part of an older turn, and the clean-up drops its orphaned tool result",
        ),
        Expectation(
            "1c",
            _check_1,
            hint="the trim runs before each model call of the turn; find the call at which the thread is fullest and count what it holds",
            mistakes={
                3: "3 counts turns; max_tokens counts messages here (token_counter=len)",
                18: "18 holds three turns of 6, but max_tokens also counts what the current turn has put in the thread",
                19: "19 is enough for the turn's first call, but the trim runs again before the answering call, when the thread also holds this turn's tool-call message and three results: that call keeps only two whole turns, and the rewrite deletes the third from the saved thread",
                24: "one too many: before the answering call the thread holds this turn's question, its call message and its three results, but not yet its answer",
                25: "LangChain's one AI message carries all three calls: a turn stores 6, not 8",
                31: "LangChain's one AI message carries all three calls: a turn stores 6, not 8",
                12: "12 would be n8n's Context Window Length; this agent is LangChain's",
            },
            why="a turn stores 1 + 1 + 3 + 1 = 6 messages; the answering call's thread holds three of them (18) and the current turn's 5 messages before its answer: 23",
            transfer="sizing a LangChain window for an agent with tool calls in every turn",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="turn 1 leaves LangChain's window once the stored turns after it and the new question fill ten messages; add up the sizes, and remember the call of turn 1 itself",
            mistakes={
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "that would be five turns of two messages each; LangChain stored turns 2 and 3 as four and five",
                (
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "on turn 1 the fact is in the user's own message, which is sent too",
                (
                    1,
                    2,
                    3,
                    4,
                ): "on turn 4, turns 1 to 3 are 11 stored messages and the question makes 12: more than 10",
            },
            why="the fact was said on turn 1, so only calls whose window, new question included, still reaches turn 1 carry it",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="the window now loads 20 messages; add up the stored sizes of the turns before each call until they pass 20",
            mistakes={
                10: "k = 10 is ten pairs of messages, ten turns only if each stored two; tool turns take more places",
                9: "turn 9's call loads the last 20 of 30 stored messages, and turn 1 is not among them",
                5: "on turn 6 the stored turns 1 to 5 are exactly 20 messages: turn 1 still fits",
            },
            why="turns 1 to 5 fill the 20 places exactly, so turn 6 is the last call that reaches turn 1",
            transfer="a larger window on a chat with tool turns",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="count the slots: the summary, two per kept turn, two for the new turn, against 10",
            mistakes={
                5: "1 + 10 is already more than 10: the summary is cut at once",
                4: "1 + 8 + 2 = 11 messages: one too many for the summary to stay",
            },
            why="the summary and r turns, plus one more turn, must fit in 10 messages",
        ),
        Expectation(
            "3b",
            _check_3,
            hint="after the override the store is the summary and one turn; add each later turn's stored size",
            mistakes={
                7: "a call loads what was stored before it, and the kept turn goes back as question and answer only: count again from the override",
                6: "that is where a summary written every 3 turns is first cut; this one is written after turn 4",
                5: "turn 5's call loads the override's 3 messages: the summary is there",
                9: "turn 9's call comes after the override of turn 8, which brings the summary back",
            },
            why="tool turns stored as four or six messages push the summary out sooner",
            transfer="a summary schedule on a chat with tool turns",
        ),
        Expectation(
            "4",
            _check_4,
            hint="once a window is full, ask which of its tokens the cache can still serve, and how many a call pays at the full price",
            mistakes={
                "whole history": "it sends the most tokens, but all of it except the newest turn was sent before and is read from the cache at a tenth of the price",
                "window of 10": "a full window loses the cache past the system prompt, but this one pays the full price for only 10 messages a call; which design pays it for more?",
            },
            why="a full window changes the prefix right after the system prompt on every call, so all its messages pay the full price: 40 of them cost more than the whole history, which is read almost entirely from the cache",
            transfer="a longer window priced with the prompt cache, on a long chat with a long system prompt",
            form='one of "whole history", "window of 10" or "window of 40", in quotes',
        ),
    ],
)
check = BOOK.check
