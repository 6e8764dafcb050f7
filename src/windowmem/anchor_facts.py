"""One conversation through every product's agent, each in its own unit, and where an anchor fact travels.

:mod:`windowmem.side_by_side` replays a conversation under each product's *memory*. A
product's agent adds its own rules on top, and lesson 5 needs them:

* **n8n** (``@n8n/n8n-nodes-langchain`` 2.41.1): the agent stores a tool turn as the user
  message, one call and its result per tool call, then the answer, and drops the tool
  exchanges its window cut at the edges (:func:`windowmem.agent_calls.agent_runs`);
* **Spring AI** (1.0.0 to 2.0.1): the memory advisors store the user message and the final
  answer, never the tool calls, so the window counts two messages per turn;
* **LangChain's memory classes** (``ConversationBufferWindowMemory``, langchain-classic
  1.0.8; ``BufferWindowMemory`` in JS): an agent saves a turn through ``save_context``,
  which stores the input and the output only, so the same holds;
* every other product: its memory over every message (:func:`windowmem.replay.replay`).

Each row also says where an anchor fact (an order number, say) reaches that call: in
the system prompt, which every product here sends beside its memory on every call; in
the memory; in the user's new message; or nowhere.

>>> from windowmem.messages import system, user, assistant, tool
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [system("S"), user("Order #7"), assistant("ok"), user("track it"), assistant("", ["c"]),
...         tool("late", "c"), assistant("late"), user("which order?")]
>>> rows = agent_windows(chat, [N8nSimpleMemory(1)])
>>> [(r.turn, r.amount, r.fact_place("#7").value) for r in rows]
[(1, 1, 'input'), (2, 2, 'memory'), (3, 2, 'not sent')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from windowmem.agent_calls import agent_runs
from windowmem.conversation import Conversation, as_conversation
from windowmem.messages import Message, Role, system
from windowmem.policies.base import Unit, WindowPolicy
from windowmem.policies.langchain import LangChainJsBufferWindow, LangChainPyBufferWindow
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.registry import make_policy
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.replay import replay
from windowmem.side_by_side import measure
from windowmem.tokens import TokenCounter, count_words


class FactPlace(StrEnum):
    """Where a fact is in one call's array (the first that holds it, in this order)."""

    SYSTEM = "system prompt"
    MEMORY = "memory"
    INPUT = "input"
    NOT_SENT = "not sent"


@dataclass(frozen=True)
class AgentWindow:
    """What one product's agent sends on one turn's first model call, and its size in the product's unit."""

    policy: str
    product: str
    unit: Unit
    size: int | None
    turn: int
    sent: tuple[Message, ...]
    """The array: system prompt (when there is one), the memory's window, the user's message."""
    amount: int
    """``sent`` without the system prompt, in *unit*."""
    visible_turns: tuple[int, ...]
    """Earlier turns with at least one message in the array."""

    def fact_place(self, fact: str) -> FactPlace:
        """Where *fact* reaches this call: system prompt, memory, input, or not at all."""
        holding = [i for i, m in enumerate(self.sent) if fact in m.content]
        if not holding:
            return FactPlace.NOT_SENT
        if self.sent[0].role is Role.SYSTEM and holding[0] == 0:
            return FactPlace.SYSTEM
        return FactPlace.INPUT if holding == [len(self.sent) - 1] else FactPlace.MEMORY


#: The policies whose product stores only each turn's question and final answer.
_QUESTIONS_AND_ANSWERS = (
    SpringAiMessageWindow,
    SpringAi1xMessageWindow,
    LangChainPyBufferWindow,
    LangChainJsBufferWindow,
)


def questions_and_answers(conversation: Conversation) -> Conversation:
    """*conversation* as Spring AI's advisors and LangChain's ``save_context`` store it: no tool messages."""
    kept = tuple(m for m in conversation.messages if m.role is not Role.TOOL and not m.calls_tool)
    return Conversation(kept, conversation.title)


def _rows(conversation: Conversation, policy: WindowPolicy) -> list[AgentWindow]:
    def row(turn: int, sent: tuple[Message, ...], visible: tuple[int, ...]) -> AgentWindow:
        return AgentWindow(
            policy.name,
            policy.product,
            policy.unit,
            policy.size,
            turn,
            sent,
            measure(policy, sent),
            visible,
        )

    if isinstance(policy, N8nSimpleMemory):
        return [
            row(run.turn, run.calls[0].messages, run.calls[0].memory_turns)
            for run in agent_runs(conversation, policy)
        ]
    if isinstance(policy, _QUESTIONS_AND_ANSWERS):
        conversation = questions_and_answers(conversation)
    return [row(v.turn, v.sent, v.visible_turns) for v in replay(conversation, policy)]


def agent_windows(
    conversation: Conversation | Sequence[Message], policies: Sequence[WindowPolicy]
) -> tuple[AgentWindow, ...]:
    """One row per product per turn, turn by turn in the order of *policies*."""
    conversation = as_conversation(conversation)
    per_product = [_rows(conversation, policy) for policy in policies]
    return tuple(row for turn_rows in zip(*per_product) for row in turn_rows)


def with_fact_in_system_prompt(
    conversation: Conversation | Sequence[Message], fact_line: str
) -> Conversation:
    """*conversation* whose system prompt also carries *fact_line* (``"Order on file: #4417"``).

    It models an agent whose prompt reads the fact from where a step before the agent
    saved it (a table row keyed by the session, say), from the turn the fact is given:
    here turn 1. The fact then travels outside every window.

    >>> from windowmem.messages import system, user
    >>> with_fact_in_system_prompt([system("Be brief."), user("hi")], "Order: #7").system_message.content
    'Be brief.\\nOrder: #7'
    """
    conversation = as_conversation(conversation)
    current = conversation.system_message
    prompt = system(fact_line if current is None else f"{current.content}\n{fact_line}")
    rest = tuple(m for m in conversation.messages if m is not current)
    return Conversation((prompt, *rest), conversation.title)


def lineup(counter: TokenCounter = count_words) -> tuple[WindowPolicy, ...]:
    """Lesson 5's products, each at its default where it has one, tokens counted by *counter*.

    Chosen sizes where a product has no default: ``trim_messages`` 200 tokens (it has no
    default ``max_tokens``), keeping the system message and starting on a user message;
    Semantic Kernel's reducer a target of 10 messages (required there) and a threshold
    of 2. The OpenAI Agents SDK session and the LangGraph thread have no limit by default.

    >>> [p.name for p in lineup()][:3]
    ['n8n', 'langchain-py', 'spring-ai']
    """
    return (
        make_policy("n8n"),
        make_policy("langchain-py"),
        make_policy("spring-ai"),
        make_policy("tensorify"),
        make_policy("llamaindex", counter=counter),
        make_policy("trim-messages", 200, counter=counter, include_system=True, start_on="human"),
        make_policy("semantic-kernel", 10, threshold=2),
        make_policy("openai-agents"),
        make_policy("langgraph"),
    )


def turns_reached(rows: Sequence[AgentWindow], fact: str, policy: str) -> tuple[int, ...]:
    """The turns on which *fact* is anywhere in *policy*'s array."""
    return tuple(
        r.turn for r in rows if r.policy == policy and r.fact_place(fact) is not FactPlace.NOT_SENT
    )


__all__ = [
    "AgentWindow",
    "FactPlace",
    "agent_windows",
    "lineup",
    "questions_and_answers",
    "turns_reached",
    "with_fact_in_system_prompt",
]
