"""One conversation through each store, with the events that break memory: a pure, exact model.

Marta's six turns go to an agent whose memory is one of :data:`STORES`, answered by one
worker or by two in turn, with one :data:`EVENTS` before turn 4: a restart, an idle
hour, or turns 4 and 5 arriving at the same moment. :func:`play_scenario` says, for
every call, which worker answered, what the model was sent and what the store holds
afterwards. No process is started and no clock waited for: this is the model the
explorer draws; :mod:`windowmem.outlive.agent_process`, :mod:`windowmem.outlive.workers` and
:mod:`windowmem.outlive.concurrent_runs` run the same cases for real, and the tests check
that the two agree.

>>> calls = play_scenario("n8n Postgres table", workers=1, event="the agent restarts")
>>> len(calls[3].sent), len(calls[3].stored_after)
(5, 8)
>>> calls = play_scenario("Simple Memory (in-process)", workers=1, event="the agent restarts")
>>> len(calls[3].sent)
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from windowmem.messages import Message, assistant, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.spring_ai import SpringAiMessageWindow

StoreName = Literal[
    "Simple Memory (in-process)",
    "n8n Postgres table",
    "n8n Redis list (sessionTTL 3600)",
    "Spring AI JDBC (maxMessages 4)",
]
STORES: tuple[StoreName, ...] = (
    "Simple Memory (in-process)",
    "n8n Postgres table",
    "n8n Redis list (sessionTTL 3600)",
    "Spring AI JDBC (maxMessages 4)",
)
#: The n8n stores: the lesson's explorer offers these; the reference page adds Spring AI.
N8N_STORES: tuple[StoreName, ...] = STORES[:3]
EventName = Literal["nothing", "the agent restarts", "an hour passes", "two requests at once"]
EVENTS: tuple[EventName, ...] = (
    "nothing",
    "the agent restarts",
    "an hour passes",
    "two requests at once",
)
#: The turn the event comes before (with "two requests at once": turns 4 and 5 overlap).
EVENT_TURN = 4
#: n8n's Context Window Length in the scenario (interactions), and Spring AI's maxMessages.
N8N_WINDOW = 2
SPRING_MAX_MESSAGES = 4
IDLE_MINUTES = 61

MARTA_TURNS: tuple[tuple[str, str], ...] = (
    ("u1 I'm Marta, order #6023", "a1 Noted, Marta"),
    ("u2 It should arrive Friday", "a2 Friday it is"),
    ("u3 Deliver to Calle 8, Medellín", "a3 Address saved"),
    ("u4 Can it come Thursday?", "a4 Thursday is possible"),
    ("u5 Add gift wrapping", "a5 Gift wrap added"),
    (
        "u6 What's my order number?",
        "a6 I can't see it: tell me again?",
    ),  # turn 1 is out of the window
)
#: Three more turns of Marta's chat, for lesson 4's table of a window changed twice.
MARTA_LATER_TURNS: tuple[tuple[str, str], ...] = (
    ("u7 #6023, as I said", "a7 Thank you, Marta"),
    ("u8 Is it still Thursday?", "a8 Yes, Thursday"),
    ("u9 Where is it now?", "a9 In Medellín"),
)


@dataclass(frozen=True)
class ScenarioCall:
    """Call *number* (turn), the *worker* that answered, what was *sent*, what the store holds after, and a *note*."""

    number: int
    worker: int
    sent: tuple[Message, ...]
    stored_after: tuple[Message, ...]
    note: str


def trims_on_write(store: StoreName) -> bool:
    """Whether the store holds only the window (Spring AI) rather than every message (n8n)."""
    return store.startswith("Spring AI")


def play_scenario(
    store: StoreName, workers: int = 1, event: EventName = "nothing"
) -> tuple[ScenarioCall, ...]:
    """Every call of Marta's conversation under *store*, *workers* (1 or 2) and *event*."""
    if store not in STORES:
        raise ValueError(f"store must be one of {STORES}, got {store!r}")
    if event not in EVENTS:
        raise ValueError(f"event must be one of {EVENTS}, got {event!r}")
    if workers not in (1, 2):
        raise ValueError(f"workers is 1 or 2, got {workers!r}")
    in_process = store.startswith("Simple Memory")
    # One list per worker for an in-process map; one shared list otherwise.
    held: dict[int, list[Message]] = {w: [] for w in range(1, workers + 1)}
    last_used = {w: 0.0 for w in held}  # Simple Memory's clock: last supply
    last_write = 0.0  # Redis's clock: last write
    clock = 0.0
    calls: list[ScenarioCall] = []
    turns = list(MARTA_TURNS)
    number = 0
    while number < len(turns):
        number += 1
        note = ""
        if number == EVENT_TURN and event == "the agent restarts" and in_process:
            for w in held:
                held[w] = []
            note = "the restart emptied every worker's map"
        elif number == EVENT_TURN and event == "the agent restarts":
            note = "the restart changed nothing in the store"
        if number == EVENT_TURN and event == "an hour passes":
            clock += IDLE_MINUTES
            note = f"{IDLE_MINUTES} quiet minutes"
        clock += 1
        if number == EVENT_TURN and event == "two requests at once":
            calls.extend(_overlap(store, workers, held, number, turns))
            number += 1
            continue
        worker = 1 if workers == 1 else 2 - number % 2
        view = _view(held, worker, in_process)
        if in_process and clock - last_used[worker] > 60 and view:
            view.clear()
            note = "the idle hour's sweep deleted the buffer"
        if store.startswith("n8n Redis") and clock - last_write > 60 and view:
            view.clear()
            note = "the key expired an hour after its last write"
        last_used[worker] = clock
        text, reply = turns[number - 1]
        if trims_on_write(store):
            # The advisor sends what is stored, then saves the new question, then the answer.
            sent = (*view, user(text))
            stored = list(SpringAiMessageWindow(SPRING_MAX_MESSAGES).write(view, [user(text)]))
            stored = list(
                SpringAiMessageWindow(SPRING_MAX_MESSAGES).write(stored, [assistant(reply)])
            )
        else:
            sent = (*N8nSimpleMemory(N8N_WINDOW).load(view), user(text))
            stored = [*view, user(text), assistant(reply)]
        view[:] = stored
        last_write = clock
        calls.append(ScenarioCall(number, worker, tuple(sent), tuple(view), note))
    return tuple(calls)


def _view(held: dict[int, list[Message]], worker: int, in_process: bool) -> list[Message]:
    return held[worker] if in_process else held[1]


def _overlap(
    store: StoreName,
    workers: int,
    held: dict[int, list[Message]],
    number: int,
    turns: list[tuple[str, str]],
) -> list[ScenarioCall]:
    """Turns *number* and *number*+1 at once: both load, then their writes interleave."""
    in_process = store.startswith("Simple Memory")
    pair = [
        (number, 1 if workers == 1 else 2 - number % 2),
        (number + 1, 1 if workers == 1 else 2 - (number + 1) % 2),
    ]
    views = [_view(held, w, in_process) for _, w in pair]
    shared = views[0] is views[1]
    texts = [turns[n - 1] for n, _ in pair]
    if trims_on_write(store):
        window = SpringAiMessageWindow(SPRING_MAX_MESSAGES)
        found = [list(v) for v in views]  # both find before either saves
        sent = [(*f, user(t)) for f, (t, _) in zip(found, texts, strict=True)]
        for view, f, (t, _) in zip(views, found, texts, strict=True):
            view[:] = window.write(f, [user(t)])  # the second save replaces the first when shared
        for view, (_, reply) in zip(views, texts, strict=True):
            view[:] = window.write(list(view), [assistant(reply)])
        note = (
            "both read, then each saveAll replaced the conversation: the first question is lost"
            if shared
            else "each worker read and saved its own map: the overlap changed nothing"
        )
    else:
        sent = [
            (*N8nSimpleMemory(N8N_WINDOW).load(v), user(t))
            for v, (t, _) in zip(views, texts, strict=True)
        ]
        for view, (t, _) in zip(views, texts, strict=True):
            view.append(user(t))
        for view, (_, reply) in zip(views, texts, strict=True):
            view.append(assistant(reply))
        note = (
            "both loaded before either wrote: each prompt misses the other, and the rows interleave"
            if shared
            else "each worker loaded and wrote its own map: the two runs touched different "
            "histories, so the overlap changed nothing (each was already blind to the other "
            "worker's turns)"
        )
    return [
        ScenarioCall(n, w, tuple(s), tuple(views[i]), note)
        for i, ((n, w), s) in enumerate(zip(pair, sent, strict=True))
    ]
