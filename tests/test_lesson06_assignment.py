"""Lesson 6's nbgrader assignment: its structure, its release, and an nbgrader round trip.

Built on the lesson 3 assignment's harness (``nbgrader_helpers``): one throwaway course
grades the instructor notebook (full marks), the untouched release (zero, without
crashing) and students who make typical mistakes or cheat (each loses exactly the
points of the questions affected, and keeps the rest).
"""

from __future__ import annotations

import re

import pytest

from nbgrader_helpers import (
    REPO_ROOT,
    GradingCourse,
    cell_text,
    cells_by_id,
    generate_release,
    graded_points,
    iter_files,
    nbgrader_meta,
    read_notebook,
    release_script,
    with_cell_source,
)

ASSIGNMENT = "lesson06_token_budget"
NOTEBOOK = "token_budget.ipynb"
SOURCE_DIR = REPO_ROOT / "source" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "release" / ASSIGNMENT
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")

#: The graded cells and their points: the grading pipeline and gradebooks rely on these names.
GRADE_CONTRACT = {
    "test_sizes_by_hand": 1,
    "test_bill_by_hand": 1,
    "test_unbounded_bill_task": 1,
    "test_unbounded_bill_any": 2,
    "test_survivors_by_hand": 1,
    "test_truncated_bill_by_hand": 1,
    "test_truncation_task": 1,
    "test_truncation_any": 2,
    "test_policy_helpdesk": 1,
    "test_policy_research": 1,
    "test_policy_compliance": 1,
    "justify_answer": 2,
}

# The small task of the assignment, worked out here by hand, independently of the notebook:
# base 100 tokens, reads of 300, 250, 200, 350; one call before each read and one at the end.
BY_HAND = {
    "unbounded sizes": [100, 400, 650, 850, 1200],
    "unbounded bill": 100 + 400 + 650 + 850 + 1200,
    # budget 800: read 3 makes 850, read 1 goes (550); read 4 makes 900, read 2 goes (650)
    "truncated sizes": [100, 400, 650, 550, 650],
    "truncated bill": 100 + 400 + 650 + 550 + 650,
    "survivors": ["Q3", "Q4"],
}

#: Students who get something wrong: (answer cell they edit, its new source, cells that must score 0).
MUTANTS = {
    "charges_after_the_read": (
        "unbounded_bill_answer",
        '''
def unbounded_bill(base_tokens, read_tokens):
    """Charges each call after its read has entered: one read too many every time."""
    if base_tokens < 0 or any(length < 0 for length in read_tokens):
        raise ValueError("sizes must not be negative")
    bill, window = 0, base_tokens
    for length in read_tokens:
        window += length
        bill += window
    return bill + window
''',
        {"test_unbounded_bill_task", "test_unbounded_bill_any"},
    ),
    "no_validation": (
        "unbounded_bill_answer",
        '''
def unbounded_bill(base_tokens, read_tokens):
    bill, window = 0, base_tokens
    for length in read_tokens:
        bill += window
        window += length
    return bill + window
''',
        {"test_unbounded_bill_any"},
    ),
    "drops_the_newest_read": (
        "facts_after_truncation_answer",
        '''
def facts_after_truncation(base_tokens, reads, budget):
    held, used = [], base_tokens
    for fact, tokens in reads:
        held.append((fact, tokens))
        used += tokens
        while used > budget and held:
            used -= held.pop(0)[1]
    return [fact for fact, tokens in held]
''',
        {"test_truncation_any"},
    ),
    "always_equal": (
        "facts_after_truncation_answer",
        '''
class SameAsAnything(list):
    """A list that claims to equal whatever it is compared with."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def facts_after_truncation(base_tokens, reads, budget):
    return SameAsAnything()


# and hide it from type checks in every later cell
type = lambda obj, *rest: list  # noqa: E731
isinstance = lambda obj, cls: True  # noqa: E731
''',
        {"test_truncation_task", "test_truncation_any"},
    ),
    "float_bill": (
        "bill_by_hand_answer",
        '''
window_sizes_unbounded = [100, 400, 650, 850, 1200]
bill_unbounded = 3200.0
''',
        {"test_bill_by_hand"},
    ),
    "bill_counted_once": (
        "bill_by_hand_answer",
        '''
# counts the final window once instead of summing the window over the calls
window_sizes_unbounded = [1200, 1200, 1200, 1200, 1200]
bill_unbounded = 1200
''',
        {"test_sizes_by_hand", "test_bill_by_hand"},  # and nothing else: A2 does not lean on A1
    ),
    "kept_the_first_reads": (
        "truncation_by_hand_answer",
        '''
survivors_at_800 = ["Q1", "Q2"]
window_sizes_truncated = [100, 400, 650, 550, 650]
bill_truncated = 2350
''',
        {"test_survivors_by_hand"},  # and nothing else: B2 does not lean on B1
    ),
    "forgetful_research_agent": (
        "choose_answer",
        '''
policy_helpdesk = "truncate"
policy_research = "truncate"
policy_compliance = "retrieve"
''',
        {"test_policy_research"},
    ),
    "equal_to_any_policy": (
        "choose_answer",
        '''
class AnyPolicy(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


policy_helpdesk = "truncate"
policy_research = "compact"
policy_compliance = AnyPolicy("retrieve, or whatever you like")
''',
        {"test_policy_compliance"},
    ),
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE_DIR / NOTEBOOK)


@pytest.fixture(scope="module")
def release_nb() -> dict:
    return read_notebook(RELEASE_DIR / NOTEBOOK)


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == {k: float(v) for k, v in GRADE_CONTRACT.items()}


def test_part_headings_and_introduction_state_the_points(source_nb):
    points = graded_points(source_nb, autograded_only=False)
    stated, totals, current = {}, {}, None
    for cell in source_nb["cells"]:
        heading = re.search(r"^## (Part [A-Z]).*\((\d+) points\)", cell_text(cell), re.M) if cell["cell_type"] == "markdown" else None
        if heading:
            current = heading.group(1)
            stated[current], totals[current] = int(heading.group(2)), 0.0
        grade_id = nbgrader_meta(cell).get("grade_id")
        if current and grade_id in points:
            totals[current] += points[grade_id]
    assert stated == totals and set(stated) == {"Part A", "Part B", "Part C"}
    intro = cell_text(source_nb["cells"][0])
    assert all(f"{part} ({n} points)" in intro for part, n in stated.items())


def test_test_cells_open_with_a_docstring_show_a_check_and_hide_the_rest(source_nb):
    cells = source_nb["cells"]
    for i, cell in enumerate(cells):
        meta = nbgrader_meta(cell)
        if cell["cell_type"] != "code" or not meta.get("grade"):
            continue
        text = cell_text(cell)
        assert meta["locked"] and re.fullmatch(r'""".+"""', text.splitlines()[0]), meta["grade_id"]
        assert all(m in text for m in HIDDEN_MARKERS) and "assert" in text.split(HIDDEN_MARKERS[0])[0], meta["grade_id"]
        # Hidden expectations are computed in the cell, never by the library a student can patch.
        assert "windowmem" not in text.split(HIDDEN_MARKERS[0])[1], meta["grade_id"]
        if not nbgrader_meta(cells[i - 1]).get("grade"):
            assert cells[i - 1]["cell_type"] == "code" and not nbgrader_meta(cells[i - 1]), (
                f"{meta['grade_id']}: put a visible, ungraded check cell before it"
            )


def test_the_hidden_tests_expect_the_hand_worked_figures(source_nb):
    """The hidden expectations agree with the task worked out by hand above, not with the notebook."""
    cells = cells_by_id(source_nb)
    assert f"== {BY_HAND['unbounded sizes']}" in cell_text(cells["test_sizes_by_hand"])
    assert f"== {BY_HAND['unbounded bill']}" in cell_text(cells["test_bill_by_hand"])
    assert f"== {BY_HAND['truncated sizes']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['truncated bill']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['survivors']!r}".replace("'", '"') in cell_text(cells["test_survivors_by_hand"])


def test_model_answer_quotes_the_measured_figures(source_nb):
    """The hand-graded model answer's numbers are what the help-centre task really costs."""
    from windowmem.budget import help_centre, reference_table

    table = reference_table(help_centre(), budgets=[1500], policies=["unbounded", "truncate", "compact", "retrieve"],
                            summarisers=["perfect"]).set_index("policy")
    answer = cell_text(cells_by_id(source_nb)["justify_answer"])
    for policy, column in (("compact", "input_tokens"), ("unbounded", "input_tokens"), ("truncate", "input_tokens"),
                           ("retrieve", "input_tokens")):
        assert f"{table.loc[policy, column]:,}" in answer, (policy, column)
    assert f"answers only {table.loc['truncate', 'answered']}" in answer
    assert f"in {table.loc['compact', 'calls']} calls ({table.loc['compact', 'compactions']} compactions)" in answer
    assert f"reads {table.loc['retrieve', 'reads']} chunks instead of {table.loc['unbounded', 'reads']}" in answer


# ---------------------------------------------------------------- the release


def test_release_matches_the_source_and_leaks_nothing(source_nb, release_nb):
    def ids(nb):
        return [nbgrader_meta(c).get("grade_id") or c.get("id") for c in nb["cells"]]

    assert ids(release_nb) == ids(source_nb)
    released = cells_by_id(release_nb)
    for grade_id, cell in cells_by_id(source_nb).items():
        meta, student_sees = nbgrader_meta(cell), cell_text(released[grade_id])
        if meta["solution"]:
            expected_stub = "raise NotImplementedError()" if cell["cell_type"] == "code" else "YOUR ANSWER HERE"
            assert expected_stub in student_sees, grade_id
        if meta["grade"] and cell["cell_type"] == "code":
            hidden = cell_text(cell).split(HIDDEN_MARKERS[0], 1)[1].split(HIDDEN_MARKERS[1], 1)[0]
            assert not [line for line in hidden.splitlines() if len(line.strip()) > 12 and line in student_sees], grade_id
    for path in iter_files(RELEASE_DIR):
        text = path.read_text(encoding="utf-8")
        assert not any(m in text for m in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS")), path.name
    assert "widgets" not in release_nb["metadata"]
    assert all(not c.get("outputs") and "widgets" not in c.get("metadata", {}) for c in release_nb["cells"])


@pytest.mark.slow
def test_release_is_what_generation_makes_now(tmp_path):
    fresh = generate_release(ASSIGNMENT, tmp_path)
    assert release_script().differences(fresh, RELEASE_DIR) == [], "release/ is stale: run python scripts/release_assignments.py"


# ---------------------------------------------------------------- the nbgrader round trip


@pytest.fixture(scope="module")
def graded(tmp_path_factory, source_nb) -> GradingCourse:
    """One course with every student autograded: the solution, the blank release, the mutants."""
    course = GradingCourse.create(tmp_path_factory.mktemp("lesson06"), ASSIGNMENT)
    course.submit("solution", course.source_notebook())
    course.submit("untouched", course.release_notebook())
    for student, (grade_id, source, _) in MUTANTS.items():
        course.submit(student, with_cell_source(source_nb, grade_id, source.strip("\n")))
    for student in ("solution", "untouched", *MUTANTS):
        course.autograde(student)
    return course


def autograded(scores):
    return {k: v for k, v in scores.items() if k in GRADE_CONTRACT and k != "justify_answer"}


@pytest.mark.slow
def test_the_solution_scores_full_marks(graded, source_nb):
    scores = autograded(graded.scores("solution"))
    assert set(scores) == set(graded_points(source_nb))
    assert {k: s.auto_score for k, s in scores.items() if s.auto_score != s.max_score} == {}


@pytest.mark.slow
def test_the_untouched_release_scores_zero_and_its_setup_runs(graded):
    scores = autograded(graded.scores("untouched"))
    assert scores and all(s.auto_score == 0 for s in scores.values()), scores
    executed = cells_by_id(graded.autograded_notebook("untouched"))
    for setup in ("setup", "reference_table"):
        assert not [o for o in executed[setup]["outputs"] if o["output_type"] == "error"], setup


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(MUTANTS))
def test_a_mistake_loses_exactly_the_affected_points(graded, student):
    _, _, affected = MUTANTS[student]
    scores = autograded(graded.scores(student))
    zero = {k for k, s in scores.items() if s.auto_score == 0}
    full = {k for k, s in scores.items() if s.auto_score == s.max_score}
    assert zero == affected, f"{student}: lost {sorted(zero)}, expected to lose {sorted(affected)}"
    assert full == set(scores) - affected
