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
from windowmem.outlive import store_scenarios as scenarios
from windowmem.outlive.agent_process import restart
from windowmem.outlive.product_stores import StoreSpec
from windowmem.outlive.workers import alternate
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.n8n import ManualClock
from windowmem.storage import backends
from windowmem.storage import layout_probes as probes
from windowmem.storage.spring_ai_jdbc import SpringAiJdbcRepository


@cache
def _stores() -> tuple[str, backends.Backends]:
    # The checks' own SQLite files, whatever servers the lesson found: a learner's cells
    # (or the lesson's own rows in PostgreSQL) cannot change an expected answer.
    workdir = tempfile.mkdtemp(prefix="lesson4-checks-")
    return workdir, backends.choose_backends({}, workdir)


def _spring_after_six(max_messages: int) -> list:
    """Spring AI's stored list once Marta's six turns are saved: one add per message."""
    window, stored = SpringAiMessageWindow(max_messages), []
    for question, answer in scenarios.MARTA_TURNS:
        for message in (user(question), assistant(answer)):
            stored = list(window.write(stored, [message]))
    return stored


def _check_1() -> dict[str, Any]:
    n8n_run = scenarios.play_scenario("n8n Postgres table")
    spring_run = scenarios.play_scenario("Spring AI JDBC (maxMessages 4)")
    # Turn 7 after the windows are raised: n8n to 10 interactions, Spring AI to 20 messages.
    turn_7 = user("u7 and when does it arrive?")
    return {
        "1a": len(n8n_run[-1].stored_after),
        "1b": len(_spring_after_six(5)),
        "1c": len(N8nSimpleMemory(10).load(n8n_run[-1].stored_after)),
        "1d": len(SpringAiMessageWindow(20).load_with(spring_run[-1].stored_after, [turn_7])) - 1,
    }


def _check_2() -> dict[str, Any]:
    _, chosen = _stores()
    spring_run = scenarios.play_scenario("Spring AI JDBC (maxMessages 4)")
    # Turn 7's run fails at the model call: n8n stores nothing for a failed run (seen running
    # in n8n 2.41.1), so the list holds the six turns' pushes and nothing more.
    head_turn = probes.lrange_head_turn(
        chosen.open_lists(ManualClock()), [q for q, _ in scenarios.MARTA_TURNS]
    )
    # Spring AI's advisor saves turn 7's question before the model call that fails (2.0.1):
    # one add on what turn 6 left, trimmed to maxMessages 4 and saved whole.
    after_failed_7 = SpringAiMessageWindow(4).write(
        spring_run[-1].stored_after, [user("u7 Hello?")]
    )
    repository = SpringAiJdbcRepository(chosen.open_sql())
    repository.delete_by_conversation_id("lesson4-checks-2b")
    repository.save_all("lesson4-checks-2b", list(after_failed_7))
    u6 = next(r[4] for r in repository.rows("lesson4-checks-2b") if r[1].startswith("u6"))
    repository.delete_by_conversation_id("lesson4-checks-2b")
    return {"2a": head_turn, "2b": u6}


def _check_3() -> dict[str, Any]:
    _, chosen = _stores()
    first_two, third_and_fourth = scenarios.MARTA_TURNS[:2], scenarios.MARTA_TURNS[2:4]
    spec_table = StoreSpec("n8n-sql", chosen.sql_location)
    spec_table.n8n_history("lesson4-restart").clear()
    _, after_in_process = restart(
        StoreSpec("in-process"), "lesson4-restart", 5, first_two, third_and_fourth
    )
    _, after_table = restart(spec_table, "lesson4-restart", 5, first_two, third_and_fourth)
    # Turn 4, the new process's second turn: what it sends besides its own question.
    return {"3a": len(after_in_process[1].sent) - 1, "3b": len(after_table[1].sent) - 1}


def _turns_sent(call) -> list[int]:
    """The earlier turns a call sent from memory, by number, in order (messages start u4, a4)."""
    turns: list[int] = []
    for text in call.sent[:-1]:
        if int(text[1]) not in turns:
            turns.append(int(text[1]))
    return turns


#: Two turns past the lesson's six, for self-check 4a: turn 7 on worker 1, turn 8 on worker 2.
TURNS_7_AND_8 = (
    ("u7 Can it come on Thursday?", "a7 Thursday works"),
    ("u8 Is the gift wrap still on?", "a8 Yes, it is"),
)


def _check_4() -> dict[str, Any]:
    # A window of 2 interactions, both past the lesson's table of six turns. (a) own maps,
    # turn 8 on worker 2; (b) one shared table, turn 7 on worker 1.
    workdir, _ = _stores()
    shared_file = StoreSpec("n8n-sql", os.path.join(workdir, "shared-window-2.db"))
    own_maps = alternate(
        StoreSpec("in-process"),
        "lesson4-workers",
        2,
        tuple(scenarios.MARTA_TURNS) + TURNS_7_AND_8,
    )
    one_file = alternate(
        shared_file, "lesson4-workers", 2, tuple(scenarios.MARTA_TURNS) + TURNS_7_AND_8[:1]
    )
    return {"4a": _turns_sent(own_maps[7]), "4b": _turns_sent(one_file[6])}


#: Self-check 5's timings. n8n: B arrives while A's model is answering, so B loads before A
#: writes (races.N8N_DURING_CALL). Spring AI: both get and find; B saves its question, then
#: A; then the answers, A first (races.SPRING_B_SAVES_FIRST).


def _check_5() -> dict[str, Any]:
    _, chosen = _stores()
    history = [user("u1 I'm Marta, order #6023"), assistant("a1 Noted, Marta")]
    pair = (
        races.Request("A", "question A", "answer A"),
        races.Request("B", "question B", "answer B"),
    )
    n8n_race = races.run_pair(
        "n8n",
        StoreSpec("n8n-sql", chosen.sql_location),
        "lesson4-race",
        history,
        pair,
        schedule=races.N8N_DURING_CALL,
    )
    spring_race = races.run_pair(
        "spring-ai",
        StoreSpec("spring-jdbc", chosen.sql_location),
        "lesson4-race",
        history,
        pair,
        schedule=races.SPRING_B_SAVES_FIRST,
    )
    return {
        "5a": len(n8n_race.sent["B"]) - 1,
        "5b": list(spring_race.stored[len(history) :]),
    }


def _check_6() -> dict[str, Any]:
    def clock_time(minute):
        return f"{10 + int(minute) // 60:02d}:{int(minute) % 60:02d}"

    marta_events = [
        expiry.Event(0, "write"),
        expiry.Event(20, "write"),
        expiry.Event(50, "read"),
        expiry.Event(75, "read"),
    ]
    # Spring AI's advisor saves the question before the model call (2.0.1), so the failed
    # 11:15 run is a write to its Redis repository.
    spring_events = marta_events[:3] + [expiry.Event(75, "write")]
    return {
        "6a": clock_time(expiry.expires_after(marta_events, "n8n Redis (sessionTTL 3600)")),
        "6b": clock_time(expiry.expires_after(spring_events, "Spring AI Redis (TTL 3600)")),
    }


def _check_7() -> dict[str, Any]:
    overlap = scenarios.play_scenario("Spring AI JDBC (maxMessages 4)", 1, "two requests at once")
    return {"7": len(overlap[4].stored_after)}


def _check_8() -> dict[str, Any]:
    # Her one write at 9:00, then at 9:45 a second workflow's saved run on the same key.
    events = [expiry.Event(0, "write"), expiry.Event(45, "write")]
    minute = int(expiry.expires_after(events, "n8n Redis (sessionTTL 3600)"))
    return {"8": f"{9 + minute // 60:02d}:{minute % 60:02d}"}


BOOK = CheckBook(
    4,
    [
        Expectation(
            "1a",
            _check_1,
            hint="n8n's store keeps every message of every turn; count the messages, not the window",
            mistakes={
                4: "4 is what the window sends; the table itself is never trimmed",
                6: "each turn stores two messages: the question and the answer",
            },
            why="n8n never trims its store: six turns, twelve rows",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="follow one turn's two adds with maxMessages 5: how long is the list after the question's add, and after the answer's? Then trim as section 1 does",
            mistakes={
                12: "that would be a store that keeps everything; Spring AI trims before it saves",
                11: "that would be a store that keeps everything; Spring AI trims before it saves",
                5: "five is maxMessages, a maximum: after an answer's add the last five would start with an answer, so the cut moves on to the next user message",
                6: "six is over maxMessages 5: the add trims the list before saveAll",
                3: "the turn is saved whole here, its answer too; count after the answer's add",
            },
            why="each answer's add makes six, the last five would start with an answer, and the cut moves to the next user message: u5 a5 u6 a6",
            transfer="an odd maxMessages, where the cut moves past an answer",
        ),
        Expectation(
            "1c",
            _check_1,
            hint="a window picks from what is stored: how much does n8n's store hold, and how much does a window of 10 let through?",
            mistakes={
                4: "that was the window of 2; a window of 10 interactions lets through up to 20 messages",
                20: "the window is a maximum: it cannot send more than the store holds",
                14: "count only the earlier messages, not turn 7's own question",
            },
            why="n8n's store still holds all twelve messages, and a window of 10 interactions lets them all through",
            transfer="a larger window after the fact",
        ),
        Expectation(
            "1d",
            _check_1,
            hint="a window picks from what is stored: what is left in Spring AI's table after turn 6?",
            mistakes={
                12: "turns 1 to 4 were deleted when the window was 4; a bigger window cannot bring them back",
                20: "the window is a maximum: it cannot send more than the table holds",
            },
            why="Spring AI's table kept only the window of 4, so a window of 20 finds those four and no more",
            transfer="a larger window after the fact",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="LPUSH puts each new element at the head of the list; what did the failed run push?",
            mistakes={
                7: "a failed n8n run stores nothing, so turn 7 pushed no element",
                1: "that would be RPUSH order; n8n's store pushes at the head and reverses on load",
            },
            why="the failed run wrote nothing, and LPUSH left the last message written, turn 6's answer, at the front",
            transfer="a failed turn on a list that LPUSH built",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="what did Spring AI's advisor save before the model call failed, how did that add trim the list, and where does saveAll start counting?",
            mistakes={
                2: "that is u6's number after turn 6; the failed run's question was saved before its model call, and that save trimmed and renumbered the list",
                1: "five messages, trimmed to the last four, would start with the answer a5: the cut moves on to the next user message",
                12: "that counts every message of the chat; the table holds only the window, renumbered on each save",
                13: "that counts every message of the chat; the table holds only the window, renumbered on each save",
            },
            why="the advisor saved u7 before the call failed; that add cut the list to u6 a6 u7, and saveAll numbered it from 0",
            transfer="a failed run on Spring AI's table, whose rows are renumbered on every save",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="where does Simple Memory keep its map, what does the new process start with, and what does turn 3 add to it?",
            mistakes={
                6: "that is what a store outside the process gives; Simple Memory lived inside the one that exited",
                4: "turns 1 and 2 left with the old process; count what the new one has stored",
                0: "turn 3 found an empty map, but the new process then stored turn 3 in it",
            },
            why="the new process started with an empty map and has stored only turn 3",
            transfer="a second turn in the new process, which nothing above the question works",
        ),
        Expectation(
            "3b",
            _check_3,
            hint="the new process opens the same table",
            mistakes={
                0: "the table is in the database, which did not restart",
                2: "the table also holds turns 1 and 2, written by the old process",
                4: "count turn 3 too: the new process stored it before turn 4",
            },
            why="the table is outside the process",
            transfer="the n8n table across a restart",
        ),
        Expectation(
            "4a",
            _check_4,
            hint="which turns has worker 2 answered itself by turn 8, and how many of them does a window of 2 interactions let through?",
            mistakes={
                (
                    6,
                    7,
                ): "that is what one shared store gives; worker 2's own map never saw turn 7",
                (
                    2,
                    4,
                    6,
                ): "worker 2's map holds those, but a window of 2 interactions sends at most two turns",
                (
                    2,
                    4,
                ): "by turn 8 worker 2 has also served turn 6, and the window keeps the latest turns",
                (
                    4,
                    6,
                    8,
                ): "turn 8 is the one being answered; list only the earlier turns it sends from memory",
                (6,): "a window of 2 interactions holds two turns, and worker 2's map has three",
            },
            why="each worker's own map holds only the turns it served, here 2, 4 and 6, and the window sends the last two of them",
            transfer="two more turns than the lesson's table, where the window cuts a worker's own half",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="both workers write to and read from one table; what does it hold by turn 7, and which of its turns does a window of 2 interactions send?",
            mistakes={
                (
                    3,
                    5,
                ): "that is what worker 1's own map would give; with one table both workers see every turn",
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "the table holds every turn so far, but a window of 2 interactions sends only the last two",
                (6,): "a window of 2 interactions is two turns, four messages",
                (
                    4,
                    5,
                ): "that is what turn 6 sent; by turn 7 the table holds one more turn",
                (
                    6,
                    7,
                ): "turn 7 is the one being answered; list only the earlier turns it sends from memory",
            },
            why="one shared table holds every turn, whichever worker wrote it, and the window sends the last two",
            transfer="turn 7, one past the lesson's table, on the shared table",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="when does n8n write A's question to the table: before A's model call or after it?",
            mistakes={
                3: "that counts question A, which n8n writes only once A's model has answered, or B's own question, which is not an earlier message",
                4: "A's messages are written only once A's model has answered, and B loaded while it was still answering",
                0: "B still loads the messages stored before either request",
            },
            why="n8n writes a run only once its model answers, so for the whole model call a second request loads a history without it",
            transfer="a second request that arrives during the first one's model call",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="a save replaces the whole list with what its own find read, plus its message; follow the four saves in order",
            mistakes={
                (
                    "question B",
                    "answer A",
                    "answer B",
                ): "A saved its question last, from a read without question B, so its list is the one that stayed",
                (
                    "question A",
                    "question B",
                    "answer A",
                    "answer B",
                ): "nothing lost would need each save to read the other's question; both questions were saved from one read",
                (
                    "question A",
                    "answer A",
                ): "B's answer add finds the list again after A's answer save, so it keeps answer A",
                (
                    "question A",
                    "answer B",
                ): "B's answer add finds the list again after A's answer save, so it keeps answer A",
            },
            why="each saveAll replaces the whole list; A's question save, made without question B, came last, and each answer's add re-read the list",
        ),
        Expectation(
            "6a",
            _check_6,
            hint="which of the four events run EXPIRE?",
            mistakes={
                "12:15": "the failed 11:15 run stored nothing in n8n, so no EXPIRE followed it",
                "11:50": "the 10:50 load only read the list; only a write is followed by EXPIRE",
                "11:00": "the second write moved the clock",
            },
            why="Redis counts from the last write; reads do not move its clock",
            transfer="a session with reads and writes at other times",
        ),
        Expectation(
            "6b",
            _check_6,
            hint="what did the failed Spring AI run save before its model call, and which clock does a save reset?",
            mistakes={
                "11:20": "that treats the failed run as a read; Spring AI's advisor had already saved its question",
                "11:00": "the 10:20 write moved the clock, and so did the failed run's save",
                "11:50": "the 10:50 load only read the memory; a read saves no key",
            },
            why="Spring AI saved the failed run's question before the model call, and every add saves all keys again",
            transfer="Spring AI's Redis repository and a failed run",
        ),
        Expectation(
            "7",
            _check_7,
            hint="one question was replaced by the other save; then both answers were added and trimmed",
            mistakes={
                4: "that is the count without the overlap; one of the questions is lost",
                6: "Spring AI's store holds at most maxMessages = 4, and here one message is lost on top",
            },
            why="Spring AI's list is replaced by the last writer, trimmed to the window",
            transfer="two requests at once on the window store",
        ),
        Expectation(
            "8",
            _check_8,
            hint="which writes reach her key, and which clock does n8n's Redis TTL count from?",
            mistakes={
                "10:00": "that counts from her own last message; the second workflow's saved run wrote to the same key, and every write is followed by EXPIRE",
                "never": "a sessionTTL above 0 does expire the key; only the clock it counts from is in question",
                "09:45": "the 9:45 write does not delete the key; it sets its TTL again",
            },
            why="the TTL belongs to the key, and the second workflow's write set it again, so the key expired an hour after 9:45",
            transfer="a second workflow writing to the same Redis key",
        ),
    ],
)
check = BOOK.check
