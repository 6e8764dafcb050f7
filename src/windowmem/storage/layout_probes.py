"""Small probes that read a fact off a product's layout by writing to it, under a key of their own.

A lesson asks what the first element of n8n's Redis list is, or where Spring AI's
``sequence_id`` starts; these answer by writing to the real layout (SQLite or a server)
and reading back, then clean up, so the answer comes from the store, not from a literal.

>>> from windowmem.messages import assistant, user
>>> from windowmem.policies.n8n import ManualClock
>>> from windowmem.storage.list_stores import SqliteLists
>>> from windowmem.storage.sql_database import open_sql
>>> lrange_head_turn(SqliteLists(":memory:", ManualClock()), ["first?", "second?"])
2
>>> lowest_sequence_id(open_sql(":memory:"), [user("u5"), assistant("a5")])
0
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.messages import Message, user
from windowmem.storage.list_stores import ListStore
from windowmem.storage.n8n_redis_history import N8nRedisHistory
from windowmem.storage.spring_ai_jdbc import SpringAiJdbcRepository
from windowmem.storage.sql_database import SqlDatabase

PROBE_KEY = "windowmem-layout-probe"


def lrange_head_turn(lists: ListStore, questions: Sequence[str]) -> int:
    """Which turn (from 1) ``LRANGE key 0 -1`` returns first after n8n pushes one question per turn."""
    probe = N8nRedisHistory(lists, PROBE_KEY)
    probe.clear()
    try:
        probe.add_messages([user(question) for question in questions])
        head = probe.raw()[0]
        return next(n for n, question in enumerate(questions, start=1) if question in head)
    finally:
        probe.clear()


def lowest_sequence_id(db: SqlDatabase, messages: Sequence[Message]) -> int:
    """The smallest ``sequence_id`` Spring AI's ``saveAll`` gives *messages*."""
    repository = SpringAiJdbcRepository(db)
    try:
        repository.save_all(PROBE_KEY, list(messages))
        return min(row[4] for row in repository.rows(PROBE_KEY))
    finally:
        repository.delete_by_conversation_id(PROBE_KEY)
