"""Two requests on one conversation at the same moment, in two real processes on a real store.

No n8n or Spring AI process runs here: each request is windowmem's rebuild of the product's
memory steps (derived from its code at the versions named) over the product's layout, on
SQLite or a real PostgreSQL/Redis server. Each agent does its memory work in steps, with
no lock around them:

* **n8n** (``BufferWindowMemory`` over any store): ``load`` the whole history at the start,
  and after the model answers ``write`` the user message, then ``write`` the reply, one
  INSERT or LPUSH each, no transaction. A turn without tools is saved by
  ``memory.saveContext``, which calls ``addUserMessage`` then ``addAIMessage``
  (``@langchain/classic`` 1.0.27 ``chat_memory.js``), one ``addMessage`` each; only a
  turn with tools goes through ``addMessages``, a plain loop of ``addMessage`` in
  ``@langchain/core`` 1.2.8 (n8n 2.41.1 ``memoryManagement.js``, ``saveToMemory``);
* **Spring AI** (``MessageChatMemoryAdvisor`` over ``MessageWindowChatMemory``, 2.0.1):
  ``get`` the memory for the prompt, then ``add`` the user message, and after the model
  ``add`` the reply; each ``add`` is ``find`` the conversation, trim it with the new
  message, ``saveAll`` the result, which *replaces* what is stored.

:func:`run_pair` runs two such requests, A and B, in two processes. Given a *schedule*
(the order in which the two processes take their steps) it forces exactly that overlap,
handing a token from process to process, so the outcome is reproducible. Without one
both start together at a barrier and the operating system decides: :func:`trials`
counts how often the overlap happens by itself. :func:`overlapping_save_alls` forces the
one overlap the token cannot: two ``saveAll`` transactions on PostgreSQL at once.

>>> steps("n8n"), steps("spring-ai")
(('load', 'write user', 'write reply'), ('get', 'find', 'save user', 'find', 'save reply'))
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from windowmem.messages import Message, assistant, user
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies.spring_ai import SpringAiMessageWindow

Product = Literal["n8n", "spring-ai"]
_STEPS: dict[str, tuple[str, ...]] = {
    "n8n": ("load", "write user", "write reply"),
    "spring-ai": ("get", "find", "save user", "find", "save reply"),
}
#: Both load before either writes; their writes then alternate.
N8N_OVERLAP = ("A", "B", "A", "B", "A", "B")
#: Both read before either saves; B's save replaces A's; then A, then B, add their replies.
SPRING_OVERLAP = ("A", "A", "B", "B", "A", "B", "A", "A", "B", "B")
#: Both read; B saves its question before A saves A's; then A, then B, add their replies: A's
#: save replaces the list with one that never held question B.
SPRING_B_SAVES_FIRST = ("A", "A", "B", "B", "B", "A", "A", "A", "B", "B")
#: B arrives while A's model is answering. n8n: A has loaded and writes only after its model
#: call, so B loads the same history (blind to A), then A writes, then B.
N8N_DURING_CALL = ("A", "B", "A", "A", "B", "B")
#: The same timing in Spring AI: A's advisor has already saved A's question before the model
#: call, so B's read finds it; B saves after it; A then adds its reply, then B.
SPRING_DURING_CALL = ("A", "A", "A", "B", "B", "B", "A", "A", "B", "B")
#: B arrives during A's model call and its model answers first: both load, then B writes its
#: question and answer, then A its own. (Lesson 4's lock does not make B wait: it turns B
#: away, :mod:`windowmem.outlive.session_lock`.)
N8N_B_ANSWERS_FIRST = ("A", "B", "B", "B", "A", "A")
#: Spring AI's default ``maxMessages`` (2.0.1), used when no window is given.
SPRING_WINDOW = 20


def _default_window(product: Product) -> int:
    return 5 if product == "n8n" else SPRING_WINDOW


def steps(product: Product) -> tuple[str, ...]:
    """The memory steps one request of *product* takes, in order."""
    return _STEPS[product]


def model_call_before(product: Product) -> int:
    """The index in :func:`steps` of the first step after the model call.

    n8n loads, calls the model, then writes both messages; Spring AI's advisor saves the
    question (``find``, ``save user``) *before* the model call and adds the reply after it,
    so its model call sits between the first save and the second ``find``.

    >>> [steps(p)[model_call_before(p)] for p in ("n8n", "spring-ai")]
    ['write user', 'find']
    >>> model_call_before("spring-ai")
    3
    """
    return {"n8n": 1, "spring-ai": 3}[product]


@dataclass(frozen=True)
class Request:
    """One request: its *name* (``A`` or ``B``), the *user* text and the *reply* its model gives."""

    name: str
    user: str
    reply: str


@dataclass(frozen=True)
class PairResult:
    """What each request's model was sent, the order the steps ran in, and what the store holds after."""

    sent: dict[str, tuple[str, ...]]
    trace: tuple[str, ...]
    stored: tuple[str, ...]


class _Agent:
    """One request's memory steps against *spec*'s store."""

    def __init__(
        self, product: Product, spec: StoreSpec, session: str, request: Request, window: int
    ) -> None:
        self.product, self.session, self.request, self.window = product, session, request, window
        if product == "n8n":
            self.history = spec.n8n_history(session)
        else:
            self.repository = spec.spring_repository()
            self.policy = SpringAiMessageWindow(window)
        self.found: list[Message] = []
        self.sent: tuple[str, ...] = ()

    def step(self, name: str) -> None:
        from windowmem.policies.n8n import N8nSimpleMemory

        text = self.request.user
        if name == "load":
            loaded = N8nSimpleMemory(self.window).load(self.history.get_messages())
            self.sent = (*(m.content for m in loaded), text)
        elif name == "write user":
            self.history.add_messages([user(text)])
        elif name == "write reply":
            self.history.add_messages([assistant(self.request.reply)])
        elif name == "get":
            self.sent = (
                *(m.content for m in self.repository.find_by_conversation_id(self.session)),
                text,
            )
        elif name == "find":
            self.found = self.repository.find_by_conversation_id(self.session)
        elif name == "save user":
            self.repository.save_all(
                self.session, list(self.policy.write(self.found, [user(text)]))
            )
        elif name == "save reply":
            added = [assistant(self.request.reply)]
            self.repository.save_all(self.session, list(self.policy.write(self.found, added)))
        else:  # pragma: no cover - the step names are ours
            raise ValueError(name)


def _worker(
    product: Product,
    spec: StoreSpec,
    sessions: Sequence[str],
    request: Request,
    window: int,
    schedule: Sequence[str] | None,
    model_seconds: float,
    turn: Any,
    condition: Any,
    barrier: Any,
    results: Any,
) -> None:
    for session in sessions:
        agent = _Agent(product, spec, session, request, window)
        barrier.wait()
        for index, name in enumerate(steps(product)):
            if schedule is not None:
                with condition:
                    condition.wait_for(
                        lambda: turn.value < len(schedule) and schedule[turn.value] == request.name
                    )
            elif model_seconds and index == model_call_before(product):
                time.sleep(model_seconds)  # the model answers here: see model_call_before
            agent.step(name)
            if schedule is not None:
                with condition:
                    turn.value += 1
                    condition.notify_all()
        results.put(("sent", session, request.name, agent.sent))


def _run(
    product: Product,
    spec: StoreSpec,
    sessions: Sequence[str],
    pair: tuple[Request, Request],
    window: int,
    schedule: Sequence[str] | None,
    model_seconds: float = 0.0,
) -> tuple[dict[tuple[str, str], tuple[str, ...]], list[str]]:
    context = process_context()
    turn, condition = context.Value("i", 0), context.Condition()
    barrier, results = context.Barrier(2), context.Queue()
    processes = [
        context.Process(
            target=_worker,
            args=(
                product,
                spec,
                sessions,
                request,
                window,
                schedule,
                model_seconds,
                turn,
                condition,
                barrier,
                results,
            ),
            daemon=True,
        )
        for request in pair
    ]
    for process in processes:
        process.start()
    sent: dict[tuple[str, str], tuple[str, ...]] = {}
    while len(sent) < 2 * len(sessions):
        item = _next_result(results, processes)
        sent[(item[1], item[2])] = tuple(item[3])
    for process in processes:
        process.join(timeout=30)
    return sent, schedule_trace(product, schedule) if schedule is not None else []


def schedule_trace(product: Product, schedule: Sequence[str]) -> list[str]:
    """The steps a *schedule* makes the two processes take, in order: ``["A load", "B load", ...]``."""
    taken = {"A": 0, "B": 0}
    out = []
    for name in schedule:
        out.append(f"{name} {steps(product)[taken[name]]}")
        taken[name] += 1
    return out


def process_context() -> Any:
    """A fork server where the system has one, spawn elsewhere; never a plain fork.

    A plain fork copies the caller's open SQLite connections (a notebook that just
    printed a table holds one), and SQLite's file locking is not safe across fork: two
    children can then write without a real lock between them. The fork server is a
    fresh process that has imported only windowmem, so its children start fast and
    share nothing with the caller.
    """
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        ["windowmem.outlive.concurrent_runs", "windowmem.outlive.workers"]
    )
    return context


def _next_result(results: Any, processes: Sequence[Any]) -> Any:
    """The next result, or a RuntimeError as soon as a worker died without sending it."""
    import queue

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            return results.get(timeout=0.2)
        except queue.Empty:
            dead = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(
                    f"a worker process failed (exit code {dead[0]}); see its stderr"
                ) from None
    raise RuntimeError("the worker processes sent nothing for 120 s")


def stored_contents(product: Product, spec: StoreSpec, session: str) -> tuple[str, ...]:
    """The texts the store holds for *session*, in order."""
    if product == "n8n":
        return tuple(m.content for m in spec.n8n_history(session).get_messages())
    return tuple(m.content for m in spec.spring_repository().find_by_conversation_id(session))


def seed(product: Product, spec: StoreSpec, session: str, history: Sequence[Message]) -> None:
    """Start *session* with *history* (and nothing else)."""
    if product == "n8n":
        store = spec.n8n_history(session)
        store.clear()
        store.add_messages(list(history))
    else:
        spec.spring_repository().save_all(session, list(history))


def run_pair(
    product: Product,
    spec: StoreSpec,
    session: str,
    history: Sequence[Message],
    pair: tuple[Request, Request],
    *,
    schedule: Sequence[str] | None,
    window: int | None = None,
) -> PairResult:
    """Requests A and B on *session* (holding *history*), in two processes, in the order *schedule* forces.

    *window* is n8n's Context Window Length (default 5) or Spring AI's ``maxMessages``
    (default 20).
    """
    window = _default_window(product) if window is None else window
    seed(product, spec, session, history)
    if schedule is not None and sorted(schedule) != sorted(
        "A" * len(steps(product)) + "B" * len(steps(product))
    ):
        raise ValueError(
            f"a {product} schedule names A and B {len(steps(product))} times each, got {schedule!r}"
        )
    sent, trace = _run(product, spec, [session], pair, window, schedule)
    return PairResult(
        {name: sent[(session, name)] for name in ("A", "B")},
        tuple(trace),
        stored_contents(product, spec, session),
    )


@dataclass(frozen=True)
class TrialCounts:
    """Over *trials* unforced pairs: how often the prompts missed the other request, the rows
    interleaved, a message was lost, or the store ended with more rows than were written
    (two ``saveAll`` transactions overlapping: each one's DELETE misses the other's rows)."""

    trials: int
    blind: int
    interleaved: int
    lost: int
    duplicated: int = 0


def trials(
    product: Product,
    spec: StoreSpec,
    count: int,
    history: Sequence[Message],
    *,
    model_seconds: float = 0.0,
    window: int | None = None,
    prefix: str = "trial",
) -> TrialCounts:
    """Run *count* pairs with no forced order (both start at one barrier) and count the outcomes."""
    window = _default_window(product) if window is None else window
    pair = (Request("A", "question A", "answer A"), Request("B", "question B", "answer B"))
    sessions = [f"{prefix}-{product}-{i}" for i in range(count)]
    for session in sessions:
        seed(product, spec, session, history)
    sent, _ = _run(product, spec, sessions, pair, window, None, model_seconds)
    blind = interleaved = lost = duplicated = 0
    for session in sessions:
        everything = stored_contents(product, spec, session)
        duplicated += len(everything) > len(history) + 4
        stored = everything[len(history) :]
        a, b = sent[(session, "A")], sent[(session, "B")]
        blind += "question B" not in a and "question A" not in b
        lost += len(stored) < 4
        interleaved += (
            stored
            not in (
                ("question A", "answer A", "question B", "answer B"),
                ("question B", "answer B", "question A", "answer A"),
            )
            and len(stored) == 4
        )
    return TrialCounts(count, blind, interleaved, lost, duplicated)
