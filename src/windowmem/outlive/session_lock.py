"""Lesson 4's per-session lock, as its n8n recipe builds it: who is answered, who is turned away.

The recipe puts a Redis node before the agent, operation *Increment* on ``lock:<session id>``
with *Expire* on: n8n-nodes-base 2.41.1 ``Redis.node.js`` runs ``INCR`` and then, every time,
``EXPIRE key ttl``, and outputs the new count. An If node lets the run through to the agent
only on a count of 1; any other count is answered "one moment" at once, and that request's
question is neither sent to the model nor stored. After the agent a Redis *Delete* removes
the key, whoever set it. A key left alone expires *ttl* seconds after the last increment.

:func:`admit` plays requests on one session on a clock and says, for each, whether it ran
and which earlier runs it overlapped: with a model call longer than the TTL, the key expires
while the first run still holds it, a later request runs beside it, and the two are blind to
each other as if there were no lock. :func:`run_with_lock` then runs the requests the lock
let through, one after another, on a real store.

>>> outcomes = admit([Arrival("A", 0, 20), Arrival("B", 5, 20)], ttl=60)
>>> [(o.name, o.ran, o.overlaps) for o in outcomes]
[('A', True, ()), ('B', False, ())]
>>> outcomes = admit([Arrival("A", 0, 75), Arrival("B", 70, 20)], ttl=60)
>>> [(o.name, o.ran, o.overlaps) for o in outcomes]
[('A', True, ()), ('B', True, ('A',))]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.messages import Message, assistant, user
from windowmem.outlive.concurrent_runs import PairResult, Request, seed, stored_contents
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies.n8n import N8nSimpleMemory

#: The recipe's TTL on the lock key, in seconds.
RECIPE_TTL = 60
#: What the If node's other branch answers: the lock drops the message, so it asks for it again.
ONE_MOMENT = (
    "One moment, I'm still answering your last message. Please send this one again after my reply."
)


@dataclass(frozen=True)
class Arrival:
    """A request *name* arriving at second *at*, whose agent run takes *seconds* if it runs."""

    name: str
    at: float
    seconds: float


@dataclass(frozen=True)
class Outcome:
    """Whether the request *ran* the agent, the lock's *count* it saw, and the runs it *overlaps*.

    *expires_at* is the second the key would expire after this request's Increment (its
    ``EXPIRE``), unless a Delete or a later Increment comes first.
    """

    name: str
    count: int
    ran: bool
    overlaps: tuple[str, ...]
    expires_at: float


def admit(arrivals: Sequence[Arrival], ttl: float = RECIPE_TTL) -> tuple[Outcome, ...]:
    """Play *arrivals* on one session's lock key, with ``INCR`` + ``EXPIRE ttl`` and a Delete at each run's end."""
    if ttl <= 0:
        raise ValueError(f"ttl is the lock's expiry in seconds, above 0, got {ttl!r}")
    count = 0
    expires_at = 0.0
    running: list[tuple[str, float]] = []  # (name, end) of the runs the If let through
    outcomes: list[Outcome] = []
    for arrival in sorted(arrivals, key=lambda a: a.at):
        if arrival.seconds < 0:
            raise ValueError(
                f"{arrival.name}: a run takes 0 seconds or more, got {arrival.seconds!r}"
            )
        # A run that ended since the last arrival deleted the key (Delete after the agent),
        # after every increment so far, whoever made it.
        if any(end <= arrival.at for _, end in running):
            count = 0
        running = [r for r in running if r[1] > arrival.at]
        if arrival.at >= expires_at:
            count = 0  # the key expired: INCR creates it again
        count += 1
        expires_at = arrival.at + ttl  # EXPIRE after every INCR, refused or not
        ran = count == 1
        outcomes.append(
            Outcome(
                arrival.name,
                count,
                ran,
                tuple(n for n, _ in running) if ran else (),
                expires_at,
            )
        )
        if ran:
            running.append((arrival.name, arrival.at + arrival.seconds))
    return tuple(outcomes)


def run_with_lock(
    spec: StoreSpec,
    session: str,
    history: Sequence[Message],
    requests: Sequence[Request],
    arrivals: Sequence[Arrival],
    *,
    ttl: float = RECIPE_TTL,
    window: int = 5,
) -> PairResult:
    """The n8n agent behind the lock: what each request sent, the steps in time order, what is stored.

    A turned-away request sends nothing and stores nothing. Runs the lock let overlap are
    refused here (:func:`~windowmem.outlive.concurrent_runs.run_pair` plays those).
    """
    outcomes = {o.name: o for o in admit(arrivals, ttl)}
    if any(o.overlaps for o in outcomes.values()):
        raise ValueError(
            "two runs overlap despite the lock: play them with concurrent_runs.run_pair"
        )
    by_name = {r.name: r for r in requests}
    if set(by_name) != set(outcomes):
        raise ValueError(
            f"name one request per arrival: requests {sorted(by_name)}, arrivals {sorted(outcomes)}"
        )
    seed("n8n", spec, session, history)
    store = spec.n8n_history(session)
    sent: dict[str, tuple[str, ...]] = {}
    events: list[tuple[float, int, str]] = []
    for arrival in sorted(arrivals, key=lambda a: a.at):
        outcome = outcomes[arrival.name]
        step = "load" if outcome.ran else "answered “one moment”"
        events.append((arrival.at, 0, f"{arrival.name} Increment → {outcome.count}, {step}"))
        if outcome.ran:
            end = arrival.at + arrival.seconds
            events.append((end, 1, f"{arrival.name} write user, write reply, Delete"))
    for arrival in sorted(arrivals, key=lambda a: a.at):
        request = by_name[arrival.name]
        if not outcomes[arrival.name].ran:
            sent[request.name] = ()
            continue
        loaded = N8nSimpleMemory(window).load(store.get_messages())
        sent[request.name] = (*(m.content for m in loaded), request.user)
        store.add_messages([user(request.user), assistant(request.reply)])
    return PairResult(
        sent, tuple(text for _, _, text in sorted(events)), stored_contents("n8n", spec, session)
    )
