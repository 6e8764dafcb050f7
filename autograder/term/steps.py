"""The command line's steps around ``grade``: each reads its arguments, runs one step, says what it did."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable

from autograder.term.nbgrader_course import db_url


def release(args: argparse.Namespace) -> int:
    from autograder.intake.exchange import release, release_zip

    repo = args.repo.resolve()
    if args.zip:
        archive = release_zip(args.assignment, repo, args.zip.resolve())
        print(f"released {args.assignment} as {archive}: upload it to the LMS")
        return 0
    release(args.assignment, repo, args.exchange.resolve(), force=args.force)
    print(
        f"released {args.assignment} into the exchange {args.exchange}: students fetch it in JupyterLab"
    )
    return 0


def collect(args: argparse.Namespace) -> int:
    from autograder.intake.exchange import collect, course_id_of

    submitted = collect(
        args.assignment,
        args.exchange.resolve(),
        args.into.resolve(),
        course_id_of(args.repo.resolve()),
    )
    students = sorted(p.name for p in submitted.iterdir()) if submitted.is_dir() else []
    print(f"collected {len(students)} students into {submitted}")
    print(
        f"  next: python -m autograder grade {args.assignment} --submissions {submitted} --out OUT"
    )
    return 0


def formgrader(args: argparse.Namespace) -> int:
    from autograder.term.formgrader import open_formgrader

    return open_formgrader(
        args.out, port=args.port, ip=args.ip, open_browser=not args.no_browser, extra=args.lab_args
    )


def export(args: argparse.Namespace) -> int:
    from nbgrader.api import Gradebook

    from autograder.records.canvas_grades import write_canvas_grades
    from autograder.records.final_grades import (
        final_grades,
        read_autograder_rows,
        write_final_grades,
    )
    from autograder.records.server_gradebook import sqlalchemy_url
    from autograder.term.formgrader import course_root
    from autograder.term.nbgrader_course import prepare_nbgrader

    out = args.out.resolve()
    root = course_root(out, server_gradebook=bool(args.db_url))
    prepare_nbgrader()
    url = sqlalchemy_url(args.db_url) if args.db_url else db_url(root / "gradebook.db")
    with Gradebook(url) as gradebook:
        grades = final_grades(
            gradebook,
            args.assignment,
            read_autograder_rows(out / "grades.csv"),
            root / "source" / args.assignment,
        )
    generic = write_final_grades(grades, out / "final_grades.csv")
    canvas = write_canvas_grades(
        grades,
        out / "canvas_grades.csv",
        column=args.canvas_column,
        roster=args.canvas_roster,
        match_on=args.canvas_match,
    )
    counts = Counter(str(s.status) for s in grades.students)
    print(
        f"final grades of {len(grades.students)} students: {generic} (generic), {canvas.path} (Canvas)"
    )
    print("  " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
    for student in grades.students:
        if student.total is None:
            print(f"  {student.student_id}: {student.status}, no total: {student.detail}")
    if canvas.unmatched:
        print(
            f"  not in the Canvas roster (left out of {canvas.path.name}): {', '.join(canvas.unmatched)}",
            file=sys.stderr,
        )
    return 0 if counts.get("final", 0) == len(grades.students) else 1


def feedback(args: argparse.Namespace) -> int:
    from autograder.intake.exchange import return_feedback
    from autograder.records.feedback import feedback_files, regenerate
    from autograder.term.course_config import load_course_config
    from autograder.term.formgrader import course_root

    out = args.out.resolve()
    root = course_root(out)
    config = load_course_config(root)
    result = regenerate(root, args.assignment, config)
    pages = feedback_files(root, args.assignment, out / "return")
    print(
        f"feedback for {len(result.written)} students, with hand grades: "
        f"{out / 'return'}/<student_id>/*.html to upload"
    )
    for student, error in result.failed:
        print(f"  {student}: feedback not generated: {error}", file=sys.stderr)
    if args.exchange:
        return_feedback(args.assignment, root, config, args.exchange.resolve())
        print(f"  released through the exchange {args.exchange}: students fetch it in JupyterLab")
    return 0 if not result.failed and len(pages) == len(result.written) else 1


def link(args: argparse.Namespace) -> int:
    from autograder.term.links import nbgitpuller_link

    print(
        nbgitpuller_link(
            args.hub, args.repository, args.path, branch=args.branch, target=args.target
        )
    )
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "release": release,
    "collect": collect,
    "formgrader": formgrader,
    "export": export,
    "feedback": feedback,
    "link": link,
}
