"""Overflow strategies: what the budget agent does when its context is over budget, and how
its summariser loses facts. (Not window policies: those are :mod:`windowmem.policies`,
the rules of real products' memories; these are the chapter's four ways out of overflow.)

* ``unbounded``: nothing; the window just grows.
* ``truncate``: drop the oldest read (or the oldest summary line), never the newest read.
* ``compact``: one extra call summarises every read but the latest into a fact per line.
* ``retrieve``: truncate, then search again before answering a question whose fact is gone.
* ``compact+retrieve``: compact, and search again before answering.
* ``just-in-time``: keep only a one-line reference to each read the model has seen, and
  read it again by its id when a question needs it; over budget, drop the oldest references.

>>> OverflowStrategy("compact+retrieve").compacts, OverflowStrategy("compact+retrieve").retrieves
(True, True)
"""

from __future__ import annotations

from enum import StrEnum

from windowmem.errors import BudgetError

#: The seed of the lossy summariser's generator: one generator per run, seeded here.
SUMMARY_SEED = 23

#: A lossy summariser drops a line when its draw falls below this (keeps it with p = 0.75).
LOSSY_DROP_BELOW = 0.25


class OverflowStrategy(StrEnum):
    """What the agent does when its context has gone over its token budget."""

    UNBOUNDED = "unbounded"
    TRUNCATE = "truncate"
    COMPACT = "compact"
    RETRIEVE = "retrieve"
    COMPACT_RETRIEVE = "compact+retrieve"
    JUST_IN_TIME = "just-in-time"

    @property
    def bounded(self) -> bool:
        """Whether the strategy acts at all when the context is over budget."""
        return self is not OverflowStrategy.UNBOUNDED

    @property
    def compacts(self) -> bool:
        """Whether overflow is answered by a summary call rather than by dropping reads."""
        return self in (OverflowStrategy.COMPACT, OverflowStrategy.COMPACT_RETRIEVE)

    @property
    def just_in_time(self) -> bool:
        """Whether reads the model has seen become references, read again by id when needed.

        Unlike the others, this strategy acts at every call, over budget or not.
        """
        return self is OverflowStrategy.JUST_IN_TIME

    @property
    def retrieves(self) -> bool:
        """Whether a question whose fact has gone is read again (searched, or by id) before it is answered."""
        return self in (
            OverflowStrategy.RETRIEVE,
            OverflowStrategy.COMPACT_RETRIEVE,
            OverflowStrategy.JUST_IN_TIME,
        )


class Summariser(StrEnum):
    """How faithfully a compaction keeps the facts it summarises."""

    PERFECT = "perfect"
    LOSSY = "lossy"


def strategy_named(name: str | OverflowStrategy) -> OverflowStrategy:
    """The strategy called *name*, or a BudgetError listing the names there are."""
    try:
        return OverflowStrategy(name)
    except ValueError:
        raise BudgetError(
            f"unknown overflow strategy {name!r}: use one of "
            f"{', '.join(s.value for s in OverflowStrategy)}"
        ) from None


def summariser_named(name: str | Summariser) -> Summariser:
    """The summariser called *name*, or a BudgetError listing the names there are."""
    try:
        return Summariser(name)
    except ValueError:
        raise BudgetError(
            f"unknown summariser {name!r}: use one of {', '.join(s.value for s in Summariser)}"
        ) from None
