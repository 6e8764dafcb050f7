"""Lesson 6's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem.budget import help_centre, prepare, run_task
from windowmem.cost import tokens_per_call
from windowmem.examples import ANCHOR_FACTS, generated_support
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.policies import N8nSimpleMemory
from windowmem.recall import fact_visible
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter

QWEN = qwen_counter()
BUDGET = 1500
POLICIES = ("unbounded", "truncate", "compact", "retrieve")


@cache
def _prepared() -> Any:
    return prepare(help_centre())


@cache
def _runs() -> dict[str, Any]:
    # Section 3's four runs at the lesson's budget.
    return {name: run_task(_prepared(), BUDGET, name) for name in POLICIES}


def _nearest(options: dict[str, float], value: float) -> str:
    return min(options.items(), key=lambda kv: abs(kv[1] - value))[0]


def _check_1() -> dict[str, Any]:
    prepared = _prepared()
    # 1a's premise: search ranks the answer first for eleven questions and second for one.
    ranks = sorted(prepared.answer_rank[q] for q in prepared.task)
    if ranks != [0] * (len(prepared.task) - 1) + [1]:
        raise AssertionError(f"self-check 1a's premise no longer holds: answer ranks {ranks}")
    # 1b's premise: the retrieve run ends holding 5 facts.
    retrieved = _runs()["retrieve"]
    if retrieved.facts_known()[-1] != 5:
        raise AssertionError("self-check 1b's premise (5 facts left) no longer holds")
    return {
        "1a": _runs()["unbounded"].bill.calls,
        "1b": retrieved.answered == len(prepared.task),
    }


def _check_2() -> dict[str, Any]:
    prepared = _prepared()
    corpus = prepared.corpus
    unbounded = _runs()["unbounded"]
    unbounded_bill = unbounded.bill.input_tokens
    ratio_12_6 = (
        run_task(prepare(corpus, 12), 10**6, "unbounded").bill.input_tokens
        / run_task(prepare(corpus, 6), 10**6, "unbounded").bill.input_tokens
    )
    return {"2a": round(unbounded_bill, -3), "2b": round(ratio_12_6)}


def _check_2_mistakes() -> dict[Any, str]:
    unbounded = _runs()["unbounded"]
    calls, last = unbounded.bill.calls, unbounded.bill.peak
    return {
        round(
            calls * last, -3
        ): "that charges every call at the last size; the earlier calls are smaller",
        round(
            calls * last / 2, -3
        ): "close, but the first call already carries the system prompt and the task "
        "text: average the first and the last call's size",
        round(last, -3): "the window is paid for on every call, not once",
        last: "the window is paid for on every call, not once",
    }


def _check_3() -> dict[str, Any]:
    runs = _runs()
    return {
        "3a": min(runs, key=lambda name: runs[name].answered),
        "3b": max(runs, key=lambda name: runs[name].bill.input_tokens),
    }


def _check_4() -> dict[str, Any]:
    lossy = run_task(_prepared(), BUDGET, "compact", summariser="lossy")
    perfect = _runs()["compact"]
    return {"4": "lower" if lossy.bill.input_tokens < perfect.bill.input_tokens else "higher"}


def _check_5() -> dict[str, Any]:
    prepared = _prepared()
    return {
        "5a": run_task(prepared, 1000, "truncate").answered,
        # One token under the unbounded run's peak.
        "5b": run_task(prepared, _runs()["unbounded"].bill.peak - 1, "truncate").answered,
    }


def _check_6() -> dict[str, Any]:
    prepared, runs = _prepared(), _runs()
    # The read whose arrival takes the window over the budget again triggers the second drop.
    second_drop = [s for s in runs["truncate"].trace if s.event.value == "truncate"][1]
    return {"6": f"Q{prepared.task.index(second_drop.question) + 1}"}


def _check_7() -> dict[str, Any]:
    long_chat = generated_support(300)
    order = ANCHOR_FACTS["support_60"]
    last = long_chat.turn_count
    keep_all, window_10 = N8nSimpleMemory(0), N8nSimpleMemory(10)
    bills = {
        name: sum(tokens_per_call(long_chat, policy, QWEN))
        for name, policy in [("all", keep_all), ("10", window_10)]
    }
    recent = turn_view(long_chat, window_10, last, QWEN)
    return {
        "7a": _nearest({"a": 14, "b": 2, "c": 5}, bills["all"] / bills["10"]),
        "7b": fact_visible(recent, order),
    }


def _check_8() -> dict[str, Any]:
    # One token under the unbounded run's peak, where truncation drops only Q1's read.
    return {"8": run_task(_prepared(), _runs()["unbounded"].bill.peak - 1, "retrieve").bill.calls}


BOOK = CheckBook(
    6,
    [
        Expectation(
            "1a",
            _check_1,
            hint="one call per read, and one more that writes the answers",
            mistakes={
                12: "one call per read, and one question takes two reads; the last call writes the answers",
                13: "count a call for every read (one question takes two) and one that writes the answers",
                26: "a read is one call: the search call brings the chunk in",
            },
            why="thirteen reads (one question takes two) and one call that answers everything",
            transfer="the calls counted from search's ranks, before the table shows them",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="a question is judged at the moment it is answered",
            mistakes={
                False: "each question is judged when it is answered; a re-read can bring its fact back just for then"
            },
            why="an answer counts at the moment it is given, even if the fact is later dropped",
            transfer="retrieve, a policy not yet run",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="average the first and the last call's size, times the calls; round to the nearest thousand",
            mistakes=_check_2_mistakes,
            why="each call resends a size that grows from 193 to 2,951, so the bill is about the average size times 14",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="twice the calls, and each call carries about twice as much",
            mistakes={
                2: "that would hold if every call cost the same; later calls carry every earlier read",
                8: "too high: the bill grows with the square of the task, not the cube",
            },
            why="twice the calls, each with about twice the window",
            transfer="a task of half the length",
        ),
        Expectation(
            "3a",
            _check_3,
            hint="which policy has no way to get a dropped fact back?",
            mistakes={
                "unbounded": "with no budget nothing ever leaves the window: every fact is there when its question comes",
                "compact": "the perfect summariser keeps a line for every fact it replaces",
                "retrieve": "retrieve reads a missing fact again just before its question",
            },
            why="truncation drops the oldest reads for good, while the others keep or fetch back every fact",
            transfer="four policies' answers predicted before any has run",
        ),
        Expectation(
            "3b",
            _check_3,
            hint="count the reads: which policy reads chunks a second time?",
            mistakes={
                "unbounded": "no budget is dear, but re-reading pays for a full window on every extra call",
                "compact": "compaction adds a call per compaction, and leaves a small window behind",
            },
            why="every re-read pays for a full window again",
        ),
        Expectation(
            "4",
            _check_4,
            hint="a summary with fewer lines is a smaller window on every later call",
            mistakes={
                "higher": "losing lines makes the summary shorter, and every later call cheaper: that is the trap"
            },
            why="fewer summary lines make a smaller window, so it costs a little less while answering less",
            transfer="a lossy summariser",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="add the last reads' exact sizes (section 2's table) to the opening 193 until they pass 1,000",
            mistakes={
                5: "5 is the answer at 1,500; a smaller window holds fewer reads",
                12: "truncation cannot bring a dropped fact back",
                4: "the last four reads and the opening 193 make 1,010 tokens, ten over, and the oldest of them holds no fact anyway",
            },
            why="a smaller window holds fewer reads, and truncation cannot bring a fact back",
            transfer="another budget (1,000 tokens)",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="which read takes the window over 2,950, and what does truncation drop then?",
            mistakes={
                12: "the last read takes the window to its peak, one token over the budget, and truncation acts",
                5: "5 is the answer at 1,500; here only the very last read goes over",
                10: "truncation drops reads until the window fits; one read of about 200 tokens is enough",
            },
            why="only the last read goes over, and truncation drops the oldest read, Q1's; Q7's copy of that chunk counts only for Q7",
            transfer="a budget one token under the peak",
        ),
        Expectation(
            "6",
            _check_6,
            hint="after the first drop the window is one read smaller; how many more chunks take it over 1,500 again?",
            mistakes={
                "Q6": "Q6's chunk made the first drop; the question asks for the second",
                "Q2": "Q2's read is the one dropped the second time; the question asks whose chunk made the window too big",
                "Q8": "one chunk is enough: the drop freed 195 tokens, and the next read fills them",
            },
            why="dropping Q1's read freed about one chunk, and the next chunk in fills it and goes over again",
            transfer="the truncate run after its first drop, which the unbounded table does not show",
        ),
        Expectation(
            "7a",
            _check_7,
            hint="kept turns pile up: call t carries all t − 1 earlier turns",
            mistakes={
                "b": "keeping everything makes each call grow with the chat; the window's calls stop growing",
                "c": "still too low: over 300 turns the gap keeps widening with every turn",
            },
            why="keeping every turn resends a growing history on every one of 300 calls",
            transfer="a 300-turn chat",
        ),
        Expectation(
            "7b",
            _check_7,
            hint="which turns does a window of 10 hold on turn 300?",
            mistakes={
                True: "a window of 10 holds turns 290 to 299; the number was given on turn 1"
            },
            why="the order number was given early and the window holds only the last 10 turns",
        ),
        Expectation(
            "8",
            _check_8,
            hint="Q1's re-read brings the size back to 2,951: what does truncation drop then, and whose question comes next?",
            mistakes={
                14: "that is the unbounded run; retrieve reads Q1's fact again before answering Q1",
                15: "Q1's re-read takes the size over 2,950 again, and truncation pushes out the oldest read left, Q2's, just before Q2 is answered",
                27: "the chain stops before the end: once the oldest read left is one that holds no fact, dropping it costs no question",
                22: "count the call that writes the answers too",
            },
            why="each re-read pushes out the next question's read, until the oldest read left holds no fact (Q10's first): nine re-reads",
            transfer="retrieve just under the peak, a budget the page has not run it at",
        ),
    ],
)
check = BOOK.check
