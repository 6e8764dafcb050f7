"""What a re-run changed: which students' submissions, scores or statuses differ from the last run.

Before grading, :func:`snapshot` reads what the previous run left in ``--out``: its
``grades.csv`` and the copies of each student's notebooks in ``course/submitted``.
After grading, :func:`compare` lines the two up per student, and ``changes.csv`` and the
command's output say who changed and how, and which of their cells a grader had
already scored by hand (those scores are kept; a grader may want to look again).
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry


class Change(StrEnum):
    """How one student's result differs from the previous run's."""

    NEW = "new"  # not in the previous run
    RESUBMITTED = "resubmitted"  # other notebook bytes than last time (a late submission)
    REGRADED = "regraded"  # same submission, another score or status (a fixed test)
    GONE = "gone"  # in the previous run, not in this one
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class RunSnapshot:
    """Per student: notebook -> (score, status) from grades.csv, and a hash of what was submitted."""

    results: dict[str, dict[str, tuple[str, str]]]
    submissions: dict[str, str]

    @property
    def empty(self) -> bool:
        return not self.results and not self.submissions


@dataclass(frozen=True)
class StudentChange:
    """One student's change, with the scores before and after and the hand-graded cells kept."""

    student_id: str
    change: Change
    before: str
    after: str
    hand_graded: tuple[str, ...] = ()


def submission_hash(folder: Path) -> str:
    """SHA-256 over every notebook in *folder* (names and bytes), or '' when there are none."""
    digest = hashlib.sha256()
    notebooks = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    for path in notebooks:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest() if notebooks else ""


def snapshot(out: Path, assignment: str) -> RunSnapshot:
    """What the run that last wrote *out* graded (empty for a first run).

    Scores are the automatic ones from the gradebook, so a hand grade entered between
    two runs is not mistaken for a change the re-run made.
    """
    statuses: dict[str, dict[str, str]] = {}
    grades = out / "grades.csv"
    if grades.is_file():
        with grades.open(newline="", encoding="utf-8") as file:
            for row in csv.DictReader(file):
                if row["assignment"] == assignment:
                    statuses.setdefault(row["student_id"], {})[row["notebook"]] = row["status"]
    auto = automatic_scores(out / "course" / "gradebook.db", assignment)
    results = {
        sid: {nb: (auto.get(sid, {}).get(nb, ""), status) for nb, status in notebooks.items()}
        for sid, notebooks in statuses.items()
    }
    submitted = out / "course" / "submitted"
    hashes = {}
    if submitted.is_dir():
        for student in sorted(p for p in submitted.iterdir() if p.is_dir()):
            digest = submission_hash(student / assignment)
            if digest:
                hashes[student.name] = digest
    return RunSnapshot(results, hashes)


def automatic_scores(gradebook: Path, assignment: str) -> dict[str, dict[str, str]]:
    """Per student and notebook, the autograder's points (hand scores left out) as text."""
    scores: dict[str, dict[str, str]] = {}
    if not gradebook.is_file():
        return scores
    with Gradebook("sqlite:///" + str(gradebook.resolve())) as opened:
        try:
            submissions = opened.find_assignment(assignment).submissions
        except MissingEntry:
            return scores
        for submission in submissions:
            for notebook in submission.notebooks:
                points = [g.auto_score for g in notebook.grades if g.auto_score is not None]
                scores.setdefault(submission.student.id, {})[notebook.name] = f"{sum(points):g}"
    return scores


def _summary(results: dict[str, tuple[str, str]] | None) -> str:
    """'window_buffer 35 auto (graded)'-style text for one student's notebooks."""
    if not results:
        return ""
    return ", ".join(
        f"{nb} {score + ' auto' if score else 'no score'} ({status})"
        for nb, (score, status) in sorted(results.items())
    )


def hand_graded_cells(db_url: str, assignment: str) -> dict[str, tuple[str, ...]]:
    """Per student, the cells that hold a hand score in the gradebook at *db_url*."""
    found: dict[str, tuple[str, ...]] = {}
    with Gradebook(db_url) as gradebook:
        try:
            submissions = gradebook.find_assignment(assignment).submissions
        except MissingEntry:
            return found
        for submission in submissions:
            cells = tuple(
                sorted(
                    grade.name
                    for notebook in submission.notebooks
                    for grade in notebook.grades
                    if grade.manual_score is not None
                )
            )
            if cells:
                found[submission.student.id] = cells
    return found


def compare(
    before: RunSnapshot, after: RunSnapshot, hand_graded: dict[str, tuple[str, ...]] | None = None
) -> tuple[StudentChange, ...]:
    """Every student of either run, with how their result changed."""
    hand = hand_graded or {}
    changes = []
    for sid in sorted(set(before.results) | set(after.results)):
        old, new = before.results.get(sid), after.results.get(sid)
        if old is None:
            change = Change.NEW
        elif new is None:
            change = Change.GONE
        elif before.submissions.get(sid, "") != after.submissions.get(sid, ""):
            change = Change.RESUBMITTED
        elif old != new:
            change = Change.REGRADED
        else:
            change = Change.UNCHANGED
        changes.append(StudentChange(sid, change, _summary(old), _summary(new), hand.get(sid, ())))
    return tuple(changes)


def write_changes(changes: tuple[StudentChange, ...], path: Path) -> Path:
    """``changes.csv``: student_id, change, before, after, hand_graded_kept."""
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["student_id", "change", "before", "after", "hand_graded_kept"])
        for c in changes:
            writer.writerow(
                [c.student_id, str(c.change), c.before, c.after, " ".join(c.hand_graded)]
            )
    return path


def describe(changes: tuple[StudentChange, ...]) -> list[str]:
    """Lines for the terminal: one per student who changed, hand-graded cells named.

    >>> describe((StudentChange("ana", Change.RESUBMITTED, "nb 30 (graded)", "nb 35 (graded)", ("q4",)),))
    ['  ana: resubmitted: nb 30 (graded) -> nb 35 (graded); hand scores kept on q4: look at them again']
    """
    lines = []
    for c in changes:
        if c.change is Change.UNCHANGED:
            continue
        line = f"  {c.student_id}: {c.change}: {c.before or '-'} -> {c.after or '-'}"
        if c.hand_graded and c.change in (Change.RESUBMITTED, Change.REGRADED):
            line += f"; hand scores kept on {', '.join(c.hand_graded)}: look at them again"
        lines.append(line)
    return lines
