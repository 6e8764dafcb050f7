"""Where n8n's Simple Memory keeps its buffers: one map in one process's memory.

n8n holds a single map from buffer name to buffer for the whole process:

* a buffer is named ``workflowId__sessionId`` (typeVersion 1.4 nodes that take the
  session id from the input append their node name, so two memory nodes on one chat
  stop sharing a buffer); the naming rules live in :mod:`windowmem.policies.n8n.buffer_names`;
* ``contextWindowLength`` is read when a buffer is created and never again: change
  it in the editor and a live session keeps its old window until its buffer goes;
* every time any Simple Memory node runs, buffers idle for more than an hour are
  deleted first, so a session that pauses for 61 minutes starts over empty;
* a restart loses everything, and each queue-mode worker has a map of its own.

Time comes from an injectable clock, so tests and lessons can jump an hour ahead
without waiting: see :class:`ManualClock`.

>>> from windowmem.messages import user
>>> clock = ManualClock()
>>> store = SimpleMemoryStore(clock)
>>> store.memory("wf1", "chat-7").add(user("Hi, I'm Marta"))
>>> clock.advance(minutes=61)
>>> len(store.memory("wf1", "chat-7"))
0
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from windowmem.policies.base import Memory
from windowmem.policies.n8n.buffer_names import n8n_buffer_key, n8n_node_scope, n8n_session_id
from windowmem.policies.n8n.simple_memory import N8nSimpleMemory

#: Seconds a buffer may stay unused before the next run of any memory node deletes it.
IDLE_LIMIT_SECONDS = 60 * 60
#: The name n8n gives a new Simple Memory node.
DEFAULT_NODE_NAME = "Simple Memory"


@dataclass
class ManualClock:
    """A clock that moves only when told to: ``clock()`` returns *now* in seconds.

    >>> clock = ManualClock()
    >>> clock.advance(minutes=1, seconds=30)
    >>> clock()
    90.0
    """

    now: float = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, *, hours: float = 0, minutes: float = 0, seconds: float = 0) -> None:
        """Move the clock forward."""
        step = hours * 3600 + minutes * 60 + seconds
        if step < 0:
            raise ValueError(f"a clock only moves forward; got a step of {step} seconds")
        self.now += step


@dataclass
class BufferEntry:
    """One session's buffer and its timestamps (seconds on the store's clock)."""

    memory: Memory
    created: float
    last_accessed: float


@dataclass
class SimpleMemoryStore:
    """One n8n process's map of Simple Memory buffers, with its one-hour idle clean-up."""

    clock: Callable[[], float] = time.monotonic
    idle_limit: float = IDLE_LIMIT_SECONDS
    _buffers: dict[str, BufferEntry] = field(default_factory=dict, init=False, repr=False)

    def buffer_key(
        self,
        workflow_id: str,
        session_id: Any,
        *,
        source: Literal["fromInput", "customKey"] = "fromInput",
        node_name: str = DEFAULT_NODE_NAME,
        type_version: float = 1.3,
    ) -> str:
        """The buffer name n8n would use: ``workflowId__sessionId`` (plus the node name from 1.4)."""
        session = n8n_session_id(session_id, source)
        scope = n8n_node_scope(node_name, type_version=type_version, source=source)
        return n8n_buffer_key(workflow_id, session, node_name=scope)

    def memory(
        self,
        workflow_id: str,
        session_id: Any,
        *,
        context_window_length: int = N8nSimpleMemory.default_size,
        source: Literal["fromInput", "customKey"] = "fromInput",
        node_name: str = DEFAULT_NODE_NAME,
        type_version: float = 1.3,
    ) -> Memory:
        """The buffer a memory node run gets, as n8n's ``getMemory`` does it.

        Stale buffers go first; then the named buffer is touched, or created with
        *context_window_length* if it does not exist. *session_id* is resolved by n8n's
        rules (missing -> "No session ID found", numbers become text, objects refused).
        """
        policy = N8nSimpleMemory(context_window_length)  # checks the length even for a live buffer
        key = self.buffer_key(
            workflow_id, session_id, source=source, node_name=node_name, type_version=type_version
        )
        self.delete_stale()
        now = self.clock()
        entry = self._buffers.get(key)
        if entry is None:
            entry = BufferEntry(Memory(policy), created=now, last_accessed=now)
            self._buffers[key] = entry
        else:
            entry.last_accessed = now
        return entry.memory

    def delete_stale(self) -> tuple[str, ...]:
        """Delete the buffers idle for more than the limit; return their names."""
        oldest_allowed = self.clock() - self.idle_limit
        stale = tuple(
            key for key, entry in self._buffers.items() if entry.last_accessed < oldest_allowed
        )
        for key in stale:
            del self._buffers[key]
        return stale

    def restart(self) -> None:
        """What an n8n restart does to Simple Memory: every buffer is gone."""
        self._buffers.clear()

    def keys(self) -> tuple[str, ...]:
        """The names of the buffers held now, oldest first."""
        return tuple(self._buffers)

    def entry(self, key: str) -> BufferEntry | None:
        """The buffer named *key* and its timestamps, without touching it."""
        return self._buffers.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._buffers

    def __len__(self) -> int:
        return len(self._buffers)
