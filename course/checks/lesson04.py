"""Lesson 4's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

import tempfile
from functools import cache
from typing import Any

from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive import expiry
from windowmem.outlive import session_lock as lock
from windowmem.outlive import store_scenarios as scenarios
from windowmem.outlive.agent_process import restart
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies import N8nSimpleMemory
from windowmem.storage import backends


@cache
def _stores() -> tuple[str, backends.Backends]:
    # The checks' own SQLite files, whatever servers the lesson found: a learner's cells
    # (or the lesson's own rows in PostgreSQL) cannot change an expected answer.
    workdir = tempfile.mkdtemp(prefix="lesson4-checks-")
    return workdir, backends.choose_backends({}, workdir)


def _check_1() -> dict[str, Any]:
    first_two, third_and_fourth = scenarios.MARTA_TURNS[:2], scenarios.MARTA_TURNS[2:4]
    _, after_in_process = restart(
        StoreSpec("in-process"), "lesson4-restart", 5, first_two, third_and_fourth
    )
    # Turn 4, the new process's second turn: what it sends besides its own question.
    return {"1": len(after_in_process[1].sent) - 1}


#: Self-check 2's requests: (name, the second it arrives, the seconds its model takes).
RACE_TIMES = (("A", 0, 20), ("B", 2, 5), ("C", 12, 3))


def _check_2() -> dict[str, Any]:
    _, chosen = _stores()
    history = [user("u1 I'm Marta, order #6023"), assistant("a1 Noted, Marta")]
    races.seed("n8n", StoreSpec("n8n-sql", chosen.sql_location), "lesson4-race-c", history)
    store = StoreSpec("n8n-sql", chosen.sql_location).n8n_history("lesson4-race-c")
    # Each run loads the stored rows when it arrives and writes its question and answer once
    # its model has answered: play those steps in time order on the real store.
    steps = sorted(
        [(at, 0, name) for name, at, _ in RACE_TIMES]
        + [(at + model, 1, name) for name, at, model in RACE_TIMES]
    )
    loaded: dict[str, list[str]] = {}
    for _, is_write, name in steps:
        if is_write:
            store.add_messages([user(f"question {name}"), assistant(f"answer {name}")])
        else:
            loaded[name] = [m.content for m in N8nSimpleMemory(5).load(store.get_messages())]
    # C's prompt: whose questions it holds, in their order there.
    return {"2": [text.split()[-1] for text in loaded["C"] if text.startswith("question")]}


def clock_time(minute: float, start: int = 10) -> str:
    """Minutes after *start* o'clock as ``"HH:MM"``."""
    return f"{start + int(minute) // 60:02d}:{int(minute) % 60:02d}"


#: Self-check 3: Marta's first run fails 3 s in, before its Delete (a run that never deletes the
#: key), and she sends again at these seconds.
FAILED_RUN = ("A", 0, float("inf"))
RETRIES = (40, 90, 160)


def _check_3() -> dict[str, Any]:
    # Every Increment, a turned-away one too, sends EXPIRE: each retry within 60 s of the last
    # Increment restarts the 60 s, so the first retry answered comes 60 s or more after the last.
    arrivals = [lock.Arrival(*FAILED_RUN)] + [
        lock.Arrival(f"retry at {at}", at, 5) for at in RETRIES
    ]
    outcomes = lock.admit(arrivals, ttl=lock.RECIPE_TTL)
    return {"3": next(RETRIES[i] for i, o in enumerate(outcomes[1:]) if o.ran)}


#: Self-check 4: saved runs at 10:00 and 10:20, a page load at 10:50, a failed run at 11:15
#: (n8n stores nothing for it: a read).
MARTA_EVENTS = (
    expiry.Event(0, "write"),
    expiry.Event(20, "write"),
    expiry.Event(50, "read"),
    expiry.Event(75, "read"),
)
#: ... and she comes back at 11:35; the Session Time To Live values the check offers.
COMES_BACK = expiry.Event(95, "write")
SESSION_TTLS = (1800, 3600, 7200)


def expires_at_3600() -> str:
    """When Marta's key expires with Session Time To Live 3600 (the worked answer's 11:20)."""
    return clock_time(expiry.expires_after(MARTA_EVENTS, "n8n Redis (sessionTTL 3600)"))


def _check_4() -> dict[str, Any]:
    # The smallest Session Time To Live whose key still holds her history when she comes back.
    day = [*MARTA_EVENTS, COMES_BACK]
    kept = [ttl for ttl in SESSION_TTLS if expiry.redis_chat_memory(day, ttl)[-1].found]
    return {"4": min(kept)}


BOOK = CheckBook(
    4,
    [
        Expectation(
            "1",
            _check_1,
            hint="where does Simple Memory keep its histories, what does the new process start with, and what does turn 3 add to it?",
            mistakes={
                6: "that is what a store outside the process gives; Simple Memory lived inside the process that exited",
                4: "turns 1 and 2 left with the old process; count what the new one has stored",
                0: "turn 3 found an empty memory, but the new process then stored turn 3 in it",
                1: "that counts turns; count messages: turn 3, the one turn stored since the restart, is a question and an answer",
            },
            why="the new process started with an empty memory and has stored only turn 3, two messages",
            transfer="a restart, where the lesson's table shows two workers: the same rule on a case it has not worked",
        ),
        Expectation(
            "2",
            _check_2,
            hint="for each of A and B: has its model answered, so that its rows are written, when C loads at second 12?",
            mistakes={
                (
                    "A",
                    "B",
                ): "A arrived first, but its model answers only at second 20: at second 12 its rows are not written yet",
                (
                    "B",
                    "A",
                ): "A's rows are written at second 20, eight seconds after C has loaded",
                ("A",): "A's rows are written at second 20, after C has loaded; B's at second 7",
                (): "B's model answered at second 2 + 5 = 7, so B's rows were written before C loaded at 12",
            },
            form='a list of names, such as ["A", "B"] or []: "A" or "B", in quotes',
            why="C loads the rows at second 12: B's were written at second 2 + 5 = 7, A's only at second 20, so C's prompt holds B's question and not A's",
            transfer="a third run loading between two overlapping runs' writes, where the lesson's picture has only two runs",
        ),
        Expectation(
            "3",
            _check_3,
            hint="the failed run never reached Release the lock: for each retry, is lock:abc still there, and until when does its Increment keep it?",
            mistakes={
                40: "the failed run never deleted lock:abc, so at second 40 it was still there (until 60): Increment made it 2, and the retry got One moment",
                90: "the retry at 40 was turned away, but its Increment set the countdown back to 60: the key lived until 100, so at 90 Increment made it 3",
            },
            why="the failed run left lock:abc behind; the retries at 40 and 90 were turned away, and each Increment set the countdown back to 60 (to 100, then 150), so only at 160 was the key gone and Increment made it 1 again",
            transfer="a failed run whose lock outlives it, where every turned-away retry restarts the countdown",
        ),
        Expectation(
            "4",
            _check_4,
            hint="which of the events before 11:35 write to the key, so that EXPIRE follows them? Count from the last of those",
            mistakes={
                1800: "the failed 11:15 run stored nothing in n8n, so no EXPIRE followed it: the countdown runs from 10:20",
                3600: "the 10:50 page load only read the list; only a write is followed by EXPIRE: from 10:20 to 11:35 is 75 minutes, 4500 s",
            },
            form="a whole number of seconds: 1800, 3600 or 7200",
            why="only the saved runs sent EXPIRE, so the countdown runs from 10:20: 11:35 is 75 minutes (4500 s) later, past 3600 s, within 7200 s",
            transfer="a setting chosen for a customer's pause, with a page load and a failed run between her writes",
        ),
    ],
)
check = BOOK.check
