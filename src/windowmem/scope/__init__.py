"""Whose memory is it: session keys, and several customers talking through one shared agent.

Lesson 1's question. :mod:`~windowmem.scope.session_keys` names the ways to scope buffers
and flags a key every request shares; the rest plays a script of customers' requests
through one agent and says whose turns land in whose prompt:

* :mod:`~windowmem.scope.script`: customers, requests, restarts and pauses;
* :mod:`~windowmem.scope.key_choices`: the key templates compared, and who shares a bucket;
* :mod:`~windowmem.scope.agent_stores`: Simple Memory in the process, or a SQLite file;
* :mod:`~windowmem.scope.shared_agent`: :func:`run_script`, the window each request received;
* :mod:`~windowmem.scope.support_desk`: the lesson's three customers and two sessions.

The names below are the shared agent's, so that ``from windowmem import scope`` is the
lesson's one import.
"""

from __future__ import annotations

from windowmem.scope.agent_stores import (
    STORE_KINDS,
    InProcessStore,
    SqliteStore,
    StoreKind,
    open_store,
)
from windowmem.scope.key_choices import (
    COMPOSITE,
    CONSTANT,
    KEY_CHOICES,
    PER_THREAD,
    PER_USER,
    TENANT_USER,
    buckets,
    key_choice,
    key_for,
    owners,
)
from windowmem.scope.script import (
    Customer,
    Event,
    Pause,
    Request,
    Restart,
    requests_of,
)
from windowmem.scope.shared_agent import (
    SCOPE,
    STORAGE,
    WINDOW,
    Call,
    Happening,
    Missing,
    ScriptRun,
    TurnRef,
    run_script,
)
from windowmem.scope.support_desk import (
    BETWEEN,
    CARLOS,
    LUCIA,
    MARTA,
    RETURN_CASES,
    marta_returns,
    returns_by_store,
    support_desk,
)

__all__ = [
    "marta_returns",
    "BETWEEN",
    "CARLOS",
    "COMPOSITE",
    "CONSTANT",
    "Call",
    "Customer",
    "Event",
    "Happening",
    "InProcessStore",
    "KEY_CHOICES",
    "LUCIA",
    "MARTA",
    "Missing",
    "PER_THREAD",
    "PER_USER",
    "RETURN_CASES",
    "Pause",
    "Request",
    "Restart",
    "SCOPE",
    "STORAGE",
    "STORE_KINDS",
    "ScriptRun",
    "SqliteStore",
    "StoreKind",
    "TENANT_USER",
    "TurnRef",
    "WINDOW",
    "buckets",
    "key_choice",
    "key_for",
    "open_store",
    "owners",
    "requests_of",
    "returns_by_store",
    "run_script",
    "support_desk",
]
