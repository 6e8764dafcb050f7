"""What a running n8n 2.41.1 sent the model and stored, recorded by the harness, as windowmem messages.

The harness in ``verify/n8n`` runs n8n 2.41.1 with a recording model server and saves,
per scenario, every request body n8n sent and what its memory node held after each run
(``windowmem/data/n8n_recorded/<scenario>.json``; record them again with
``make record-n8n``). This module reads those files and turns n8n's wire formats into
windowmem messages, so a lesson can put "recorded from n8n 2.41.1" beside
:func:`windowmem.calls.agent_calls.model_calls`:

* :func:`request_messages`: a ``/v1/responses`` or ``/v1/chat/completions`` body as
  messages (Responses API ``function_call`` items in a row are one assistant message
  asking for each call, as a chat completion's ``tool_calls`` are);
* :func:`stored_messages`: a Chat Memory Manager's *Get Many Messages* output (Simplify
  Output off: LangChain's serialised messages) as messages;
* :func:`load_recording`: one committed scenario, run by run.

>>> request_messages({"input": [{"role": "system", "content": "Be brief."},
...                             {"role": "user", "content": "Hi"}]})
(Message(role=<Role.SYSTEM: 'system'>, content='Be brief.', tool_calls=(), tool_call_id=None), Message(role=<Role.USER: 'user'>, content='Hi', tool_calls=(), tool_call_id=None))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, system, tool, user

#: The n8n version the committed recordings come from.
RECORDED_N8N_VERSION = "2.41.1"


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return json.dumps(content)


def _responses_input(items: Sequence[Any]) -> tuple[Message, ...]:
    out: list[Message] = []
    calls: list[str] = []

    def flush() -> None:
        if calls:
            out.append(assistant("", list(calls)))
            calls.clear()

    for item in items:
        if not isinstance(item, Mapping):
            raise WindowMemError(f"a Responses API input item is an object, got {item!r}")
        kind = item.get("type", "message")
        if kind == "function_call":
            calls.append(str(item["call_id"]))
            continue
        flush()
        if kind == "function_call_output":
            out.append(tool(_text(item.get("output")), str(item["call_id"])))
        elif kind == "message":
            role = str(item.get("role"))
            role = "system" if role == "developer" else role
            out.append(Message(role, _text(item.get("content"))))
        else:
            raise WindowMemError(f"unknown Responses API input item type {kind!r}")
    flush()
    return tuple(out)


def _chat_messages(messages: Sequence[Any]) -> tuple[Message, ...]:
    out = []
    for message in messages:
        role = str(message.get("role"))
        role = "system" if role == "developer" else role
        if role == "assistant" and message.get("tool_calls"):
            ids = [str(c["id"]) for c in message["tool_calls"]]
            out.append(assistant(_text(message.get("content")), ids))
        elif role == "tool":
            out.append(tool(_text(message.get("content")), message.get("tool_call_id")))
        else:
            out.append(Message(role, _text(message.get("content"))))
    return tuple(out)


def request_messages(body: Mapping[str, Any]) -> tuple[Message, ...]:
    """The messages of one model request body n8n sent (Responses API or chat completions).

    >>> body = {"messages": [{"role": "user", "content": "2+3?"},
    ...   {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
    ...    "function": {"name": "Calculator", "arguments": "{}"}}]},
    ...   {"role": "tool", "content": "5", "tool_call_id": "c1"}]}
    >>> [(m.role.value, m.tool_calls, m.tool_call_id) for m in request_messages(body)]
    [('user', (), None), ('assistant', ('c1',), None), ('tool', (), 'c1')]
    """
    if "input" in body:
        items = body["input"]
        if isinstance(items, str):
            return (user(items),)
        return _responses_input(items)
    if "messages" in body:
        return _chat_messages(body["messages"])
    raise WindowMemError("a model request body has 'input' (Responses API) or 'messages'")


_LANGCHAIN_ROLES = {
    "HumanMessage": Role.USER,
    "AIMessage": Role.ASSISTANT,
    "SystemMessage": Role.SYSTEM,
    "ToolMessage": Role.TOOL,
}


def stored_message(serialised: Mapping[str, Any]) -> Message:
    """One message as LangChain JS serialises it (``message.toJSON()``), as a windowmem message.

    >>> stored_message({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages",
    ...   "AIMessage"], "kwargs": {"content": "Hi", "tool_calls": []}}).short()
    'assistant: Hi'
    """
    kind = str(serialised.get("id", ["?"])[-1])
    if kind not in _LANGCHAIN_ROLES:
        raise WindowMemError(f"unknown LangChain message class {kind!r}")
    kwargs = serialised.get("kwargs", {})
    role = _LANGCHAIN_ROLES[kind]
    content = _text(kwargs.get("content"))
    if role is Role.ASSISTANT:
        return assistant(content, [str(c["id"]) for c in kwargs.get("tool_calls") or ()])
    if role is Role.TOOL:
        return tool(content, kwargs.get("tool_call_id"))
    return user(content) if role is Role.USER else system(content)


def stored_messages(serialised: Sequence[Mapping[str, Any]]) -> tuple[Message, ...]:
    """A Memory Manager's serialised messages (Simplify Output off) as windowmem messages."""
    return tuple(stored_message(m) for m in serialised)


@dataclass(frozen=True)
class RecordedRun:
    """One agent run as n8n 2.41.1 did it: the user's message, each model request, memory after."""

    user_input: str
    status: int
    """n8n's HTTP status for the run (200, or 500 when the run failed)."""
    output: Any
    """What n8n answered: the agent's output text, or its error."""
    request_bodies: tuple[Mapping[str, Any], ...]
    """Every request body n8n sent the model during the run, as sent."""
    memory_after: tuple[Mapping[str, Any], ...] | None
    """What the memory node held after the run (LangChain's serialised messages), if read."""
    session: str = "a"
    """The scenario's name for the memory session the run used."""
    replies: tuple[Mapping[str, Any], ...] = ()
    """The model server's scripted replies: ``{"text"}``, ``{"tool_calls"}`` or ``{"failure"}``."""
    restart_before: bool = False
    """True when n8n was restarted just before this run."""

    @property
    def requests(self) -> tuple[tuple[Message, ...], ...]:
        """Each model request of the run as windowmem messages."""
        return tuple(request_messages(body) for body in self.request_bodies)

    @property
    def stored(self) -> tuple[Message, ...] | None:
        """What memory held after the run, as windowmem messages."""
        return None if self.memory_after is None else stored_messages(self.memory_after)

    @property
    def tool_names(self) -> dict[str, str]:
        """The tool each call of the run asked for, by call id (from the model's scripted replies).

        >>> RecordedRun("hi", 200, "ok", (), None, replies=({"tool_calls": [
        ...     {"id": "c1", "name": "check_stock", "arguments": {}}]}, {"text": "4 left"})).tool_names
        {'c1': 'check_stock'}
        """
        return {
            str(call["id"]): str(call["name"])
            for reply in self.replies
            for call in reply.get("tool_calls") or ()
        }


@dataclass(frozen=True)
class Recording:
    """One recorded scenario: its workflow's node typeVersions and its runs, in order."""

    scenario: str
    description: str
    n8n_version: str
    type_versions: Mapping[str, float]
    """Node type -> typeVersion of the workflow that ran."""
    runs: tuple[RecordedRun, ...]
    command: str
    """The command that records the scenario again."""
    window: int = 5
    """The memory node's Context Window Length."""
    agent_version: float = 3.1
    """The AI Agent node's typeVersion."""


def _folder() -> Path:
    return Path(str(resources.files("windowmem") / "data" / "n8n_recorded"))


def recording_names() -> tuple[str, ...]:
    """The committed recordings, by scenario name."""
    return tuple(sorted(p.stem for p in _folder().glob("*.json")))


def recording_from_data(data: Mapping[str, Any]) -> Recording:
    """A recording from its decoded JSON file."""
    runs = tuple(
        RecordedRun(
            str(run["user_input"]),
            int(run["status"]),
            run.get("output"),
            tuple(run["requests"]),
            None if run.get("memory_after") is None else tuple(run["memory_after"]),
            str(run.get("session", "a")),
            tuple(run.get("replies", ())),
            bool(run.get("restart_before", False)),
        )
        for run in data["runs"]
    )
    return Recording(
        str(data["scenario"]),
        str(data.get("description", "")),
        str(data["n8n_version"]),
        dict(data.get("type_versions", {})),
        runs,
        str(data.get("command", "")),
        int(data.get("window", 5)),
        float(data.get("agent_version", 3.1)),
    )


def load_recording(name: str) -> Recording:
    """The committed recording of scenario *name* (see :func:`recording_names`)."""
    if name not in recording_names():
        raise WindowMemError(
            f"no n8n recording {name!r}: use one of {', '.join(recording_names()) or '(none yet)'}"
        )
    path = _folder() / f"{name}.json"
    return recording_from_data(json.loads(path.read_text(encoding="utf-8")))


__all__ = [
    "RECORDED_N8N_VERSION",
    "RecordedRun",
    "Recording",
    "load_recording",
    "recording_from_data",
    "recording_names",
    "request_messages",
    "stored_message",
    "stored_messages",
]
