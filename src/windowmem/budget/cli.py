"""``windowmem budget``: run the token-budget task on a corpus and print the bill.

::

    windowmem budget [CORPUS | --corpus help-centre] --budget 1500 --policy compact
                     [--summariser perfect|lossy] [--questions 12] [--seed 23]
                     [--format table|json] [--trace]

CORPUS is a corpus JSON file (the reference ``corpus.json`` shape) or a folder of
articles with ``questions.json``; without one the course's help-centre corpus is used.
Bad input exits with status 2, one line on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from windowmem.budget.corpus import HELP_CENTRE, load_corpus
from windowmem.budget.engine import TaskResult, run_task
from windowmem.budget.policies import SUMMARY_SEED, Policy, Summariser
from windowmem.budget.prepared import prepare
from windowmem.budget.task import TASK_QUESTIONS
from windowmem.errors import WindowMemError

#: Exit status for bad input, as argparse uses.
USAGE_ERROR = 2

#: The chapter's budget, used when ``--budget`` is not given.
DEFAULT_BUDGET = 1500


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``budget`` subcommand to the ``windowmem`` command's *subparsers*."""
    parser = subparsers.add_parser(
        "budget", help="run the twelve-question task in a window of N tokens and print its bill"
    )
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
        default=str(DEFAULT_BUDGET),
        metavar="N",
        help=f"window budget in tokens (default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--policy",
        default=Policy.TRUNCATE.value,
        metavar="|".join(p.value for p in Policy),
        help="what to do when the window is over budget (default truncate)",
    )
    parser.add_argument(
        "--summariser",
        default=Summariser.PERFECT.value,
        metavar="perfect|lossy",
        help="how compaction keeps facts (default perfect)",
    )
    parser.add_argument(
        "--questions", default=str(TASK_QUESTIONS), metavar="N", help="task size (default 12)"
    )
    parser.add_argument(
        "--seed",
        default=str(SUMMARY_SEED),
        metavar="S",
        help=f"lossy summariser seed (default {SUMMARY_SEED})",
    )
    parser.add_argument(
        "--format", default="table", metavar="table|json", help="output format (default table)"
    )
    parser.add_argument(
        "--trace", action="store_true", help="also print every step: event, window size, facts held"
    )
    parser.set_defaults(func=run)
    return parser


def _whole_number(text: str, option: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise WindowMemError(f"{option} must be a whole number, got {text!r}") from None
    if value < minimum:
        raise WindowMemError(f"{option} must be at least {minimum}, got {value}")
    return value


def _corpus_argument(args: argparse.Namespace) -> str:
    if args.corpus is not None and args.corpus_option is not None:
        raise WindowMemError("give the corpus once: either CORPUS or --corpus, not both")
    return args.corpus or args.corpus_option or HELP_CENTRE


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


def run(args: argparse.Namespace) -> int:
    """Run the subcommand: 0 with the result on stdout, or 2 with one line on stderr."""
    try:
        if args.format not in ("table", "json"):
            raise WindowMemError(f"--format must be table or json, got {args.format!r}")
        budget = _whole_number(args.budget, "--budget", 1)
        size = _whole_number(args.questions, "--questions", 1)
        seed = _whole_number(args.seed, "--seed", 0)
        prepared = prepare(load_corpus(_corpus_argument(args)), size)
        result = run_task(prepared, budget, args.policy, args.summariser, seed)
    except WindowMemError as error:
        print(f"windowmem budget: error: {' '.join(str(error).split())}", file=sys.stderr)
        return USAGE_ERROR
    if args.format == "json":
        sys.stdout.write(
            json.dumps(result.as_dict(trace=args.trace), ensure_ascii=False, indent=1) + "\n"
        )
    else:
        sys.stdout.write(format_table(result, args.trace))
    return 0
