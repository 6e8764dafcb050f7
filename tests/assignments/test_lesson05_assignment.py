"""Lesson 5's nbgrader assignment: its grade contract, its expected values, and a real grading run.

What every assignment must be is checked in ``test_assignments.py``. Here: the grade ids and
points; every value the hidden tests expect, recomputed with windowmem (the n8n agent's runs,
Spring AI's advisor, the rolling summary, the unit conversions), which is tested against the
checked fact sheet; and one run of ``python -m autograder grade`` over the instructor's notebook
(full marks), the untouched release (zero, no crash) and students who make typical mistakes or
take shortcuts (each loses exactly the points of the questions affected).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.nbgrader_helpers import (
    REPO_ROOT,
    GradingRoundTrip,
    always_equal_cheat,
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
from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.conversation import Conversation
from windowmem.design.rolling_summary import rolling_summary, summary_savings
from windowmem.design.side_by_side import questions_and_answers
from windowmem.design.units import turns_in_window
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.langchain import LangChainPyBufferWindow
from windowmem.replay import replay
from windowmem.tokens import count_words

ASSIGNMENT = "lesson05_designing_conversations"
NOTEBOOK = "designing_conversations.ipynb"
SOURCE = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

#: The graded cells and their points; gradebooks in use rely on these names.
GRADE_CONTRACT = {
    "test_stored_sizes": 1,
    "test_turns_covered": 2,
    "test_units": 1,
    "test_n8n_history": 3,
    "test_spring_history": 3,
    "test_langchain_history": 2,
    "test_extract": 1,
    "test_system_message": 2,
    "justify_answer": 2,
    "test_summary_seen": 2,
    "test_input_bill": 3,
}
HAND_GRADED = {"justify_answer"}

#: The body of a history function that stores every message (tool calls too) and slices the
#: last 2 × k with no clean-up, k = 0 loading everything: n8n's window without n8n's agent.
WINDOW_WITHOUT_CLEANUP = """\
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        for call in e.get("tool_calls", []):
            stored += [f"C:{call['id']}", f"R:{call['id']}"]
        stored.append(f"A{number}")
    return stored if k == 0 else stored[-2 * k :]
"""

MUTANTS = {
    # Every turn counted as a question and an answer, tools or not.
    "sizes_ignore_tools": (
        "sizes_answer",
        """
def stored_sizes(executions):
    return [2 for _ in executions]
""",
        {"test_stored_sizes"},
    ),
    # "5 interactions" read as five turns, whatever they hold.
    "coverage_in_pairs": (
        "coverage_answer",
        """
def turns_covered(window_messages, sizes):
    if window_messages is None:
        return (len(sizes), 0)
    return (min(len(sizes), window_messages // 2), 0)
""",
        {"test_turns_covered"},
    ),
    # The window without the agent's clean-up of broken tool exchanges.
    "n8n_no_cleanup": (
        "n8n_answer",
        "def n8n_history(executions, run, k):\n" + WINDOW_WITHOUT_CLEANUP,
        {"test_n8n_history"},
    ),
    # An object equal to anything passes `==`, not a type check.
    "always_equal": (
        "n8n_answer",
        always_equal_cheat(
            """
def n8n_history(executions, run, k):
    return SameAsAnything()
""",
            hide_from_type_checks=False,
        ),
        {"test_n8n_history"},
    ),
    # Spring AI treated like n8n: the tool calls stored too.
    "spring_stores_tools": (
        "spring_answer",
        """
def spring_history(executions, run, max_messages):
    memory = []
    for number, e in enumerate(executions[: run - 1], start=1):
        memory.append(f"U{number}")
        for call in e.get("tool_calls", []):
            memory += [f"C:{call['id']}", f"R:{call['id']}"]
        memory.append(f"A{number}")
        if len(memory) > max_messages:
            cut = len(memory) - max_messages
            while cut < len(memory) and not memory[cut].startswith("U"):
                cut += 1
            memory = memory[cut:]
    return memory
""",
        {"test_spring_history"},
    ),
    # LangChain read like n8n: every message stored, and k = 0 loading all of them.
    "langchain_like_n8n": (
        "langchain_answer",
        "def langchain_history(executions, run, k):\n" + WINDOW_WITHOUT_CLEANUP,
        {"test_langchain_history"},
    ),
    # The visible conversation's number written into the prompt.
    "hard_coded_order": (
        "system_answer",
        """
def system_message_for(executions, run):
    return BASE_PROMPT + "\\nOrder on file: #5120"
""",
        {"test_system_message"},
    ),
    # The summary assumed to be seen on every call.
    "summary_always_seen": (
        "seen_answer",
        """
def summary_seen(k, keep_turns, new_turn_sizes):
    return [True for _ in range(len(new_turn_sizes) + 1)]
""",
        {"test_summary_seen"},
    ),
    # The library's rolling summary does the work: right values, no points.
    "rolling_summary_shortcut": (
        "bill_answer",
        """
from windowmem.messages import assistant, system, user
from windowmem.design.rolling_summary import rolling_summary, summary_savings
from windowmem.tokens import count_words


def _words(n):
    return " ".join(["w"] * n)


def input_bill(turns, system_tokens, k, every=0, keep_turns=0, summary_tokens=0):
    messages = [system(_words(system_tokens))] if system_tokens else []
    messages += [m for q, a in turns for m in (user(_words(q)), assistant(_words(a)))]
    runs = rolling_summary(messages, window=k, every=every, keep_turns=keep_turns,
                           counter=count_words, summariser=lambda _: _words(summary_tokens))
    return sum(r.input_tokens for r in runs)


TOKENS_SAVED = input_bill(TURN_TOKENS, SYSTEM_TOKENS, 0) - input_bill(
    TURN_TOKENS, SYSTEM_TOKENS, 5, every=3, keep_turns=1, summary_tokens=SUMMARY_TOKENS
)
""",
        {"test_input_bill"},
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly rolling_summary_shortcut's points.
MUTANTS |= reached_every_way(
    MUTANTS, "rolling_summary_shortcut", "windowmem.design.rolling_summary"
)

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        "coverage_in_pairs": {"test_turns_covered": 0.86},
        "n8n_no_cleanup": {"test_n8n_history": 2.33},
        "summary_always_seen": {"test_summary_seen": 1.43},
    },
)


#: A student who skims: each product's rule is worded in the prompt (B3 prints its slice), the
#: conversions follow from it, and the rolling summary's bill is a sum the prompt describes.
SKIMMER = transcribed(
    read_notebook(SOURCE),
    "sizes_answer",
    "coverage_answer",
    "units_answer",
    "n8n_answer",
    "spring_answer",
    "langchain_answer",
    "extract_answer",
    "system_answer",
    "seen_answer",
    "bill_answer",
)


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE)


def setup_values(source_nb) -> dict:
    """The setup cell's constants, read without running the notebook."""
    tree = ast.parse(cell_text(cells_by_id(source_nb)["setup"]))
    return {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }


def hidden(source_nb, grade_id: str) -> str:
    return cell_text(cells_by_id(source_nb)[grade_id]).split("### BEGIN HIDDEN TESTS", 1)[1]


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == {
        k: float(v) for k, v in GRADE_CONTRACT.items()
    }
    assert {p: s for p, (s, _) in part_points(source_nb).items()} == {
        "Part A": 4,
        "Part B": 8,
        "Part C": 5,
        "Part D": 5,
    }


def conversation_of(executions: list[dict]) -> Conversation:
    """The execution log as a conversation windowmem replays: one interaction per run."""
    messages = [system("S")]
    for execution in executions:
        messages.append(user(execution["chatInput"]))
        for call in execution.get("tool_calls", []):
            messages += [assistant("", [call["id"]]), tool(call["result"], call["id"])]
        messages.append(assistant(execution["output"]))
    return Conversation.of(messages)


def token(message, executions) -> str:
    if message.calls_tool:
        return "C:" + ",".join(message.tool_calls)
    if message.role is Role.TOOL:
        return f"R:{message.tool_call_id}"
    for i, execution in enumerate(executions, start=1):
        if message.role is Role.USER and message.content == execution["chatInput"]:
            return f"U{i}"
        if message.role is Role.ASSISTANT and message.content == execution["output"]:
            return f"A{i}"
    raise AssertionError(f"unknown message {message}")


def vectors(text: str) -> list[tuple]:
    """The ``(a, b, "tokens")`` tuples of a hidden test."""
    return [
        (int(a), int(b), want) for a, b, want in re.findall(r'\((\d+), (\d+), "([^"]*)"\)', text)
    ]


def test_the_n8n_histories_are_what_the_agent_loads(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    cases = vectors(hidden(source_nb, "test_n8n_history"))
    assert len(cases) == 9
    for run, k, want in cases:
        call = agent_runs(conversation_of(executions), N8nSimpleMemory(k))[run - 1].calls[0]
        assert " ".join(token(m, executions) for m in call.part(Part.MEMORY)) == want, (run, k)


def test_the_spring_histories_are_what_the_advisor_sends(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    cases = vectors(hidden(source_nb, "test_spring_history"))
    assert len(cases) == 7
    for run, most, want in cases:
        call = advisor_calls(conversation_of(executions), SpringAiMessageWindow(most))[run - 1]
        assert " ".join(token(m, executions) for m in call.sent[1:-1]) == want, (run, most)


def test_the_langchain_histories_are_what_save_context_stores(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    stored = questions_and_answers(conversation_of(executions))
    cases = vectors(hidden(source_nb, "test_langchain_history"))
    assert len(cases) == 5
    for run, k, want in cases:
        view = replay(stored, LangChainPyBufferWindow(k))[run - 1]
        assert " ".join(token(m, executions) for m in view.window) == want, (run, k)


def test_the_coverage_vectors_are_the_library_s(source_nb):
    text = hidden(source_nb, "test_turns_covered")
    found = re.findall(r"\((\d+|None), (\[[^\]]*\]), \((\d+), (\d+)\)\)", text)
    assert len(found) == 6  # and the one written with a repeat:
    assert "(20, [2] * 15, (10, 0))" in text and turns_in_window(20, [2] * 15).whole_turns == 10
    for window, sizes, whole, partial in found:
        coverage = turns_in_window(
            None if window == "None" else int(window), ast.literal_eval(sizes)
        )
        assert (coverage.whole_turns, coverage.partial_messages) == (int(whole), int(partial))


def words(n: int) -> str:
    return " ".join(["w"] * n)


def test_the_summary_vectors_are_what_the_rolling_summary_sends():
    """summary_seen's vectors, replayed: an override after turn 6 with r turns kept, then new turns."""
    for k, keep, sizes, want in (
        (5, 1, [2, 2, 2], [True, True, True, True]),
        (5, 1, [2, 2, 2, 2], [True, True, True, True, False]),
        (5, 5, [2], [False, False]),
        (5, 4, [2], [True, False]),
        (2, 0, [2, 2], [True, True, False]),
        (0, 5, [2, 2], [True, True, True]),
    ):
        turns = 6 + len(sizes) + 1
        chat = [m for t in range(1, turns + 1) for m in (user(f"u{t}"), assistant(f"a{t}"))]
        seen = rolling_summary(chat, window=k, every=6, keep_turns=keep)
        assert [t.summary_sent for t in seen[6:]] == want, (k, keep, sizes)


def test_the_bills_are_the_rolling_summary_s(source_nb):
    values = setup_values(source_nb)
    text = hidden(source_nb, "test_input_bill")
    turns = values["TURN_TOKENS"]
    chat = [system(words(values["SYSTEM_TOKENS"]))] + [
        m for q, a in turns for m in (user(words(q)), assistant(words(a)))
    ]

    def bill(k, every=0, keep=0):
        runs = rolling_summary(
            chat,
            window=k,
            every=every,
            keep_turns=keep,
            counter=count_words,
            summariser=lambda _: words(values["SUMMARY_TOKENS"]),
        )
        return sum(r.input_tokens for r in runs)

    expected = {
        "SYSTEM_TOKENS, 0)": bill(0),
        "SYSTEM_TOKENS, 5)": bill(5),
        "SYSTEM_TOKENS, 5, 3, 1, SUMMARY_TOKENS)": bill(5, 3, 1),
        "SYSTEM_TOKENS, 5, 5, 5, SUMMARY_TOKENS)": bill(5, 5, 5),
        "SYSTEM_TOKENS, 2, 2, 0, SUMMARY_TOKENS)": bill(2, 2, 0),
    }
    for args, value in expected.items():
        assert f"{args}, {value})" in text, (args, value)
    # the fair yardstick (the same window, no summary) with the summariser's calls counted
    savings = summary_savings(
        chat,
        window=5,
        every=3,
        keep_turns=1,
        counter=count_words,
        summariser=lambda _: words(values["SUMMARY_TOKENS"]),
    )
    assert (savings.plain_tokens, savings.summarised_tokens) == (bill(5), bill(5, 3, 1))
    assert f"TOKENS_SAVED == {bill(5)} - {bill(5, 3, 1)} - {savings.summariser_tokens}" in text


def test_the_hidden_conversation_of_c2_loses_the_fact_without_the_system_prompt(source_nb):
    """The hidden chat is a real test: through n8n's window of 2 the number leaves memory."""
    text = hidden(source_nb, "test_system_message")
    chat = ast.literal_eval(re.search(r"_chat = (\[.*?\n\])", text, re.S).group(1))
    runs = agent_runs(conversation_of(chat), N8nSimpleMemory(2))
    lost = [
        run.turn
        for run in runs[1:5]
        if not any("#88310" in m.content for m in run.calls[0].messages[1:])
    ]
    assert lost, "the hidden chat should drop the number from the window at some run"


# ---------------------------------------------------------------- a grading run


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED


@pytest.mark.slow
def test_the_library_shortcut_fails_on_what_it_calls_not_on_its_values(graded):
    """The shortcut's bill is right: it loses its points only because it called the library's."""
    check_shortcut_fails_on_import(
        graded, "rolling_summary_shortcut", NOTEBOOK, "test_input_bill", "design.rolling_summary"
    )
