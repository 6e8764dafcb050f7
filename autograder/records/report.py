"""What the instructor reads: ``grades.csv``, a per-question summary and a score histogram."""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from autograder.grading.status import Status
from autograder.sandbox.safe_files import write_bytes

#: Every status a row can have, in report order.
STATUSES = tuple(Status)
__all__ = ["COLUMNS", "STATUSES", "GradeRow", "Status", "write_reports"]
#: Columns of ``grades.csv``, in order.
COLUMNS = ("student_id", "assignment", "notebook", "score", "max_score", "status", "detail")


@dataclass(frozen=True)
class GradeRow:
    """One student's result on one notebook; *score* is None when nothing could be graded."""

    student_id: str
    assignment: str
    notebook: str
    score: float | None
    max_score: float
    status: Status
    detail: str
    cells: tuple = field(default=(), compare=False)  # CellScore values, for the summary

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(
                f"status must be one of {[str(s) for s in STATUSES]}, got {self.status!r}"
            )
        object.__setattr__(self, "status", Status(self.status))


def grades_frame(rows: list[GradeRow]) -> pd.DataFrame:
    """The rows as ``grades.csv`` holds them, sorted by student and notebook."""
    frame = pd.DataFrame(
        [{k: v for k, v in asdict(r).items() if k in COLUMNS} for r in rows], columns=list(COLUMNS)
    )
    frame["status"] = frame["status"].astype(str)
    return frame.sort_values(["student_id", "notebook"], kind="stable").reset_index(drop=True)


def question_summary(rows: list[GradeRow]) -> pd.DataFrame:
    """Per autograded cell: points, mean score and failure rate over students who were graded."""
    records = [
        {"notebook": r.notebook, "question": c.grade_id, "score": c.score, "max_score": c.max_score}
        for r in rows
        for c in r.cells
    ]
    if not records:
        return pd.DataFrame(
            columns=["notebook", "question", "max_score", "students", "mean_score", "failure_rate"]
        )
    cells = pd.DataFrame(records)
    cells["failed"] = cells["score"] < cells["max_score"]
    summary = cells.groupby(["notebook", "question"], sort=True).agg(
        max_score=("max_score", "max"),
        students=("score", "size"),
        mean_score=("score", "mean"),
        failure_rate=("failed", "mean"),
    )
    return summary.reset_index().round({"mean_score": 3, "failure_rate": 3})


def load_plotting() -> None:
    """Import matplotlib for a PNG (Agg) and pyplot: the histogram's one-off second of imports.

    ``grade`` calls it in a thread while the workers grade (the grader mostly waits then),
    so the report does not pay it at the end; calling it again costs nothing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def save_histogram(frame: pd.DataFrame, path: Path) -> None:
    """A PNG histogram of total scores per student (graded and timed-out students)."""
    load_plotting()
    import matplotlib.pyplot as plt

    scored = frame.dropna(subset=["score"])
    totals = scored.groupby("student_id")[["score", "max_score"]].sum()
    maximum = float(frame.groupby("student_id")["max_score"].sum().max())
    maximum = maximum if maximum > 0 else 1.0  # also catches NaN: nothing to plot
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=100)
    axes.hist(
        totals["score"],
        bins=min(20, max(5, int(maximum))),
        range=(0, maximum),
        color="#4477aa",
        edgecolor="white",
    )
    unscored = frame.loc[frame["score"].isna(), "student_id"].nunique()
    axes.set_title(
        f"Scores: {len(totals)} students graded"
        + (f", {unscored} not scored (see grades.csv)" if unscored else "")
    )
    axes.set_xlabel(f"total score (of {maximum:g})")
    axes.set_ylabel("students")
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png", metadata={"Software": None})
    plt.close(figure)
    write_bytes(path, image.getvalue())


def write_reports(rows: list[GradeRow], out: Path) -> dict[str, Path]:
    """Write ``grades.csv``, ``summary/questions.csv``, ``summary/statuses.csv`` and ``summary/histogram.png``.

    Each file is written whole to a fresh temporary file and renamed into place, and
    never through a symbolic link (see :mod:`autograder.sandbox.safe_files`).
    """
    frame = grades_frame(rows)
    summary_dir = out / "summary"
    paths = {
        "grades": out / "grades.csv",
        "questions": summary_dir / "questions.csv",
        "statuses": summary_dir / "statuses.csv",
        "histogram": summary_dir / "histogram.png",
    }
    write_bytes(paths["grades"], frame.to_csv(index=False).encode())
    write_bytes(paths["questions"], question_summary(rows).to_csv(index=False).encode())
    counts = frame["status"].value_counts().reindex([str(s) for s in STATUSES], fill_value=0)
    statuses = counts.rename_axis("status").reset_index(name="notebooks").to_csv(index=False)
    write_bytes(paths["statuses"], statuses.encode())
    save_histogram(frame, paths["histogram"])
    return paths
