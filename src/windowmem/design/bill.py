"""One conversation's input bill under every design of lesson 5, row by row.

Each row is one way to carry a conversation's early turns, all on the same n8n agent
(Simple Memory, :func:`~windowmem.design.rolling_summary.rolling_summary`) and priced the
same way: the agent's input tokens over every model call, plus what a summariser reads
and writes. The designs:

* the **whole history** on every call (Simple Memory at Context Window Length 0, which
  loads every stored message), the yardstick every share is of;
* the **window alone**, Context Window Length *window*;
* the window with the **fact in the system prompt**, outside every window;
* one **rolling summary** per plan (*every* turns, keeping *keep_turns*): the agent's
  input, the summariser's input (the history it loads and its instruction) and its
  output (the summaries, which providers bill apart from input), and how many calls
  still send the summary.

The rows come sorted by their input total, cheapest first.

>>> from windowmem.messages import user, assistant
>>> chat = [m for t in range(1, 9) for m in (user(f"order #{t}0"), assistant(f"a{t}"))]
>>> for row in design_bill(chat, "Order on file: #10", window=2, plans=[(2, 1)]):
...     print(f"{row.mechanism:<40} {row.agent_input:>3} {row.summariser_input:>3} {row.share:.0%}")
window 2 alone                            34   0 53%
window 2, the fact in the system prompt   42   0 66%
summary every 2 turns, keep 1             31  29 94%
whole history, no summary                 64   0 100%
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.conversation import Conversation, as_conversation
from windowmem.design.anchor_facts import with_fact_in_system_prompt
from windowmem.design.rolling_summary import (
    Summariser,
    extractive_summary,
    rolling_summary,
    whole_number,
)
from windowmem.errors import WindowMemError
from windowmem.messages import Message
from windowmem.tokens import TokenCounter, count_messages

#: A rolling-summary plan: summarise after every *every*-th turn, keeping *keep_turns*.
Plan = tuple[int, int]


@dataclass(frozen=True, slots=True)
class BillRow:
    """One design's share of the bill, in input tokens unless said otherwise."""

    mechanism: str
    """What carries the early turns: ``"window 5 alone"``, ``"summary every 3 turns, keep 1"``, …"""
    agent_input: int
    """The agent's input tokens over every model call of the conversation."""
    summariser_input: int
    """What the summariser's calls read: the history the Manager loads, and its instruction."""
    summariser_output: int
    """The summaries it wrote (output tokens, priced apart from input)."""
    total: int
    """Every input token: the agent's and the summariser's."""
    share: float
    """*total* as a fraction of the whole history's input, the yardstick (1.0)."""
    calls_sending_summary: int
    """The agent's runs whose first model call holds the latest summary (0 without one)."""


def design_bill(
    conversation: Conversation | Sequence[Message],
    fact_line: str,
    *,
    window: int = 5,
    plans: Sequence[Plan] = (),
    counter: TokenCounter = count_messages,
    summariser: Summariser = extractive_summary,
) -> tuple[BillRow, ...]:
    """The bill of *conversation* under every design, cheapest input total first.

    *fact_line* is the line the pinned design adds to the system prompt (``"Order on
    file: #4417"``); *window* is Context Window Length *k* of every design but the
    whole history; *plans* are rolling summaries as ``(every, keep_turns)``.
    """
    conversation = as_conversation(conversation)
    k = whole_number(window, "window", 1)
    checked = [
        (whole_number(e, "a plan's every", 1), whole_number(r, "a plan's keep_turns", 0))
        for e, r in plans
    ]
    if not conversation.interactions:
        raise WindowMemError("the conversation has no turns to bill: give it a user message")

    def agent(chat: Conversation, size: int) -> int:
        return sum(t.input_tokens for t in rolling_summary(chat, window=size, counter=counter))

    whole = agent(conversation, 0)
    if whole == 0:
        raise WindowMemError("the whole history counts 0 tokens: give a counter that counts text")
    priced: list[tuple[str, int, int, int, int]] = [
        ("whole history, no summary", whole, 0, 0, 0),
        (f"window {k} alone", agent(conversation, k), 0, 0, 0),
        (
            f"window {k}, the fact in the system prompt",
            agent(with_fact_in_system_prompt(conversation, fact_line), k),
            0,
            0,
            0,
        ),
    ]
    for every, keep in checked:
        turns = rolling_summary(
            conversation,
            window=k,
            every=every,
            keep_turns=keep,
            counter=counter,
            summariser=summariser,
        )
        priced.append(
            (
                f"summary every {every} turns, keep {keep}",
                sum(t.input_tokens for t in turns),
                sum(t.summariser_tokens + t.summariser_prompt_tokens for t in turns),
                sum(t.summary_tokens for t in turns),
                sum(1 for t in turns if t.summary_sent),
            )
        )
    rows = [
        BillRow(name, agent_in, read, wrote, agent_in + read, (agent_in + read) / whole, sent)
        for name, agent_in, read, wrote, sent in priced
    ]
    return tuple(sorted(rows, key=lambda r: r.total))


__all__ = ["BillRow", "Plan", "design_bill"]
