"""The four expiry clocks, on the fact sheet's vectors, with time moved by hand."""

from __future__ import annotations

from windowmem.outlive.expiry import (
    RULES,
    Event,
    expires_after,
    redis_chat_memory,
    timeline,
    ttl_steps,
)
from windowmem.policies.n8n import ManualClock
from windowmem.storage.list_stores import SqliteLists

MARTA = [Event(0, "write"), Event(20, "write"), Event(50, "read"), Event(75, "read")]


def test_redis_counts_from_the_last_write_and_a_later_write_moves_it():
    assert expires_after(MARTA, "n8n Redis (sessionTTL 3600)") == 80  # 11:20
    assert (
        expires_after([*MARTA, Event(79, "write")], "n8n Redis (sessionTTL 3600)") == 139
    )  # 12:19
    assert [m.found for m in timeline("n8n Redis (sessionTTL 3600)", [*MARTA, Event(80, "read")])][
        -1
    ] is False


def test_redis_chat_memory_plays_any_session_ttl_from_the_last_write():
    """Lesson 4's check 4: with Session Time To Live s, the key lives s seconds after the last
    write (10:20); at 11:35, 75 minutes (4500 s) later, only a TTL above 4500 s still holds it."""
    back = [*MARTA, Event(95, "write")]
    assert [redis_chat_memory(back, ttl)[-1].found for ttl in (1800, 3600, 4500, 4501, 7200)] == [
        False,
        False,
        False,
        True,
        True,
    ]
    assert redis_chat_memory(MARTA, 1800)[1].expires_at == 20 + 30  # after the 10:20 write
    assert redis_chat_memory(MARTA, 0)[-1].expires_at is None  # 0: never expires
    assert redis_chat_memory(MARTA, 3600) == timeline("n8n Redis (sessionTTL 3600)", MARTA)


def test_simple_memory_counts_from_the_last_supply_and_keeps_59_minutes():
    assert [
        m.found for m in timeline("n8n Simple Memory", [Event(0, "write"), Event(59, "read")])
    ] == [True, True]
    assert [
        m.found for m in timeline("n8n Simple Memory", [Event(0, "write"), Event(60.5, "read")])
    ] == [True, False]
    # Reads are supplies: 40-minute gaps never reach the hour.
    chain = [Event(0, "write"), Event(40, "read"), Event(80, "read"), Event(120, "read")]
    assert all(m.found for m in timeline("n8n Simple Memory", chain))
    assert not all(m.found for m in timeline("n8n Redis (sessionTTL 3600)", chain))


def test_postgres_and_mongodb_never_forget():
    far = [Event(0, "write"), Event(60 * 24 * 365, "read")]
    assert all(m.found and m.expires_at is None for m in timeline("n8n Postgres / MongoDB", far))
    assert set(RULES) >= {"n8n Postgres / MongoDB", "Spring AI Redis (TTL 3600)"}


def test_ttl_steps_on_a_moved_clock():
    clock = ManualClock()
    steps = ttl_steps(SqliteLists(":memory:", clock), "k", 10, lambda s: clock.advance(seconds=s))
    assert [seconds for _, seconds in steps] == [10, 8, 10]
