"""What an n8n AI Agent sends the model on each call, with memory and without, and what it saves.

A model API keeps nothing between calls: whatever the model should know about earlier
turns must be in the array of messages sent on *this* call. This module builds that
array the way n8n's Tools Agent does it, as read in ``@n8n/n8n-nodes-langchain`` 2.41.1
(agent typeVersion 3.1, the default; ``agents/ToolsAgent/common.js`` and
``utils/agent-execution/memoryManagement.js``):

1. the agent's System Message, when it is set (from agent typeVersion 1.9 it is sent
   only if the option is present and not empty: give a conversation no system message
   to model that);
2. the chat history, which is empty without a memory node and otherwise the memory's
   window with broken tool exchanges removed at its edges
   (:func:`cleanup_orphaned_messages`);
3. the run's input, the user's new message;
4. the run's own tool calls and their results so far, on the second and later model
   calls of a run that uses tools: one assistant message per call, each followed by its
   result, even when the model asked for two tools in one message (typeVersion 3.1;
   typeVersion 2.2 sends the model's message as it came, then the results).

The memory is loaded on every model call of a run and written once, at the end, and
only if the run produced an answer: a run that fails, stops at a tool call, or answers
with empty text leaves the memory as it was. In n8n 2.41.1 (AI Agent 3.1) the write holds
the input, the tool calls of the run's **last** model round only (one assistant message
per call, with its result), and the answer; AI Agent 2.2 writes the input and the answer
(:func:`windowmem.calls.memory_writes.saved_messages`). All of this was checked against
n8n 2.41.1 running (``make verify-n8n``; recorded requests in :mod:`windowmem.n8n_recorded`).

A conversation is read as one agent run per interaction: the user's message, then the
assistant's tool calls and tool results, then the answer. An interaction that stops
before an answer is a run that failed there.

>>> from windowmem.messages import system, user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [system("Be brief."), user("I'm Marta"), assistant("Hi Marta"), user("Who am I?")]
>>> [m.content for m in agent_runs(chat)[1].calls[0].messages]
['Be brief.', 'Who am I?']
>>> [m.content for m in agent_runs(chat, N8nSimpleMemory(5))[1].calls[0].messages]
['Be brief.', "I'm Marta", 'Hi Marta', 'Who am I?']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from windowmem.calls.memory_writes import (
    DEFAULT_AGENT_VERSION,
    check_agent_version,
    saved_messages,
    tool_steps,
)
from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Interaction, Message, Role
from windowmem.policies.base import Memory, WindowPolicy
from windowmem.policies.n8n.simple_memory import drop_orphaned_tool_messages


class Part(StrEnum):
    """Where a message of a call's array comes from."""

    SYSTEM = "system message"
    MEMORY = "memory"
    INPUT = "input"
    THIS_RUN = "this run"


@dataclass(frozen=True, slots=True)
class SentMessage:
    """One message of a call's array, the *part* of the prompt it fills and the *turn* it was said in."""

    message: Message
    part: Part
    turn: int | None
    """The interaction the message was said in; None for the system message."""


@dataclass(frozen=True)
class ModelCall:
    """One call to the model: the array it sends and the reply it got."""

    turn: int
    """The interaction (agent run) the call belongs to, from 1."""
    round: int
    """1 for the call that reads the user's message; 2, 3, ... for the calls after tool results."""
    sent: tuple[SentMessage, ...]
    reply: Message | None
    """The assistant message the model returned (a tool call or the answer); None if the call failed."""

    @property
    def messages(self) -> tuple[Message, ...]:
        """The exact array of messages this call sends, in order."""
        return tuple(s.message for s in self.sent)

    def part(self, part: Part) -> tuple[Message, ...]:
        """The messages of the array that fill *part* of the prompt."""
        return tuple(s.message for s in self.sent if s.part is part)

    @property
    def memory_turns(self) -> tuple[int, ...]:
        """The earlier turns that reach this call through memory, in order."""
        return tuple(sorted({s.turn for s in self.sent if s.part is Part.MEMORY and s.turn}))


@dataclass(frozen=True)
class AgentRun:
    """One execution of the agent: its model calls, its answer and what it wrote to memory."""

    turn: int
    session_id: str | None
    """The memory session the run read and wrote (None without memory)."""
    calls: tuple[ModelCall, ...]
    answer: Message | None
    """The final answer, or None when the run produced none."""
    saved: tuple[Message, ...]
    """The messages the run added to memory: empty without memory or without an answer."""
    stored_after: int
    """How many messages the run's memory session holds once the run is over (0 without memory)."""

    @property
    def answered(self) -> bool:
        """True when the run produced an answer (and so, with memory, wrote to it)."""
        return self.answer is not None


def call_array(
    system_message: Message | None,
    history: Sequence[Message],
    user_input: Message,
    this_run: Sequence[Message] = (),
) -> tuple[Message, ...]:
    """The array an n8n agent call sends: system message, chat history, input, this run's tool steps.

    >>> from windowmem.messages import system, user
    >>> [m.content for m in call_array(system("S"), [], user("u2"))]
    ['S', 'u2']
    >>> [m.content for m in call_array(None, [user("u1")], user("u2"))]
    ['u1', 'u2']
    """
    head = (system_message,) if system_message is not None else ()
    return (*head, *history, user_input, *this_run)


#: n8n 2.41.1's clean-up of a loaded window (``cleanupOrphanedMessages``): one implementation,
#: kept with n8n's policy (:func:`windowmem.policies.n8n.drop_orphaned_tool_messages`).
cleanup_orphaned_messages = drop_orphaned_tool_messages


def describe_call(call: ModelCall) -> str:
    """The call's array, one message a line: role, where it comes from, text (tool links shown).

    >>> from windowmem.messages import system, user
    >>> print(describe_call(model_calls([system("Be brief."), user("Hi")])[0]))
       system  system message   Be brief.
         user  input · turn 1   Hi
    """
    lines = []
    for sent in call.sent:
        where = sent.part.value if sent.turn is None else f"{sent.part.value} · turn {sent.turn}"
        lines.append(message_line(sent.message, where))
    return "\n".join(lines)


def message_line(message: Message, where: str) -> str:
    """One line of a call's array: role, *where* the message comes from, text (tool links shown).

    >>> from windowmem.messages import assistant
    >>> message_line(assistant("", ["call_1"]), "memory · turn 2")
    'assistant  memory · turn 2  [asks for call_1]'
    """
    text = " ".join(message.content.split())
    if message.tool_calls:
        text = (text + " " if text else "") + f"[asks for {', '.join(message.tool_calls)}]"
    elif message.tool_call_id:
        text = f"[result of {message.tool_call_id}] {text}"
    return f"{message.role.value:>9}  {where:<15}  {text}"


@dataclass(frozen=True)
class _RunParts:
    """An interaction read as an agent run: the input, each model reply, and the answer."""

    user_input: Message
    rounds: tuple[tuple[tuple[Message, ...], Message | None], ...]
    """Per model call: this run's messages before it, and the reply it got."""
    answer: Message | None


def _read_run(interaction: Interaction) -> _RunParts:
    opening = interaction.user_message
    if opening is None:
        raise WindowMemError(
            f"turn {interaction.number} opens with an assistant message: an agent run starts "
            "from the user's input, so begin the conversation with a user message"
        )
    rest = interaction.messages[1:]
    rounds: list[tuple[tuple[Message, ...], Message | None]] = []
    done: list[Message] = []
    answer: Message | None = None
    position = 0
    while True:
        reply = rest[position] if position < len(rest) else None
        if reply is not None and reply.role is Role.TOOL:
            raise WindowMemError(
                f"turn {interaction.number}: a tool result comes before any assistant message "
                "asked for a tool; put the assistant's tool call first"
            )
        rounds.append((tuple(done), reply))
        if reply is None:
            break
        done.append(reply)
        position += 1
        if not reply.calls_tool:
            answer = reply if reply.content != "" else None
            if position < len(rest):
                raise WindowMemError(
                    f"turn {interaction.number}: messages follow the agent's answer; an agent "
                    "run ends with its answer, so start the next turn with a user message"
                )
            break
        while position < len(rest) and rest[position].role is Role.TOOL:
            done.append(rest[position])
            position += 1
        if position == len(rest):
            # No answer. With the results in, the model was called again and that call
            # failed; with none, the run stopped at the tool itself.
            if done[-1].role is Role.TOOL:
                rounds.append((tuple(done), None))
            break
    return _RunParts(opening, tuple(rounds), answer)


def agent_runs(
    conversation: Conversation | Sequence[Message],
    memory: WindowPolicy | None = None,
    *,
    session_ids: Sequence[str] | None = None,
    agent_version: float = DEFAULT_AGENT_VERSION,
) -> tuple[AgentRun, ...]:
    """Every agent run of *conversation*, call by call, with *memory* (a window policy) or none.

    With memory, every run reads and writes one session, unless *session_ids* gives the
    session id of each run: a new id for every message is the agent that "forgets
    everything", because each run finds an empty session. The conversation's first
    system message is the agent's System Message, sent on every call. *agent_version* is
    the AI Agent node's typeVersion: 3.1 (the default) or 2.2.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [user("I'm Marta"), assistant("Hi"), user("Who am I?"), assistant("Marta")]
    >>> [run.stored_after for run in agent_runs(chat, N8nSimpleMemory(5))]
    [2, 4]
    >>> [run.stored_after for run in agent_runs(chat, N8nSimpleMemory(5), session_ids=["a", "b"])]
    [2, 2]
    """
    conversation = as_conversation(conversation)
    version = check_agent_version(agent_version)
    turns = conversation.interactions
    if session_ids is not None:
        if memory is None:
            raise WindowMemError("session ids need a memory: pass memory=N8nSimpleMemory(5), say")
        session_ids = list(session_ids)
        if len(session_ids) != len(turns) or not all(isinstance(s, str) for s in session_ids):
            raise WindowMemError(
                f"give one session id (text) per turn: the conversation has {len(turns)} turns, "
                f"got {len(session_ids)} ids"
            )
    system_message = conversation.system_message
    sessions: dict[str, Memory] = {}
    said_in: dict[int, int] = {}  # id(message) -> turn, for every message a memory holds
    runs = []
    for interaction in turns:
        parts = _read_run(interaction)
        session: Memory | None = None
        session_id: str | None = None
        if memory is not None:
            session_id = session_ids[interaction.number - 1] if session_ids else "session"
            session = sessions.setdefault(session_id, Memory(memory))
        calls = []
        for number, (done, reply) in enumerate(parts.rounds, start=1):
            # Loaded again on every model call of the run; nothing is written in between.
            history = cleanup_orphaned_messages(session.load()) if session is not None else ()
            sent = (
                ((SentMessage(system_message, Part.SYSTEM, None),) if system_message else ())
                + tuple(SentMessage(m, Part.MEMORY, said_in.get(id(m))) for m in history)
                + (SentMessage(parts.user_input, Part.INPUT, interaction.number),)
                + tuple(
                    SentMessage(m, Part.THIS_RUN, interaction.number)
                    for m in (tool_steps(done) if version >= 3 else done)
                )
            )
            calls.append(ModelCall(interaction.number, number, sent, reply))
        saved: tuple[Message, ...] = ()
        if session is not None:
            saved = saved_messages(
                parts.user_input, parts.rounds[-1][0], parts.answer, agent_version=version
            )
            for message in saved:
                said_in[id(message)] = interaction.number
            session.add(*saved)
        runs.append(
            AgentRun(
                interaction.number,
                None if session is None else session_id,
                tuple(calls),
                parts.answer,
                saved,
                len(session) if session is not None else 0,
            )
        )
    return tuple(runs)


def model_calls(
    conversation: Conversation | Sequence[Message],
    memory: WindowPolicy | None = None,
    *,
    session_ids: Sequence[str] | None = None,
    agent_version: float = DEFAULT_AGENT_VERSION,
) -> tuple[ModelCall, ...]:
    """Every model call of every run of *conversation*, in the order they are made.

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("Where is #6023?"), assistant("", ["t1"]), tool("in transit", "t1"), assistant("On its way.")]
    >>> [(c.turn, c.round, len(c.messages)) for c in model_calls(chat)]
    [(1, 1, 1), (1, 2, 3)]
    """
    return tuple(
        call
        for run in agent_runs(
            conversation, memory, session_ids=session_ids, agent_version=agent_version
        )
        for call in run.calls
    )


__all__ = [
    "AgentRun",
    "ModelCall",
    "Part",
    "SentMessage",
    "agent_runs",
    "call_array",
    "cleanup_orphaned_messages",
    "describe_call",
    "model_calls",
]
