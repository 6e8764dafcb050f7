"""Lesson 2's nbgrader assignment: its grade contract, its expected arrays, and a real grading run.

What every assignment must be (schema, test cells, parts, a clean and current release)
is checked in ``test_assignments.py``. Here: the grade ids and points; the arrays the
hidden tests expect, recomputed with windowmem's agent replay (which is tested against
the fact sheet); and one run of the instructors'
command, ``python -m autograder grade``, over the instructor's notebook (full marks),
the untouched release (zero) and students who make typical mistakes or take shortcuts
(each loses exactly the points of the questions affected).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.nbgrader_helpers import (
    REPO_ROOT,
    GradingRoundTrip,
    cell_text,
    cells_by_id,
    check_shortcut_fails_on_import,
    graded_points,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    transcribed,
    with_partial_losses,
)
from windowmem.calls.agent_calls import agent_runs
from windowmem.conversation import Conversation
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory

ASSIGNMENT = "lesson02_with_and_without_memory"
NOTEBOOK = "with_and_without_memory.ipynb"
SOURCE = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

#: The graded cells and their points; gradebooks in use rely on these names.
GRADE_CONTRACT = {
    "test_saved": 2,
    "test_sent_without_memory": 1,
    "test_sent_with_memory": 2,
    "test_sent_after_failures": 1,
    "test_sent_cut_and_errors": 2,
    "test_spring_stored": 2,
    "test_tool_item_from_ai": 2,
    "test_tool_item_fixed_and_query": 2,
    "memory_inside_answer": 2,
    "test_case_helpdesk": 1,
    "test_case_lunch_break": 1,
    "test_case_quotes": 1,
    "test_case_kiosk": 1,
    "test_case_night_shift": 1,
    "test_case_branch_pickup": 1,
    "helpdesk_answer": 2,
}
HAND_GRADED = {"memory_inside_answer", "helpdesk_answer"}
SENT_CELLS = {
    "test_sent_without_memory",
    "test_sent_with_memory",
    "test_sent_after_failures",
    "test_sent_cut_and_errors",
}
TOOL_ITEM_CELLS = {"test_tool_item_from_ai", "test_tool_item_fixed_and_query"}

MUTANTS = {
    # n8n written like Spring AI: a failed run still stores its question.
    "saves_failed_runs": (
        "saved_answer",
        """
def messages_saved(execution: dict) -> list[dict]:
    saved = [{"role": "user", "content": execution["chatInput"]}]
    if "error" in execution or not execution.get("output"):
        return saved
    for call in execution.get("tool_calls", [])[-1:]:
        saved.append({"role": "assistant", "content": "", "tool_calls": [call["id"]]})
        saved.append({"role": "tool", "content": call["result"], "tool_call_id": call["id"]})
    saved.append({"role": "assistant", "content": execution["output"]})
    return saved
""",
        {"test_saved", "test_sent_after_failures"},
    ),
    # Every tool round of a run stored, as n8n's code reads but not as n8n 2.41.1 runs: it
    # keeps only the last model call's tool calls (verify/n8n, recording two-tool-rounds).
    "stores_every_round": (
        "saved_answer",
        """
def messages_saved(execution: dict) -> list[dict]:
    if "error" in execution or not execution.get("output"):
        return []
    saved = [{"role": "user", "content": execution["chatInput"]}]
    for call in execution.get("tool_calls", []):
        saved.append({"role": "assistant", "content": "", "tool_calls": [call["id"]]})
        saved.append({"role": "tool", "content": call["result"], "tool_call_id": call["id"]})
    saved.append({"role": "assistant", "content": execution["output"]})
    return saved
""",
        {"test_saved", "test_sent_after_failures", "test_sent_cut_and_errors"},
    ),
    # The window without the agent's clean-up of a cut tool exchange.
    "no_cleanup": (
        "sent_answer",
        """
def sent_on(executions, run, window, call=1):
    if not 1 <= run <= len(executions):
        raise ValueError("no such run")
    current = executions[run - 1]
    steps = current.get("tool_calls", [])
    if not 1 <= call <= len(steps) + 1:
        raise ValueError("no such call")
    history = []
    if window is not None:
        stored = [m for earlier in executions[: run - 1] for m in messages_saved(earlier)]
        history = stored if window == 0 else stored[-2 * window :]
    this_run = []
    for step in steps[: call - 1]:
        this_run += [{"role": "assistant", "content": "", "tool_calls": [step["id"]]},
                     {"role": "tool", "content": step["result"], "tool_call_id": step["id"]}]
    return [{"role": "system", "content": SYSTEM}, *history,
            {"role": "user", "content": current["chatInput"]}, *this_run]
""",
        {"test_sent_after_failures", "test_sent_cut_and_errors"},
    ),
    # The library's replay does the work: right arrays, no points.
    "agent_runs_shortcut": (
        "sent_answer",
        """
from windowmem import Conversation, assistant, system, tool, user
from windowmem.calls.agent_calls import agent_runs
from windowmem.policies import N8nSimpleMemory


def sent_on(executions, run, window, call=1):
    messages = [system(SYSTEM)]
    for e in executions:
        messages.append(user(e["chatInput"]))
        for step in e.get("tool_calls", []):
            messages += [assistant("", [step["id"]]), tool(step["result"], step["id"])]
        if "output" in e:
            messages.append(assistant(e["output"]))
    memory = None if window is None else N8nSimpleMemory(window)
    runs = agent_runs(Conversation.of(messages), memory)
    if not 1 <= run <= len(runs) or not 1 <= call <= len(runs[run - 1].calls):
        raise ValueError("no such call")
    return [m.as_dict() for m in runs[run - 1].calls[call - 1].messages]
""",
        SENT_CELLS,
    ),
    # Spring AI treated like n8n: the failed call's question is dropped.
    "spring_like_n8n": (
        "spring_answer",
        """
def spring_stored(executions):
    stored = []
    for e in executions:
        if "error" not in e:
            stored += [{"role": "user", "content": e["chatInput"]}, {"role": "assistant", "content": e["output"]}]
    return stored
""",
        {"test_spring_stored"},
    ),
    # The library builds the item: right values, no points.
    "workflow_tool_shortcut": (
        "tool_item_answer",
        """
from windowmem.calls.tool_input import WorkflowTool


def tool_item(mapping, model_arguments, trigger_output):
    return WorkflowTool.of("t", "wf", mapping).item(model_arguments, {"When chat message received": trigger_output})
""",
        TOOL_ITEM_CELLS,
    ),
    # An object equal to anything passes `==`, not a type check.
    "always_equal": (
        "tool_item_answer",
        """
class SameAsAnything(dict):
    def __eq__(self, other):
        return True


def tool_item(mapping, model_arguments, trigger_output):
    return SameAsAnything()
""",
        TOOL_ITEM_CELLS,
    ),
    # One cause for every case, picked by the word "window".
    "one_cause_for_all": (
        "cases_answer",
        """
case_kiosk = case_quotes = case_helpdesk = "window too small"
case_branch_pickup = case_lunch_break = case_night_shift = "window too small"
""",
        {
            "test_case_helpdesk",
            "test_case_lunch_break",
            "test_case_quotes",
            "test_case_night_shift",
            "test_case_branch_pickup",
        },
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly workflow_tool_shortcut's points.
MUTANTS |= reached_every_way(MUTANTS, "workflow_tool_shortcut", "windowmem.calls.tool_input")

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        "saves_failed_runs": {"test_saved": 0.86, "test_sent_after_failures": 1.0},
        # n8n 2.41.1 stores only a run's last tool round, so the cut reaches a tool result in
        # two of the four cut cases (and in run 6 at window 3): those are the ones it misses
        "no_cleanup": {"test_sent_after_failures": 1.0, "test_sent_cut_and_errors": 1.0},
        "stores_every_round": {
            "test_saved": 0.29,
            "test_sent_after_failures": 1.0,
            "test_sent_cut_and_errors": 1.0,
        },
        "spring_like_n8n": {"test_spring_stored": 1.33},
    },
)


#: A student who skims: the prompt words every step of Part A and Part B, which are followed to
#: the letter; the causes matched by keyword ("returns 10 messages" -> window too small, "found
#: none" -> no memory, new ids -> new session id, "429" -> failed run, "lunch" and "redeployed"
#: -> storage lost).
SKIMMER = transcribed(
    read_notebook(SOURCE),
    "saved_answer",
    "sent_answer",
    "spring_answer",
    "tool_item_answer",
    "cases_answer",
)


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE)


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == {
        k: float(v) for k, v in GRADE_CONTRACT.items()
    }
    assert {p: s for p, (s, _) in part_points(source_nb).items()} == {
        "Part A": 10,
        "Part B": 6,
        "Part C": 8,
    }


def executions_of(source_nb) -> tuple[str, list[dict]]:
    """The setup cell's SYSTEM and EXECUTIONS, read without running the notebook."""
    tree = ast.parse(cell_text(cells_by_id(source_nb)["setup"]))
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and node.targets[0].id in ("SYSTEM", "EXECUTIONS")
    }
    return values["SYSTEM"], values["EXECUTIONS"]


def as_conversation(system_text: str, executions: list[dict]) -> Conversation:
    """The execution log as a conversation windowmem replays: one interaction per run."""
    messages = [system(system_text)]
    for execution in executions:
        messages.append(user(execution["chatInput"]))
        for step in execution.get("tool_calls", []):
            messages += [assistant("", [step["id"]]), tool(step["result"], step["id"])]
        if "output" in execution:
            messages.append(assistant(execution["output"]))
    return Conversation.of(messages)


def token(message, executions) -> str:
    if message.role is Role.SYSTEM:
        return "S"
    if message.calls_tool:
        return "C:" + ",".join(message.tool_calls)
    if message.role is Role.TOOL:
        return f"R:{message.tool_call_id}"
    for i, execution in enumerate(executions, start=1):
        if message.role is Role.USER and message.content == execution["chatInput"]:
            return f"U{i}"
        if message.role is Role.ASSISTANT and message.content == execution.get("output"):
            return f"A{i}"
    raise AssertionError(f"unknown message {message}")


def expected_cases(source_nb):
    """(run, window, call, tokens) of every array a hidden test expects."""
    for grade_id in sorted(SENT_CELLS):
        text = cell_text(cells_by_id(source_nb)[grade_id])
        for match in re.finditer(r'\((\d+), (\d+|None), (\d+), "([^"]+)"\)', text):
            run, window, call, want = match.groups()
            yield int(run), None if window == "None" else int(window), int(call), want


def test_the_hidden_arrays_are_what_windowmem_replays(source_nb):
    system_text, executions = executions_of(source_nb)
    conversation = as_conversation(system_text, executions)
    cases = list(expected_cases(source_nb))
    assert len(cases) == 17
    for run, window, call, want in cases:
        memory = None if window is None else N8nSimpleMemory(window)
        runs = agent_runs(conversation, memory)
        got = " ".join(token(m, executions) for m in runs[run - 1].calls[call - 1].messages)
        assert got == want, f"run {run}, window {window}, call {call}"


def test_saved_tokens_are_what_windowmem_writes(source_nb):
    system_text, executions = executions_of(source_nb)
    runs = agent_runs(as_conversation(system_text, executions), N8nSimpleMemory(5))
    text = cell_text(cells_by_id(source_nb)["test_saved"])
    want = ast.literal_eval(re.search(r"_want = (\[.*?\])", text).group(1))
    assert [" ".join(token(m, executions) for m in run.saved) for run in runs] == want


# ---------------------------------------------------------------- a grading run


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id, module",
    [
        ("agent_runs_shortcut", "test_sent_with_memory", "calls.agent_calls"),
        ("workflow_tool_shortcut", "test_tool_item_from_ai", "calls.tool_input"),
    ],
)
def test_a_library_shortcut_fails_on_what_it_calls_not_on_its_values(
    graded, student, grade_id, module
):
    """The shortcut's answers are right: it loses its points only because it called the library's."""
    check_shortcut_fails_on_import(graded, student, NOTEBOOK, grade_id, module)
