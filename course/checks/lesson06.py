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
    retrieved = run_task(prepared, 1500, "retrieve")
    return {"1a": len(prepared.task) + 1, "1b": retrieved.answered > retrieved.facts_known()[-1]}


def _check_2() -> dict[str, Any]:
    prepared = _prepared()
    corpus = prepared.corpus
    unbounded = _runs()["unbounded"]
    unbounded_bill = unbounded.bill.input_tokens
    ratio_12_6 = (
        run_task(prepare(corpus, 12), 10**6, "unbounded").bill.input_tokens
        / run_task(prepare(corpus, 6), 10**6, "unbounded").bill.input_tokens
    )
    return {
        "2a": _nearest(
            # The options as the page rounds them: the last window, half of calls × last
            # window, and calls × last window.
            {
                "a": unbounded.bill.peak,
                "b": unbounded.bill.calls * unbounded.bill.peak / 2,
                "c": unbounded.bill.calls * unbounded.bill.peak,
            },
            unbounded_bill,
        ),
        "2b": _nearest({"a": 2, "b": 4, "c": 8}, ratio_12_6),
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
        "7a": _nearest({"a": 2, "b": 5, "c": 14}, bills["all"] / bills["10"]),
        "7b": fact_visible(recent, order),
    }


def _check_8() -> dict[str, Any]:
    return {"8": run_task(_prepared(), 750, "retrieve").bill.calls}


BOOK = CheckBook(
    6,
    [
        Expectation(
            "1a",
            _check_1,
            hint="one call per read, and one more",
            mistakes={
                12: "one call per read gives twelve, and the last call writes the answers",
                24: "a read is one call: the search call brings the chunk in",
            },
            why="twelve reads and one call that answers everything",
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
            hint="each call pays for the window as it was at that call",
            mistakes={
                "a": "the window is paid for on every call, not once",
                "c": "that charges every call on the last window; earlier calls are smaller",
            },
            why="each call resends a window that grows, so the bill is about half of calls × last window",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="twice the calls, and each call carries about twice as much",
            mistakes={
                "a": "that would hold if every call cost the same; later calls carry every earlier read",
                "c": "too high: the bill grows with the square of the task, not the cube",
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
            hint="(1,000 − system prompt − task) / (a read's size) reads fit; each holds at most one fact",
            mistakes={
                5: "5 is the answer at 1,500; a smaller window holds fewer reads",
                12: "truncation cannot bring a dropped fact back",
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
            why="only the last read goes over, and truncation drops the oldest read, Q1's, with its fact",
            transfer="a budget one token under the peak",
        ),
        Expectation(
            "6",
            _check_6,
            hint="after the first drop the window is one read smaller; how many more chunks take it over 1,500 again?",
            mistakes={
                "Q6": "Q6's chunk made the first drop; the question asks for the second",
                "Q2": "Q2's read is the one dropped the second time; the question asks whose chunk made the window too big",
                "Q8": "one chunk is enough: the drop freed about one read's worth, and the next read fills it",
            },
            why="dropping Q1's read freed about one chunk, and the next chunk in fills it and goes over again",
            transfer="the truncate run after its first drop, which the unbounded table does not show",
        ),
        Expectation(
            "7a",
            _check_7,
            hint="kept turns pile up: call t carries all t − 1 earlier turns",
            mistakes={
                "a": "keeping everything makes each call grow with the chat; the window's calls stop growing",
                "b": "still too low: over 300 turns the gap keeps widening with every turn",
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
            hint="at 1,500, how many questions already had their fact read again?",
            mistakes={
                14: "that is the unbounded run; retrieve reads a missing fact again before answering",
                13: "retrieve's re-reads are calls too, on top of the 13 first reads",
                54: "each question is read again at most once before it is answered (Q10's read takes two calls)",
            },
            why="already at 1,500 every fact was read again, and no budget can re-read more than every fact",
            transfer="retrieve at a budget the page has not run",
        ),
    ],
)
check = BOOK.check
