"""Verdicts: what the feedback says, and the score nbgrader itself reads from the outputs."""

from __future__ import annotations

import pytest
from nbformat.notebooknode import NotebookNode
from nbgrader.utils import determine_grade

from autograder.judge.hidden_tests import run_test
from autograder.judge.verdict import Verdict, visible_outputs


def graded_by_nbgrader(outputs, points):
    cell = NotebookNode(
        cell_type="code",
        source="",
        metadata={
            "nbgrader": {"grade": True, "solution": False, "points": points, "grade_id": "t"}
        },
        outputs=outputs,
    )
    return determine_grade(cell)[0]


def no_lookup(name):
    raise KeyError(name)


@pytest.mark.parametrize(
    ("source", "points"),
    [
        ("assert 1 + 1 == 2", 3.0),
        ("assert 1 + 1 == 3", 0.0),
        ("_parts = [1, 2]\nround(3 * _parts[0] / _parts[1], 2)", 1.5),
        ("99", 3.0),  # a score above the cell's points is clamped
        ("-5", 0.0),  # and one below 0
        ("float('nan')", 0.0),
        ("'not a number'", 3.0),  # nbgrader's rule: a value that is no number is full marks
        ("raise SystemExit(0)", None),  # not swallowed: the grader's own process must stop
    ],
)
def test_the_judges_score_is_what_nbgrader_reads(source, points):
    if points is None:
        with pytest.raises(SystemExit):
            run_test("t", 3.0, source, {}, no_lookup)
        return
    verdict = run_test("t", 3.0, source, {}, no_lookup)
    assert verdict.points == points
    assert graded_by_nbgrader(verdict.outputs(), 3) == points


def test_a_failure_shows_no_line_value_or_message_of_the_test():
    source = "_secret = [4417, 'hidden input']\nassert _secret == [1], f'expected {_secret}'\n"
    verdict = run_test("t", 2.0, source, {}, no_lookup)
    shown = repr(verdict.outputs())
    assert "4417" not in shown and "hidden input" not in shown and "expected" not in shown
    assert "4417" in verdict.log  # the instructor's log keeps it


def test_cases_failed_come_from_the_tests_counter():
    verdict = run_test(
        "t", 2.0, "_parts = [3, 4]\nround(2 * _parts[0] / _parts[1], 2)", {}, no_lookup
    )
    assert verdict.message() == "Hidden checks: 1 of 4 cases failed (1.5 of 2 points)."


def test_a_counter_that_makes_no_sense_is_not_reported():
    verdict = run_test("t", 2.0, "_parts = [-3, 4]\n0", {}, no_lookup)
    assert verdict.cases_run is None and verdict.points == 0


def test_a_missing_question_name_is_named_and_a_test_name_is_not():
    verdict = run_test("t", 1.0, "assert buffer_turns(1, 2, []) == []", {}, no_lookup)
    assert "does not define buffer_turns" in verdict.message()
    verdict = run_test("t", 1.0, "assert _helper() == 1", {}, no_lookup)
    assert "_helper" not in verdict.message()


def test_the_instructors_hint_is_shown():
    verdict = run_test(
        "t", 1.0, "_hint = 'count the tool messages too'\nassert False", {}, no_lookup
    )
    assert verdict.message().endswith("Hint: count the tool messages too")


def test_visible_outputs_score_nothing_and_keep_the_text():
    kernel = [
        NotebookNode(output_type="stream", name="stderr", text="warn\n"),
        NotebookNode(output_type="stream", name="stdout", text="seen\n"),
        NotebookNode(output_type="execute_result", data={"text/plain": "0.0"}, metadata={}),
        NotebookNode(output_type="error", ename="AssertionError", evalue="visible", traceback=[]),
    ]
    kept = visible_outputs(kernel)
    assert [o.output_type for o in kept] == ["stream"]
    assert "warn\nseen\n" in kept[0].text and "AssertionError: visible" in kept[0].text
    assert graded_by_nbgrader(kept + Verdict("t", 2.0, 2.0).outputs(), 2) == 2.0
