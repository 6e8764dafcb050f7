"""Feedback shows a verdict, never a hidden test or its output."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.records import hide_hidden_tests
from tests.nbgrader_helpers import run_preprocessor


def test_feedback_shows_a_verdict_not_the_test_or_its_output():
    source = '"""visible"""\nassert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(41) == 42, "secret"\n### END HIDDEN TESTS'
    error = new_output(
        "error",
        ename="AssertionError",
        evalue='expected 42\nassert f(41) == 42, "secret"',
        traceback=["Traceback", '----> 4 assert f(41) == 42, "secret"', "AssertionError: secret"],
    )
    printed = new_output("stream", text="the test printed this\n")
    cell = new_code_cell(
        source,
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 2, "score": 0}},
        outputs=[printed, error],
    )
    leak = new_code_cell(
        "print(In[-2])",
        outputs=[new_output("stream", text='kept\nassert f(41) == 42, "secret"\n')],
    )
    notebook = new_notebook(cells=[cell, leak])
    hide_hidden_tests.HideHiddenTests().preprocess(notebook, {})
    test, other = notebook.cells
    assert "f(41)" not in test.source and "assert f(1) == 2" in test.source
    assert [o.text for o in test.outputs] == [
        "failed (0 of 2 points): AssertionError: expected 42\n"
    ]
    assert other.outputs[0].text == "kept\n", (
        "a hidden-test line printed by the student's code is removed"
    )
    passed = new_code_cell(
        "assert True",
        metadata={"nbgrader": {"grade": True, "grade_id": "u", "points": 1, "score": 1}},
        outputs=[printed.copy()],
    )
    assert run_preprocessor(hide_hidden_tests.HideHiddenTests(), passed).outputs[0].text == (
        "passed (1 of 1 points)\n"
    )


def test_a_marker_the_student_wrote_leaves_the_page_whole():
    """One unpaired "### BEGIN HIDDEN TESTS" in an answer cell or a written answer is the
    student's own text: the page is still made, and the instructor's hidden tests still go."""
    from nbformat.v4 import new_markdown_cell

    answer = new_code_cell(
        "def f(x):\n    # ### BEGIN HIDDEN TESTS\n    return x + 1",
        metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": "a"}},
    )
    written = new_markdown_cell(
        "I put ### BEGIN HIDDEN TESTS here once.",
        metadata={"nbgrader": {"solution": True, "grade": True, "grade_id": "w", "points": 1}},
    )
    test = new_code_cell(
        "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(41) == 42\n### END HIDDEN TESTS",
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 2, "score": 2}},
    )
    notebook = new_notebook(cells=[answer, written, test])
    hide_hidden_tests.HideHiddenTests().preprocess(notebook, {})
    kept_answer, kept_written, kept_test = notebook.cells
    assert kept_answer.source == answer.source and kept_written.source == written.source
    assert "f(41)" not in kept_test.source and kept_test.outputs[0].text.startswith("passed")
