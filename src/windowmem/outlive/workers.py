"""Two worker processes answering one conversation in turn, as n8n's queue mode hands out runs.

Each worker is a real process. With the ``in-process`` store each has its own Simple
Memory map, so a conversation whose turns alternate between them is split in two: each
worker sees only the turns it answered itself. With a shared store (a SQLite file,
PostgreSQL, Redis) both read and write one history and every call sees every turn.

>>> import tempfile, os
>>> spec = StoreSpec("n8n-sql", os.path.join(tempfile.mkdtemp(), "shared.db"))
>>> calls = alternate(spec, "s1", 5, [("u1", "a1"), ("u2", "a2"), ("u3", "a3")])
>>> [c.worker for c in calls], calls[2].sent
(['worker 1', 'worker 2', 'worker 1'], ('u1', 'a1', 'u2', 'a2', 'u3'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from windowmem.outlive.agent_process import play
from windowmem.outlive.concurrent_runs import process_context
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies.n8n import SimpleMemoryStore

WORKERS = ("worker 1", "worker 2")


@dataclass(frozen=True)
class WorkerCall:
    """Which *worker* (and its *pid*) answered *user*, and what the model was *sent*."""

    worker: str
    pid: int
    user: str
    sent: tuple[str, ...]


def _serve(spec: StoreSpec, session: str, window: int, connection: Any) -> None:
    # One long-lived process: its Simple Memory map (if any) survives between its turns.
    local = SimpleMemoryStore()
    while True:
        job = connection.recv()
        if job is None:
            break
        connection.send(play(spec, session, window, [tuple(job)], local)[0].sent)
    connection.close()


def alternate(
    spec: StoreSpec, session: str, window: int, turns: Sequence[tuple[str, str]]
) -> list[WorkerCall]:
    """Turn 1 to worker 1, turn 2 to worker 2, and so on; what each call was sent."""
    context = process_context()
    pipes, processes = [], []
    for _ in WORKERS:
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(spec, session, window, theirs), daemon=True)
        process.start()
        pipes.append(ours)
        processes.append(process)
    try:
        calls = []
        for number, (text, reply) in enumerate(turns):
            which = number % len(WORKERS)
            pipes[which].send((text, reply))
            sent = tuple(pipes[which].recv())
            pid = processes[which].pid
            calls.append(WorkerCall(WORKERS[which], pid if pid is not None else -1, text, sent))
        return calls
    finally:
        for pipe in pipes:
            pipe.send(None)
        for process in processes:
            process.join(timeout=30)
