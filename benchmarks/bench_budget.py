"""How fast the budget engine is: preparing a corpus, the full reference table, one run per
policy, pricing a run on three models with the prompt cache, a trace lookup.

Prints figures; asserts nothing. Uses the reference corpus from ../shared when it is
there, else the course's help-centre corpus. Run on one core:

    taskset -c 0 .venv/bin/python benchmarks/bench_budget.py
"""

from __future__ import annotations

import sys
import time
import timeit
from pathlib import Path

REFERENCE = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "reference"
    / "agent-context"
    / "corpus.json"
)
REPEATS = 5


def seconds(action) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def main() -> int:
    started = time.perf_counter()
    import_time, budget = seconds(lambda: __import__("windowmem.budget", fromlist=["run_task"]))
    from windowmem.budget.prepared import _searched, prepare
    from windowmem.budget.task import REFERENCE_BUDGETS
    from windowmem.tokens import count_text

    pandas_time, frames = seconds(
        lambda: __import__("windowmem.frames", fromlist=["reference_table"])
    )
    corpus_time, corpus = seconds(
        lambda: budget.load_corpus(REFERENCE) if REFERENCE.is_file() else budget.help_centre()
    )
    tokenizer_time, _ = seconds(lambda: count_text("warm up the tokenizer"))
    prepare_time, prepared = seconds(lambda: prepare(corpus))
    first_table_time, table = seconds(lambda: frames.reference_table(prepared, REFERENCE_BUDGETS))
    cold_total = time.perf_counter() - started

    table_times = [
        seconds(lambda: frames.reference_table(prepared, REFERENCE_BUDGETS))[0]
        for _ in range(REPEATS)
    ]
    runs = len(table)
    prepare.cache_clear()
    _searched.cache_clear()
    warm_prepare_time, _ = seconds(lambda: prepare(corpus))  # token counts cached, the rest redone

    from windowmem.budget.money import policy_costs
    from windowmem.budget.strategies import OverflowStrategy

    per_policy = {
        policy.value: min(
            seconds(lambda policy=policy: budget.run_task(prepared, 1500, policy))[0]
            for _ in range(REPEATS)
        )
        for policy in OverflowStrategy
    }
    runs_at_1500 = [budget.run_task(prepared, 1500, policy) for policy in OverflowStrategy]
    pricing_times = [seconds(lambda: policy_costs(runs_at_1500))[0] for _ in range(REPEATS)]

    result = budget.run_task(prepared, 1500, "retrieve")
    steps = len(result.trace)
    lookups = 100_000
    lookup = timeit.timeit(
        lambda: (result.trace[steps // 2].used, result.trace[steps // 2].facts), number=lookups
    )

    print(
        f"corpus: {corpus.name} ({len(corpus.articles)} articles, {len(corpus.questions)} questions, {len(prepared.chunks)} chunks)"
    )
    print(f"import windowmem.budget          {import_time * 1000:8.1f} ms")
    print(f"import windowmem.frames (pandas) {pandas_time * 1000:8.1f} ms")
    print(f"load corpus                      {corpus_time * 1000:8.1f} ms")
    print(f"load Qwen tokenizer              {tokenizer_time * 1000:8.1f} ms")
    print(
        f"prepare (pieces, chunks, BM25)   {prepare_time * 1000:8.1f} ms   again with warm token cache {warm_prepare_time * 1000:.1f} ms"
    )
    print(
        f"reference table, {runs} runs       {first_table_time * 1000:8.1f} ms   best of {REPEATS} more {min(table_times) * 1000:.1f} ms"
    )
    print(
        f"prepare + first table            {(prepare_time + first_table_time) * 1000:8.1f} ms   (budget: under 2,000 ms on one core)"
    )
    print(
        f"cold start to full table         {cold_total * 1000:8.1f} ms   (with every import and the vocabulary load)"
    )
    for policy, spent in per_policy.items():
        print(f"one run at 1,500, {policy:<17} {spent * 1000:8.1f} ms   best of {REPEATS}")
    print(
        f"price {len(runs_at_1500)} runs on 3 models (cache) {min(pricing_times) * 1000:8.1f} ms   best of {REPEATS}"
    )
    print(
        f"trace lookup (used + facts)      {lookup / lookups * 1e6:8.2f} µs   ({steps} steps in a retrieve run)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
