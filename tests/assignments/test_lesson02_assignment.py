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

from autograder.judge.support import hidden_support
from tests.answer_shares import part_shares
from tests.nbgrader_helpers import (
    REPO_ROOT,
    GradingRoundTrip,
    cell_text,
    cells_by_id,
    check_shortcut_fails_on_import,
    check_skimmer_share,
    graded_points,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    with_partial_losses,
)
from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import agent_runs, cleanup_orphaned_messages
from windowmem.calls.memory_writes import saved_messages, tool_steps
from windowmem.conversation import Conversation
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.base import Memory
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore

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
    "test_tool_sources_from_ai": 1,
    "test_tool_sources_fixed": 1,
    "memory_inside_answer": 2,
    **{f"test_forgotten_{n}": 1 for n in range(1, 9)},
    "helpdesk_answer": 2,
}
HAND_GRADED = {"memory_inside_answer", "helpdesk_answer"}
SENT_CELLS = {
    "test_sent_without_memory",
    "test_sent_with_memory",
    "test_sent_after_failures",
    "test_sent_cut_and_errors",
}
TOOL_SOURCE_CELLS = {"test_tool_sources_from_ai", "test_tool_sources_fixed"}
FORGOTTEN_CELLS = {f"test_forgotten_{n}" for n in range(1, 9)}


def solution_source(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])


SAVED = solution_source("saved_answer")
SENT = solution_source("sent_answer")
TOOL_SOURCES = solution_source("tool_sources_answer")
FORGOTTEN = solution_source("cases_answer")

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
        {
            "test_saved",
            "test_sent_with_memory",
            "test_sent_after_failures",
            "test_sent_cut_and_errors",
            *TOOL_SOURCE_CELLS,
        },
    ),
    # Every tool round of a run stored, as n8n's code reads but not as n8n 2.41.1 runs: it
    # keeps only the last model call's tool calls (verify/n8n, recording two-tool-rounds).
    "stores_every_round": (
        "saved_answer",
        SAVED.replace('execution.get("tool_calls", [])[-1:]', 'execution.get("tool_calls", [])'),
        {
            "test_saved",
            "test_sent_with_memory",
            "test_sent_after_failures",
            "test_sent_cut_and_errors",
            *TOOL_SOURCE_CELLS,
        },
    ),
    # The literal reading of "an answer": an empty text is stored like any other.
    "stores_empty_answers": (
        "saved_answer",
        SAVED.replace('if "error" in execution or not output:', 'if "error" in execution:'),
        {
            "test_saved",
            "test_sent_after_failures",
            "test_sent_cut_and_errors",
            "test_sent_with_memory",
            *TOOL_SOURCE_CELLS,
        },
    ),
    # The window without the agent's clean-up of a cut tool exchange.
    "no_cleanup": (
        "sent_answer",
        SENT.replace("history and (", "False and ("),
        {"test_sent_cut_and_errors", "test_sent_with_memory"},
    ),
    # The System Message sent even when the option was never added (before typeVersion 1.9).
    "system_always_sent": (
        "sent_answer",
        SENT.replace("if SYSTEM else []", "if True else []"),
        {"test_sent_without_memory", "test_sent_with_memory", "test_sent_cut_and_errors"},
    ),
    # An off-by-one at the window's edge: k messages instead of 2 x k.
    "window_in_messages": (
        "sent_answer",
        SENT.replace("stored[-2 * window :]", "stored[-window:]"),
        {
            "test_sent_with_memory",
            "test_sent_after_failures",
            "test_sent_cut_and_errors",
            *TOOL_SOURCE_CELLS,
        },
    ),
    # The library's replay does the work: right arrays, no points.
    "agent_runs_shortcut": (
        "sent_answer",
        """
from windowmem import Conversation, assistant, system, tool, user
from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import agent_runs, cleanup_orphaned_messages
from windowmem.calls.memory_writes import saved_messages, tool_steps
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.base import Memory
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore


def sent_on(executions, run, window, call=1):
    messages = [system(SYSTEM)] if SYSTEM else []
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
        SENT_CELLS | TOOL_SOURCE_CELLS,  # tool_sources reads the array sent_on builds
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
    # Spring AI storing the tool messages too (the advisor moved inside the tool loop).
    "spring_stores_tools": (
        "spring_answer",
        """
def spring_stored(executions):
    stored = []
    for e in executions:
        stored.append({"role": "user", "content": e["chatInput"]})
        for call in e.get("tool_calls", []):
            stored.append({"role": "assistant", "content": "", "tool_calls": [call["id"]]})
            stored.append({"role": "tool", "content": call["result"], "tool_call_id": call["id"]})
        if "error" not in e:
            stored.append({"role": "assistant", "content": e["output"]})
    return stored
""",
        {"test_spring_stored"},
    ),
    # The library's replay gives the array the model read: right lists, no points.
    "tool_sources_shortcut": (
        "tool_sources_answer",
        """
from windowmem import Conversation, assistant, system, tool, user
from windowmem.calls.agent_calls import agent_runs
from windowmem.policies import N8nSimpleMemory


def tool_sources(mapping, executions, run, window):
    messages = [system(SYSTEM)] if SYSTEM else []
    for e in executions:
        messages.append(user(e["chatInput"]))
        for step in e.get("tool_calls", []):
            messages += [assistant("", [step["id"]]), tool(step["result"], step["id"])]
        if "output" in e:
            messages.append(assistant(e["output"]))
    memory = None if window is None else N8nSimpleMemory(window)
    sent = agent_runs(Conversation.of(messages), memory)[run - 1].calls[0].messages
    seen = [i for i, e in enumerate(executions[:run], start=1)
            if any(m.role.value == "user" and m.content == e["chatInput"] for m in sent)]
    if not mapping:
        return {"query": seen}
    return {field: seen if "$fromAI" in p and p.startswith("=") else [run] if "json.chatInput" in p else []
            for field, p in mapping.items()}
""",
        TOOL_SOURCE_CELLS,
    ),
    # An object equal to anything passes `==`, not a type check.
    "always_equal": (
        "tool_sources_answer",
        """
class SameAsAnything(dict):
    def __eq__(self, other):
        return True


def tool_sources(mapping, executions, run, window):
    return SameAsAnything()
""",
        TOOL_SOURCE_CELLS,
    ),
    # Section 5 read literally ("not the agent's memory"): the model fills its arguments from
    # this run's message only, as if no memory were attached.
    "from_ai_without_memory": (
        "tool_sources_answer",
        TOOL_SOURCES.replace("sent_on(executions, run, window)", "sent_on(executions, run, None)"),
        TOOL_SOURCE_CELLS,
    ),
    # A fixed expression taken for a model's argument: the trigger's chatInput given the history.
    "chat_input_from_the_array": (
        "tool_sources_answer",
        TOOL_SOURCES.replace("sources[field] = [run]", "sources[field] = seen"),
        {"test_tool_sources_fixed"},
    ),
    # One cause for every log, the one the lesson's window section suggests.
    "one_cause_for_all": (
        "cases_answer",
        'def forgotten_because(case):\n    return "window too small"\n',
        FORGOTTEN_CELLS,
    ),
    # Simple Memory's idle hour applied to Spring AI's in-memory repository too.
    "spring_idle_expires": (
        "cases_answer",
        FORGOTTEN.replace(
            "if n8n:  # Simple Memory: idle buffers go", "if True:  # idle buffers go"
        ),
        FORGOTTEN_CELLS,
    ),
    # A tool round counted as n8n's code reads: every round stored, so windows fill faster.
    "every_round_stored_in_c": (
        "cases_answer",
        FORGOTTEN.replace("(calls[-1:] if n8n else [])", "(calls if n8n else [])"),
        {
            "test_forgotten_2",
            "test_forgotten_3",
            "test_forgotten_4",
            "test_forgotten_5",
            "test_forgotten_6",
            "test_forgotten_7",
            "test_forgotten_8",
        },
    ),
    # Spring AI forgetting a failed call's question, as n8n does.
    "spring_forgets_failed_question": (
        "cases_answer",
        FORGOTTEN.replace(
            'for added in ([(number, "input", "input")], [*steps, (number, "answer", "")] if answered else []):',
            'for added in ([(number, "input", "input"), *steps, (number, "answer", "")] if answered else [],):',
        ),
        {
            "test_forgotten_1",
            "test_forgotten_2",
            "test_forgotten_3",
            "test_forgotten_4",
            "test_forgotten_5",
            "test_forgotten_6",
            "test_forgotten_7",
        },
    ),
    # An off-by-one at the idle boundary: an hour exactly counts as idle ("60 minutes or more").
    "idle_from_an_hour": (
        "cases_answer",
        FORGOTTEN.replace('run["minute"] - minute > 60', 'run["minute"] - minute >= 59'),
        {
            "test_forgotten_1",
            "test_forgotten_2",
            "test_forgotten_3",
            "test_forgotten_5",
            "test_forgotten_7",
            "test_forgotten_8",
        },
    ),
    # The hour read as "60 minutes or more": a buffer idle for exactly 60 minutes is kept.
    "idle_at_sixty": (
        "cases_answer",
        FORGOTTEN.replace('run["minute"] - minute > 60', 'run["minute"] - minute >= 60'),
        {
            "test_forgotten_1",
            "test_forgotten_2",
            "test_forgotten_3",
            "test_forgotten_7",
            "test_forgotten_8",
        },
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly tool_sources_shortcut's points.
MUTANTS |= reached_every_way(MUTANTS, "tool_sources_shortcut", "windowmem.calls.agent_calls")

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
PARTIAL_LOSSES: dict[str, dict[str, float]] = {
    "chat_input_from_the_array": {"test_tool_sources_fixed": 0.2},
    "every_round_stored_in_c": {
        "test_forgotten_2": 0.33,
        "test_forgotten_3": 0.33,
        "test_forgotten_4": 0.67,
        "test_forgotten_5": 0.33,
        "test_forgotten_6": 0.33,
        "test_forgotten_7": 0.33,
        "test_forgotten_8": 0.67,
    },
    "from_ai_without_memory": {"test_tool_sources_fixed": 0.8, "test_tool_sources_from_ai": 0.8},
    "idle_at_sixty": {
        "test_forgotten_1": 0.67,
        "test_forgotten_2": 0.33,
        "test_forgotten_3": 0.33,
        "test_forgotten_7": 0.33,
        "test_forgotten_8": 0.67,
    },
    "idle_from_an_hour": {
        "test_forgotten_1": 0.67,
        "test_forgotten_2": 0.33,
        "test_forgotten_3": 0.67,
        "test_forgotten_5": 0.33,
        "test_forgotten_7": 0.33,
        "test_forgotten_8": 0.67,
    },
    "no_cleanup": {"test_sent_cut_and_errors": 1.67, "test_sent_with_memory": 0.8},
    "saves_failed_runs": {
        "test_saved": 1.14,
        "test_sent_after_failures": 1.0,
        "test_sent_cut_and_errors": 0.67,
        "test_sent_with_memory": 0.8,
        "test_tool_sources_fixed": 0.6,
        "test_tool_sources_from_ai": 0.6,
    },
    "spring_forgets_failed_question": {
        "test_forgotten_1": 0.33,
        "test_forgotten_2": 0.33,
        "test_forgotten_3": 0.33,
        "test_forgotten_4": 0.33,
        "test_forgotten_5": 0.67,
        "test_forgotten_6": 0.33,
        "test_forgotten_7": 1.0,
    },
    "spring_idle_expires": {
        "test_forgotten_1": 0.33,
        "test_forgotten_2": 1.0,
        "test_forgotten_3": 0.33,
        "test_forgotten_4": 1.0,
        "test_forgotten_5": 0.67,
        "test_forgotten_6": 0.67,
        "test_forgotten_7": 1.0,
        "test_forgotten_8": 1.0,
    },
    "spring_stores_tools": {"test_spring_stored": 1.2},
    "stores_empty_answers": {
        "test_saved": 0.57,
        "test_sent_after_failures": 0.67,
        "test_sent_cut_and_errors": 0.33,
        "test_sent_with_memory": 0.4,
        "test_tool_sources_fixed": 0.6,
        "test_tool_sources_from_ai": 0.6,
    },
    "stores_every_round": {
        "test_saved": 0.86,
        "test_sent_after_failures": 1.0,
        "test_sent_cut_and_errors": 0.33,
        "test_sent_with_memory": 1.6,
        "test_tool_sources_fixed": 0.6,
        "test_tool_sources_from_ai": 0.4,
    },
    "system_always_sent": {
        "test_sent_cut_and_errors": 0.33,
        "test_sent_with_memory": 0.8,
        "test_sent_without_memory": 1.0,
    },
    "window_in_messages": {
        "test_sent_after_failures": 0.33,
        "test_sent_cut_and_errors": 0.33,
        "test_sent_with_memory": 1.2,
        "test_tool_sources_fixed": 0.8,
        "test_tool_sources_from_ai": 0.6,
    },
}
MUTANTS = with_partial_losses(MUTANTS, PARTIAL_LOSSES)


#: A student who skims reads the prompt's wording and the lesson's printed cells, and no more.
SKIMMER = {
    # "the messages one run adds": the run as the log shows it (input, every tool call with its
    # result, the answer); a run with an "error" has no answer, so it adds nothing
    "saved_answer": """
def messages_saved(execution):
    if "error" in execution:
        return []
    saved = [{"role": "user", "content": execution["chatInput"]}]
    for call in execution.get("tool_calls", []):
        saved.append({"role": "assistant", "content": "", "tool_calls": [call["id"]]})
        saved.append({"role": "tool", "content": call["result"], "tool_call_id": call["id"]})
    saved.append({"role": "assistant", "content": execution["output"]})
    return saved
""",
    # the array as lesson 2's printed call shows it (system message, memory, input), the
    # window from the allowed N8nSimpleMemory(k).load, this run's tool calls after the input,
    # and the ValueError the prompt asks for
    "sent_answer": """
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
        history = list(N8nSimpleMemory(window).load(stored))
    this_run = []
    for step in steps[: call - 1]:
        this_run.append({"role": "assistant", "content": "", "tool_calls": [step["id"]]})
        this_run.append({"role": "tool", "content": step["result"], "tool_call_id": step["id"]})
    return [{"role": "system", "content": SYSTEM}, *history,
            {"role": "user", "content": current["chatInput"]}, *this_run]
""",
    # "stores differently": the lesson's printed Spring store shows questions and answers
    # only, so each run's question and answer, and a failed run like n8n's, nothing
    "spring_answer": """
def spring_stored(executions):
    stored = []
    for e in executions:
        if "error" not in e:
            stored.append({"role": "user", "content": e["chatInput"]})
            stored.append({"role": "assistant", "content": e["output"]})
    return stored
""",
    # the forms the prompt lists, read as they look: a $fromAI value is the model's, so the
    # runs whose message is in the array its own sent_on builds; the trigger's chatInput is
    # this run's message; anything else, none
    "tool_sources_answer": r"""def tool_sources(mapping, executions, run, window):
    sent = sent_on(executions, run, window)
    seen = [i for i, e in enumerate(executions[:run], start=1)
            if any(m["role"] == "user" and m["content"] == e["chatInput"] for m in sent)]
    if not mapping:
        return {"query": seen}
    out = {}
    for field, parameter in mapping.items():
        if "$fromAI" in parameter and parameter.startswith("="):
            out[field] = seen
        elif "chatInput" in parameter:
            out[field] = [run]
        else:
            out[field] = []
    return out
""",
    "cases_answer": """
def forgotten_because(case):
    # labels matched by what the log shows, fitted to the four EXAMPLES: no window -> no
    # memory; an id per run -> new session id; a fact in a tool result -> not stored; a
    # restart or a gap of over an hour -> storage lost; the fact's run without an answer ->
    # failed run; anything else -> the window
    runs, fact = case["runs"], case["fact"]
    if case["window"] is None:
        return "no memory"
    if len({run["session_id"] for run in runs}) == len(runs):
        return "new session id per message"
    if fact["in"] != "input":
        return "tool result not stored"
    if any(run.get("restart_before") for run in runs) or any(
        later["minute"] - earlier["minute"] > 60 for earlier, later in zip(runs, runs[1:])
    ):
        return "storage lost"
    said = runs[fact["run"] - 1]
    if "error" in said or not said.get("output"):
        return "failed run"
    return "window too small"
""",
}


#: Sharper skimmers a reviewer would try, each handing in the skimmer's answers with the cells
#: named changed; each must earn at most a quarter too (test_a_sharper_skimmer_...).
SHARPER_SKIMMERS = {
    # Part C read from the fact's run and the runs after it only (not the whole log), both
    # products alike: its run failed, the fact is a tool result, a restart or a gap of over an
    # hour after it, another session id after it, else the window
    "skimmer_after_the_fact": SKIMMER
    | {
        "cases_answer": """def forgotten_because(case):
    runs, fact = case["runs"], case["fact"]
    j, m = fact["run"], case["missing_on"]
    said, after = runs[j - 1], runs[j - 1 : m]
    if case["window"] is None:
        return "no memory"
    if "error" in said or not said.get("output"):
        return "failed run"
    if fact["in"] != "input":
        return "tool result not stored"
    if any(r.get("restart_before") for r in after[1:]) or any(
        b["minute"] - a["minute"] > 60 for a, b in zip(after, after[1:])
    ):
        return "storage lost"
    if len({r["session_id"] for r in after}) > 1:
        return "new session id per message"
    return "window too small"
""",
    },
    # the lesson's rules applied literally to the same runs, product by product, with no buffer
    # followed; and section 5 read literally for B1 ("nothing else is passed: not the agent's
    # memory"), so a $fromAI field holds this run's message only
    "skimmer_by_the_rules": SKIMMER
    | {
        "tool_sources_answer": """def tool_sources(mapping, executions, run, window):
    # section 5 read literally: "nothing else is passed: not the agent's memory, not the
    # conversation", so the only message a tool can get is this run's
    if not mapping:
        return {"query": [run]}
    return {field: [run] if "$fromAI" in p or "chatInput" in p else [] for field, p in mapping.items()}
""",
        "cases_answer": """def forgotten_because(case):
    # the lesson's rules applied to the fact's run and what follows, product by product: n8n
    # writes a run only with an answer and keeps the last round's tool calls; Spring AI stores
    # the question before the call, no tool messages, and expires nothing; a restart empties
    # both; Simple Memory drops buffers idle for more than 60 minutes
    runs, fact = case["runs"], case["fact"]
    j, m, n8n = fact["run"], case["missing_on"], case["product"] == "n8n"
    said, after = runs[j - 1], runs[j - 1 : m]
    if case["window"] is None:
        return "no memory"
    if n8n and ("error" in said or not said.get("output")):
        return "failed run"
    if fact["in"] != "input" and (not n8n or said["tool_calls"][-1]["id"] != fact["in"]):
        return "tool result not stored"
    if any(r.get("restart_before") for r in after[1:]):
        return "storage lost"
    if n8n and any(b["minute"] - a["minute"] > 60 for a, b in zip(after, after[1:])):
        return "storage lost"
    if any(r["session_id"] != said["session_id"] for r in after):
        return "new session id per message"
    return "window too small"
""",
    },
    # one cause for every log, whichever it is
    **{
        f"skimmer_always_{cause.split()[0]}_{cause.split()[-1]}": SKIMMER
        | {"cases_answer": f"def forgotten_because(case):\n    return {cause!r}\n"}
        for cause in (
            "no memory",
            "new session id per message",
            "window too small",
            "failed run",
            "storage lost",
            "tool result not stored",
        )
    },
}


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
        "Part B": 4,
        "Part C": 10,
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
    """(system message, run, window, call, tokens) of every array a hidden test expects."""
    for grade_id in sorted(SENT_CELLS):
        text = cell_text(cells_by_id(source_nb)[grade_id])
        pattern = r'\((SYSTEM|""), EXECUTIONS, (\d+), (\d+|None), (\d+), "([^"]+)"\)'
        for match in re.finditer(pattern, text):
            system_text, run, window, call, want = match.groups()
            window = None if window == "None" else int(window)
            yield system_text == "SYSTEM", int(run), window, int(call), want


def test_the_hidden_arrays_are_what_windowmem_replays(source_nb):
    system_text, executions = executions_of(source_nb)
    cases = list(expected_cases(source_nb))
    assert len(cases) == 16
    for with_system, run, window, call, want in cases:
        conversation = as_conversation(system_text, executions)
        if not with_system:  # the option never added: the agent sends no system message
            conversation = Conversation.of(list(conversation.messages)[1:])
        memory = None if window is None else N8nSimpleMemory(window)
        runs = agent_runs(conversation, memory)
        got = " ".join(token(m, executions) for m in runs[run - 1].calls[call - 1].messages)
        assert got == want, f"run {run}, window {window}, call {call}, system {with_system}"


def hidden_values(grade_id: str, names: tuple[str, ...], **given) -> dict:
    """The literal values a hidden test cell builds before its loop, evaluated with *given*."""
    tree = ast.parse(cell_text(cells_by_id(read_notebook(SOURCE))[grade_id]))
    namespace = dict(given)
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in names:
            exec(compile(ast.Module([node], []), grade_id, "exec"), namespace)
    return {name: namespace[name] for name in names}


def test_saved_tokens_are_what_windowmem_writes(source_nb):
    system_text, executions = executions_of(source_nb)
    cases = hidden_values("test_saved", ("_x", "_w", "_cases"), EXECUTIONS=executions)["_cases"]
    assert len(cases) == 7
    for runs, run, want in cases:
        replayed = agent_runs(as_conversation(system_text, runs), N8nSimpleMemory(5))
        assert " ".join(token(m, runs) for m in replayed[run - 1].saved) == want, runs[run - 1]


def test_spring_tokens_are_what_windowmem_s_advisor_stores(source_nb):
    system_text, executions = executions_of(source_nb)
    values = hidden_values("test_spring_stored", ("_failed_tool", "_cases"), EXECUTIONS=executions)
    assert len(values["_cases"]) == 5
    for runs, known, want in values["_cases"]:
        calls = advisor_calls(as_conversation(system_text, runs), SpringAiMessageWindow(20))
        assert " ".join(token(m, known) for m in calls[-1].stored_after) == want, want


def test_tool_sources_are_the_inputs_windowmem_sends(source_nb):
    """B1's expected lists: a $fromAI field (or the query) holds the runs whose input windowmem's
    replay puts in the run's first model call; the trigger's chatInput, this run; else none."""
    system_text, executions = executions_of(source_nb)
    names = ("_from_ai", "_session", "_asked", "_action", "_cases")
    cases = [
        case
        for grade_id in sorted(TOOL_SOURCE_CELLS)
        for case in hidden_values(grade_id, names, EXECUTIONS=executions)["_cases"]
    ]
    assert len(cases) == 10
    for mapping, run, window, want in cases:
        memory = None if window is None else N8nSimpleMemory(window)
        sent = agent_runs(as_conversation(system_text, executions), memory)[run - 1].calls[0]
        seen = [
            number
            for number, execution in enumerate(executions[:run], start=1)
            if any(
                m.role is Role.USER and m.content == execution["chatInput"] for m in sent.messages
            )
        ]
        expected = {"query": seen} if not mapping else {}
        for field, parameter in mapping.items():
            from_model = parameter.startswith("=") and "$fromAI(" in parameter
            this_message = parameter.startswith("=") and parameter.rstrip(" }").endswith(
                ".chatInput"
            )
            expected[field] = seen if from_model else [run] if this_message else []
        assert want == expected, (mapping, run, window)
    # the literal reading ("not the agent's memory") and the whole history are each wrong on most
    literal = sum(all(v in ([], [run]) for v in want.values()) for _, run, _, want in cases)
    everything = sum(
        all(v in ([], list(range(1, run + 1))) for v in want.values()) for _, run, _, want in cases
    )
    assert literal <= 2 and everything <= 2


# ---------------------------------------------------------------- Part C: the seeded logs


def hidden_generator(grade_id: str) -> dict:
    """A Part C test cell's seed, edge and turn, and the generator and expected cause of the
    assignment's hidden-test support."""
    text = cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])
    seed = re.search(r"^_SEED = (\d+)", text, re.M)
    assert seed, f"{grade_id} has no _SEED"
    drawn = re.search(r'_support\.threes\(_SEED, "([^"]+)", (\d)\)', text)
    assert drawn, f"{grade_id} draws no threes"
    support = hidden_support(SOURCE.parent)
    return {
        "seed": int(seed.group(1)),
        "edge": drawn.group(1),
        "turn": int(drawn.group(2)),
        "support": support,
    }


def windowmem_reaches(case: dict, without: str | None = None) -> bool:
    """Part C's question answered with windowmem's memories: does the fact reach the call?

    n8n: a Simple Memory map on a moved clock (its idle hour, its restart), the write of
    ``saved_messages`` (the last model round only) and the load of ``N8nSimpleMemory`` with
    ``cleanup_orphaned_messages``. Spring AI: a ``SpringAiMessageWindow`` per conversation,
    the question added before the call and the answer after it. *without* takes one cause away.
    """
    n8n = case["product"] == "n8n"
    window = case["window"]
    if window is None and without != "no memory":
        return False
    if window is None or without == "window too small":
        window = 0 if n8n else 10**6
    j, where, last = case["fact"]["run"], case["fact"]["in"], case["missing_on"]
    clock = ManualClock()
    store = SimpleMemoryStore(clock, idle_limit=float("inf") if without == "storage lost" else 3600)
    spring: dict[str, Memory] = {}
    runs = case["runs"]
    for number, run in enumerate(runs[:last], start=1):
        session = (
            runs[0]["session_id"] if without == "new session id per message" else run["session_id"]
        )
        clock.now = run["minute"] * 60.0
        if run.get("restart_before") and without != "storage lost":
            store.restart()
            spring.clear()
        if n8n:
            memory = store.memory("wf", session, context_window_length=window, source="customKey")
        else:
            memory = spring.setdefault(session, Memory(SpringAiMessageWindow(window)))
        if number == last:
            loaded = memory.load()
            loaded = cleanup_orphaned_messages(loaded) if n8n else loaded
            if where == "input":
                return any(m.role is Role.USER and m.content == f"in {j}" for m in loaded)
            return any(m.role is Role.TOOL and m.tool_call_id == where for m in loaded)
        this_run = [
            m
            for c in run.get("tool_calls", [])
            for m in (assistant("", [c["id"]]), tool(c["result"], c["id"]))
        ]
        answered = "error" not in run and bool(run.get("output"))
        if without == "failed run" and number == j:
            answered = True
        question, answer = user(f"in {number}"), assistant(f"answer {number}") if answered else None
        every_round = without == "tool result not stored"
        if n8n:
            saved = saved_messages(question, this_run, answer)
            if saved and every_round:
                saved = (question, *tool_steps(this_run), answer)
            memory.add(*saved)
            continue
        memory.add(question)
        if answer is not None:
            memory.add(*(tool_steps(this_run) if every_round else ()), answer)
    raise AssertionError("missing_on is past the log")


def windowmem_cause(case: dict) -> str | None:
    """The one cause whose removal lets the fact through, by windowmem; None if not exactly one."""
    if windowmem_reaches(case):
        return None
    found = [c for c in CAUSES if windowmem_reaches(case, c)]
    return found[0] if len(found) == 1 else None


CAUSES = (
    "no memory",
    "new session id per message",
    "window too small",
    "failed run",
    "storage lost",
    "tool result not stored",
)


def test_every_seeded_log_has_the_cause_windowmem_finds():
    """The hidden cells' expected causes, recomputed with windowmem's stores, for every drawn
    log; the causes balanced over the part, three different ones in each three."""
    support = hidden_support(SOURCE.parent)
    assert support.CAUSES == CAUSES
    assert sorted(support.ON_ITS_FACE + support.IN_THE_BUFFERS) == sorted(CAUSES)
    assert all(set(pair) <= set(support.ON_ITS_FACE) for pair in support.FACE_PAIRS)
    drawn, seeds, edges, turns = [], set(), [], []
    readings_right = [0, 0, 0]  # threes each reading that follows no buffer names whole
    for grade_id in sorted(FORGOTTEN_CELLS):
        cell = hidden_generator(grade_id)
        seeds.add(cell["seed"])
        edges.append(cell["edge"])
        turns.append(cell["turn"])
        edge = support.edge_case(cell["seed"], cell["edge"])
        # the edge case is one its misreading gets wrong, and one of the cell's logs
        assert support.cause(edge) != support.cause(edge, cell["edge"])
        threes = support.threes(cell["seed"], cell["edge"], cell["turn"])
        assert len(threes) == 3 and edge in [case for three in threes for case in three]
        for three in threes:
            causes = [support.cause(case) for case in three]
            assert len(set(causes)) == 3, causes
            for case, want in zip(three, causes):
                assert want is not None and windowmem_cause(case) == want, case
                # at least two signs in the log point to other causes (decoys)
                assert len([c for c in support.looks_like(case) if c != want]) >= 2, case
            drawn += causes
            for i in range(3):
                readings_right[i] += all(
                    support.readings(case)[i] == want for case, want in zip(three, causes)
                )
    assert len(seeds) == 8 and sorted(turns) == list(range(8))
    assert set(edges) == set(support.EDGES)
    # every cause is the cause of a sixth of the logs: a constant answer names none of the threes
    assert [drawn.count(cause) for cause in CAUSES] == [12] * 6
    # the three readings that follow no buffer (the whole log's signs, the fact's run and after,
    # the same by each product's rules) name few threes whole
    assert readings_right == [0, 0, 3], readings_right


def test_the_examples_have_one_cause_each(source_nb):
    tree = ast.parse(cell_text(cells_by_id(source_nb)["setup"]))
    (node,) = [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "EXAMPLES"]
    examples = ast.literal_eval(node.value)
    assert {name: windowmem_cause(case) for name, case in examples.items()} == {
        "kiosk": "window too small",
        "helpdesk": "new session id per message",
        "lunch_break": "storage lost",
        "spring_shop": "tool result not stored",
    }


def test_the_skimmer_and_the_solution_differ_where_understanding_matters():
    """The skimmer is hand-written, not the model answer, in every cell it fills."""
    for cell, answer in SKIMMER.items():
        assert answer.strip() != solution_source(cell).strip(), cell


# ---------------------------------------------------------------- a grading run


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER, SHARPER_SKIMMERS)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED
    skimmer_bar_met = True


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(SHARPER_SKIMMERS))
def test_a_sharper_skimmer_earns_at_most_a_quarter(graded, source_nb, student):
    """Each sharper skimmer, graded in the same run, earns at most SKIMMER_SHARE."""
    check_skimmer_share(graded, source_nb, student)


@pytest.mark.slow
@pytest.mark.parametrize("cause", CAUSES)
def test_one_cause_for_every_log_earns_nothing_on_c1(graded, cause):
    """Graded by the pipeline, one cause for every log names no three of C1 (each three has
    three different causes): the in-process figure of CONSTANT_ANSWERS, 0."""
    student = f"skimmer_always_{cause.split()[0]}_{cause.split()[-1]}"
    scores = graded.cell_scores(student, NOTEBOOK)
    assert sum(scores[cell] for cell in FORGOTTEN_CELLS) == 0, cause


# ---------------------------------------------------------------- constant answers, part by part


def constant(signature: str, body: str) -> str:
    """An answer cell whose function answers the same for every input."""
    return f"def {signature}:\n    {body}\n"


NOTHING_IN_A = {
    "saved_answer": constant("messages_saved(execution)", "return []"),
    "sent_answer": constant("sent_on(executions, run, window, call=1)", "return []"),
    "spring_answer": constant("spring_stored(executions)", "return []"),
}

#: Every constant or one-label answer to a part of the assignment, with the share of the part's
#: autograded points it earns, pinned from measurement (tests/answer_shares.py runs the hidden
#: tests in this process; the pipeline's figure for Part C is checked above).
CONSTANT_ANSWERS: dict[str, dict[str, tuple[dict[str, str], float]]] = {
    "Part A": {
        # the visible checks already see an empty array
        "nothing saved, sent or stored": (NOTHING_IN_A, 0.0),
        "every call refused": (
            NOTHING_IN_A
            | {
                "sent_answer": constant(
                    "sent_on(executions, run, window, call=1)", "raise ValueError"
                )
            },
            0.03,  # the calls that do not exist
        ),
    },
    "Part B": {
        f"every field {label}": (
            {
                "tool_sources_answer": constant(
                    "tool_sources(mapping, executions, run, window)",
                    f"return {{field: {value} for field in (mapping or {{'query': 0}})}}",
                )
            },
            share,
        )
        for label, value, share in (
            ("none", "[]", 0.0),
            ("this run", "[run]", 0.0),
            ("every run so far", "list(range(1, run + 1))", 0.1),
        )
    },
    "Part C": {
        f"always {cause}": (
            {"cases_answer": constant("forgotten_because(case)", f"return {cause!r}")},
            0.0,
        )
        for cause in CAUSES
    },
}


def part_a_labels(source_nb) -> int:
    """How many different arrays Part A's hidden cases expect (as tokens)."""
    _, executions = executions_of(source_nb)
    saved = hidden_values("test_saved", ("_x", "_w", "_cases"), EXECUTIONS=executions)
    spring = hidden_values("test_spring_stored", ("_failed_tool", "_cases"), EXECUTIONS=executions)
    wants = {want for *_, want in saved["_cases"]} | {want for *_, want in spring["_cases"]}
    return len(wants | {case[-1] for case in expected_cases(source_nb)})


def chance(part: str, source_nb) -> float:
    """What a constant earns on *part* when its labels are balanced: one over their number.
    Part A: each array its cases expect; Part B: each field is none, this run's message, or
    the runs the model was sent; Part C: the six causes."""
    return {"Part A": 1 / part_a_labels(source_nb), "Part B": 1 / 3, "Part C": 1 / len(CAUSES)}[
        part
    ]


@pytest.mark.parametrize(
    "part, name", [(part, name) for part, answers in CONSTANT_ANSWERS.items() for name in answers]
)
def test_a_constant_answer_earns_at_most_chance_on_its_part(source_nb, part, name):
    answers, pinned = CONSTANT_ANSWERS[part][name]
    shares = part_shares(ASSIGNMENT, answers, parts={part})
    assert shares[part] == pinned, (part, name, shares)
    assert pinned <= chance(part, source_nb), (part, name, chance(part, source_nb))


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id, module",
    [
        ("agent_runs_shortcut", "test_sent_with_memory", "calls.agent_calls"),
        ("tool_sources_shortcut", "test_tool_sources_from_ai", "calls.agent_calls"),
    ],
)
def test_a_library_shortcut_fails_on_what_it_calls_not_on_its_values(
    graded, student, grade_id, module
):
    """The shortcut's answers are right: it loses its points only because it called the library's."""
    check_shortcut_fails_on_import(graded, student, NOTEBOOK, grade_id, module)
