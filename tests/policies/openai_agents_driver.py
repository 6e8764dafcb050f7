"""Plays a conversation through the real OpenAI Agents SDK, offline, and records what its model saw.

A scripted :class:`agents.models.interface.Model` answers each call with the assistant
items of the conversation, a function tool returns each call's recorded result, and
an in-memory ``SQLiteSession`` stores the turns. Nothing reaches the network: tracing is
off and no OpenAI client is made. Written against the SDK's public interfaces so that it
also drives older releases (see ``run_against_version`` in the differential test).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents import (
    Agent,
    Runner,
    SessionSettings,
    SQLiteSession,
    function_tool,
    set_tracing_disabled,
)
from agents.agent import ToolsToFinalOutputResult
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)

from tests import event_loop
from windowmem.messages import Message, Role, interactions
from windowmem.policies.openai_agents import ItemKind, OpenAIAgentsSession, SessionItem

set_tracing_disabled(True)


def item_key(item: dict[str, Any]) -> tuple[str, ...]:
    """A stored or sent item as a comparable tuple: kind, then its text or call id."""
    kind = item.get("type") or "message"
    if kind == "message":
        content = item["content"]
        text = content if isinstance(content, str) else "".join(p["text"] for p in content)
        return ("message", item["role"], text)
    if kind == "function_call":
        return ("function_call", item["call_id"])
    if kind == "function_call_output":
        return ("function_call_output", item["call_id"], item["output"])
    return (kind,)


@dataclass
class SdkRun:
    """What the SDK did: the input of each turn's first model call, and the rows stored."""

    first_inputs: list[list[tuple[str, ...]]]
    stored: list[tuple[str, ...]]
    instructions: list[str | None]


class _ScriptedModel(Model):
    def __init__(self) -> None:
        self.script: list[list[Any]] = []
        self.inputs: list[list[tuple[str, ...]]] = []
        self.instructions: list[str | None] = []

    async def get_response(self, system_instructions, input, *args, **kwargs):  # noqa: A002
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        self.inputs.append([item_key(json.loads(json.dumps(i))) for i in items])
        self.instructions.append(system_instructions)
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the differential tests do not stream")


#: The session types that run offline, by the name the tests use (openai-agents 0.24.0).
OFFLINE_SESSIONS = ("sqlite", "async-sqlite", "advanced-sqlite", "sqlalchemy-sqlite")


def open_session(kind: str, settings: SessionSettings) -> Any:
    """A new in-memory session of *kind* (one of :data:`OFFLINE_SESSIONS`)."""
    if kind == "sqlite":
        return SQLiteSession("differential", session_settings=settings)
    from agents.extensions import memory

    if kind == "async-sqlite":
        return memory.AsyncSQLiteSession("differential", session_settings=settings)
    if kind == "advanced-sqlite":
        return memory.AdvancedSQLiteSession(
            session_id="differential", create_tables=True, session_settings=settings
        )
    if kind == "sqlalchemy-sqlite":
        return memory.SQLAlchemySession.from_url(
            "differential",
            url="sqlite+aiosqlite:///:memory:",
            create_tables=True,
            session_settings=settings,
        )
    raise ValueError(f"unknown session type {kind!r}: use one of {OFFLINE_SESSIONS}")


async def close_session(session: Any) -> None:
    """Close *session* however its type closes (sync, async, or an engine to dispose)."""
    engine = getattr(session, "_engine", None)
    if engine is not None and hasattr(engine, "dispose"):
        await engine.dispose()
        return
    closed = session.close()
    if asyncio.iscoroutine(closed):
        await closed


def play(
    messages: Sequence[Message],
    limit: int | None,
    *,
    reasoning: bool = False,
    session_type: str = "sqlite",
) -> SdkRun:
    """Run every turn of *messages* through ``Runner.run`` with ``SessionSettings(limit=limit)``
    and a session of *session_type*."""
    return event_loop.run(_play(messages, limit, reasoning, session_type))


async def _play(
    messages: Sequence[Message], limit: int | None, reasoning: bool, session_type: str
) -> SdkRun:
    ids = itertools.count(1)
    outputs: dict[str, str] = {}
    stop_after_tools = [False]

    def reasoning_items() -> list[Any]:
        return [ResponseReasoningItem(id=f"rs_{next(ids)}", type="reasoning", summary=[])] * bool(
            reasoning
        )

    def text(content: str) -> ResponseOutputMessage:
        part = ResponseOutputText(type="output_text", text=content, annotations=[])
        return ResponseOutputMessage(
            id=f"msg_{next(ids)}",
            type="message",
            role="assistant",
            status="completed",
            content=[part],
        )

    def call(call_id: str) -> ResponseFunctionToolCall:
        arguments = json.dumps({"key": call_id})
        return ResponseFunctionToolCall(
            id=f"fc_{next(ids)}",
            type="function_call",
            call_id=call_id,
            name="lookup",
            arguments=arguments,
        )

    @function_tool
    def lookup(key: str) -> str:
        """Return the recorded result of call *key*."""
        return outputs[key]

    def after_tools(context, results) -> ToolsToFinalOutputResult:
        return ToolsToFinalOutputResult(is_final_output=stop_after_tools[0], final_output="")

    system = next((m.content for m in messages if m.role is Role.SYSTEM), None)
    model = _ScriptedModel()
    agent = Agent(
        name="agent",
        instructions=system,
        model=model,
        tools=[lookup],
        tool_use_behavior=after_tools,
    )
    settings = SessionSettings(limit=limit)
    session = open_session(session_type, settings)
    first_inputs = []
    try:
        for turn in interactions(messages):
            opening, replies = turn.messages[0], turn.messages[1:]
            script: list[list[Any]] = []
            step: list[Any] = []
            for reply in replies:
                if reply.role is Role.ASSISTANT:
                    if step:
                        script.append(step)
                    step = reasoning_items()
                    if reply.content or not reply.tool_calls:
                        step.append(text(reply.content))
                    step.extend(call(c) for c in reply.tool_calls)
                elif reply.role is Role.TOOL and reply.tool_call_id is not None:
                    outputs[reply.tool_call_id] = reply.content
            script.append(step)
            stop_after_tools[0] = bool(replies) and replies[-1].role is Role.TOOL
            model.script = script
            before = len(model.inputs)
            await Runner.run(agent, opening.content, session=session)
            first_inputs.append(model.inputs[before])
        stored = [item_key(i) for i in await session.get_items(limit=-1)]
    finally:
        await close_session(session)
    return SdkRun(first_inputs, stored, model.instructions)


def keys(items: tuple[SessionItem, ...]) -> list[tuple[str, ...]]:
    """Our items as the driver writes the SDK's."""
    out = []
    for item in items:
        if item.kind is ItemKind.MESSAGE:
            out.append(("message", item.message.role.value, item.message.content))
        elif item.kind is ItemKind.FUNCTION_CALL:
            out.append(("function_call", item.call_id))
        elif item.kind is ItemKind.FUNCTION_CALL_OUTPUT:
            out.append(("function_call_output", item.call_id, item.message.content))
        else:
            out.append(("reasoning",))
    return out


def expected_inputs(messages, policy: OpenAIAgentsSession) -> list[list[tuple[str, ...]]]:
    """What our model says each turn's first call receives: the input history, then the user message."""
    history: list[Message] = []
    out = []
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.USER:
            out.append([*keys(policy.input_items(history)), ("message", "user", message.content)])
        history.append(message)
    return out
