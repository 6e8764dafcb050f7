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
from windowmem.outlive import expiry, store_choice
from windowmem.outlive import store_scenarios as scenarios
from windowmem.outlive.agent_process import restart
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore
from windowmem.storage import backends
from windowmem.storage.list_stores import SqliteLists
from windowmem.storage.n8n_redis_history import N8nRedisHistory


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
RACE_TIMES = (("A", 0, 20), ("B", 2, 5))


def _check_3() -> dict[str, Any]:
    _, chosen = _stores()
    history = [user("u1 I'm Marta, order #6023"), assistant("a1 Noted, Marta")]
    pair = (
        races.Request("A", "question A", "answer A"),
        races.Request("B", "question B", "answer B"),
    )
    # Both load at arrival; each writes once its model has answered: the one that finishes
    # first writes first.
    (a, a_at, a_model), (b, b_at, b_model) = RACE_TIMES
    assert a_at < b_at < a_at + a_model, "B arrives during A's model call"
    b_first = b_at + b_model < a_at + a_model
    race = races.run_pair(
        "n8n",
        StoreSpec("n8n-sql", chosen.sql_location),
        "lesson4-race-b-first",
        history,
        pair,
        schedule=races.N8N_B_ANSWERS_FIRST if b_first else races.N8N_DURING_CALL,
    )
    new_rows = race.stored[len(history) :]
    owners = [text.split()[-1] for text in new_rows]  # "question B" -> "B"
    assert owners[0::2] == owners[1::2], "each run's question and answer are adjacent rows"
    return {"3": owners[0::2]}


def clock_time(minute: float, start: int = 10) -> str:
    """Minutes after *start* o'clock as ``"HH:MM"``."""
    return f"{start + int(minute) // 60:02d}:{int(minute) % 60:02d}"


#: Self-check 4: saved runs at 10:00 and 10:20, a page load at 10:50, a failed run at 11:15
#: (n8n stores nothing for it: a read).
MARTA_EVENTS = (
    expiry.Event(0, "write"),
    expiry.Event(20, "write"),
    expiry.Event(50, "read"),
    expiry.Event(75, "read"),
)


def _check_4() -> dict[str, Any]:
    return {"4": clock_time(expiry.expires_after(MARTA_EVENTS, "n8n Redis (sessionTTL 3600)"))}


#: Self-check 5's team: one n8n process redeployed nightly, every chat kept 24 hours after its
#: last saved turn and then erased with no clean-up job, pauses of at most two hours.
ANDINA_ERASE_HOURS = 24
ANDINA_PAUSE_HOURS = 2
SHORT_NAMES = {
    "Simple Memory": "Simple Memory",
    "Postgres Chat Memory": "Postgres",
    "Redis Chat Memory": "Redis",
}


def _keeps_through_the_pause(store: str) -> bool:
    """Whether *store* can keep a chat through Andina's pause: Simple Memory's idle hour is
    fixed (measured on its store's clock); Redis's TTL is set to the erasure deadline."""
    if store == "Simple Memory":
        clock = ManualClock()
        simple = SimpleMemoryStore(clock)
        simple.memory("andina", "chat").add(user("hi"), assistant("hello"))
        clock.advance(hours=ANDINA_PAUSE_HOURS)
        return len(simple.memory("andina", "chat")) > 0
    return True


def _check_5() -> dict[str, Any]:
    # (a) The rebuilt stores that delete a quiet chat by themselves and keep it through a pause.
    fitting = [
        name
        for name in store_choice.N8N_STORES
        if store_choice.measured(name).deletes_a_quiet_chat and _keeps_through_the_pause(name)
    ]
    # (b) The TTL that erases exactly ANDINA_ERASE_HOURS after the last write and keeps the
    # chat through a pause: checked on the Redis list on a hand-moved clock.
    ttl = andina_ttl()
    clock = ManualClock()
    redis = N8nRedisHistory(SqliteLists(":memory:", clock), "andina", session_ttl=ttl)
    redis.add_messages([user("hi"), assistant("hello")])
    clock.advance(seconds=ANDINA_PAUSE_HOURS * 3600)
    assert redis.get_messages(), "the chat must survive the longest pause"
    clock.advance(seconds=ttl - ANDINA_PAUSE_HOURS * 3600 - 1)
    kept_until_the_end = bool(redis.get_messages())
    clock.advance(seconds=1)
    assert kept_until_the_end and not redis.get_messages(), "erased exactly at the deadline"
    return {"5": SHORT_NAMES[fitting[0]] if len(fitting) == 1 else fitting}


def andina_ttl() -> int:
    """The *Session Time To Live* self-check 5's worked answer gives: the erasure deadline in seconds."""
    return ANDINA_ERASE_HOURS * 3600


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
            hint="when does n8n write a run's question and answer: when the run arrives, or once its model has answered?",
            mistakes={
                (
                    "A",
                    "B",
                ): "A arrived first, but a run writes its rows only once its model has answered: B's at second 7, A's at second 20",
                ("B",): "name both runs: whose rows come first, then whose come after",
                ("A",): "name both runs: whose rows come first, then whose come after",
            },
            form='a list of two names, such as ["A", "A"]: "A" or "B", in quotes',
            why="a run writes its question and answer only once its model has answered: B's at second 2 + 5 = 7, A's at second 20, so B's rows come before A's",
            transfer="two overlapping runs finishing in the other order than they arrived, where the lesson's picture has them finish in arrival order",
        ),
        Expectation(
            "4",
            _check_4,
            hint="which of the four events are followed by EXPIRE?",
            mistakes={
                "12:15": "the failed 11:15 run stored nothing in n8n, so no EXPIRE followed it",
                "11:50": "the 10:50 page load only read the list; only a write is followed by EXPIRE",
                "11:00": "the second saved run, at 10:20, moved the clock",
            },
            why="Redis counts from the last write; the page load and the failed run wrote nothing",
            transfer="a session with a page load and a failed run between its writes",
        ),
        Expectation(
            "5",
            _check_5,
            hint="which node erases a quiet chat by itself, at a time you set, and keeps it through a two-hour pause? Answer with its name as the answer cell spells it",
            mistakes={
                "Postgres": "Postgres keeps every row until someone deletes it: that is the clean-up job nobody will run",
                "MongoDB": "MongoDB Chat Memory never expires a document: only a clean-up job would erase it",
                "Simple Memory": "it deletes a quiet chat by itself, but after a fixed idle hour: a two-hour pause would lose the chat, and each nightly deploy empties it",
            },
            form='one of "Simple Memory", "Postgres", "Redis" or "MongoDB", in quotes',
            why="only Redis Chat Memory deletes a quiet chat by itself at a time you set, its TTL, so the chat survives the pause and is gone by the deadline",
            transfer="another team's needs, where two stores delete by themselves",
        ),
    ],
)
check = BOOK.check
