"""Lesson 5's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem.calls.agent_calls import agent_runs
from windowmem.design.anchor_facts import turns_reached
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import default_lineup, questions_and_answers, side_by_side
from windowmem.design.units import (
    n8n_loaded_messages,
    stored_turn_sizes,
    tool_calls_per_turn,
    turns_in_window,
)
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.messages import Message, Role, assistant, tool, user
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.n8n.memory_manager import (
    ManagerMessage,
    insert,
    load,
    stored_history,
)
from windowmem.tokens import count_all, qwen_counter

count_tokens = qwen_counter()
chat = load_example("two_orders")
fact = ANCHOR_FACTS["two_orders"]
sizes = stored_turn_sizes(tool_calls_per_turn(chat.messages))


@cache
def _rows() -> Any:
    # Every product's call on every turn of the two-orders chat (section 3's table).
    return side_by_side(chat, default_lineup(count_tokens))


def _check_1() -> dict[str, Any]:
    spring_turns = turns_in_window(
        20, stored_turn_sizes([0] * 30, stores_tool_calls=False)
    ).whole_turns
    return {"1": spring_turns}


def _check_2() -> dict[str, Any]:
    coverage = turns_in_window(n8n_loaded_messages(5), sizes[:8])
    turn_9_call = agent_runs(chat, N8nSimpleMemory(5))[8].calls[0]
    three_calls_a_turn = stored_turn_sizes([STOCK_CALLS] * 20)
    sized = min(
        k
        for k in range(1, 40)
        if turns_in_window(n8n_loaded_messages(k), three_calls_a_turn).whole_turns >= 3
    )
    return {"2a": coverage.whole_turns, "2b": min(turn_9_call.memory_turns), "2c": sized}


#: Self-check 2d's price of a stored message or a question, in tokens.
TOKENS_PER_MESSAGE = 50
#: Self-check 2c's agent: tool calls asked at once in one model round, every turn
#: (stock, price and delivery date).
STOCK_CALLS = 3


def _stock_chat(turns: int) -> list[Message]:
    # The stock-checking agent of 2c: its tool calls asked at once, every turn.
    out: list[Message] = []
    for t in range(1, turns + 1):
        ids = tuple(f"call_{t}{c}" for c in "abc"[:STOCK_CALLS])
        out += [
            user(f"Is item {t} in stock, at what price, and when can it come?"),
            assistant("", ids),
            *(tool(f'{{"answer": "{c}"}}', c) for c in ids),
            assistant(f"Item {t}: 3 in stock, 45,000 pesos, here on Friday."),
        ]
    return out


def _turn_price(k: int) -> int:
    # Every model call of the last turn of a long chat, each message at the flat price.
    last = agent_runs(_stock_chat(12), N8nSimpleMemory(k))[-1]
    return sum(count_all(call.messages, lambda _: TOKENS_PER_MESSAGE) for call in last.calls)


@cache
def _check_2d() -> dict[str, Any]:
    sized = _check_2()["2c"]
    return {"2d": _turn_price(sized) - _turn_price(5)}


def _mistakes_2d() -> dict[Any, str]:
    sized = _check_2()["2c"]
    right = _check_2d()["2d"]
    calls = len(agent_runs(_stock_chat(12), N8nSimpleMemory(5))[-1].calls)
    raw = (n8n_loaded_messages(sized) - n8n_loaded_messages(5)) * TOKENS_PER_MESSAGE
    return {
        right
        // calls: "that is one model call; a turn with a tool round calls the model again with the tool results, and each call loads the memory anew",
        raw
        * calls: "the default window's ten messages start inside a turn: look at what the clean-up leaves of them",
        raw: "that is one model call, and the default window's ten messages start inside a turn: look at what the clean-up leaves of them",
    }


def _check_3() -> dict[str, Any]:
    rows = _rows()
    return {
        "3a": turns_reached(rows, fact, "n8n"),
        "3b": max(turns_reached(side_by_side(chat, [N8nSimpleMemory(10)]), fact, "n8n")),
    }


#: Self-check 4 reads the store after this many of Valentina's turns.
STORED_TURNS = 4


def _check_4() -> dict[str, Any]:
    runs = agent_runs(chat, N8nSimpleMemory(5))[:STORED_TURNS]
    store = stored_history([m for run in runs for m in run.saved])
    # A typeVersion 2.2 agent stores only each turn's question and answer; then the workflow
    # inserts one note of type ai with the Chat Memory Manager.
    older = stored_history(
        [
            m
            for turn in questions_and_answers(chat).interactions[:STORED_TURNS]
            for m in turn.messages
            if m.role is not Role.SYSTEM
        ]
    )
    noted = insert(older, [ManagerMessage("Customer prefers deliveries after 5 pm", "ai")])
    return {"4a": load(store).messages_count, "4b": load(noted).messages_count}


def _check_5() -> dict[str, Any]:
    long_chat = load_example("support_60")
    eight_turns = [m for turn in long_chat.interactions[:8] for m in turn.messages]
    fits = [
        r
        for r in range(7)
        if rolling_summary(eight_turns, window=5, every=6, keep_turns=r)[7].summary_sent
    ]
    keeping_three = rolling_summary(long_chat, window=5, every=3, keep_turns=3)
    return {"5a": max(fits), "5b": sum(1 for t in keeping_three if t.summary_sent is False)}


def _check_6() -> dict[str, Any]:
    valentina_schedule = rolling_summary(
        chat, window=5, every=4, keep_turns=1, counter=count_tokens
    )
    return {"6": next(t.turn for t in valentina_schedule if t.summary_sent is False)}


#: Self-check 7's n8n window, moved to Spring AI.
MIGRATED_K = 10


def _check_7() -> dict[str, Any]:
    # n8n's window for an agent that makes two tool calls at once every turn, carried to
    # Spring AI, whose advisor (default place) stores question and answer, tools or not.
    n8n_turns = turns_in_window(
        n8n_loaded_messages(MIGRATED_K), stored_turn_sizes([2] * 40)
    ).whole_turns
    spring = stored_turn_sizes([2] * 40, stores_tool_calls=False)
    return {
        "7": min(m for m in range(1, 81) if turns_in_window(m, spring).whole_turns >= n8n_turns)
    }


BOOK = CheckBook(
    5,
    [
        Expectation(
            "1",
            _check_1,
            hint="the advisors store the question and the final answer of each turn",
            mistakes={
                20: "20 counts messages, and each turn leaves two",
                5: "5 is n8n's default, counted in pairs of messages; Spring AI counts messages",
                40: "each turn leaves two messages: a window of messages holds fewer turns than messages, not more",
            },
            why="twenty messages at two per turn",
            transfer="Spring AI's default, in turns",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="add the stored sizes from turn 8 backwards until the next one no longer fits in 10",
            mistakes={
                5: "5 would be right if every turn were two messages; count the tool messages",
                4: "turn 5's four messages do not all fit: only part of it is loaded",
            },
            why="from turn 8 back, 2 + 2 + 4 = 8 messages fit and turn 5's four do not all fit",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="the window ends inside one turn; which of that turn's messages survive the clean-up?",
            mistakes={
                6: "the window also holds the tail of an older turn; check which of those messages survive the clean-up",
                4: "turn 4 is entirely outside the ten messages",
            },
            why="the cut leaves part of an older turn, and the clean-up drops its orphaned tool messages",
            transfer="the clean-up of orphans at the window's edge",
        ),
        Expectation(
            "2c",
            _check_2,
            hint="count the messages one turn with two tool calls stores, then the 2 × k places three such turns need",
            mistakes={
                3: "3 counts turns; n8n's field counts pairs of messages, and a tool turn stores more than two",
                6: "that would hold three turns of two messages each; these turns store their tool calls too",
                9: "that holds three turns of two tool calls each; this agent asks for three",
                8: "each call stores two messages, the assistant's request and the tool's result, besides the question and the answer",
                24: "24 is the number of messages; Context Window Length is half the messages it loads",
            },
            why="each turn stores 2 + 2 × 3 = 8 messages, so three need 24 places: 2 × 12",
            transfer="sizing a window for an agent with tool calls in every turn",
        ),
        Expectation(
            "2d",
            _check_2d,
            hint="count the messages each model call of one turn loads at both windows, after the clean-up, and how many model calls a turn makes",
            mistakes=_mistakes_2d,
            why="both of the turn's model calls load 24 messages instead of the 9 the clean-up leaves of the default's 10",
            transfer="pricing a window chosen for tool turns",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="turn 1 leaves the window once the turns after it fill ten messages; add up the sizes, and remember the call of turn 1 itself",
            mistakes={
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "that would be five turns of two messages each; turns 2 and 3 stored four and six",
                (
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "on turn 1 the fact is in the user's own message, which is sent too",
            },
            why="the fact was said on turn 1, so only calls whose window still reaches turn 1 carry it",
        ),
        Expectation(
            "3b",
            _check_3,
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
            "4a",
            _check_4,
            hint="write the types out in order (human, ai, tool, …) and start a new group whenever a type repeats; tool turns repeat 'ai'",
            mistakes={
                16: "16 is the number of messages; Simplify Output groups them",
                4: "groups follow repeated types, not turns: a tool turn's answer repeats the type 'ai'",
                7: "turn 3's two calls are two assistant messages, each followed by its result: each repeats 'ai'",
                10: "the window's ten messages play no part: the Manager reads the whole store",
                15: "that is the store after all nine turns; the question stops after turn 4",
            },
            why="Simplify Output groups the stored messages: a turn adds one group, plus one per tool call",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="write the older agent's store out, question, answer, question, …, then the note, and start a new group whenever a type repeats",
            mistakes={
                4: "a group closes when a type repeats: does the note's type already sit in the last group?",
                9: "9 is the number of messages; Simplify Output groups them",
                8: "that is the typeVersion 3.1 agent's store; the older agent stores no tool messages",
                1: "a group closes when a type repeats: each new question repeats 'human'",
            },
            why="each question repeats 'human', so every turn is one group, and the note repeats 'ai'",
            transfer="the Chat Memory Manager over an older agent's store, with an inserted note",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="count the slots: the summary, two per kept turn, two for the new turn, against 10",
            mistakes={
                5: "1 + 10 is already more than 10: the summary is cut at once",
                4: "1 + 8 + 2 = 11 messages: one too many for the summary to stay",
            },
            why="the summary and r turns, plus one more turn, must fit in 10 messages",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="after each override the store is the summary and three turns; count what each of the next three calls loads",
            mistakes={
                0: "the call two turns after the override still fits; count the third, which comes before the next override",
                57: "the summary is cut only on some calls: the override brings it back",
                38: "that counts the calls that send the summary; the question asks for those that miss it",
                18: "count the last call too: turn 60 comes three turns after the override of turn 57",
            },
            why="1 + 6 + 2 + 2 = 11 messages on the third call after each override: one too many, once every three turns",
            transfer="lesson 3's 60-turn chat under a rolling summary that keeps three turns",
        ),
        Expectation(
            "6",
            _check_6,
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
            "7",
            _check_7,
            hint="convert n8n's window to whole turns first (how many messages does each of these turns store there?), then those turns to Spring AI's messages",
            mistakes={
                20: "2 × k is the messages n8n loads, and there each turn stores its tool messages; Spring AI's advisor stores fewer per turn",
                10: "that carries the number over: n8n counts pairs of messages, Spring AI messages",
                3: "that is the whole turns n8n keeps; maxMessages counts messages",
                8: "n8n's window holds only the end of the oldest of those turns: count whole turns",
                7: "that keeps them, but one message fewer does too",
            },
            why="n8n's 20 messages hold three whole turns of 6; Spring AI stores each as a question and an answer",
            transfer="a migration from n8n to Spring AI, with tool calls",
        ),
    ],
)
check = BOOK.check
