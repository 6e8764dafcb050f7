"""Messages as LangChain writes them into the stores n8n uses: ``{type, data}`` and its flattened form.

LangChain's stored message names the role in ``type`` (``human``, ``ai``, ``system``,
``tool``) and keeps the rest in ``data``. The Redis list and the MongoDB document hold
``{"type": ..., "data": {...}}`` as it is; the Postgres table flattens it into one
object, ``{...data, type}`` (``@langchain/community`` 1.1.27, ``PostgresChatMessageHistory``).

The ``data`` object is what ``@langchain/core`` 1.2.8's ``mapChatMessagesToStoredMessages``
(``message.toDict()``) writes, key for key and in its order: every message has
``content``, ``additional_kwargs`` and ``response_metadata``; an AI message also has
``tool_calls`` and ``invalid_tool_calls`` (empty lists when it calls no tool); a tool
message has ``tool_call_id`` and ``name``. windowmem does not model tool names or
arguments, so a tool call is written ``{"id", "name": "", "args": {}, "type":
"tool_call"}`` (the shape n8n 2.41.1 builds) and a tool message's ``name`` is ``""``.
What a model adds to an AI message (usage figures, ids) is left out.

>>> from windowmem.messages import user
>>> nested(user("hi"))
{'type': 'human', 'data': {'content': 'hi', 'additional_kwargs': {}, 'response_metadata': {}}}
>>> flattened(user("hi"))
{'content': 'hi', 'additional_kwargs': {}, 'response_metadata': {}, 'type': 'human'}
>>> from_flattened(flattened(user("hi"))) == user("hi")
True
"""

from __future__ import annotations

import json
from typing import Any

from windowmem.messages import Message, Role
from windowmem.storage.base import StorageError

#: LangChain's ``type`` for each role.
TYPE_OF_ROLE: dict[Role, str] = {
    Role.USER: "human",
    Role.ASSISTANT: "ai",
    Role.SYSTEM: "system",
    Role.TOOL: "tool",
}
ROLE_OF_TYPE: dict[str, Role] = {name: role for role, name in TYPE_OF_ROLE.items()}


def data_of(message: Message) -> dict[str, Any]:
    """The ``data`` object LangChain stores for *message*, keys in ``toDict()``'s order."""
    data: dict[str, Any] = {"content": message.content}
    if message.role is Role.ASSISTANT:
        data["tool_calls"] = [
            {"id": call, "name": "", "args": {}, "type": "tool_call"} for call in message.tool_calls
        ]
        data["invalid_tool_calls"] = []
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    if message.role is Role.TOOL:
        data["name"] = ""
    data["additional_kwargs"] = {}
    data["response_metadata"] = {}
    return data


def nested(message: Message) -> dict[str, Any]:
    """*message* as ``{"type": ..., "data": {...}}`` (Redis list element, MongoDB array item)."""
    return {"type": TYPE_OF_ROLE[message.role], "data": data_of(message)}


def flattened(message: Message) -> dict[str, Any]:
    """*message* as ``{...data, type}`` (the ``message`` column of n8n's Postgres table)."""
    return {**data_of(message), "type": TYPE_OF_ROLE[message.role]}


def to_text(value: dict[str, Any]) -> str:
    """JSON text as JavaScript's ``JSON.stringify`` writes it: no spaces, characters kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def from_nested(value: Any) -> Message:
    """The message stored as ``{type, data}`` (a dict, or its JSON text)."""
    value = _decoded(value)
    if not isinstance(value.get("data"), dict):
        raise StorageError(f"a stored LangChain message has no data object: {value!r}")
    return _message(value.get("type"), value["data"])


def from_flattened(value: Any) -> Message:
    """The message stored as ``{...data, type}`` (a dict, or its JSON text)."""
    value = _decoded(value)
    return _message(value.get("type"), value)


def _decoded(value: Any) -> dict[str, Any]:
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise StorageError(f"a stored LangChain message is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise StorageError(f"a stored LangChain message is a {type(value).__name__}, not an object")
    return value


def _message(kind: Any, data: dict[str, Any]) -> Message:
    if kind not in ROLE_OF_TYPE:
        raise StorageError(
            f"a stored LangChain message has type {kind!r}: expected one of {sorted(ROLE_OF_TYPE)}"
        )
    content = data.get("content")
    if isinstance(content, list) and all(isinstance(p, (str, dict)) for p in content):
        # Content parts, as n8n 2.41.1's agent writes a message that only calls tools
        # (``"content": []``, seen in the rows and lists it wrote): the text parts, joined.
        content = "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)
    if not isinstance(content, str):
        raise StorageError(
            f"a stored LangChain message's content is {type(content).__name__}, not text"
        )
    calls = tuple(
        str(call.get("id", "")) for call in data.get("tool_calls", []) if isinstance(call, dict)
    )
    call_id = data.get("tool_call_id")
    return Message(
        ROLE_OF_TYPE[kind], content, calls, call_id if isinstance(call_id, str) else None
    )
