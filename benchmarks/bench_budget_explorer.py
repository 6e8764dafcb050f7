"""How long one update of lesson 6's token-budget explorer takes (prints ms per update).

A frame at 60 Hz is 16.7 ms; the explorer should answer within one. Three kinds of
update are timed, each the pure work behind one widget event (no browser, no kernel
round trip), on the shipped help-centre corpus:

* step slider moved: the run is cached; build the view and its HTML;
* budget slider or policy moved to a run not seen before: run the task, then view and HTML;
* first view: chunk, index and search the corpus, run, view and HTML.

Usage: ``python benchmarks/bench_budget_explorer.py [--repeats 50]``
"""

from __future__ import annotations

import argparse
import statistics
import time

from windowmem.budget import help_centre, prepare
from windowmem.explorer.budget_cache import CHOICES, RunCache
from windowmem.explorer.budget_html import render_budget_html
from windowmem.explorer.budget_view import budget_view

FRAME_MS = 1000 / 60


def ms(seconds: float) -> float:
    return seconds * 1000


def update(runs: RunCache, budget: int, choice: str, step: int) -> str:
    """One widget event's pure work: the view of (budget, choice, step) and its HTML."""
    run = runs.run(budget, choice)
    view = budget_view(
        run,
        min(step, len(run.trace) - 1),
        choice=choice,
        scale=runs.scale(budget),
        prepared=runs.prepared,
    )
    return render_budget_html(view)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    corpus = help_centre()

    started = time.perf_counter()
    runs = RunCache(prepare(corpus))
    html = update(runs, 1500, "truncate", 10**6)
    first = ms(time.perf_counter() - started)

    runs.run(1500, "retrieve")  # the step slider moves over a run already made
    step_moves = []
    for i in range(args.repeats):
        started = time.perf_counter()
        update(runs, 1500, "retrieve", i)  # retrieve has the longest trace
        step_moves.append(ms(time.perf_counter() - started))

    run_moves = []
    choices = list(CHOICES)
    for i in range(args.repeats):
        fresh = RunCache(runs.prepared)  # nothing cached: every budget and policy runs the task
        started = time.perf_counter()
        update(fresh, 200 + 50 * (i % 60), choices[i % len(choices)], 10**6)
        run_moves.append(ms(time.perf_counter() - started))

    print(
        f"budget explorer update, help-centre corpus ({len(corpus.questions)} questions), HTML {len(html) / 1024:.0f} KiB"
    )
    print(
        f"  step slider moved:          median {statistics.median(step_moves):6.2f} ms  "
        f"max {max(step_moves):6.2f} ms  ({statistics.median(step_moves) / FRAME_MS:.2f} frames)"
    )
    print(
        f"  budget or policy moved:     median {statistics.median(run_moves):6.2f} ms  "
        f"max {max(run_moves):6.2f} ms  ({statistics.median(run_moves) / FRAME_MS:.2f} frames)"
    )
    print(
        f"  first view (cold):          {first:6.1f} ms  (chunking, BM25 index and search, one run)"
    )


if __name__ == "__main__":
    main()
