"""Lesson 3's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from typing import Any

from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.cost import tokens_per_call
from windowmem.examples import ANCHOR_FACTS, generated_support, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.messages import assistant, tool, user
from windowmem.policies import ManualClock, N8nSimpleMemory, SimpleMemoryStore, make_policy
from windowmem.policies.n8n import visible_turns
from windowmem.recall import fact_visible
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter

QWEN = qwen_counter()


def _check_1() -> dict[str, Any]:
    # 1c: Luis's chat of 11 turns (Marta's turns, repeated), replayed through n8n's agent at window 3; the
    # store holds what the last run leaves in the session, whatever the window loads.
    eleven_turns = _plain_chat_messages(11)
    stored = agent_runs(eleven_turns, N8nSimpleMemory(3))[-1].stored_after
    return {"1a": visible_turns(5, 9), "1b": visible_turns(0, 9), "1c": stored}


def _plain_chat_messages(turns: int) -> list[Any]:
    # A chat without tools, long enough to fill the window: Marta's seven turns, repeated.
    marta = load_example("marta")
    return [m for t in range(turns) for m in marta.interactions[t % marta.turn_count].messages]


def _first_turn_without_order(window: int) -> int:
    marta = load_example("marta")
    return next(
        t
        for t in range(2, marta.turn_count + 1)
        if not fact_visible(
            turn_view(marta, N8nSimpleMemory(window), t, QWEN), ANCHOR_FACTS["marta"]
        )
    )


def _marta_with_a_tool_on_turn_3() -> list[Any]:
    # Marta's chat, where the model calls a payments tool once before answering turn 3.
    marta = load_example("marta")
    turns = [list(i.messages) for i in marta.interactions]
    question, answer = turns[2]
    turns[2] = [
        question,
        assistant("", tool_calls=["call_payments_3"]),
        tool('{"bank_transfer": true, "card": true}', "call_payments_3"),
        answer,
    ]
    return [marta.system_message, *(m for turn in turns for m in turn)]


def _first_run_without_order_with_the_tool(window: int) -> int:
    # Through n8n 2.41.1's AI Agent (typeVersion 3.1): what the first model call of each run receives.
    runs = agent_runs(_marta_with_a_tool_on_turn_3(), N8nSimpleMemory(window))
    return next(
        run.turn
        for run in runs[1:]
        if not any(ANCHOR_FACTS["marta"] in m.content for m in run.calls[0].messages)
    )


def _check_2() -> dict[str, Any]:
    marta = load_example("marta")
    plain = [marta.system_message, *_plain_chat_messages(12)]
    # The tool chat as n8n 2.41.1's AI Agent (typeVersion 3.1) runs it: what it stores, loads and cleans up.
    tool_runs = agent_runs(load_example("tool_use"), N8nSimpleMemory(2))
    return {
        "2a": len(turn_view(plain, N8nSimpleMemory(8), 12, QWEN).sent),
        "2b": len(tool_runs[3].calls[0].part(Part.MEMORY)),
    }


def _check_3() -> dict[str, Any]:
    # Two colleagues' copies of the worked agent: one at a window the page has not worked,
    # one at the same window with a tool called on turn 3.
    return {
        "3a": _first_turn_without_order(4),
        "3b": _first_run_without_order_with_the_tool(4),
    }


#: 4b's chat: the same agent with another customer; turn 3's reply names the contact again.
NAMED_AGAIN = " Carlos Ruiz can collect from there."

#: Turns 5 to 8 of 4b's chat: questions and replies that never name the contact.
LATER_TURNS = [
    ("Do you deliver on Saturdays?", "Yes, until noon."),
    ("Is there a minimum order?", "Yes, 20 boxes per delivery."),
    ("Can I order by phone?", "Yes, at the number on our invoices."),
    ("Do you sell frozen dough?", "Yes, in boxes of 50 discs."),
]


def _empanadas_named_again() -> list[Any]:
    # Turns 1 to 4 as in the Empanadas chat, turn 3's reply naming the contact again, then
    # four more turns in which no message names him.
    messages = list(load_example("empanadas").messages)[:9]
    turn_3_answer = 6  # system, then two messages a turn: turn 3's reply is the sixth after it
    messages[turn_3_answer] = assistant(messages[turn_3_answer].content + NAMED_AGAIN)
    return messages + [m for q, a in LATER_TURNS for m in (user(q), assistant(a))]


def _first_turn_without_the_name() -> int:
    chat = _empanadas_named_again()
    name = ANCHOR_FACTS["empanadas"]
    return next(
        t
        for t in range(2, len(LATER_TURNS) + 5)
        if not fact_visible(turn_view(chat, N8nSimpleMemory(3), t, QWEN), name)
    )


def _check_4() -> dict[str, Any]:
    empanadas = load_example("empanadas")
    answer = turn_view(empanadas, N8nSimpleMemory(3), 5, QWEN)
    return {"4a": answer.visible_turns, "4b": _first_turn_without_the_name()}


def _turns_sent(window: int, turns: int) -> int:
    # Earlier turns sent over a chat without tools, one call a turn: what window 5's 285 counts.
    return sum(len(visible_turns(window, t)) for t in range(1, turns + 1))


def _check_5() -> dict[str, Any]:
    support = load_example("support_60")
    # 5b: another generated support chat, 40 turns long, that window 50 never fills.
    forty = generated_support(40)
    bills = {k: sum(tokens_per_call(forty, N8nSimpleMemory(k), QWEN)) for k in (0, 50)}
    against = "higher" if bills[0] > bills[50] else "lower" if bills[0] < bills[50] else "the same"
    return {"5a": _turns_sent(50, support.turn_count), "5b": against}


def _check_6() -> dict[str, Any]:
    marta = load_example("marta")
    spring_view = turn_view(marta, make_policy("spring-ai", 5), 7, QWEN)
    return {"6": len(spring_view.visible_turns)}


def _check_7() -> dict[str, Any]:
    andina = load_example("mentioned_at_start")
    tax_id = ANCHOR_FACTS["mentioned_at_start"]
    reaches = [
        k
        for k in range(1, 13)
        if fact_visible(turn_view(andina, N8nSimpleMemory(k), 12, QWEN), tax_id)
    ]
    return {"7a": _first_buyer_cause(andina), "7b": reaches[0]}


def _first_buyer_cause(chat: Any) -> str:
    # 7a: nine turns at Context Window Length 3 under one session id, b-17; turns 1 to 3 minutes
    # apart, turn 4 after a 70-minute break, turns 5 to 9 minutes apart; turn 9 asks about turn 5.
    turns = [m for m in chat.messages if m.role.value != "system"][:16]
    turn_5 = turns[8]
    history = _after_the_break(turns)
    if turn_5 in history.load():
        return "none of the three"
    if turn_5 in history.stored:
        return "window"
    return "storage"


def _after_the_break(turns: list[Any]) -> Any:
    # The history turn 9 reads under b-17 when the buffer sat idle 70 minutes before turn 4.
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    for turn in range(8):
        if turn == 3:
            clock.advance(minutes=68)
        store.memory("wholesaler", "b-17", context_window_length=3).add(
            *turns[2 * turn : 2 * turn + 2]
        )
        clock.advance(minutes=2)
    return store.memory("wholesaler", "b-17", context_window_length=3)


NEW_MESSAGE = "turn 9 is the new message, sent after the window, not inside it"

BOOK = CheckBook(
    3,
    [
        Expectation(
            "1a",
            _check_1,
            hint="the window holds the k turns before the one being answered",
            mistakes={
                (3, 4, 5, 6, 7, 8): "that is six turns; with k = 5 the window starts at turn 9 − 5",
                (5, 6, 7, 8, 9): NEW_MESSAGE,
                (4, 5, 6, 7, 8, 9): NEW_MESSAGE,
            },
            why="the five turns before turn 9; turn 9 itself is the new message",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="with k = 0, n8n calls slice(-0): what does JavaScript read -0 as, and what does that slice skip?",
            mistakes={
                (): "0 does not switch memory off in n8n: slice(-0) is slice(0), the whole array"
            },
            why="slice(-0) is slice(0), the whole array: 0 means no limit",
            transfer="window 0, a value the rule for k ≥ 1 leaves out",
        ),
        Expectation(
            "1c",
            _check_1,
            hint="does n8n trim what it stores, or only what it loads for the model?",
            mistakes={
                6: "6 is what a window of 3 loads; the store keeps every message",
                11: "each turn stores two messages, the question and the reply",
                3: "3 is the window, in turns; the store is not windowed",
                14: "14 is seven turns; his chat reached turn 11",
            },
            why="eleven questions and eleven replies, all kept: only the load is cut",
            transfer="a chat the page has not stored, at another window",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="the system message, the window (one interaction is two messages), then the new question",
            mistakes={
                16: "16 is the window alone: the system message and turn 12's question are sent too",
                10: "8 interactions are 16 messages, before the system message and the question",
                17: "add turn 12's question: it is sent after the window",
                12: "10 is the default window's load; this one is set to 8",
            },
            why="the system message, 16 loaded messages and the question",
            transfer="another window and turn",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="write turn 3 as n8n stores it, take the last 2 × 2 messages, then apply the clean-up",
            mistakes={
                4: "the window loads 4, but the first of them is a tool result whose call was cut off: it is dropped",
                2: "the answer, the second call and its result stay: only the orphaned result goes",
                5: "n8n stores one assistant message per call, so turn 3 takes 6 places, not 5",
                6: "a window of 2 loads 2 × 2 messages",
                1: "that is a window of 1; this one loads 2 × 2 messages before the clean-up",
            },
            why="the window's first message is the result of the first stock call, whose call was cut off",
            transfer="a turn with tool calls",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="at window 4 the window on turn t starts at turn t − 4",
            mistakes={
                5: "on turn 5 a window of 4 is turns 1 to 4: turn 1 is still in it",
                7: "that is window 5's turn; a smaller window lets turn 1 go sooner",
            },
            why="turn 6's window starts at turn 2, and the number was on turn 1",
            transfer="another window length on the worked conversation",
        ),
        Expectation(
            "3b",
            _check_3,
            hint="n8n loads the last 2 × 4 stored messages: write out what is stored before each turn, with turn 3 taking 4 places",
            mistakes={
                6: "that is the copy without the tool; turn 3's call and result take 2 of the window's 8 places",
                4: "before turn 4 only 8 messages are stored, and a window of 4 loads 8: turn 1 is still in",
                7: "that is window 5's turn without tools; a smaller window with a tool turn lets turn 1 go sooner",
            },
            why="before turn 5, turns 2 to 4 fill the 8 places (turn 3 takes 4), so turn 1 is left out",
            transfer="a tool turn on the worked conversation: the window counts messages",
        ),
        Expectation(
            "4a",
            _check_4,
            hint="on turn t the window starts at turn t − k",
            mistakes={
                (1, 2, 3): "that was the window on turn 4; turn 4's answer has been stored since",
                (2, 3, 4, 5): "turn 5 is the new message, not part of the window",
                (3, 4): "a window of 3 holds three turns once it is full",
            },
            why="the three turns before turn 5",
            transfer="another agent's conversation at window 3",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="the model receives messages, not turn numbers: which turns' messages name him, and on which turn does the last of them leave a window of 3?",
            mistakes={
                5: "turn 1 leaves the window on turn 5, but turn 3's reply names him too, and turn 3 is still in it",
                6: "on turn 6 a window of 3 is turns 3 to 5: turn 3's reply is still sent",
                4: "on turn 4 a window of 3 is turns 1 to 3: both messages naming him are sent",
                8: "one turn late: on turn t a window of 3 starts at turn t − 3",
            },
            why="turn 3's reply keeps the name in the window until turn 3 itself leaves: where a fact was first said does not matter",
            transfer="a fact said again inside the window, on a longer chat",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="turn t sends the smaller of t − 1 and 50 earlier turns: add them up over the 60 calls",
            mistakes={
                2850: "that is ten times window 5's count, but window 50 is full only from turn 51 on",
                3000: "turn t can send at most the t − 1 turns before it: the early calls send fewer than 50",
                2950: "turn t can send at most the t − 1 turns before it: the early calls send fewer than 50",
                1770: "that is every earlier turn on every call, window 0; window 50 stops growing at 50",
                1275: "that stops at turn 51; turns 52 to 60 send 50 earlier turns each too",
                1224: "turn 51 already sends 50 turns: count the growing calls up to turn 51",
            },
            why="0 to 50 on turns 1 to 51, then 50 on each of the last nine: about six times window 5's, not ten",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="on which call of a 40-turn chat would window 50 leave a turn out?",
            mistakes={
                "lower": "0 is not an empty window in n8n: it loads every earlier turn",
                "higher": "window 0 sends more only on a call where window 50 leaves a turn out; a 40-turn chat has no such call",
            },
            why="window 50 never fills on 40 turns, so both send every earlier turn on every call",
            transfer="window 0 priced on a chat a window of 50 never fills",
        ),
        Expectation(
            "6",
            _check_6,
            hint="what does the memory hold when turn 7 starts, before its question is stored? 5 messages is two and a half turns",
            mistakes={
                5: "5 counts messages in Spring AI, not interactions",
                3: "Spring AI 2.0.1 moves the cut forward to the next user message, so turn 4's lone answer goes",
            },
            why="5 messages hold two whole turns, and 2.x drops the half turn",
            transfer="another product, which counts messages",
        ),
        Expectation(
            "7a",
            _check_7,
            hint="list what the buffer under b-17 holds when turn 9 runs, after the lunch break, then which of those turns a length of 3 loads",
            mistakes={
                "storage": "the idle hour emptied the buffer before turn 4, but turn 5 was stored after that, in the buffer turn 9 reads; count which of its turns a length of 3 loads",
                "scope": "the log shows the same session id, b-17, on every run: one history",
            },
            why="turn 5 was stored after the break, in the history turn 9 reads, but a window of 3 loads turns 6 to 8 only",
            transfer="a log with an idle-hour deletion that is not the cause",
        ),
        Expectation(
            "7b",
            _check_7,
            hint="turn 12 sees the k turns just before it; which k first reaches back to turn 1?",
            mistakes={
                12: "one too many: turn 12 itself is the new message, sent after the window",
                5: "5 is the default, and it is exactly why she is forgotten",
                0: "0 does show it, but the question asks for 1 or more",
                10: "one short: 12 − 10 = 2, so turn 1 is just outside",
            },
            why="turn 1 is in view when 12 − k ≤ 1",
            transfer="a new conversation of 12 turns",
        ),
    ],
)
check = BOOK.check
