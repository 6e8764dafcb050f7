"""Every product's window on one conversation, side by side: what each sends on each turn.

For lesson 5. One conversation (tool calls and all) is replayed under a line-up of real
products' memories, each at its own default or a chosen size, and every turn gets one
:class:`ProductTurn` per product: the exact messages its model receives, and how much
that is in the product's own unit (interactions, messages, items or tokens).
:func:`windowmem.frames.side_by_side_frame` lays the rows out as a table.

>>> from windowmem.messages import user, assistant, tool
>>> chat = [user("u1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1"), user("u2")]
>>> rows = side_by_side(chat, [("n8n", 1), ("openai-agents", 2)])
>>> [(r.policy, r.turn, [m.content for m in r.sent], r.amount) for r in rows if r.turn == 2]
[('n8n', 2, ['r1', 'a1', 'u2'], 2), ('openai-agents', 2, ['a1', 'u2'], 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.conversation import Conversation, as_conversation
from windowmem.messages import Message, interactions, without_system
from windowmem.policies.base import Unit, WindowPolicy
from windowmem.policies.openai_agents import stored_items
from windowmem.policies.registry import make_policy
from windowmem.replay import iter_turn_views

#: The products of lesson 5 at their defaults (None: the product's own default).
DEFAULT_LINEUP: tuple[tuple[str, int | None], ...] = (
    ("n8n", None),
    ("langchain-py", None),
    ("spring-ai", None),
    ("semantic-kernel", None),
    ("llamaindex", None),
    ("openai-agents", None),
    ("langgraph", None),
    ("langgraph-trim-input", None),
    ("langchain-summarization", None),
)


@dataclass(frozen=True, slots=True)
class ProductTurn:
    """What one product's model receives on one turn, and its size in the product's unit."""

    policy: str
    product: str
    unit: Unit
    size: int | None
    turn: int
    sent: tuple[Message, ...]
    """Exactly what the model receives, the system message first where there is one."""
    amount: int
    """The sent messages (system message aside) measured in *unit*."""
    visible_turns: tuple[int, ...]


def measure(policy: WindowPolicy, messages: Sequence[Message]) -> int:
    """*messages* (system messages aside) in *policy*'s unit: interactions, messages, items or tokens.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.registry import make_policy
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
    return len(kept)


def side_by_side(
    conversation: Conversation | Sequence[Message],
    lineup: Sequence[tuple[str, int | None]] | None = None,
) -> tuple[ProductTurn, ...]:
    """One row per product per turn, turn by turn in line-up order, for *conversation*.

    *lineup* names registered policies with a size each (None: the product's default);
    :data:`DEFAULT_LINEUP` by default. A bad name or size raises the policy's error.
    """
    conversation = as_conversation(conversation)
    chosen = DEFAULT_LINEUP if lineup is None else tuple(lineup)
    per_product = []
    for name, size in chosen:
        policy = make_policy(name, size)
        per_product.append(
            [
                ProductTurn(
                    name,
                    policy.product,
                    policy.unit,
                    policy.size,
                    view.turn,
                    view.sent,
                    measure(policy, view.sent),
                    view.visible_turns,
                )
                for view in iter_turn_views(conversation, policy)
            ]
        )
    return tuple(row for turn_rows in zip(*per_product) for row in turn_rows)
