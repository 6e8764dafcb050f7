"""How n8n names a Simple Memory buffer: the session id it resolves, and ``workflowId__sessionId``.

n8n's Simple Memory keeps one buffer per name. The session id comes from the incoming
item (``fromInput``, the Chat Trigger's ``sessionId``) or from the node's Key parameter
(``customKey``); numbers become text the way JavaScript prints them; from typeVersion
1.4 an inherited id is scoped to the memory node by appending its cleaned name.

>>> n8n_buffer_key("wf1", n8n_session_id(42))
'wf1__42'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from windowmem.errors import SessionKeyError
from windowmem.key_templates import key_text
from windowmem.policies.n8n.node_errors import (
    INVALID_SESSION_ID,
    KEY_EMPTY,
    NO_SESSION_ID,
    N8nNodeError,
)

N8nSource = Literal["fromInput", "customKey"]
N8N_SOURCES: tuple[str, ...] = ("fromInput", "customKey")
#: First Simple Memory typeVersion that scopes an inherited session id to the node.
N8N_NODE_SCOPED_VERSION = 1.4
#: Separator between the parts of a buffer name (n8n writes ``${workflowId}__${sessionId}``).
N8N_KEY_SEPARATOR = "__"


def n8n_session_id(value: Any, source: N8nSource = "fromInput") -> str:
    """The session id n8n's Simple Memory would use, or its error.

    *source* is the node's ``sessionIdType``: ``fromInput`` reads ``sessionId`` from
    the incoming item (the Chat Trigger's output); ``customKey`` uses the node's Key
    parameter. Numbers become text the way JavaScript prints them, so ``42`` and
    ``"42"`` share a buffer; objects and lists are refused. The errors are n8n's own
    (:class:`~windowmem.policies.n8n.node_errors.N8nNodeError`, with n8n's advice in
    ``description``).

    >>> n8n_session_id("abc"), n8n_session_id(42) == n8n_session_id("42")
    ('abc', True)
    """
    if source not in N8N_SOURCES:
        raise SessionKeyError(
            f"unknown session id source {source!r}: use 'fromInput' or 'customKey'"
        )
    if value is None or value == "":
        # n8n's own texts (node_errors): the description under each says what to do.
        raise N8nNodeError(NO_SESSION_ID if source == "fromInput" else KEY_EMPTY)
    if isinstance(value, (Mapping, list, tuple, set)):
        raise N8nNodeError(INVALID_SESSION_ID)
    return key_text(value, what="the session ID")


def n8n_node_scope(node_name: str, *, type_version: float, source: N8nSource) -> str | None:
    """The node name to add to the buffer key, or None when n8n does not add one.

    From typeVersion 1.4, a Simple Memory that takes its session id from the input
    adds its own name, so two memory nodes fed by one Chat Trigger stop sharing a
    buffer. A custom key is left alone: sharing it is then deliberate.

    >>> n8n_node_scope("Simple Memory", type_version=1.4, source="fromInput")
    'Simple Memory'
    >>> n8n_node_scope("Simple Memory", type_version=1.3, source="fromInput") is None
    True
    """
    if source not in N8N_SOURCES:
        raise SessionKeyError(
            f"unknown session id source {source!r}: use 'fromInput' or 'customKey'"
        )
    if source == "fromInput" and type_version >= N8N_NODE_SCOPED_VERSION:
        return node_name
    return None


def n8n_safe_name(node_name: str) -> str:
    """*node_name* with every character outside ``[A-Za-z0-9_-]`` replaced by ``_``.

    n8n cleans node names this way before putting them in a session key, because
    some stores reject spaces and punctuation in keys.

    JavaScript strings count UTF-16 units, so a character beyond the Basic
    Multilingual Plane (an emoji) becomes two underscores, as it does in n8n.

    >>> n8n_safe_name("Simple Memory (agent)")
    'Simple_Memory__agent_'
    """
    return re.sub(
        r"[^A-Za-z0-9_-]", lambda m: "_" * (2 if ord(m.group()) > 0xFFFF else 1), node_name
    )


def n8n_buffer_key(workflow_id: str, session_id: str, node_name: str | None = None) -> str:
    """The name of the in-process buffer n8n's Simple Memory keeps: ``workflowId__sessionId``.

    Pass *node_name* (see :func:`n8n_node_scope`) for typeVersion 1.4 nodes that take
    their session id from the input; the cleaned name is appended after another ``__``.

    >>> n8n_buffer_key("wf1", "s1")
    'wf1__s1'
    >>> n8n_buffer_key("wf1", "s1", node_name="Simple Memory")
    'wf1__s1__Simple_Memory'
    """
    if not isinstance(workflow_id, str) or workflow_id == "":
        raise SessionKeyError(f"the workflow id must be non-empty text, got {workflow_id!r}")
    if not isinstance(session_id, str) or session_id == "":
        raise SessionKeyError(
            f"the session id must be non-empty text, got {session_id!r}: run it through n8n_session_id() first"
        )
    key = f"{workflow_id}{N8N_KEY_SEPARATOR}{session_id}"
    if node_name is not None:
        if not isinstance(node_name, str) or node_name == "":
            raise SessionKeyError(f"the node name must be non-empty text, got {node_name!r}")
        key += N8N_KEY_SEPARATOR + n8n_safe_name(node_name)
    return key
