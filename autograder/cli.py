"""``python -m autograder COMMAND``: the instructor's term, from release to returned feedback.

``release`` (exchange or LMS zip), ``collect`` (exchange), ``grade`` (the one command),
``formgrader`` (hand grades in JupyterLab), ``export`` (final grades for an LMS) and
``feedback`` (regenerated with the hand grades, returned by exchange or as files) and
``link`` (an nbgitpuller link that opens a lesson of the student edition on a hub).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.errors import GradingSetupError
from autograder.grading.status import Status
from autograder.sandbox.limits import SandboxLimits
from autograder.term.course import Settings


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
        help="seconds of CPU time one cell may use before it is interrupted (default 30); "
        "a cell is also stopped after three times as long on the clock",
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
    grade.add_argument(
        "--db-url",
        help="also publish into this server gradebook (e.g. postgresql://user@host/db), keeping its hand grades",
    )
    add_term_commands(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command line; 0 on success (``grade``: every notebook graded), 1 when some were not, 2 on setup errors."""
    argv = list(sys.argv[1:] if argv is None else argv)
    passed_on = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser().parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if passed_on and args.command != "formgrader":
        print(
            f"autograder {args.command}: unexpected arguments after --: {passed_on}",
            file=sys.stderr,
        )
        return 2
    args.lab_args = passed_on
    if args.command != "grade":
        return run_term_command(args)
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
    from autograder.grading.forkserver import start_forkserver

    # the options are sound: start the workers' server first, it warms up while the imports
    # below and the course build run (all after argparse: --help stays instant)
    start_forkserver()
    from autograder.grading.grade_class import grade_class
    from autograder.records.changes import (
        compare,
        describe,
        hand_graded_cells,
        snapshot,
        write_changes,
    )
    from autograder.term.nbgrader_course import db_url

    limits = SandboxLimits(memory_mb=args.memory_limit, pids=args.pids_limit)
    settings = Settings(
        cell_timeout=args.timeout,
        student_timeout=args.student_timeout,
        sandbox=None if args.no_sandbox else limits,
    )
    before = snapshot(out.resolve(), args.assignment)
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
    gradebook_url = db_url(result.out / "course" / "gradebook.db")
    changes = compare(
        before,
        snapshot(result.out, args.assignment),
        hand_graded_cells(gradebook_url, args.assignment),
    )
    write_changes(changes, result.out / "changes.csv")
    if not before.empty:
        lines = describe(changes)
        print(
            f"  since the last run: {len(lines)} students changed (see {result.out / 'changes.csv'})"
        )
        for line in lines:
            print(line)
    if args.db_url:
        from sqlalchemy.exc import SQLAlchemyError

        from autograder.records.server_gradebook import publish

        try:
            published = publish(gradebook_url, args.db_url, args.assignment)
        except SQLAlchemyError as error:
            print(
                f"autograder: could not publish into the server gradebook {args.db_url}: {error}; "
                f"the grades are complete in {result.out / 'course'}: run grade again once the server answers",
                file=sys.stderr,
            )
            return 2
        print(f"  published {len(published.students)} students into the server gradebook")
    print(
        f"  next: python -m autograder formgrader {result.out}  (hand grades), then export and feedback"
    )
    return 0 if counts[Status.GRADED] == len(result.rows) else 1


def add_term_commands(commands) -> None:
    """The sub-commands around ``grade``: release, collect, formgrader, export, feedback, link."""
    release = commands.add_parser(
        "release", help="release an assignment: nbgrader's exchange, or a zip for an LMS"
    )
    release.add_argument("assignment")
    where = release.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--exchange", type=Path, help="nbgrader exchange root (e.g. /srv/nbgrader/exchange)"
    )
    where.add_argument(
        "--zip", type=Path, help="write release/<assignment> as this zip, to upload to an LMS"
    )
    release.add_argument(
        "--force", action="store_true", help="replace a release already in the exchange"
    )
    release.add_argument(
        "--repo", type=Path, default=Path.cwd(), help="repository root (default: .)"
    )

    collect = commands.add_parser("collect", help="collect submissions from nbgrader's exchange")
    collect.add_argument("assignment")
    collect.add_argument("--exchange", type=Path, required=True, help="nbgrader exchange root")
    collect.add_argument(
        "--into",
        type=Path,
        required=True,
        help="folder to collect into (give its submitted/ to grade)",
    )
    collect.add_argument(
        "--repo",
        type=Path,
        default=Path.cwd(),
        help="repository root, for the course id (default: .)",
    )

    formgrader = commands.add_parser(
        "formgrader", help="open JupyterLab's formgrader on a graded --out folder"
    )
    formgrader.add_argument("out", type=Path, help="the --out folder of grade")
    formgrader.add_argument("--port", type=int, default=8888)
    formgrader.add_argument("--ip", default="127.0.0.1")
    formgrader.add_argument("--no-browser", action="store_true")
    formgrader.set_defaults(lab_args=[])  # options after a lone `--` go to jupyter lab as they are

    export = commands.add_parser(
        "export", help="final grades for an LMS: final_grades.csv and canvas_grades.csv"
    )
    export.add_argument("assignment")
    export.add_argument("--out", type=Path, required=True, help="the --out folder of grade")
    export.add_argument(
        "--db-url",
        help="read this gradebook instead of OUT/course/gradebook.db (e.g. the server one)",
    )
    export.add_argument(
        "--canvas-roster", type=Path, help="Canvas's Gradebook export, to fill its identity columns"
    )
    export.add_argument(
        "--canvas-match", default="SIS Login ID", help="roster column holding nbgrader's student id"
    )
    export.add_argument(
        "--canvas-column", help="Canvas assignment column heading, e.g. 'Lesson 3 (1234)'"
    )

    feedback = commands.add_parser(
        "feedback", help="regenerate feedback with the hand grades and return it"
    )
    feedback.add_argument("assignment")
    feedback.add_argument("--out", type=Path, required=True, help="the --out folder of grade")
    feedback.add_argument(
        "--exchange", type=Path, help="also release it through this nbgrader exchange"
    )

    link = commands.add_parser(
        "link",
        help="an nbgitpuller link that pulls the student edition and opens a lesson on a hub",
    )
    link.add_argument("path", help="the notebook or folder to open, inside the repository")
    link.add_argument(
        "--hub", required=True, help="the hub's address, e.g. https://hub.example.edu"
    )
    link.add_argument(
        "--repository",
        required=True,
        help="the student edition's git URL, as students' servers reach it",
    )
    link.add_argument("--branch", default="main", help="the branch to pull (default: main)")
    link.add_argument(
        "--target", help="the folder in each student's home (default: the repository's name)"
    )


def run_term_command(args: argparse.Namespace) -> int:
    """Run release, collect, formgrader, export, feedback or link; 2 with a message when it cannot."""
    from sqlalchemy.exc import SQLAlchemyError

    from autograder.term import steps as term

    try:
        return term.COMMANDS[args.command](args)
    except (GradingSetupError, FileNotFoundError, ValueError, SQLAlchemyError) as error:
        print(f"autograder {args.command}: {error}", file=sys.stderr)
        return 2
