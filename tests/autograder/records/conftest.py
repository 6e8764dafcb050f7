"""A small class gradebook the records tests read: one autograded cell, one graded by hand."""

from __future__ import annotations

import pytest
from nbgrader.api import Gradebook

from autograder.term.nbgrader_course import prepare_nbgrader


@pytest.fixture
def gradebook(tmp_path):
    """hw/nb: q1 autograded (2 points), essay graded by hand (3 points); five students."""
    prepare_nbgrader()
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", "windowmem") as gb:
        gb.update_or_create_assignment("hw")
        gb.update_or_create_notebook("nb", "hw")
        gb.update_or_create_grade_cell("q1", "nb", "hw", max_score=2, cell_type="code")
        gb.update_or_create_grade_cell("essay", "nb", "hw", max_score=3, cell_type="markdown")
        gb.update_or_create_solution_cell("essay", "nb", "hw")
        states = {
            # student: (q1 auto, essay manual, essay needs a grader, late penalty)
            "final": (2, 3, False, 0),
            "waiting": (1, None, True, 0),
            "review": (2, 1.5, True, 0),
            "late": (2, 3, False, 1),
        }
        for student, (auto, manual, needs, penalty) in states.items():
            gb.update_or_create_student(student, first_name=student.title(), last_name="Doe")
            gb.add_submission("hw", student)
            q1 = gb.find_grade("q1", "nb", "hw", student)
            q1.auto_score, q1.needs_manual_grade = auto, False
            essay = gb.find_grade("essay", "nb", "hw", student)
            essay.auto_score, essay.manual_score, essay.needs_manual_grade = None, manual, needs
            gb.find_submission_notebook("nb", "hw", student).late_submission_penalty = penalty
        gb.update_or_create_student("absent")
        gb.db.commit()
        yield gb
