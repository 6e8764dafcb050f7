"""Lesson 4's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson04", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
The layouts, versions, Spring AI, the other race timings, the TTL on a real Redis and
MongoDB are on the reference page, ``course/reference/04_memory_that_outlives_the_session_notes.ipynb``,
whose last cell checks them.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

import json
import math
import tempfile

from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive import expiry, store_choice
from windowmem.outlive import session_lock as lock
from windowmem.outlive import store_scenarios as scenarios
from windowmem.outlive.product_stores import StoreSpec
from windowmem.policies.n8n import session_ids
from windowmem.storage import backends, n8n_redis_history
from windowmem.storage import n8n_postgres_history as n8n_table
from windowmem_course.checks.lesson04 import (
    A_DAY,
    DEPLOY_EVENT,
    DEPLOY_STORE,
    LOCK_REPLIES,
    NEWER_RUN_SECONDS,
    SECOND_MESSAGE_AT,
    SLOW_RUN,
    THIRD_MESSAGE,
    _check_1,
    _check_lock,
    _check_store,
    _check_ttl,
    a_day_of_redis,
    deploy_in_queue_mode,
    expires_at_3600,
    second_message,
    third_message,
)
from windowmem_course.checks.page import WORKFLOWS, workflow_node

# Section 1: worker 1 odd turns, worker 2 even; one table sends the last two turns.
assert [c.worker for c in own_maps] == ["worker 1", "worker 2"] * 3
assert [len(c.sent) - 1 for c in own_maps] == [0, 0, 2, 2, 4, 4]
assert [len(c.sent) - 1 for c in one_table] == [0, 2, 4, 4, 4, 4]
assert [s[:2] for s in own_maps[5].sent[:-1]] == ["u2", "a2", "u4", "a4"]
assert [s[:2] for s in one_table[5].sent[:-1]] == ["u4", "a4", "u5", "a5"]
# The sentence under the table: turn 5 runs on worker 1, which served turns 1 and 3.
assert own_maps[4].worker == "worker 1"
assert [s[:2] for s in own_maps[4].sent[:-1]] == ["u1", "a1", "u3", "a3"]
assert [s[:2] for s in one_table[4].sent[:-1]] == ["u3", "a3", "u4", "a4"]
# Self-check 1 and its worked answer: the table's two workers and window, a deploy between
# turns 3 and 4; turn 6 (worker 2) sends u4 a4; on Postgres it would send u4 a4 u5 a5.
assert scenarios.EVENT_TURN == 4 and scenarios.N8N_WINDOW == 2
assert _check_1() == {"1": 2} and deploy_in_queue_mode() == ["u4", "a4"]
assert deploy_in_queue_mode("n8n Postgres table") == ["u4", "a4", "u5", "a5"]
assert scenarios.play_scenario(DEPLOY_STORE, 2, DEPLOY_EVENT)[5].worker == 2

# Section 1's fix: the key on "Connected Chat Trigger Node" per version, as the table says.
for node, old, new, name in (
    ("memoryPostgresChat", 1.3, 1.4, "Postgres Chat Memory"),
    ("memoryRedisChat", 1.5, 1.6, "Redis Chat Memory"),
):
    assert not session_ids.scopes_to_node(node, old, session_ids.FROM_INPUT)
    assert session_ids.scopes_to_node(node, new, session_ids.FROM_INPUT)
    assert not session_ids.scopes_to_node(node, new, session_ids.CUSTOM_KEY)
    assert f"abc__{session_ids.n8n_safe_name(name)}" == f"abc__{name.replace(' ', '_')}"
assert session_ids.n8n_safe_name("Postgres Chat Memory") == "Postgres_Chat_Memory"
# Every workflow the lesson imports comes on Define below with the one key, no suffix, so
# chat abc is filed under abc (section 3's `TTL abc`).
for workflow, name in (
    ("lesson4_postgres", "Postgres Chat Memory"),
    ("lesson4_redis", "Redis Chat Memory"),
    ("lesson4_lock", "Postgres Chat Memory"),
):
    memory = workflow_node(workflow, name)
    assert memory["parameters"]["sessionIdType"] == session_ids.CUSTOM_KEY, workflow
    assert (
        memory["parameters"]["sessionKey"]
        == "={{ $('When chat message received').item.json.sessionId }}"
    ), workflow
    assert not session_ids.scopes_to_node(
        memory["type"].rsplit(".", 1)[-1], memory["typeVersion"], session_ids.CUSTOM_KEY
    )

# Section 1's fix: n8n's table, one row per message, no date column.
assert (
    "id SERIAL PRIMARY KEY, session_id VARCHAR(255) NOT NULL, message JSONB NOT NULL"
    in n8n_table.POSTGRES_DDL
)

# Section 2's lock drops a second message instead of queueing it. Its race picture (A 0 s
# + 6 s, B 2 s + 8 s) behind the lock: B is turned away ("One moment"), sends and stores nothing.
history = [user("u1 I'm Marta, order #6023"), assistant("a1 Noted, Marta")]
pair = (races.Request("A", "question A", "answer A"), races.Request("B", "question B", "answer B"))
_table = StoreSpec("n8n-sql", f"{tempfile.mkdtemp(prefix='lesson4-page-')}/lock.db")
locked = lock.run_with_lock(
    _table, "lesson4-race", history, pair, [lock.Arrival("A", 0, 6), lock.Arrival("B", 2, 8)]
)
assert locked.sent["B"] == () and locked.trace[1].startswith("B Increment → 2, answered")
assert locked.sent["A"] == (*(m.content for m in history), "question A")
assert locked.stored[2:] == ("question A", "answer A")
assert lock.RECIPE_TTL == 60 and lock.ONE_MOMENT.startswith("One moment, ")
assert "send this one again" in lock.ONE_MOMENT  # the dropped message: the reply asks for it again
# Section 2's lock text: a missing key counts from 0, so the first run gets 1; every
# Increment, a refused one too, restarts the 60 s (C at second 80 is still refused, 50 s
# after B's Increment); a run that never deletes frees the key 60 s after the last one.
_runs = lock.admit(
    [lock.Arrival("A", 0, 100), lock.Arrival("B", 30, 20), lock.Arrival("C", 80, 20)]
)
assert [(o.count, o.ran) for o in _runs] == [(1, True), (2, False), (3, False)]
assert lock.admit([lock.Arrival("A", 0, 100), lock.Arrival("B", 61, 20)])[1].count == 1
# Self-check 2: the slow run (0 s, 75 s) outlives the recipe's 60 s TTL; the message at 65 s
# finds no key (its Increment counts 1) and runs beside it; the worked answer's "at 60".
_slow = lock.admit([lock.Arrival(*SLOW_RUN), lock.Arrival("B", SECOND_MESSAGE_AT, 5)])
assert [(o.count, o.ran, o.overlaps) for o in _slow] == [(1, True, ()), (1, True, ("A",))]
assert _slow[0].expires_at == lock.RECIPE_TTL == 60 < SECOND_MESSAGE_AT < SLOW_RUN[2] == 75
assert second_message().ran and _check_lock() == {"2": "agent"} and LOCK_REPLIES[0] == "agent"
# Self-check 2's rule: the slow run's Release (at 75 s) deletes the key the message at 65 s took,
# so a third message at 80 s, while that run still works, counts 1 and runs beside it; Going
# further's cell plays it ("give B 20 seconds and add ("C", 80, 5)"). With a TTL above the
# longest run, the message at 65 s is turned away and nobody runs beside anyone.
_third = third_message()
assert [(o.count, o.ran, o.overlaps) for o in _third] == [
    (1, True, ()),
    (1, True, ("A",)),
    (1, True, ("B",)),
]
_slow_end = SLOW_RUN[1] + SLOW_RUN[2]  # the slow run's Release: "at 75 s"
assert _slow_end == 75 and _slow_end < THIRD_MESSAGE[1] < SECOND_MESSAGE_AT + NEWER_RUN_SECONDS
assert NEWER_RUN_SECONDS == 20 and THIRD_MESSAGE == ("C", 80, 5)
assert not any(o.overlaps for o in third_message(ttl=SLOW_RUN[2] + 1))
# Going further's lock picture (scripts/draw_diagrams.py draws it from admit): a crashed run at 0,
# a retry at 30 turned away whose Increment moves the key's end from 60 s to 90 s, and a retry
# at 100 that finds no key; self-check 2 asks a slow run instead.
_picture = lock.admit(
    [lock.Arrival("failed", 0, math.inf), lock.Arrival("30", 30, 25), lock.Arrival("100", 100, 25)]
)
assert [(o.count, o.ran, o.expires_at) for o in _picture] == [
    (1, True, 60),
    (2, False, 90),
    (1, True, 160),
]
# The rule's last line: a run longer than the TTL lets the next message in beside it.
_alone = lock.admit([lock.Arrival("A", 0, 75), lock.Arrival("C", 70, 5)])
assert [(o.count, o.ran, o.overlaps) for o in _alone] == [(1, True, ()), (1, True, ("A",))]
# The importable lock (its steps are on the reference page): Increment with a 60 s TTL, the
# If on the count, "One moment", Delete; the agent and the memory read the trigger by name.
trigger = "$('When chat message received').item.json"
take = workflow_node("lesson4_lock", "Take the lock")["parameters"]
assert (take["operation"], take["key"], take["expire"], take["ttl"]) == (
    "incr",
    f"=lock:{{{{ {trigger}.sessionId }}}}",
    True,
    lock.RECIPE_TTL,
)
release = workflow_node("lesson4_lock", "Release the lock")["parameters"]
assert (release["operation"], release["key"]) == ("delete", f"=lock:{{{{ {trigger}.sessionId }}}}")
assert (
    workflow_node("lesson4_lock", "AI Agent")["parameters"]["text"]
    == f"={{{{ {trigger}.chatInput }}}}"
)
# The imported lock releases after a failed run too: the agent's Error output goes through
# Sorry, whose reply asks for the message again, to the Delete.
assert workflow_node("lesson4_lock", "AI Agent")["onError"] == "continueErrorOutput"
_lock_flow = json.loads((WORKFLOWS / "lesson4_lock.json").read_text(encoding="utf-8"))[
    "connections"
]
assert [[t["node"] for t in out] for out in _lock_flow["AI Agent"]["main"]] == [
    ["Release the lock"],
    ["Sorry"],
]
assert [t["node"] for t in _lock_flow["Sorry"]["main"][0]] == ["Release the lock"]
sorry = workflow_node("lesson4_lock", "Sorry")["parameters"]["assignments"]["assignments"][0]
assert sorry["name"] == "output" and "send your message again" in sorry["value"]
lock_memory = workflow_node("lesson4_lock", "Postgres Chat Memory")["parameters"]
assert lock_memory["sessionIdType"] == session_ids.CUSTOM_KEY
assert lock_memory["sessionKey"] == f"={{{{ {trigger}.sessionId }}}}"
first_run = workflow_node("lesson4_lock", "First run?")["parameters"]["conditions"]["conditions"][0]
assert first_run["leftValue"] == f"={{{{ $json['lock:' + {trigger}.sessionId] }}}}"
assert (first_run["rightValue"], first_run["operator"]["operation"]) == (1, "equals")
moment = workflow_node("lesson4_lock", "One moment")["parameters"]["assignments"]["assignments"][0]
assert (moment["name"], moment["value"]) == ("output", lock.ONE_MOMENT)

# Section 3: the field's default, 0, never expires (the diagram and Marta's day are drawn by
# scripts/draw_diagrams.py from windowmem.outlive.expiry; the other stores' day is on the
# reference page).
assert (
    n8n_redis_history.N8nRedisHistory(
        backends.choose_backends({}, workdir).open_lists(), "lesson4-default"
    ).session_ttl
    == 0
)

# Section 3's "See it": a write restarts the countdown, a read leaves it alone.
_redis = "n8n Redis (sessionTTL 3600)"
_reads = expiry.timeline(_redis, [expiry.Event(0, "write"), expiry.Event(30, "read")])
_writes = expiry.timeline(_redis, [expiry.Event(0, "write"), expiry.Event(30, "write")])
assert _reads[1].expires_at == _reads[0].expires_at == 60 and _writes[1].expires_at == 90

# Section 4's rule: the claims are the rebuilds' (store_choice.table raises otherwise).
assert store_choice.contradicted(store_choice.N8N_CHOICES) == []
deleting = [s for s in store_choice.N8N_STORES if store_choice.measured(s).deletes_a_quiet_chat]
assert deleting == ["Simple Memory", "Redis Chat Memory"]  # Simple Memory's is the idle hour
assert not store_choice.measured("Simple Memory").shared_by_workers
# Self-check 3: with 3600 the key expires 3600 s after the 10:20 write (the worked answer's
# 11:20), before she comes back at 11:35; 7200 is the smallest offered that still holds it.
assert expires_at_3600() == "11:20"
assert _check_ttl() == {"3": 7200}
# Self-check 4: only Redis Chat Memory is both shared by the workers and deletes a quiet chat;
# its worked answer's 86400 is a day in seconds, and a day's TTL keeps the chat for a day only.
assert _check_store() == {"4": "redis"} and A_DAY == 86_400 and a_day_of_redis() == (True, False)
# Section 4's rule: Simple Memory's idle hour (lesson 1: no setting changes it).
assert store_choice.measured("Simple Memory").deletes_a_quiet_chat
# Deleting from Postgres (the reference page has the SQL): the table n8n creates has no date or time column, and n8n's INSERT
# names its two columns, so a column the builder adds with a default is filled by the database.
assert (
    "TIMESTAMP" not in n8n_table.POSTGRES_DDL.upper()
    and "DATE" not in n8n_table.POSTGRES_DDL.upper()
)
print("maintainers' check: every figure in this lesson was recomputed and matches")
