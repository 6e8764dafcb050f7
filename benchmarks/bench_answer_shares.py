"""How long the assignment tests take to measure a constant answer's share, whole and by part.

Prints figures; asserts only that both ways give the same share. The assignment tests of
lessons 2 and 4 run the instructor's notebook once per constant answer
(:func:`tests.answer_shares.part_shares`); scoring only the answer's own part skips the other
parts' hidden tests, most of the run. Each answer is measured both ways, one after the other,
so a machine that slows part-way slows both alike. Usage::

    .venv/bin/python benchmarks/bench_answer_shares.py [--answers 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.answer_shares import part_shares  # noqa: E402
from tests.assignments import test_lesson02_assignment, test_lesson04_assignment  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=6, help="constant answers per assignment")
    args = parser.parse_args()
    print(f"{'assignment':34} {'answers':>7} {'every part':>11} {'its part':>9}  (median s each)")
    for module in (test_lesson02_assignment, test_lesson04_assignment):
        constants = module.CONSTANT_ANSWERS
        chosen = [(part, name) for part, answers in constants.items() for name in answers]
        # spread over the parts: their hidden tests differ in cost
        chosen = chosen[:: max(1, len(chosen) // args.answers)][: args.answers]
        whole, own = [], []
        for part, name in chosen:
            answers, _ = constants[part][name]
            started = time.perf_counter()
            every = part_shares(module.ASSIGNMENT, answers)[part]
            whole.append(time.perf_counter() - started)
            started = time.perf_counter()
            alone = part_shares(module.ASSIGNMENT, answers, parts={part})[part]
            own.append(time.perf_counter() - started)
            assert every == alone, (module.ASSIGNMENT, part, name, every, alone)
        print(
            f"{module.ASSIGNMENT:34} {len(chosen):>7} {statistics.median(whole):>11.1f} "
            f"{statistics.median(own):>9.1f}"
        )


if __name__ == "__main__":
    main()
