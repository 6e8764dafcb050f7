"""A rolling summary in n8n: an agent with Simple Memory, and a Chat Memory Manager that compacts it.

The pattern, built from the nodes as ``@n8n/n8n-nodes-langchain`` 2.41.1 has them
(:mod:`windowmem.policies.n8n.memory_manager`): after every *every*-th turn, a Chat
Memory Manager **loads** the whole stored history, a summariser turns it into one text,
and a second Manager **inserts** with *Override All Messages* the summary followed by
the user messages and answers of the newest *keep_turns* turns. (The Manager can only
write ``ai``, ``system`` and ``user`` messages, so the kept turns lose their tool calls
and results.) The summary is written as an ``ai`` message: a ``system`` one would sit
inside the chat history, after the agent's own system prompt, which some model
providers reject (``@langchain/anthropic`` 1.5.6 and ``@langchain/google-genai`` 2.1.24,
as n8n 2.41.1 pins them, throw). The schedule counts turns: Simple Memory's store has no
cap to approach, since ``saveContext`` only appends (``@langchain/classic`` 1.0.27) and the
window applies when the agent loads.

The agent's memory still loads only the newest ``2 × k`` stored messages, so the
summary helps only on the turns where it is among them: it is cut as soon as the kept
turns plus the turns stored since the override fill the window.

The summariser is deterministic (:func:`extractive_summary`, or any function from
messages to a text): no model is called, so the token counts are exact. It is handed the
loaded history up to where the kept turns begin, since they follow the summary verbatim;
its call is billed for the whole load and :data:`SUMMARISER_PROMPT`, which is what the
model node of the n8n wiring is sent.

>>> from windowmem.messages import user, assistant
>>> chat = [m for t in range(1, 7) for m in (user(f"Order #{t}0 please"), assistant(f"a{t}"))]
>>> turns = rolling_summary(chat, window=2, every=2, keep_turns=1)
>>> [t.summary_sent for t in turns]
[None, None, True, False, True, False]

With a window of 2 interactions (4 messages), the summary and the kept turn take 3 slots:
one new turn later, the summary is cut again, until the next compaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from windowmem.calls.agent_calls import call_array, cleanup_orphaned_messages
from windowmem.calls.memory_writes import saved_messages, tool_steps
from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Interaction, Message, Role, assistant, system
from windowmem.policies.n8n.memory_manager import (
    InsertMode,
    ManagerMessage,
    MessageType,
    insert,
    model_history,
    stored_history,
)
from windowmem.policies.n8n.simple_memory import N8nSimpleMemory
from windowmem.tokens import TokenCounter, count_all, count_messages

#: How every summary this module writes begins, so the next summary can carry it on.
SUMMARY_PREFIX = "Summary of the conversation so far:"
#: Identifiers a summary must never lose: order numbers and the like (``#4417``).
_IDENTIFIER = re.compile(r"#\d+")
#: Words kept from each user message, and how many of the latest requests a summary keeps.
WORDS_PER_REQUEST = 10
REQUESTS_KEPT = 5
#: The instruction the summarising model gets with the history; its tokens are the
#: summariser's prompt, paid on every compaction besides the history it reads.
SUMMARISER_PROMPT = (
    "Summarise this support conversation for the agent that continues it: keep every order "
    "number, name and open request. Its newest turns stay verbatim after your summary: "
    "summarise only the turns before them."
)

Summariser = Callable[[Sequence[Message]], str]


def extractive_summary(messages: Sequence[Message]) -> str:
    """A deterministic summary: every identifier mentioned, then the first words of the latest requests.

    An earlier summary in *messages* is carried on, so no identifier it kept is lost when
    the history is compacted again; only the newest :data:`REQUESTS_KEPT` requests stay,
    so the summary stops growing.

    >>> from windowmem.messages import user, assistant
    >>> extractive_summary([user("I'm Ana, order #12."), assistant("Noted."), user("Where is it?")])
    "Summary of the conversation so far: identifiers #12. Requests: I'm Ana, order #12. / Where is it?"
    """
    ids: list[str] = []
    requests: list[str] = []
    for message in messages:
        if message.role is Role.ASSISTANT and message.content.startswith(SUMMARY_PREFIX):
            body = message.content[len(SUMMARY_PREFIX) :]
            head, _, tail = body.partition(" Requests: ")
            ids += _IDENTIFIER.findall(head)
            requests += [r for r in tail.split(" / ") if r]
            continue
        ids += _IDENTIFIER.findall(message.content)
        if message.role is Role.USER:
            requests.append(" ".join(message.content.split()[:WORDS_PER_REQUEST]))
    unique = list(dict.fromkeys(ids))
    known = f" identifiers {', '.join(unique)}." if unique else ""
    latest = requests[-REQUESTS_KEPT:]
    return f"{SUMMARY_PREFIX}{known} Requests: {' / '.join(latest)}"


@dataclass(frozen=True)
class SummarisedTurn:
    """One agent run with the rolling summary in place, and what it cost."""

    turn: int
    sent: tuple[Message, ...]
    """The first model call's array: system prompt, loaded window, the user's message."""
    input_tokens: int
    """Input tokens of every model call of the run (one more call per round of tool results)."""
    summary_sent: bool | None
    """Whether the latest summary is in this run's array; None before the first summary."""
    summarised_after: bool
    """True when the Manager compacted the history after this run."""
    summariser_tokens: int
    """Input tokens of the summariser's call after this run (the history the Manager loaded); 0 if none."""
    stored_after: int
    """Messages in the store once this run (and any compaction) is over."""
    summariser_prompt_tokens: int = 0
    """Input tokens of the summariser's own instruction, :data:`SUMMARISER_PROMPT`, on that call; 0 if none."""
    summary_tokens: int = 0
    """Output tokens of that call: the summary the summariser wrote; 0 if none."""


def _rounds(interaction: Interaction) -> tuple[Message, tuple[tuple[Message, ...], ...], Message]:
    opening = interaction.user_message
    rest = interaction.messages[1:]
    if opening is None or not rest or rest[-1].role is not Role.ASSISTANT or rest[-1].calls_tool:
        raise WindowMemError(
            f"turn {interaction.number}: a rolling-summary replay needs every turn to open with the "
            "user's message and end with the agent's answer"
        )
    befores = [()] + [
        tuple(rest[: i + 1])
        for i, m in enumerate(rest[:-1])
        if m.role is Role.TOOL and (i + 1 == len(rest) or rest[i + 1].role is not Role.TOOL)
    ]
    return opening, tuple(befores), rest[-1]


def _kept_from(history: Sequence[Message], keep: int) -> int:
    """Where the newest *keep* turns begin in *history*: each turn's only user message is its question.

    >>> from windowmem.messages import user, assistant
    >>> _kept_from([assistant("Summary"), user("q1"), assistant("a1"), user("q2"), assistant("a2")], 1)
    3
    """
    questions = [i for i, m in enumerate(history) if m.role is Role.USER]
    if keep == 0:
        return len(history)
    return questions[-keep] if len(questions) >= keep else 0


def whole_number(value: object, label: str, minimum: int) -> int:
    """*value* if it is a whole number of at least *minimum*; else an error naming *label*.

    >>> whole_number(3, "window", 0)
    3
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WindowMemError(f"{label} must be a whole number >= {minimum}, got {value!r}")
    return value


def rolling_summary(
    conversation: Conversation | Sequence[Message],
    *,
    window: int = 5,
    every: int = 0,
    keep_turns: int = 2,
    counter: TokenCounter = count_messages,
    summariser: Summariser = extractive_summary,
) -> tuple[SummarisedTurn, ...]:
    """Every run of *conversation* through an n8n agent with Simple Memory (*window* k) and the summary.

    *every* 0 never summarises: the plain agent, the yardstick; *window* 0 loads every
    stored message, as Simple Memory does at 0. A turn's input tokens count every model
    call of its run (the tool rounds carry the history again).
    """
    conversation = as_conversation(conversation)
    k = whole_number(window, "window", 0)
    every = whole_number(every, "every", 0)
    keep = whole_number(keep_turns, "keep_turns", 0)
    memory = N8nSimpleMemory(k)
    system_message = conversation.system_message
    history = stored_history(())
    answered: list[tuple[Message, Message]] = []  # (question, answer) of every turn so far
    summary: Message | None = None  # the latest summary written, as stored
    out = []
    for interaction in conversation.interactions:
        question, befores, answer = _rounds(interaction)
        loaded = cleanup_orphaned_messages(memory.load(model_history(history)))
        sent = call_array(system_message, loaded, question)
        summary_sent = None if summary is None else any(m is summary for m in sent)
        tokens = sum(
            count_all(call_array(system_message, loaded, question, tool_steps(done)), counter)
            for done in befores
        )
        saved = saved_messages(question, befores[-1], answer)
        history = (*history, *stored_history(saved))
        answered.append((question, answer))
        compact = every > 0 and interaction.number % every == 0
        summariser_tokens = prompt_tokens = summary_tokens = 0
        if compact:
            everything = model_history(history)
            # The model call reads the Manager's whole load (billed in full); what it is
            # asked to summarise stops where the kept turns begin, so the summary never
            # repeats a question that follows it verbatim.
            summariser_tokens = count_all(everything, counter)
            prompt_tokens = counter(system(SUMMARISER_PROMPT))
            written = summariser(everything[: _kept_from(everything, keep)])
            summary_tokens = counter(assistant(written))
            rows = [ManagerMessage(written, MessageType.AI)]
            for q, a in answered[max(0, len(answered) - keep) :] if keep else ():
                rows += [
                    ManagerMessage(q.content, MessageType.USER),
                    ManagerMessage(a.content, MessageType.AI),
                ]
            history = insert(history, rows, InsertMode.OVERRIDE)
            summary = history[0].message
        out.append(
            SummarisedTurn(
                interaction.number,
                sent,
                tokens,
                summary_sent,
                compact,
                summariser_tokens,
                len(history),
                prompt_tokens,
                summary_tokens,
            )
        )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SummarySavings:
    """A schedule's input tokens against the plain agent's, over one conversation."""

    plain_tokens: int
    """The agent's input tokens with no summary (and the baseline window)."""
    summarised_tokens: int
    """The agent's input tokens with the rolling summary."""
    summariser_tokens: int
    """The summariser's own input tokens (each compaction reads the whole store)."""
    summariser_prompt_tokens: int = 0
    """The summariser's instruction, sent with the history on each of its calls (input tokens)."""
    summary_output_tokens: int = 0
    """The summaries the summariser wrote (output tokens, billed apart from input)."""

    @property
    def saved(self) -> int:
        """Agent input tokens saved by the summary, before paying for the summariser (may be negative)."""
        return self.plain_tokens - self.summarised_tokens

    @property
    def net_saved(self) -> int:
        """Input tokens saved once the summariser's calls are paid for (may be negative)."""
        return self.saved - self.summariser_tokens


def summary_savings(
    conversation: Conversation | Sequence[Message],
    *,
    window: int = 5,
    every: int,
    keep_turns: int = 2,
    counter: TokenCounter = count_messages,
    summariser: Summariser = extractive_summary,
    baseline_window: int | None = None,
) -> SummarySavings:
    """The input tokens a rolling summary saves over *conversation*, against the agent without it.

    The yardstick is the same agent with no summary and Context Window Length
    *baseline_window* (None: the same *window*; 0: every stored message, the window that
    keeps every early fact verbatim).

    >>> from windowmem.messages import user, assistant
    >>> chat = [m for t in range(1, 9) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> summary_savings(chat, window=3, every=2, keep_turns=1).saved
    10
    """
    plain = rolling_summary(
        conversation, window=window if baseline_window is None else baseline_window, counter=counter
    )
    rolled = rolling_summary(
        conversation,
        window=window,
        every=every,
        keep_turns=keep_turns,
        counter=counter,
        summariser=summariser,
    )
    return SummarySavings(
        sum(t.input_tokens for t in plain),
        sum(t.input_tokens for t in rolled),
        sum(t.summariser_tokens for t in rolled),
        sum(t.summariser_prompt_tokens for t in rolled),
        sum(t.summary_tokens for t in rolled),
    )


__all__ = [
    "SUMMARISER_PROMPT",
    "SUMMARY_PREFIX",
    "SummarisedTurn",
    "SummarySavings",
    "Summariser",
    "extractive_summary",
    "rolling_summary",
    "summary_savings",
    "whole_number",
]
