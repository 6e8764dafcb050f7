"""Session keys: which buffer a request's messages go to, and the patterns that scope them.

A window memory keeps one buffer per *session key*. The key is the difference
between "each customer has their own conversation" and "every customer reads
everyone else's messages", so this module names the ways to scope buffers:

* :data:`KEY_PATTERNS`: per user, per thread, or one shared buffer, with the
  templates a workflow tool's Window Memory documents;
* :func:`shared_key_problem` flags a template with no placeholder: a constant key
  puts every user in one buffer.

How a template renders from a request is :mod:`windowmem.key_templates`; how one
product names its buffers lives with that product's policy: n8n's in
:mod:`windowmem.policies.n8n.buffer_names`, Tensorify's fallback key in
:mod:`windowmem.policies.tensorify`.

>>> from windowmem.key_templates import render_key
>>> render_key(PER_USER.template, {"input": {"body": {"user_id": 42}}})
'user:42'
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.key_templates import check_template, placeholders


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
