"""How long the ``windowmem`` command takes to start: each import side by side, in one run.

Run it from the repository root (a few seconds; figures printed, nothing asserted)::

    .venv/bin/python benchmarks/bench_cli_import.py            # 15 fresh interpreters each
    .venv/bin/python benchmarks/bench_cli_import.py --runs 40

Each contender is timed in fresh interpreters (``python -X importtime -c "import X"``), so
nothing is cached between runs, and the figure is Python's own cumulative import time for
the module, in milliseconds: the median and the fastest of the runs. Contenders:

* ``windowmem`` alone (messages, conversations, errors): the floor every command pays;
* ``windowmem.cli``: what ``windowmem window``, ``replay``, ``policies`` and ``examples`` import;
* ``windowmem.budget.cli``: what ``windowmem budget`` adds, the one heavy subcommand, which
  the command line imports only when it runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CONTENDERS = ("windowmem", "windowmem.cli", "windowmem.budget.cli")


def import_ms(module: str) -> float:
    """Python's cumulative import time of *module* in a fresh interpreter, in milliseconds."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in reversed(done.stderr.splitlines()):
        # "import time:  self [us] | cumulative | imported package"
        self_us, cumulative_us, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        if name == module:
            return int(cumulative_us) / 1000
    raise RuntimeError(f"python -X importtime printed no line for {module}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh interpreters per contender")
    args = parser.parse_args(argv)
    print(
        f"{'module':<24} {'median ms':>10} {'fastest ms':>11}   ({args.runs} fresh interpreters each)"
    )
    for module in CONTENDERS:
        times = [import_ms(module) for _ in range(args.runs)]
        print(f"{module:<24} {statistics.median(times):>10.1f} {min(times):>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
