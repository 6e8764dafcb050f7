"""Every product's agent on one conversation, side by side: what each sends on each turn.

For lesson 5. One conversation (tool calls and all) goes through a line-up of real
products, each at its own default or a chosen size, and every turn gets one
:class:`ProductTurn` per product: the array that product's agent sends on the turn's
first model call, and how much that is in the product's own unit (interactions,
messages, items or tokens). :func:`windowmem.frames.side_by_side_frame` lays the rows
out as a table.

A product's agent adds its own rules on top of its memory's window:

* **n8n** (``@n8n/n8n-nodes-langchain`` 2.41.1, AI Agent 3.1): the agent stores a tool turn
  as the user message, one call and its result per tool call of the run's last model round
  (an earlier round is not kept), then the answer, and drops the tool exchanges its window
  cut at the edges (:func:`windowmem.calls.agent_calls.agent_runs`; checked running n8n);
* **Spring AI** (1.0.0 to 2.0.1): at the default advisor order (outside the tool-calling
  loop) the memory advisor stores only the user message and the final answer, so the
  window counts two messages per turn. Placed inside the loop (an order above
  ``ToolCallingAdvisor.DEFAULT_ORDER``, 2.0) it stores the tool messages too; that set-up
  is not modelled here;
* **LangChain's memory classes** (``ConversationBufferWindowMemory``, langchain-classic
  1.0.8; ``BufferWindowMemory``, ``@langchain/classic`` 1.0.27): an agent saves a turn
  through ``saveContext`` / ``save_context``, which adds the input and the output only, so
  the same holds (n8n's typeVersion 3 agent bypasses it and writes tool turns itself);
* **Tensorify Window Memory** (documented only, https://tensorify.io/docs/plugins/memory-window,
  unversioned): after the agent answers, the new user message and the reply are saved,
  two messages per turn;
* every other product: its memory over every message (:func:`windowmem.replay.replay`).

Each row also says where a fact (an order number, say) reaches that call: in the system
prompt, which every product here sends beside its memory on every call; in the memory;
in the user's new message; or nowhere.

>>> from windowmem.messages import system, user, assistant, tool
>>> chat = [system("S"), user("Order #7"), assistant("ok"), user("track it"), assistant("", ["c"]),
...         tool("late", "c"), assistant("late"), user("which order?")]
>>> rows = side_by_side(chat, [("n8n", 1), ("openai-agents", 2)])
>>> [(r.policy, r.turn, r.amount, r.fact_place("#7").value) for r in rows if r.turn > 1]
[('n8n', 2, 2, 'memory'), ('openai-agents', 2, 3, 'memory'), ('n8n', 3, 2, 'not sent'), ('openai-agents', 3, 2, 'not sent')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from windowmem.calls.agent_calls import Part, agent_runs, message_line
from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import PolicyError
from windowmem.messages import Message, Role, interactions, without_system
from windowmem.policies.agent_framework import (
    AgentFrameworkSummarization,
    AgentFrameworkTruncation,
    agent_message_count,
)
from windowmem.policies.base import Unit, WindowPolicy
from windowmem.policies.langchain import LangChainJsBufferWindow, LangChainPyBufferWindow
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.policies.llamaindex_memory import LlamaIndexMemory, function_agent_counter
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.openai_agents import stored_items
from windowmem.policies.registry import make_policy
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.policies.tensorify import TensorifyWindowMemory
from windowmem.replay import replay
from windowmem.tokens import TokenCounter, count_messages, count_text, count_words

#: A product in a line-up: a policy, or a registered name with a size (None: its default).
LineupEntry = WindowPolicy | tuple[str, int | None]


class FactPlace(StrEnum):
    """Where a fact is in one call's array (the first that holds it, in this order)."""

    SYSTEM = "system prompt"
    MEMORY = "memory"
    INPUT = "input"
    NOT_SENT = "not sent"


@dataclass(frozen=True, slots=True)
class ProductTurn:
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
    partial_turns: tuple[int, ...] = ()
    """Earlier turns only some of whose messages are in the array (the window cut inside them)."""
    memory_messages: int = 0
    """Messages the memory loaded into the array: neither the system prompt nor the new input."""
    counts_new_input: bool = False
    """Whether the window's limit counts the new input too (a limit in tokens or items)."""

    def fact_place(self, fact: str) -> FactPlace:
        """Where *fact* reaches this call: system prompt, memory, input, or not at all."""
        holding = [i for i, m in enumerate(self.sent) if fact in m.content]
        if not holding:
            return FactPlace.NOT_SENT
        if self.sent[0].role is Role.SYSTEM and holding[0] == 0:
            return FactPlace.SYSTEM
        return FactPlace.INPUT if holding == [len(self.sent) - 1] else FactPlace.MEMORY


def default_lineup(counter: TokenCounter = count_words) -> tuple[WindowPolicy, ...]:
    """Lesson 5's products, each at its default where it has one, tokens counted by *counter*.

    Chosen sizes where a product has no default: ``trim_messages`` 200 tokens (it has no
    default ``max_tokens``), keeping the system message and starting on a user message;
    Semantic Kernel's reducer a target of 10 messages (required there) and a threshold
    of 2. The OpenAI Agents SDK session and the LangGraph thread have no limit by default.

    >>> [p.name for p in default_lineup()][:3]
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


#: The window lesson 5's frameworks are set to, in their own units: ten (LlamaIndex aside).
SAME_NUMBER = 10


#: LlamaIndex's ``Memory`` counts tokens, never messages: lesson 5 gives it this
#: ``token_limit`` and flush size, counted in Qwen2.5 tokens (:func:`windowmem.tokens.count_text`).
LLAMAINDEX_TOKEN_LIMIT = 400
LLAMAINDEX_FLUSH = 100


def framework_lineup(size: int = SAME_NUMBER) -> tuple[WindowPolicy, ...]:
    """Lesson 5's six frameworks, each given the same number *size* as a developer writes it.

    n8n's Simple Memory at Context Window Length ``size // 2`` (it loads ``2 × k``
    messages); langchain 1.x ``create_agent`` with a ``@before_model`` middleware that calls
    ``trim_messages(max_tokens=size, token_counter=len, start_on="human",
    end_on=("human", "tool"))`` and replaces the saved thread; the OpenAI Agents SDK's
    ``SQLiteSession`` with ``SessionSettings(limit=size)``; Spring AI's
    ``MessageWindowChatMemory`` with ``maxMessages(size)`` behind the memory advisor at its
    default order; Microsoft Agent Framework's ``TruncationStrategy(max_n=size,
    compact_to=size)``. LlamaIndex's ``Memory`` has no count of messages: it gets
    ``Memory.from_defaults(token_limit=400, token_flush_size=100)``, whatever *size*,
    tokens counted as a ``FunctionAgent`` stores them (:func:`function_agent_counter`).

    >>> [(p.name, p.size) for p in framework_lineup()][:4]
    [('n8n', 5), ('langchain-trim-state', 10), ('openai-agents', 10), ('spring-ai', 10)]
    >>> [(p.name, p.size) for p in framework_lineup()][4:]
    [('llamaindex-memory', 400), ('agent-framework-truncation', 10)]
    >>> framework_lineup(3)
    Traceback (most recent call last):
    ...
    windowmem.errors.PolicyError: framework_lineup: size must be an even whole number >= 2 (n8n loads 2 × k messages), got 3
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 2 or size % 2:
        raise PolicyError(
            "framework_lineup: size must be an even whole number >= 2 "
            f"(n8n loads 2 × k messages), got {size!r}"
        )
    return (
        make_policy("n8n", size // 2),
        LangChainTrimState(size, counter=count_messages),
        make_policy("openai-agents", size),
        make_policy("spring-ai", size),
        LlamaIndexMemory(
            LLAMAINDEX_TOKEN_LIMIT,
            token_flush_size=LLAMAINDEX_FLUSH,
            counter=function_agent_counter(count_text),
        ),
        AgentFrameworkTruncation(size),
    )


def stored_per_turn(
    conversation: Conversation | Sequence[Message], policy: WindowPolicy
) -> tuple[int, ...]:
    """What each turn adds to *policy*'s store, counted as its window counts (items for the Agents SDK).

    n8n's agent stores the question, one call and result per tool call of the last model
    round, and the answer; Spring AI's advisor (default order), LangChain's memory classes
    and Tensorify store the question and the answer; every other product stores the turn's
    own messages (the Agents SDK as items: one per function call and per output; the Agent
    Framework with one tool message for a round's results).

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["c1", "c2"]), tool("r1", "c1"), tool("r2", "c2"), assistant("a1")]
    >>> [stored_per_turn(chat, p) for p in framework_lineup()]
    [(6,), (5,), (6,), (2,), (5,), (4,)]
    """
    chat = as_conversation(conversation)
    if isinstance(policy, N8nSimpleMemory):
        return tuple(len(run.saved) for run in agent_runs(chat, policy))
    if isinstance(policy, _QUESTIONS_AND_ANSWERS):
        return tuple(2 for _ in chat.interactions)
    if policy.unit is Unit.ITEMS:
        return tuple(len(stored_items(turn.messages)) for turn in chat.interactions)
    if _one_message_per_round(policy):
        return tuple(agent_message_count(turn.messages) for turn in chat.interactions)
    return tuple(len(turn.messages) for turn in chat.interactions)


def _one_message_per_round(policy: WindowPolicy) -> bool:
    """Whether *policy*'s agent keeps a round's tool results in one message (Agent Framework)."""
    return isinstance(policy, AgentFrameworkTruncation | AgentFrameworkSummarization) and bool(
        policy.one_message_per_round
    )


def counted_unit(policy: WindowPolicy) -> Unit:
    """The unit *policy*'s window really counts: messages for a token limit whose counter is
    ``count_messages`` (LangChain's ``token_counter=len``, one "token" a message).

    >>> counted_unit(framework_lineup()[1]).value, counted_unit(make_policy("trim-messages", 9)).value
    ('messages', 'tokens')
    """
    if policy.unit is Unit.TOKENS and getattr(policy, "counter", None) is count_messages:
        return Unit.MESSAGES
    return policy.unit


def measure(policy: WindowPolicy, messages: Sequence[Message]) -> int:
    """*messages* (system messages aside) in *policy*'s unit: interactions, messages, items or tokens.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("Where is it?"), assistant("", ["c1"])]
    >>> [measure(make_policy(n), chat) for n in ("n8n", "spring-ai", "openai-agents", "llamaindex")]
    [1, 2, 2, 3]
    """
    kept = without_system(messages)
    if policy.unit is Unit.INTERACTIONS:
        return len(interactions(kept))
    if policy.unit is Unit.ITEMS:
        # Reasoning items carry no message, so a window's are counted only with reasoning=True.
        return len(stored_items(kept, reasoning=bool(getattr(policy, "reasoning", False))))
    if policy.unit is Unit.TOKENS:
        counter = getattr(policy, "counter", None)
        return sum(counter(m) for m in kept) if counter is not None else len(kept)
    if _one_message_per_round(policy):
        return agent_message_count(kept)
    return len(kept)


#: The policies whose product stores only each turn's question and final answer.
_QUESTIONS_AND_ANSWERS = (
    SpringAiMessageWindow,
    SpringAi1xMessageWindow,
    LangChainPyBufferWindow,
    LangChainJsBufferWindow,
    TensorifyWindowMemory,
)


def questions_and_answers(conversation: Conversation) -> Conversation:
    """*conversation* as the question-and-answer stores keep it (Spring AI's advisors at their
    default order, LangChain's ``save_context``, Tensorify's save): no tool messages."""
    kept = tuple(m for m in conversation.messages if m.role is not Role.TOOL and not m.calls_tool)
    return Conversation(kept, conversation.title)


def _rows(conversation: Conversation, policy: WindowPolicy) -> list[ProductTurn]:
    def row(
        turn: int,
        sent: tuple[Message, ...],
        visible: tuple[int, ...],
        partial: tuple[int, ...],
        loaded: int,
    ) -> ProductTurn:
        return ProductTurn(
            policy.name,
            policy.product,
            counted_unit(policy),
            policy.size,
            turn,
            sent,
            measure(policy, sent),
            visible,
            partial,
            loaded,
            policy.unit in (Unit.TOKENS, Unit.ITEMS),
        )

    if isinstance(policy, N8nSimpleMemory):
        out = []
        for run in agent_runs(conversation, policy):
            call = run.calls[0]
            memory = [s for s in call.sent if s.part is Part.MEMORY]
            # The window is the newest stored messages, cleaned only at its edges: a turn is
            # whole exactly when its question (its first message) is still in it.
            asked = {s.turn for s in memory if s.message.role is Role.USER}
            partial = tuple(t for t in call.memory_turns if t not in asked)
            out.append(row(run.turn, call.messages, call.memory_turns, partial, len(memory)))
        return out
    if isinstance(policy, _QUESTIONS_AND_ANSWERS):
        conversation = questions_and_answers(conversation)
    return [
        row(v.turn, v.sent, v.visible_turns, v.partial_turns, len(v.window))
        for v in replay(conversation, policy)
    ]


def side_by_side(
    conversation: Conversation | Sequence[Message],
    lineup: Sequence[LineupEntry] | None = None,
) -> tuple[ProductTurn, ...]:
    """One row per product per turn, turn by turn in line-up order, for *conversation*.

    *lineup* holds policies, or registered names with a size each (None: the product's
    default); :func:`default_lineup` by default. A bad name or size raises the policy's
    error.
    """
    conversation = as_conversation(conversation)
    chosen = default_lineup() if lineup is None else lineup
    policies = [make_policy(*entry) if isinstance(entry, tuple) else entry for entry in chosen]
    per_product = [_rows(conversation, policy) for policy in policies]
    return tuple(row for turn_rows in zip(*per_product) for row in turn_rows)


def describe_row(conversation: Conversation | Sequence[Message], row: ProductTurn) -> str:
    """*row*'s array, one message a line as :func:`~windowmem.calls.agent_calls.describe_call`
    prints n8n's: role, where it comes from (system message, memory or input, with its turn),
    text.

    >>> from windowmem.messages import system, user, assistant
    >>> chat = [system("Be brief."), user("I'm Marta"), assistant("Hi Marta"), user("Who am I?")]
    >>> print(describe_row(chat, side_by_side(chat, [("spring-ai", 20)])[-1]))
       system  system message   Be brief.
         user  memory · turn 1  I'm Marta
    assistant  memory · turn 1  Hi Marta
         user  input · turn 2   Who am I?
    """
    chat = as_conversation(conversation)
    turn_of: dict[Message, int] = {}
    for number, turn in enumerate(chat.interactions, 1):
        for message in turn.messages:
            turn_of.setdefault(message, number)
    lines = []
    for index, message in enumerate(row.sent):
        if message.role is Role.SYSTEM and index == 0:
            where = "system message"
        else:
            part = "input" if index == len(row.sent) - 1 else "memory"
            where = f"{part} · turn {turn_of.get(message, row.turn)}"
        lines.append(message_line(message, where))
    return "\n".join(lines)
