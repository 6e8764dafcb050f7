"""Scores merged into the class gradebook."""

from __future__ import annotations


def test_a_forged_score_is_clamped_to_the_cells_points():
    from autograder.records.gradebook import clamp

    assert (clamp(1e9, 2.0), clamp(-1.0, 2.0), clamp(None, 2.0)) == (2.0, 0.0, None)


def _worker_copy(gradebook, tmp_path, scores, penalty=0.5):
    """A worker's gradebook: a copy of the class one with new automatic scores for 'review'."""
    import shutil

    from nbgrader.api import Gradebook

    class_file = tmp_path / "gradebook.db"
    worker_file = tmp_path / "worker.db"
    shutil.copy(class_file, worker_file)
    with Gradebook(f"sqlite:///{worker_file}", "windowmem") as worker:
        for name, auto in scores.items():
            grade = worker.find_grade(name, "nb", "hw", "review")
            grade.auto_score, grade.manual_score = auto, None  # a worker writes no hand score
        worker.find_comment("essay", "nb", "hw", "review").auto_comment = "No response."
        worker.find_submission_notebook("nb", "hw", "review").late_submission_penalty = penalty
        worker.db.commit()
    return f"sqlite:///{class_file}", f"sqlite:///{worker_file}"


def test_a_merge_keeps_hand_scores_clamps_forged_ones_and_copies_penalty_and_comments(
    gradebook, tmp_path
):
    from autograder.records.gradebook import merge_student

    gradebook.db.commit()
    class_url, worker_url = _worker_copy(gradebook, tmp_path, {"q1": 1e9, "essay": 0.0})
    merge_student(class_url, worker_url, "hw", "review", ("nb",))
    gradebook.db.expire_all()
    q1 = gradebook.find_grade("q1", "nb", "hw", "review")
    essay = gradebook.find_grade("essay", "nb", "hw", "review")
    assert (q1.auto_score, q1.needs_manual_grade) == (2.0, False)
    # the hand score a grader entered stays, and the cell is flagged for review
    assert (essay.auto_score, essay.manual_score, essay.needs_manual_grade) == (0.0, 1.5, True)
    assert gradebook.find_comment("essay", "nb", "hw", "review").auto_comment == "No response."
    assert gradebook.find_submission_notebook("nb", "hw", "review").late_submission_penalty == 0.5
    # another student's rows are untouched
    assert gradebook.find_grade("q1", "nb", "hw", "waiting").auto_score == 1


def test_a_held_notebook_gets_no_automatic_scores(gradebook, tmp_path):
    from autograder.records.gradebook import merge_student

    gradebook.db.commit()
    class_url, worker_url = _worker_copy(gradebook, tmp_path, {"q1": 2.0, "essay": 3.0})
    merge_student(class_url, worker_url, "hw", "review", ("nb",), held=frozenset({"nb"}))
    gradebook.db.expire_all()
    for name in ("q1", "essay"):
        grade = gradebook.find_grade(name, "nb", "hw", "review")
        assert (grade.auto_score, grade.needs_manual_grade) == (None, True), name
