"""Key templates: how a template such as ``user:{{ input.body.user_id }}`` renders from a request.

The products name a memory's buffer from the request: a template's ``{{ path }}``
placeholders read fields of the request, and the text they render is the session key.
This module holds the rules every product's naming shares: reading a dotted path, turning
a value into key text the way JavaScript prints it, and refusing a missing or empty
field instead of rendering a key every caller would share. Which keys a workflow should
use, and why, is lesson 1's question (:mod:`windowmem.scope.session_keys`).

>>> render_key("user:{{ input.body.user_id }}", {"input": {"body": {"user_id": 42}}})
'user:42'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from windowmem.errors import SessionKeyError
from windowmem.javascript import js_number_text

#: A ``{{ path }}`` placeholder; the path is parsed by :func:`parse_path`.
_PLACEHOLDER = re.compile(r"\{\{\s*(.*?)\s*\}\}")


#: One step of a path: ``.name``, ``["quoted key"]``, ``['quoted key']`` or ``[3]``.
_STEP = re.compile(
    r"""\.?(?P<name>[A-Za-z_$][\w$-]*)"""
    r"""|\[\s*"(?P<dq>[^"]*)"\s*\]"""
    r"""|\[\s*'(?P<sq>[^']*)'\s*\]"""
    r"""|\[\s*(?P<index>\d+)\s*\]"""
)


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
