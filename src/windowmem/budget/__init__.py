"""The token-budget task: an agent answering questions over a corpus in a context of N tokens.

A deterministic simulation of the chapter "The window is the working memory": chunking,
BM25 search, reads, the unbounded / truncate / compact / retrieve overflow strategies,
the bill and a step-by-step trace of which facts the context holds. Its tables are in
:mod:`windowmem.frames`.

>>> result = run_task(help_centre(), budget=1000, strategy="compact")
>>> result.answered, result.bill.compactions > 0
(12, True)
"""

from windowmem.budget.context import Bill, Event, Item, ItemKind, Step
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
from windowmem.budget.prepared import Prepared, prepare
from windowmem.budget.strategies import OverflowStrategy, Summariser

__all__ = [
    "HELP_CENTRE",
    "Article",
    "Bill",
    "Corpus",
    "CorpusFormatError",
    "Event",
    "Item",
    "ItemKind",
    "OverflowStrategy",
    "Prepared",
    "Question",
    "Step",
    "Summariser",
    "TaskResult",
    "help_centre",
    "load_corpus",
    "prepare",
    "run_task",
]
