"""Many runs side by side: one row per budget, policy and summariser.

>>> from windowmem.budget.corpus import help_centre
>>> table = reference_table(help_centre(), budgets=[1000], policies=["truncate", "compact"])
>>> table[["policy", "summariser", "answered"]].to_string(index=False)
'  policy summariser  answered\\ntruncate    perfect         3\\n compact    perfect        12\\n compact      lossy         5'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from windowmem.budget.corpus import Corpus
from windowmem.budget.engine import TaskResult, run_task
from windowmem.budget.policies import (
    SUMMARY_SEED,
    Policy,
    Summariser,
    policy_named,
    summariser_named,
)
from windowmem.budget.prepared import Prepared, prepare

if TYPE_CHECKING:
    import pandas as pd

#: The budgets the chapter compares.
REFERENCE_BUDGETS = (1000, 1500, 2000, 3000)

#: The columns of a table, in order.
COLUMNS = (
    "budget",
    "policy",
    "summariser",
    "answered",
    "input_tokens",
    "output_tokens",
    "calls",
    "reads",
    "compactions",
    "peak",
)


def reference_table(
    corpus: Corpus | Prepared,
    budgets: Iterable[int] = REFERENCE_BUDGETS,
    policies: Iterable[str | Policy] = tuple(Policy),
    summarisers: Iterable[str | Summariser] = tuple(Summariser),
    seed: int = SUMMARY_SEED,
) -> pd.DataFrame:
    """A run per budget and policy, and per summariser for the policies that compact."""
    # pandas takes half a second to import: only pay for it when a table is asked for.
    import pandas as pd

    prepared = corpus if isinstance(corpus, Prepared) else prepare(corpus)
    chosen_policies = [policy_named(p) for p in policies]
    chosen_summarisers = [summariser_named(s) for s in summarisers]
    rows = []
    for budget in budgets:
        for policy in chosen_policies:
            # A summariser only matters when the policy summarises.
            for summariser in chosen_summarisers if policy.compacts else [Summariser.PERFECT]:
                result = run_task(prepared, budget, policy, summariser, seed)
                rows.append(
                    {**result.as_dict(), "policy": policy.value, "summariser": summariser.value}
                )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def trace_table(result: TaskResult) -> pd.DataFrame:
    """One row per step of *result*: the event, the window's size, the facts it holds, the bill so far.

    >>> from windowmem.budget.corpus import help_centre
    >>> frame = trace_table(run_task(help_centre(), 1000, "truncate"))
    >>> list(frame.columns), frame["event"].iloc[0]
    (['step', 'event', 'question', 'detail', 'used', 'facts_known', 'facts', 'input_tokens'], 'start')
    """
    import pandas as pd

    rows = [
        {
            "step": step.number,
            "event": step.event.value,
            "question": step.question,
            "detail": step.detail,
            "used": step.used,
            "facts_known": len(step.facts),
            "facts": tuple(sorted(step.facts)),
            "input_tokens": step.bill.input_tokens,
        }
        for step in result.trace
    ]
    frame = pd.DataFrame(rows)
    frame["question"] = frame["question"].astype("Int64")  # the start and the final call have none
    return frame
