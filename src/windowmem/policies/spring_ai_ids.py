"""Which conversation a Spring AI chat-memory advisor files a call under, by release.

The advisors read the id from the call's advisor context, under the key
``chat_memory_conversation_id`` (``ChatMemory.CONVERSATION_ID``). When a call gave
none, early releases fell back to the constant ``"default"``, so every caller who
forgot the id shared one conversation; the commit "Require explicit conversation ID in
chat memory advisors" replaced the fallback with an error. Checked per git tag of
``spring-projects/spring-ai``:

* ``"default"``: v1.0.0 to v1.0.6, v1.1.0 to v1.1.5, v2.0.0-M1 to v2.0.0-M5;
* ``IllegalArgumentException: conversationId cannot be null``: v1.0.7 and later 1.0.x,
  v1.1.6 and later 1.1.x, v2.0.0-M6 onward (including v2.0.0 and v2.0.1).

>>> advisor_conversation_id({}, "1.0.6")
'default'
>>> advisor_conversation_id({}, "1.1.6")
Traceback (most recent call last):
...
windowmem.policies.spring_ai_ids.IllegalArgumentError: conversationId cannot be null
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from windowmem.errors import SessionKeyError

#: The advisor-context key the id is read from (``ChatMemory.CONVERSATION_ID``).
CONVERSATION_ID_KEY = "chat_memory_conversation_id"
#: The shared fallback of the early releases (``ChatMemory.DEFAULT_CONVERSATION_ID``).
DEFAULT_CONVERSATION_ID = "default"
#: The message of the error that replaced the fallback.
MISSING_ID_MESSAGE = "conversationId cannot be null"

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:-(M|RC)(\d+))?")


class IllegalArgumentError(SessionKeyError):
    """Java's ``IllegalArgumentException`` as Spring AI's ``Assert`` raises it."""


def parse_version(version: str) -> tuple[int, int, int, int, int]:
    """A sortable form of a Spring AI release such as ``1.0.6``, ``v2.0.0-M5`` or ``2.0.0-RC1``.

    >>> parse_version("2.0.0-M5") < parse_version("2.0.0-RC1") < parse_version("2.0.0")
    True
    """
    match = _VERSION.fullmatch(version.strip()) if isinstance(version, str) else None
    if match is None:
        raise SessionKeyError(
            f"{version!r} is not a Spring AI release: write it like 1.0.6, 1.1.5 or 2.0.0-M5"
        )
    major, minor, patch, stage, number = match.groups()
    # Milestones sort before release candidates, which sort before the release itself.
    rank = {"M": 0, "RC": 1, None: 2}[stage]
    return int(major), int(minor), int(patch), rank, int(number or 0)


def falls_back_to_default(version: str) -> bool:
    """True for the releases whose advisors use ``"default"`` when a call gives no id.

    >>> [falls_back_to_default(v) for v in ("1.0.0", "1.0.7", "1.1.5", "1.1.6", "2.0.0-M5", "2.0.0-M6", "2.0.1")]
    [True, False, True, False, True, False, False]
    """
    major, minor, patch, rank, number = parse_version(version)
    if (major, minor) == (1, 0):
        return patch <= 6
    if (major, minor) == (1, 1):
        return patch <= 5
    if (major, minor, patch) == (2, 0, 0) and rank == 0:
        return number <= 5
    if (major, minor) < (1, 0):
        raise SessionKeyError(f"Spring AI {version} predates chat-memory advisors with ids (1.0.0)")
    return False


def advisor_conversation_id(
    context: Mapping[str, Any], version: str, default: str = DEFAULT_CONVERSATION_ID
) -> str:
    """The conversation a ``MessageChatMemoryAdvisor`` of *version* uses for a call with *context*.

    A value in the context is used as its text (Java's ``toString``); without one the
    early releases answer the advisor's own default, *default* (what the builder's
    ``.conversationId(...)`` set, ``"default"`` when it was not called), and the later
    ones raise :class:`IllegalArgumentError` with Spring AI's message.

    >>> advisor_conversation_id({CONVERSATION_ID_KEY: "user-7:session-2"}, "2.0.1")
    'user-7:session-2'
    >>> advisor_conversation_id({}, "1.1.5", default="support-desk")
    'support-desk'
    """
    value = context.get(CONVERSATION_ID_KEY)
    if CONVERSATION_ID_KEY in context and value is not None:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    if falls_back_to_default(version):
        if CONVERSATION_ID_KEY in context:  # containsKey is true for a null value
            # containsKey, then null.toString(): a NullPointerException in Java, not a fallback.
            raise SessionKeyError(
                "the advisor context maps the conversation id to null: Spring AI would fail with a "
                "NullPointerException; put the user's id there, or leave the key out"
            )
        return default
    raise IllegalArgumentError(MISSING_ID_MESSAGE)
