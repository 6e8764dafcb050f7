"""Lesson 4's nbgrader assignment: its grade contract, its expectations checked independently, a real grading run.

The generic checks (schema, test cells, parts, a clean and current release) are in
``test_assignments.py``. Here: the grade ids and points; the hidden tests' literal
expectations reproduced by windowmem's stores and policies (a Simple Memory map on a
hand-moved clock, n8n's Redis list on its SQLite stand-in, Spring AI's window) and by
two real processes racing on a real table; and one run of ``python -m autograder grade``
over the solution (full marks), the untouched release (zero, no crash) and students
who make typical mistakes or take shortcuts (each loses exactly its questions' points).
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
from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore
from windowmem.storage.list_stores import SqliteLists
from windowmem.storage.n8n_redis_history import N8nRedisHistory

ASSIGNMENT = "lesson04_outlives_the_session"
NOTEBOOK = "outlives_the_session.ipynb"
SOURCE = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK

GRADE_CONTRACT = {
    "test_case_privacy": 1,
    "test_case_workshop": 1,
    "test_case_tickets": 1,
    "test_case_analysts": 1,
    "privacy_answer": 2,
    "test_b_restart": 2,
    "test_b_workers": 2,
    "test_b_idle": 2,
    "test_c_final": 2,
    "test_c_lost": 2,
    "test_d_n8n": 2,
    "test_d_spring": 2,
}
HAND_GRADED = {"privacy_answer"}
B_CELLS = {"test_b_restart", "test_b_workers", "test_b_idle"}


def solution_source(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])


EARLIER_SENT = solution_source("remembered_answer")
FINAL_STORE = solution_source("trace_answer")
HELD = solution_source("held_answer")

MUTANTS = {
    # Simple Memory treated like a shared store: workers see each other's turns.
    "simple_memory_shared": (
        "remembered_answer",
        EARLIER_SENT.replace(
            'key = turn["worker"] if store == "simple" else "shared"', 'key = "shared"'
        ),
        {"test_b_workers", "test_b_idle"},  # the idle cell has two workers with their own clocks
    ),
    # An idle hour forgotten: neither Simple Memory nor Redis ever expires.
    "nothing_expires": (
        "remembered_answer",
        EARLIER_SENT.replace("now - last_use[key] > 60", "False").replace(
            "now - last_write >= 60", "False"
        ),
        {"test_b_idle"},
    ),
    # A save that appends instead of replacing: no lost update anywhere.
    "save_appends": (
        "trace_answer",
        FINAL_STORE.replace("stored = loaded[request] + [message]", "stored.append(message)"),
        {"test_c_final", "test_c_lost"},
    ),
    # Spring AI modelled as storing everything, like n8n.
    "spring_keeps_everything": (
        "held_answer",
        HELD.replace("if len(kept) > size:", "if False:"),
        {"test_d_spring"},
    ),
    # The 1.x eviction (oldest messages one by one, no snap to a question) for 2.0.1.
    "spring_1x_eviction": (
        "held_answer",
        HELD.replace(
            "while cut < len(kept) and not kept[cut][1]:\n                    cut += 1", "pass"
        ),
        {"test_d_spring"},
    ),
    # The library's windows do the work: right values, no points.
    "library_window_shortcut": (
        "held_answer",
        "from windowmem.policies import N8nSimpleMemory as _Window\n\n"
        + HELD.replace(
            "sent = stored if size == 0 else stored[-2 * size :]",
            "sent = list(_Window(size).load(stored))",
        ),
        # only the n8n branch calls the library: the Spring AI cases pass unchanged
        {"test_d_n8n"},
    ),
    # A list that equals anything, hidden from type checks: caught by the real type.
    "always_equal_final_store": (
        "trace_answer",
        always_equal_cheat(
            """
def final_store(start, trace):
    return SameAsAnything()


def lost_messages(start, trace):
    return SameAsAnything()
""",
            hide_from_type_checks=False,
        ),
        {"test_c_final", "test_c_lost"},
    ),
    # Every team answered with the store that "always works".
    "postgres_for_everything": (
        "cases_answer",
        'def choose_store(needs):\n    return "Postgres Chat Memory"\n',
        {"test_case_workshop", "test_case_privacy", "test_case_tickets", "test_case_analysts"},
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly library_window_shortcut's points.
MUTANTS |= reached_every_way(MUTANTS, "library_window_shortcut", "windowmem.policies")

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        "nothing_expires": {"test_b_idle": 0.5},
        "postgres_for_everything": {
            "test_case_privacy": 0.75,
            "test_case_workshop": 0.62,
            "test_case_tickets": 0.62,
            "test_case_analysts": 0.88,
        },
        "save_appends": {"test_c_final": 1.0, "test_c_lost": 1.5},
        "simple_memory_shared": {"test_b_workers": 1.0, "test_b_idle": 0.25},
        "spring_1x_eviction": {"test_d_spring": 1.0},
        "spring_keeps_everything": {"test_d_spring": 1.33},
    },
)


#: A student who skims: labels matched by keyword, procedures copied from the prompt's
#: wording, the clocks of Part B read as "every turn writes" and "expire 3600 s later".
SKIMMER = {
    "cases_answer": """
# the four examples' salient words: erasure -> the TTL store, SQL -> Postgres,
# MongoDB -> MongoDB, nothing -> Simple Memory
def choose_store(needs):
    if needs["erase_after_minutes"]:
        return "Redis Chat Memory"
    if needs["sql"]:
        return "Postgres Chat Memory"
    if "MongoDB" in needs["databases"]:
        return "MongoDB Chat Memory"
    return "Simple Memory"
""",
    "remembered_answer": """
def earlier_sent(store, turns, window):
    held, last_use, last_write, out = {}, {}, None, []
    for turn in turns:
        key = turn["worker"] if store == "simple" else "shared"
        if store == "simple" and turn.get("restart_before"):
            held, last_use = {}, {}
        messages = held.setdefault(key, [])
        now = turn["minute"]
        if store == "simple" and key in last_use and now - last_use[key] > 60:
            messages.clear()
        if store == "redis" and last_write is not None and now - last_write >= 60:
            messages.clear()
        out.append(list(messages if window == 0 else messages[-2 * window :]))
        messages += [turn["user"], turn["reply"]]
        last_use[key] = last_write = now
    return out
""",
    **transcribed(read_notebook(SOURCE), "trace_answer", "held_answer"),
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE)


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == GRADE_CONTRACT
    assert {part: total for part, (_, total) in part_points(source_nb).items()} == {
        "Part A": 6,
        "Part B": 6,
        "Part C": 4,
        "Part D": 4,
    }


# ---------------------------------------------------------------- expectations, independently


def checks_in(grade_id: str) -> list[tuple[str, list, int, list]]:
    """(store, turn spec, window, expected) of every _check call in a Part B test cell."""
    tree = ast.parse(solution_source(grade_id))
    names: dict = {}
    found = []
    # cases sit at the top level or inside the try of a partial-credit part, in order
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # not a literal: a helper, not a case
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if getattr(node.value.func, "id", "") == "_check":
                found.append(
                    tuple(
                        names[arg.id] if isinstance(arg, ast.Name) else ast.literal_eval(arg)
                        for arg in node.value.args
                    )
                )
    return found


def windowmem_earlier_sent(store: str, spec: list, window: int) -> list[list[str]]:
    """Part B with windowmem's stores: a Simple Memory map per worker, n8n's Redis list on a clock."""
    clock = ManualClock()
    maps = {}
    redis = N8nRedisHistory(SqliteLists(":memory:", clock), "chat", session_ttl=3600)
    table: list = []
    out = []
    for number, (minute, worker, restart, *failed) in enumerate(spec, start=1):
        clock.now = minute * 60.0
        if restart:
            for m in maps.values():
                m.restart()
        if store == "simple":
            memory = maps.setdefault(worker, SimpleMemoryStore(clock)).memory(
                "wf1", "chat", context_window_length=window, source="customKey"
            )
            stored = list(memory.stored)
        elif store == "redis":
            stored = redis.get_messages()
        else:
            stored = list(table)
        out.append([m.content for m in N8nSimpleMemory(window).load(stored)])
        if failed and failed[0]:
            continue  # the run loaded, then failed: it writes nothing
        clock.now += 5.0  # a run writes when it ends, a few seconds after it started
        written = [user(f"q{number}"), assistant(f"a{number}")]
        if store == "simple":
            memory.add(*written)
        elif store == "redis":
            redis.add_messages(written)
        else:
            table.extend(written)
    return out


@pytest.mark.parametrize("grade_id", sorted(B_CELLS))
def test_part_b_expectations_are_what_windowmem_s_stores_do(grade_id):
    cases = checks_in(grade_id)
    assert len(cases) >= 3
    for store, spec, window, want in cases:
        assert windowmem_earlier_sent(store, spec, window) == want, (store, spec, window)


def test_part_c_expectations_are_what_two_real_processes_do(tmp_path):
    """The hidden traces' outcomes, reproduced by racing two processes on a SQLite table."""
    text = solution_source("test_c_final")
    assert (
        '["q1", "a1", "qA", "qB", "aA", "aB"]' in text and '["q1", "a1", "qB", "aA", "aB"]' in text
    )
    history = [user("q1"), assistant("a1")]
    pair = (races.Request("A", "qA", "aA"), races.Request("B", "qB", "aB"))
    n8n = races.run_pair(
        "n8n",
        StoreSpec("n8n-sql", str(tmp_path / "t.db")),
        "c",
        history,
        pair,
        schedule=races.N8N_OVERLAP,
    )
    spring = races.run_pair(
        "spring-ai", StoreSpec("spring-jdbc", str(tmp_path / "t.db")), "c", history, pair,
        schedule=races.SPRING_OVERLAP,
    )  # fmt: skip
    assert list(n8n.stored) == ["q1", "a1", "qA", "qB", "aA", "aB"]
    assert list(spring.stored) == ["q1", "a1", "qB", "aA", "aB"]


def test_part_d_expectations_are_what_windowmem_s_policies_do():
    text = solution_source("test_d_spring")
    cases = re.findall(r"_t\[:(\d+)\], (\d+)\)\) == (\(\[.*?\], \[.*?\]\))", text)
    assert len(cases) == 5
    turns = [(f"q{i}", f"a{i}") for i in range(1, 8)]
    for count, size, want in cases:
        window = SpringAiMessageWindow(int(size))
        stored: list = []
        for number, (question, reply) in enumerate(turns[: int(count)], start=1):
            if number == int(count):
                sent = [m.content for m in stored]
            for message in (user(question), assistant(reply)):
                stored = list(window.write(stored, [message]))
        assert ([m.content for m in stored], sent) == ast.literal_eval(want), (count, size)
    n8n_text = solution_source("test_d_n8n")
    assert (
        "(['q1', 'a1', 'q2', 'a2', 'q3', 'a3', 'q4', 'a4', 'q5', 'a5', 'q6', 'a6', 'q7', 'a7'], ['q2', 'a2'"
        in n8n_text
    )
    stored = [m for q, a in turns[:6] for m in (user(q), assistant(a))]
    assert [m.content for m in N8nSimpleMemory(5).load(stored)][:2] == ["q2", "a2"]


# ---------------------------------------------------------------- a grading run


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED


@pytest.mark.slow
def test_the_library_shortcut_fails_on_what_it_calls_not_on_its_values(graded):
    """The shortcut's values are right: it loses its points only because it reached windowmem."""
    check_shortcut_fails_on_import(
        graded, "library_window_shortcut", NOTEBOOK, "test_d_n8n", "policies"
    )


def test_every_mutant_changes_its_answer_cell():
    for student, (grade_id, answer, _) in MUTANTS.items():
        assert answer.strip() != solution_source(grade_id).strip(), student
