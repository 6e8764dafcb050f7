"""The products' own layouts, on SQLite and on real PostgreSQL and Redis servers.

Expectations come from the fact sheet (the products' code at the versions named in each
module): n8n's ``n8n_chat_histories`` table and its Redis list, Spring AI 2.0.1's
``SPRING_AI_CHAT_MEMORY``, and n8n's MongoDB document, whose size is checked against
pymongo's own BSON encoder. LangChain's stored messages are checked against the JSON the real
``@langchain/core`` 1.2.8 writes (vectors recorded from it in node), and read by
``langchain_core``, the Python port of the same ``{type, data}`` format.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from tests.storage.test_contract import server_url, unreachable
from windowmem.messages import assistant, system, tool, user
from windowmem.policies.n8n import ManualClock
from windowmem.storage.base import StorageError
from windowmem.storage.langchain_json import (
    flattened,
    from_flattened,
    from_nested,
    nested,
    to_text,
)
from windowmem.storage.list_stores import ListStore, RedisLists, SqliteLists
from windowmem.storage.mongo_document import (
    MAX_DOCUMENT_BYTES,
    bson_size,
    session_document,
    turns_until_full,
)
from windowmem.storage.n8n_postgres_history import (
    ADD_WRITTEN_AT,
    COLUMNS,
    DELETE_QUIET,
    POSTGRES_DDL,
    N8nPostgresHistory,
    n8n_table_identifier,
)
from windowmem.storage.n8n_redis_history import N8nRedisHistory
from windowmem.storage.spring_ai_jdbc import TABLE, SpringAiJdbcRepository
from windowmem.storage.sql_database import SqlDatabase, open_sql, redacted


def _postgres() -> SqlDatabase:
    url = server_url("WINDOWMEM_POSTGRES_URL", "PostgreSQL")
    try:
        return open_sql(url)
    except StorageError as exc:
        unreachable("PostgreSQL", exc)
        raise


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sql(request, tmp_path) -> Iterator[SqlDatabase]:
    db = open_sql(tmp_path / "tables.db") if request.param == "sqlite" else _postgres()
    yield db
    db.close()


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def lists(request, tmp_path) -> Iterator[ListStore]:
    if request.param == "sqlite":
        store = SqliteLists(tmp_path / "lists.db", ManualClock())
    else:
        url = server_url("WINDOWMEM_REDIS_URL", "Redis")
        try:
            store = RedisLists(url)
        except StorageError as exc:
            unreachable("Redis", exc)
            raise
    yield store
    store.close()


def fresh(name: str) -> str:
    """A name of its own for each test: tests share one server."""
    return f"{name}_{uuid.uuid4().hex[:10]}"


# --- n8n's Postgres table ----------------------------------------------------------------


def test_table_names_are_validated_and_quoted_as_n8n_2_41_1_does():
    assert n8n_table_identifier("n8n_chat_histories") == '"n8n_chat_histories"'
    assert n8n_table_identifier("Chat.History") == '"chat"."history"'
    assert n8n_table_identifier("") == '"n8n_chat_histories"'
    for bad in ("my-table", "a.b.c", "1abc", "drop table;"):
        with pytest.raises(StorageError, match=f'Invalid table name "{bad}"'):
            n8n_table_identifier(bad)


def test_the_table_keeps_every_message_one_row_each_in_id_order(sql):
    table = fresh("n8n_chat_histories")
    history = N8nPostgresHistory(sql, "abc", table=table)
    other = N8nPostgresHistory(sql, "xyz", table=table)
    try:
        messages = [user(f"u{i}") if i % 2 else assistant(f"a{i}") for i in range(1, 13)]
        history.add_messages(messages)
        other.add_message(user("someone else"))
        assert history.get_messages() == messages
        rows = history.rows()
        assert [r[0] for r in rows] == sorted(r[0] for r in rows) and len(rows) == 12
        assert {r[1] for r in rows} == {"abc"}
        history.clear()
        assert history.get_messages() == [] and len(other.get_messages()) == 1
    finally:
        sql.execute(f'DROP TABLE IF EXISTS "{table}"')


def test_the_message_column_holds_the_flattened_langchain_object(sql):
    table = fresh("n8n_chat_histories")
    history = N8nPostgresHistory(sql, "abc", table=table)
    try:
        history.add_message(user("hi"))
        (stored,) = sql.query(f'SELECT message FROM "{table}"')[0]
        value = stored if isinstance(stored, dict) else json.loads(stored)
        # The fact sheet's row (key order aside, which JSONB does not keep).
        assert value == {
            "type": "human",
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
        }
        history.add_message(assistant("a1 Noted, Marta"))
        (stored,) = sql.query(f'SELECT message FROM "{table}" ORDER BY id')[1]
        value = stored if isinstance(stored, dict) else json.loads(stored)
        # @langchain/core 1.2.8 writes the two tool-call lists on every AI message.
        assert value == {**json.loads(LANGCHAIN_CORE_1_2_8[1])["data"], "type": "ai"}
    finally:
        sql.execute(f'DROP TABLE IF EXISTS "{table}"')


@pytest.mark.postgres
def test_on_postgres_the_columns_are_the_products():
    db = _postgres()
    table = fresh("n8n_chat_histories")
    N8nPostgresHistory(db, "abc", table=table)
    try:
        columns = db.query(
            "SELECT column_name, data_type, character_maximum_length, column_default"
            " FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            (table,),
        )
        assert [(c[0], c[1], c[2]) for c in columns] == [
            ("id", "integer", None),
            ("session_id", "character varying", 255),
            ("message", "jsonb", None),
        ]
        assert columns[0][3].startswith("nextval(")  # SERIAL
        assert [name for name, _ in COLUMNS] == [c[0] for c in columns]
        assert all(f"{name} {kind}" in POSTGRES_DDL for name, kind in COLUMNS)
    finally:
        db.execute(f'DROP TABLE IF EXISTS "{table}"')
        db.close()


def test_on_postgres_a_written_at_column_a_builder_adds_lets_old_chats_be_deleted():
    """Lesson 4's reference page: ADD_WRITTEN_AT fills on n8n's own INSERT, DELETE_QUIET removes
    only the sessions whose newest row is older than the days given."""
    db = _postgres()
    table = fresh("n8n_chat_histories")
    quiet, busy = (
        N8nPostgresHistory(db, "quiet", table=table),
        N8nPostgresHistory(db, "busy", table=table),
    )
    try:
        quiet.add_messages([user("u1"), assistant("a1")])
        db.execute(ADD_WRITTEN_AT.format(table=table))
        busy.add_messages([user("u1"), assistant("a1")])  # the product's INSERT, unchanged
        assert db.query(f"SELECT count(*) FROM {table} WHERE written_at IS NULL") == [(0,)]
        db.execute(
            f"UPDATE {table} SET written_at = now() - interval '31 days' WHERE session_id = %s",
            ("quiet",),
        )
        db.execute(DELETE_QUIET.format(table=table, days=30))
        assert quiet.rows() == [] and len(busy.rows()) == 2
    finally:
        db.execute(f'DROP TABLE IF EXISTS "{table}"')
        db.close()


# --- n8n's Redis list ----------------------------------------------------------------------


def test_the_list_lives_under_the_bare_session_id_newest_first(lists):
    key = fresh("session")
    history = N8nRedisHistory(lists, key)
    try:
        history.add_messages([user("u1"), assistant("a1"), user("u2")])
        raw = lists.lrange(key)
        assert [json.loads(item)["data"]["content"] for item in raw] == ["u2", "a1", "u1"]
        assert json.loads(raw[0]) == {
            "type": "human",
            "data": {"content": "u2", "additional_kwargs": {}, "response_metadata": {}},
        }
        assert [m.content for m in history.get_messages()] == ["u1", "a1", "u2"]
        assert lists.ttl(key) == -1  # sessionTTL 0: no expiry at all
    finally:
        history.clear()
    assert lists.ttl(key) == -2


def test_the_ttl_restarts_at_each_write_and_never_at_a_read(lists):
    key = fresh("session")
    history = N8nRedisHistory(lists, key, session_ttl=100)
    try:
        history.add_message(user("u1"))
        assert lists.ttl(key) == 100
        lists.expire(key, 40)  # as if 60 seconds had passed, without waiting for them
        history.get_messages()
        assert lists.ttl(key) <= 40
        history.add_message(assistant("a1"))
        assert lists.ttl(key) == 100
    finally:
        history.clear()


def test_the_fact_sheet_s_ttl_vector_on_a_moved_clock(tmp_path):
    """TTL 3600; writes 10:00 and 10:20; reads 10:50 and 11:15 -> expires 11:20; a write at 11:19 moves it to 12:19."""
    clock = ManualClock()
    history = N8nRedisHistory(SqliteLists(tmp_path / "l.db", clock), "abc", session_ttl=3600)
    at = lambda hh, mm: ((hh - 10) * 60 + mm) * 60.0  # noqa: E731
    clock.now = at(10, 0)
    history.add_message(user("u1"))
    clock.now = at(10, 20)
    history.add_message(assistant("a1"))
    for read in (at(10, 50), at(11, 15)):
        clock.now = read
        assert len(history.get_messages()) == 2
    assert clock.now + history.ttl() == at(11, 20)
    clock.now = at(11, 19)
    history.add_message(user("u2"))
    assert clock.now + history.ttl() == at(12, 19)
    clock.now = at(12, 19)
    assert history.get_messages() == [] and history.ttl() == -2


def test_a_negative_or_fractional_ttl_is_refused(tmp_path):
    lists = SqliteLists(tmp_path / "l.db", ManualClock())
    for bad in (-1, 1.5, True):
        with pytest.raises(StorageError, match="sessionTTL"):
            N8nRedisHistory(lists, "abc", session_ttl=bad)


# --- Spring AI's JDBC table ----------------------------------------------------------------


def test_save_all_replaces_the_conversation_numbered_from_zero(sql):
    repo = SpringAiJdbcRepository(sql)
    cid = fresh("c")[:36]
    try:
        repo.save_all(cid, [user("u1"), assistant("a1"), user("u2")])
        repo.save_all(cid, [user("u2"), assistant("a2")])
        assert [(r[1], r[2], r[4]) for r in repo.rows(cid)] == [
            ("u2", "USER", 0),
            ("a2", "ASSISTANT", 1),
        ]
        assert [m.content for m in repo.find_by_conversation_id(cid)] == ["u2", "a2"]
        assert cid in repo.find_conversation_ids()
        repo.delete_by_conversation_id(cid)
        assert repo.find_by_conversation_id(cid) == [] and cid not in repo.find_conversation_ids()
    finally:
        repo.delete_by_conversation_id(cid)


def test_tool_messages_are_filtered_with_2_0_1_s_warning(sql, caplog):
    repo = SpringAiJdbcRepository(sql)
    cid = fresh("c")[:36]
    with caplog.at_level(logging.WARNING):
        repo.save_all(
            cid, [user("weather?"), assistant("", ["c1"]), tool("21 °C", "c1"), assistant("21 °C")]
        )
    try:
        assert [m.content for m in repo.find_by_conversation_id(cid)] == ["weather?", "21 °C"]
        assert f"Some messages were filtered out for conversation: {cid}" in caplog.text
    finally:
        repo.delete_by_conversation_id(cid)


def test_a_message_read_back_keeps_its_first_time_and_only_new_ones_are_stamped(sql):
    # 2.0.1's AddBatchPreparedStatement: the CONVERSATION_TS metadata of a message read
    # back is written again; a message without it gets Instant.now().
    ticks = iter(datetime(2026, 12, 1, 10, 0) + timedelta(minutes=m) for m in range(100))
    repo = SpringAiJdbcRepository(sql, clock=lambda: next(ticks))
    cid = fresh("c")[:36]
    try:
        repo.save_all(cid, [user("u1"), assistant("a1")])  # 10:00, 10:01
        first = repo.find_by_conversation_id(cid)
        repo.save_all(cid, [*first[1:], user("u2")])  # a1 kept, u2 new at 10:02
        times = [datetime.fromisoformat(str(r[3])) for r in repo.rows(cid)]
        assert [r[1] for r in repo.rows(cid)] == ["a1", "u2"]
        assert times == [datetime(2026, 12, 1, 10, 1), datetime(2026, 12, 1, 10, 2)]
        # An equal message that was not read back is a new message: stamped now.
        repo.save_all(cid, [assistant("a1")])
        assert datetime.fromisoformat(str(repo.rows(cid)[0][3])) == datetime(2026, 12, 1, 10, 3)
    finally:
        repo.delete_by_conversation_id(cid)


@pytest.mark.postgres
def test_on_postgres_both_2_0_1_indexes_exist():
    db = _postgres()
    try:
        SpringAiJdbcRepository(db)
        names = {
            row[0].upper()
            for row in db.query(
                "SELECT indexname FROM pg_indexes WHERE tablename = %s", (TABLE.lower(),)
            )
        }
        assert {
            f"{TABLE}_CONVERSATION_ID_TIMESTAMP_IDX",
            f"{TABLE}_CONVERSATION_ID_SEQUENCE_ID_IDX",
        } <= names
    finally:
        db.close()


@pytest.mark.postgres
def test_on_postgres_an_id_longer_than_36_characters_is_refused():
    db = _postgres()
    repo = SpringAiJdbcRepository(db)
    try:
        with pytest.raises(StorageError, match="postgresql refused"):
            repo.save_all("tutienda:u-1:thread-2026-12-01-afternoon", [user("hi")])
        columns = db.query(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            (TABLE.lower(),),
        )
        assert [c[0] for c in columns] == [
            "conversation_id",
            "content",
            "type",
            "timestamp",
            "sequence_id",
        ]
    finally:
        db.close()


# --- MongoDB's document --------------------------------------------------------------------


def test_bson_sizes_are_pymongo_s():
    bson = pytest.importorskip("bson", reason="pymongo (the test extra) provides bson")
    chats = [
        [],
        [user("hi")],
        [
            user("¿Dónde está mi pedido #6023? 🧠"),
            assistant("Llega el viernes", ["c1"]),
            tool("ok", "c1"),
        ],
        [m for i in range(12) for m in (user("q" * i), assistant("a" * (i * 37)))],
    ]
    for messages in chats:
        document = session_document("lesson4-marta", messages)
        assert bson_size(document, with_object_id=False) == len(bson.encode(document))
        assert bson_size(document) == len(bson.encode({"_id": bson.ObjectId(), **document}))


def test_turns_until_full_is_the_last_count_under_the_cap():
    bson = pytest.importorskip("bson", reason="pymongo (the test extra) provides bson")
    from pymongo import common

    assert MAX_DOCUMENT_BYTES == common.MAX_BSON_SIZE
    question, reply = "x" * 2000, "y" * 6000
    turns = turns_until_full("s", question, reply)
    fits = [m for _ in range(turns) for m in (user(question), assistant(reply))]
    one_more = fits + [user(question), assistant(reply)]
    encode = lambda ms: len(bson.encode({"_id": bson.ObjectId(), **session_document("s", ms)}))  # noqa: E731
    assert encode(fits) <= MAX_DOCUMENT_BYTES < encode(one_more)


# --- LangChain's message format --------------------------------------------------------------


#: ``JSON.stringify`` of ``mapChatMessagesToStoredMessages`` in the real ``@langchain/core``
#: 1.2.8 (npm), for HumanMessage, AIMessage, SystemMessage, an AIMessage with the tool call
#: n8n 2.41.1 builds (``{id, name, args, type: "tool_call"}``), the ToolMessage n8n builds
#: (with ``name``), and a non-ASCII HumanMessage. Names and args empty: windowmem has none.
LANGCHAIN_CORE_1_2_8 = (
    '{"type":"human","data":{"content":"u1 I\'m Marta, order #6023","additional_kwargs":{},"response_metadata":{}}}',
    '{"type":"ai","data":{"content":"a1 Noted, Marta","tool_calls":[],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{}}}',
    '{"type":"system","data":{"content":"Be brief.","additional_kwargs":{},"response_metadata":{}}}',
    '{"type":"ai","data":{"content":"","tool_calls":[{"id":"call_1","name":"","args":{},"type":"tool_call"}],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{}}}',
    '{"type":"tool","data":{"content":"42","tool_call_id":"call_1","name":"","additional_kwargs":{},"response_metadata":{}}}',
    '{"type":"human","data":{"content":"Medellín ✓","additional_kwargs":{},"response_metadata":{}}}',
)


def test_stored_messages_are_byte_for_byte_what_langchain_core_1_2_8_writes():
    ours = [
        user("u1 I'm Marta, order #6023"),
        assistant("a1 Noted, Marta"),
        system("Be brief."),
        assistant("", ["call_1"]),
        tool("42", "call_1"),
        user("Medellín ✓"),
    ]
    assert tuple(to_text(nested(m)) for m in ours) == LANGCHAIN_CORE_1_2_8
    # PostgresChatMessageHistory (@langchain/community 1.1.27) stores {...data, type}.
    for message, vector in zip(ours, LANGCHAIN_CORE_1_2_8, strict=True):
        stored = json.loads(vector)
        assert to_text(flattened(message)) == to_text({**stored["data"], "type": stored["type"]})
        assert from_nested(vector) == message == from_flattened(flattened(message))


def test_the_nested_format_reads_and_is_read_by_langchain_core():
    messages_module = pytest.importorskip("langchain_core.messages")
    ours = [user("hi"), assistant("hello"), tool("42", "c1")]
    theirs = messages_module.messages_from_dict([nested(m) for m in ours])
    assert [(m.type, m.content) for m in theirs] == [
        ("human", "hi"),
        ("ai", "hello"),
        ("tool", "42"),
    ]
    back = [from_nested(d) for d in messages_module.messages_to_dict(theirs)]
    assert back == ours
    assert from_flattened(flattened(ours[1])) == ours[1]


def test_a_foreign_row_is_a_clear_storage_error():
    for bad in (
        '{"type": "robot", "content": "x"}',
        "[1, 2]",
        "not json",
        '{"type": "human", "content": 3}',
    ):
        with pytest.raises(StorageError):
            from_flattened(bad)


def test_passwords_never_reach_a_message():
    assert redacted("postgresql://u:pw@h:1/db") == "postgresql://u:***@h:1/db"
    assert redacted("redis://:pw@h:1/0") == "redis://:***@h:1/0"
    assert redacted("postgresql://u@h/db") == "postgresql://u@h/db"


# --- The lesson's layout probes ----------------------------------------------------------------


def test_the_lrange_probe_names_the_last_turn_and_cleans_up(lists):
    from windowmem.storage.layout_probes import PROBE_KEY, lrange_head_turn

    assert lrange_head_turn(lists, ["q one", "q two", "q three"]) == 3  # LPUSH: newest at the head
    assert lists.lrange(PROBE_KEY) == []


def test_the_sequence_probe_starts_at_zero_and_cleans_up(sql):
    from windowmem.storage.layout_probes import PROBE_KEY, lowest_sequence_id

    assert lowest_sequence_id(sql, [user("u5"), assistant("a5"), user("u6")]) == 0
    assert SpringAiJdbcRepository(sql).find_by_conversation_id(PROBE_KEY) == []
