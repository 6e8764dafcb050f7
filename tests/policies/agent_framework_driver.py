"""Plays a conversation through a real Microsoft Agent Framework agent, offline, recording its model's input.

A scripted chat client (the framework's own function-invocation layer over a
``BaseChatClient``) answers with the conversation's assistant messages, tool calls
included; a tool returns each call's recorded result; a session's
``InMemoryHistoryProvider`` keeps the history. No network, no API key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_framework import Agent, ChatResponse, Content, tool
from agent_framework import Message as AfMessage
from agent_framework._clients import BaseChatClient
from agent_framework._tools import FunctionInvocationLayer

from tests import event_loop
from tests.policies.model_calls import Key, scripted_turns
from windowmem.messages import Message, Role


def to_af(message: Message) -> AfMessage:
    """One of our messages as an Agent Framework message (tool calls as function contents)."""
    if message.role is Role.TOOL:
        result = Content.from_function_result(
            call_id=message.tool_call_id or "", result=message.content
        )
        return AfMessage(role="tool", contents=[result])
    contents: list[Any] = [message.content] if message.content else []
    contents += [
        Content.from_function_call(call_id=call, name="lookup", arguments={"key": call})
        for call in message.tool_calls
    ]
    return AfMessage(role=message.role.value, contents=contents)


def key(message: AfMessage) -> Key:
    """An Agent Framework message as (role, text, call ids or the call it answers)."""
    links = tuple(
        c.call_id or "" for c in message.contents if c.type in ("function_call", "function_result")
    )
    if message.role == "tool":
        text = " ".join(str(c.result) for c in message.contents if c.type == "function_result")
    else:
        text = message.text
    return (str(message.role), text, links)


def one_message_per_round(keys: Sequence[Key]) -> list[Key]:
    """Our keys as an ``Agent`` holds them: consecutive tool results in one tool message
    (texts joined by a space, call ids in order), as its function-invocation layer stores a
    round's results."""
    out: list[Key] = []
    for role, text, links in keys:
        if role == "tool" and out and out[-1][0] == "tool":
            _, before, linked = out[-1]
            out[-1] = (role, f"{before} {text}", (*linked, *links))
        else:
            out.append((role, text, links))
    return out


class ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers each call with the next scripted message and records what it was sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script: list[AfMessage] = []
        self.received: list[list[Key]] = []

    def _inner_get_response(
        self, *, messages: Sequence[AfMessage], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        async def respond() -> ChatResponse:
            self.received.append([key(m) for m in messages])
            return ChatResponse(messages=[self.script.pop(0)])

        return respond()


def play(messages: Sequence[Message], **agent_options: Any) -> tuple[list[list[Key]], list[Key]]:
    """Every model call's input, and the stored history, after each turn of *messages* ran."""
    outputs: dict[str, str] = {}

    @tool
    def lookup(key: str) -> str:
        """Return the recorded result of call *key*."""
        return outputs[key]

    client = ScriptedClient()
    agent = Agent(client=client, tools=[lookup], **agent_options)
    session = agent.create_session()

    async def run_all() -> None:
        for opening, answers in scripted_turns(messages, outputs):
            client.script = [to_af(m) for m in answers]
            await agent.run(opening.content, session=session)

    event_loop.run(run_all())
    stored = session.state.get("in_memory", {}).get("messages", [])
    return client.received, [key(m) for m in stored]


class CountingSummarizer(BaseChatClient[Any]):
    """A summarising client that answers "summary of N messages", N the transcript's lines."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = 0

    def _inner_get_response(
        self, *, messages: Sequence[AfMessage], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        async def respond() -> ChatResponse:
            self.calls += 1
            lines = len(messages[-1].text.splitlines())
            text = f"summary of {lines} messages"
            return ChatResponse(messages=[AfMessage(role="assistant", contents=[text])])

        return respond()
