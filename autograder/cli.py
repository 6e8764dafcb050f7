"""``python -m autograder grade ASSIGNMENT --submissions DIR [--out DIR] [--jobs N]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.course import Settings
from autograder.errors import GradingSetupError
from autograder.sandbox import SandboxLimits
from autograder.status import Status


def parser() -> argparse.ArgumentParser:
    """The command line: one sub-command, ``grade``."""
    top = argparse.ArgumentParser(
        prog="autograder", description="Grade a class's nbgrader submissions with one command."
    )
    commands = top.add_subparsers(dest="command", required=True)
    grade = commands.add_parser(
        "grade", help="autograde every student, write grades.csv, feedback and a summary"
    )
    grade.add_argument(
        "assignment", help="assignment name, a folder of source/ (e.g. lesson03_window_buffer)"
    )
    grade.add_argument(
        "--submissions",
        required=True,
        type=Path,
        help="folder of <student_id>/<assignment>/*.ipynb, or an LMS .zip",
    )
    grade.add_argument(
        "--out",
        type=Path,
        help="where the gradebook, feedback and reports go (default: <submissions>-graded beside it)",
    )
    grade.add_argument("--jobs", type=int, help="students graded at once (default: every core)")
    grade.add_argument(
        "--timeout",
        type=int,
        default=30,
        help="seconds one cell may run before it is interrupted (default 30)",
    )
    grade.add_argument(
        "--student-timeout",
        type=int,
        help="seconds one student may take in all before the worker is killed",
    )
    grade.add_argument(
        "--zip-regexp",
        help="nbgrader FileNameCollector.named_regexp for LMS file names inside the zip",
    )
    grade.add_argument(
        "--repo",
        type=Path,
        default=Path.cwd(),
        help="repository root holding source/ and nbgrader_config.py (default: .)",
    )
    defaults = SandboxLimits()
    grade.add_argument(
        "--memory-limit",
        type=int,
        default=defaults.memory_mb,
        metavar="MIB",
        help=f"memory one student's kernel may use, files it writes included (default {defaults.memory_mb})",
    )
    grade.add_argument(
        "--pids-limit",
        type=int,
        default=defaults.pids,
        metavar="N",
        help=f"processes and threads one student's kernel may have (default {defaults.pids})",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without isolating the students' code (only where the sandbox cannot run; "
        "said in every row's detail)",
    )
    grade.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command line; 0 when every notebook was graded, 1 when some were not, 2 on setup errors."""
    args = parser().parse_args(argv)
    from autograder.grade import grade_class  # after argparse: --help stays instant

    for option, value in (
        ("--jobs", args.jobs),
        ("--timeout", args.timeout),
        ("--student-timeout", args.student_timeout),
        ("--memory-limit", args.memory_limit),
        ("--pids-limit", args.pids_limit),
    ):
        if value is not None and value < 1:
            print(f"autograder: {option} must be at least 1, got {value}", file=sys.stderr)
            return 2
    submissions = args.submissions
    out = args.out or submissions.resolve().parent / f"{submissions.resolve().stem}-graded"
    if args.pids_limit < 16:
        print(
            f"autograder: --pids-limit {args.pids_limit} is too low for a kernel (its own threads need about ten); give at least 16",
            file=sys.stderr,
        )
        return 2
    limits = SandboxLimits(memory_mb=args.memory_limit, pids=args.pids_limit)
    settings = Settings(
        cell_timeout=args.timeout,
        student_timeout=args.student_timeout,
        sandbox=None if args.no_sandbox else limits,
    )
    try:
        result = grade_class(
            args.assignment,
            submissions,
            out,
            repo_root=args.repo,
            jobs=args.jobs,
            settings=settings,
            zip_regexp=args.zip_regexp,
            progress=not args.no_progress,
        )
    except GradingSetupError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    counts = {s: sum(r.status == s for r in result.rows) for s in Status}
    print(
        f"graded {len({r.student_id for r in result.rows})} students into {result.reports['grades']}"
    )
    print("  " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    for row in sorted(result.rows, key=lambda r: (r.student_id, r.notebook)):
        if row.status != Status.GRADED:
            print(f"  {row.student_id}/{row.notebook}: {row.status}: {row.detail}")
    for note in result.notes:
        print(f"  refused for no student: {note}")
    print(
        f"  summary: {result.reports['questions']}, {result.reports['histogram']}; feedback under {result.out / 'course' / 'feedback'}"
    )
    return 0 if counts[Status.GRADED] == len(result.rows) else 1
