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

from dataclasses import dataclass

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
