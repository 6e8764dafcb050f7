"""Lesson 6's nbgrader assignment: its grade contract, hand-worked figures, model answer, and grading by the pipeline.

What every assignment must be (schema, test cells, parts, rubrics, a clean and current
release) is checked for this one too, in ``test_assignments.py``.

``python -m autograder grade``, the command instructors run, grades the instructor
notebook (full marks), the untouched release (zero, without crashing) and students who
make typical mistakes, cheat or take the library's shortcut; each loses exactly the points
of the questions affected, and keeps the rest, as its ``grades.csv`` says.
"""

from __future__ import annotations

import pytest

from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    REPO_ROOT,
    GradingRoundTrip,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    graded_points,
    nbgrader_meta,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    transcribed,
    with_partial_losses,
)

ASSIGNMENT = "lesson06_token_budget"
NOTEBOOK = "token_budget.ipynb"
SOURCE_NOTEBOOK = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

#: Calls whose value another question asks for: no visible test or check cell may show them.
ANSWERS_ELSEWHERE = [
    "unbounded_bill(SYSTEM_TOKENS + TASK_TOKENS",  # A1's bill
    "unbounded_bill(100, [300, 250, 200, 350])",  # A1's bill
    "facts_after_truncation(SYSTEM_TOKENS + TASK_TOKENS, READS, BUDGET)",  # B1's survivors
    'facts_after_truncation(100, [("Q1", 300), ("Q2", 250), ("Q3", 200), ("Q4", 350)], 800)',
]

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
        """
def unbounded_bill(base_tokens, read_tokens):
    bill, window = 0, base_tokens
    for length in read_tokens:
        bill += window
        window += length
    return bill + window
""",
        {"test_unbounded_bill_any"},
    ),
    "drops_the_newest_read": (
        "facts_after_truncation_answer",
        """
def facts_after_truncation(base_tokens, reads, budget):
    held, used = [], base_tokens
    for fact, tokens in reads:
        held.append((fact, tokens))
        used += tokens
        while used > budget and held:
            used -= held.pop(0)[1]
    return [fact for fact, tokens in held]
""",
        {"test_truncation_any"},
    ),
    "cost_helper": (  # right values, from windowmem's bill of a conversation it is handed
        "unbounded_bill_answer",
        """
from windowmem.cost import input_bill
from windowmem.messages import assistant, system, user
from windowmem.policies import N8nSimpleMemory


def unbounded_bill(base_tokens, read_tokens):
    if base_tokens < 0 or any(length < 0 for length in read_tokens):
        raise ValueError("sizes must not be negative")
    # a turn per read: its question costs nothing, its reply is the read; window 0 keeps all
    chat = [system(str(base_tokens))]
    for length in read_tokens:
        chat += [user("0"), assistant(str(length))]
    chat.append(user("0"))
    return input_bill(chat, N8nSimpleMemory(0), lambda message: int(message.content))
""",
        {"test_unbounded_bill_task", "test_unbounded_bill_any"},
    ),
    "always_equal": (
        "facts_after_truncation_answer",
        always_equal_cheat("""
def facts_after_truncation(base_tokens, reads, budget):
    return SameAsAnything()
"""),
        {"test_truncation_task", "test_truncation_any"},
    ),
    "float_bill": (
        "bill_by_hand_answer",
        """
window_sizes_unbounded = [100, 400, 650, 850, 1200]
bill_unbounded = 3200.0
""",
        {"test_bill_by_hand"},
    ),
    "bill_counted_once": (
        "bill_by_hand_answer",
        """
# counts the final window once instead of summing the window over the calls
window_sizes_unbounded = [1200, 1200, 1200, 1200, 1200]
bill_unbounded = 1200
""",
        {"test_sizes_by_hand", "test_bill_by_hand"},  # and nothing else: A2 does not lean on A1
    ),
    "kept_the_first_reads": (
        "truncation_by_hand_answer",
        """
survivors_at_800 = ["Q1", "Q2"]
window_sizes_truncated = [100, 400, 650, 550, 650]
bill_truncated = 2350
""",
        {"test_survivors_by_hand"},  # and nothing else: B2 does not lean on B1
    ),
    "forgetful_research_agent": (
        "choose_answer",
        """
policy_helpdesk = "truncate"
policy_research = "truncate"
policy_compliance = "retrieve"
""",
        {"test_policy_research"},
    ),
    "equal_to_any_policy": (
        "choose_answer",
        """
class AnyPolicy(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


policy_helpdesk = "truncate"
policy_research = "compact"
policy_compliance = AnyPolicy("retrieve, or whatever you like")
""",
        {"test_policy_compliance"},
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
        "cost_helper": {"test_unbounded_bill_task": 1.0, "test_unbounded_bill_any": 1.33},
        "cost_helper_via_closure": {
            "test_unbounded_bill_task": 1.0,
            "test_unbounded_bill_any": 1.33,
        },
        "cost_helper_via_container": {
            "test_unbounded_bill_task": 1.0,
            "test_unbounded_bill_any": 1.33,
        },
        "cost_helper_via_importlib": {
            "test_unbounded_bill_task": 1.0,
            "test_unbounded_bill_any": 1.33,
        },
        "cost_helper_via_sys_modules": {
            "test_unbounded_bill_task": 1.0,
            "test_unbounded_bill_any": 1.33,
        },
        "drops_the_newest_read": {"test_truncation_any": 0.86},
        "no_validation": {"test_unbounded_bill_any": 0.67},
    },
)


#: A student who skims: the rules the prompt numbers are followed to the letter, the
#: policies matched by keyword ("never ... other call" -> truncate, "one-line" -> compact,
#: "word for word" -> retrieve).
SKIMMER = {
    **transcribed(
        read_notebook(SOURCE_NOTEBOOK),
        "bill_by_hand_answer",
        "unbounded_bill_answer",
        "truncation_by_hand_answer",
        "facts_after_truncation_answer",
    ),
    "choose_answer": """
policy_helpdesk = "truncate"
policy_research = "compact"
policy_compliance = "retrieve"
""",
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE_NOTEBOOK)


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == {
        k: float(v) for k, v in GRADE_CONTRACT.items()
    }
    assert list(part_points(source_nb)) == ["Part A", "Part B", "Part C"]


def test_the_hidden_tests_expect_the_hand_worked_figures(source_nb):
    """The hidden expectations agree with the task worked out by hand above, not with the notebook."""
    cells = cells_by_id(source_nb)
    assert f"== {BY_HAND['unbounded sizes']}" in cell_text(cells["test_sizes_by_hand"])
    assert f"== {BY_HAND['unbounded bill']}" in cell_text(cells["test_bill_by_hand"])
    assert f"== {BY_HAND['truncated sizes']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['truncated bill']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['survivors']!r}".replace("'", '"') in cell_text(
        cells["test_survivors_by_hand"]
    )


def test_model_answer_quotes_the_measured_figures(source_nb):
    """The hand-graded model answer's numbers are what the help-centre task really costs."""
    from windowmem.budget import help_centre
    from windowmem.frames import reference_table

    table = reference_table(
        help_centre(),
        budgets=[1500],
        strategies=["unbounded", "truncate", "compact", "retrieve"],
        summarisers=["perfect"],
    ).set_index("policy")
    answer = cell_text(cells_by_id(source_nb)["justify_answer"])
    for policy, column in (
        ("compact", "input_tokens"),
        ("unbounded", "input_tokens"),
        ("truncate", "input_tokens"),
        ("retrieve", "input_tokens"),
    ):
        assert f"{table.loc[policy, column]:,}" in answer, (policy, column)
    assert f"answers only {table.loc['truncate', 'answered']}" in answer
    assert (
        f"in {table.loc['compact', 'calls']} calls ({table.loc['compact', 'compactions']} compactions)"
        in answer
    )
    assert (
        f"reads {table.loc['retrieve', 'reads']} chunks instead of {table.loc['unbounded', 'reads']}"
        in answer
    )


# ---------------------------------------------------------------- what students see


def test_no_visible_test_or_check_shows_another_question_s_answer(source_nb):
    shown = "\n".join(
        cell_text(c).split(HIDDEN_MARKERS[0])[0]
        for c in source_nb["cells"]
        if c["cell_type"] == "code" and not nbgrader_meta(c).get("solution")
    )
    assert [call for call in ANSWERS_ELSEWHERE if call in shown] == []


def test_each_agent_has_one_defensible_policy(source_nb):
    """The help desk rules out retrieve (no second search) and compact (no summary call)."""
    question = cell_text(cells_by_id(source_nb)["choose_question"])
    helpdesk = question.split("2. `policy_research`")[0]
    assert "never make a call other than one search per ticket" in helpdesk
    assert "go to a human colleague" in helpdesk


def test_the_cost_helper_shortcut_really_computes_the_bill():
    """The shortcut mutant gets every value right: it loses its points for the shortcut alone."""
    namespace: dict = {}
    exec(MUTANTS["cost_helper"][1], namespace)  # noqa: S102 - the mutant's own source
    assert namespace["unbounded_bill"](100, [300, 250, 200, 350]) == BY_HAND["unbounded bill"]
    assert (
        namespace["unbounded_bill"](0, [5, 5]) == 15 and namespace["unbounded_bill"](100, []) == 100
    )


# ---------------------------------------------------------------- through the instructors' pipeline


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = {"justify_answer"}
    setup_cells = ("setup", "reference_table")
