"""An agent, its workflow tools and a recorded conversation: what each tool call delivers to its sub-workflow.

A conversation file records the tool calls by id only. A scenario adds what the agent's
workflow knows: the tools (:class:`~windowmem.calls.tool_input.WorkflowTool`), the model's
arguments for each call id, the name of the chat trigger node whose output fixed
expressions read, and the session id it sends. :meth:`ToolScenario.deliveries` then
says, for any model call, what each tool it asks for receives.

The shipped scenario (``load_tool_scenario("tutienda_tools")``) is lesson 2's: Marta
tracks order #6023, asks to redirect it, sends a message whose run fails, and later asks
for her order number.

>>> scenario = load_tool_scenario("tutienda_tools")
>>> [d.tool.name for d in scenario.deliveries("call_track_2")]
['track_order']
>>> scenario.deliveries("call_track_2")[0].item["session_id"] == scenario.session_id
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from windowmem.calls.tool_input import WorkflowTool
from windowmem.conversation import Conversation, parse_conversation
from windowmem.errors import ConversationFormatError, WindowMemError


@dataclass(frozen=True)
class Delivery:
    """One tool call as its sub-workflow sees it: the *tool*, the model's *arguments*, the *item* received."""

    call_id: str
    tool: WorkflowTool
    arguments: Mapping[str, Any] | str
    item: dict[str, Any]


@dataclass(frozen=True)
class ToolScenario:
    """A conversation with the tools its agent has and the arguments of each recorded tool call."""

    conversation: Conversation
    tools: tuple[WorkflowTool, ...]
    calls: Mapping[str, tuple[str, Mapping[str, Any] | str]] = field(default_factory=dict)
    """Call id -> (tool name, the model's arguments)."""
    agent_workflow_id: str = "wf-agent"
    trigger: str = "When chat message received"
    session_id: str = "session"

    def __post_init__(self) -> None:
        names = {t.name for t in self.tools}
        for call_id, (tool_name, _) in self.calls.items():
            if tool_name not in names:
                raise WindowMemError(
                    f"tool call {call_id!r} names tool {tool_name!r}, which the agent does not have "
                    f"(tools: {', '.join(sorted(names)) or 'none'})"
                )

    def tool(self, name: str) -> WorkflowTool:
        """The agent's tool called *name*."""
        for candidate in self.tools:
            if candidate.name == name:
                return candidate
        raise WindowMemError(f"the agent has no tool {name!r}")

    def trigger_item(self, chat_input: str, session_id: str | None = None) -> dict[str, Any]:
        """What the Chat Trigger outputs for one message: the widget's body (n8n 2.41.1, Chat Trigger)."""
        return {
            "action": "sendMessage",
            "sessionId": self.session_id if session_id is None else session_id,
            "chatInput": chat_input,
        }

    def deliveries(
        self, *call_ids: str, chat_input: str = "", session_id: str | None = None
    ) -> tuple[Delivery, ...]:
        """What the sub-workflow of each call in *call_ids* receives, in order.

        *chat_input* and *session_id* describe the chat message that started the run, which
        fixed expressions may read from the trigger's output.
        """
        nodes = {self.trigger: self.trigger_item(chat_input, session_id)}
        out = []
        for call_id in call_ids:
            if call_id not in self.calls:
                raise WindowMemError(
                    f"no arguments recorded for tool call {call_id!r}: add it to the scenario's calls"
                )
            tool_name, arguments = self.calls[call_id]
            tool = self.tool(tool_name)
            out.append(Delivery(call_id, tool, arguments, tool.item(arguments, nodes)))
        return tuple(out)


def _folder() -> Path:
    return Path(str(resources.files("windowmem") / "data" / "lesson2"))


def tool_scenario_from_data(data: Any) -> ToolScenario:
    """A scenario from decoded JSON: ``conversation``, ``tools``, ``calls`` and the agent's ids."""
    if not isinstance(data, dict) or "conversation" not in data or "tools" not in data:
        raise ConversationFormatError(
            "a tool scenario is an object with a 'conversation' and a list of 'tools'"
        )
    conversation = parse_conversation(data["conversation"], title=data.get("title", ""))
    tools = tuple(
        WorkflowTool.of(t["name"], t["workflow_id"], t.get("inputs", {})) for t in data["tools"]
    )
    calls = {cid: (c["tool"], c.get("arguments", "")) for cid, c in data.get("calls", {}).items()}
    return ToolScenario(
        conversation,
        tools,
        calls,
        data.get("agent_workflow_id", "wf-agent"),
        data.get("trigger", "When chat message received"),
        data.get("session_id", "session"),
    )


def tool_scenario_names() -> tuple[str, ...]:
    """The shipped tool scenarios."""
    return tuple(sorted(p.stem for p in _folder().glob("*.json")))


def load_tool_scenario(name: str) -> ToolScenario:
    """The shipped tool scenario *name*."""
    if name not in tool_scenario_names():
        raise WindowMemError(
            f"no tool scenario {name!r}: use one of {', '.join(tool_scenario_names())}"
        )
    path = _folder() / f"{name}.json"
    return tool_scenario_from_data(json.loads(path.read_text(encoding="utf-8")))


def without_tools(conversation: Conversation) -> ToolScenario:
    """A scenario for a conversation whose agent has no tools."""
    return ToolScenario(conversation, ())


def session_per_message(base: str, turns: int) -> Sequence[str]:
    """A different session id for each of *turns* messages: what a key built per request gives.

    >>> session_per_message("3f1c", 3)
    ['3f1c-01', '3f1c-02', '3f1c-03']
    """
    return [f"{base}-{t:02d}" for t in range(1, turns + 1)]


__all__ = [
    "Delivery",
    "ToolScenario",
    "load_tool_scenario",
    "session_per_message",
    "tool_scenario_from_data",
    "tool_scenario_names",
    "without_tools",
]
