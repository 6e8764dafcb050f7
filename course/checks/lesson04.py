"""Lesson 4's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from typing import Any

from windowmem.explorer.answer_forms import folded_text
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.outlive import expiry, store_choice
from windowmem.outlive import session_lock as lock
from windowmem.outlive import store_scenarios as scenarios

#: Self-check 1: Marta's six turns on two workers in turn, each with its own Simple Memory
#: (Context Window Length 2, as the lesson's table), and a deploy that restarts both before
#: turn 4; the check asks what turn 6 sends.
DEPLOY_STORE: scenarios.StoreName = "Simple Memory (in-process)"
DEPLOY_EVENT: scenarios.EventName = "the agent restarts"
ASKED_TURN = 6


def deploy_in_queue_mode(store: scenarios.StoreName = DEPLOY_STORE) -> list[str]:
    """What turn ASKED_TURN sends from memory in self-check 1's case, on *store*: u4 a4 ..."""
    call = scenarios.play_scenario(store, 2, DEPLOY_EVENT)[ASKED_TURN - 1]
    return [m.content[:2] for m in call.sent[:-1]]


def _check_1() -> dict[str, Any]:
    # Turn 6: what it sends besides its own question.
    return {"1": len(deploy_in_queue_mode())}


def clock_time(minute: float, start: int = 10) -> str:
    """Minutes after *start* o'clock as ``"HH:MM"``."""
    return f"{start + int(minute) // 60:02d}:{int(minute) % 60:02d}"


#: Self-check 2: the lock's TTL is the recipe's 60 s, but Marta's run at second 0 takes 75 s (a
#: slow model), and her next message comes at second 65, while that run still works.
SLOW_RUN = ("A", 0, 75)
SECOND_MESSAGE_AT = 65
#: Self-check 2's answers: the agent runs for the message, or the If sends it to One moment.
LOCK_REPLIES = ("agent", "one moment")


def second_message() -> lock.Outcome:
    """What the lock does with self-check 2's message at SECOND_MESSAGE_AT."""
    arrivals = [lock.Arrival(*SLOW_RUN), lock.Arrival("B", SECOND_MESSAGE_AT, 5)]
    return lock.admit(arrivals, ttl=lock.RECIPE_TTL)[1]


#: Self-check 2's rule: the slow run's Release the lock is a plain Delete, whoever took the key.
#: If the message at SECOND_MESSAGE_AT runs NEWER_RUN_SECONDS, the slow run's Release at 75 s
#: deletes the key that message took, and THIRD_MESSAGE runs beside it (Going further's cell).
NEWER_RUN_SECONDS = 20
THIRD_MESSAGE = ("C", 80, 5)


def third_message(ttl: float = lock.RECIPE_TTL) -> tuple[lock.Outcome, ...]:
    """The slow run, self-check 2's message running NEWER_RUN_SECONDS, and THIRD_MESSAGE, on *ttl*."""
    arrivals = [
        lock.Arrival(*SLOW_RUN),
        lock.Arrival("B", SECOND_MESSAGE_AT, NEWER_RUN_SECONDS),
        lock.Arrival(*THIRD_MESSAGE),
    ]
    return lock.admit(arrivals, ttl=ttl)


def _check_lock() -> dict[str, Any]:
    # The first Increment's EXPIRE deletes the key at 60 s, while the run still works: the
    # message at 65 s finds no key, Increment makes it 1, and it runs beside the slow run.
    outcome = second_message()
    return {"2": LOCK_REPLIES[0] if outcome.ran else LOCK_REPLIES[1]}


def short_reply(answer: str) -> str:
    """*answer* to self-check 2 as one of LOCK_REPLIES when it says one in other words.

    >>> short_reply("The agent answers."), short_reply("One-moment"), short_reply("x")
    ('agent', 'one moment', 'x')
    """
    folded = folded_text(answer).replace("-", " ")
    if folded in ("agent", "agent answers", "the agent", "agent runs", "answered", "answer"):
        return "agent"
    if folded in ("one moment", "moment", "one moment reply"):
        return "one moment"
    return answer


#: Self-check 3: saved runs at 10:00 and 10:20, a page load at 10:50, a failed run at 11:15
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


def _check_ttl() -> dict[str, Any]:
    # The smallest Session Time To Live whose key still holds her history when she comes back.
    day = [*MARTA_EVENTS, COMES_BACK]
    kept = [ttl for ttl in SESSION_TTLS if expiry.redis_chat_memory(day, ttl)[-1].found]
    return {"3": min(kept)}


#: Self-check 4: the clinic's need, a chat deleted a day after the patient's last saved run.
A_DAY = 24 * 60 * 60
#: Self-check 4's answers, one word each, and the node each names.
STORE_WORDS = {
    "simple": "Simple Memory",
    "postgres": "Postgres Chat Memory",
    "redis": "Redis Chat Memory",
}


def _check_store() -> dict[str, Any]:
    # Queue mode: every worker must see the chat; privacy: a quiet chat deleted by the store
    # itself, with no clean-up job. windowmem's rebuilds measure both for each node.
    fits = [
        word
        for word, node in STORE_WORDS.items()
        if store_choice.measured(node).shared_by_workers
        and store_choice.measured(node).deletes_a_quiet_chat
    ]
    # ... and Redis's Session Time To Live at a day keeps the chat a day, then deletes it.
    assert a_day_of_redis() == (True, False) and len(fits) == 1, fits
    return {"4": fits[0]}


def a_day_of_redis() -> tuple[bool, bool]:
    """With Session Time To Live A_DAY: is a chat found a minute before a day since its last
    saved run, and a minute after?"""
    minutes = A_DAY // 60
    before, after = (
        expiry.redis_chat_memory([expiry.Event(0, "write"), expiry.Event(at, "read")], A_DAY)[-1]
        for at in (minutes - 1, minutes + 1)
    )
    return before.found, after.found


class _StoreBook(CheckBook):
    """The lesson's book, reading check 4's node names in full ("Redis Chat Memory") and check 2's replies in other words."""

    def feedback(self, check_id: str, answer: Any) -> str:
        if check_id == "4" and isinstance(answer, str):
            answer = short_store_name(answer)
        if check_id == "2" and isinstance(answer, str):
            answer = short_reply(answer)
        return super().feedback(check_id, answer)


def short_store_name(answer: str) -> str:
    """*answer* as one of STORE_WORDS when it names a node in full or as PostgreSQL; else as is.

    >>> short_store_name(" Redis Chat Memory."), short_store_name("PostgreSQL"), short_store_name("x")
    ('redis', 'postgres', 'x')
    """
    folded = folded_text(answer)
    for word, node in STORE_WORDS.items():
        if folded in (folded_text(node), word + "ql", word + " memory"):
            return word
    return answer


BOOK = _StoreBook(
    4,
    [
        Expectation(
            "1",
            _check_1,
            hint="what did the deploy leave in each worker's memory, and which turns since then went to the worker that serves turn 6?",
            mistakes={
                4: "that is what turn 6 sends with no deploy, or with one shared memory; the deploy emptied both workers, and turn 5 went to worker 1",
                0: "the deploy emptied both memories, but worker 2 then served turn 4 and stored it",
                1: "that counts turns; count messages: a turn is a question and an answer",
                10: "the window is 2 turns, and the deploy emptied both memories",
            },
            why="the deploy emptied both memories; worker 2 serves turns 4 and 6, so at turn 6 it holds only turn 4, two messages (turn 5 is in worker 1's memory)",
            transfer="a deploy in queue mode, where the lesson's table shows the two workers without one: both of section 1's rules on one case",
        ),
        Expectation(
            "2",
            _check_lock,
            hint="when does the countdown that Take the lock started at second 0 reach zero, and is the key still there at 65?",
            mistakes={
                "one moment": "the run still works at 65, but Redis does not know that: Take the lock's countdown ended at second 60 and Redis deleted lock:abc, so Increment makes it 1: where does First run? send a count of 1?",
            },
            form='one of two, in quotes: "agent" or "one moment"',
            why="the Increment at second 0 set the countdown to 60 s; at 60 Redis deleted lock:abc although the run still worked, so at 65 Increment made it 1 and the agent runs beside the slow run, each blind to the other",
            transfer="a run longer than the lock's TTL, where the lesson's picture drew a crashed run",
        ),
        Expectation(
            "3",
            _check_ttl,
            hint="which of the events before 11:35 write to the key, so that EXPIRE follows them? Count from the last of those",
            mistakes={
                1800: "the failed 11:15 run stored nothing in n8n, so no EXPIRE followed it: the countdown runs from 10:20",
                3600: "the 10:50 page load only read the list; only a write is followed by EXPIRE: from 10:20 to 11:35 is 75 minutes, 4500 s",
            },
            form="a whole number of seconds: 1800, 3600 or 7200",
            why="only the saved runs sent EXPIRE, so the countdown runs from 10:20: 11:35 is 75 minutes (4500 s) later, past 3600 s, within 7200 s",
            transfer="a setting chosen for a customer's pause, with a page load and a failed run between her writes",
        ),
        Expectation(
            "4",
            _check_store,
            hint="which node is shared by every worker, and which deletes a quiet chat by itself after a time you choose?",
            mistakes={
                "simple": "in queue mode each worker has its own Simple Memory, so a patient is half forgotten; and its idle hour, which no setting changes, deletes a chat after an hour, not a day",
                "postgres": "Postgres keeps every chat until something deletes it, so the clinic would have to build and watch a clean-up job; and the clinic runs a Redis server anyway, since queue mode passes its runs through one",
            },
            form='one word, in quotes: "simple", "postgres" or "redis"',
            why="Redis Chat Memory is shared by every worker and, with Session Time To Live 86400 (a day in seconds), deletes a chat by itself a day after its last saved run",
            transfer="a new shop's needs (queue mode, a privacy rule, a wish to stay on Postgres), where the lesson worked TuTienda's",
        ),
    ],
)
check = BOOK.check
