"""nbgrader's own export command writing the final grades: ``nbgrader export --exporter=autograder.records.export.FinalGradesExportPlugin``."""

from __future__ import annotations

from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.plugins import ExportPlugin

from autograder.records.final_grades import (
    FinalGrades,
    final_grades,
    read_autograder_rows,
    write_final_grades,
)


class FinalGradesExportPlugin(ExportPlugin):
    """``nbgrader export --exporter=autograder.records.export.FinalGradesExportPlugin``: the generic wide CSV.

    Writes one file per assignment (``--to`` names it; with several assignments, the
    assignment's name is added before the suffix).
    """

    def export(self, gradebook: Gradebook) -> None:
        names = [str(a) for a in self.assignment] or [a.name for a in gradebook.assignments]
        target = Path(self.to or "final_grades.csv")
        coursedir = getattr(self.parent, "coursedir", None)
        # in OUT/course, the autograder's grades.csv beside it names the notebooks it could not grade
        rows = read_autograder_rows(Path(coursedir.root).parent / "grades.csv") if coursedir else {}
        for name in names:
            source = (
                Path(coursedir.format_path(coursedir.source_directory, ".", name))
                if coursedir
                else None
            )
            path = (
                target
                if len(names) == 1
                else target.with_name(f"{target.stem}-{name}{target.suffix}")
            )
            grades = final_grades(gradebook, name, rows, source)
            if self.student:
                wanted = {str(s) for s in self.student}
                grades = FinalGrades(
                    grades.assignment,
                    grades.questions,
                    tuple(s for s in grades.students if s.student_id in wanted),
                )
            write_final_grades(grades, path)
            self.log.info("Exported final grades of %s to %s", name, path)
