"""What every nbgrader assignment under ``source/`` must be, checked for each one found.

A new assignment is checked as soon as its folder holds a notebook: nbgrader schema-3
cells, test cells that open with a docstring, show a check and hide the rest, a visible
self-check before each group of tests, part headings that state their points, and a
release that keeps the source's cells, leaks nothing and is what generation makes now.
What one assignment alone promises (its grade ids, model answer, mutants) stays in its
own test module.
"""

from __future__ import annotations

import re

import pytest

from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    REPO_ROOT,
    SOLUTION_MARKERS,
    assignment_notebooks,
    cell_text,
    cells_by_id,
    generate_release,
    graded_points,
    iter_files,
    nbgrader_meta,
    part_points,
    read_notebook,
    release_script,
)

NOTEBOOKS = assignment_notebooks()
ASSIGNMENTS = sorted({assignment for assignment, _ in NOTEBOOKS})

#: A visible check: an assert, or an AssertionError raised by hand (for "must raise" checks).
VISIBLE_CHECK = re.compile(r"\bassert\b|\braise AssertionError\b")


def test_source_holds_assignments_to_check():
    assert NOTEBOOKS, (
        f"no assignment notebook under {REPO_ROOT / 'source'}: nothing below would run"
    )


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=["/".join(pair) for pair in NOTEBOOKS])
def notebook(request) -> tuple[str, str]:
    """One assignment notebook: (assignment, file name)."""
    return request.param


@pytest.fixture(scope="module")
def source_nb(notebook) -> dict:
    assignment, name = notebook
    return read_notebook(REPO_ROOT / "source" / assignment / name)


@pytest.fixture(scope="module")
def release_nb(notebook) -> dict:
    assignment, name = notebook
    return read_notebook(REPO_ROOT / "release" / assignment / name)


# ---------------------------------------------------------------- the source notebook


def test_cells_follow_nbgrader_schema_3(source_nb):
    assert source_nb["metadata"]["kernelspec"]["name"] == "python3"
    ids = [nbgrader_meta(c)["grade_id"] for c in source_nb["cells"] if nbgrader_meta(c)]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    for cell in source_nb["cells"]:
        meta = nbgrader_meta(cell)
        if not meta:
            continue
        assert meta["schema_version"] == 3 and meta["task"] is False
        assert re.fullmatch(r"[a-z][a-z0-9_]*", meta["grade_id"]), meta["grade_id"]
        if meta["grade"] and not meta["solution"]:  # a test cell
            assert meta["locked"] and meta["points"] > 0, meta["grade_id"]
        if meta["solution"]:
            assert not meta["locked"], meta["grade_id"]
        if not meta["grade"] and not meta["solution"]:
            assert meta["locked"], f"{meta['grade_id']}: instructions and setup are locked"


def test_every_test_cell_opens_with_a_docstring_shows_a_check_and_hides_the_rest(source_nb):
    for cell in source_nb["cells"]:
        meta = nbgrader_meta(cell)
        if cell["cell_type"] != "code" or not meta.get("grade"):
            continue
        text = cell_text(cell)
        assert meta["locked"], f"{meta['grade_id']}: a test cell is locked"
        assert re.fullmatch(r'""".+"""', text.splitlines()[0]), (
            f"{meta['grade_id']}: start with a one-line docstring"
        )
        assert all(marker in text for marker in HIDDEN_MARKERS), (
            f"{meta['grade_id']} has no hidden tests"
        )
        visible, hidden = text.split(HIDDEN_MARKERS[0], 1)
        assert VISIBLE_CHECK.search(visible), (
            f"{meta['grade_id']}: students should see at least one check"
        )
        # Hidden expectations are computed in the cell, never by the library a student can patch.
        # The one import allowed is the behaviour check, which computes no expectation (and
        # which the pipeline's kernel guard restores before every test cell).
        imports = re.findall(r"^\s*(?:import|from)\s+(windowmem[\w.]*)", hidden, re.M)
        assert set(imports) <= {"windowmem.behaviour_check"}, (
            f"{meta['grade_id']}: hidden tests must not import windowmem ({imports})"
        )
        # A rebuild question runs the student's function under the behaviour check, never
        # by reading its imports (which misses sys.modules, importlib and stored helpers).
        assert "_library_used" not in hidden, f"{meta['grade_id']}: use windowmem.behaviour_check"


def test_answer_cells_hold_their_solution_between_markers(source_nb):
    answers = [c for c in source_nb["cells"] if nbgrader_meta(c).get("solution")]
    assert answers
    for cell in answers:
        if cell["cell_type"] == "code":
            text = cell_text(cell)
            begin, end = (text.index(m) for m in SOLUTION_MARKERS)
            assert begin < end and text[begin:end].count("\n") > 1, nbgrader_meta(cell)["grade_id"]


def test_a_self_check_cell_comes_before_each_group_of_tests(source_nb):
    cells = source_nb["cells"]
    for i, cell in enumerate(cells):
        meta = nbgrader_meta(cell)
        is_test = cell["cell_type"] == "code" and meta.get("grade")
        previous_is_test = i > 0 and nbgrader_meta(cells[i - 1]).get("grade")
        if is_test and not previous_is_test:
            before = cells[i - 1]
            assert i > 0 and before["cell_type"] == "code" and not nbgrader_meta(before), (
                f"{meta['grade_id']}: put a visible, ungraded check cell before it"
            )


def test_every_hand_graded_answer_carries_a_rubric_worth_its_points(source_nb):
    manual = [
        c
        for c in source_nb["cells"]
        if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("solution")
    ]
    for cell in manual:
        meta = nbgrader_meta(cell)
        text = cell_text(cell)
        rubric = re.search(r"\*\*Rubric \((\d+) points?\)\.\*\*(.*)", text, re.S)
        assert rubric, f"{meta['grade_id']}: add '**Rubric (N points).**' to the model answer"
        assert int(rubric.group(1)) == meta["points"], (
            f"{meta['grade_id']}: the rubric's total is not the cell's"
        )
        items = [int(n) for n in re.findall(r"(\d+) points?:", rubric.group(2))]
        assert sum(items) == meta["points"], (
            f"{meta['grade_id']}: rubric items add up to {sum(items)}"
        )


def test_the_introduction_says_what_may_be_used(source_nb):
    intro = cell_text(source_nb["cells"][0])
    assert "**What you may use.**" in intro, (
        "say which library functions may be used, and which earn nothing"
    )


def test_part_headings_and_introduction_state_the_points(source_nb):
    parts = part_points(source_nb)
    assert list(parts) == [f"Part {chr(ord('A') + i)}" for i in range(len(parts))], (
        f"parts A, B, ... in order: {list(parts)}"
    )
    for part, (stated, total) in parts.items():
        assert stated == total, (
            f"{part}'s heading says {stated} points, its cells add up to {total}"
        )
    graded_total = sum(graded_points(source_nb, autograded_only=False).values())
    assert sum(total for _, total in parts.values()) == graded_total, (
        "every graded cell belongs to a part"
    )
    intro = cell_text(source_nb["cells"][0])
    for part, (stated, _) in parts.items():
        assert f"{part} ({stated} points)" in intro, f"the introduction should give {part}'s points"


# ---------------------------------------------------------------- the release


def test_release_has_the_source_cells_in_order(source_nb, release_nb):
    def ids(nb):
        return [nbgrader_meta(c).get("grade_id") or c.get("id") for c in nb["cells"]]

    assert ids(release_nb) == ids(source_nb)
    released = cells_by_id(release_nb)
    for grade_id, cell in cells_by_id(source_nb).items():
        meta = nbgrader_meta(cell)
        if meta["solution"] and cell["cell_type"] == "code":
            assert "raise NotImplementedError()" in cell_text(released[grade_id]), grade_id
        if meta["solution"] and cell["cell_type"] == "markdown":
            assert cell_text(released[grade_id]).strip() == "YOUR ANSWER HERE", grade_id


def secret_and_public(cell: dict) -> tuple[str, str]:
    """What only the instructor may see of a source cell, and what students are shown of it."""
    text = cell_text(cell)
    if nbgrader_meta(cell)["solution"] and cell["cell_type"] == "markdown":
        return text, ""
    secret, public = "", text
    for begin, end in (SOLUTION_MARKERS, HIDDEN_MARKERS):
        if begin in public:
            before, rest = public.split(begin, 1)
            inside, after = rest.split(end, 1)
            secret, public = secret + inside, before + after
    return secret, public


def test_release_cells_leak_no_solution_no_hidden_test_and_no_widget_state(source_nb, release_nb):
    released = cells_by_id(release_nb)
    for grade_id, cell in cells_by_id(source_nb).items():
        secret, public = secret_and_public(cell)
        student_sees = cell_text(released[grade_id])
        for line in secret.splitlines():
            line = line.strip()
            # Short lines such as `_turn += 1` prove nothing. A secret line may reach students
            # only as often as the cell shows it anyway (a hidden test repeating visible data).
            if len(line) > 12:
                assert student_sees.count(line) <= public.count(line), f"{grade_id} leaks: {line}"
    assert "widgets" not in release_nb["metadata"]
    for cell in release_nb["cells"]:
        assert "widgets" not in cell.get("metadata", {})
        assert not cell.get("outputs"), "the release carries no outputs"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_files_carry_no_solution_or_hidden_test_markers(assignment):
    files = list(iter_files(REPO_ROOT / "release" / assignment))
    assert files, f"release/{assignment} is empty: run python scripts/release_assignments.py"
    for path in files:
        text = path.read_text(encoding="utf-8")
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
            assert marker not in text, f"{path.relative_to(REPO_ROOT)} contains {marker!r}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_holds_nothing_of_the_hidden_test_support(assignment):
    """No hidden_support.py is released, and no helper it defines is named in a released file
    (the judge loads the module from source/ and gives its names only to the hidden tests)."""
    from autograder.judge.support import COMMON_NAMES, optional_hidden_support, support_names

    files = list(iter_files(REPO_ROOT / "release" / assignment))
    assert files and all(path.name != "hidden_support.py" for path in files)
    support = optional_hidden_support(REPO_ROOT / "source" / assignment)
    names = set(support_names(support)) - set(COMMON_NAMES) - {"_support"}
    assert names or support is None
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        named = [n for n in names if re.search(rf"(?<!\w){re.escape(n)}\b", text)]
        assert named == [], f"{path.relative_to(REPO_ROOT)} names the hidden support's {named}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_is_what_generation_makes_now(assignment, tmp_path):
    fresh = generate_release(assignment, tmp_path)
    assert release_script().differences(fresh, REPO_ROOT / "release" / assignment) == [], (
        "release/ is stale: run python scripts/release_assignments.py"
    )
