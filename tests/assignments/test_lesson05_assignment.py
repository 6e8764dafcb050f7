"""Lesson 5's nbgrader assignment: its grade contract, its expected values, and a real grading run.

What every assignment must be is checked in ``test_assignments.py``. Here: the grade ids and
points; every value the hidden tests expect, recomputed with windowmem (the n8n agent's runs,
Spring AI's advisor, LangChain's buffer window, the rolling summary), which is tested against
the checked fact sheet and n8n 2.41.1 running; the seeded space Part A's hidden cases are drawn
from, replayed through windowmem; and one run of ``python -m autograder grade`` over the
instructor's notebook (full marks), the untouched release (zero, no crash), students who make
typical mistakes or take shortcuts (each loses exactly the points of the cases affected) and a
skimmer (at most a quarter of the points).
"""

from __future__ import annotations

import ast
import random
import re

import pytest

from tests.nbgrader_helpers import (
    REPO_ROOT,
    SKIMMER_SHARE,
    GradingRoundTrip,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    check_shortcut_fails_on_import,
    check_skimmer_share,
    graded_points,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    skimmer_share,
    support_namespace,
    with_partial_losses,
)
from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.conversation import Conversation
from windowmem.design.rolling_summary import rolling_summary, summary_savings
from windowmem.messages import Message, Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.langchain import LangChainPyBufferWindow
from windowmem.tokens import count_all

ASSIGNMENT = "lesson05_designing_conversations"
NOTEBOOK = "designing_conversations.ipynb"
SOURCE = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

#: The graded cells and their points; gradebooks in use rely on these names. Issue 23 replaced
#: Part A's coverage and conversion questions (test_turns_covered, test_units) with the sizing
#: task and its price, and C1's regular expression (test_extract) with the diagnosis of which
#: calls lose the number; the parts keep their points.
GRADE_CONTRACT = {
    "test_stored_sizes": 1,
    "test_smallest_window": 2,
    "test_history_tokens": 1,
    "test_n8n_history": 3,
    "test_spring_history": 3,
    "test_langchain_history": 2,
    "test_number_missing": 2,
    "test_system_message": 1,
    "justify_answer": 2,
    "test_summary_seen": 2,
    "test_input_bill": 3,
}
HAND_GRADED = {"justify_answer"}


def solution_source(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])


def edited(grade_id: str, *replacements: tuple[str, str]) -> str:
    """The model answer of *grade_id* with each (old, new) replaced once; old must be there."""
    text = solution_source(grade_id)
    for old, new in replacements:
        if text.count(old) != 1:
            raise ValueError(f"{grade_id}: {old!r} occurs {text.count(old)} times")
        text = text.replace(old, new)
    return text


#: The model answers' clean-up of a broken exchange at the start of a window, as written there.
CLEANUP = """    while True:
        before = len(window)
        while window and window[0].startswith("R:"):
            window = window[1:]
        if window and window[0].startswith("C:") and (len(window) < 2 or not window[1].startswith("R:")):
            window = window[1:]
        # n8n cleans the end the same way, but a history n8n stored always ends with a run's
        # answer: nothing there is ever dropped, so no case could tell that code apart
        if len(window) == before:
            return window
"""
LAST_ROUND = """    last = e["tool_rounds"][-1] if e.get("tool_rounds") else []
            sizes.append(2 + 2 * len(last))"""

MUTANTS = {
    # The lesson's summary read literally: 2 + 2 × every tool call of the run, every round kept.
    "sizes_every_round": (
        "sizes_answer",
        edited(
            "sizes_answer",
            (
                LAST_ROUND,
                """    sizes.append(2 + 2 * sum(len(r) for r in e.get("tool_rounds", [])))""",
            ),
        ),
        {"test_stored_sizes"},
    ),
    # A failed run counted as if it had stored its question and answer.
    "sizes_failed_run_stored": (
        "sizes_answer",
        edited("sizes_answer", ('if e.get("output") is None:', "if False:")),
        {"test_stored_sizes"},
    ),
    # The new question counted inside the window (it is sent beside it): one k too many
    # exactly when the turns fill the window to its last place.
    "window_counts_the_question": (
        "window_answer",
        edited("window_answer", ("max(1, (need + 1) // 2)", "max(1, (need + 2) // 2)")),
        {"test_smallest_window"},
    ),
    # Sized with every tool call of a run kept, as the summary's formula reads.
    "window_every_round": (
        "window_answer",
        edited(
            "window_answer",
            (
                "sizes.append(2 + 2 * len(rounds[-1]))",
                'sizes.append(2 + 2 * sum(len(r) for r in e.get("tool_rounds", [])))',
            ),
        ),
        {"test_smallest_window"},
    ),
    # Each run priced once, as if its tool rounds did not load the memory again.
    "price_one_call_per_run": (
        "price_answer",
        edited("price_answer", ("total += (len(rounds) + 1) * sum(", "total += 1 * sum(")),
        {"test_history_tokens"},
    ),
    # The window without the agent's clean-up of broken tool exchanges.
    "n8n_no_cleanup": (
        "n8n_answer",
        edited("n8n_answer", (CLEANUP, "    return window\n")),
        {"test_n8n_history"},
    ),
    # The start's rule with `and` turned into `or`: a call is dropped even when its result follows.
    "n8n_cleanup_and_or": (
        "n8n_answer",
        edited(
            "n8n_answer",
            (
                'window[0].startswith("C:") and (len(window)',
                'window[0].startswith("C:") or (len(window)',
            ),
        ),
        {"test_n8n_history"},
    ),
    # A failed run stored like one that answered, as Spring AI keeps its question.
    "n8n_failed_run_stored": (
        "n8n_answer",
        edited(
            "n8n_answer",
            (
                '        if e.get("output") is None:\n            continue  # a run without an answer writes nothing\n',
                "",
            ),
        ),
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
    # Spring AI treated like n8n: the last round's tool calls stored too.
    "spring_stores_tools": (
        "spring_answer",
        edited(
            "spring_answer",
            (
                '        if e.get("output") is not None:\n            add(f"A{number}")',
                '        if e.get("output") is not None:\n'
                '            for call in (e.get("tool_rounds") or [[]])[-1]:\n'
                "                add(f\"C:{call['id']}\")\n"
                "                add(f\"R:{call['id']}\")\n"
                '            add(f"A{number}")',
            ),
        ),
        {"test_spring_history"},
    ),
    # The memory read as the last max_messages messages, first in first out (v1.1.8's rule).
    "spring_fifo": (
        "spring_answer",
        edited(
            "spring_answer",
            (
                '            while cut < len(memory) and not memory[cut].startswith("U"):\n                cut += 1\n',
                "",
            ),
        ),
        {"test_spring_history"},
    ),
    # n8n's timing taken for Spring AI's: a failed call leaves no question behind.
    "spring_failed_question_dropped": (
        "spring_answer",
        edited(
            "spring_answer",
            (
                '        add(f"U{number}")  # stored before the call, so a failed call leaves it\n'
                '        if e.get("output") is not None:\n',
                '        if e.get("output") is not None:\n            add(f"U{number}")\n',
            ),
        ),
        {"test_spring_history"},
    ),
    # LangChain Python's k = 0 read as n8n's: every stored pair.
    "langchain_zero_loads_all": (
        "langchain_answer",
        edited(
            "langchain_answer",
            ("return stored[-2 * k :] if k > 0 else []", "return stored[-2 * k :]"),
        ),
        {"test_langchain_history"},
    ),
    # save_context assumed to run for a failed run too, with the question alone.
    "langchain_failed_run_stored": (
        "langchain_answer",
        edited(
            "langchain_answer",
            (
                '        if e.get("output") is not None\n        for token in (f"U{number}", f"A{number}")',
                '        for token in ((f"U{number}", f"A{number}") if e.get("output") is not None else (f"U{number}",))',
            ),
        ),
        {"test_langchain_history"},
    ),
    # Only the customer's own messages counted: the answers and tool results that repeat the
    # number are forgotten.
    "missing_customer_only": (
        "missing_answer",
        edited(
            "missing_answer",
            (
                "sent = [text for _, text in window]",
                'sent = [text for kind, text in window if kind == "user"]',
            ),
        ),
        {"test_number_missing"},
    ),
    # Every round of a run stored, as the summary's formula reads.
    "missing_every_round": (
        "missing_answer",
        edited(
            "missing_answer",
            (
                'last = e["tool_rounds"][-1] if e.get("tool_rounds") else []',
                'last = [c for r in e.get("tool_rounds", []) for c in r]',
            ),
        ),
        {"test_number_missing"},
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
    # The first number kept: a corrected one never reaches the prompt.
    "system_first_number": (
        "system_answer",
        edited(
            "system_answer",
            (
                "number = found[-1] if found else number",
                "number = number or (found[-1] if found else None)",
            ),
        ),
        {"test_system_message"},
    ),
    # The summary assumed to be seen on every call.
    "summary_always_seen": (
        "seen_answer",
        edited("seen_answer", ('seen.append("summary" in window if', "seen.append(True if")),
        {"test_summary_seen"},
    ),
    # The kept turns written back with their tool calls, which the Manager cannot write.
    "summary_kept_with_tools": (
        "seen_answer",
        edited(
            "seen_answer",
            (
                'stored = ["summary", *["user", "answer"] * min(keep_turns, number)]',
                'stored = ["summary"] + [m for x in executions[max(0, number - keep_turns) : number] '
                'for m in ["user", *["call", "result"] * len((x.get("tool_rounds") or [[]])[-1]), "answer"]]',
            ),
        ),
        {"test_summary_seen"},
    ),
    # The summariser's calls left out of the saving: the plan looks cheaper than it is.
    "bill_summariser_unpaid": (
        "bill_answer",
        edited(
            "bill_answer",
            (
                "TOKENS_SAVED = sum(window_alone) - sum(with_summary)",
                "TOKENS_SAVED = window_alone[0] - with_summary[0]",
            ),
        ),
        {"test_input_bill"},
    ),
    # The flattering yardstick: the whole history instead of the window the plan replaces.
    "bill_whole_history_yardstick": (
        "bill_answer",
        edited(
            "bill_answer",
            (
                "window_alone = plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5)",
                "window_alone = plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 0)",
            ),
        ),
        {"test_input_bill"},
    ),
    # One call per run: the tool rounds' calls, which send the history again, left out.
    "bill_one_call_per_run": (
        "bill_answer",
        edited("bill_answer", ("for rnd in [*rounds, []]:", "for rnd in [[]]:")),
        {"test_input_bill"},
    ),
    # The n8n agent's replay does the pricing: right values, no points.
    "agent_runs_shortcut": (
        "price_answer",
        """
from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.messages import assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory


def history_tokens(executions, k, tokens):
    loaded = Part.MEMORY  # what the agent's replay says came from memory
    messages = [system("S")]
    for e in executions:
        messages.append(user(e["chatInput"]))
        for rnd in e.get("tool_rounds", []):
            messages.append(assistant("", [c["id"] for c in rnd]))
            messages += [tool(c["result"], c["id"]) for c in rnd]
        if e.get("output") is not None:
            messages.append(assistant(e["output"]))
    price = {"user": tokens["user"], "assistant": tokens["answer"], "tool": tokens["result"]}
    return sum(
        tokens["call"] if m.tool_calls else price[m.role.value]
        for run in agent_runs(messages, N8nSimpleMemory(k))
        for call in run.calls
        for m in call.part(loaded)
    )
""",
        {"test_history_tokens"},
    ),
    # The library's rolling summary does the work: right values, no points.
    "rolling_summary_shortcut": (
        "bill_answer",
        """
from windowmem.messages import assistant, system, tool, user
from windowmem.design.rolling_summary import rolling_summary


def _words(n):
    return " ".join(["w"] * n)


def plan_bill(executions, tokens, system_tokens, k, every=0, keep_turns=0, summary_tokens=0):
    messages = [system(_words(system_tokens))]
    for e in executions:
        messages.append(user(_words(tokens["user"])))
        for rnd in e.get("tool_rounds", []):
            messages.append(assistant("", [c["id"] for c in rnd]))
            messages += [tool(_words(tokens["result"]), c["id"]) for c in rnd]
        messages.append(assistant(_words(tokens["answer"])))
    runs = rolling_summary(messages, window=k, every=every, keep_turns=keep_turns,
                           counter=lambda m: tokens["call"] if m.tool_calls else len(m.content.split()),
                           summariser=lambda _: _words(summary_tokens))
    return (sum(r.input_tokens for r in runs), sum(r.summariser_tokens for r in runs))


TOKENS_SAVED = sum(plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5)) - sum(
    plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5, every=3, keep_turns=1, summary_tokens=SUMMARY_TOKENS)
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
        "window_every_round": {"test_smallest_window": 1.38},
        "n8n_no_cleanup": {"test_n8n_history": 1.67},
        "n8n_failed_run_stored": {"test_n8n_history": 2.67},
        "spring_fifo": {"test_spring_history": 2.5},
        "spring_failed_question_dropped": {"test_spring_history": 1.5},
        "langchain_zero_loads_all": {"test_langchain_history": 0.67},
        "langchain_failed_run_stored": {"test_langchain_history": 1.33},
        "missing_customer_only": {"test_number_missing": 1.67},
        "missing_every_round": {"test_number_missing": 1.0},
        "system_first_number": {"test_system_message": 0.38},
        "bill_summariser_unpaid": {"test_input_bill": 0.33},
        "bill_whole_history_yardstick": {"test_input_bill": 0.33},
    },
)


#: A student who skims (issue 23): each answer is what the prompt's sentences say, read
#: literally, with the rules copied from the lesson's summary and printed cells (a turn stores
#: "2 + 2 × tool calls", Spring AI counts messages, k pairs for LangChain, "1 + kept + new <=
#: 2 × k"), fitted to pass every visible check. The first comment of each cell says what it
#: copied. It is generous where a literal reading is right: the orphan clean-up at the start,
#: a failed call without an answer, Spring AI's question kept, the C2 design as worded.
SKIMMER = {
    "sizes_answer": r"""
# copied from the lesson's summary: "n8n's AI Agent 3 and 3.1 2 + 2 × tool calls"
def stored_sizes(executions):
    return [2 + 2 * sum(len(r) for r in e.get("tool_rounds", [])) for e in executions]
""",
    "window_answer": r"""
# the lesson's worked answer to self-check 2c: a turn stores 2 + 2 × its tool calls, and
# 2 × k must hold the turns wanted; every call must, so the largest need counts
def smallest_window(executions, recall):
    sizes = [2 + 2 * sum(len(r) for r in e.get("tool_rounds", [])) for e in executions]
    need = 0
    for run in range(len(executions)):
        need = max(need, sum(sizes[max(0, run - recall) : run]))
    return max(1, (need + 1) // 2)
""",
    "price_answer": r"""
# every run's call loads the last 2 × k stored messages, the orphans at the start dropped (the
# lesson's summary); each message priced by its kind
def history_tokens(executions, k, tokens):
    stored, total = [], 0
    for e in executions:
        window = stored if k == 0 else stored[-2 * k :]
        while window and window[0] in ("result", "call"):
            window = window[1:]
        total += sum(tokens[kind] for kind in window)
        stored.append("user")
        for r in e.get("tool_rounds", []):
            stored += ["call", "result"] * len(r)
        if e.get("output") is not None:
            stored.append("answer")
    return total
""",
    "n8n_answer": r"""
# n8n stores the question, a call and a result per tool call, and the answer; the window is the
# last 2 × k; the agent drops orphaned tool messages at the window's edges (the lesson's summary)
def n8n_history(executions, run, k):
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        for r in e.get("tool_rounds", []):
            for call in r:
                stored += [f"C:{call['id']}", f"R:{call['id']}"]
        if e.get("output") is not None:
            stored.append(f"A{number}")
    window = stored if k == 0 else stored[-2 * k :]
    while window and (window[0].startswith("R:") or (window[0].startswith("C:") and (len(window) < 2 or not window[1].startswith("R:")))):
        window = window[1:]
    while window and window[-1].startswith("C:"):
        window = window[:-1]
    return window
""",
    "spring_answer": r"""
# Spring AI stores the question and the answer of each turn and counts messages (the lesson's
# summary and table): the last max_messages of them
def spring_history(executions, run, max_messages):
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        if e.get("output") is not None:
            stored.append(f"A{number}")
    return stored[-max_messages:]
""",
    "langchain_answer": r"""
# save_context stores the question and the answer; the window is k pairs, the last 2 × k messages
def langchain_history(executions, run, k):
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        if e.get("output") is not None:
            stored.append(f"A{number}")
    return stored[-2 * k :]
""",
    "missing_answer": r"""
# the runs whose call carries the number nowhere: the skimmer's n8n history (B1) and the run's
# own message, each message's text looked up
def runs_missing_number(executions, k):
    texts, given, number = {}, None, None
    for n, e in enumerate(executions, start=1):
        texts[f"U{n}"], texts[f"A{n}"] = e["chatInput"], e.get("output") or ""
        for r in e.get("tool_rounds", []):
            for call in r:
                texts[f"R:{call['id']}"] = call["result"]
        found = re.findall(r"#\d{4,}", e["chatInput"])
        if found and given is None:
            given, number = n, found[-1]
    return [
        run for run in range(given + 1, len(executions) + 1)
        if not any(number in texts.get(t, "") for t in n8n_history(executions, run, k) + [f"U{run}"])
    ]
""",
    "system_answer": r"""
# the prompt's design, as worded: the base prompt, then the latest number given so far
def system_message_for(executions, run):
    number = None
    for e in executions[:run]:
        found = re.findall(r"#\d{4,}", e["chatInput"])
        if found:
            number = found[-1]
    return BASE_PROMPT if number is None else BASE_PROMPT + "\nOrder on file: " + number
""",
    "seen_answer": r"""
# the lesson's rule "1 + kept + new <= 2 × k", a turn counted as 2 + 2 × its tool calls
def summary_seen(executions, k, every, keep_turns):
    sizes = [2 + 2 * sum(len(r) for r in e.get("tool_rounds", [])) for e in executions]
    seen, last = [], None
    for number in range(1, len(executions) + 1):
        if last is None:
            seen.append(None)
        else:
            kept = sum(sizes[max(0, last - keep_turns) : last])
            new = sum(sizes[last : number - 1])
            seen.append(k == 0 or 1 + kept + new <= 2 * k)
        if every and number % every == 0:
            last = number
    return seen
""",
    "bill_answer": r"""
# one call per turn: the System Message, the window and the question; the summariser reads
# the store at each override; the summary and the newest turns replace the store
def plan_bill(executions, tokens, system_tokens, k, every=0, keep_turns=0, summary_tokens=0):
    def turn(e):
        out = [tokens["user"]]
        for r in e.get("tool_rounds", []):
            out += [tokens["call"], tokens["result"]] * len(r)
        return out + [tokens["answer"]]
    stored, agent, summariser = [], 0, 0
    for number, e in enumerate(executions, start=1):
        window = stored if k == 0 else stored[-2 * k :]
        agent += system_tokens + sum(window) + tokens["user"]
        stored += turn(e)
        if every and number % every == 0:
            summariser += sum(stored)
            stored = [summary_tokens] + [t for x in executions[max(0, number - keep_turns) : number] for t in turn(x)]
    return (agent, summariser)


TOKENS_SAVED = sum(plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5)) - sum(
    plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5, 3, 1, SUMMARY_TOKENS)
)
""",
}


#: Sharper skimmers a reviewer would try (issue 23, second pass), each handed in as its own
#: student of the same grading run, the model skimmer's answers with the cells named changed;
#: each must earn at most a quarter (test_a_sharper_skimmer_earns_at_most_a_quarter).
#: "summary_rules" applies the lesson's Summary literally, with its corrected storage rule (n8n
#: stores 2 + 2 × the tool calls of the LAST model round), the orphans dropped at both edges,
#: every model call of a run priced (a failed run's question and last round stored, as the
#: Summary does not say otherwise); "spring_cut_once" adds lesson 5's Deeper on Spring
#: AI's cut (moved forward to the next question, once, on the window read at the end);
#: "constant" answers every question with one constant.
_SIZES_EVERY_ROUND = 'sum(len(r) for r in e.get("tool_rounds", []))'
_SIZES_LAST_ROUND = 'len((e.get("tool_rounds") or [[]])[-1])'


def _last_round(answer: str) -> str:
    """The model skimmer's answer with the stored tool calls those of the run's last round."""
    return answer.replace(_SIZES_EVERY_ROUND, _SIZES_LAST_ROUND).replace(
        'for r in e.get("tool_rounds", []):', 'for r in (e.get("tool_rounds") or [[]])[-1:]:'
    )


_SUMMARY_PRICE = r"""
# the summary's rules: a run stores its question, the last round's calls and results, its answer;
# each call loads the last 2 × k, orphans dropped at the start; "every model call of every run":
# one per tool round and the last
def history_tokens(executions, k, tokens):
    stored, total = [], 0
    for e in executions:
        window = stored if k == 0 else stored[-2 * k :]
        while window and (window[0] == "result" or (window[0] == "call" and (len(window) < 2 or window[1] != "result"))):
            window = window[1:]
        rounds = e.get("tool_rounds") or []
        total += (len(rounds) + 1) * sum(tokens[kind] for kind in window)
        stored.append("user")
        stored += ["call", "result"] * len(rounds[-1] if rounds else [])
        if e.get("output") is not None:
            stored.append("answer")
    return total
"""

_SUMMARY_BILL = r"""
# the summary's storage rule, every model call of a run paid (one per tool round and the last,
# each with the run's steps so far); the summariser reads the store at each override
def plan_bill(executions, tokens, system_tokens, k, every=0, keep_turns=0, summary_tokens=0):
    def turn(e):
        last = (e.get("tool_rounds") or [[]])[-1]
        return [tokens["user"], *[tokens["call"], tokens["result"]] * len(last), tokens["answer"]]
    stored, agent, summariser = [], 0, 0
    for number, e in enumerate(executions, start=1):
        window = stored if k == 0 else stored[-2 * k :]
        steps = 0
        for rnd in [*(e.get("tool_rounds") or []), []]:
            agent += system_tokens + sum(window) + tokens["user"] + steps
            steps += len(rnd) * (tokens["call"] + tokens["result"])
        stored += turn(e)
        if every and number % every == 0:
            summariser += sum(stored)
            stored = [summary_tokens] + [t for x in executions[max(0, number - keep_turns) : number] for t in turn(x)]
    return (agent, summariser)


TOKENS_SAVED = sum(plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5)) - sum(
    plan_bill(LONG_CHAT, TOKENS, SYSTEM_TOKENS, 5, 3, 1, SUMMARY_TOKENS)
)
"""

_SUMMARY_RULES = dict(
    SKIMMER,
    sizes_answer=_last_round(SKIMMER["sizes_answer"]),
    window_answer=_last_round(SKIMMER["window_answer"]),
    price_answer=_SUMMARY_PRICE,
    n8n_answer=_last_round(SKIMMER["n8n_answer"]),
    missing_answer=_last_round(SKIMMER["missing_answer"]),
    seen_answer=_last_round(SKIMMER["seen_answer"]),
    bill_answer=_SUMMARY_BILL,
)


def _failed_nothing(answer: str) -> str:
    """An answer whose n8n store skips a run without an answer (lesson 2's mistake 3)."""
    return (
        answer.replace(
            'for number, e in enumerate(executions[: run - 1], start=1):\n        stored.append(f"U{number}")',
            "for number, e in enumerate(executions[: run - 1], start=1):\n"
            '        if e.get("output") is None:\n            continue\n'
            '        stored.append(f"U{number}")',
        )
        .replace(
            "for e in executions:\n        window = stored",
            'for e in executions:\n        if e.get("output") is None:\n'
            '            total += (len(e.get("tool_rounds") or []) + 1) * 0\n'
            "        window = stored",
        )
        .replace(
            '        stored.append("user")\n        stored += ["call", "result"]',
            '        if e.get("output") is None:\n            continue\n'
            '        stored.append("user")\n        stored += ["call", "result"]',
        )
        .replace(
            f"[2 + 2 * {_SIZES_LAST_ROUND} for e in executions]",
            f'[0 if e.get("output") is None else 2 + 2 * {_SIZES_LAST_ROUND} for e in executions]',
        )
    )


SHARPER_SKIMMERS = {
    "summary_rules": _SUMMARY_RULES,
    "spring_cut_once": dict(
        SKIMMER,
        spring_answer=r"""
# the lesson's Deeper: Spring AI 2.0.1 moves a cut forward to the next user message
def spring_history(executions, run, max_messages):
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        if e.get("output") is not None:
            stored.append(f"A{number}")
    window = stored[-max_messages:]
    if len(stored) > max_messages:
        while window and not window[0].startswith("U"):
            window = window[1:]
    return window
""",
        langchain_answer=r"""
# lesson 3's summary: LangChain Python loads nothing at all for k = 0
def langchain_history(executions, run, k):
    stored = []
    for number, e in enumerate(executions[: run - 1], start=1):
        stored.append(f"U{number}")
        if e.get("output") is not None:
            stored.append(f"A{number}")
    return stored[-2 * k :] if k > 0 else []
""",
    ),
    "constant": {
        "sizes_answer": "def stored_sizes(executions):\n    return [2 for _ in executions]\n",
        "window_answer": "def smallest_window(executions, recall):\n    return 5\n",
        "price_answer": "def history_tokens(executions, k, tokens):\n    return 0\n",
        "n8n_answer": "def n8n_history(executions, run, k):\n    return []\n",
        "spring_answer": "def spring_history(executions, run, max_messages):\n    return []\n",
        "langchain_answer": "def langchain_history(executions, run, k):\n    return []\n",
        "missing_answer": "def runs_missing_number(executions, k):\n    return []\n",
        "system_answer": "def system_message_for(executions, run):\n    return BASE_PROMPT\n",
        "seen_answer": "def summary_seen(executions, k, every, keep_turns):\n    return [None] * every + [True] * (len(executions) - every)\n",
        "bill_answer": "def plan_bill(executions, tokens, system_tokens, k, every=0, keep_turns=0, summary_tokens=0):\n    return (0, 0)\n\n\nTOKENS_SAVED = 0\n",
    },
}

#: Measured, not met: the Summary's rules with lesson 2's mistake 3 (an n8n run that fails stores
#: nothing) know all of n8n's storage, which is what Parts A, B1 and C1 ask for: about 50%.
MEASURED_SKIMMERS = {
    "summary_rules_failed_nothing": dict(
        _SUMMARY_RULES,
        **{
            cell: _failed_nothing(_SUMMARY_RULES[cell])
            for cell in ("sizes_answer", "price_answer", "n8n_answer")
        },
    ),
}


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


def loop_cases(source_nb, grade_id: str, names: dict | None = None) -> list[tuple]:
    """The cases a hidden test loops over (the tuple after ``for ... in``), evaluated with *names*."""
    tree = ast.parse(hidden(source_nb, grade_id).split("### END HIDDEN TESTS", 1)[0])
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Tuple)]
    assert len(loops) == 1, f"{grade_id}: one loop over a tuple of cases expected"
    return [
        eval(compile(ast.Expression(element), grade_id, "eval"), {}, dict(names or {}))  # noqa: S307
        for element in loops[0].iter.elts
    ]


def hidden_literal(source_nb, grade_id: str, name: str):
    """A literal the hidden test assigns to *name*, such as a conversation."""
    tree = ast.parse(hidden(source_nb, grade_id).split("### END HIDDEN TESTS", 1)[0])
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise KeyError(name)


def words(n: int) -> str:
    return " ".join(["w"] * n)


def conversation_of(
    executions: list[dict], prices: dict | None = None, system_tokens: int = 0
) -> Conversation:
    """An execution log as a conversation windowmem replays: one interaction per run.

    Each tool round is one assistant message asking for its calls, then their results; a run
    whose last call failed has no answer. With *prices*, every message is that many words.
    """
    messages: list[Message] = [system(words(system_tokens) if prices else "S")]
    for e in executions:
        messages.append(user(words(prices["user"]) if prices else e["chatInput"]))
        for rnd in e.get("tool_rounds") or []:
            messages.append(assistant("", [c["id"] for c in rnd]))
            messages += [
                tool(words(prices["result"]) if prices else c["result"], c["id"]) for c in rnd
            ]
        if e.get("output") is not None:
            messages.append(assistant(words(prices["answer"]) if prices else e["output"]))
    return Conversation.of(messages)


def priced(prices: dict):
    """A token counter that prices a message by its kind: a tool call at prices["call"], else its words."""
    return lambda m: prices["call"] if m.calls_tool else len(m.content.split())


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


def test_the_stored_sizes_are_what_the_agent_saves(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    runs = agent_runs(conversation_of(executions), N8nSimpleMemory(5))
    text = hidden(source_nb, "test_stored_sizes")
    sizes = [len(run.saved) for run in runs]
    assert sizes == [2, 4, 6, 4, 0, 2, 2, 2] and f"_got == {sizes}" in text
    call = lambda i: {"id": i, "result": "ok"}  # noqa: E731
    cases = loop_cases(source_nb, "test_stored_sizes", {"_call": call})
    assert len(cases) == 6
    for rounds, output, want in cases:
        log = [{"chatInput": "x", "tool_rounds": rounds, "output": output}]
        assert len(agent_runs(conversation_of(log), N8nSimpleMemory(5))[0].saved) == want, rounds


def test_the_n8n_histories_are_what_the_agent_loads(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    cases = loop_cases(source_nb, "test_n8n_history")
    assert len(cases) == 9
    for run, k, want in cases:
        call = agent_runs(conversation_of(executions), N8nSimpleMemory(k))[run - 1].calls[0]
        assert " ".join(token(m, executions) for m in call.part(Part.MEMORY)) == want, (run, k)


def test_the_spring_histories_are_what_the_advisor_sends(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    cases = loop_cases(source_nb, "test_spring_history")
    assert len(cases) == 6
    for run, most, want in cases:
        call = advisor_calls(conversation_of(executions), SpringAiMessageWindow(most))[run - 1]
        assert " ".join(token(m, executions) for m in call.sent[1:-1]) == want, (run, most)


def test_the_langchain_histories_are_what_save_context_stores(source_nb):
    """save_context runs once an agent returns: the answered runs' question and answer."""
    executions = setup_values(source_nb)["EXECUTIONS"]
    cases = loop_cases(source_nb, "test_langchain_history")
    assert len(cases) == 6
    for run, k, want in cases:
        saved = [
            m
            for e in executions[: run - 1]
            if e["output"] is not None
            for m in (user(e["chatInput"]), assistant(e["output"]))
        ]
        window = LangChainPyBufferWindow(k).window(saved)
        assert " ".join(token(m, executions) for m in window) == want, (run, k)


def test_the_missing_runs_are_where_the_number_leaves_the_first_call(source_nb):
    executions = setup_values(source_nb)["EXECUTIONS"]
    chats = {
        "EXECUTIONS": executions,
        "_chat": hidden_literal(source_nb, "test_number_missing", "_chat"),
        "_two_calls": hidden_literal(source_nb, "test_number_missing", "_two_calls"),
    }
    numbers = {"EXECUTIONS": "#5120", "_chat": "#77120", "_two_calls": "#30418"}
    cases = loop_cases(source_nb, "test_number_missing")
    assert len(cases) == 6
    for name, k, want in cases:
        chat = chats[name]
        number = numbers[name]
        given = next(i for i, e in enumerate(chat, start=1) if number in e["chatInput"])
        runs = agent_runs(conversation_of(chat), N8nSimpleMemory(k))
        missing = [
            run.turn
            for run in runs[given:]
            if not any(number in m.content for m in run.calls[0].messages)
        ]
        assert missing == want, (name, k, missing)
    # the hidden chat tells the readings apart: a first round's result that is not stored, a
    # stored last round that carries the number, and a failed run that stores nothing
    chat = chats["_chat"]
    assert (
        "#77120" in chat[1]["tool_rounds"][0][0]["result"]
        and "#77120" in chat[3]["tool_rounds"][-1][0]["result"]
    )
    assert chat[4]["output"] is None and "#77120" in chat[4]["tool_rounds"][-1][0]["result"]


def test_the_hidden_conversation_of_c2_loses_the_fact_without_the_system_prompt(source_nb):
    """The hidden chat is a real test: through n8n's window of 2 the number leaves memory."""
    chat = hidden_literal(source_nb, "test_system_message", "_chat")
    runs = agent_runs(conversation_of(chat), N8nSimpleMemory(2))
    lost = [
        run.turn
        for run in runs[1:5]
        if not any("#88310" in m.content for m in run.calls[0].messages[1:])
    ]
    assert lost, "the hidden chat should drop the number from the window at some run"
    assert chat[5]["output"] is None and "#90021" in chat[5]["chatInput"], (
        "a new number given in a failed run"
    )


def test_the_summary_vectors_are_what_the_rolling_summary_sends(source_nb):
    chat = conversation_of(setup_values(source_nb)["LONG_CHAT"])
    letters = {True: "T", False: "F", None: "-"}
    parts = loop_cases(source_nb, "test_summary_seen")
    cases = [case for part in parts for case in part]
    assert (len(parts), len(cases)) == (7, 8)
    for k, every, keep, want in cases:
        seen = rolling_summary(chat, window=k, every=every, keep_turns=keep)
        assert "".join(letters[t.summary_sent] for t in seen) == want, (k, every, keep)


def test_the_bills_are_the_rolling_summary_s(source_nb):
    values = setup_values(source_nb)
    prices, chat_log = values["TOKENS"], values["LONG_CHAT"]
    chat = conversation_of(chat_log, prices, values["SYSTEM_TOKENS"])

    def bill(k, every=0, keep=0, summary=0):
        runs = rolling_summary(
            chat, window=k, every=every, keep_turns=keep, counter=priced(prices),
            summariser=lambda _: words(summary),
        )  # fmt: skip
        return (sum(r.input_tokens for r in runs), sum(r.summariser_tokens for r in runs))

    cases = loop_cases(source_nb, "test_input_bill", values)
    assert len(cases) == 8
    for args, want in cases:
        assert bill(*args) == want, args
    # the fair yardstick (the same window, no summary) with the summariser's calls counted
    savings = summary_savings(
        chat, window=5, every=3, keep_turns=1, counter=priced(prices),
        summariser=lambda _: words(values["SUMMARY_TOKENS"]),
    )  # fmt: skip
    plain, plan = bill(5), bill(5, 3, 1, values["SUMMARY_TOKENS"])
    assert (savings.plain_tokens, savings.summarised_tokens, savings.summariser_tokens) == (
        plain[0], plan[0], plan[1],
    )  # fmt: skip
    text = hidden(source_nb, "test_input_bill")
    assert f"TOKENS_SAVED == {plain[0]} - {plan[0]} - {plan[1]}" in text
    assert savings.net_saved < 0, "the plan costs more than the window it replaces"


# ---------------------------------------------------------------- Part A's seeded space

SEEDED_CELLS = ("test_smallest_window", "test_history_tokens")


def seeded_space(source_nb, grade_id: str) -> dict:
    """The hidden cell's seed and its plain-Python helpers (the draw and the expectations), run here."""
    tree = ast.parse(hidden(source_nb, grade_id).split("### END HIDDEN TESTS", 1)[0])
    keep = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        or (isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_SEED")
    ]
    namespace: dict = support_namespace(ASSIGNMENT)
    exec(compile(ast.Module(keep, []), grade_id, "exec"), namespace)  # noqa: S102
    return namespace


def windowmem_smallest_window(log: list[dict], recall: int) -> int:
    """The smallest k whose every call holds the newest *recall* answered turns, every message n8n saved of them."""
    conversation = conversation_of(log)
    for k in range(1, 200):
        runs = agent_runs(conversation, N8nSimpleMemory(k))
        if all(
            all(
                any(m is sent for sent in call.part(Part.MEMORY))
                for earlier in [r for r in runs[: run.turn - 1] if r.answered][-recall:]
                for m in earlier.saved
                for call in run.calls
            )
            for run in runs
        ):
            return k
    raise AssertionError("no window up to 200 holds it")


def test_part_a_draws_from_one_seeded_space(source_nb):
    """Both cells draw from the same space with the same seed, each set in one place: the
    assignment's hidden-test support, whose names the judge gives both cells."""
    texts = [hidden(source_nb, cell) for cell in SEEDED_CELLS]
    for text in texts:
        assert "_logs(_SEED, 16)" in text and "def _logs" not in text
        assert not re.search(r"^(_SEED|_logs) =", text, re.M), text[:400]
    spaces = [seeded_space(source_nb, cell) for cell in SEEDED_CELLS]
    assert spaces[0]["_SEED"] == spaces[1]["_SEED"]
    assert spaces[0]["_logs"] is spaces[1]["_logs"]


@pytest.mark.parametrize("seed", [None, 1, 77, 4242])
def test_the_seeded_expectations_are_windowmem_s(source_nb, seed):
    """Every drawn case's expectation, the cell's plain Python against windowmem's agent: the
    cells' own seed (None) and three more, so the helpers hold over the space, not on one draw."""
    space = seeded_space(source_nb, "test_smallest_window")
    rng = random.Random(seed)
    for log, recall, k in space["_logs"](space["_SEED"] if seed is None else seed, 16):
        assert space["_expected_k"](log, recall) == windowmem_smallest_window(log, recall), (
            log,
            recall,
        )
        prices = {
            "user": rng.randint(1, 30),
            "call": rng.randint(1, 30),
            "result": rng.randint(1, 90),
            "answer": rng.randint(1, 40),
        }
        runs = agent_runs(conversation_of(log, prices), N8nSimpleMemory(k))
        paid = sum(
            count_all(call.part(Part.MEMORY), priced(prices)) for run in runs for call in run.calls
        )
        assert space["_expected_price"](log, k, prices) == paid, (log, k)


def test_the_seeded_space_is_varied(source_nb):
    """The drawn chats hold what the questions are about, and their answers vary."""
    space = seeded_space(source_nb, "test_smallest_window")
    cases = space["_logs"](space["_SEED"], 16)
    runs = [e for log, _, _ in cases for e in log]
    assert any(e["output"] is None for e in runs)
    assert any(len(e.get("tool_rounds", [])) >= 2 for e in runs)
    assert any(len(r) >= 2 for e in runs for r in e.get("tool_rounds", []))
    assert len({space["_expected_k"](log, recall) for log, recall, _ in cases}) >= 5
    assert len({recall for _, recall, _ in cases}) == 4 and len({k for _, _, k in cases}) >= 4


def test_every_mutant_changes_its_answer_cell():
    for student, (grade_id, answer, _) in MUTANTS.items():
        assert answer.strip() != solution_source(grade_id).strip(), student


# ---------------------------------------------------------------- a grading run


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER, SHARPER_SKIMMERS | MEASURED_SKIMMERS)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED
    #: The prompts state goals and the hidden cases are ones the prompt and the lesson have not
    #: worked (issue 23): the model skimmer earns 8% of the autograded points, the sharper ones
    #: at most 24% (summary_rules 19%, spring_cut_once 24%, constant 3%).
    skimmer_bar_met = True


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(SHARPER_SKIMMERS))
def test_a_sharper_skimmer_earns_at_most_a_quarter(graded, source_nb, student):
    """The Summary's rules read literally (last-round storage, orphans at both edges, every call
    priced), the Deeper's Spring AI cut with lesson 3's k = 0, a constant answer: each, graded in
    the same run, earns at most SKIMMER_SHARE."""
    check_skimmer_share(graded, source_nb, student)


@pytest.mark.slow
def test_the_model_skimmer_earns_little(graded, source_nb):
    """The model skimmer stays well under the bar: at most 15%."""
    assert skimmer_share(graded.grades["skimmer"], graded_points(source_nb)) <= 0.15


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 23, second pass: not met, see MEASURED_SKIMMERS")
@pytest.mark.parametrize("student", sorted(MEASURED_SKIMMERS))
def test_a_measured_skimmer_earns_at_most_a_quarter(graded, source_nb, student):
    """A skimmer that knows all of n8n's storage (the corrected Summary and lesson 2's failed
    run) still earns more than a quarter: measured, not yet met (strict xfail)."""
    share = skimmer_share(graded.grades[student], graded_points(source_nb))
    assert share <= SKIMMER_SHARE, f"{student} earns {share:.0%}"


def test_the_agent_runs_shortcut_really_prices_the_history(source_nb):
    """Unsealed, the pricing shortcut gets every seeded case right: it loses only for what it calls."""
    namespace: dict = {}
    exec(cell_text(cells_by_id(source_nb)["setup"]), namespace)  # noqa: S102
    exec(MUTANTS["agent_runs_shortcut"][1], namespace)  # noqa: S102
    space = seeded_space(source_nb, "test_history_tokens")
    for number, (log, _, k) in enumerate(space["_logs"](space["_SEED"], 16)):
        prices = {"user": 5 + number, "call": 17, "result": 40 + 3 * number, "answer": 23}
        assert namespace["history_tokens"](log, k, prices) == space["_expected_price"](
            log, k, prices
        )


@pytest.mark.slow
def test_the_agent_runs_shortcut_fails_on_what_it_calls(graded):
    check_shortcut_fails_on_import(
        graded, "agent_runs_shortcut", NOTEBOOK, "test_history_tokens", "calls.agent_calls"
    )


@pytest.mark.slow
def test_the_library_shortcut_fails_on_what_it_calls_not_on_its_values(graded):
    """The shortcut's bill is right: it loses its points only because it called the library's."""
    check_shortcut_fails_on_import(
        graded, "rolling_summary_shortcut", NOTEBOOK, "test_input_bill", "design.rolling_summary"
    )
