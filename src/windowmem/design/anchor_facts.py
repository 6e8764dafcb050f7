"""Where an anchor fact travels, and the design that keeps it: the fact in the system prompt.

:func:`windowmem.design.side_by_side.side_by_side` gives every product's array per turn, and
:meth:`~windowmem.design.side_by_side.ProductTurn.fact_place` says where a fact sits in it.
This module adds the two things lesson 5 builds on that: the conversation with the fact
moved into the system prompt (:func:`with_fact_in_system_prompt`), and the turns on which
a product still sends the fact (:func:`turns_reached`).

>>> from windowmem.messages import system, user, assistant, tool
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> from windowmem.design.side_by_side import side_by_side
>>> chat = [system("S"), user("Order #7"), assistant("ok"), user("track it"), assistant("", ["c"]),
...         tool("late", "c"), assistant("late"), user("which order?")]
>>> turns_reached(side_by_side(chat, [N8nSimpleMemory(1)]), "#7", "n8n")
(1, 2)
>>> anchored = with_fact_in_system_prompt(chat, "Order on file: #7")
>>> turns_reached(side_by_side(anchored, [N8nSimpleMemory(1)]), "#7", "n8n")
(1, 2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.conversation import Conversation, as_conversation
from windowmem.design.side_by_side import FactPlace, ProductTurn
from windowmem.messages import Message, system


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


def turns_reached(rows: Sequence[ProductTurn], fact: str, policy: str) -> tuple[int, ...]:
    """The turns on which *fact* is anywhere in *policy*'s array."""
    return tuple(
        r.turn for r in rows if r.policy == policy and r.fact_place(fact) is not FactPlace.NOT_SENT
    )


__all__ = ["turns_reached", "with_fact_in_system_prompt"]
