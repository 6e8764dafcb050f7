"""The token-budget task: an agent answering questions over a corpus in a window of N tokens.

A deterministic simulation of the chapter "The window is the working memory": chunking,
BM25 search, reads, the unbounded / truncate / compact / retrieve policies, the bill
and a step-by-step trace of which facts the window holds.

>>> result = run_task(help_centre(), budget=1000, policy="compact")
>>> result.answered, result.bill.compactions > 0
(12, True)
"""

from windowmem.budget.corpus import (
    HELP_CENTRE,
    Article,
    Corpus,
    CorpusFormatError,
    Question,
    help_centre,
    load_corpus,
)
from windowmem.budget.engine import TaskResult, run_task
from windowmem.budget.policies import Policy, Summariser
from windowmem.budget.prepared import Prepared, prepare
from windowmem.budget.table import reference_table, trace_table
from windowmem.budget.window import Bill, Event, Item, ItemKind, Step

__all__ = [
    "HELP_CENTRE",
    "Article",
    "Bill",
    "Corpus",
    "CorpusFormatError",
    "Event",
    "Item",
    "ItemKind",
    "Policy",
    "Prepared",
    "Question",
    "Step",
    "Summariser",
    "TaskResult",
    "help_centre",
    "load_corpus",
    "prepare",
    "reference_table",
    "run_task",
    "trace_table",
]
