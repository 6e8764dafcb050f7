"""The same stateless model in Spring AI's words: ``MessageChatMemoryAdvisor`` adds the memory to each call.

A Spring AI ``ChatClient`` with a chat memory advisor (read at git tags v1.0.0 and
v2.0.1 of ``spring-projects/spring-ai``, ``MessageChatMemoryAdvisor.java``) does, on
every call:

* *before* the model is called: read the conversation's memory, put it before the
  prompt's messages, **and store the new user message**; v2.0.1 also moves the first
  system message to the front, and that is the order modelled here;
* *after* the model answered: store the answer.

So the model keeps nothing; the advisor sends it the memory each time. One difference
from n8n follows: n8n writes a run to memory only once it has an answer, while Spring AI
has stored the user's message before the call, so a call that fails leaves that message
in memory without a reply. At the default advisor order (outside the tool-calling loop)
tool calls and their results are not stored (Spring AI docs, 1.0.0 to 2.0.1); a turn's
stored reply is its final answer. Moved inside the loop (2.0, ``tools.adoc``), the advisor
stores them too; that set-up is not modelled.

>>> from windowmem.messages import system, user, assistant
>>> from windowmem.policies.spring_ai import SpringAiMessageWindow
>>> chat = [system("Be brief."), user("I'm Marta"), assistant("Hi Marta"), user("Who am I?")]
>>> calls = advisor_calls(chat, SpringAiMessageWindow(20))
>>> [m.content for m in calls[1].sent]
['Be brief.', "I'm Marta", 'Hi Marta', 'Who am I?']
>>> [m.content for m in calls[1].stored_after]
["I'm Marta", 'Hi Marta', 'Who am I?']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role
from windowmem.policies.base import Memory, WindowPolicy
from windowmem.policies.spring_ai import advisor_prompt


@dataclass(frozen=True)
class AdvisorCall:
    """One ``ChatClient`` call through the memory advisor: what it sent and what memory holds after."""

    turn: int
    sent: tuple[Message, ...]
    answer: Message | None
    """The model's final answer; None when the call failed."""
    stored_after: tuple[Message, ...]
    """The conversation's memory once the call is over (failed or not)."""


def advisor_calls(
    conversation: Conversation | Sequence[Message], memory: WindowPolicy
) -> tuple[AdvisorCall, ...]:
    """Every call of *conversation* through ``MessageChatMemoryAdvisor`` over a chat memory *memory*.

    A turn with a user message and no assistant answer is a call that failed.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.spring_ai import SpringAiMessageWindow
    >>> failed = advisor_calls([user("u1"), user("u2"), assistant("a2")], SpringAiMessageWindow(20))
    >>> [m.content for m in failed[0].stored_after], [m.content for m in failed[1].sent]
    (['u1'], ['u1', 'u2'])
    """
    conversation = as_conversation(conversation)
    system_message = conversation.system_message
    session = Memory(memory)
    calls = []
    for interaction in conversation.interactions:
        user_message = interaction.user_message
        if user_message is None:
            raise WindowMemError(
                f"turn {interaction.number} opens with an assistant message: a ChatClient call "
                "starts from the user's message"
            )
        prompt = ((system_message,) if system_message is not None else ()) + (user_message,)
        sent = advisor_prompt(session.load(), prompt)
        session.add(user_message)  # before the model is called
        answers = [
            m for m in interaction.messages[1:] if m.role is Role.ASSISTANT and not m.calls_tool
        ]
        answer = answers[-1] if answers else None
        if answer is not None:
            session.add(answer)  # after the model answered
        calls.append(AdvisorCall(interaction.number, sent, answer, session.stored))
    return tuple(calls)


__all__ = ["AdvisorCall", "advisor_calls"]
