"""One call of the budget task as the message array an agent sends: role, what it is, its tokens.

The engine keeps a call's context as items (:mod:`windowmem.budget.context`); a developer
knows it as a list of messages. Here each item becomes one: the system prompt, the task as
the user's message, and each read as the tool result that brought its chunk. The simulation
counts no assistant messages (the model's ``search(...)`` calls), so none are listed.

>>> from windowmem.budget import help_centre, prepare, run_task
>>> prepared = prepare(help_centre())
>>> sent = call_messages(run_task(prepared, 1500, "unbounded"), 2, prepared)
>>> [(m.role, m.tokens) for m in sent]
[('system', 33), ('user', 160), ('tool', 195)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from windowmem.budget.context import ItemKind
from windowmem.budget.engine import TaskResult
from windowmem.budget.money import call_steps, item_label
from windowmem.budget.prepared import Prepared
from windowmem.budget.prompts import SYSTEM_PROMPT, task_prompt

#: The role each kind of context item is sent as.
ROLES = {
    ItemKind.SYSTEM: "system",
    ItemKind.TASK: "user",
    ItemKind.READ: "tool",
    ItemKind.SUMMARY: "user",
    ItemKind.REFERENCE: "tool",
}


@dataclass(frozen=True)
class SentMessage:
    """One message of a call: its role, what it is in a reader's words, its text and tokens."""

    role: str
    what: str
    text: str
    tokens: int


def call_messages(result: TaskResult, number: int, prepared: Prepared) -> tuple[SentMessage, ...]:
    """Call *number* (from 1) of *result*, run on *prepared*, as the messages it sends, in order.

    Reads and the texts of the system prompt and task are given in full; a summary or a
    reference is named only (its words are the engine's, not shown here).
    """
    steps = call_steps(result)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(steps):
        raise ValueError(f"call {number!r} is not one of this run's calls: use 1 to {len(steps)}")
    questions = prepared.corpus.questions
    sent = []
    for item in steps[number - 1].context:
        if item.kind is ItemKind.SYSTEM:
            text = SYSTEM_PROMPT
        elif item.kind is ItemKind.TASK:
            text = task_prompt(questions[q].question for q in prepared.task)
        elif item.kind is ItemKind.READ and item.chunk is not None:
            text = prepared.chunks[item.chunk].text
        else:
            text = ""
        sent.append(SentMessage(ROLES[item.kind], item_label(item, result.task), text, item.tokens))
    return tuple(sent)


def show_call(messages: tuple[SentMessage, ...], width: int = 44) -> str:
    """*messages* as a short printed array, one message a line: its role, the start of its
    text, and in a comment what it is and its tokens.

    >>> print(show_call((SentMessage("system", "system prompt", "You are a research agent.", 6),)))
    [
      {"role": "system", "content": "You are a research agent."},  # system prompt, 6 tokens
    ]
    """
    shown = []
    for m in messages:
        start = " ".join(m.text.split())
        start = start if len(start) <= width else start[: width - 1] + "…"
        shown.append((f'  {{"role": "{m.role}", "content": "{start}"}},', m))
    pad = max(len(line) for line, _ in shown) if shown else 0
    lines = [f"{line:<{pad}}  # {m.what}, {m.tokens} tokens" for line, m in shown]
    return "\n".join(["[", *lines, "]"])


def same_starts(
    calls: Sequence[Sequence[Any]], size: Callable[[Sequence[Any]], int]
) -> list[tuple[int, int, int | None, bool]]:
    """Each call an agent sent, against the call before: what a prompt cache can reuse.

    *calls* are the message lists of the calls, in order; two messages match when their
    ``id`` is the same (LangChain gives every message one). *size* gives the tokens of a list
    of messages. A row is the call's number (from 1), its size, the size of the start it
    shares with the call before (``None`` for the first call), and whether the call before
    lost messages from that start (a cut).

    >>> from types import SimpleNamespace as M
    >>> a, b, c = M(id="a"), M(id="b"), M(id="c")
    >>> same_starts([[a], [a, b], [a, c]], len)
    [(1, 1, None, False), (2, 2, 1, False), (3, 2, 1, True)]
    """
    rows: list[tuple[int, int, int | None, bool]] = []
    before: Sequence[Any] = ()
    for number, now in enumerate(calls, start=1):
        same = 0
        while same < min(len(before), len(now)) and before[same].id == now[same].id:
            same += 1
        shared = size(now[:same]) if number > 1 else None
        rows.append((number, size(now), shared, number > 1 and same < len(before)))
        before = now
    return rows


def show_same_starts(calls: Sequence[Sequence[Any]], size: Callable[[Sequence[Any]], int]) -> str:
    """:func:`same_starts` as a printed table: call, size, same start, and an arrow at a cut.

    >>> from types import SimpleNamespace as M
    >>> a, b, c = M(id="a"), M(id="b"), M(id="c")
    >>> print(show_same_starts([[a], [a, b], [a, c]], len))
    call  size  same start
       1     1
       2     2      1
       3     2      1  <- cut
    """
    lines = ["call  size  same start"]
    for number, total, shared, cut in same_starts(calls, size):
        row = f"{number:>4} {total:>5} {'' if shared is None else shared:>6}"
        lines.append(row + "  <- cut" if cut else row.rstrip())
    return "\n".join(lines)
