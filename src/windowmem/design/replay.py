"""A recorded chat replayed through LangChain's real ``create_agent``, offline.

Lesson 5 runs its ``keep_last_10`` middleware on Valentina's recorded chat with no API key:
:func:`replay_model` is a LangChain chat model that answers with the chat's recorded
assistant messages in order (tool calls included), and :func:`replay_tools` is one tool,
``lookup``, that returns each call's recorded result. The agent, its middleware and its
saved thread are LangChain's own; only the model's replies are scripted.

A script cannot read, so a fix that puts a fact back into the call would not change its
recorded answer. :func:`replay_model`'s *recall* gives the last reply an alternative: when the
last call was sent the fact, the model answers with the reply that uses it, as a real model
would, and otherwise with the recording.

Needs ``langchain-core`` (installed with the ``course`` and ``test`` extras).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import BaseTool, tool
from pydantic import Field

from windowmem.conversation import Conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Role


class OfflineModel(GenericFakeChatModel):
    """A chat model that replays its script of replies: no API key, no network.

    ``create_agent`` binds the agent's tools to its model; a scripted model needs none.
    ``sent`` keeps what each call sent, system prompt first, so a lesson can show it.
    """

    sent: list[list[BaseMessage]] = Field(default_factory=list)
    #: How many replies the script holds, and the last one's alternative: (fact, reply).
    scripted: int = 0
    recall: tuple[str, str] | None = None

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.sent.append(list(messages))
        result = super()._generate(messages, *args, **kwargs)
        if self.recall and len(self.sent) == self.scripted:
            fact, reply = self.recall
            if any(fact in str(m.content) for m in messages):
                result.generations[0].message = AIMessage(reply)
        return result

    def bind_tools(self, tools: Any, **kwargs: Any) -> OfflineModel:
        return self


def replies(conversation: Conversation) -> list[AIMessage]:
    """*conversation*'s assistant messages as LangChain replies, each tool call to ``lookup``."""
    return [
        AIMessage(
            m.content,
            tool_calls=[{"name": "lookup", "args": {"call": c}, "id": c} for c in m.tool_calls],
        )
        for m in conversation.messages
        if m.role is Role.ASSISTANT
    ]


def replay_model(conversation: Conversation, recall: tuple[str, str] | None = None) -> OfflineModel:
    """A model that answers every call of *conversation*'s agent as it was recorded.

    *recall* is ``(fact, reply)``: the last call answers *reply* instead when it was sent
    *fact* (the recording's last answer is the one given without it).

    >>> from windowmem.conversation import Conversation
    >>> chat = Conversation.of([
    ...     {"role": "user", "content": "My order is #1."}, {"role": "assistant", "content": "Noted."},
    ...     {"role": "user", "content": "Which order?"},
    ...     {"role": "assistant", "content": "I can't see it."}])
    >>> model = replay_model(chat, recall=("#1", "Order #1."))
    >>> model.invoke("My order is #1.").content, model.invoke("Which order? (#1)").content
    ('Noted.', 'Order #1.')
    >>> model = replay_model(chat, recall=("#1", "Order #1."))
    >>> model.invoke("Hi").content, model.invoke("Which order?").content
    ('Noted.', "I can't see it.")
    """
    scripted = replies(conversation)
    return OfflineModel(messages=iter(scripted), scripted=len(scripted), recall=recall)


def replay_tools(conversation: Conversation) -> list[BaseTool]:
    """One tool, ``lookup``, that returns the recorded result of the tool call it is given."""
    results = {m.tool_call_id: m.content for m in conversation.messages if m.role is Role.TOOL}

    @tool
    def lookup(call: str) -> str:
        """The shop's recorded answer to one tool call."""
        if call not in results:
            raise WindowMemError(
                f"no recorded result for tool call {call!r}: replay the chat's own calls, in order"
            )
        return results[call]

    return [lookup]


def questions_of(conversation: Conversation) -> Sequence[str]:
    """The user's message that opens each turn of *conversation*, in order."""
    return [turn.messages[0].content for turn in conversation.interactions]
