"""Session keys: which buffer a request's messages go to.

A window memory keeps one buffer per *session key*. The key is the difference
between "each customer has their own conversation" and "every customer reads
everyone else's messages", so this module makes the rules explicit:

* :func:`render_key` fills a key template such as ``user:{{ input.body.user_id }}``
  from request data (the Tensorify Window Memory style), and refuses to guess when
  a field is missing;
* :func:`shared_key_problem` flags a template with no placeholder: a constant key
  puts every user in one buffer;
* :func:`n8n_session_id` and :func:`n8n_buffer_key` follow n8n's Simple Memory:
  its error messages, its number-to-text conversion and its ``workflowId__sessionId``
  buffer names.

>>> render_key("user:{{ input.body.user_id }}", {"input": {"body": {"user_id": 42}}})
'user:42'
>>> n8n_buffer_key("wf1", n8n_session_id(42))
'wf1__42'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from windowmem.errors import SessionKeyError

# --- key templates -------------------------------------------------------------------

#: A ``{{ path }}`` placeholder; the path is parsed by :func:`parse_path`.
_PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")
#: One step of a path: ``.name``, ``["quoted key"]``, ``['quoted key']`` or ``[3]``.
_STEP = re.compile(
    r"""\.?(?P<name>[A-Za-z_$][\w$-]*)"""
    r"""|\[\s*"(?P<dq>[^"]*)"\s*\]"""
    r"""|\[\s*'(?P<sq>[^']*)'\s*\]"""
    r"""|\[\s*(?P<index>\d+)\s*\]"""
)


@dataclass(frozen=True, slots=True)
class KeyPattern:
    """A named way to scope buffers: its *template* and what it isolates."""

    name: str
    template: str
    isolates: str


#: The three patterns a workflow tool's Window Memory documents.
PER_USER = KeyPattern(
    "per-user", "user:{{ input.body.user_id }}", "each user has their own history"
)
PER_THREAD = KeyPattern(
    "per-thread", "thread:{{ input.body.thread_id }}", "each conversation thread is separate"
)
SHARED = KeyPattern("shared", "global", "nothing: every request reads and writes one buffer")
KEY_PATTERNS = (PER_USER, PER_THREAD, SHARED)

#: Tensorify's Window Memory key when no session key is set: one buffer per workflow.
TENSORIFY_FALLBACK = "agent_memory:{workflow_id}"


def parse_path(path: str) -> tuple[str | int, ...]:
    """The steps of a dotted *path*, with ``["key"]`` and ``[0]`` subscripts allowed.

    >>> parse_path('api_request.headers["x-session-id"]')
    ('api_request', 'headers', 'x-session-id')
    >>> parse_path("input.items[0].id")
    ('input', 'items', 0, 'id')
    """
    steps: list[str | int] = []
    position = 0
    while position < len(path):
        match = _STEP.match(path, position)
        if match is None or (match.group("name") and position > 0 and path[position] != "."):
            raise SessionKeyError(
                f"cannot read the field path {path!r} at {path[position:]!r}: "
                'write names joined by dots, e.g. input.body.user_id, or ["quoted-key"] for odd names'
            )
        if match.group("index") is not None:
            steps.append(int(match.group("index")))
        else:
            steps.append(
                next(
                    g
                    for g in (match.group("name"), match.group("dq"), match.group("sq"))
                    if g is not None
                )
            )
        position = match.end()
    if not steps:
        raise SessionKeyError("a placeholder {{ }} is empty: name the request field it should read")
    return tuple(steps)


def lookup(data: Any, path: str) -> Any:
    """The value at dotted *path* inside nested mappings and lists, or a SessionKeyError.

    >>> lookup({"input": {"body": {"user_id": "u7"}}}, "input.body.user_id")
    'u7'
    """
    current = data
    walked: list[str] = []
    for step in parse_path(path):
        found = False
        if isinstance(step, int) and isinstance(current, (list, tuple)) and step < len(current):
            current, found = current[step], True
        elif isinstance(step, str) and isinstance(current, Mapping) and step in current:
            current, found = current[step], True
        if not found:
            where = ".".join(map(str, walked)) or "the request"
            raise SessionKeyError(f"the request has no field {path!r}: {where} has no {step!r}")
        walked.append(str(step))
    return current


def key_text(value: Any, *, what: str) -> str:
    """*value* as key text: strings as they are, numbers as JavaScript prints them.

    Objects, lists and missing values are refused, because their text form would
    either differ between runtimes or silently merge distinct sessions.

    >>> key_text(42, what="user_id"), key_text(4.0, what="user_id"), key_text("a", what="user_id")
    ('42', '4', 'a')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise SessionKeyError(f"{what} is {value!r}, which cannot name a session: pass an id")
        return js_number_text(value)
    if value is None:
        raise SessionKeyError(f"{what} is null: pass the id of the user or thread, not null")
    raise SessionKeyError(
        f"{what} is a {type(value).__name__}, not text or a number: pass one id field "
        "(for example body.user_id), not a whole object or list"
    )


def js_number_text(number: float) -> str:
    """*number* as JavaScript's ``String(number)`` writes it (ECMAScript Number::toString).

    Both languages print the shortest digits that read back as the same float; they
    differ in where they switch to exponent notation and how they write the exponent.

    >>> [js_number_text(x) for x in (7.0, 0.00001, 1e-7, 1e21, 2.5e-3)]
    ['7', '0.00001', '1e-7', '1e+21', '0.0025']
    """
    if number == 0:
        return "0"  # JavaScript prints -0 as "0" too
    sign = "-" if number < 0 else ""
    shortest = Decimal(repr(abs(number))).normalize()
    digits = "".join(map(str, shortest.as_tuple().digits))
    k = len(digits)
    exponent = shortest.as_tuple().exponent
    assert isinstance(exponent, int)  # a finite float never normalises to NaN or infinity
    n = k + exponent  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        exponent = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"
    return sign + text


def render_key(template: str, request: Mapping[str, Any]) -> str:
    """Fill every ``{{ path }}`` in *template* from *request*.

    A missing field, a null, an object or an empty value raises SessionKeyError
    naming the field and the template: rendering ``user:`` for every caller would
    quietly put them all in one buffer.

    >>> render_key("thread:{{ input.body.thread_id }}", {"input": {"body": {"thread_id": "t-9"}}})
    'thread:t-9'
    """
    check_template(template)

    def fill(match: re.Match[str]) -> str:
        path = match.group(1)
        try:
            text = key_text(lookup(request, path), what=path)
        except SessionKeyError as exc:
            raise SessionKeyError(f"session key template {template!r}: {exc}") from None
        if text == "":
            raise SessionKeyError(
                f"session key template {template!r}: field {path!r} is empty, so every such "
                "request would share one buffer; send a non-empty id"
            )
        return text

    return _PLACEHOLDER.sub(fill, template)


def check_template(template: str) -> str:
    """*template* if its ``{{ }}`` pairs are balanced, else a SessionKeyError pointing at the stray brace.

    >>> check_template("user:{{ body.id }}")
    'user:{{ body.id }}'
    """
    if not isinstance(template, str):
        raise SessionKeyError(f"a session key template is text, got {type(template).__name__}")
    leftover = _PLACEHOLDER.sub("", template)
    for brace in ("{{", "}}"):
        if brace in leftover:
            raise SessionKeyError(
                f"session key template {template!r} has an unmatched {brace!r}: write each field as "
                "{{ path.to.field }}"
            )
    return template


def placeholders(template: str) -> tuple[str, ...]:
    """The field paths a template reads, in order.

    >>> placeholders("org:{{ body.org }}:user:{{ body.user }}")
    ('body.org', 'body.user')
    """
    return tuple(m.group(1) for m in _PLACEHOLDER.finditer(template))


def is_shared_key(template: str) -> bool:
    """True when *template* reads no request field, so every request gets the same key.

    >>> is_shared_key("global"), is_shared_key(PER_USER.template)
    (True, False)
    """
    return not placeholders(check_template(template))


def shared_key_problem(template: str) -> str | None:
    """Why a constant key is a mistake in production, or None for a key that varies.

    >>> shared_key_problem(PER_THREAD.template) is None
    True
    >>> "one buffer" in shared_key_problem("default")
    True
    """
    if not is_shared_key(template):
        return None
    return (
        f"the session key {template!r} is the same for every request, so all users share one "
        "buffer: each reads the others' messages and pushes them out of the window. Build the key "
        "from a per-user or per-thread field, e.g. 'user:{{ input.body.user_id }}'."
    )


def tensorify_session_key(
    template: str | None, request: Mapping[str, Any], workflow_id: str
) -> str:
    """The buffer key Tensorify's Window Memory uses: the rendered template, or the shared fallback.

    >>> tensorify_session_key("", {}, "wf-1")
    'agent_memory:wf-1'
    """
    if template is None or template.strip() == "":
        if not isinstance(workflow_id, str) or not workflow_id:
            raise SessionKeyError(
                "no session key is set and the workflow id is empty: pass the workflow's id"
            )
        return TENSORIFY_FALLBACK.format(workflow_id=workflow_id)
    return render_key(template, request)


# --- n8n -------------------------------------------------------------------------------

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
    ``"42"`` share a buffer; objects and lists are refused.

    >>> n8n_session_id("abc"), n8n_session_id(42) == n8n_session_id("42")
    ('abc', True)
    """
    if source not in N8N_SOURCES:
        raise SessionKeyError(
            f"unknown session id source {source!r}: use 'fromInput' or 'customKey'"
        )
    if value is None or value == "":
        if source == "fromInput":
            raise SessionKeyError(
                "No session ID found: expected an input field called 'sessionId' (the Chat Trigger "
                "outputs it); pass it, or switch the Session ID option to 'Define below' and set a Key"
            )
        raise SessionKeyError(
            "Key parameter is empty: give a key to use as the session ID, or use the "
            "'Connected Chat Trigger Node' option to take the session ID from the Chat Trigger"
        )
    if isinstance(value, (Mapping, list, tuple, set)):
        raise SessionKeyError(
            f"the session ID is a {type(value).__name__}, not text: point the key at one field "
            "(e.g. {{ $json.sessionId }}), not a whole object"
        )
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
