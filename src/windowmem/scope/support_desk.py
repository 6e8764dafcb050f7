"""The lesson's support desk: three customers of two shops, and what happens between their sessions.

Marta and Lucía write to TuTienda, Carlos to Ferretería Andina with the same user id as
Marta; something happens between the first session and the next (:data:`BETWEEN`),
and they come back. :func:`support_desk` gives that script for
:func:`windowmem.scope.shared_agent.run_script`.
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.errors import WindowMemError
from windowmem.scope.agent_stores import STORE_KINDS, StoreKind
from windowmem.scope.key_choices import TENANT_USER
from windowmem.scope.script import Customer, Event, Pause, Request, Restart
from windowmem.scope.shared_agent import Call, run_script

MARTA = Customer("Marta", tenant="tutienda", user_id="u-1")


#: Same user id as Marta, in another shop: a per-user key without the tenant merges them.
CARLOS = Customer("Carlos", tenant="ferreteria-andina", user_id="u-1")


LUCIA = Customer("Lucía", tenant="tutienda", user_id="u-2")


#: What can happen between the first session and the next, and the event that models it.
BETWEEN: dict[str, tuple[Event, ...]] = {
    "nothing": (),
    "the agent restarts": (Restart(),),
    "59 minutes pass": (Pause(59),),
    "61 minutes pass": (Pause(61),),
    "a night passes (14 hours)": (Pause(14 * 60),),
}


_FIRST_SESSION = (
    Request(
        MARTA, "m-1", "Hi, I'm Marta, my order is #6023.", "Thanks, Marta: I have order #6023 open."
    ),
    Request(
        CARLOS,
        "c-1",
        "Carlos Ruiz for Empanadas del Sur: we need 40 metres of hose.",
        "Noted, Carlos: 40 metres of hose for Empanadas del Sur.",
    ),
    Request(MARTA, "m-1", "Do you ship to Medellín?", "Yes, we deliver to Medellín."),
    Request(
        LUCIA,
        "l-1",
        "Lucía here, order #8841: I want the armchairs in green.",
        "Done: the armchairs on #8841 are now green.",
    ),
)


_NEXT_SESSION = (
    Request(MARTA, "m-2", "It's Marta again. What was my order number?", "Let me look, Marta."),
    Request(LUCIA, "l-1", "Which colour did I choose for the armchairs?", "One moment, Lucía."),
    Request(CARLOS, "c-1", "How much hose did we order?", "Checking your order, Carlos."),
)


def support_desk(between: str = "nothing") -> tuple[Event, ...]:
    """The lesson's script: three customers of two shops, something *between* two sessions, and their return.

    Marta (TuTienda, user ``u-1``) and Lucía (TuTienda, ``u-2``) and Carlos
    (Ferretería Andina, also ``u-1``) write; then *between* happens (a key of
    :data:`BETWEEN`); then Marta comes back in a new thread and the others continue theirs.

    >>> [type(e).__name__ for e in support_desk("the agent restarts")][3:6]
    ['Request', 'Restart', 'Request']
    """
    if between not in BETWEEN:
        raise WindowMemError(f"unknown interval {between!r}: use one of {', '.join(BETWEEN)}")
    return (*_FIRST_SESSION, *BETWEEN[between], *_NEXT_SESSION)


def marta_returns(store: StoreKind, between: Sequence[Event], window: int = 5) -> Call:
    """The call of Marta's return (her new chat ``m-2``) when *between* happens after the first session.

    The key is tenant + user, so her new chat reads her first chat's history; *store* is
    where it lives and *window* the interactions loaded. The call's ``window`` is what she
    receives.

    >>> len(marta_returns("in-process", BETWEEN["nothing"]).window)
    4
    >>> len(marta_returns("in-process", BETWEEN["the agent restarts"]).window)
    0
    """
    run = run_script(
        (*_FIRST_SESSION, *between, *_NEXT_SESSION), TENANT_USER.template, store, window=window
    )
    return next(call for call in run.calls if call.request.thread == "m-2")


#: The lesson's pause table: :data:`BETWEEN`, then a run in between on another key (Lucía's,
#: in her own chat) and on Marta's own (a question in her first chat).
RETURN_CASES: dict[str, tuple[Event, ...]] = {
    **BETWEEN,
    "50 min, Lucía writes, 20 min": (
        Pause(50),
        Request(LUCIA, "l-1", "Can the armchairs come on Friday?", "Yes, on Friday."),
        Pause(20),
    ),
    "40 min, Marta writes, 40 min": (
        Pause(40),
        Request(MARTA, "m-1", "Can I pay on delivery?", "Yes, you can."),
        Pause(40),
    ),
}


def returns_by_store(
    cases: dict[str, tuple[Event, ...]] | None = None,
) -> dict[StoreKind, dict[str, int]]:
    """Per store, how many earlier messages Marta's return receives after each of *cases*.

    *cases* defaults to :data:`RETURN_CASES`; the key is tenant + user, the window 5.

    >>> returns_by_store({"61 minutes pass": (Pause(61),)})
    {'in-process': {'61 minutes pass': 0}, 'sqlite': {'61 minutes pass': 4}}
    """
    chosen = RETURN_CASES if cases is None else cases
    return {
        store: {name: len(marta_returns(store, between).window) for name, between in chosen.items()}
        for store in STORE_KINDS
    }
