"""``windowmem budget``: run the token-budget task on a corpus and print the bill.

::

    windowmem budget [CORPUS | --corpus help-centre] --budget 1500 --policy compact
                     [--summariser perfect|lossy] [--questions 12] [--seed 23]
                     [--format table|json] [--trace]

CORPUS is a corpus JSON file (the reference ``corpus.json`` shape) or a folder of
articles with ``questions.json``; without one the course's help-centre corpus is used.
``--policy`` names the overflow strategy (the chapter's word for it). Like every
subcommand, :func:`run` returns the text to print and raises
:class:`~windowmem.errors.WindowMemError` on bad input, which the command reports as
one line on stderr with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from windowmem.arguments import at_least
from windowmem.budget.corpus import HELP_CENTRE, load_corpus
from windowmem.budget.engine import TaskResult, run_task
from windowmem.budget.prepared import prepare
from windowmem.budget.strategies import SUMMARY_SEED, OverflowStrategy, Summariser
from windowmem.budget.task import TASK_QUESTIONS
from windowmem.errors import WindowMemError

#: The chapter's budget, used when ``--budget`` is not given.
DEFAULT_BUDGET = 1500

#: The output formats ``--format`` takes.
FORMATS = ("table", "json")


def register(subparsers: Any, help_text: str) -> argparse.ArgumentParser:
    """Add the ``budget`` subcommand, listed with *help_text*, to the ``windowmem`` command's *subparsers*."""
    parser: argparse.ArgumentParser = subparsers.add_parser("budget", help=help_text)
    parser.add_argument(
        "corpus",
        nargs="?",
        default=None,
        metavar="CORPUS",
        help=f"corpus JSON file or folder (default: the shipped {HELP_CENTRE!r} corpus)",
    )
    parser.add_argument(
        "--corpus",
        dest="corpus_option",
        default=None,
        metavar="CORPUS",
        help=f"the same as CORPUS; {HELP_CENTRE!r} selects the shipped corpus",
    )
    parser.add_argument(
        "--budget",
        type=at_least(1),
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"window budget in tokens (default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--policy",
        choices=[strategy.value for strategy in OverflowStrategy],
        default=OverflowStrategy.TRUNCATE.value,
        metavar="|".join(strategy.value for strategy in OverflowStrategy),
        help="what to do when the window is over budget (default truncate)",
    )
    parser.add_argument(
        "--summariser",
        choices=[summariser.value for summariser in Summariser],
        default=Summariser.PERFECT.value,
        metavar="perfect|lossy",
        help="how compaction keeps facts (default perfect)",
    )
    parser.add_argument(
        "--questions",
        type=at_least(1),
        default=TASK_QUESTIONS,
        metavar="N",
        help="task size (default 12)",
    )
    parser.add_argument(
        "--seed",
        type=at_least(0),
        default=SUMMARY_SEED,
        metavar="S",
        help=f"lossy summariser seed (default {SUMMARY_SEED})",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        metavar="table|json",
        help="output format (default table)",
    )
    parser.add_argument(
        "--trace", action="store_true", help="also print every step: event, window size, facts held"
    )
    parser.set_defaults(func=run)
    return parser


def _corpus_argument(args: argparse.Namespace) -> str:
    if args.corpus is not None and args.corpus_option is not None:
        raise WindowMemError("give the corpus once: either CORPUS or --corpus, not both")
    return str(args.corpus or args.corpus_option or HELP_CENTRE)


def format_table(result: TaskResult, trace: bool = False) -> str:
    """A result as aligned ``name  value`` lines, then the steps if *trace*."""
    rows = [(key, value) for key, value in result.as_dict().items()]
    width = max(len(key) for key, _ in rows)
    lines = [
        f"{key:<{width}}  {' '.join(map(str, value)) if isinstance(value, list) else value}"
        for key, value in rows
    ]
    if trace:
        lines.append("")
        lines.append(f"{'step':>4}  {'event':<8}  {'used':>5}  {'facts':>5}  detail")
        lines.extend(
            f"{s.number:>4}  {s.event.value:<8}  {s.used:>5}  {len(s.facts):>5}  {s.detail}"
            for s in result.trace
        )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> str:
    """The text ``windowmem budget`` prints: the run's bill as a table or as JSON."""
    prepared = prepare(load_corpus(_corpus_argument(args)), args.questions)
    result = run_task(prepared, args.budget, args.policy, args.summariser, args.seed)
    if args.format == "json":
        return json.dumps(result.as_dict(trace=args.trace), ensure_ascii=False, indent=1) + "\n"
    return format_table(result, args.trace)
