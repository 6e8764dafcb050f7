"""Lesson 4's nbgrader assignment: its grade contract, its expectations checked independently, a real grading run.

The generic checks (schema, test cells, parts, a clean and current release) are in
``test_assignments.py``. Here: the grade ids and points; each hidden cell
run with windowmem answering in the student's place (a Simple Memory map per worker on a
hand-moved clock, n8n's Redis list on its SQLite stand-in, two real processes racing on a
real table, lesson 2's agent runs and advisor calls), which must earn it full marks, so the
cases each cell draws from its seed are what the products do; and one run of
``python -m autograder grade`` over the solution (full marks), the untouched release (zero,
no crash), students who make typical mistakes or take shortcuts (each loses exactly its
questions' points), a skimmer and sharper skimmers (each at most a quarter of the
autograded points).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.answer_shares import part_shares
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
from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies import N8nSimpleMemory, SpringAiMessageWindow
from windowmem.policies.n8n import ManualClock, SimpleMemoryStore
from windowmem.storage import mongo_document
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
PART_A_CELLS = {
    "test_case_privacy",
    "test_case_workshop",
    "test_case_tickets",
    "test_case_analysts",
}
#: Part A's nodes, as the setup cell's STORES names them.
STORE_NAMES = ("Simple Memory", "Postgres Chat Memory", "Redis Chat Memory", "MongoDB Chat Memory")


def solution_source(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])


CHOSEN = solution_source("cases_answer")
EARLIER_SENT = solution_source("remembered_answer")
RACE = solution_source("trace_answer")
HELD = solution_source("held_answer")


def edited(source: str, *changes: tuple[str, str]) -> str:
    """*source* with each (old, new) replaced, each old text required to be there."""
    for old, new in changes:
        assert old in source, old
        source = source.replace(old, new)
    return source


MUTANTS = {
    # Simple Memory treated like a shared store: workers see each other's turns.
    "simple_memory_shared": (
        "remembered_answer",
        edited(
            EARLIER_SENT,
            ('key = turn["worker"] if store == "simple" else "shared"', 'key = "shared"'),
        ),
        {"test_b_restart", "test_b_workers"},  # the idle cell's chats have one worker
    ),
    # An idle hour forgotten: neither Simple Memory nor Redis ever expires.
    "nothing_expires": (
        "remembered_answer",
        edited(
            EARLIER_SENT,
            ("start - last_load[key] > 3600", "False"),
            ("start >= last_write + 3600", "False"),
            ("end >= last_write + 3600", "False"),
        ),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # Redis's key checked only when a run loads: a key that expires while the model answers
    # is written to as if it were still there.
    "redis_expires_only_at_load": (
        "remembered_answer",
        edited(EARLIER_SENT, ("end >= last_write + 3600", "False")),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # The literal reading: Redis's hour counted from the turn's minute, not from the write at
    # the end of the run.
    "redis_clock_from_start": (
        "remembered_answer",
        edited(EARLIER_SENT, ('end = start + turn["seconds"]', "end = start")),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # Off by one at the boundary: Simple Memory deletes at exactly an hour, not after more.
    "simple_idle_off_by_one": (
        "remembered_answer",
        edited(EARLIER_SENT, ("start - last_load[key] > 3600", "start - last_load[key] >= 3600")),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # Every run writes, a failed one too (n8n writes only after the model answers).
    "failed_runs_write": (
        "remembered_answer",
        edited(EARLIER_SENT, ('if not turn.get("failed"):', "if True:")),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # Simple Memory's clock moved by writes (the end of an answered run), not by loads.
    "simple_clock_counts_writes": (
        "remembered_answer",
        edited(
            EARLIER_SENT,
            ("last_load[key] = start  #", "pass  #"),
            ("last_write = end", "last_write = last_load[key] = end"),
        ),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # A restart empties the table and the Redis list too.
    "restart_empties_every_store": (
        "remembered_answer",
        edited(
            EARLIER_SENT,
            (
                'if store == "simple" and turn.get("restart_before"):',
                'if turn.get("restart_before"):',
            ),
        ),
        {"test_b_restart", "test_b_workers", "test_b_idle"},
    ),
    # The atomic reading of Spring AI's add: the save reads the store as it is now.
    "save_appends": (
        "trace_answer",
        edited(RACE, ("stored = found[request] + [message]", "stored = stored + [message]")),
        {"test_c_final", "test_c_lost"},
    ),
    # One read shared by both requests: a find by one overwrites the other's.
    "one_read_for_both": (
        "trace_answer",
        edited(RACE, ("found[request] = list(stored)", 'found["A"] = found["B"] = list(stored)')),
        {"test_c_final", "test_c_lost"},
    ),
    # Spring AI modelled as storing everything, like n8n.
    "spring_keeps_everything": (
        "held_answer",
        edited(HELD, ("if len(kept) > size:", "if False:")),
        {"test_d_n8n", "test_d_spring"},
    ),
    # The 1.x eviction (oldest messages one by one, no snap to a question) for 2.0.1.
    "spring_1x_eviction": (
        "held_answer",
        edited(
            HELD,
            ("while cut < len(kept) and not kept[cut][1]:\n                    cut += 1", "pass"),
        ),
        {"test_d_n8n", "test_d_spring"},
    ),
    # n8n keeps a failed turn's question, as Spring AI does.
    "n8n_keeps_failed_questions": (
        "held_answer",
        edited(
            HELD,
            (
                "stored = [text for pair in turns[:-1] if pair[1] is not None for text in pair]",
                "stored = [text for pair in turns[:-1] for text in pair if text is not None]",
            ),
            (
                "last = list(turns[-1]) if turns[-1][1] is not None else []",
                "last = [text for text in turns[-1] if text is not None]",
            ),
        ),
        {"test_d_n8n", "test_d_spring"},
    ),
    # Spring AI forgets a failed turn's question, as n8n does.
    "spring_forgets_failed_questions": (
        "held_answer",
        edited(
            HELD,
            (
                "added = [(question, True)] + ([(answer, False)] if answer is not None else [])",
                "added = [(question, True), (answer, False)] if answer is not None else []",
            ),
        ),
        {"test_d_n8n", "test_d_spring"},
    ),
    # The library's windows do the work: right values, no points.
    "library_window_shortcut": (
        "held_answer",
        "from windowmem.policies import N8nSimpleMemory as _Window\n\n"
        + edited(
            HELD,
            (
                "sent = stored if size == 0 else stored[-2 * size :]",
                "sent = list(_Window(size).load(stored))",
            ),
        ),
        # every case runs both products, so every case reaches the n8n branch
        {"test_d_n8n", "test_d_spring"},
    ),
    # A list that equals anything, hidden from type checks: caught by the real type.
    "always_equal_final_store": (
        "trace_answer",
        always_equal_cheat(
            """
def final_store(product, start, schedule):
    return SameAsAnything()


def lost_messages(product, start, schedule):
    return SameAsAnything()
""",
            hide_from_type_checks=False,
        ),
        {"test_c_final", "test_c_lost"},
    ),
    # Every team answered with the store that "always works".
    "postgres_for_everything": (
        "cases_answer",
        'def fitting_stores(needs):\n    return ["Postgres Chat Memory"]\n',
        PART_A_CELLS,
    ),
    # The literal reading of Redis's clock: the TTL need only outlast one pause, as if a failed
    # run wrote (it writes nothing, so the next answered run comes pauses later).
    "redis_ttl_covers_one_pause": (
        "cases_answer",
        edited(CHOSEN, ("(failed + 1) * pause <= erase", "pause <= erase")),
        {"test_case_privacy", "test_case_analysts"},
    ),
    # Off by one at the boundary: Simple Memory deletes a buffer after exactly an hour.
    "simple_hour_off_by_one": (
        "cases_answer",
        edited(CHOSEN, ("pause <= 60", "pause < 60")),
        PART_A_CELLS,
    ),
    # Off by one at Redis's boundary: a TTL exactly the time to the next answered run is taken
    # to expire first, though that run's message comes after the write, not at it.
    "redis_boundary_off_by_one": (
        "cases_answer",
        edited(CHOSEN, ("(failed + 1) * pause <= erase", "(failed + 1) * pause < erase")),
        {"test_case_workshop", "test_case_tickets", "test_case_analysts"},
    ),
    # MongoDB's 16 MiB cap forgotten.
    "mongo_without_a_cap": (
        "cases_answer",
        edited(
            CHOSEN, ('and needs["session_turns"] * needs["turn_chars"] <= 16 * 1024 * 1024', "")
        ),
        PART_A_CELLS,
    ),
    # A store taken to serialise overlapping runs: a database node would let each see the other.
    "a_database_serialises_overlaps": (
        "cases_answer",
        edited(
            CHOSEN,
            (
                "return []  # no node locks",
                "return [n for n in fitting_stores(dict(needs, overlap=None)) if n != 'Simple Memory']  #",
            ),
        ),
        {"test_case_tickets"},
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
        "postgres_for_everything": {
            "test_case_privacy": 0.94,
            "test_case_workshop": 0.94,
            "test_case_tickets": 0.94,
            "test_case_analysts": 0.94,
        },
        "redis_ttl_covers_one_pause": {
            "test_case_privacy": 0.06,
            "test_case_analysts": 0.06,
        },
        "simple_hour_off_by_one": {
            "test_case_privacy": 0.44,
            "test_case_workshop": 0.31,
            "test_case_tickets": 0.31,
            "test_case_analysts": 0.31,
        },
        "redis_boundary_off_by_one": {
            "test_case_workshop": 0.06,
            "test_case_tickets": 0.06,
            "test_case_analysts": 0.06,
        },
        "mongo_without_a_cap": {
            "test_case_privacy": 0.06,
            "test_case_workshop": 0.12,
            "test_case_tickets": 0.25,
            "test_case_analysts": 0.12,
        },
        "a_database_serialises_overlaps": {
            "test_case_tickets": 0.06,
        },
        # the chat whose run ends a second before the key's hour holds when nothing expires
        "nothing_expires": {"test_b_restart": 2.0, "test_b_workers": 2.0, "test_b_idle": 1.88},
        "simple_memory_shared": {"test_b_restart": 1.17, "test_b_workers": 1.67},
        "redis_expires_only_at_load": {
            "test_b_restart": 1.67,
            "test_b_workers": 1.67,
            "test_b_idle": 1.5,
        },
        # the chats at the key's hour exactly or a second before it hold for a clock read from
        # the run's start
        "redis_clock_from_start": {
            "test_b_restart": 2.0,
            "test_b_workers": 2.0,
            "test_b_idle": 1.75,
        },
        "simple_idle_off_by_one": {
            "test_b_restart": 0.33,
            "test_b_workers": 0.33,
            "test_b_idle": 0.5,
        },
        "failed_runs_write": {"test_b_restart": 1.0, "test_b_workers": 1.5, "test_b_idle": 1.25},
        "simple_clock_counts_writes": {
            "test_b_restart": 0.67,
            "test_b_workers": 0.83,
            "test_b_idle": 1.5,
        },
        "restart_empties_every_store": {
            "test_b_restart": 2.0,
            "test_b_workers": 1.0,
            "test_b_idle": 0.5,
        },
        "save_appends": {"test_c_final": 1.9, "test_c_lost": 1.9},
        "one_read_for_both": {"test_c_final": 0.1, "test_c_lost": 0.1},
        "spring_keeps_everything": {"test_d_n8n": 1.0, "test_d_spring": 1.33},
        "spring_1x_eviction": {"test_d_n8n": 0.67, "test_d_spring": 0.33},
        "spring_forgets_failed_questions": {"test_d_n8n": 1.67, "test_d_spring": 2.0},
    },
)


#: A student who skims: the prompt's sentences implemented as they read, the lesson's printed
#: values copied, Part A's labels matched by keyword. No cell is the model answer.
SKIMMER = {
    "cases_answer": """
# the examples' salient words, one store per team: erasure -> the TTL store, SQL -> Postgres,
# MongoDB -> MongoDB, nothing -> Simple Memory
def fitting_stores(needs):
    if needs["erase_minutes"]:
        return ["Redis Chat Memory"]
    if needs["sql"]:
        return ["Postgres Chat Memory"]
    if "MongoDB" in needs["databases"]:
        return ["MongoDB Chat Memory"]
    return ["Simple Memory"]
""",
    "remembered_answer": """
# the two clocks as the prompt words them, both read from the turn's "minute": Simple Memory
# forgets "an hour after the last run that used it", Redis "3600 seconds after the last
# write"; a failed turn writes nothing; one map per worker, emptied by a restart
def earlier_sent(store, turns, window):
    held, last_use, last_write, out = {}, {}, None, []
    for turn in turns:
        key = turn["worker"] if store == "simple" else "shared"
        if store == "simple" and turn.get("restart_before"):
            held, last_use = {}, {}
        messages = held.setdefault(key, [])
        now = turn["minute"]
        if store == "simple" and key in last_use and now - last_use[key] >= 60:
            messages.clear()
        if store == "redis" and last_write is not None and now - last_write >= 60:
            messages.clear()
        out.append(list(messages if window == 0 else messages[-2 * window :]))
        last_use[key] = now
        if not turn.get("failed"):
            messages += [turn["user"], turn["reply"]]
            last_write = now
    return out
""",
    "trace_answer": """
# the step names copied from the lesson's race tables; each add "reads the conversation, trims
# it and writes the whole list back", read as one act: the list as it is at the save, plus
# the message; the lesson's two printed Spring AI timings copied as they came out
STEPS = {"n8n": ("load", "write user", "write reply"),
         "spring": ("get", "find", "save user", "find", "save reply")}
PRINTED = {"AABBABAABB": ["qB", "aA", "aB"], "AAABBBAABB": ["qA", "qB", "aA", "aB"]}


def final_store(product, start, schedule):
    if product == "spring" and schedule in PRINTED:
        return list(start) + PRINTED[schedule]
    stored, taken = list(start), {"A": 0, "B": 0}
    for request in schedule:
        step = STEPS[product][taken[request]]
        taken[request] += 1
        if step.startswith("write") or step.startswith("save"):
            stored = stored + [("q" if step.endswith("user") else "a") + request]
    return stored


def lost_messages(product, start, schedule):
    final = final_store(product, start, schedule)
    return [m for m in ("qA", "aA", "qB", "aB") if m not in final]
""",
    "held_answer": """
# the prompt's two windows as worded: n8n sends the last 2k stored messages (0: all), Spring AI
# keeps the last maxMessages, cut forward to a question; a failed turn (answer None) keeps
# the question it asked, in both products
def held_and_sent(product, turns, size):
    def texts(pairs):
        return [(t, i == 0) for pair in pairs for i, t in enumerate(pair) if t is not None]

    def spring_window(messages):
        kept = messages[-size:]
        while kept and not kept[0][1]:
            kept = kept[1:]
        return [t for t, _ in kept]

    everything, earlier = texts(turns), texts(turns[:-1])
    if product == "n8n":
        earlier = [t for t, _ in earlier]
        return [t for t, _ in everything], earlier if size == 0 else earlier[-2 * size :]
    return spring_window(everything), spring_window(earlier)
""",
}


#: Sharper skimmers, each handed in as its own student with the model skimmer's other answers:
#: Part A by rules a reviewer fits to the visible teams or reads off the prompt and the lesson's
#: summary, and constant answers; Part B with the lesson's section 5 fact (Redis written at the
#: end of the run) and "more than an hour" (all it misses is a key expiring while a run
#: answers); Part C as read-modify-write with one read per request; and every sharper Part A
#: answer with the sharpest Part B and C answers. Each must earn at most a quarter.
B_WRITE_AT_END = edited(
    SKIMMER["remembered_answer"], ("last_write = now", 'last_write = now + turn["seconds"] / 60')
)
B_SHARPEST = edited(B_WRITE_AT_END, ("now - last_use[key] >= 60", "now - last_use[key] > 60"))
C_READS_ONCE = edited(
    SKIMMER["trace_answer"],
    (
        """    stored, taken = list(start), {"A": 0, "B": 0}
    for request in schedule:
        step = STEPS[product][taken[request]]
        taken[request] += 1
        if step.startswith("write") or step.startswith("save"):
            stored = stored + [("q" if step.endswith("user") else "a") + request]
    return stored""",
        """    # a request reads once, at its first find, and each of its saves writes back that read
    # plus its own messages so far
    stored, taken, read, mine = list(start), {"A": 0, "B": 0}, {}, {"A": [], "B": []}
    for request in schedule:
        step = STEPS[product][taken[request]]
        taken[request] += 1
        if step == "find" and request not in read:
            read[request] = list(stored)
        message = ("q" if step.endswith("user") else "a") + request
        if step.startswith("write"):
            stored = stored + [message]
        elif step.startswith("save"):
            mine[request].append(message)
            stored = read[request] + mine[request]
    return stored""",
    ),
    (
        '    if product == "spring" and schedule in PRINTED:\n        return list(start) + PRINTED[schedule]\n',
        "",
    ),
)
C_READS_AT_GET = edited(
    C_READS_ONCE, ('if step == "find" and request not in read:', 'if step == "get":')
)
SHARPER_SKIMMERS = {
    # the first pass's five rules (erasure -> Redis, SQL -> Postgres, no database -> Simple
    # Memory, otherwise the databases they run), fitted to the five visible teams
    "a_five_rules": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    dbs = needs["databases"]
    if needs["erase_minutes"]:
        return ["Redis Chat Memory"] if "Redis" in dbs and not needs["sql"] else []
    if needs["sql"]:
        return ["Postgres Chat Memory"] if "Postgres" in dbs else []
    if not dbs:
        return ["Simple Memory"]
    alone = needs["workers"] == 1 and not needs["restarts"]
    return ["Simple Memory"] * alone + [d + " Chat Memory" for d in ("Postgres", "Redis", "MongoDB") if d in dbs]
""",
    ),
    # the five rules, the prompt's 16 MiB cap and its 'no node locks a conversation'
    "a_six_rules": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    dbs = needs["databases"]
    if needs["overlap"] == "each sees the other":
        return []
    if needs["erase_minutes"]:
        return ["Redis Chat Memory"] if "Redis" in dbs and not needs["sql"] else []
    if needs["sql"]:
        return ["Postgres Chat Memory"] if "Postgres" in dbs else []
    if not dbs:
        return ["Simple Memory"]
    big = needs["session_turns"] * needs["turn_chars"] > 16 * 1024 * 1024
    alone = needs["workers"] == 1 and not needs["restarts"]
    return ["Simple Memory"] * alone + [
        d + " Chat Memory" for d in ("Postgres", "Redis", "MongoDB") if d in dbs and not (d == "MongoDB" and big)]
""",
    ),
    # the lesson's summary applied literally, node by node
    "a_summary_rules": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    pause, erase, keep = needs["pause_minutes"], needs["erase_minutes"], needs["keep_days"]
    fits = []
    if (needs["workers"] == 1 and not needs["restarts"] and pause < 60 and erase is None
            and keep is None and not needs["sql"]):
        fits.append("Simple Memory")
    if "Postgres" in needs["databases"] and erase is None:
        fits.append("Postgres Chat Memory")
    if "Redis" in needs["databases"] and not needs["sql"] and (
            erase is None or (pause < erase and (keep is None or keep * 1440 <= erase))):
        fits.append("Redis Chat Memory")
    if "MongoDB" in needs["databases"] and erase is None and not needs["sql"]:
        fits.append("MongoDB Chat Memory")
    return fits
""",
    ),
    # every rule the prompt states, read as worded: a pause against the hour and the TTL,
    # failed runs left out
    "a_prompt_rules": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    pause, erase, keep = needs["pause_minutes"], needs["erase_minutes"], needs["keep_days"]
    if needs["overlap"] == "each sees the other":
        return []
    fits = []
    if (needs["workers"] == 1 and not needs["restarts"] and pause < 60 and erase is None
            and keep is None and not needs["sql"]):
        fits.append("Simple Memory")
    if "Postgres" in needs["databases"] and erase is None:
        fits.append("Postgres Chat Memory")
    if "Redis" in needs["databases"] and not needs["sql"] and (
            erase is None or (pause < erase and (keep is None or keep * 1440 <= erase))):
        fits.append("Redis Chat Memory")
    if ("MongoDB" in needs["databases"] and erase is None and not needs["sql"]
            and needs["session_turns"] * needs["turn_chars"] <= 16 * 1024 * 1024):
        fits.append("MongoDB Chat Memory")
    return fits
""",
    ),
    # a constant answer: no node ever fits
    "a_always_empty": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    return []
""",
    ),
    # a constant rule: the databases the team runs
    "a_every_database": dict(
        SKIMMER,
        cases_answer="""
def fitting_stores(needs):
    return [d + " Chat Memory" for d in ("Postgres", "Redis", "MongoDB") if d in needs["databases"]]
""",
    ),
    # Part B: the write at the end of the run (lesson section 5), the hour as ">= 60"
    "b_write_at_end": dict(SKIMMER, remembered_answer=B_WRITE_AT_END),
    # Part B: the write at the end of the run and "more than an hour"
    "b_write_at_end_more_than_an_hour": dict(SKIMMER, remembered_answer=B_SHARPEST),
    # Part C: read-modify-write, one read per request (its first find) for both its saves
    "c_reads_once": dict(SKIMMER, trace_answer=C_READS_ONCE),
    # Part C: the same, the read taken at the request's get (the memory for the prompt)
    "c_reads_at_get": dict(SKIMMER, trace_answer=C_READS_AT_GET),
}

#: Every sharper Part A answer with the sharpest Part B and Part C answers, each a student of the
#: grading run: together they must stay at most a quarter too.
SHARPER_SKIMMERS |= {
    f"{a}+b_sharpest+c_reads_once": dict(
        SHARPER_SKIMMERS[a], remembered_answer=B_SHARPEST, trace_answer=C_READS_ONCE
    )
    for a in sorted(SHARPER_SKIMMERS)
    if a.startswith("a_")
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


def hidden_cell(grade_id: str) -> str:
    """A test cell's hidden section."""
    text = solution_source(grade_id)
    hidden = text.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS", 1)[0]
    assert "_sealed(" in hidden
    return hidden


def graded_with(grade_id: str, **answers) -> tuple[float, dict]:
    """The cell's score with *answers* in the student's place, and the namespace it ran in,
    outside the behaviour check: the reference answers given are windowmem's, which the
    check would refuse, rightly."""
    namespace: dict = {
        **support_namespace(ASSIGNMENT),
        "_sealed": lambda function, allow: function,
        **answers,
    }
    tree = ast.parse(hidden_cell(grade_id))
    *body, last = tree.body
    exec(compile(ast.Module(body, []), grade_id, "exec"), namespace)
    return eval(compile(ast.Expression(last.value), grade_id, "eval"), namespace), namespace


def windowmem_earlier_sent(store: str, turns: list[dict], window: int) -> list[list[str]]:
    """Part B with windowmem's stores: a Simple Memory map per worker, n8n's Redis list on a clock."""
    clock = ManualClock()
    maps: dict = {}
    redis = N8nRedisHistory(SqliteLists(":memory:", clock), "chat", session_ttl=3600)
    table: list = []
    out = []
    for turn in turns:
        clock.now = turn["minute"] * 60.0
        if turn.get("restart_before"):
            for m in maps.values():
                m.restart()
        if store == "simple":
            memory = maps.setdefault(turn["worker"], SimpleMemoryStore(clock)).memory(
                "wf1", "chat", context_window_length=window, source="customKey"
            )
            stored = list(memory.stored)
        elif store == "redis":
            stored = redis.get_messages()
        else:
            stored = list(table)
        out.append([m.content for m in N8nSimpleMemory(window).load(stored)])
        if turn.get("failed"):
            continue  # the run loaded, then failed: it writes nothing
        clock.now += turn["seconds"]  # the run writes when it ends, after the model answered
        written = [user(turn["user"]), assistant(turn["reply"])]
        if store == "simple":
            memory.add(*written)
        elif store == "redis":
            redis.add_messages(written)
        else:
            table.extend(written)
    return out


@pytest.mark.parametrize("grade_id", sorted(B_CELLS))
def test_part_b_expectations_are_what_windowmem_s_stores_do(grade_id):
    """Each hidden cell, with windowmem's stores answering, gives full marks; so does its
    space of chats on other seeds, and each drawn chat is one the clocks tell apart."""
    score, cell = graded_with(grade_id, earlier_sent=windowmem_earlier_sent)
    assert score == GRADE_CONTRACT[grade_id] and cell["_parts"][1] >= 6
    for seed in (1, 2, 3):
        for turns, window, want in cell["_chats"](seed, 12, 3, 4, 4):
            assert [windowmem_earlier_sent(s, turns, window) for s in cell["_STORES"]] == want
            quick = [dict(t, seconds=1) for t in turns]
            assert want[2] != windowmem_earlier_sent("redis", quick, window)


def race_in_two_processes(product: str, start: list[str], schedule: str, folder) -> tuple:
    """Two real processes on a real table, in the order *schedule* forces: (stored, trace)."""
    history = [(user if i % 2 == 0 else assistant)(text) for i, text in enumerate(start)]
    pair = (races.Request("A", "qA", "aA"), races.Request("B", "qB", "aB"))
    name, kind = ("n8n", "n8n-sql") if product == "n8n" else ("spring-ai", "spring-jdbc")
    run = races.run_pair(
        name, StoreSpec(kind, str(folder / "race.db")), f"race-{schedule}-{len(start)}",
        history, pair, schedule=tuple(schedule),
    )  # fmt: skip
    return list(run.stored), run.trace


@pytest.mark.parametrize("grade_id", ["test_c_final", "test_c_lost"])
def test_part_c_expectations_are_what_two_real_processes_do(grade_id, tmp_path):
    """Each hidden cell's races, run by two real processes, give the cell full marks."""

    def final_store(product, start, schedule):
        return race_in_two_processes(product, start, schedule, tmp_path)[0]

    def lost_messages(product, start, schedule):
        stored, trace = race_in_two_processes(product, start, schedule, tmp_path)
        written = [
            ("q" if step.endswith("user") else "a") + step[0]
            for step in trace
            if " write" in step or " save" in step
        ]
        return [m for m in dict.fromkeys(written) if m not in stored]

    answer = final_store if grade_id == "test_c_final" else lost_messages
    score, cell = graded_with(grade_id, **{answer.__name__: answer})
    assert score == GRADE_CONTRACT[grade_id] and cell["_parts"][1] >= 10
    drawn = cell["_races"](cell["_SEED"], 20)
    assert {product for product, *_ in drawn} == {"n8n", "spring"}
    lesson = {
        races.N8N_OVERLAP,
        races.N8N_DURING_CALL,
        races.SPRING_OVERLAP,
        races.SPRING_DURING_CALL,
    }
    assert not {tuple(schedule) for _, _, schedule, _ in drawn} & lesson  # none the lesson ran
    # both timings of the lesson's section 5 and its Deeper part lie in the space it draws from
    n = len(cell["_STEPS"]["spring"])
    assert all(not s.startswith("A" * n) and not s.startswith("B" * n) for _, _, s, _ in drawn)


def windowmem_held_and_sent(product: str, turns: list[tuple], size: int) -> tuple:
    """Part D with windowmem's lesson 2 calls: n8n's agent runs and Spring AI's advisor calls."""
    chat = [m for q, a in turns for m in (user(q), *([assistant(a)] if a is not None else []))]
    if product == "n8n":
        runs = agent_runs(chat, N8nSimpleMemory(size))
        sent = [s.message.content for s in runs[-1].calls[0].sent if s.part is Part.MEMORY]
        return [m.content for run in runs for m in run.saved], sent
    calls = advisor_calls(chat, SpringAiMessageWindow(size))
    return [m.content for m in calls[-1].stored_after], [m.content for m in calls[-1].sent[:-1]]


@pytest.mark.parametrize("grade_id", ["test_d_n8n", "test_d_spring"])
def test_part_d_expectations_are_what_windowmem_s_policies_do(grade_id):
    score, cell = graded_with(grade_id, held_and_sent=windowmem_held_and_sent)
    assert score == GRADE_CONTRACT[grade_id] and cell["_parts"][1] >= 6
    for seed in (1, 2, 3):
        for turns, sizes in cell["_chats"](seed, 10, (0, 1, 2, 3), (1, 2, 3, 4, 5)):
            for product, size in sizes.items():
                assert cell["_held_sent"](product, turns, size) == windowmem_held_and_sent(
                    product, turns, size
                ), (product, size, turns)


# ---------------------------------------------------------------- Part A against windowmem's stores

_NODES = ("Simple Memory", "Postgres Chat Memory", "Redis Chat Memory", "MongoDB Chat Memory")
_RUN_SECONDS = 5  # a run takes a few seconds; it writes when it ends


def _chat_survives(node: str, needs: dict, ttl: int) -> bool:
    """Whether *node* still has the chat at the answered run that follows an answered one and
    its failed runs, each a pause later (and, if the team keeps messages, *keep_days* later)."""
    clock = ManualClock()
    pause, failed, keep = needs["pause_minutes"] * 60, needs["failed_in_a_row"], needs["keep_days"]
    if node == "Simple Memory":
        maps = [SimpleMemoryStore(clock) for _ in range(needs["workers"])]
        supplied: dict = {}  # the memory each run was supplied at its start, and writes to

        def load(run: int) -> list:
            worker = maps[run % len(maps)]  # the workers take the runs in turn
            supplied[run] = worker.memory("wf1", "chat", context_window_length=0)
            return list(supplied[run].stored)

        def write(run: int) -> None:
            supplied[run].add(user("q"), assistant("a"))
    else:
        redis = N8nRedisHistory(SqliteLists(":memory:", clock), "chat", session_ttl=ttl)

        def load(run: int) -> list:
            return redis.get_messages()

        def write(run: int) -> None:
            redis.add_messages([user("q"), assistant("a")])

    load(0)
    clock.advance(seconds=_RUN_SECONDS)
    write(0)
    for run in range(1, failed + 2):  # the failed runs load and write nothing; then one answered
        clock.now = run * pause
        if run == 1 and needs["restarts"] and node == "Simple Memory":
            for m in maps:
                m.restart()
        if not load(run):
            return False
    if keep is not None:
        clock.now = _RUN_SECONDS + keep * 86400 - 1  # a message written at the first run's end
        return bool(load(0)) if node != "Simple Memory" else False
    return True


def windowmem_fitting_stores(needs: dict, blind: bool) -> list[str]:
    """Part A with windowmem's stores: each node played through the team's needs (*blind*: an
    overlapping run is not sent the other's question, as two real processes showed)."""
    if needs["overlap"] == "each sees the other" and blind:
        return []
    fits = []
    erase = needs["erase_minutes"]
    for node in _NODES:
        if node != "Simple Memory" and node.split()[0] not in needs["databases"]:
            continue
        if needs["sql"] and node != "Postgres Chat Memory":
            continue  # only Postgres keeps the messages in a table a SQL client reads
        if node == "MongoDB Chat Memory":
            half = needs["turn_chars"] // 2
            full = mongo_document.turns_until_full(
                "chat", "x" * half, "y" * (needs["turn_chars"] - half)
            )
            if erase is None and needs["session_turns"] <= full:
                fits.append(node)
            continue
        if node == "Postgres Chat Memory":
            if erase is None:  # one row per message, never expired
                fits.append(node)
            continue
        if node == "Simple Memory" and erase is not None:
            continue  # deleted only when a later run comes: nothing erases it at a set time
        # Redis: the longest TTL the deadline allows (0: never), gone by then after the last write
        ttl = (erase or 0) * 60
        if _chat_survives(node, needs, ttl):
            fits.append(node)
    return fits


def test_part_a_expectations_are_what_windowmem_s_stores_do(tmp_path):
    """Each Part A cell, with windowmem's stores answering, gives full marks; so do its teams on
    other seeds, each drawn with the number of fitting nodes and the need it names."""
    history = [user("u1"), assistant("a1")]
    pair = (races.Request("A", "qA", "aA"), races.Request("B", "qB", "aB"))
    run = races.run_pair(
        "n8n", StoreSpec("n8n-sql", str(tmp_path / "race.db")), "overlap", history, pair,
        schedule=races.N8N_DURING_CALL,
    )  # fmt: skip
    blind = "qA" not in run.sent["B"]
    assert blind

    def answer(needs):
        return windowmem_fitting_stores(needs, blind)

    for grade_id in sorted(PART_A_CELLS):
        score, cell = graded_with(grade_id, fitting_stores=answer)
        assert score == GRADE_CONTRACT[grade_id] and cell["_parts"][1] == 16
    support = support_namespace(ASSIGNMENT)["_support"]
    for seed in (1, 2, 3):
        for first in (0, 5):
            for place, needs in enumerate(support._teams(seed, 12, first), start=first):
                nodes, on = support._plan(place)
                assert support._answer(needs) == answer(needs) == nodes, needs
                assert on is None or support._turns_on(needs, on)
        # the teams at a rule's edge: windowmem's stores agree there too
        for edge in support._EDGES:
            needs = support._edge_team(seed, edge)
            assert support._answer(needs) == answer(needs), (edge, needs)


def test_each_part_a_cell_has_every_set_of_nodes_once():
    """A Part A cell's sixteen teams have the sixteen sets of nodes as answers, one each (so a
    constant answer earns one in sixteen), its edge team among them; every need is turned on."""
    support = support_namespace(ASSIGNMENT)["_support"]
    every = sorted(sorted(support._subset(index)) for index in range(16))
    for turn, grade_id in enumerate(
        ("test_case_privacy", "test_case_workshop", "test_case_tickets", "test_case_analysts")
    ):
        seed, edge, drawn_turn = re.search(
            r'_support\._cell_teams\((\d+), "([^"]+)", (\d)\)', solution_source(grade_id)
        ).groups()
        assert int(drawn_turn) == turn and edge == support._EDGES[turn]
        teams = support._cell_teams(int(seed), edge, turn)
        assert sorted(sorted(support._answer(needs)) for needs in teams) == every
        assert (
            support._edge_team(int(seed) * 7 + 1, edge, support._plan(support._edge_place(turn))[0])
            in teams
        )
    assert {on for _, on in support._PLAN} == {*support._ONS, None}


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
    """Rules fitted to the visible teams, the prompt's or the summary's rules read literally, a
    constant answer, Part B's sharper clocks, Part C's single reads, and their mixes: each
    earns at most SKIMMER_SHARE."""
    check_skimmer_share(graded, source_nb, student)


@pytest.mark.slow
def test_the_model_skimmer_earns_little(graded, source_nb):
    """The model skimmer (Part A by keyword) stays well under the bar: at most 15%."""
    assert skimmer_share(graded.grades["skimmer"], graded_points(source_nb)) <= 0.15


# ---------------------------------------------------------------- constant answers, part by part


def constant(signature: str, body: str) -> str:
    """An answer cell whose function answers the same for every input."""
    return f"def {signature}:\n    {body}\n"


#: Every constant or one-label answer to a part, with the share of the part's autograded points
#: it earns, pinned from measurement (tests/answer_shares.py runs the hidden tests in this
#: process); each at most the part's chance.
CONSTANT_ANSWERS: dict[str, dict[str, tuple[dict[str, str], float]]] = {
    "Part A": {
        f"always {nodes}": (
            {"cases_answer": constant("fitting_stores(needs)", f"return {nodes!r}")},
            0.06,
        )
        for nodes in (
            [name for bit, name in enumerate(STORE_NAMES) if index >> bit & 1]
            for index in range(16)
        )
    },
    "Part B": {
        "nothing remembered": (
            {
                "remembered_answer": constant(
                    "earlier_sent(store, turns, window)", "return [[] for _ in turns]"
                )
            },
            0.0,
        ),
        # one label for every store: the table's, which forgets nothing
        "every store a table": (
            {
                "remembered_answer": """def earlier_sent(store, turns, window):
    out, held = [], []
    for turn in turns:
        out.append(list(held if window == 0 else held[-2 * window :]))
        if not turn.get("failed"):
            held += [turn["user"], turn["reply"]]
    return out
"""
            },
            0.02,
        ),
    },
    "Part C": {
        # nothing lost: both requests' messages kept, in the order they started
        "nothing lost": (
            {
                "trace_answer": 'STEPS = {"n8n": ("load", "write user", "write reply"), "spring": ("get", "find", "save user", "find", "save reply")}\n\n\n'
                + constant(
                    "final_store(product, start, schedule)",
                    'return list(start) + ["qA", "aA", "qB", "aB"] if schedule[0] == "A" else list(start) + ["qB", "aB", "qA", "aA"]',
                )
                + "\n\n"
                + constant("lost_messages(product, start, schedule)", "return []")
            },
            0.05,
        ),
    },
    "Part D": {
        "nothing held or sent": (
            {"held_answer": constant("held_and_sent(product, turns, size)", "return [], []")},
            0.0,
        ),
    },
}

#: What a constant earns on each part when its labels are balanced: one over their number.
#: Part A: the sixteen sets of nodes; Part B: the three stores' rules (one store's for all
#: three is one label); Part C: the messages lost, a set of the four written; Part D: the two
#: products' rules (one product's for both is one label).
CHANCE = {"Part A": 1 / 16, "Part B": 1 / 3, "Part C": 1 / 16, "Part D": 1 / 2}


@pytest.mark.parametrize(
    "part, name", [(part, name) for part, answers in CONSTANT_ANSWERS.items() for name in answers]
)
def test_a_constant_answer_earns_at_most_chance_on_its_part(part, name):
    answers, pinned = CONSTANT_ANSWERS[part][name]
    shares = part_shares(ASSIGNMENT, answers, parts={part})
    assert shares[part] == pinned, (part, name, shares)
    assert pinned <= round(CHANCE[part], 2), (part, name, CHANCE[part])


ANSWERED_BY = {
    "cases_answer": sorted(PART_A_CELLS),
    "remembered_answer": sorted(B_CELLS),
    "trace_answer": ["test_c_final", "test_c_lost"],
    "held_answer": ["test_d_n8n", "test_d_spring"],
}


def test_the_best_skimmer_answer_to_every_part_together_earns_at_most_a_quarter(source_nb):
    """Every mix of the skimmers' answers, part by part, at most a quarter: the best skimmer
    answer to each part, each scored by the hidden cells (none calls windowmem), summed."""
    setup = solution_source("setup")
    students = {"skimmer": SKIMMER, **SHARPER_SKIMMERS}
    best = {}
    for answer_cell, grade_ids in ANSWERED_BY.items():
        scores = {}
        for answer in {student[answer_cell] for student in students.values()}:
            namespace: dict = {}
            exec(setup + "\n" + answer, namespace)
            namespace.pop("__builtins__")
            scores[answer] = sum(graded_with(g, **namespace)[0] for g in grade_ids)
        best[answer_cell] = max(scores.values())
    share = sum(best.values()) / sum(graded_points(source_nb).values())
    assert share <= SKIMMER_SHARE, f"the best skimmer answers together earn {share:.0%}: {best}"


@pytest.mark.slow
def test_the_library_shortcut_fails_on_what_it_calls_not_on_its_values(graded):
    """The shortcut's values are right: it loses its points only because it reached windowmem."""
    for grade_id in ("test_d_n8n", "test_d_spring"):
        check_shortcut_fails_on_import(
            graded, "library_window_shortcut", NOTEBOOK, grade_id, "policies"
        )


def test_every_mutant_changes_its_answer_cell():
    for student, (grade_id, answer, _) in MUTANTS.items():
        assert answer.strip() != solution_source(grade_id).strip(), student
