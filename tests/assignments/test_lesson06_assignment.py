"""Lesson 6's nbgrader assignment: its grade contract, hand-worked figures, model answer, and grading by the pipeline.

What every assignment must be (schema, test cells, parts, rubrics, a clean and current
release) is checked for this one too, in ``test_assignments.py``.

The hidden tests compute their expectations in plain Python (a student could patch
``windowmem``); here they are held to windowmem's budget engine: the hand-worked bills are
its runs of the assignment's task, and the policy each of Part C's drawn situations needs is
:mod:`windowmem.budget.policy_choice`'s, case by case, seed by seed. Part C's cases are drawn by
the assignment's hidden support (never by the library): three per policy in every cell.

``python -m autograder grade``, the command instructors run, grades the instructor
notebook (full marks), the untouched release (zero, without crashing), students who make
typical mistakes, cheat or take the library's shortcut (each loses exactly the points of
the questions affected, and keeps the rest, as its ``grades.csv`` says), and a skimmer.
"""

from __future__ import annotations

import ast
import random
import re
from collections import Counter

import pytest

from tests.fixtures.graded_cases import SITUATION_KINDS, SITUATION_SEEDS
from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    REPO_ROOT,
    SKIMMER_SHARE,
    GradingRoundTrip,
    cell_text,
    cells_by_id,
    check_shortcut_fails_on_import,
    graded_points,
    nbgrader_meta,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    skimmer_share,
    support_namespace,
    with_partial_losses,
)
from windowmem.budget import Event
from windowmem.budget.policy_choice import POLICIES, Situation, expected_policy, run_situation

ASSIGNMENT = "lesson06_token_budget"
NOTEBOOK = "token_budget.ipynb"
SOURCE_NOTEBOOK = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

#: Calls whose value another question asks for: no visible test or check cell may show them.
ANSWERS_ELSEWHERE = [
    "unbounded_bill(SYSTEM_TOKENS + TASK_TOKENS",  # A1's bill
    "unbounded_bill(120, [220, 180, 240, 160, 300])",  # A1's bill
    "compacted_bill(SYSTEM_TOKENS + TASK_TOKENS",  # B2's task bill
    "compacted_bill(120, [",  # B2's task bill
    "READS, BUDGET)",
]

#: The graded cells and their points: the grading pipeline and gradebooks rely on these names.
GRADE_CONTRACT = {
    "test_sizes_by_hand": 0.5,
    "test_bill_by_hand": 0.5,
    "test_unbounded_bill_task": 0.5,
    "test_unbounded_bill_any": 0.5,
    "test_survivors_by_hand": 0.25,
    "test_truncated_bill_by_hand": 2.75,
    "test_compaction_task": 1,
    "test_compaction_any": 7,
    "test_policy_helpdesk": 1,
    "test_policy_research": 1,
    "test_policy_compliance": 1,
    "justify_answer": 2,
}
C1_CELLS = ("test_policy_helpdesk", "test_policy_research", "test_policy_compliance")

# The small task of the assignment, worked out here by hand, independently of the notebook:
# base 45 + 75 = 120 tokens; reads of 220 (Q1), 180 (a miss), 240 (Q2), 160 (Q3), 300 (Q4);
# a call before each read, on the window as it stands, and one at the end.
READS = (("Q1", 220), (None, 180), ("Q2", 240), ("Q3", 160), ("Q4", 300))
BY_HAND = {
    "unbounded sizes": [120, 340, 520, 760, 920, 1220],
    "unbounded bill": 120 + 340 + 520 + 760 + 920 + 1220,
    # budget 700: read 3 makes 760, read 1 goes (540); read 4 makes exactly 700 and stays;
    # read 5 makes 1000: the miss goes (820), then read 3 (580)
    "truncated sizes": [120, 340, 520, 540, 700, 580],
    "truncated bill": 120 + 340 + 520 + 540 + 700 + 580,
    "survivors": ["Q3", "Q4"],
    # the peak counts read 5's moment over the budget (1000), before truncation acts
    "truncated peak": 1000,
    # compact, a summary line 20: read 3 makes 760, the compaction call is charged 760 and
    # Q1's line (the miss leaves none) replaces reads 1 and 2 (380); read 4 makes 540; read 5
    # makes 840, charged again, and Q1-Q3's lines replace reads 1 to 4 (480)
    "compacted sizes": [120, 340, 520, 760, 380, 540, 840, 480],
    "compacted bill": 120 + 340 + 520 + 760 + 380 + 540 + 840 + 480,
}
#: The policy each of C1's three example teams needs (the check cell prints the student's).
EXAMPLES = {"HELPDESK": "truncate", "RESEARCH": "compact", "COMPLIANCE": "retrieve"}


def solution_source(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE_NOTEBOOK))[grade_id])


CHOOSE = solution_source("choose_answer")
COMPACTED = solution_source("compacted_bill_answer")
UNBOUNDED = solution_source("unbounded_bill_answer")


def edited(source: str, old: str, new: str) -> str:
    """*source* with *old* (which must be there once) replaced by *new*."""
    assert source.count(old) == 1, old
    return source.replace(old, new)


#: Students who get something wrong: (answer cell they edit, its new source, cells that must score 0).
MUTANTS = {
    # A: the literal reading: a call sees the chunk it reads (charged after the read)
    "charges_after_the_read": (
        "unbounded_bill_answer",
        edited(
            UNBOUNDED,
            "        bill += window  # the call that asks for this read sees the window before it enters\n"
            "        window += length\n",
            "        window += length\n        bill += window\n",
        ),
        {"test_unbounded_bill_task", "test_unbounded_bill_any"},
    ),
    # A: one call per read and none to write the answers
    "forgets_the_last_call": (
        "unbounded_bill_answer",
        edited(
            UNBOUNDED, "return bill + window  # the last call, on the full window", "return bill"
        ),
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
    "float_bill": (
        "bill_by_hand_answer",
        """
window_sizes_unbounded = [120, 340, 520, 760, 920, 1220]
bill_unbounded = 3880.0
""",
        {"test_bill_by_hand"},
    ),
    "bill_counted_once": (
        "bill_by_hand_answer",
        """
# counts the final window once instead of summing the window over the calls
window_sizes_unbounded = [1220, 1220, 1220, 1220, 1220, 1220]
bill_unbounded = 1220
""",
        {"test_sizes_by_hand", "test_bill_by_hand"},  # and nothing else: A2 does not lean on A1
    ),
    # B1: the survivors wrong, the bill right
    "kept_the_first_reads": (
        "truncation_by_hand_answer",
        """
survivors_truncated = ["Q1", "Q2"]
window_sizes_truncated = [120, 340, 520, 540, 700, 580]
bill_truncated = 2800
peak_truncated = 1000
""",
        {"test_survivors_by_hand"},  # and nothing else: B2 does not lean on B1
    ),
    # B1: a window exactly at the budget taken for over it (read 4's 700)
    "full_window_by_hand_is_over": (
        "truncation_by_hand_answer",
        """
survivors_truncated = ["Q3", "Q4"]
window_sizes_truncated = [120, 340, 520, 540, 520, 580]
bill_truncated = 120 + 340 + 520 + 540 + 520 + 580
peak_truncated = 1000
""",
        {"test_truncated_bill_by_hand"},
    ),
    # B1: the peak read off the calls (or "never over the budget"): the moment over it missed
    "peak_after_truncation": (
        "truncation_by_hand_answer",
        """
survivors_truncated = ["Q3", "Q4"]
window_sizes_truncated = [120, 340, 520, 540, 700, 580]
bill_truncated = 2800
peak_truncated = 700
""",
        {"test_truncated_bill_by_hand"},
    ),
    # B2: the off-by-one at the boundary: a window exactly at the budget counts as over
    "full_window_is_over": (
        "compacted_bill_answer",
        edited(COMPACTED, "        if size() > budget:\n", "        if size() >= budget:\n"),
        {"test_compaction_any"},  # the task's windows never sit exactly at 700 under compaction
    ),
    # B2: the compaction call charged on the window once the summary has replaced the reads
    "charges_the_compacted_window": (
        "compacted_bill_answer",
        edited(
            COMPACTED,
            "                bill += size()  # the compaction call reads the window over budget\n"
            "                lines = [f for _kind, facts, _tokens in window[:-1] for f in facts]\n"
            '                window[:] = [("summary", lines, line_tokens * len(lines)), window[-1]]\n',
            "                lines = [f for _kind, facts, _tokens in window[:-1] for f in facts]\n"
            '                window[:] = [("summary", lines, line_tokens * len(lines)), window[-1]]\n'
            "                bill += size()\n",
        ),
        {"test_compaction_task", "test_compaction_any"},
    ),
    # B2: the compaction taken for free (no call of its own)
    "compaction_is_free": (
        "compacted_bill_answer",
        edited(
            COMPACTED,
            "                bill += size()  # the compaction call reads the window over budget\n",
            "",
        ),
        {"test_compaction_task", "test_compaction_any"},
    ),
    # B2: the summary taken to fit any budget: its oldest lines never cut
    "summary_lines_never_cut": (
        "compacted_bill_answer",
        edited(COMPACTED, "            cut()\n", ""),
        {"test_compaction_any"},
    ),
    # B2: compaction forgotten: truncation's bill (the newest read kept)
    "truncates_instead": (
        "compacted_bill_answer",
        edited(
            COMPACTED,
            '            if any(kind == "read" for kind, _facts, _tokens in window[:-1]):',
            "            if False:",
        ),
        {"test_compaction_task", "test_compaction_any"},
    ),
    # B2: an int that equals anything: caught by the real type
    "equal_to_any_bill": (
        "compacted_bill_answer",
        """
class AnyBill(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def compacted_bill(base_tokens, reads, budget, line_tokens):
    return AnyBill(0)
""",
        {"test_compaction_task", "test_compaction_any"},
    ),
    # C1: never asks whether the task reaches its budget at all
    "no_fit_check": (
        "choose_answer",
        edited(
            CHOOSE,
            '            if peak <= situation["budget"]:\n                return policy\n            continue',
            "            continue",
        ),
        set(C1_CELLS),
    ),
    # C1: the off-by-one at the peak: a budget exactly at the largest window taken for reached
    "fit_is_strict": (
        "choose_answer",
        edited(CHOOSE, 'if peak <= situation["budget"]:', 'if peak < situation["budget"]:'),
        set(C1_CELLS),  # each cell has a case whose budget is exactly its largest window
    ),
    # C1: truncation taken to forget whenever it acts, even when it drops only misses
    "truncation_always_forgets": (
        "choose_answer",
        edited(
            CHOOSE,
            'if situation["every_fact"] and len(answered) < len(facts):',
            'if situation["every_fact"] and (len(answered) < len(facts) or policy == "truncate"):',
        ),
        set(C1_CELLS),
    ),
    # C1: a summary taken to fit any budget: compaction never cuts its lines
    "summary_always_fits": (
        "choose_answer",
        edited(CHOOSE, "        truncate()\n\n    def read", "\n    def read"),
        set(C1_CELLS),
    ),
    # C1: the library's own answer: right values, no points
    "policy_choice_shortcut": (
        "choose_answer",
        """
from windowmem.budget.policy_choice import Situation, expected_policy


def choose_policy(situation):
    fields = dict(situation, reads=tuple(tuple(read) for read in situation["reads"]))
    return expected_policy(Situation(**fields))
""",
        set(C1_CELLS),
    ),
    "equal_to_any_policy": (
        "choose_answer",
        """
class AnyPolicy(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def choose_policy(situation):
    return AnyPolicy("retrieve, or whatever you like")
""",
        set(C1_CELLS),
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly cost_helper's points.
MUTANTS |= reached_every_way(MUTANTS, "cost_helper", "windowmem.cost")

_A2_SHORTCUT = {"test_unbounded_bill_task": 0.5, "test_unbounded_bill_any": 0.43}
#: The library's bill: the grading kernel has no windowmem.cost, so even the negative sizes
#: (the validation a stand-in would have passed on) fail.
_A2_LIBRARY = {"test_unbounded_bill_task": 0.5, "test_unbounded_bill_any": 0.5}
_C1 = dict.fromkeys(C1_CELLS)

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        "charges_after_the_read": _A2_SHORTCUT,  # only the negative sizes are right
        "forgets_the_last_call": _A2_SHORTCUT,
        "no_validation": {"test_unbounded_bill_any": 0.07},
        **{
            f"cost_helper{way}": _A2_LIBRARY
            for way in (
                "",
                *(f"_via_{w}" for w in ("sys_modules", "importlib", "container", "closure")),
            )
        },
        # B2's batches each ask for a compaction (a bill the unbounded one equals earns nothing)
        "full_window_is_over": {"test_compaction_any": 2.8},
        "charges_the_compacted_window": {"test_compaction_task": 1.0, "test_compaction_any": 7.0},
        "compaction_is_free": {"test_compaction_task": 1.0, "test_compaction_any": 7.0},
        "summary_lines_never_cut": {"test_compaction_any": 5.6},
        "truncates_instead": {"test_compaction_task": 1.0, "test_compaction_any": 7.0},
        "no_fit_check": dict.fromkeys(C1_CELLS, 0.25),  # its three unbounded cases
        "fit_is_strict": dict.fromkeys(C1_CELLS, 0.08),
        "truncation_always_forgets": dict.fromkeys(C1_CELLS, 0.25),  # its three truncate cases
        # the retrieve cases where the summary outgrows the room (two in the compliance cell)
        "summary_always_fits": {
            "test_policy_helpdesk": 0.25,
            "test_policy_research": 0.25,
            "test_policy_compliance": 0.17,
        },
    },
)


#: A student who skims: reads the prompt's sentences literally, copies what the lesson's cells
#: print, and matches C1's requirements by keyword. The prompts no longer say when a call is
#: charged, so the skimmer takes the literal reading (a call sees the chunk it reads) and the
#: lesson's printed "14 calls, 13 reads" (one last call); Part B's truncation rule is stated,
#: so it is followed to the letter; C1's teams are answered as the lesson's three were.
SKIMMER = {
    # copied: nothing but the table; the window "at each call" read as the window once the
    # call's chunk is in it, and a last call on the full window (calls = reads + 1, as printed)
    "bill_by_hand_answer": """
window_sizes_unbounded = [45 + 75 + 220, 340 + 180, 520 + 240, 760 + 160, 920 + 300, 1220]
bill_unbounded = 340 + 520 + 760 + 920 + 1220 + 1220
""",
    # the prompt's ValueError word for word; a call per read once it is in, and the last call
    "unbounded_bill_answer": """
def unbounded_bill(base_tokens, read_tokens):
    if base_tokens < 0 or any(length < 0 for length in read_tokens):
        raise ValueError("sizes must not be negative")
    bill, window = 0, base_tokens
    for length in read_tokens:
        window += length
        bill += window
    return bill + window
""",
    # Part B's rule followed literally (oldest first, never the newest, 700 fits), each call on
    # the window once its read is in and truncated, then the last call
    "truncation_by_hand_answer": """
survivors_truncated = ["Q3", "Q4"]
window_sizes_truncated = [340, 520, 540, 700, 580, 580]
bill_truncated = 340 + 520 + 540 + 700 + 580 + 580
peak_truncated = max(window_sizes_truncated)  # the largest window the table shows
""",
    # the prompt's compaction rule to the letter, with no call of its own (the prompt names
    # none), each call on the window once its read is in, then the last call
    "compacted_bill_answer": """
def compacted_bill(base_tokens, reads, budget, line_tokens):
    window, bill = [], 0  # [is_read, facts, tokens]

    def size():
        return base_tokens + sum(item[2] for item in window)

    for fact, tokens in reads:
        window.append([True, [] if fact is None else [fact], tokens])
        if size() > budget:
            if any(item[0] for item in window[:-1]):
                lines = [f for item in window[:-1] for f in item[1]]
                window = [[False, lines, line_tokens * len(lines)], window[-1]]
            while size() > budget and len(window) > 1:
                if not window[0][0] and len(window[0][1]) > 1:
                    window[0] = [False, window[0][1][1:], line_tokens * (len(window[0][1]) - 1)]
                else:
                    window = window[1:]
        bill += size()
    return bill + size()
""",
    # the prompt's "never over the budget" for unbounded, taken as "everything fits"; then the
    # keywords of the three example teams, as the lesson's teams were answered: forgetting
    # allowed or no extra call -> truncate; quoted from the chunk -> retrieve; else compact
    "choose_answer": """
def choose_policy(situation):
    window = situation["base_tokens"] + sum(tokens for fact, tokens in situation["reads"])
    if window <= situation["budget"]:
        return "unbounded"
    if not situation["every_fact"] or not situation["extra_calls"]:
        return "truncate"
    if not situation["summary_will_do"]:
        return "retrieve"
    return "compact"
""",
}


#: The first pass's rule for C1 (the keywords of the lesson's three teams), shared below.
_C1_KEYWORDS = SKIMMER["choose_answer"]

#: The call table's layout copied, not its values: call 1 on the opening window, a call per
#: read charged before the read enters, one last call on the full window (the lesson's
#: "14 calls, 13 reads"); Part B's truncation rule as the prompt states it, after each read.
_TABLE_LAYOUT = {
    "bill_by_hand_answer": """
# the lesson's table: call 1 is the opening window, each later call one read bigger
window_sizes_unbounded = [120, 120 + 220, 340 + 180, 520 + 240, 760 + 160, 920 + 300]
bill_unbounded = sum(window_sizes_unbounded)
""",
    "unbounded_bill_answer": """
def unbounded_bill(base_tokens, read_tokens):
    if base_tokens < 0 or any(length < 0 for length in read_tokens):
        raise ValueError("sizes must not be negative")
    sizes, window = [], base_tokens
    for length in read_tokens:  # a row per read, on the window before it (the table's layout)
        sizes.append(window)
        window += length
    sizes.append(window)  # the "write the answers" row
    return sum(sizes)
""",
    "truncation_by_hand_answer": """
survivors_truncated = ["Q3", "Q4"]
window_sizes_truncated = [120, 340, 520, 540, 700, 580]
bill_truncated = sum(window_sizes_truncated)
peak_truncated = max(window_sizes_truncated)  # the call table's largest row
""",
    # the table's layout for the reads; the compaction as the explorer shows it, a step after
    # the summary replaced the reads, charged as a row on that window; the prompt's cut
    "compacted_bill_answer": """
def compacted_bill(base_tokens, reads, budget, line_tokens):
    window, sizes = [], []  # [is_read, facts, tokens]

    def size():
        return base_tokens + sum(item[2] for item in window)

    for fact, tokens in reads:
        sizes.append(size())  # the table's row: the window before the read
        window.append([True, [] if fact is None else [fact], tokens])
        if size() > budget:
            if any(item[0] for item in window[:-1]):
                lines = [f for item in window[:-1] for f in item[1]]
                window = [[False, lines, line_tokens * len(lines)], window[-1]]
                sizes.append(size())  # the compaction's row
            while size() > budget and len(window) > 1:
                if not window[0][0] and len(window[0][1]) > 1:
                    window[0] = [False, window[0][1][1:], line_tokens * (len(window[0][1]) - 1)]
                else:
                    window = window[1:]
    sizes.append(size())
    return sum(sizes)
""",
    "choose_answer": _C1_KEYWORDS,
}

#: A sharper C1 rule: retrieve whenever every fact is needed and retrieving is allowed (it
#: "answers everything"); otherwise the first pass's keywords.
_C1_RETRIEVE_WHEN_ALLOWED = """
def choose_policy(situation):
    window = situation["base_tokens"] + sum(tokens for fact, tokens in situation["reads"])
    if window <= situation["budget"]:
        return "unbounded"
    if situation["every_fact"] and situation["search_again"] and situation["extra_calls"]:
        return "retrieve"
    if not situation["every_fact"] or not situation["extra_calls"]:
        return "truncate"
    if not situation["summary_will_do"]:
        return "retrieve"
    return "compact"
"""

#: The lesson's summary bullets applied literally: once the budget reaches the peak every
#: policy is the same run; truncate is cheap and forgets; compact keeps facts for a call per
#: compaction; retrieve answers everything for extra calls.
_C1_SUMMARY_LITERAL = """
def choose_policy(situation):
    peak = situation["base_tokens"] + sum(tokens for fact, tokens in situation["reads"])
    if situation["budget"] >= peak:
        return "unbounded"
    if not situation["every_fact"] or not situation["extra_calls"]:
        return "truncate"  # cheap, and forgetting is allowed (or nothing else is)
    if situation["summary_will_do"]:
        return "compact"  # keeps the facts for a call per compaction
    if situation["search_again"]:
        return "retrieve"
    return "truncate"
"""

#: Sharper skimmers than SKIMMER, each graded in the same run and held to the same bar: the
#: call table's layout copied, sharper C1 rules with either Part A/B answer, constant C1 answers.
SHARPER_SKIMMERS = {
    "table_layout": _TABLE_LAYOUT,
    "table_layout_retrieve_when_allowed": _TABLE_LAYOUT
    | {"choose_answer": _C1_RETRIEVE_WHEN_ALLOWED},
    "table_layout_summary_literal": _TABLE_LAYOUT | {"choose_answer": _C1_SUMMARY_LITERAL},
    "retrieve_when_allowed": SKIMMER | {"choose_answer": _C1_RETRIEVE_WHEN_ALLOWED},
    "summary_literal": SKIMMER | {"choose_answer": _C1_SUMMARY_LITERAL},
    **{
        f"always_{policy}": SKIMMER
        | {"choose_answer": f"def choose_policy(situation):\n    return {policy!r}\n"}
        for policy in POLICIES
    },
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
    assert f"== {BY_HAND['unbounded bill']}" in cell_text(cells["test_unbounded_bill_task"])
    assert f"== {BY_HAND['truncated sizes']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['truncated bill']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['compacted bill']}" in cell_text(cells["test_compaction_task"])
    assert f"== {BY_HAND['truncated peak']}" in cell_text(cells["test_truncated_bill_by_hand"])
    assert f"== {BY_HAND['survivors']!r}".replace("'", '"') in cell_text(
        cells["test_survivors_by_hand"]
    )


def test_the_hand_worked_figures_are_the_budget_engine_s():
    """windowmem's budget engine runs the assignment's task to the same windows, bills and facts."""
    task = Situation(45 + 75, READS, budget=700, summary_line_tokens=20)
    for policy, sizes, bill in (
        ("unbounded", "unbounded sizes", "unbounded bill"),
        ("truncate", "truncated sizes", "truncated bill"),
    ):
        run = run_situation(task, policy)
        assert [s.used for s in run.trace if s.event is Event.CALL] == BY_HAND[sizes]
        assert run.bill.input_tokens == BY_HAND[bill]
    assert run_situation(task, "truncate").bill.peak == BY_HAND["truncated peak"]
    run = run_situation(task, "compact")
    assert [s.used for s in run.trace if s.event is Event.CALL] == BY_HAND["compacted sizes"]
    assert run.bill.input_tokens == BY_HAND["compacted bill"]
    last = run_situation(task, "truncate").trace[-1].facts
    assert [task.questions()[q][0] for q in sorted(last)] == BY_HAND["survivors"]


def test_the_shipped_reference_table_is_what_the_budget_engine_computes():
    """The assignment reads lesson 6's reference table from data/ (so the grading kernel needs
    no budget engine, which would answer Parts A and B); the file is the engine's table."""
    import pandas as pd

    from windowmem.budget import help_centre
    from windowmem.frames import reference_table

    shipped = SOURCE_NOTEBOOK.parent / "data" / "help_centre_reference.csv"
    engine = reference_table(
        help_centre(),
        budgets=[1500],
        strategies=["unbounded", "truncate", "compact", "retrieve"],
        summarisers=["perfect"],
    )
    read = pd.read_csv(shipped)
    assert list(read.columns) == list(engine.columns), f"rewrite {shipped} from the engine"
    assert read.astype(str).values.tolist() == engine.astype(str).values.tolist(), (
        f"{shipped} is not what windowmem's budget engine computes now: write it again with "
        "reference_table(help_centre(), budgets=[1500], strategies=POLICIES, "
        "summarisers=['perfect']).to_csv(path, index=False)"
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
    for policy in ("compact", "unbounded", "truncate", "retrieve"):
        assert f"{table.loc[policy, 'input_tokens']:,}" in answer, policy
    assert f"answers only {table.loc['truncate', 'answered']}" in answer
    assert (
        f"in {table.loc['compact', 'calls']} calls ({table.loc['compact', 'compactions']} compactions)"
        in answer
    )
    assert (
        f"reads {table.loc['retrieve', 'reads']} chunks instead of {table.loc['unbounded', 'reads']}"
        in answer
    )


# ---------------------------------------------------------------- Part C's seeded space


def hidden_helpers(grade_id: str) -> dict:
    """The helper functions a C1 test cell defines (its plain-Python agent and its space), run here."""
    hidden = solution_source(grade_id).split(HIDDEN_MARKERS[0])[1]
    tree = ast.parse(hidden)
    keep = [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.Assign) and not _is_call_of(n, "_sealed")
    ]
    namespace: dict = support_namespace(ASSIGNMENT)
    exec(compile(ast.Module(keep, []), grade_id, "exec"), namespace)  # noqa: S102 - our own cell
    return namespace


def _is_call_of(node: ast.AST, name: str) -> bool:
    value = getattr(node, "value", None)
    return isinstance(value, ast.Call) and getattr(value.func, "id", "") == name


def as_situation(case: dict) -> Situation:
    """A hidden case (plain values) as windowmem's :class:`Situation`."""
    return Situation(**dict(case, reads=tuple(tuple(read) for read in case["reads"])))


def c1_cases(grade_id: str) -> list[dict]:
    """The twelve situations C1 cell *grade_id* draws, by its own helpers."""
    helpers = hidden_helpers(grade_id)
    return helpers["_situations"](SITUATION_SEEDS[grade_id], SITUATION_KINDS[grade_id])


def drawn_at_random(seed: int, count: int) -> list[Situation]:
    """*count* situations of the hidden space, budgets at, a token under or well under the peak,
    requirements drawn too (the hidden ``_draw`` with this test's own random source)."""
    draw, chosen = hidden_helpers(C1_CELLS[0])["_draw"], random.Random(seed)
    wheres = ("a token under", "under", "at the peak", "under")
    return [
        as_situation(draw(chosen.randrange, wheres[n % len(wheres)], None)) for n in range(count)
    ]


@pytest.mark.parametrize("grade_id", C1_CELLS)
def test_each_c1_case_is_of_its_kind_and_needs_windowmem_s_policy(grade_id):
    """A cell draws its seed's cases, each of its kind: the policy windowmem's engine says it
    needs (and the hidden expectation too), its budget where the kind puts it, its team's needs."""
    text = solution_source(grade_id)
    seed, kinds = SITUATION_SEEDS[grade_id], SITUATION_KINDS[grade_id]
    assert f"(seed {seed})" in text.split("\n")[0]
    assert f"_situations({seed}, {kinds})" in text
    helpers = hidden_helpers(grade_id)
    drawn = c1_cases(grade_id)
    assert drawn == c1_cases(grade_id) and len({repr(c) for c in drawn}) == len(kinds)
    for kind, case in zip(kinds, drawn, strict=True):
        policy, where, needs = helpers["_KINDS"][kind]
        situation = as_situation(case)
        assert expected_policy(situation) == helpers["_expected"](case) == policy, case
        peak = situation.base_tokens + sum(tokens for _, tokens in situation.reads)
        room = situation.budget - situation.base_tokens
        assert {
            "at the peak": situation.budget == peak,
            "over the peak": situation.budget > peak,
            "a token under": situation.budget == peak - 1,
            "under": situation.budget < peak - 30,
            "under, long lines": situation.budget < peak - 30,
            "a read over the room": any(f is not None and t > room for f, t in situation.reads),
        }[where], case
        team = (case["every_fact"], case["summary_will_do"], case["extra_calls"])
        assert needs is None or (*team, case["search_again"]) == needs, case
        if policy == "retrieve" and case["summary_will_do"]:  # the summary outgrows the room
            assert run_situation(situation, "compact").answered < len(situation.questions())


@pytest.mark.parametrize("grade_id", C1_CELLS)
def test_each_c1_cell_asks_each_policy_equally_often(grade_id):
    """Three cases per policy: answering one policy for every situation earns a quarter."""
    needed = Counter(expected_policy(as_situation(case)) for case in c1_cases(grade_id))
    assert needed == dict.fromkeys(POLICIES, 3)


#: C1 cases (of twelve per cell, in C1_CELLS' order) each answer that runs no policy gets right,
#: measured. A constant gets its policy's three. The lesson's rules read literally get the
#: unbounded cases right (the peak is a sum) and, for the keywords and the summary read
#: literally, the compact ones (a compact case needs every fact and allows extra calls and
#: summaries, the keywords' "else compact"); retrieving whenever allowed gets the retrieve
#: cases. Balanced labels leave them no less: each case of the other two policies defeats
#: them, but a cell's one case with a requirement off (research: searched once; compliance:
#: quoted answers) is its rule's.
C1_CASES_RIGHT = {
    **{f"always_{policy}": (3, 3, 3) for policy in POLICIES},
    "keywords": (6, 6, 7),
    "retrieve_when_allowed": (6, 7, 6),
    "summary_literal": (6, 6, 7),
}
C1_RULES = {
    **{f"always_{p}": f"def choose_policy(situation):\n    return {p!r}\n" for p in POLICIES},
    "keywords": _C1_KEYWORDS,
    "retrieve_when_allowed": _C1_RETRIEVE_WHEN_ALLOWED,
    "summary_literal": _C1_SUMMARY_LITERAL,
}


@pytest.mark.parametrize("rule", sorted(C1_RULES))
def test_a_c1_answer_that_runs_no_policy_gets_what_was_measured(rule):
    """Constants a quarter of each cell; the literal rules what balanced labels leave them."""
    namespace: dict = {}
    exec(C1_RULES[rule], namespace)  # noqa: S102 - this module's own skimmer answer
    right = tuple(
        sum(namespace["choose_policy"](dict(case)) == expected_policy(as_situation(case))
            for case in c1_cases(grade_id))
        for grade_id in C1_CELLS
    )  # fmt: skip
    assert right == C1_CASES_RIGHT[rule]
    ceiling = 3 if rule.startswith("always_") else 7  # chance; balanced labels' least, plus one
    assert max(right) <= ceiling, right


def test_the_hidden_agent_is_the_budget_engine_on_any_situation():
    """The hidden cells' plain-Python agent runs 2,000 drawn situations as windowmem's engine does."""
    helpers = hidden_helpers(C1_CELLS[0])
    for situation in drawn_at_random(2027, 2000):
        for policy in POLICIES:
            engine = run_situation(situation, policy)
            facts = [situation.questions()[q][0] for q in engine.answered_questions]
            peak, answered, _, calls, reads = helpers["_run"](situation.as_dict(), policy)
            assert (peak, answered, calls, reads) == (
                engine.bill.peak, facts, engine.bill.calls, engine.bill.reads,
            ), (situation, policy)  # fmt: skip
        assert helpers["_expected"](situation.as_dict()) == expected_policy(situation)


def test_the_hidden_bills_are_the_budget_engine_s():
    """A2's and B2's hidden bills, run here, agree with the engine on drawn tasks."""
    ns_a: dict = {}
    ns_b: dict = {}
    for grade_id, namespace in (("test_unbounded_bill_any", ns_a), ("test_compaction_any", ns_b)):
        tree = ast.parse(solution_source(grade_id).split(HIDDEN_MARKERS[0])[1])
        defs = [
            n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("_bill")
        ]
        exec(compile(ast.Module(defs, []), grade_id, "exec"), namespace)  # noqa: S102
    for s in drawn_at_random(6060, 500):
        lengths = [t for _, t in s.reads]
        assert (
            ns_a["_bill_unbounded"](s.base_tokens, lengths)
            == run_situation(s, "unbounded").bill.input_tokens
        )
        assert (
            ns_b["_bill_compacted"](s.base_tokens, list(s.reads), s.budget, s.summary_line_tokens)
            == run_situation(s, "compact").bill.input_tokens
        )


def test_the_three_example_teams_need_the_policies_their_stories_suggest(source_nb):
    check = next(cell_text(c) for c in source_nb["cells"] if "HELPDESK = {" in cell_text(c))
    namespace: dict = {}
    exec(check.split("for name, team in")[0], namespace)  # noqa: S102 - the examples only
    for name, policy in EXAMPLES.items():
        team = namespace[name]
        situation = Situation(**dict(team, reads=tuple(tuple(r) for r in team["reads"])))
        assert expected_policy(situation) == policy, name


# ---------------------------------------------------------------- what students see


def test_no_visible_test_or_check_shows_another_question_s_answer(source_nb):
    shown = "\n".join(
        cell_text(c).split(HIDDEN_MARKERS[0])[0]
        for c in source_nb["cells"]
        if c["cell_type"] == "code" and not nbgrader_meta(c).get("solution")
    )
    assert [call for call in ANSWERS_ELSEWHERE if call in shown] == []


def test_the_prompts_state_goals_not_the_timing_of_a_call(source_nb):
    """What the lesson teaches about when a call is charged is the student's to bring."""
    prompts = "\n".join(
        cell_text(c)
        for c in source_nb["cells"]
        if c["cell_type"] == "markdown" or not nbgrader_meta(c).get("solution")
    )
    prompts = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", prompts, flags=re.S)
    for hint in (
        "before the chunk",
        "as it stands",
        "last call",
        "C_\\text{in}",
        "sum of the window",
    ):
        assert hint not in prompts, hint


def test_the_shortcuts_really_compute_the_answers():
    """The shortcut mutants get every value right: they lose their points for the shortcut alone."""
    namespace: dict = {}
    exec(MUTANTS["cost_helper"][1], namespace)  # noqa: S102 - the mutant's own source
    bill = namespace["unbounded_bill"]
    assert bill(120, [220, 180, 240, 160, 300]) == BY_HAND["unbounded bill"]
    assert bill(0, [5, 5]) == 15 and bill(100, []) == 100
    namespace = {}
    exec(MUTANTS["policy_choice_shortcut"][1], namespace)  # noqa: S102
    for grade_id in C1_CELLS:
        for case in c1_cases(grade_id):
            assert namespace["choose_policy"](case) == expected_policy(as_situation(case))


def test_every_mutant_changes_its_answer_cell():
    for student, (grade_id, answer, _) in MUTANTS.items():
        assert answer.strip() != solution_source(grade_id).strip(), student


# ---------------------------------------------------------------- through the instructors' pipeline


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER, SHARPER_SKIMMERS)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = {"justify_answer"}
    setup_cells = ("setup", "reference_table")
    skimmer_bar_met = True


@pytest.mark.slow
@pytest.mark.parametrize(
    ("student", "grade_id", "module"),
    [
        ("cost_helper", "test_unbounded_bill_task", "policies"),  # the first it touches
        ("policy_choice_shortcut", "test_policy_research", "budget"),
    ],
)
def test_the_library_shortcut_fails_on_what_it_calls_not_on_its_values(
    graded, student, grade_id, module
):
    """The shortcut's values are right: it loses its points only because it reached windowmem."""
    check_shortcut_fails_on_import(graded, student, NOTEBOOK, grade_id, module)


@pytest.mark.slow
@pytest.mark.parametrize(
    "student",
    sorted(SHARPER_SKIMMERS),
)
def test_a_sharper_skimmer_earns_at_most_a_quarter(graded, source_nb, student):
    """The call table's layout copied, sharper C1 rules (retrieve whenever allowed, the lesson's
    summary read literally), constant C1 answers: each earns at most SKIMMER_SHARE."""
    grade = graded.grades[student]
    share = skimmer_share(grade, graded_points(source_nb))
    assert grade.status == "graded", grade.detail
    print(
        f"SHARE {student}: {share:.1%}",
        f"(model skimmer {skimmer_share(graded.grades['skimmer'], graded_points(source_nb)):.1%})",
    )
    assert share <= SKIMMER_SHARE, f"{student} earns {share:.0%}: {grade.detail}"
