"""Where an n8n memory node finds its session id, per trigger and typeVersion, with n8n's own errors.

Read from ``@n8n/n8n-nodes-langchain`` 2.41.1 (``utils/helpers.js`` ``getSessionId`` and
``coerceSessionIdToString``, ``MemoryBufferWindow.node.js``) and ``n8n-nodes-base``
2.41.1, the version n8n 2.41.1 installs (the Webhook and Schedule triggers' output items):

* a memory node's *Session ID* is ``fromInput`` ("Connected Chat Trigger Node", the
  default), which reads ``$json.sessionId`` from the incoming item, or ``customKey``
  ("Define below"), an expression or fixed text in the *Key* field;
* the Chat Trigger's item carries ``sessionId`` at the top; a Webhook's item nests the
  request under ``body``, ``headers``, ``query`` and ``params``, so ``fromInput`` finds
  nothing there; a Schedule Trigger's item has no id at all;
* a missing id is an error whose message and description are quoted here word for
  word (:data:`NO_SESSION_ID`, :data:`KEY_EMPTY`, :data:`INVALID_SESSION_ID`);
* Simple Memory names its buffer ``workflowId__sessionId``; typeVersion 1 uses the
  literal key ``chat_history`` for every conversation; from typeVersion 1.4 a
  ``fromInput`` id gets the node's cleaned name appended (n8n 2.20 and later).

>>> item = chat_trigger_item("abc", "hi")
>>> simple_memory_buffer_key(item, workflow_id="wf1", type_version=1.4)
'wf1__abc__Simple_Memory'
>>> simple_memory_buffer_key(webhook_item({"sessionId": "abc"}), workflow_id="wf1")
Traceback (most recent call last):
...
windowmem.policies.n8n.node_errors.N8nNodeError: No session ID found
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from windowmem.errors import SessionKeyError
from windowmem.key_templates import key_text, lookup
from windowmem.policies.n8n.buffer_names import n8n_buffer_key, n8n_safe_name
from windowmem.policies.n8n.chat_widget import (  # noqa: F401 - where the lessons reach them
    LOAD_PREVIOUS_SESSION,
    WIDGET_STORAGE_KEY,
    hosted_chat_loads_previous_session,
    widget_session_id,
)
from windowmem.policies.n8n.node_errors import (
    INVALID_SESSION_ID,
    KEY_EMPTY,
    NO_SESSION_ID,
    N8nNodeError,
)

#: The *Session ID* options of every n8n memory node: the default reads the Chat Trigger's id.
FROM_INPUT: Literal["fromInput"] = "fromInput"
CUSTOM_KEY: Literal["customKey"] = "customKey"
SessionIdType = Literal["fromInput", "customKey"]

#: Simple Memory's typeVersions in nodes-langchain 2.41.1.
SIMPLE_MEMORY_VERSIONS = (1.0, 1.1, 1.2, 1.3, 1.4)
#: typeVersion 1's Session Key default: one literal key shared by every conversation.
VERSION_1_KEY = "chat_history"
#: typeVersion 1.1's Session ID default, and the expression ``fromInput`` evaluates.
SESSION_ID_EXPRESSION = "={{ $json.sessionId }}"
#: The first typeVersion of each memory node that scopes a ``fromInput`` id to the node's name.
SCOPING_MIN_VERSION = {
    "memoryBufferWindow": 1.4,
    "memoryPostgresChat": 1.4,
    "memoryRedisChat": 1.6,
    "memoryMongoDbChat": 1.1,
    "memoryMotorhead": 1.4,
    "memoryXata": 1.5,
    "memoryZep": 1.4,
}
#: The notice n8n shows under a scoped ``fromInput`` Session ID (descriptions.js, 2.41.1).
SCOPED_NOTICE = (
    "Session is automatically scoped only to this memory node. To share a session between "
    'different memory nodes, switch "Session ID" to "Define below" and use the same key in each node.'
)


# --- trigger output items ---------------------------------------------------------------


def chat_trigger_item(session_id: Any, chat_input: str, **extra: Any) -> dict[str, Any]:
    """The item n8n's Chat Trigger passes on: the widget's request body, ``sessionId`` at the top.

    >>> chat_trigger_item("3f2c", "Hi")
    {'action': 'sendMessage', 'sessionId': '3f2c', 'chatInput': 'Hi'}
    """
    return {"action": "sendMessage", "sessionId": session_id, "chatInput": chat_input, **extra}


def webhook_item(
    body: Mapping[str, Any] | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    query: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The item a Webhook trigger outputs: the request split into headers, params, query and body.

    >>> webhook_item({"sessionId": "abc"})["body"]
    {'sessionId': 'abc'}
    """
    return {
        "headers": dict(headers or {}),
        "params": dict(params or {}),
        "query": dict(query or {}),
        "body": dict(body or {}),
    }


#: The fields of a Schedule Trigger's item (n8n-nodes-base 2.41.1): a time, never a session.
SCHEDULE_FIELDS = (
    "timestamp",
    "Readable date",
    "Readable time",
    "Day of week",
    "Year",
    "Month",
    "Day of month",
    "Hour",
    "Minute",
    "Second",
    "Timezone",
)


def schedule_item(timestamp: str = "2026-12-01T03:00:00.000+00:00") -> dict[str, Any]:
    """A Schedule Trigger's item for *timestamp* (an ISO time in UTC): when it fired, and nothing else.

    The field names are n8n's; the readable values' exact formats are illustrative.

    >>> sorted(schedule_item()) == sorted(SCHEDULE_FIELDS)
    True
    """
    match = re.fullmatch(
        r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}\+00:00", timestamp
    )
    if match is None:
        raise SessionKeyError(
            f"timestamp {timestamp!r}: write it as 2026-12-01T03:00:00.000+00:00 (UTC)"
        )
    year, month, day, hour, minute, second = (int(part) for part in match.groups())
    import datetime as _dt

    moment = _dt.datetime(year, month, day, hour, minute, second)
    return {
        "timestamp": timestamp,
        "Readable date": moment.strftime("%B %-d, %Y"),
        "Readable time": moment.strftime("%-I:%M:%S %p"),
        "Day of week": moment.strftime("%A"),
        "Year": f"{year}",
        "Month": moment.strftime("%B"),
        "Day of month": f"{day:02d}",
        "Hour": f"{hour:02d}",
        "Minute": f"{minute:02d}",
        "Second": f"{second:02d}",
        "Timezone": "UTC (UTC+00:00)",
    }


# --- expressions and ids ------------------------------------------------------------------

_WHOLE_EXPRESSION = re.compile(r"=\{\{\s*([^{}]*?)\s*\}\}")
_PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")
_MISSING = object()


def evaluate_parameter(value: Any, item: Mapping[str, Any]) -> Any:
    """A memory node's Key or Session ID parameter evaluated on the incoming *item*.

    Fixed text stays as it is. An expression (it starts with ``=``) that is one
    ``{{ $json.path }}`` gives the field's value itself, a number staying a number, or
    None when the item has no such field (JavaScript's undefined). Text around several
    fields is joined as text; a missing field there is refused, because how n8n prints
    it inside longer text was not checked.

    >>> evaluate_parameter("={{ $json.body.sessionId }}", webhook_item({"sessionId": 7}))
    7
    >>> evaluate_parameter("nightly-report", schedule_item())
    'nightly-report'
    >>> evaluate_parameter("={{ $json.sessionId }}", webhook_item()) is None
    True
    """
    if not isinstance(value, str) or not value.startswith("="):
        return value
    scope = {"$json": item}
    whole = _WHOLE_EXPRESSION.fullmatch(value)
    if whole is not None:
        return _read(scope, whole.group(1))

    def fill(match: re.Match[str]) -> str:
        found = _read(scope, match.group(1))
        if found is None or isinstance(found, (Mapping, list)):
            raise SessionKeyError(
                f"the key {value!r} reads {match.group(1)!r}, which is "
                f"{'missing' if found is None else 'not text'}; windowmem does not guess how n8n "
                "prints that inside longer text: make the field present, or use one {{ }} alone"
            )
        return key_text(found, what=match.group(1))

    return _PLACEHOLDER.sub(fill, value[1:])


def _read(scope: Mapping[str, Any], path: str) -> Any:
    if not path.startswith("$json"):
        raise SessionKeyError(
            f"the expression {{{{ {path} }}}} is not modelled: windowmem reads $json.<field> paths only"
        )
    try:
        return lookup(scope, path)
    except SessionKeyError:
        return None


def coerce_session_id(value: Any) -> str:
    """n8n's ``coerceSessionIdToString``: text kept as is, numbers and booleans as JavaScript writes them.

    >>> coerce_session_id(42) == coerce_session_id("42"), coerce_session_id(False), coerce_session_id("  ")
    (True, 'false', '  ')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return key_text(value, what="the session ID")
    raise N8nNodeError(INVALID_SESSION_ID)


def _empty(value: Any) -> bool:
    return value is None or value == ""


def session_id(
    item: Mapping[str, Any],
    *,
    id_type: SessionIdType = FROM_INPUT,
    key: Any = "",
    chat_trigger: Mapping[str, Any] | None = None,
) -> str:
    """The session id ``getSessionId`` resolves (typeVersion 1.2 and later), or n8n's error.

    *item* is the memory node's incoming item. With ``fromInput``, ``$json.sessionId``
    is read, and if it is empty the workflow's Chat Trigger output in this run
    (*chat_trigger*) is tried. Pass None when the workflow has no Chat Trigger or another
    trigger started the run: n8n's ``$('…').first()`` then throws "hasn't been executed",
    which ``getSessionId`` swallows, so the run stops with "No session ID found". With ``customKey``, *key* is the Key parameter,
    fixed text or an expression such as ``={{ $json.body.sessionId }}``.

    >>> session_id(webhook_item({"sessionId": "abc"}), id_type="customKey", key="={{ $json.body.sessionId }}")
    'abc'
    """
    if id_type == FROM_INPUT:
        found = evaluate_parameter(SESSION_ID_EXPRESSION, item)
        if _empty(found) and chat_trigger is not None:
            found = evaluate_parameter(SESSION_ID_EXPRESSION, chat_trigger)
        if _empty(found):
            raise N8nNodeError(NO_SESSION_ID)
    elif id_type == CUSTOM_KEY:
        found = evaluate_parameter(key, item)
        if _empty(found):
            raise N8nNodeError(KEY_EMPTY)
    else:
        raise SessionKeyError(
            f"unknown Session ID option {id_type!r}: use 'fromInput' or 'customKey'"
        )
    return coerce_session_id(found)


def define_below(key: str) -> dict[str, Any]:
    """The *Session ID* setting "Define below" (saved as ``customKey``) with *key* in the Key field.

    A Key that starts with ``=`` is an n8n expression; without it, fixed text.

    >>> session_id(chat_trigger_item("abc", "Hi"), **define_below("={{ $json.sessionId }}"))
    'abc'
    """
    return {"id_type": CUSTOM_KEY, "key": key}


def session_id_or_error(item: Mapping[str, Any], **settings: Any) -> str:
    """:func:`session_id` for *item*, or the message of the error n8n raises instead.

    >>> session_id_or_error(webhook_item({"sessionId": "abc"}))
    'No session ID found'
    >>> session_id_or_error(chat_trigger_item("abc", "Hi"), **define_below("={{ $json.body.sessionId }}"))
    'Key parameter is empty'
    """
    try:
        return session_id(item, **settings)
    except N8nNodeError as error:
        return error.message


def scopes_to_node(node_type: str, type_version: float, id_type: SessionIdType) -> bool:
    """True when n8n appends the node's name to the session id (``fromInput`` at or after the minimum).

    >>> scopes_to_node("memoryBufferWindow", 1.4, "fromInput"), scopes_to_node("memoryRedisChat", 1.5, "fromInput")
    (True, False)
    """
    if id_type != FROM_INPUT:
        return False
    minimum = SCOPING_MIN_VERSION.get(node_type)
    return True if minimum is None else type_version >= minimum


def simple_memory_buffer_key(
    item: Mapping[str, Any],
    *,
    workflow_id: str,
    type_version: float = 1.4,
    id_type: SessionIdType = FROM_INPUT,
    key: Any = None,
    node_name: str = "Simple Memory",
    chat_trigger: Mapping[str, Any] | None = None,
) -> str:
    """The in-process buffer a Simple Memory node of *type_version* uses for *item*, or n8n's error.

    typeVersion 1 has one Session Key parameter whose default is ``chat_history``;
    1.1 a Session ID parameter defaulting to ``={{ $json.sessionId }}``, only coerced to
    text (so a missing id is "Invalid session ID", derived from the code, not run);
    1.2 and later resolve the id as :func:`session_id` does, and 1.4 scopes a
    ``fromInput`` id to the node. *key* is the Key parameter (None: the version's default).

    >>> simple_memory_buffer_key(schedule_item(), workflow_id="wf1", type_version=1)
    'wf1__chat_history'
    """
    if type_version not in SIMPLE_MEMORY_VERSIONS:
        raise SessionKeyError(
            f"Simple Memory has typeVersions {', '.join(map(str, SIMPLE_MEMORY_VERSIONS))}; got {type_version!r}"
        )
    if type_version == 1.0:
        found = evaluate_parameter(VERSION_1_KEY if key is None else key, item)
        return n8n_buffer_key(workflow_id, coerce_session_id(found))
    if type_version == 1.1:
        found = evaluate_parameter(SESSION_ID_EXPRESSION if key is None else key, item)
        return n8n_buffer_key(workflow_id, coerce_session_id(found))
    sid = session_id(
        item, id_type=id_type, key="" if key is None else key, chat_trigger=chat_trigger
    )
    if scopes_to_node("memoryBufferWindow", type_version, id_type):
        sid = f"{sid}__{n8n_safe_name(node_name)}"
    return n8n_buffer_key(workflow_id, sid)


def buffer_key_or_error(item: Mapping[str, Any], **settings: Any) -> str:
    """:func:`simple_memory_buffer_key` for *item*, or the message of the error n8n raises instead.

    >>> buffer_key_or_error(schedule_item(), workflow_id="wf1")
    'No session ID found'
    """
    try:
        return simple_memory_buffer_key(item, **settings)
    except N8nNodeError as error:
        return error.message
