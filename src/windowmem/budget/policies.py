"""What the agent does when its window is over budget, and how its summariser loses facts.

* ``unbounded``: nothing; the window just grows.
* ``truncate``: drop the oldest read (or the oldest summary line), never the newest read.
* ``compact``: one extra call summarises every read but the latest into a fact per line.
* ``retrieve``: truncate, then search again before answering a question whose fact is gone.
* ``compact+retrieve``: compact, and search again before answering.

>>> Policy("compact+retrieve").compacts, Policy("compact+retrieve").retrieves
(True, True)
"""

from __future__ import annotations

from enum import StrEnum

from windowmem.errors import PolicyError

#: The seed of the lossy summariser's generator: one generator per run, seeded here.
SUMMARY_SEED = 23

#: A lossy summariser drops a line when its draw falls below this (keeps it with p = 0.75).
LOSSY_DROP_BELOW = 0.25


class Policy(StrEnum):
    """A rule for a window that has gone over its token budget."""

    UNBOUNDED = "unbounded"
    TRUNCATE = "truncate"
    COMPACT = "compact"
    RETRIEVE = "retrieve"
    COMPACT_RETRIEVE = "compact+retrieve"

    @property
    def bounded(self) -> bool:
        """Whether the policy acts at all when the window is over budget."""
        return self is not Policy.UNBOUNDED

    @property
    def compacts(self) -> bool:
        """Whether overflow is answered by a summary call rather than by dropping reads."""
        return self in (Policy.COMPACT, Policy.COMPACT_RETRIEVE)

    @property
    def retrieves(self) -> bool:
        """Whether a question whose fact has gone is searched again before it is answered."""
        return self in (Policy.RETRIEVE, Policy.COMPACT_RETRIEVE)


class Summariser(StrEnum):
    """How faithfully a compaction keeps the facts it summarises."""

    PERFECT = "perfect"
    LOSSY = "lossy"


def policy_named(name: str | Policy) -> Policy:
    """The policy called *name*, or a PolicyError listing the names there are."""
    try:
        return Policy(name)
    except ValueError:
        raise PolicyError(
            f"unknown budget policy {name!r}: use one of {', '.join(p.value for p in Policy)}"
        ) from None


def summariser_named(name: str | Summariser) -> Summariser:
    """The summariser called *name*, or a PolicyError listing the names there are."""
    try:
        return Summariser(name)
    except ValueError:
        raise PolicyError(
            f"unknown summariser {name!r}: use one of {', '.join(s.value for s in Summariser)}"
        ) from None
