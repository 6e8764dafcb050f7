"""Where a shared agent's buffers live: n8n's Simple Memory in the process, or a SQLite file that outlives it.

:class:`InProcessStore` is n8n's Simple Memory (a map in one process, keyed
``workflowId__key``, emptied by a restart, each buffer deleted after an hour unused);
:class:`SqliteStore` is a file that outlives both. Both take a window and answer the same
calls, so a script runs unchanged on either.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from windowmem.errors import WindowMemError
from windowmem.messages import Message
from windowmem.policies.n8n import ManualClock, N8nSimpleMemory, SimpleMemoryStore
from windowmem.storage.sqlite import SqliteRepository

StoreKind = Literal["in-process", "sqlite"]


STORE_KINDS: tuple[StoreKind, ...] = ("in-process", "sqlite")


class InProcessStore:
    """n8n Simple Memory: one map in the agent's process, swept of buffers idle over an hour."""

    kind: StoreKind = "in-process"

    def __init__(self, window: int, workflow_id: str = "support-agent") -> None:
        self.window = window
        self.workflow_id = workflow_id
        self.clock = ManualClock()
        self._map = SimpleMemoryStore(self.clock)

    @property
    def idle_limit_minutes(self) -> float:
        """How long a buffer may go unused before the next run deletes it."""
        return self._map.idle_limit / 60

    def buffer_name(self, key: str) -> str:
        return self._map.buffer_key(self.workflow_id, key, source="customKey")

    def supply(self, key: str) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        """The window for *key*, and the buffers the idle sweep deleted on the way."""
        # n8n sweeps stale buffers first, then fetches or creates the one asked for.
        swept = self._map.delete_stale()
        memory = self._map.memory(
            self.workflow_id, key, context_window_length=self.window, source="customKey"
        )
        return memory.load(), swept

    def save(self, key: str, messages: Sequence[Message]) -> None:
        entry = self._map.entry(self.buffer_name(key))
        assert entry is not None  # supply() ran for this key in the same request
        entry.memory.add(*messages)

    def stored(self, key: str) -> tuple[Message, ...]:
        entry = self._map.entry(self.buffer_name(key))
        return () if entry is None else entry.memory.stored

    def held(self) -> tuple[str, ...]:
        """The names of the buffers the map holds now."""
        return self._map.keys()

    def restart(self) -> None:
        self._map.restart()

    def pause(self, minutes: float) -> None:
        self.clock.advance(minutes=minutes)

    def close(self) -> None:
        """Nothing to release: the map goes with the object."""


class SqliteStore:
    """Buffers as rows of one SQLite file: a restart reopens the file, a pause changes nothing."""

    kind: StoreKind = "sqlite"

    def __init__(self, window: int, path: str | Path | None = None) -> None:
        self.window = window
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        if path is None:
            self._folder = tempfile.TemporaryDirectory(prefix="windowmem-scope-")
            path = Path(self._folder.name) / "memory.db"
        self.path = Path(path)
        self._repo = SqliteRepository(self.path, durable=False)

    def buffer_name(self, key: str) -> str:
        return key

    def supply(self, key: str) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        return N8nSimpleMemory(self.window).load(self._repo.find_by_conversation_id(key)), ()

    def save(self, key: str, messages: Sequence[Message]) -> None:
        self._repo.append(key, list(messages))

    def stored(self, key: str) -> tuple[Message, ...]:
        return tuple(self._repo.find_by_conversation_id(key))

    def held(self) -> tuple[str, ...]:
        return tuple(self._repo.find_conversation_ids())

    def restart(self) -> None:
        # A new process opens the same file: what was committed is all there.
        self._repo.close()
        self._repo = SqliteRepository(self.path, durable=False)

    def pause(self, minutes: float) -> None:
        """SQLite rows carry no expiry."""

    def close(self) -> None:
        self._repo.close()
        if self._folder is not None:
            self._folder.cleanup()


def open_store(kind: StoreKind, window: int) -> InProcessStore | SqliteStore:
    """A fresh, empty store of *kind* with Context Window Length *window*."""
    N8nSimpleMemory(window)  # the same size rules as the node
    if kind == "in-process":
        return InProcessStore(window)
    if kind == "sqlite":
        return SqliteStore(window)
    raise WindowMemError(f"unknown store {kind!r}: use 'in-process' or 'sqlite'")
