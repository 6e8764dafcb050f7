"""How fast the autograder grades a class, against the floor and against stock nbgrader.

Prints figures; asserts nothing. A generated class of ``--students`` submissions (40 by
default; correct, blank, always-equal and deleted-test notebooks in turn, none looping)
is graded four ways, each timed from the shell's point of view (wall seconds, so tool
start-up counts):

* floor: the same submitted notebooks executed bare with nbclient, one process, one
  notebook after another (kernel start + the student's cells), and on every core;
* floor as graded: the notebooks the autograder executed (its ``--jobs 1`` run's
  ``autograded/`` copies: the submission with the hidden tests restored), executed bare
  the same way, beside the assignment's files (its data and the hidden tests' support
  module, so the hidden tests run whole, in the kernel): the work no grader can skip
  (the student's cells and every hidden test), so the fair floor for grading's speed;
* ``python -m autograder grade`` with ``--jobs 1`` and with ``--jobs`` = every core, each
  with the per-student sandbox (the default) and with ``--no-sandbox``, side by side;
* stock ``nbgrader autograde`` over the whole class (its only mode: one student after
  another), and on every core as one stock process per slice of the class sharing the
  gradebook (what an instructor could script by hand).

Each row also gives the CPU seconds the run used per submission, on any core, counted in a
cgroup v1 cpuacct group around it (see :func:`cpu_seconds`): the work each way costs,
which bounds what more cores can give. The per-stage profile adds the worker's own CPU
seconds and, where the kernel is the worker's child (``--no-sandbox``), the kernel's.

It also times the tools' start-up costs the autograder removes: ``import nbformat`` in a
fresh interpreter with and without ``autograder.startup``, and creating a gradebook with
nbgrader's ``alembic heads`` subprocess and with the in-process read. Usage::

    .venv/bin/python benchmarks/bench_autograder.py [--students 40] [--skip-stock] [--repeat 3]
        [--one-job] [--baseline ../main]

With ``--repeat``, every row is measured once per round, the rounds run one after another
(a machine that slows part-way slows every row alike), and each figure is the row's median;
``--baseline``'s row and this checkout's take turns running first (:func:`in_turn`).
``--baseline`` times another checkout's ``grade --jobs 1`` in the same rounds (a change
against main, side by side on the same load); ``--one-job`` keeps the one-job rows only.

The sandboxed rows need root, bubblewrap and cgroup v1 (see autograder/sandbox/).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

ASSIGNMENT = "lesson03_window_buffer"
NOTEBOOK = "window_buffer"
#: The students the generated class cycles through: every notebook runs to its end.
KINDS = ("correct", "blank", "always_equal", "tests_deleted")
BIN = Path(sys.executable).parent


def make_class(folder: Path, students: int) -> list[Path]:
    """*students* submissions in nbgrader's layout; their notebook paths."""
    from tests.fixtures import make_submissions

    kinds = folder / "_kinds"
    make_submissions.make_class(kinds, ASSIGNMENT)
    paths = []
    for number in range(students):
        kind = KINDS[number % len(KINDS)]
        target = folder / "class" / f"s{number:03d}_{kind}" / ASSIGNMENT
        target.mkdir(parents=True)
        shutil.copy(kinds / kind / ASSIGNMENT / f"{NOTEBOOK}.ipynb", target)
        paths.append(target / f"{NOTEBOOK}.ipynb")
    shutil.rmtree(kinds)
    return paths


def assignment_files(here: Path) -> None:
    """Copy the instructor's assignment folder, less its notebooks, into *here*.

    Its data files, and ``hidden_support.py``, the helpers every hidden test imports first:
    without it a graded copy's hidden tests stop at their first line, and the floor as
    graded would time none of their work.
    """
    source = REPO_ROOT / "source" / ASSIGNMENT
    for item in source.iterdir():
        if item.is_dir():
            shutil.copytree(item, here / item.name)
        elif item.suffix != ".ipynb":
            shutil.copy(item, here / item.name)


def run_bare(path: str) -> None:
    """Execute one notebook with nbclient beside the assignment's files (see :func:`assignment_files`)."""
    import nbformat
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory() as here:
        assignment_files(Path(here))
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:  # an autograded copy holds its outputs: start clean
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        NotebookClient(
            notebook, timeout=600, allow_errors=True, resources={"metadata": {"path": here}}
        ).execute()


def _quiet() -> None:
    """Send a pool process's stderr (and its kernels': each warns of plain TCP) to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)


def floor(paths: list[Path], workers: int) -> float:
    """Wall seconds to execute every notebook bare, *workers* at a time (pool start-up included)."""
    start = time.perf_counter()
    with ProcessPoolExecutor(workers, initializer=_quiet) as pool:
        list(pool.map(run_bare, [str(p) for p in paths]))
    return time.perf_counter() - start


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def autograder(
    classdir: Path, out: Path, jobs: int, sandboxed: bool = True, checkout: Path = REPO_ROOT
) -> float:
    """Wall seconds for ``python -m autograder grade``, run from *checkout* (this one by default)."""
    seconds, done = timed(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            ASSIGNMENT,
            "--submissions",
            str(classdir),
            "--out",
            str(out),
            "--jobs",
            str(jobs),
            "--no-progress",
            *([] if sandboxed else ["--no-sandbox"]),
        ],
        checkout,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"autograder failed:\n{done.stderr[-3000:]}")
    return seconds


#: The stages of the profile, in the order a submission meets them, and what each is.
STAGES = (
    ("set-up: cgroup and files", "grader: the student's cgroup, files and private gradebook"),
    ("kernel: launch", "worker: bwrap + kernel process started"),
    (
        "slot: waiting for the turn",
        "worker: bookkeeping done, kernel up, waiting for a free slot (not in autograde)",
    ),
    ("kernel: wait until ready", "worker: until the kernel answers (its imports)"),
    ("guard: install", "worker: the guard and the stream cap sent into the kernel"),
    ("guard: restore", "worker: restore + re-import sent before each test cell (judge: unwaited)"),
    ("guard: probe", "worker: the probe before each test cell (older runs)"),
    (
        "guard: restore + probe",
        "worker: both, sent together, once before the judge (before each test cell without it)",
    ),
    ("cells", "worker: the notebook's own cells"),
    (
        "judge",
        "worker: the hidden tests, run by the judge (set-up cells, tests, calls into the kernel)",
    ),
    ("sandbox: end", "worker: kernel shut down, cgroup emptied and read, slot given back"),
    ("autograde", "worker: nbgrader autograde in all (the rows above included, less the wait)"),
    ("feedback", "worker: nbgrader generate_feedback (HTML)"),
    ("worker: wall clock", "grader: the worker process, fork to exit"),
    ("records: class gradebook", "grader: merge into the class gradebook, copy results"),
    ("cpu: worker", "CPU seconds of the worker process (nbgrader, guard, feedback)"),
    ("cpu: kernel", "CPU seconds of the student's kernel (outside the sandbox only)"),
)


def stage_profile(outs: list[Path]) -> dict[str, float]:
    """Mean seconds per graded submission of each stage, read from the logs ``grade`` wrote in *outs*."""
    totals: dict[str, list[float]] = {}
    for log in sorted(log for out in outs for log in (out / "logs").glob("*.log")):
        first = log.read_text(errors="replace").split("\n", 1)[0]
        if not first.startswith("== seconds: ") or "autograde" not in first:
            continue
        for name, value in re.findall(r"([^,]+?) (-?[0-9.]+) s(?:, |$)", first[12:]):
            totals.setdefault(name, []).append(float(value))
    return {name: statistics.mean(values) for name, values in totals.items()}


def print_profile(profiles: dict[str, dict[str, float]]) -> None:
    """The per-stage table, one column per run."""
    labels = list(profiles)
    print("per-stage profile, mean seconds per graded submission:")
    print(f"  {'stage':28}" + "".join(f"{label:>26}" for label in labels))
    for stage, meaning in STAGES:
        cells = "".join(
            f"{profiles[label][stage]:26.2f}" if stage in profiles[label] else f"{'-':>26}"
            for label in labels
        )
        print(f"  {stage:28}{cells}   {meaning}")


def graded_copies(out: Path, paths: list[Path]) -> list[Path]:
    """The notebooks the autograder executed for each submission (its autograded copies)."""
    copies = []
    for path in paths:
        student = path.parents[1].name
        copy = out / "course" / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        if not copy.is_file():
            raise RuntimeError(f"no autograded copy for {student}: {copy}")
        copies.append(copy)
    return copies


def stock_course(classdir: Path, course: Path) -> None:
    """A plain nbgrader course over the class: its defaults, the repo's source, a fresh gradebook."""
    shutil.copytree(REPO_ROOT / "source" / ASSIGNMENT, course / "source" / ASSIGNMENT)
    shutil.copytree(classdir, course / "submitted")
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\nc.Exchange.root = {str(course / 'exchange')!r}\n"
    )
    seconds, done = timed(
        [str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, "--force"], course
    )
    if done.returncode:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{done.stderr[-3000:]}")


def stock(classdir: Path, course: Path, slices: int) -> float:
    """Wall seconds for stock ``nbgrader autograde`` with the class split into *slices* concurrent processes."""
    stock_course(classdir, course)
    students = sorted(p.name for p in classdir.iterdir())
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    commands = []
    for index in range(slices):
        others = [s for i, s in enumerate(students) if i % slices != index]
        exclude = [f"--CourseDirectory.student_id_exclude={','.join(others)}"] if others else []
        commands.append([str(BIN / "nbgrader"), "autograde", ASSIGNMENT, *exclude])
    start = time.perf_counter()
    running = [
        subprocess.Popen(
            c, cwd=course, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for c in commands
    ]
    codes = [p.wait() for p in running]
    seconds = time.perf_counter() - start
    graded = len(list((course / "autograded").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.ipynb")))
    if graded != len(students):
        print(
            f"  (stock, {slices} process(es): only {graded} of {len(students)} autograded; exit codes {codes})"
        )
    return seconds


#: cgroup v1's CPU accounting: a group's ``cpuacct.usage`` counts every process in it.
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


@contextlib.contextmanager
def cpu_seconds() -> Iterator[list[float]]:
    """CPU seconds (any core) of this process and everything it starts in the block: ``[total]``.

    This process moves into a fresh cpuacct group for the block, so every process forked
    meanwhile (grader, forkserver, workers, kernels, stock nbgrader) is counted wherever
    it runs and whoever waits for it. Without cgroup v1's cpuacct (or root), the figure
    falls back to ``RUSAGE_CHILDREN``, which misses processes nobody waited for.
    """
    usage = [0.0]
    own = next(
        (
            line.split(":", 2)[2]
            for line in Path("/proc/self/cgroup").read_text().splitlines()
            if "cpuacct" in line.split(":", 2)[1].split(",")
        ),
        None,
    )
    group = CPUACCT / f"bench-autograder-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        own = None
    if own is None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        yield usage
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        usage[0] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return
    start = int((group / "cpuacct.usage").read_text())
    try:
        yield usage
    finally:
        usage[0] = (int((group / "cpuacct.usage").read_text()) - start) / 1e9
        (CPUACCT / own.lstrip("/") / "cgroup.procs").write_text(str(os.getpid()))


def report(label: str, seconds: float, cpu: float, n: int) -> None:
    """One row: wall seconds, wall and CPU seconds per submission."""
    print(
        f"  {label:36} {seconds:7.1f} s  {seconds / n:5.2f} s/submission"
        f"  {cpu / n:5.2f} CPU s/submission",
        flush=True,
    )


def import_seconds(code: str, repeats: int = 3) -> float:
    return statistics.median(
        timed([sys.executable, "-c", code], REPO_ROOT)[0] for _ in range(repeats)
    )


NEW_GRADEBOOK = """
import os, sys, tempfile, time
from pathlib import Path
import autograder
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
import nbgrader.api
from autograder.term.nbgrader_course import alembic_head
if {in_process}:
    nbgrader.api.get_alembic_version = alembic_head
start = time.perf_counter()
nbgrader.api.Gradebook("sqlite:///" + tempfile.mkdtemp() + "/gradebook.db").close()
print(time.perf_counter() - start)
"""


def new_gradebook_seconds(in_process: bool) -> float:
    """Seconds nbgrader takes to create a gradebook (it asks ``alembic heads`` in a subprocess)."""
    code = NEW_GRADEBOOK.format(in_process=in_process)
    return float(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )


#: The row that times ``--baseline``'s checkout.
BASELINE_ROW = "baseline: autograder --jobs 1"
#: The rows ``--one-job`` keeps.
ONE_JOB_ROWS = (
    "floor: nbclient, 1 process",
    "autograder --jobs 1",
    BASELINE_ROW,
    "floor as graded: nbclient, 1 process",
)


def summary(table: dict[str, float], used: dict[str, float], n: int, cores: int) -> None:
    """The ratios: against the floors, one job against many, the sandbox's cost, stock nbgrader."""
    one, many = table["autograder --jobs 1"], table.get(f"autograder --jobs {cores}")
    for kind in ("floor", "floor as graded"):
        line = f"autograder vs {kind}, one job: {one / table[f'{kind}: nbclient, 1 process']:.2f}x"
        if BASELINE_ROW in table:
            line += (
                f" (baseline: {table[BASELINE_ROW] / table[f'{kind}: nbclient, 1 process']:.2f}x)"
            )
        if many is not None:
            line += f"; {cores} jobs: {many / table[f'{kind}: nbclient, {cores} processes']:.2f}x"
        print(line)
    if BASELINE_ROW in table:
        print(
            f"autograder --jobs 1 against the baseline's: {one / n:.2f} vs"
            f" {table[BASELINE_ROW] / n:.2f} s/submission ({(one / table[BASELINE_ROW] - 1) * 100:+.1f}%),"
            f" {used['autograder --jobs 1'] / n:.2f} vs {used[BASELINE_ROW] / n:.2f} CPU s/submission"
        )
    if many is None:
        return
    print(
        f"autograder speed-up from 1 to {cores} jobs: {one / many:.2f}x (linear would be {cores}x)"
    )
    # No run on `cores` cores takes less than its CPU seconds over `cores`: what bounds more jobs.
    bound = used[f"autograder --jobs {cores}"] / cores
    print(
        f"CPU bound for --jobs {cores}: {bound / n:.2f} s/submission (its CPU seconds over"
        f" {cores} cores); --jobs 1 keeps {used['autograder --jobs 1'] / one:.2f} cores busy,"
        f" so {cores} jobs can be at most {one / bound:.2f}x faster than one at this CPU cost"
    )
    # Even if more jobs cost no more CPU than one, a run on `cores` cores that keeps them
    # all busy gains at most `cores` over the cores one job already keeps busy.
    busy = used["autograder --jobs 1"] / one
    print(
        f"with no more CPU at {cores} jobs than at one, {cores} jobs could be at most"
        f" {cores / busy:.2f}x faster than one ({cores} cores over the {busy:.2f} one job keeps"
        " busy)"
    )
    for jobs in (1, cores):
        boxed, bare = (
            table[f"autograder --jobs {jobs}"],
            table[f"autograder --jobs {jobs} --no-sandbox"],
        )
        print(
            f"sandbox overhead, --jobs {jobs}: {boxed / n:.2f} s/submission sandboxed vs "
            f"{bare / n:.2f} s without ({(boxed / bare - 1) * 100:+.1f}%)"
        )
    stock_one = table.get("stock nbgrader autograde, 1 process(es)")
    if stock_one is not None:
        print(
            f"stock nbgrader autograde (its one mode, sequential) takes {stock_one / one:.2f}x"
            f" the autograder's --jobs 1 time and {stock_one / many:.2f}x its --jobs {cores} time"
            " (it writes no feedback, and gives deleted tests and loops silent zeros)"
        )


def in_turn(
    measures: list[tuple[str, Callable[[int], float]]], round_: int
) -> list[tuple[str, Callable[[int], float]]]:
    """*measures* in the order of round *round_*: every other round, ``--baseline``'s row and
    this checkout's swap places, so neither always runs right after the floor (a row's
    place in a round moved its figure by a third on a busy machine).

    >>> [label for label, _ in in_turn([("floor", abs), ("autograder --jobs 1", abs),
    ...     (BASELINE_ROW, abs)], 1)]
    ['floor', 'baseline: autograder --jobs 1', 'autograder --jobs 1']
    """
    labels = [label for label, _ in measures]
    if round_ % 2 == 0 or BASELINE_ROW not in labels or "autograder --jobs 1" not in labels:
        return measures
    ours, theirs = labels.index("autograder --jobs 1"), labels.index(BASELINE_ROW)
    swapped = list(measures)
    swapped[ours], swapped[theirs] = measures[theirs], measures[ours]
    return swapped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument(
        "--skip-stock", action="store_true", help="do not time stock nbgrader (the slowest part)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of every row; the figures are each row's median (default 1)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of the repository (say, main's, before a change): its"
        " `grade --jobs 1` is timed in the same rounds, beside this one's",
    )
    parser.add_argument(
        "--one-job",
        action="store_true",
        help="only the one-job rows: the floors at one process and the autograder (and"
        " --baseline) at --jobs 1; no stock nbgrader",
    )
    args = parser.parse_args(argv)
    if args.baseline is not None and not (args.baseline / "autograder" / "cli.py").is_file():
        parser.error(f"--baseline {args.baseline}: not a checkout of this repository")
    if args.repeat < 1 or args.students < 1:
        parser.error("--repeat and --students must be at least 1")
    cores = len(os.sched_getaffinity(0))
    n = args.students

    # pop: measure the stock cost even where scripts/fast_jupyter_startup.py blocked the module
    plain = import_seconds("import sys; sys.modules.pop('rfc3987_syntax', None); import nbformat")
    fixed = import_seconds("import autograder.startup, nbformat")
    print(
        f"import nbformat in a fresh interpreter: {plain:.2f} s stock, {fixed:.2f} s with autograder.startup",
        flush=True,
    )

    print(
        f"create a gradebook: {new_gradebook_seconds(False):.2f} s stock, "
        f"{new_gradebook_seconds(True):.2f} s with the schema version read in-process",
        flush=True,
    )

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = make_class(root, n)
        classdir = root / "class"
        print(f"class: {n} submissions ({', '.join(KINDS)} in turn); {cores} cores", flush=True)
        measures: list[tuple[str, Callable[[int], float]]] = [
            ("floor: nbclient, 1 process", lambda r: floor(paths, 1)),
            (f"floor: nbclient, {cores} processes", lambda r: floor(paths, cores)),
            ("autograder --jobs 1", lambda r: autograder(classdir, root / f"out1-{r}", 1)),
            (
                "floor as graded: nbclient, 1 process",
                lambda r: floor(graded_copies(root / "out1-0", paths), 1),
            ),
            (
                f"floor as graded: nbclient, {cores} processes",
                lambda r: floor(graded_copies(root / "out1-0", paths), cores),
            ),
            (
                "autograder --jobs 1 --no-sandbox",
                lambda r: autograder(classdir, root / f"out1n-{r}", 1, sandboxed=False),
            ),
            (
                f"autograder --jobs {cores}",
                lambda r: autograder(classdir, root / f"out{cores}-{r}", cores),
            ),
            (
                f"autograder --jobs {cores} --no-sandbox",
                lambda r: autograder(classdir, root / f"out{cores}n-{r}", cores, sandboxed=False),
            ),
        ]
        if args.baseline is not None:
            baseline = args.baseline.resolve()
            measures.insert(
                3,
                (
                    BASELINE_ROW,
                    lambda r: autograder(classdir, root / f"base1-{r}", 1, checkout=baseline),
                ),
            )
        if args.one_job:
            measures = [(label, m) for label, m in measures if label in ONE_JOB_ROWS]
        if not args.skip_stock and not args.one_job:
            for slices in (1, cores):
                measures.append(
                    (
                        f"stock nbgrader autograde, {slices} process(es)",
                        lambda r, slices=slices: stock(
                            classdir, root / f"stock{slices}-{r}", slices
                        ),
                    )
                )
        # Every row once per round, rounds one after another: a machine that slows down
        # part-way slows every row alike, and each figure is the median of its rounds.
        walls: dict[str, list[float]] = {label: [] for label, _ in measures}
        cpus: dict[str, list[float]] = {label: [] for label, _ in measures}
        for round_ in range(args.repeat):
            if args.repeat > 1:
                print(f"round {round_ + 1} of {args.repeat}:", flush=True)
            for label, measure in in_turn(measures, round_):
                with cpu_seconds() as cpu:
                    seconds = measure(round_)
                walls[label].append(seconds)
                cpus[label].append(cpu[0])
                report(label, seconds, cpu[0], n)
        if args.repeat > 1:
            print(f"medians of {args.repeat} rounds (fastest and slowest round in brackets):")
            for label, _ in measures:
                report(label, statistics.median(walls[label]), statistics.median(cpus[label]), n)
                print(f"  {'':36} ({min(walls[label]) / n:.2f} to {max(walls[label]) / n:.2f})")
        rows = [(label, statistics.median(walls[label])) for label, _ in measures]
        used = {label: statistics.median(cpus[label]) for label, _ in measures}
        table = dict(rows)
        with contextlib.suppress(OSError):
            (CPUACCT / f"bench-autograder-{os.getpid()}").rmdir()
        runs = [
            ("--jobs 1", "out1"),
            ("--jobs 1 --no-sandbox", "out1n"),
            (f"--jobs {cores}", f"out{cores}"),
        ]
        if args.baseline is not None:
            runs.insert(1, ("baseline --jobs 1", "base1"))
        print_profile(
            {
                label: stage_profile([root / f"{folder}-{r}" for r in range(args.repeat)])
                for label, folder in runs
                if (root / f"{folder}-0").is_dir()
            }
        )
        summary(table, used, n, cores)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
