"""How a message is written down in a store, and read back exactly.

SQL stores keep one row per message (role, content, tool calls as a JSON list,
tool-call id); Redis keeps one compact JSON object per list element, the same object
as the conversation file format. Reading back checks the shape and raises a
StorageError on anything a windowmem repository could not have written.

>>> from windowmem.messages import assistant
>>> m = assistant("Voy a buscar tu pedido", tool_calls=["call_1"])
>>> message_from_json(message_to_json(m)) == m
True
"""

from __future__ import annotations

import json
from typing import Any

from windowmem.errors import ConversationFormatError
from windowmem.messages import Message, Role, parse_role
from windowmem.storage.base import StorageError

#: The role names a store may hold (the CHECK constraint of the SQL tables).
ROLE_NAMES: tuple[str, ...] = tuple(role.value for role in Role)
_ROLES = {role.value: role for role in Role}


def message_to_json(message: Message) -> str:
    """*message* as compact JSON text, non-ASCII characters kept as they are."""
    return json.dumps(message.as_dict(), ensure_ascii=False, separators=(",", ":"))


def message_from_json(text: str | bytes) -> Message:
    """The message stored as JSON *text* by :func:`message_to_json`."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise StorageError(
            f"a stored message is not valid JSON ({exc}): the store is corrupt or not windowmem's"
        ) from None
    if not isinstance(data, dict):
        raise StorageError(f"a stored message is a JSON {type(data).__name__}, not an object")
    return message_from_fields(
        data.get("role"), data.get("content"), data.get("tool_calls", []), data.get("tool_call_id")
    )


def tool_calls_to_json(message: Message) -> str:
    """The message's tool-call ids as a JSON list, for a SQL column."""
    return json.dumps(list(message.tool_calls), ensure_ascii=False, separators=(",", ":"))


def message_from_row(
    role: str, content: str, tool_calls: str | list[str] | None, tool_call_id: str | None
) -> Message:
    """The message stored in a SQL row; *tool_calls* is the JSON list column (or an already-decoded list)."""
    # Most rows are plain text with no tool calls: skip the JSON decoder for them.
    if (
        tool_calls in ("[]", [])
        and role in _ROLES
        and isinstance(content, str)
        and tool_call_id is None
    ):
        return Message(_ROLES[role], content)
    if isinstance(tool_calls, str):
        try:
            tool_calls = json.loads(tool_calls)
        except json.JSONDecodeError:
            raise StorageError(
                f"a stored message has tool_calls {tool_calls!r}, which is not a JSON list"
            ) from None
    return message_from_fields(
        role, content, tool_calls if tool_calls is not None else [], tool_call_id
    )


def message_from_fields(role: Any, content: Any, tool_calls: Any, tool_call_id: Any) -> Message:
    """A Message from stored fields, or a StorageError saying which field is wrong."""
    try:
        parsed = parse_role(role)
    except ConversationFormatError as exc:
        raise StorageError(f"a stored message has a bad role: {exc}") from None
    if not isinstance(content, str):
        raise StorageError(f"a stored message's content is {type(content).__name__}, not text")
    if not isinstance(tool_calls, list) or not all(isinstance(c, str) for c in tool_calls):
        raise StorageError(f"a stored message's tool_calls is {tool_calls!r}, not a list of ids")
    if tool_call_id is not None and not isinstance(tool_call_id, str):
        raise StorageError(f"a stored message's tool_call_id is {tool_call_id!r}, not text")
    return Message(parsed, content, tuple(tool_calls), tool_call_id)
