"""Lesson 4's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

import os
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


#: Two turns past the lesson's six, for self-check 2 (run at Context Window Length 1).
TURNS_7_AND_8 = (
    ("u7 Can it come on Thursday?", "a7 Thursday works"),
    ("u8 Is the gift wrap still on?", "a8 Yes, it is"),
)


#: Self-check 2: the Context Window Length at each of Marta's first eight runs, then turn 9's.
LENGTHS_BEFORE_TURN_9 = (2, 2, 2, 2, 2, 2, 1, 1)
LENGTH_ON_TURN_9 = 5


def _check_2() -> dict[str, Any]:
    workdir, _ = _stores()
    # Marta's eight turns through the Postgres layout, one run per turn at the length of the
    # moment (each run loads its window, then writes), in the checks' own file.
    spec = StoreSpec("n8n-sql", os.path.join(workdir, "rows.db"))
    history = spec.n8n_history("lesson4-checks-2")
    history.clear()
    turns = tuple(scenarios.MARTA_TURNS) + TURNS_7_AND_8
    for (question, answer), k in zip(turns, LENGTHS_BEFORE_TURN_9, strict=True):
        N8nSimpleMemory(k).load(history.get_messages())
        history.add_messages([user(question), assistant(answer)])
    stored = history.get_messages()
    # Turn 9's run builds its window anew over the stored rows, at the length set then.
    assert len(stored) == 2 * len(LENGTHS_BEFORE_TURN_9), "the table is never trimmed"
    return {"2": len(N8nSimpleMemory(LENGTH_ON_TURN_9).load(stored))}


#: Self-check 3's requests: (name, the second it arrives, the seconds its model takes).
RACE_TIMES = (("A", 0, 20), ("B", 2, 5), ("C", 12, 3))


def _check_3() -> dict[str, Any]:
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
    return {"3": [text.split()[-1] for text in loaded["C"] if text.startswith("question")]}


def clock_time(minute: float, start: int = 10) -> str:
    """Minutes after *start* o'clock as ``"HH:MM"``."""
    return f"{start + int(minute) // 60:02d}:{int(minute) % 60:02d}"


#: Self-check 4: (name, the second it arrives, the seconds its run takes) on the recipe's lock.
LOCK_ARRIVALS = (("A", 0, 75), ("B", 50, 5), ("C", 70, 5))


def _check_4() -> dict[str, Any]:
    # Every Increment, a turned-away one too, sends EXPIRE: B's restarts the 60 s at second 50.
    outcomes = lock.admit([lock.Arrival(*a) for a in LOCK_ARRIVALS], ttl=lock.RECIPE_TTL)
    return {"4": next(o.count for o in outcomes if o.name == "C")}


#: Self-check 5: saved runs at 10:00 and 10:20, a page load at 10:50, a failed run at 11:15
#: (n8n stores nothing for it: a read).
MARTA_EVENTS = (
    expiry.Event(0, "write"),
    expiry.Event(20, "write"),
    expiry.Event(50, "read"),
    expiry.Event(75, "read"),
)


def _check_5() -> dict[str, Any]:
    return {"5": clock_time(expiry.expires_after(MARTA_EVENTS, "n8n Redis (sessionTTL 3600)"))}


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
            },
            why="the new process started with an empty memory and has stored only turn 3, two messages",
            transfer="a restart, where the lesson's table shows two workers: the same rule on a case it has not worked",
        ),
        Expectation(
            "2",
            _check_2,
            hint="turn 9's run builds its window anew from the stored rows: how many are stored, and how many does a length of 5 let through?",
            mistakes={
                2: "the length of 1 was turns 7 and 8's; turn 9's run builds its window at 5, over every stored row",
                4: "that was the length of 2; turn 9's run builds its window at 5",
                11: "count only the earlier messages, not turn 9's own question",
                16: "the table holds 16 rows, but a length of 5 sends at most 2 × 5 of them",
                5: "the length counts interactions, a question and its answer: two messages each",
            },
            why="every row is still in the table, and turn 9's run builds a window of 5 question-and-answer pairs anew over them: the last ten messages",
            transfer="a window raised after it was lowered, on a store that rebuilds the window every run",
        ),
        Expectation(
            "3",
            _check_3,
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
            "4",
            _check_4,
            hint="when does the key lock:abc expire: 60 s after which Increment?",
            mistakes={
                1: "without B the key would have expired at second 60 and C would have got 1, but B's Increment at second 50 restarted the 60 s",
                2: "B's Increment counted too: 1 for A, 2 for B",
            },
            why="B's Increment at second 50 made the count 2 and restarted the 60 s, so the key lives until second 110: C's Increment makes it 3, and C is told One moment",
            transfer="a run longer than the lock's TTL, where a turned-away run restarts the countdown",
        ),
        Expectation(
            "5",
            _check_5,
            hint="which of the four events write to the key, so that EXPIRE follows them?",
            mistakes={
                "12:15": "the failed 11:15 run stored nothing in n8n, so no EXPIRE followed it",
                "11:50": "the 10:50 page load only read the list; only a write is followed by EXPIRE",
                "11:00": "the second saved run, at 10:20, moved the clock",
            },
            why="Redis counts from the last write; the page load and the failed run wrote nothing",
            transfer="a session with a page load and a failed run between its writes",
        ),
    ],
)
check = BOOK.check
