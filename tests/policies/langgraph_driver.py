"""Plays a conversation through a real LangGraph / LangChain agent, offline, recording its model's input.

A scripted chat model answers with the conversation's assistant messages (tool calls
included), a tool returns each call's recorded result, and ``InMemorySaver`` keeps the
thread. The agent is either langgraph's ``create_react_agent`` with a ``pre_model_hook``
or langchain's ``create_agent`` with ``SummarizationMiddleware`` (a fake model writes the
summaries, or our summariser stands in for it). No network, no API key.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from tests.policies.model_calls import scripted_turns
from windowmem.messages import Message, Role, interactions

ROLE_OF_TYPE = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


def key(message: BaseMessage) -> tuple[str, str, tuple[str, ...]]:
    """A LangChain message as (role, content, tool call ids or the call it answers)."""
    if isinstance(message, AIMessage):
        links: tuple[str, ...] = tuple(call["id"] for call in message.tool_calls)
    elif isinstance(message, ToolMessage):
        links = (message.tool_call_id,)
    else:
        links = ()
    return (ROLE_OF_TYPE[message.type], str(message.content), links)


def to_langchain(message: Message) -> BaseMessage:
    if message.role is Role.SYSTEM:
        return SystemMessage(message.content)
    if message.role is Role.USER:
        return HumanMessage(message.content)
    if message.role is Role.ASSISTANT:
        calls = [{"name": "lookup", "args": {"key": c}, "id": c} for c in message.tool_calls]
        return AIMessage(message.content, tool_calls=calls)
    return ToolMessage(message.content, tool_call_id=message.tool_call_id or "")


def from_langchain(message: BaseMessage) -> Message:
    role, content, links = key(message)
    if role == "tool":
        return Message(Role.TOOL, content, tool_call_id=links[0])
    return Message(role, content, links if role == "assistant" else ())


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next scripted AIMessage and records what it was sent."""

    script: list[AIMessage] = []
    received: list[list[tuple[str, str, tuple[str, ...]]]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.received.append([key(m) for m in messages])
        reply = self.script.pop(0)
        return ChatResult(generations=[ChatGeneration(message=reply)])


@dataclass
class GraphRun:
    """The input of each turn's first model call, of every model call, and the thread saved at the end."""

    first_inputs: list[list[tuple[str, str, tuple[str, ...]]]]
    thread: list[tuple[str, str, tuple[str, ...]]]
    every_input: list[list[tuple[str, str, tuple[str, ...]]]]


def words(messages: Sequence[BaseMessage]) -> int:
    """A list token counter for LangChain: the words of every message's content."""
    return sum(len(str(m.content).split()) for m in messages)


def guide_trim(
    messages: Sequence[BaseMessage],
    max_tokens: int,
    counter: Callable[[Sequence[BaseMessage]], int] = words,
) -> list[BaseMessage]:
    """The ``trim_messages`` call of LangGraph's guide (and of lesson 5's ``keep_last_10``),
    with our word counter unless *counter* is given."""
    return trim_messages(
        messages,
        strategy="last",
        token_counter=counter,
        max_tokens=max_tokens,
        start_on="human",
        end_on=("human", "tool"),
    )


def trim_hook(
    max_tokens: int, *, replace_state: bool
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The pre_model_hook of LangGraph's guide, with our word counter."""

    def hook(state: dict[str, Any]) -> dict[str, Any]:
        trimmed = guide_trim(state["messages"], max_tokens)
        if replace_state:
            return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *trimmed]}
        return {"llm_input_messages": trimmed}

    return hook


def play(
    messages: Sequence[Message], build: Callable[[ScriptedChatModel, Any, str | None], Any]
) -> GraphRun:
    """Run every turn of *messages* through the agent *build* makes (model, tools, system prompt)."""
    outputs: dict[str, str] = {}

    @tool
    def lookup(key: str) -> str:
        """Return the recorded result of call *key*."""
        return outputs[key]

    model = ScriptedChatModel(script=[], received=[])
    system = next((m.content for m in messages if m.role is Role.SYSTEM), None)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # create_react_agent is deprecated in favour of create_agent
        agent = build(model, [lookup], system)
    config = {"configurable": {"thread_id": "differential"}}
    first_inputs = []
    for opening, answers in scripted_turns(messages, outputs):
        model.script = [to_langchain(m) for m in answers]
        before = len(model.received)
        agent.invoke({"messages": [HumanMessage(opening.content)]}, config)
        first_inputs.append(model.received[before])
    thread = agent.get_state(config).values.get("messages", [])
    return GraphRun(first_inputs, [key(m) for m in thread], list(model.received))


def react_agent(
    hook: Callable[..., Any] | None,
) -> Callable[[ScriptedChatModel, Any, str | None], Any]:
    from langgraph.prebuilt import create_react_agent

    def build(model: ScriptedChatModel, tools: Any, system: str | None) -> Any:
        return create_react_agent(
            model, tools, prompt=system, pre_model_hook=hook, checkpointer=InMemorySaver()
        )

    return build


def summarizing_agent(
    **middleware_options: Any,
) -> Callable[[ScriptedChatModel, Any, str | None], Any]:
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware

    def build(model: ScriptedChatModel, tools: Any, system: str | None) -> Any:
        options = dict(middleware_options)
        middleware = SummarizationMiddleware(model=options.pop("model", model), **options)
        return create_agent(
            model,
            tools,
            system_prompt=system,
            middleware=[middleware],
            checkpointer=InMemorySaver(),
        )

    return build


def middleware_agent(
    *middleware: Any,
) -> Callable[[ScriptedChatModel, Any, str | None], Any]:
    """langchain's ``create_agent`` with *middleware*, a system prompt and ``InMemorySaver``."""
    from langchain.agents import create_agent

    def build(model: ScriptedChatModel, tools: Any, system: str | None) -> Any:
        return create_agent(
            model,
            tools,
            system_prompt=system,
            middleware=list(middleware),
            checkpointer=InMemorySaver(),
        )

    return build


def trim_middleware(max_tokens: int, *, replace_state: bool) -> Any:
    """The trim of LangGraph's guide as middleware: ``@before_model`` cuts the saved thread,
    ``@wrap_model_call`` only the model's input."""
    from langchain.agents.middleware import before_model, wrap_model_call

    if replace_state:

        @before_model
        def trim_state(state: Any, runtime: Any) -> dict[str, Any]:
            kept = guide_trim(state["messages"], max_tokens)
            return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

        return trim_state

    @wrap_model_call
    def trim_input(request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request.override(messages=guide_trim(request.messages, max_tokens)))

    return trim_input


def with_replies(messages: Sequence[Message]) -> tuple[Message, ...]:
    """*messages* with an assistant reply closing every turn: a LangGraph agent always answers."""
    out: list[Message] = []
    for turn in interactions(messages):
        out.extend(turn.messages)
        if turn.messages[-1].role is not Role.ASSISTANT or turn.messages[-1].tool_calls:
            out.append(Message(Role.ASSISTANT, "done"))
    system = [m for m in messages[:1] if m.role is Role.SYSTEM]
    return (*system, *out)
