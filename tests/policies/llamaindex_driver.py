"""Plays a conversation through a real LlamaIndex ``FunctionAgent``, offline, recording its LLM's input.

LlamaIndex's own ``MockFunctionCallingLLM`` answers with the conversation's assistant
messages (tool calls as ``ToolCallBlock``), a ``FunctionTool`` returns each call's
recorded result, and a ``Memory`` (word tokenizer, no download) keeps the history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool

from tests import event_loop
from tests.policies.model_calls import Key, our_key, scripted_turns
from windowmem.messages import Message, Role, interactions
from windowmem.policies.base import Memory
from windowmem.policies.llamaindex_memory import LlamaIndexMemory


def key(message: ChatMessage) -> Key:
    """A LlamaIndex message as (role, text, call ids or the call it answers)."""
    if message.role.value == "tool":
        links: tuple[str, ...] = (str(message.additional_kwargs.get("tool_call_id", "")),)
    else:
        links = tuple(b.tool_call_id or "" for b in message.blocks if isinstance(b, ToolCallBlock))
    return (message.role.value, message.content or "", links)


def to_llama(message: Message) -> ChatMessage:
    """One of our assistant messages as the LLM's answer (tool calls as blocks)."""
    blocks: list[Any] = [TextBlock(text=message.content)]
    blocks += [
        ToolCallBlock(tool_call_id=call, tool_name="lookup", tool_kwargs={"key": call})
        for call in message.tool_calls
    ]
    return ChatMessage(role=message.role.value, blocks=blocks)


def play(
    messages: Sequence[Message], make_memory: Callable[[], Any]
) -> tuple[list[list[Key]], list[Key]]:
    """Every LLM call's input, and the active queue of the memory *make_memory* builds, after
    each turn of *messages* ran."""
    outputs: dict[str, str] = {}
    received: list[list[Key]] = []
    script: list[ChatMessage] = []

    def lookup(key: str) -> str:
        """Return the recorded result of call *key*."""
        return outputs[key]

    def respond(sent: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        received.append([key(m) for m in sent])
        return script.pop(0)

    system = next((m.content for m in messages if m.role is Role.SYSTEM), None)
    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(lookup)],
        llm=MockFunctionCallingLLM(response_generator=respond),
        system_prompt=system,
    )

    async def run_all() -> list[Key]:
        memory = make_memory()
        for opening, answers in scripted_turns(messages, outputs):
            script[:] = [to_llama(m) for m in answers]
            await agent.run(user_msg=opening.content, memory=memory)
        queue = [key(m) for m in await memory.aget()]
        engine = memory.sql_store._async_engine  # made at the first write, if any
        if engine is not None:
            await engine.dispose()  # close it in this loop, not at exit
        return queue

    # One event loop for the memory's whole life: its SQL store is bound to the loop it met.
    return received, event_loop.run(run_all())


def expected_calls(
    messages: Sequence[Message], policy: LlamaIndexMemory
) -> tuple[list[list[Key]], list[Key]]:
    """What each LLM call of a ``FunctionAgent`` receives under our model, and the queue left:
    ``aput(user)``, ``aget()`` plus the turn's answers and results so far; the turn's replies
    are then written with one ``aput_messages``."""
    system = [m for m in messages[:1] if m.role is Role.SYSTEM]
    memory = Memory(policy)
    calls = []
    for turn in interactions([m for m in messages if m.role is not Role.SYSTEM]):
        opening, replies = turn.messages[0], turn.messages[1:]
        memory.add(opening)
        for index, reply in enumerate(replies):
            if reply.role is Role.ASSISTANT:
                sent = (*system, *memory.stored, *replies[:index])
                calls.append([our_key(m) for m in sent])
        memory.add(*replies)
    return calls, [our_key(m) for m in memory.stored]
