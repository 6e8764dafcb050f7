"""An agent that lives in its own process: it answers some turns, exits, and a new one takes over.

``python -m windowmem.outlive.agent_process '<json>'`` starts an n8n-style agent with memory
(Context Window Length *window*) over the store a :class:`~windowmem.outlive.product_stores.StoreSpec`
names, plays the given turns of one session, prints one JSON line per turn with what the
model was sent, and exits. With the ``in-process`` store its memory is a Simple Memory
map inside that process, so whatever it held is gone when the process ends; with a
table or a list it is in the store.

:func:`restart` runs two such processes one after the other: a real restart.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from windowmem.messages import Message, assistant, user
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies.n8n import N8nSimpleMemory, SimpleMemoryStore

WORKFLOW_ID = "wf1"


@dataclass(frozen=True)
class ProcessTurn:
    """One turn played by an agent process: its *pid*, the *user* text, what was *sent*, and the store's count after."""

    pid: int
    user: str
    sent: tuple[str, ...]
    stored_after: int


def n8n_turn(history_messages: Sequence[Message], window: int, text: str) -> tuple[str, ...]:
    """What an n8n agent sends for *text*: its memory's window of the stored messages, then the new input."""
    loaded = N8nSimpleMemory(window).load(list(history_messages))
    return (*(m.content for m in loaded), text)


def play(
    spec: StoreSpec,
    session: str,
    window: int,
    turns: Sequence[tuple[str, str]],
    local: SimpleMemoryStore | None = None,
) -> list[ProcessTurn]:
    """Play *turns* (user text, reply) in this process, as an n8n agent with memory would.

    *local* is this process's Simple Memory map (a new, empty one by default); a
    long-lived worker passes its own so that it keeps its buffers between calls.
    """
    import os

    local = SimpleMemoryStore() if local is None else local
    out = []
    for text, reply in turns:
        if spec.kind == "in-process":
            memory = local.memory(
                WORKFLOW_ID, session, context_window_length=window, source="customKey"
            )
            sent = n8n_turn(memory.stored, window, text)
            memory.add(user(text), assistant(reply))
            stored = len(memory.stored)
        else:
            history = spec.n8n_history(session)
            sent = n8n_turn(history.get_messages(), window, text)
            history.add_messages([user(text), assistant(reply)])
            stored = len(history.get_messages())
        out.append(ProcessTurn(os.getpid(), text, sent, stored))
    return out


def run_process(
    spec: StoreSpec, session: str, window: int, turns: Sequence[tuple[str, str]]
) -> list[ProcessTurn]:
    """Start a fresh Python process that plays *turns* and exits; return what it reported."""
    job = {
        "spec": asdict(spec),
        "session": session,
        "window": window,
        "turns": [list(t) for t in turns],
    }
    done = subprocess.run(
        [sys.executable, "-m", "windowmem.outlive.agent_process", json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the agent process failed: {done.stderr.strip().splitlines()[-1:]}")
    return [
        ProcessTurn(d["pid"], d["user"], tuple(d["sent"]), d["stored_after"])
        for d in map(json.loads, done.stdout.splitlines())
    ]


def restart(
    spec: StoreSpec,
    session: str,
    window: int,
    before: Sequence[tuple[str, str]],
    after: Sequence[tuple[str, str]],
) -> tuple[list[ProcessTurn], list[ProcessTurn]]:
    """Turns *before* in one process, then turns *after* in a new one: what each call was sent."""
    return run_process(spec, session, window, before), run_process(spec, session, window, after)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    job = json.loads(args[0])
    spec = StoreSpec(**job["spec"])
    for turn in play(spec, job["session"], job["window"], [tuple(t) for t in job["turns"]]):
        print(json.dumps(asdict(turn), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a subprocess by run_process
    raise SystemExit(main())
