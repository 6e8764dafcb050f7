"""Grade the same class three times, once beside two busy loops: are the grades the same?

Prints what differs; asserts nothing. The class is the test suite's fixture class (correct,
blank, cheating, looping, flooding and broken notebooks: ``tests/fixtures/make_submissions``).
Run two is graded while two processes spin on the CPU, so a limit that counted the clock
instead of the kernel's CPU time, or output that cost the kernel time after its cap, would
show up as a different status or score. Usage::

    .venv/bin/python benchmarks/bench_same_grades.py [--jobs 2] [--timeout 30]
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

ASSIGNMENT = "lesson03_window_buffer"


def spin() -> None:
    while True:
        pass


def grade(classdir: Path, out: Path, jobs: int, timeout: int) -> tuple[float, list[dict]]:
    """Seconds ``grade`` took, and the rows of its grades.csv."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    command = [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--submissions"]
    command += [str(classdir), "--out", str(out), "--jobs", str(jobs), "--timeout", str(timeout)]
    start = time.perf_counter()
    subprocess.run([*command, "--no-progress"], cwd=REPO_ROOT, env=env, capture_output=True)
    seconds = time.perf_counter() - start
    with (out / "grades.csv").open(newline="") as file:
        return seconds, list(csv.DictReader(file))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=30)
    args = parser.parse_args(argv)
    from tests.fixtures import make_submissions

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_submissions.make_class(root / "class", ASSIGNMENT)
        runs = []
        for number, busy in ((1, 0), (2, 2), (3, 0)):
            spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(busy)]
            for spinner in spinners:
                spinner.start()
            try:
                seconds, rows = grade(
                    root / "class", root / f"out{number}", args.jobs, args.timeout
                )
            finally:
                for spinner in spinners:
                    spinner.kill()
                    spinner.join()
            runs.append(rows)
            flood = next((r for r in rows if r["student_id"] == "flood"), {})
            print(
                f"run {number} ({busy} busy loops beside it): {seconds:.0f} s, {len(rows)} rows; "
                f"flood: {flood.get('status')} {flood.get('score')}/{flood.get('max_score')}",
                flush=True,
            )
        first = runs[0]
        for number, rows in enumerate(runs[1:], start=2):
            if rows == first:
                print(f"run {number}: grades.csv identical to run 1")
                continue
            for a, b in zip(first, rows):
                if a != b:
                    changed = {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
                    print(f"run {number}: {a['student_id']} differs: {changed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
