"""How often two requests on one conversation overlap by themselves, per product and store.

Two real processes start each pair together at a barrier, with no forced schedule, and
``windowmem.outlive.concurrent_runs.trials`` counts the pairs whose prompts missed the other
request, whose rows interleaved (n8n), and which lost a message (Spring AI). A
simulated model call of 0 and 20 ms sits between each load and its write. SQLite
always; PostgreSQL when ``WINDOWMEM_POSTGRES_URL`` is set, and then also the forced
overlap of two Spring AI ``saveAll`` transactions (``overlapping_saves.overlapping_save_alls``) and
the rows it leaves. Prints figures; asserts nothing:

    eval "$(bash .ci/services.sh)"; .venv/bin/python benchmarks/bench_races.py
"""

from __future__ import annotations

import os
import tempfile
import uuid

from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive import overlapping_saves
from windowmem.outlive.product_stores import StoreSpec

TRIALS = 200
MODEL_SECONDS = (0.0, 0.02)
HISTORY = [user("u1 I'm Marta, order #6023"), assistant("a1 Noted, Marta")]


def main() -> None:
    folder = tempfile.mkdtemp(prefix="bench-races-")
    locations = {"SQLite": os.path.join(folder, "races.db")}
    if os.environ.get("WINDOWMEM_POSTGRES_URL"):
        locations["PostgreSQL"] = os.environ["WINDOWMEM_POSTGRES_URL"]
    print(f"{TRIALS} unforced pairs per row: blind = both prompts missed the other request")
    print(
        f"{'store':<11} {'product':<10} {'model ms':>8} {'blind':>6} {'interleaved':>12} {'lost':>6} {'extra rows':>11}"
    )
    for store, location in locations.items():
        for product, kind in (("n8n", "n8n-sql"), ("spring-ai", "spring-jdbc")):
            for seconds in MODEL_SECONDS:
                counts = races.trials(
                    product, StoreSpec(kind, location), TRIALS, HISTORY,
                    model_seconds=seconds, prefix=f"bench-{uuid.uuid4().hex[:8]}",
                )  # fmt: skip
                print(
                    f"{store:<11} {product:<10} {seconds * 1000:>8g} {counts.blind:>6} "
                    f"{counts.interleaved:>12} {counts.lost:>6} {counts.duplicated:>11}"
                )
    if "PostgreSQL" in locations:
        stored = overlapping_saves.overlapping_save_alls(
            locations["PostgreSQL"], f"bench-dup-{uuid.uuid4().hex[:8]}", HISTORY,
            user("question A"), user("question B"),
        )  # fmt: skip
        print(
            f"PostgreSQL, two saveAll transactions forced to overlap: {len(HISTORY) + 1} rows"
            f" written by each, {len(stored)} stored: {' | '.join(stored)}"
        )


if __name__ == "__main__":
    main()
