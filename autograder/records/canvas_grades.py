"""Canvas's Gradebook CSV layout: the identity columns and one assignment column holding the total."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from autograder.records.final_grades import FinalGrades, csv_number

#: Canvas's identity columns, in the order its Gradebook export writes them.
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


CANVAS_POINTS_ROW = "Points Possible"


@dataclass(frozen=True)
class CanvasResult:
    """Where the Canvas file went, and the students it could not place."""

    path: Path
    unmatched: tuple[str, ...]


def write_canvas_grades(
    grades: FinalGrades,
    path: Path,
    *,
    column: str | None = None,
    roster: Path | None = None,
    match_on: str = "SIS Login ID",
) -> CanvasResult:
    """Write Canvas's Gradebook CSV layout with one assignment column (the total, blank unless final).

    *roster* is Canvas's own Gradebook export; students are matched on its *match_on*
    column against nbgrader's student id, and its identity columns are copied.
    """
    heading = column or grades.assignment
    identities: dict[str, dict[str, str]] = {}
    if roster is not None:
        with roster.open(newline="", encoding="utf-8-sig") as file:
            reader = csv.DictReader(file)
            missing = [
                c for c in (match_on, *CANVAS_IDENTITY[:1]) if c not in (reader.fieldnames or [])
            ]
            if missing:
                raise ValueError(
                    f"{roster} is not a Canvas Gradebook export: no column {', '.join(map(repr, missing))} "
                    f"(its columns: {', '.join(reader.fieldnames or [])})"
                )
            for record in reader:
                key = (record.get(match_on) or "").strip()
                if key and not record["Student"].strip().startswith(CANVAS_POINTS_ROW):
                    identities[key] = {c: record.get(c, "") for c in CANVAS_IDENTITY}
    unmatched = []
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow([*CANVAS_IDENTITY, heading])
        writer.writerow([CANVAS_POINTS_ROW, "", "", "", "", csv_number(grades.max_score)])
        for s in grades.students:
            if roster is not None:
                identity = identities.get(s.student_id)
                if identity is None:
                    unmatched.append(s.student_id)
                    continue
            else:
                name = (
                    f"{s.last_name}, {s.first_name}"
                    if s.last_name and s.first_name
                    else s.student_id
                )
                identity = dict(zip(CANVAS_IDENTITY, (name, "", "", s.student_id, "")))
            writer.writerow([*(identity[c] for c in CANVAS_IDENTITY), csv_number(s.total)])
    return CanvasResult(path, tuple(unmatched))
