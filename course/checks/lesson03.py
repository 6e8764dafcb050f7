"""Lesson 3's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from windowmem.budget.corpus import help_centre
from windowmem.calls.agent_calls import agent_runs
from windowmem.conversation import Conversation
from windowmem.examples import ANCHOR_FACTS, generated_support, load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.messages import assistant, tool, user
from windowmem.policies import ManualClock, N8nSimpleMemory, SimpleMemoryStore
from windowmem.policies.n8n import visible_turns
from windowmem.prices import behind_system_message, conversation_bill, price_of, without_cache
from windowmem.recall import fact_visible
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter

QWEN = qwen_counter()


#: The turn Luis's self-check 6 asks about.
LUIS_TURN = 9
#: Self-check 6: the turn on which the model calls one tool before answering Luis.
LUIS_TOOL_TURN = 5

#: Self-check 1: Luis's chat begins at the default length 5; after his turn RAISED_AFTER the field
#: is raised to NEW_LENGTH; he is away AWAY_HOURS between turns AWAY_BEFORE - 1 and AWAY_BEFORE;
#: the check asks about turn ASKED_ON.
START_LENGTH = 5
RAISED_AFTER = 2
NEW_LENGTH = 8
AWAY_BEFORE = 6
AWAY_HOURS = 2
ASKED_ON = 12


def luis_after_the_break() -> tuple[int, ...]:
    """The turns Luis's turn 12 loads, through n8n 2.41.1's one map of Simple Memory buffers:
    his buffer is made at length 5 on turn 1; from turn 3 on the field reads 8; before turn 6
    he is away two hours, so the sweep of idle buffers deletes his, and turn 6 makes a new one."""
    turns = [m for m in generated_support(ASKED_ON).messages if m.role.value != "system"]
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    for turn in range(1, ASKED_ON):
        if turn == AWAY_BEFORE:
            clock.advance(hours=AWAY_HOURS)
        length = START_LENGTH if turn <= RAISED_AFTER else NEW_LENGTH
        store.memory("tutienda", "luis", context_window_length=length).add(
            *turns[2 * turn - 2 : 2 * turn]
        )
        clock.advance(minutes=2)
    loaded = store.memory("tutienda", "luis", context_window_length=NEW_LENGTH).load()
    turn_of = {id(m): i // 2 + 1 for i, m in enumerate(turns)}
    return tuple(sorted({turn_of[id(m)] for m in loaded}))


#: What to say to self-check 1's foreseen wrong answers.
IDLE_DELETED = "turns 1 to 5 are gone: after an idle hour n8n deletes a chat's history"
LUIS_MISTAKES = {
    4: "that is a window of 8 over his whole chat; but the two hours away deleted his history, "
    "so turn 12's chat began after the break",
    7: "that is a window of 5 reaching back from turn 12; but the chat that began after the "
    "break took the field's value then, 8",
    5: "turn 5 came before the break, and the idle hours deleted it with the rest",
} | dict.fromkeys((1, 2, 3), IDLE_DELETED)


def _oldest_turn_seen() -> int:
    return luis_after_the_break()[0]


def luis_with_a_tool() -> list[Any]:
    """Luis's nine turns, the model calling one tool before answering turn 5."""
    chat = generated_support(LUIS_TURN)
    turns = [list(i.messages) for i in chat.interactions]
    question, answer = turns[LUIS_TOOL_TURN - 1]
    turns[LUIS_TOOL_TURN - 1] = [
        question,
        assistant("", tool_calls=["call_orders_5"]),
        tool('{"status": "shipped"}', "call_orders_5"),
        answer,
    ]
    return [chat.system_message, *(m for turn in turns for m in turn)]


def _messages_at_window_0() -> int:
    # Luis's chat with the tool on turn 5, through n8n 2.41.1's agent at Context Window
    # Length 0: how many messages turn 9's model call carries.
    runs = agent_runs(luis_with_a_tool(), N8nSimpleMemory(0))
    return len(runs[LUIS_TURN - 1].calls[0].messages)


def _check_1() -> dict[str, Any]:
    return {"1": _oldest_turn_seen()}


def _check_6() -> dict[str, Any]:
    return {"6": _messages_at_window_0()}


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
    # Marta's chat with a payments tool called once on turn 3, at window 4, through n8n 2.41.1's agent.
    return {"2": _first_run_without_order_with_the_tool(4)}


#: 3's chat: the same agent with another customer; turn 3's reply names the contact again.
NAMED_AGAIN = " Carlos Ruiz can collect from there."

#: Turns 5 to 8 of 3's chat: questions and replies that never name the contact.
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


def _check_3() -> dict[str, Any]:
    return {"7": _first_turn_without_the_name()}


#: The help-centre articles a second, smaller TuTienda agent pastes into its System Message.
SHORT_PROMPT_ARTICLES = ("Shipping and delivery", "Returns and exchanges")


def support_behind(titles: tuple[str, ...] | None = None) -> Conversation:
    """The 60-turn support chat behind its instructions and help-centre articles (*titles*; None: all six)."""
    chat = load_example("support_60")
    assert chat.system_message is not None
    articles = [a.text for a in help_centre().articles if titles is None or a.title in titles]
    return behind_system_message(chat, "\n\n".join([chat.system_message.content, *articles]))


def the_time(turn: int) -> str:
    """What ``{{ $now }}`` at the top of the System Message becomes on turn *turn*'s run: a new
    time on every run (a minute apart here)."""
    return f"Now: 2026-12-07T10:{turn:02d}:00.000+00:00"


def stamped_bill(k: int, model: str = "gpt-5.4-mini", chat: Conversation | None = None) -> Any:
    """*chat*'s bill (None: TuTienda's) at window *k* on *model* with the time at the top of its
    System Message."""
    chat = support_behind() if chat is None else chat
    return conversation_bill(chat, N8nSimpleMemory(k), model, QWEN, stamp=the_time)


def _dearer_with_the_time() -> str:
    bills = {k: stamped_bill(k).dollars for k in (5, 0)}
    if bills[5] == bills[0]:
        return "the same"
    return "window 5" if bills[5] > bills[0] else "no limit"


def _check_4() -> dict[str, Any]:
    # The time at the top of the System Message: no two calls share a prefix.
    return {"4": _dearer_with_the_time()}


def _check_lunch() -> dict[str, Any]:
    andina = load_example("mentioned_at_start")
    return {"5": _first_buyer_cause(andina)}


@dataclass(frozen=True)
class Claim:
    """One sentence a reply to the colleague might make, with windowmem's verdict on it."""

    number: int
    text: str
    holds: Callable[[], bool]
    if_picked: str
    """What to say when the claim is false and was picked."""
    if_missed: str
    """What to say when the claim is true and was left out."""


def second_agent() -> Conversation:
    """Going further's second agent: the 60-turn chat behind a System Message of two articles only."""
    return support_behind(SHORT_PROMPT_ARTICLES)


#: The model self-check 3 prices its claims on, as the lesson's bills do.
CLAIMS_MODEL = "gpt-5.4-mini"


#: Claim (1): a question on turn 35 about turn 1, at window 30.
ASKED_ON_TURN = 35
CLAIM_WINDOW = 30


def _order_on_turn_35_at_30() -> bool:
    chat = support_behind()
    view = turn_view(chat, N8nSimpleMemory(CLAIM_WINDOW), ASKED_ON_TURN, QWEN)
    return fact_visible(view, ANCHOR_FACTS["support_60"])


#: Claim (2)'s shorter chats: under 50 turns, window 50 never slides.
SHORT_CHAT_TURNS = 40


def _fifty_as_no_limit_on_shorter_chats() -> bool:
    chat = support_behind()
    shorter = [
        chat.system_message,
        *(m for t in chat.interactions[:SHORT_CHAT_TURNS] for m in t.messages),
    ]
    bill = {
        k: conversation_bill(shorter, N8nSimpleMemory(k), CLAIMS_MODEL, QWEN).dollars
        for k in (50, 0)
    }
    no_tools = not any(m.tool_calls or m.tool_call_id for m in shorter)
    return no_tools and bill[50] == bill[0]


def paused_bill(chat: Conversation, k: int, model: str = CLAIMS_MODEL) -> Any:
    """*chat*'s bill at window *k* on *model* when every message comes after a pause longer than
    the prompt cache lives: nothing is read from the cache."""
    return conversation_bill(chat, N8nSimpleMemory(k), without_cache(price_of(model)), QWEN)


#: Claim (3)'s model: n8n's Anthropic Chat Model, whose Prompt Caching option is off by default
#: in n8n 2.41.1 (tests/n8n/test_node_source.py reads it in the node's source).
ANTHROPIC_MODEL = "claude-sonnet-4-6"


def _no_limit_cheapest_on_anthropic_defaults() -> bool:
    # With the option off, nothing is read from a cache: every token of every call pays in full.
    chat = support_behind()
    bill = {k: paused_bill(chat, k, ANTHROPIC_MODEL).dollars for k in (5, 10, 50, 0)}
    return bill[0] == min(bill.values())


#: Self-check 3's sentences about TuTienda's agent, numbered as the lesson lists them; the
#: page's list is tested against this.
CLAIMS = (
    Claim(
        1,
        f"At window {CLAIM_WINDOW}, a question on turn {ASKED_ON_TURN} about turn 1's order "
        "number gets its answer.",
        _order_on_turn_35_at_30,
        f"(1) does not hold: on turn {ASKED_ON_TURN} a window of {CLAIM_WINDOW} loads turns "
        f"{ASKED_ON_TURN - CLAIM_WINDOW} to {ASKED_ON_TURN - 1}, so turn 1 is not among them",
        "",
    ),
    Claim(
        2,
        f"If its chats ran {SHORT_CHAT_TURNS} turns without tool calls, window 50 would cost the "
        "same as no limit.",
        _fifty_as_no_limit_on_shorter_chats,
        "",
        f"(2) holds too: a {SHORT_CHAT_TURNS}-turn chat without tool calls stores {2 * SHORT_CHAT_TURNS} "
        "messages, so window 50 (100 messages) never fills: every model "
        "call sends what no limit sends, and the two bills are the same",
    ),
    Claim(
        3,
        "On n8n's Anthropic Chat Model, with the node's options left at their defaults, no limit "
        "would still be the cheapest setting.",
        _no_limit_cheapest_on_anthropic_defaults,
        "(3) does not hold: the Anthropic node's Prompt Caching is off by default, so nothing is "
        "read from a cache and every token is paid in full, as in the table's last column, where "
        "no limit is the dearest",
        "",
    ),
)


def _true_claims() -> tuple[int, ...]:
    return tuple(c.number for c in CLAIMS if c.holds())


def _claim_feedback() -> dict[tuple[int, ...], str]:
    # Every set of claims, in increasing order: the first false claim picked, else the first
    # true one left out.
    right = _true_claims()
    said = {}
    numbers = [c.number for c in CLAIMS]
    for size in range(1, len(numbers) + 1):
        for picked in combinations(numbers, size):
            if picked == right:
                continue
            wrong = next((c for c in CLAIMS if c.number in picked and c.number not in right), None)
            missed = next((c for c in CLAIMS if c.number in right and c.number not in picked), None)
            said[picked] = wrong.if_picked if wrong else missed.if_missed if missed else ""
    return said


def first_turn_without_turn_1(k: int) -> int:
    """The first turn of a long chat whose call at window *k* no longer carries turn 1."""
    return next(t for t in range(2, k + 3) if 1 not in visible_turns(k, t))


def _check_reply() -> dict[str, Any]:
    return {"3": _true_claims()}


def _first_buyer_cause(chat: Any) -> str:
    # Self-check 5: nine turns at Context Window Length 3 under one session id, b-17; turns 1 to 3 minutes
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
            "1",
            _check_1,
            hint="what did two hours away do to Luis's history, and which length does a chat get on the message that starts it?",
            mistakes=LUIS_MISTAKES,
            why="the idle hours deleted turns 1 to 5; turn 6 started an empty history under the same key, at the field's value, 8, and the six turns it holds before turn 12 all fit",
            transfer="a length raised while a chat runs, and a chat restarted by an idle hour",
        ),
        Expectation(
            "6",
            _check_6,
            hint="count as section 1 counted Marta's twelve: the System Message, the messages memory loads, the new question; at 0 memory loads everything stored, and a tool turn stores more than two messages",
            mistakes={
                18: "that leaves out two messages: either turn 5's tool call and its result, or the System Message and the new question; the call holds all four",
                16: "that is the history without the tool turn's extra messages, and without the System Message and the new question",
                19: "one short: 1 System Message, 18 stored messages (7 turns of 2, turn 5 of 4), 1 new question",
                12: "that is a window of 5; at 0 the slice skips nothing, so all eight earlier turns are sent",
                2: "0 does not switch memory off in n8n: slice(-0) is slice(0), the whole history",
                1: "0 does not switch memory off in n8n: slice(-0) is slice(0), the whole history",
                0: "0 does not switch memory off in n8n: slice(-0) is slice(0), the whole history",
            },
            why="slice(-0) is slice(0), the whole history: 1 System Message, the 18 stored messages of turns 1 to 8 (turn 5 takes 4), 1 new question",
            transfer="window 0 with a tool turn, counted in messages",
        ),
        Expectation(
            "2",
            _check_2,
            hint="n8n loads the last 2 × 4 stored messages: write out what is stored before each turn, with turn 3 taking 4 places",
            mistakes={
                6: "that is the agent without the tool; turn 3's call and result take 2 of the window's 8 places",
                4: "before turn 4 only 8 messages are stored, and a window of 4 loads 8: turn 1 is still in",
                7: "that is window 5's turn without tools; a smaller window with a tool turn lets turn 1 go sooner",
            },
            why="before turn 5, turns 2 to 4 fill the 8 places (turn 3 takes 4), so turn 1 is left out",
            transfer="a tool turn on the worked conversation: the window counts messages",
        ),
        Expectation(
            "7",
            _check_3,
            hint="the model receives messages, not turn numbers: which turns' messages name him, and on which turn does the last of them leave a window of 3?",
            mistakes={
                5: "turn 1 leaves the window on turn 5, but turn 3's reply names him too, and turn 3 is still in it",
                6: "on turn 6 a window of 3 is turns 3 to 5: turn 3's reply is still sent",
                4: "on turn 4 a window of 3 is turns 1 to 3: both messages naming him are sent",
                8: "one turn late: on turn t a window of 3 starts at turn t − 3",
            },
            why="turn 3's reply keeps the name in the window until turn 3 itself leaves: where a fact was first said does not matter",
            transfer="a fact said again inside the window, on another agent's chat",
        ),
        Expectation(
            "4",
            _check_4,
            hint="a cache serves only a prefix that an earlier call sent identically, from the first token: with the time at the top, what do two calls still share?",
            mistakes={
                "window 5": "that is the first column of section 3's table; now the first message differs on every call, so no call shares a prefix, nothing is read from the cache, and the bill follows the tokens",
                "the same": "the two send different numbers of tokens, and now every token is paid at the full price",
            },
            why="with the time at its top, no call shares a prefix with another, so nothing is cached: every token is paid in full, and no limit sends more of them",
            transfer="a System Message that changes on every call",
        ),
        Expectation(
            "3",
            _check_reply,
            hint="judge each sentence on its own against section 1's window (turn t loads turns t − k to t − 1), section 3's sliding window and what the cache needs to be read, then list the numbers of those that hold",
            mistakes=_claim_feedback,
            why="a question on turn 35 about turn 1 needs a window of 34; window 50 differs from no limit only once a chat has more than 50 earlier turns, from turn 52 without tool calls; and with no cache, as on the Anthropic node's defaults, no limit sends the most tokens and pays for all of them",
            transfer="a reply weighing reach and money on chats and a provider the lesson did not price",
            any_order=True,
        ),
        Expectation(
            "5",
            _check_lunch,
            hint="list what the buffer under b-17 holds when turn 9 runs, after the lunch break, then which of those turns a length of 3 loads",
            mistakes={
                "storage": "the idle hour emptied the buffer before turn 4, but turn 5 was stored after that, in the buffer turn 9 reads; count which of its turns a length of 3 loads",
                "scope": "the log shows the same session id, b-17, on every run: one history",
            },
            why="turn 5 was stored after the break, in the history turn 9 reads, but a window of 3 loads turns 6 to 8 only",
            transfer="a log with an idle-hour deletion that is not the cause",
        ),
    ],
)
check = BOOK.check
