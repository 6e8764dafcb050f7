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
            {
                "a": unbounded.bill.peak,
                "b": unbounded.bill.calls * unbounded.bill.peak,
                "c": unbounded.bill.calls * unbounded.bill.peak / 2,
            },
            unbounded_bill,
        ),
        "2b": _nearest({"a": 2, "b": 4, "c": 8}, ratio_12_6),
    }


def _check_3() -> dict[str, Any]:
    runs = _runs()
    return {
        "3a": min(("truncate", "compact"), key=lambda name: runs[name].bill.input_tokens),
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
        "5b": _runs()["unbounded"].bill.peak,
    }


def _check_6() -> dict[str, Any]:
    prepared, runs = _prepared(), _runs()
    # The read whose arrival first takes the window over the budget triggers the first drop.
    first_drop = next(s for s in runs["truncate"].trace if s.event.value == "truncate")
    return {"6": f"Q{prepared.task.index(first_drop.question) + 1}"}


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
    return {"8": 2}


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
                "b": "the window reaches its peak only on the last call; earlier calls are smaller",
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
            hint="compaction pays extra calls; what does each summary do to the window every later call is charged on?",
            mistakes={
                "truncate": "truncation makes no extra call, but it keeps its window near the budget, while a summary leaves it well under",
            },
            why="each summary shrinks the window every later call pays for, which outweighs the compaction calls here",
            transfer="two policies' bills predicted before either has run",
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
            hint="a budget the window never goes over: the unbounded run's largest window",
            mistakes=lambda: {
                BUDGET: "at 1,500 the three policies already differ, as section 3 shows",
                _runs()[
                    "unbounded"
                ].bill.input_tokens: "that is the bill; the budget limits one window",
            },
            why="once the budget is at least the unbounded run's largest window, no policy ever acts",
        ),
        Expectation(
            "6",
            _check_6,
            hint="find the first call in the unbounded table whose window is over 1,500: which read had just come in?",
            mistakes={
                "Q7": "call 7 is Q7's read, but it is charged on the window as it stood when Q6's chunk came in",
                "Q1": "Q1's read is the one dropped; the question asks whose read made the window too big",
                "Q12": "the window passes 1,500 long before the last read",
            },
            why="the window passes 1,500 when Q6's chunk comes in, and truncation then drops the oldest read",
            transfer="the truncate run read off the unbounded table",
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
            hint="what does each search-and-read cost, and on what window?",
            mistakes={
                1: "the teammate does count every call's window; what is missing is the extra calls the searches make",
                3: "no summary is involved: the chunks are dropped and fetched again",
                4: "the budget is the point here, not a huge context",
            },
            why="every search again is one more call on a nearly full window, and a tighter budget drops more facts",
            transfer="a teammate's plan for a smaller budget",
        ),
    ],
)
check = BOOK.check
