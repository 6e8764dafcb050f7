"""Draw the diagrams of lessons 1 to 4 and 6 from windowmem's replay.

Usage: ``python scripts/draw_diagrams.py [--check]``

Each diagram is an SVG file in ``course/`` (the website copies it beside the lesson) that
the lesson shows with a markdown image. What it draws is computed: the keys and buckets of
lesson 1's support desk, the arrays of lesson 2's agent with and without memory, lesson 3's
window over Marta's stored turns, lesson 4's race of two runs, its lock after a crashed run
and a Redis key's time to live, and lesson 6's calls under truncate in blocks with the start
each shares with the call before. ``--check`` writes nothing and exits 1 naming each file
that is out of date.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from windowmem import scope as desk
from windowmem.calls.agent_calls import agent_runs
from windowmem.calls.tool_scenario import load_tool_scenario
from windowmem.conversation import Conversation
from windowmem.examples import load_example
from windowmem.explorer.inputs_diagram import InputRow, ToolPanel, workflow_inputs_svg
from windowmem.explorer.store_load_diagram import Box, Row, store_load_svg
from windowmem.explorer.timeline_diagram import Lane, Mark, Span, timeline_svg
from windowmem.messages import Message
from windowmem.outlive import concurrent_runs, expiry, session_lock
from windowmem.policies import N8nSimpleMemory
from windowmem.prices import shared_prefix

COURSE = Path(__file__).resolve().parents[1] / "course"


def _turn_labels(conversation: Conversation) -> dict[int, str]:
    """id(message) -> a short label: u3 for turn 3's question, a3 for its answer."""
    labels: dict[int, str] = {}
    for number, turn in enumerate(conversation.interactions, start=1):
        for message in turn.messages:
            labels[id(message)] = f"{message.role.value[0]}{number}"
    return labels


def _boxes(
    messages: Sequence[Message], labels: dict[int, str], new: Message | None = None
) -> tuple[Box, ...]:
    out = []
    for m in messages:
        if m.role.value == "system":
            out.append(Box("S", "system"))
        elif m is new:
            out.append(Box(labels[id(m)], "new"))
        else:
            out.append(Box(labels[id(m)], m.role.value))
    return tuple(out)


def lesson1() -> str:
    """Two keys over the same requests: what request 5 (Marta's return) loads under each.

    Red means one thing: another customer's message filed under Marta's key.
    """
    requests = desk.requests_of(desk.support_desk())
    returning = requests[4]

    def boxes(request: desk.Request, number: int, solid: bool) -> tuple[Box, Box]:
        initial = request.customer.name[0]
        foreign = solid and request.customer != returning.customer
        return (
            Box(f"{initial}{number}", "foreign" if foreign else "user", solid),
            Box(f"{initial.lower()}{number}", "foreign" if foreign else "assistant", solid),
        )

    rows = []
    for choice in (desk.TENANT_USER, desk.PER_USER):
        key = desk.key_for(choice.template, returning)
        stored = [
            box
            for number, request in enumerate(requests[:4], start=1)
            for box in boxes(request, number, desk.key_for(choice.template, request) == key)
        ]
        rows.append(Row(f"{choice.name}: every turn before request 5", tuple(stored)))
        loaded = [b for b in stored if b.solid] + [Box("M5", "user")]
        rows.append(Row(f"{choice.name}: request 5 ({key}) loads", tuple(loaded)))
    return store_load_svg(
        "Lesson 1 · the key picks the history that is loaded",
        rows,
        "Blue M1: Marta's message in request 1. Green m1: its reply. C: Carlos; L: Lucía.\n"
        "Faded: filed under another key, so not loaded. Red: another customer's turn.",
        label_width=290,  # "tenant + user: request 5 (tutienda:u-1) loads" needs the room
    )


#: Lesson 1, self-check 3's worked answer: after Marta's first chat, these events (minutes of
#: silence, or a run), then her return in a new chat, on Simple Memory with the tenant + user key.
IDLE_HOUR_EVENTS = (
    desk.Pause(40),
    desk.Request(desk.MARTA, "m-1", "Can I pay on delivery?", "You can, on delivery."),
    desk.Pause(40),
    desk.Request(desk.LUCIA, "l-1", "Friday delivery?", "Friday works."),
    desk.Pause(30),
)


def lesson1_idle_hour() -> str:
    """Simple Memory's idle hour, key by key: only a run on Marta's key restarts her clock."""
    limit = desk.InProcessStore(5).idle_limit_minutes
    minute, runs = 0.0, {desk.MARTA.name: [0.0], desk.LUCIA.name: []}
    for event in IDLE_HOUR_EVENTS:
        if isinstance(event, desk.Pause):
            minute += event.minutes
        else:
            runs[event.customer.name].append(minute)
    back, last = minute, runs[desk.MARTA.name][-1]
    stale = last + limit
    returns = desk.marta_returns("in-process", IDLE_HOUR_EVENTS)
    received = len(returns.window)
    # n8n sweeps stale histories at the start of the next Simple Memory run, on any key: her
    # return's run deletes her history, then loads it (Lucía's run came before the hour was up).
    assert stale < back and returns.buffer in returns.swept and received == 0, returns
    first, again = runs[desk.MARTA.name]
    marta = Lane(
        "Marta's key",
        (
            Span(first, again, "kept", "assistant"),
            Span(again, stale, f"kept: {limit:g} min from her last run", "assistant"),
            Span(stale, back, "expired", "gone"),
        ),
        (
            Mark(first, "first chat ends", "user"),
            Mark(again, f"{again:g} min: asks again", "user"),
            Mark(back, f"{back:g} min: returns; her run deletes it, gets {received}", "system"),
        ),
    )
    (at,) = runs[desk.LUCIA.name]
    lucia = Lane("Lucía's key", marks=(Mark(at, f"{at:g} min: writes", "user"),))
    return timeline_svg(
        "Lesson 1 · Simple Memory's idle hour is counted key by key",
        [marta, lucia],
        [(m, f"{m} min") for m in range(0, int(back) + 20, 20)],
        f"Lucía's run ({at:g} min) is on her own key. Marta's history expires at minute "
        f"{stale:g}; the next run, her return, deletes it first.",
    )


def lesson2() -> str:
    """The call for Marta's turn 7, without memory and with Simple Memory (window 5)."""
    marta = load_example("marta")
    labels = _turn_labels(marta)
    without = agent_runs(marta)[6].calls[0]
    with_memory = agent_runs(marta, N8nSimpleMemory(5))[6].calls[0]
    new = marta.interactions[6].messages[0]
    stored = [m for turn in marta.interactions[:6] for m in turn.messages]
    sent = {id(m) for m in with_memory.messages}
    return store_load_svg(
        "Lesson 2 · a call carries only what the agent puts in it",
        [
            Row(
                "memory holds, before turn 7",
                tuple(Box(labels[id(m)], m.role.value, id(m) in sent) for m in stored),
            ),
            Row("turn 7's call, no memory", _boxes(without.messages, labels, new)),
            Row("turn 7's call, Simple Memory (5)", _boxes(with_memory.messages, labels, new)),
        ],
        "S = System Message, u = question, a = answer, red = the new input. Faded: stored, not sent.",
    )


def lesson2_inputs() -> str:
    """TuTienda's two tools: who fills track_order's Workflow Inputs rows, and what it receives.

    change_address's rows are drawn untagged: self-check 3 leaves telling them to the reader.
    """
    scenario = load_tool_scenario("tutienda_tools")
    turn_2 = scenario.conversation.interactions[1].messages[0].content
    (tracking,) = scenario.deliveries("call_track_2", chat_input=turn_2)
    (redirect,) = scenario.deliveries("call_address_3", chat_input="")
    panels = []
    for delivery, received, when, tagged in (
        (tracking, tuple((f, str(v)) for f, v in tracking.item.items()), "turn 2", True),
        (redirect, (), "turn 3", False),  # self-check 3 asks who fills these rows
    ):
        rows = tuple(
            InputRow(field, parameter, (field in delivery.arguments) if tagged else None)
            for field, parameter in delivery.tool.inputs
        )
        panels.append(ToolPanel(delivery.tool.name, rows, received, when, "? (self-check 3)"))
    return workflow_inputs_svg(
        "Lesson 2 · what a workflow tool is given",
        panels,
        "model: the model writes the value from its array. n8n: n8n fills it, the same way on every run."
        " ?: self-check 3 asks who fills it.",
    )


def lesson3() -> str:
    """Marta's store after six turns against what a window of 5 loads for turn 7."""
    marta = load_example("marta")
    labels = _turn_labels(marta)
    stored = [m for turn in marta.interactions[:6] for m in turn.messages]
    window = N8nSimpleMemory(5).window(stored)
    loaded = {id(m) for m in window}
    return store_load_svg(
        "Lesson 3 · n8n keeps every message and loads the last 2 × k",
        [
            Row(
                "stored before turn 7 (all kept)",
                tuple(Box(labels[id(m)], m.role.value) for m in stored),
            ),
            Row(
                "loaded for turn 7, window 5",
                tuple(Box(labels[id(m)], m.role.value, id(m) in loaded) for m in stored),
            ),
        ],
        "Faded: still stored, outside the window. Turn 1 holds the order number #6023.",
    )


def lesson3_cache() -> str:
    """Marta's calls for turns 6 and 7, no limit against window 5: the start they share."""
    marta = load_example("marta")
    labels = _turn_labels(marta)
    rows = []
    for size, name in ((0, "no limit"), (5, "window 5")):
        runs = agent_runs(marta, N8nSimpleMemory(size))
        before, call = (runs[t].calls[0].messages for t in (5, 6))
        same = shared_prefix(call, before)
        new = marta.interactions[6].messages[0]
        rows.append(
            Row(f"turn 6's call, {name}", _boxes(before, labels, marta.interactions[5].messages[0]))
        )
        rows.append(
            Row(
                f"turn 7's call, {name}",
                # Paid in full is drawn light (half filled, dark text), not faded and dashed:
                # faded means "stored, outside the window" in the lesson's first picture.
                tuple(
                    Box(b.label, b.role, light=i >= same and b.role != "new")
                    for i, b in enumerate(_boxes(call, labels, new))
                ),
            )
        )
    return store_load_svg(
        "Lesson 3 · the cache serves only the start a call shares with an earlier one",
        rows,
        "Solid: the start turn 7 repeats from turn 6, read from the cache. Light: paid in full. Red: the new question.",
    )


def _race_axis(end: int) -> list[tuple[float, str]]:
    """The race pictures' axis: every 2 seconds from 0 to *end*, the same for both."""
    return [(second, f"{second} s") for second in range(0, end + 1, 2)]


#: Lesson 4, section 3's picture: (run, the second it arrives, the seconds its model takes).
#: Self-check 3 asks another timing (B answered first), so the picture does not answer it.
RACE_SECONDS = (("A", 0, 6), ("B", 2, 8))


def lesson4_race() -> str:
    """Two runs of one chat in seconds, B arriving during A's model call (no lock)."""
    finish = {name: at + model for name, at, model in RACE_SECONDS}
    (_, a_at, _), (_, b_at, _) = RACE_SECONDS
    assert a_at < b_at < finish["A"], "B arrives while A's model is answering"
    schedule = (
        concurrent_runs.N8N_DURING_CALL
        if finish["A"] < finish["B"]
        else concurrent_runs.N8N_B_ANSWERS_FIRST
    )
    trace = concurrent_runs.schedule_trace("n8n", schedule)
    # The replay's order of steps is the order the seconds give: both load, then the one whose
    # model answers first writes its two messages, then the other.
    by_time = sorted(
        [(at, f"{name} load") for name, at, _ in RACE_SECONDS]
        + [(finish[name], f"{name} write user") for name, _, _ in RACE_SECONDS]
    )
    assert [step for _, step in by_time] == [s for s in trace if not s.endswith("reply")]
    lanes = [
        Lane(
            f"run {name}",
            (Span(at, finish[name], f"model answering ({model} s)", "assistant"),),
            (
                Mark(at, f"{at} s: loads u1 a1", "user"),
                Mark(finish[name], f"{finish[name]} s: writes q{name} a{name}", "new"),
            ),
        )
        for name, at, model in RACE_SECONDS
    ]
    end = max(finish.values()) + 2
    first, second = sorted(finish, key=finish.get)
    return timeline_svg(
        "Lesson 4 · two runs of one chat, no lock, in seconds",
        lanes,
        _race_axis(end),
        f"Both load before either writes, so neither prompt holds the other's question. "
        f"q{first} a{first} is run {first}'s question and answer; {first} writes first.",
    )


def lesson4_race_locked() -> str:
    """The same two runs as :func:`lesson4_race`, behind the lock: B is turned away."""
    arrivals = [session_lock.Arrival(name, at, model) for name, at, model in RACE_SECONDS]
    outcomes = session_lock.admit(arrivals)
    (a, b), (a_out, b_out) = arrivals, outcomes
    assert (a_out.count, a_out.ran, b_out.count, b_out.ran) == (1, True, 2, False)
    a_end = a.at + a.seconds
    end = max(at + model for _, at, model in RACE_SECONDS) + 2
    lanes = [
        Lane(
            f"run {a.name}",
            (Span(a.at, a_end, f"model answering ({a.seconds:g} s)", "assistant"),),
            (
                Mark(a.at, f"{a.at:g} s: lock {a_out.count}, loads u1 a1", "user"),
                Mark(a_end, f"{a_end:g} s: writes q{a.name} a{a.name}, Release", "new"),
            ),
        ),
        Lane(
            f"run {b.name}",
            marks=(Mark(b.at, f"{b.at:g} s: lock {b_out.count}, One moment", "system"),),
        ),
        Lane(
            "lock:abc",
            (
                Span(a.at, b.at, f"{a_out.count}", "assistant"),
                Span(b.at, a_end, f"{b_out.count}, until Release", "new"),
                Span(a_end, end, "gone", "gone"),
            ),
        ),
    ]
    return timeline_svg(
        "Lesson 4 · the same two runs with the lock, in seconds",
        lanes,
        _race_axis(end),
        f"{b.name}'s Increment counted {b_out.count}, so {b.name} loaded and wrote nothing; "
        f"only {a.name}'s question and answer are stored.",
    )


#: Lesson 4, section 3's lock picture: Marta's run at second 0 is cut off LOCK_FAILS_AT seconds
#: in by a crash of n8n, before Release the lock; she sends again at LOCK_RETRIES; a run the lock lets through takes
#: LOCK_RUN seconds. Self-check 3 asks other retries, so the picture does not answer it.
LOCK_FAILS_AT, LOCK_RETRIES, LOCK_RUN = 3, (30, 100), 25


def lesson4_lock() -> str:
    """``lock:abc`` after a crashed run: each Increment, a turned-away one too, restarts the 60 s."""
    arrivals = [session_lock.Arrival("first", 0, math.inf)] + [
        session_lock.Arrival(str(at), at, LOCK_RUN) for at in LOCK_RETRIES
    ]
    outcomes = session_lock.admit(arrivals)
    end = max(a.at for a in arrivals) + LOCK_RUN + 10
    sends, key = [], []
    for i, (arrival, outcome) in enumerate(zip(arrivals, outcomes)):
        at = f"{arrival.at:g} s"
        if i == 0:
            what = f"sends; n8n crashes {LOCK_FAILS_AT} s in"
        else:
            what = "answered" if outcome.ran else "One moment"
        sends.append(Mark(arrival.at, f"{at}: {what}", "user" if outcome.ran else "system"))
        following = arrivals[i + 1].at if i + 1 < len(arrivals) else end
        released = arrival.at + arrival.seconds if outcome.ran else math.inf
        stop = min(following, outcome.expires_at, released)
        label = f"{outcome.count}, ends at {outcome.expires_at:g} s"
        if released <= following:
            label = f"{outcome.count}, until Release"
        key.append(Span(arrival.at, stop, label, "assistant" if outcome.ran else "new"))
        if outcome.expires_at < following and outcome.expires_at < released:
            key.append(Span(outcome.expires_at, following, "gone", "gone"))
    turned_away = next(o for o in outcomes[1:] if not o.ran)
    assert [o.ran for o in outcomes] == [True, False, True], "one retry turned away, then one run"
    assert turned_away.expires_at > outcomes[0].expires_at, "the refused Increment moved the end"
    return timeline_svg(
        f"Lesson 4 · lock:abc after a crashed run, TTL {session_lock.RECIPE_TTL}: every Increment restarts the countdown",
        [Lane("Marta sends", marks=tuple(sends)), Lane("lock:abc", tuple(key))],
        [(second, f"{second} s") for second in range(0, int(end) + 1, 10)],
        f"The turned-away Increment at {LOCK_RETRIES[0]} s set the countdown back to "
        f"{session_lock.RECIPE_TTL} s: the key lived until {turned_away.expires_at:g} s, "
        f"not {outcomes[0].expires_at:g} s.",
    )


#: Marta's day in lesson 4, section 4: minutes after 10:00, and what each event is.
MARTA_DAY = (
    (expiry.Event(0, "write"), "saved"),
    (expiry.Event(20, "write"), "saved"),
    (expiry.Event(50, "read"), "page load"),
    (expiry.Event(75, "read"), "failed run"),
    (expiry.Event(95, "read"), "asks: key gone"),
)


def _clock(minute: float) -> str:
    return f"{10 + int(minute) // 60:02d}:{int(minute) % 60:02d}"


def lesson4_ttl() -> str:
    """Redis Chat Memory's key across Marta's day, Session Time To Live 3600."""
    events = [event for event, _ in MARTA_DAY]
    moments = expiry.timeline("n8n Redis (sessionTTL 3600)", events)
    expires = max(m.expires_at for m in moments if m.found and m.expires_at is not None)
    gone = [m.event.minute for m in moments if not m.found]
    end = events[-1].minute
    marta = Lane(
        "Marta",
        marks=tuple(
            Mark(
                e.minute, f"{_clock(e.minute)} {label}", "user" if e.action == "write" else "system"
            )
            for e, label in MARTA_DAY
        ),
    )
    restarts = Lane(
        "EXPIRE sent",
        marks=tuple(Mark(e.minute, "clock restarts", "new") for e in events if e.action == "write"),
    )
    key = Lane(
        "her Redis key",
        (
            Span(events[0].minute, expires, f"kept until {_clock(expires)}", "assistant"),
            *([Span(expires, end, "gone", "gone")] if gone else []),
        ),
    )
    return timeline_svg(
        "Lesson 4 · Redis Chat Memory, Session Time To Live 3600: only a write restarts the clock",
        [marta, restarts, key],
        [(minute, _clock(minute)) for minute in range(0, int(end) + 30, 30)],
        "A page load and a failed run write nothing, so the key goes 3600 s after the last saved run.",
    )


#: Lesson 6's picture: calls 5 to 10 of plain truncate and of truncate in blocks at the
#: lesson's budget, the blocks cut down to BLOCK_CUT_TO.
BLOCK_CALLS, BLOCK_BUDGET, BLOCK_CUT_TO = range(5, 11), 1500, 1100


def lesson6_blocks() -> str:
    """Plain truncate above truncate in blocks, calls 5 to 10 of each: solid, the start a call
    shares with the call before that Claude's cache serves (1,024 tokens or more); light, a shared
    start under that minimum; dashed, what is new. The legend leaves Claude's write charge to
    the lesson, which states it after self-check 3 (the check turns on the prefixes alone)."""
    from windowmem.budget import help_centre, prepare, run_task
    from windowmem.budget.money import item_label, shared_start
    from windowmem.prices.cache import ANTHROPIC_CACHE

    prepared = prepare(help_centre())
    roles = {"system": ("sys", "system"), "task": ("task", "user")}
    rows = []
    for heading, trim_to in (
        ("Truncate: drops the oldest read at each call over 1,500", None),
        (f"Truncate in blocks: over 1,500, cuts to {BLOCK_CUT_TO:,}", BLOCK_CUT_TO),
    ):
        run = run_task(prepared, BLOCK_BUDGET, "truncate", trim_to=trim_to)
        calls = [s for s in run.trace if s.event.value == "call"]
        rows.append(Row(heading, ()))
        for n in BLOCK_CALLS:
            before, items = calls[n - 2].context, calls[n - 1].context
            same = shared_prefix(items, before)
            shared = shared_start(run, n - 1, n)
            served = ANTHROPIC_CACHE.cacheable(shared) > 0
            boxes = tuple(
                Box(
                    *roles.get(item.kind.value, (item_label(item, run.task).split("'")[0], "tool")),
                    i < same,
                    i < same and not served,
                )
                for i, item in enumerate(items)
            )
            rows.append(Row(f"call {n}: {calls[n - 1].used:,} tokens, {shared:,} shared", boxes))
    minimum = f"{ANTHROPIC_CACHE.min_tokens:,}"
    return store_load_svg(
        "Lesson 6 · calls 5 to 10 of truncate and of truncate in blocks",
        rows,
        f"Solid: shared with the call before and served from the cache ({minimum}+ tokens).\n"
        f"Light: shared, but under {minimum} tokens, so not served. Dashed: new.",
    )


DIAGRAMS: dict[str, Callable[[], str]] = {
    "01_store_and_load.svg": lesson1,
    "01_idle_hour.svg": lesson1_idle_hour,
    "02_store_and_load.svg": lesson2,
    "02_workflow_inputs.svg": lesson2_inputs,
    "03_store_and_load.svg": lesson3,
    "03_prompt_cache.svg": lesson3_cache,
    "04_race.svg": lesson4_race,
    "04_race_lock.svg": lesson4_race_locked,
    "04_ttl.svg": lesson4_ttl,
    "04_lock.svg": lesson4_lock,
    "06_truncate_in_blocks.svg": lesson6_blocks,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []
    for name, draw in DIAGRAMS.items():
        path, svg = COURSE / name, draw()
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != svg:
                stale.append(name)
        else:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote course/{name}")
    if stale:
        print(
            "out of date: " + ", ".join(stale) + "; run python scripts/draw_diagrams.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
