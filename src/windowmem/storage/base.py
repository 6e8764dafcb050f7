"""What a chat memory repository is: storage for conversations, with no idea of a window.

This is the storage half of Spring AI's split. A :class:`ChatMemoryRepository` keeps
each conversation's messages, in order, under its id, and gives them back; deciding
*which* messages reach the model is the policy's job (see :mod:`windowmem.chat_memory`).

The four Spring AI operations are there (``find_conversation_ids``,
``find_by_conversation_id``, ``save_all`` which replaces everything, and
``delete_by_conversation_id``), plus two that let a memory that windows on load
avoid rewriting or rereading the whole history every turn:

* ``append(id, messages)`` adds messages at the end in time proportional to what is added;
* ``load_tail(id, n)`` returns the last *n* messages in time proportional to *n*;

and one that lets a memory that windows on write stay correct when two processes add
to one conversation at once:

* ``update(id, change)`` reads the messages, stores ``change(messages)`` in their place
  and returns it, as one atomic step (a plain load then ``save_all`` could lose the
  other process's messages).

Every repository follows the same contract, checked by one shared test suite:
unknown ids read as empty, a conversation with no messages is not listed, ids are
listed in sorted order, and messages come back equal to what went in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

from windowmem.errors import SessionKeyError, WindowMemError
from windowmem.messages import Message


class StorageError(WindowMemError):
    """A repository could not read or write: a bad location, a corrupt or foreign store."""


#: A pure function from a conversation's stored messages to what should be stored instead.
Change = Callable[[list[Message]], Sequence[Message]]


@runtime_checkable
class ChatMemoryRepository(Protocol):
    """Where conversations live: ids to ordered lists of messages."""

    def find_conversation_ids(self) -> list[str]:
        """Every conversation id that has at least one message, sorted."""
        ...

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        """All of a conversation's messages in order; empty for an unknown id."""
        ...

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace a conversation's messages with *messages*, atomically."""
        ...

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        """Forget a conversation; deleting an unknown id is not an error."""
        ...

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Add *messages* after the stored ones, atomically, without rewriting them."""
        ...

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        """The last *n* messages of a conversation in order (fewer if it is shorter)."""
        ...

    def update(self, conversation_id: str, change: Change) -> list[Message]:
        """Replace the messages with ``change(messages)`` atomically; return what is now stored."""
        ...


class ClosesOnExit:
    """Lets a repository with a ``close()`` be used in a ``with`` block that closes it."""

    def close(self) -> None:  # pragma: no cover - every repository that mixes this in defines it
        raise NotImplementedError

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def import_driver(module: str, repository: str, package: str) -> object:
    """The client library *module* a server repository needs, or a StorageError saying how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:  # pragma: no cover - the stores extra is part of the test install
        raise StorageError(
            f"{repository} needs {package}: pip install 'windowmem[stores]'"
        ) from None


def check_conversation_id(conversation_id: object) -> str:
    """*conversation_id* if it is non-empty text, else a SessionKeyError saying what to pass.

    >>> check_conversation_id("user:42")
    'user:42'
    """
    if conversation_id is None or conversation_id == "":
        raise SessionKeyError(
            "no conversation id: pass the session key of the conversation (for example "
            "'user:42' or a chat's sessionId); without one every user would share a buffer"
        )
    if not isinstance(conversation_id, str):
        raise SessionKeyError(
            f"a conversation id is text, got {type(conversation_id).__name__} {conversation_id!r}: "
            "pass str(...) of it, or render it with windowmem.scope.session_keys"
        )
    return conversation_id


def check_messages(messages: Message | Iterable[Message]) -> list[Message]:
    """*messages* as a list, or a StorageError naming the first item that is not a Message."""
    if isinstance(messages, Message):
        return [messages]
    if isinstance(messages, (str, bytes)):
        raise StorageError(
            "messages must be Message objects, got a string: wrap it, e.g. user('...')"
        )
    items = list(messages)
    for position, item in enumerate(items):
        if not isinstance(item, Message):
            raise StorageError(
                f"item {position} is a {type(item).__name__}, not a Message: build messages with "
                "windowmem.user(), assistant(), system() or tool()"
            )
        for text in (item.content, *item.tool_calls, item.tool_call_id or ""):
            if not _encodable(text):
                raise StorageError(
                    f"message {position} holds a lone surrogate character, which no store can write "
                    "as UTF-8: decode the text properly (errors='replace') before saving it"
                )
    return items


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def checked_change(change: Change, stored: list[Message]) -> list[Message]:
    """What *change* makes of *stored*, checked like any messages about to be saved."""
    if not callable(change):
        raise StorageError(
            f"update needs a function of the stored messages, got {type(change).__name__}"
        )
    return check_messages(change(list(stored)))


def check_tail_size(n: object) -> int:
    """*n* as a count of messages, or a StorageError for negatives and non-integers."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise StorageError(f"load_tail needs a whole number of messages >= 0, got {n!r}")
    return n
