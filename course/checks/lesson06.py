"""Lesson 6's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from windowmem import Conversation, system
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
    return {"1a": _runs()["unbounded"].bill.calls}


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
        "3a": runs["truncate"].answered,
        "3b": max(runs, key=lambda name: runs[name].bill.input_tokens),
    }


def _check_3a_mistakes() -> dict[Any, str]:
    # The reads the last call's size holds under truncate at 1,500: one of them holds no fact.
    last = _runs()["truncate"].trace[-1].context
    reads = [item for item in last if item.kind.value == "read"]
    return {
        len(reads): "that many reads fit, but one of them (Q10's first) holds no fact",
        len(reads) + 1: "one read too many: add the opening 193 tokens before the reads",
        12: "truncation drops the oldest reads and nothing brings them back",
        0: "the last reads are still in the window when the answering starts",
    }


def _lossy_saving() -> float:
    lossy = run_task(_prepared(), BUDGET, "compact", summariser="lossy")
    perfect = _runs()["compact"]
    return 1 - lossy.bill.input_tokens / perfect.bill.input_tokens


def _check_4() -> dict[str, Any]:
    return {"4": _nearest({"a": 0.03, "b": 0.25, "c": 0.5}, _lossy_saving())}


def _check_5() -> dict[str, Any]:
    prepared = _prepared()
    # One token under the unbounded run's peak.
    return {"5": run_task(prepared, _runs()["unbounded"].bill.peak - 1, "truncate").answered}


def _reread_while_answering(budget: int) -> set[int]:
    """The task positions of the questions read again while answering, under retrieve."""
    prepared = _prepared()
    reads = [s for s in run_task(prepared, budget, "retrieve").trace if s.event.value == "read"]
    # The reading pass makes the unbounded run's reads; every later read is a re-read.
    first_pass = _runs()["unbounded"].bill.reads
    return {prepared.task.index(s.question) + 1 for s in reads[first_pass:]}


def pushed_out(budget: int) -> list[tuple[int, int, int, list[list[int]]]]:
    """Each re-read under retrieve at *budget*, in order, and what it pushed out of the window.

    A row per re-read: its question's task position, the window's tokens with it, the
    tokens after the drop that follows it, and the facts (task positions) of each read that
    drop pushed out (``[]`` for a read that holds no fact).
    """
    prepared = _prepared()
    result = run_task(prepared, budget, "retrieve")
    position = {q: n for n, q in enumerate(prepared.task, 1)}
    reads = [s for s in result.trace if s.event.value == "read"]
    rows = []
    # The reading pass makes the unbounded run's reads; every later read is a re-read.
    for read in reads[_runs()["unbounded"].bill.reads :]:
        drop = result.trace[read.number + 1]
        gone = [i for i in read.context if i not in drop.context and i.kind.value == "read"]
        facts = [sorted(position[q] for q in i.facts) for i in gone]
        rows.append((position[read.question], read.used, drop.used, facts))
    return rows


def _first_factless_push_out(budget: int) -> int:
    """The task position of the first question whose re-read pushes out a read with no fact."""
    for question, _, _, gone in pushed_out(budget):
        if [] in gone:
            return question
    raise AssertionError(f"no re-read pushes out a read with no fact at {budget}")


def _check_6() -> dict[str, Any]:
    return {"6a": _first_factless_push_out(2000), "6b": len(_reread_while_answering(2000))}


def _check_6b_mistakes() -> dict[Any, str]:
    lost = len(_prepared().task) - run_task(_prepared(), 2000, "truncate").answered
    mistakes = {
        13: "count questions, not reads: one question takes two reads",
        0: "at 2,000 tokens the early reads are gone before the answering starts",
    }
    mistakes[lost] = (
        "the chain does not stop at the read with no fact: the re-reads before it had already "
        "pushed out the reads of questions still to come"
    )
    return mistakes


def _check_7() -> dict[str, Any]:
    long_chat = generated_support(300)
    order = ANCHOR_FACTS["support_60"]
    last = long_chat.turn_count
    keep_all, window_10 = N8nSimpleMemory(0), N8nSimpleMemory(10)
    bills = {
        name: sum(tokens_per_call(long_chat, policy, QWEN))
        for name, policy in [("all", keep_all), ("10", window_10)]
    }
    pinned = pinned_chat(long_chat, order)
    pinned_bill = sum(tokens_per_call(pinned, window_10, QWEN))
    # 7b's premise: the pinned sentence adds the same few tokens to every call.
    extra = {
        p - w
        for p, w in zip(
            tokens_per_call(pinned, window_10, QWEN), tokens_per_call(long_chat, window_10, QWEN)
        )
    }
    recent, kept = (
        turn_view(long_chat, window_10, last, QWEN),
        turn_view(pinned, window_10, last, QWEN),
    )
    if len(extra) != 1 or fact_visible(recent, order) or not fact_visible(kept, order):
        raise AssertionError(f"self-check 7b's premise no longer holds: {extra}")
    return {
        "7a": _nearest({"a": 14, "b": 2, "c": 5}, bills["all"] / bills["10"]),
        "7b": pinned_bill - bills["10"],
    }


def _check_7b_mistakes() -> dict[Any, str]:
    long_chat = generated_support(300)
    window_10 = N8nSimpleMemory(10)
    last = long_chat.turn_count
    per_call = (
        turn_view(
            pinned_chat(long_chat, ANCHOR_FACTS["support_60"]), window_10, last, QWEN
        ).input_tokens
        - turn_view(long_chat, window_10, last, QWEN).input_tokens
    )
    return {
        per_call: "that is one call's share: the system message is sent again on every call",
        0: "the window still holds 10 turns; the system message is extra, on every call",
    }


def pinned_chat(long_chat: Any, order: str) -> Any:
    """The long chat with the order number pinned in its system message, as the page builds it."""
    return Conversation(
        (
            system(f"{long_chat.system_message.content} The customer's order number is {order}."),
            *long_chat.messages[1:],
        ),
        title="the same chat, order number pinned in the system message",
    )


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
            hint="take 193 tokens from 1,500 and count how many reads of about 200 tokens fit; "
            "then ask which of the last reads hold a fact",
            mistakes=_check_3a_mistakes,
            why="six reads fit after the opening 193 tokens, and one of them, Q10's first, holds no fact",
            transfer="truncation's answers counted from the budget, before any bounded run is shown",
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
            hint="a lost line is about 20 tokens; what else does each call carry?",
            mistakes={
                "b": "too much: a lost line saves about 20 tokens a call, beside some 1,000 tokens of "
                "system prompt, task text and reads that no summariser touches",
                "c": "far too much: the reads and the task text, most of every call, are untouched; "
                "only the summary's lines go, about 20 tokens each",
            },
            why="only the summary shrinks, and its lines are small beside the reads every call carries",
            transfer="a lossy summariser",
        ),
        Expectation(
            "5",
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
            "6a",
            _check_6,
            hint="first find the reads still in the window when the answering starts (section 2's "
            "call tokens give each read's size); then, for each re-read, add its size and drop the "
            "oldest reads until the size fits 2,000",
            mistakes={
                1: "Q1's re-read pushes out the oldest read, Q6's, which holds Q6's fact",
                6: "Q6's read is the first to go; count the re-reads from Q1's, one read pushed out each",
                10: "Q10's first read is the one with no fact; the question is whose re-read pushes it out",
            },
            why="Q1's to Q4's re-reads push out Q6's to Q9's reads, and the next one meets Q10's first, factless read",
            transfer="retrieve at 2,000 tokens, a budget the page has not run it at",
        ),
        Expectation(
            "6b",
            _check_6,
            hint="when Q6 comes to be answered, is its read still in the window?",
            mistakes=_check_6b_mistakes,
            why="the re-reads of Q1 to Q4 had already pushed out Q6's to Q9's facts, so the factless "
            "drop comes too late to stop the chain",
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
            hint="the system message goes out on every call",
            mistakes=_check_7b_mistakes,
            why="the pinned sentence rides on every one of the 300 calls",
            transfer="the price of pinning, which the lesson has not worked",
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
