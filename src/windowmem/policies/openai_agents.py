"""OpenAI Agents SDK sessions: ``SQLiteSession`` with ``SessionSettings(limit=...)``, counted in items.

A session stores one row per *input item*, not per message: a user message, an
assistant message, each function call, each function-call output and each reasoning
item is a row of its own. So one turn with a tool call is four rows or more
(``user``, ``function_call``, ``function_call_output``, ``message``), and a limit counts
rows, not turns. Nothing is ever trimmed from storage; the limit is applied when the
runner reads the history (``get_items(limit)``, latest items in order) before each run.

``SQLiteSession.get_items`` (openai-agents 0.24.0, ``memory/sqlite_session.py``): limit
None returns every item; a positive limit the latest *limit*; 0 returns none (SQL
``LIMIT 0``); a negative limit returns every item (SQLite reads ``LIMIT -1`` as no
limit). ``SessionSettings().limit`` is None, so by default the whole session is sent.
The default ``db_path`` is ``":memory:"``: a session vanishes with its process.

The other session types that run offline read ``get_items(limit)`` the same way in
0.24.0, and the tests run each of them: ``AsyncSQLiteSession``
(``extensions/memory/async_sqlite_session.py``), ``AdvancedSQLiteSession``
(``extensions/memory/advanced_sqlite_session.py``; on its current branch, so a branch made
with ``create_branch_from_turn`` holds only the turns before that turn, which is not
modelled) and ``SQLAlchemySession`` on SQLite (``extensions/memory/sqlalchemy_session.py``;
a limit <= 0 is left to the database, so this model holds for SQLite only).
``RedisSession`` differs, read from its source and not run: a limit <= 0 returns no items.

A limit can cut a tool exchange. Before the model is called, the runner's
``prepare_input_with_session`` passes history plus new input through
``drop_orphan_function_calls`` (``run_internal/items.py``), which changed by version:

* 0.8.0 (when ``SessionSettings`` arrived) to 0.17.0: a function call whose output is
  missing is dropped; an output whose call was cut off is sent, and the Responses API
  rejects the request (no tool call found for that output);
* 0.17.1: a reasoning item tied to a dropped call (the next non-reasoning item) goes too;
* 0.20.0 and later: with a limit set, an output whose call is not in the input is dropped
  too, so the model sees neither half of a split exchange.

Storage keeps both halves in every version. How our messages map to items: a user or
system message is one item; an assistant message is an optional reasoning item (with
``reasoning=True``: reasoning models emit one per response), a message item when it has
text or calls nothing, then one function call per tool call; a tool message is one
function-call output.

>>> from windowmem.messages import user, assistant, tool
>>> chat = [user("u1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1"), user("u2")]
>>> [m.content for m in OpenAIAgentsSession(3).window(chat)]
['a1', 'u2']
>>> [m.content for m in OpenAIAgentsSession(3, version="0.19.4").window(chat)]
['r1', 'a1', 'u2']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, TypeVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy

#: The version whose behaviour is modelled by default.
MODELLED_VERSION = "0.24.0"
#: ``SessionSettings(limit=...)``, the session window, first shipped in this version.
FIRST_VERSION_WITH_LIMIT = (0, 8, 0)
#: From this version a reasoning item tied to a dropped call is dropped with it (PR #3207).
DROPS_TIED_REASONING = (0, 17, 1)
#: From this version a limited history drops outputs whose call was cut off (PR #4324).
PRUNES_ORPHAN_OUTPUTS = (0, 20, 0)

_T = TypeVar("_T")


class ItemKind(StrEnum):
    """The ``type`` of a stored input item."""

    MESSAGE = "message"
    FUNCTION_CALL = "function_call"
    FUNCTION_CALL_OUTPUT = "function_call_output"
    REASONING = "reasoning"


@dataclass(frozen=True, slots=True)
class SessionItem:
    """One stored row: its *kind*, the *message* it belongs to, and the call it carries or answers."""

    kind: ItemKind
    message: Message
    call_id: str | None = None


def items_of(message: Message, *, reasoning: bool = False) -> tuple[SessionItem, ...]:
    """The rows an SDK session stores for *message*.

    >>> from windowmem.messages import assistant
    >>> [str(i.kind) for i in items_of(assistant("Let me look.", ["c1", "c2"]), reasoning=True)]
    ['reasoning', 'message', 'function_call', 'function_call']
    """
    if message.role is Role.TOOL:
        return (SessionItem(ItemKind.FUNCTION_CALL_OUTPUT, message, message.tool_call_id),)
    if message.role is not Role.ASSISTANT:
        return (SessionItem(ItemKind.MESSAGE, message),)
    items = [SessionItem(ItemKind.REASONING, message)] if reasoning else []
    if message.content or not message.tool_calls:
        items.append(SessionItem(ItemKind.MESSAGE, message))
    items.extend(SessionItem(ItemKind.FUNCTION_CALL, message, call) for call in message.tool_calls)
    return tuple(items)


def stored_items(
    messages: Sequence[Message], *, reasoning: bool = False
) -> tuple[SessionItem, ...]:
    """Every row a session holds after *messages* were saved, in order."""
    return tuple(item for message in messages for item in items_of(message, reasoning=reasoning))


def latest_items(items: Sequence[_T], limit: int | None) -> Sequence[_T]:
    """``SQLiteSession.get_items(limit)`` over *items*: None or negative all, 0 none, else the latest.

    >>> latest_items("abcde", 2), latest_items("abcde", 0), latest_items("abcde", -1)
    ('de', '', 'abcde')
    >>> latest_items("abc", 9)
    'abc'
    """
    if limit is None or limit < 0:
        return items
    return items[max(len(items) - limit, 0) :]


def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.24.0"`` -> (0, 24, 0); a missing patch number counts as 0.

    >>> parse_version("0.19"), parse_version("0.24.0")
    ((0, 19, 0), (0, 24, 0))
    """
    match = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.(\d+))?\s*", text) if isinstance(text, str) else None
    if match is None:
        raise PolicyError(f"openai-agents: version must look like 0.24.0, got {text!r}")
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def model_input_items(
    history: Sequence[SessionItem], *, limited: bool, version: str = MODELLED_VERSION
) -> tuple[SessionItem, ...]:
    """The history items the model receives: ``drop_orphan_function_calls`` as *version* has it.

    *limited* says whether a limit was set (0.20+ prunes orphaned outputs only then).
    The turn's new input holds no calls or outputs, so it is left out here.
    """
    release = parse_version(version)
    answered = {i.call_id for i in history if i.kind is ItemKind.FUNCTION_CALL_OUTPUT}
    dropped = {
        index
        for index, item in enumerate(history)
        if item.kind is ItemKind.FUNCTION_CALL and item.call_id not in answered
    }
    dropped_calls = set(dropped)
    if limited and release >= PRUNES_ORPHAN_OUTPUTS:
        calls = {
            item.call_id
            for index, item in enumerate(history)
            if item.kind is ItemKind.FUNCTION_CALL and index not in dropped
        }
        dropped |= {
            index
            for index, item in enumerate(history)
            if item.kind is ItemKind.FUNCTION_CALL_OUTPUT
            and item.call_id is not None
            and item.call_id not in calls
        }
    if dropped_calls and release >= DROPS_TIED_REASONING:
        dropped |= _reasoning_tied_to(history, dropped_calls)
    return tuple(item for index, item in enumerate(history) if index not in dropped)


def _reasoning_tied_to(history: Sequence[SessionItem], dropped_calls: set[int]) -> set[int]:
    """Reasoning items whose next non-reasoning item is a dropped call (scanned from the end)."""
    tied: set[int] = set()
    for index in range(len(history) - 1, -1, -1):
        if history[index].kind is not ItemKind.REASONING:
            continue
        following = index + 1
        while following < len(history) and (
            following in tied or history[following].kind is ItemKind.REASONING
        ):
            following += 1
        if following in dropped_calls:
            tied.add(index)
    return tied


def items_as_messages(items: Sequence[SessionItem]) -> tuple[Message, ...]:
    """The messages *items* carry: a message whose rows all survived is itself (the same
    object), an assistant message that lost some rows becomes one with only what is left.
    Reasoning items carry no text and are not messages."""
    out: list[Message] = []
    index = 0
    while index < len(items):
        message = items[index].message
        group = []
        while index < len(items) and items[index].message is message:
            group.append(items[index])
            index += 1
        kept = [i for i in group if i.kind is not ItemKind.REASONING]
        if not kept:
            continue
        whole = [i for i in items_of(message) if i.kind is not ItemKind.REASONING]
        if len(kept) == len(whole):
            out.append(message)
            continue
        text = message.content if any(i.kind is ItemKind.MESSAGE for i in kept) else ""
        calls = [i.call_id for i in kept if i.kind is ItemKind.FUNCTION_CALL and i.call_id]
        out.append(Message(Role.ASSISTANT, text, calls))
    return tuple(out)


@dataclass(frozen=True)
class OpenAIAgentsSession(WindowPolicy):
    """OpenAI Agents SDK ``SQLiteSession`` with ``SessionSettings(limit=size)`` (items; default None: all).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2")]
    >>> [m.content for m in OpenAIAgentsSession(3).window(chat)]
    ['a1', 'u2', 'a2']
    >>> OpenAIAgentsSession(0).window(chat), len(OpenAIAgentsSession(-1).window(chat))
    ((), 4)
    """

    size: int | None = None  # type: ignore[assignment]  # None is the SDK's default: no limit
    reasoning: bool = False
    version: str = MODELLED_VERSION

    name: ClassVar[str] = "openai-agents"
    source: ClassVar[str] = (
        "agents/memory/sqlite_session.py, agents/run_internal/items.py; the same limit in AsyncSQLiteSession, AdvancedSQLiteSession and SQLAlchemySession on SQLite (agents/extensions/memory/, run by the tests)"
    )
    # The other offline session types behave the same (module docstring); the label stays
    # the one lesson 5's stored outputs show.
    product: ClassVar[str] = f"OpenAI Agents SDK SQLiteSession ({MODELLED_VERSION})"
    unit: ClassVar[Unit] = Unit.ITEMS
    default_size: ClassVar[int | None] = None
    accepted_sizes: ClassVar[str] = (
        "None (every item) or a whole number of items: 0 sends no history, a negative limit "
        "sends every item"
    )

    def __post_init__(self) -> None:
        size = self.size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int)):
            raise PolicyError(f"{self.name}: limit must be a whole number or None, got {size!r}")
        if parse_version(self.version) < FIRST_VERSION_WITH_LIMIT:
            raise PolicyError(
                f"{self.name}: SessionSettings(limit=...) arrived in openai-agents 0.8.0; "
                f"before it the runner sent every stored item (got version {self.version})"
            )

    def tail_needed(self) -> int | None:
        # Every message stores at least one item, so `limit` messages hold `limit` items.
        return self.size if self.size is not None and self.size >= 0 else None

    def history_items(self, stored: Sequence[Message]) -> tuple[SessionItem, ...]:
        """What ``get_items(limit)`` returns, read from the end so a load costs O(limit)."""
        limit = self.size
        if limit is None or limit < 0:
            return stored_items(stored, reasoning=self.reasoning)
        newest_first: list[tuple[SessionItem, ...]] = []
        count, position = 0, len(stored)
        while count < limit and position > 0:
            position -= 1
            newest_first.append(items_of(stored[position], reasoning=self.reasoning))
            count += len(newest_first[-1])
        rows = tuple(item for chunk in reversed(newest_first) for item in chunk)
        return tuple(latest_items(rows, limit))

    def input_items(self, stored: Sequence[Message]) -> tuple[SessionItem, ...]:
        """The history items the model receives, after orphaned calls (and outputs) are dropped."""
        return model_input_items(
            self.history_items(stored), limited=self.size is not None, version=self.version
        )

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return items_as_messages(self.input_items(stored))
