"""SQLite repository: several processes, a writer killed mid-write, restarts, the schema."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from windowmem.messages import assistant, user
from windowmem.storage import SqliteRepository, StorageError
from windowmem.storage.sqlite import SCHEMA_VERSION

# Children are started with "spawn": a fresh interpreter that opens its own connection,
# as a real second process would (a forked child would inherit the parent's state).
SPAWN = multiprocessing.get_context("spawn")


# --- processes writing at once -----------------------------------------------------------


def append_batches(
    path: str, writer: int, batches: int, start: multiprocessing.synchronize.Event
) -> None:
    """Child: wait for the start signal, then append to a shared and a private conversation."""
    repo = SqliteRepository(path, durable=False)
    start.wait()
    for batch in range(batches):
        pair = [user(f"w{writer}-b{batch}-q"), assistant(f"w{writer}-b{batch}-a")]
        repo.append("shared", pair)
        repo.append(f"own-{writer}", pair)
    repo.close()


@pytest.mark.slow
def test_processes_appending_concurrently_lose_and_mix_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    SqliteRepository(path).close()  # create the schema once, as a deployed file would have it
    writers, batches = 4, 40
    start = SPAWN.Event()
    children = [
        SPAWN.Process(target=append_batches, args=(path, w, batches, start)) for w in range(writers)
    ]
    for child in children:
        child.start()
    start.set()
    for child in children:
        child.join(timeout=120)
        assert child.exitcode == 0, f"writer exited with {child.exitcode}"

    with SqliteRepository(path) as repo:
        shared = [m.content for m in repo.find_by_conversation_id("shared")]
        assert len(shared) == writers * batches * 2
        for writer in range(writers):
            expected = [f"w{writer}-b{b}-{part}" for b in range(batches) for part in ("q", "a")]
            assert [text for text in shared if text.startswith(f"w{writer}-")] == expected
            assert [m.content for m in repo.find_by_conversation_id(f"own-{writer}")] == expected
        # every appended pair stays together: no other writer's message lands inside a batch
        assert all(q[:-1] == a[:-1] for q, a in zip(shared[::2], shared[1::2]))
        assert repo.find_conversation_ids() == sorted(
            ["shared", *(f"own-{w}" for w in range(writers))]
        )


def add_turns_through_a_write_windowed_memory(
    path: str, writer: int, turns: int, start: multiprocessing.synchronize.Event
) -> None:
    """Child: a Spring AI memory (it rewrites the stored window on every add) on the shared file."""
    from windowmem.chat_memory import WindowedChatMemory
    from windowmem.policies import SpringAiMessageWindow

    repo = SqliteRepository(path, durable=False)
    memory = WindowedChatMemory(SpringAiMessageWindow(10_000), repo)
    start.wait()
    for turn in range(turns):
        memory.add("support", [user(f"w{writer}-t{turn}-q"), assistant(f"w{writer}-t{turn}-a")])
    repo.close()


@pytest.mark.slow
def test_processes_adding_through_a_write_windowed_memory_lose_no_turn(tmp_path: Path) -> None:
    # Each add reads the stored window, trims it and writes it back: done as two separate
    # steps, two processes would overwrite each other's turns.
    path = str(tmp_path / "spring.db")
    SqliteRepository(path).close()
    writers, turns = 3, 30
    start = SPAWN.Event()
    children = [
        SPAWN.Process(
            target=add_turns_through_a_write_windowed_memory, args=(path, w, turns, start)
        )
        for w in range(writers)
    ]
    for child in children:
        child.start()
    start.set()
    for child in children:
        child.join(timeout=120)
        assert child.exitcode == 0
    with SqliteRepository(path) as repo:
        stored = [m.content for m in repo.find_by_conversation_id("support")]
    assert len(stored) == writers * turns * 2
    for writer in range(writers):
        assert [t for t in stored if t.startswith(f"w{writer}-")] == [
            f"w{writer}-t{t}-{part}" for t in range(turns) for part in ("q", "a")
        ]


# --- a writer killed with SIGKILL --------------------------------------------------------

BATCH = 40  # messages per transaction: large enough that a kill often lands inside one


def write_until_killed(
    path: str, first_batch: int, acknowledged: multiprocessing.sharedctypes.Synchronized
) -> None:
    """Child: append numbered batches forever, publishing each batch number once committed."""
    repo = SqliteRepository(path)
    padding = "x" * 400
    batch = first_batch
    while True:
        repo.append("log", [user(f"b{batch}-{i}-{padding}") for i in range(BATCH)])
        acknowledged.value = batch
        batch += 1


def stored_batches(path: str) -> list[int]:
    """The batch numbers in the log, checking every batch is whole and in order."""
    with SqliteRepository(path) as repo:
        texts = [m.content for m in repo.find_by_conversation_id("log")]
    assert len(texts) % BATCH == 0, f"{len(texts)} messages is not a whole number of batches"
    batches = []
    for start in range(0, len(texts), BATCH):
        numbers = {text.split("-")[0] for text in texts[start : start + BATCH]}
        assert len(numbers) == 1, f"a batch mixes {sorted(numbers)}"
        assert [text.split("-")[1] for text in texts[start : start + BATCH]] == [
            str(i) for i in range(BATCH)
        ]
        batches.append(int(numbers.pop()[1:]))
    return batches


@pytest.mark.slow
def test_a_writer_killed_mid_write_loses_nothing_committed_and_corrupts_nothing(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "killed.db")
    SqliteRepository(path).close()
    next_batch = 0
    for delay in (0.3, 0.45, 0.6):  # three kills at different moments of the write loop
        acknowledged = SPAWN.Value("q", -1)
        child = SPAWN.Process(target=write_until_killed, args=(path, next_batch, acknowledged))
        child.start()
        deadline = time.monotonic() + 60
        while acknowledged.value < next_batch + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.join()
        assert child.exitcode == -signal.SIGKILL
        last_acknowledged = acknowledged.value
        assert last_acknowledged >= next_batch + 3, "the writer never got going"

        raw = sqlite3.connect(path)
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.close()
        batches = stored_batches(path)
        # every acknowledged batch is there, whole; at most one more committed before the
        # acknowledgement could be published; nothing half-written
        assert batches == list(range(len(batches)))
        assert last_acknowledged + 1 <= len(batches) <= last_acknowledged + 2
        next_batch = len(batches)


# --- restarts, files and schema -------------------------------------------------------------


def test_a_restart_finds_the_same_conversations(tmp_path: Path) -> None:
    path = tmp_path / "restart.db"
    history = [user("Hola, soy Marta"), assistant("¡Hola Marta! 😊", tool_calls=["c1"])]
    repo = SqliteRepository(path)
    repo.append("user:marta", history)
    repo.append("user:luis", [user("hi")])
    repo.close()

    with SqliteRepository(path) as reopened:
        assert reopened.find_conversation_ids() == ["user:luis", "user:marta"]
        assert reopened.find_by_conversation_id("user:marta") == history
        reopened.append("user:marta", [user("sigo aquí")])
    with SqliteRepository(path) as again:
        assert [m.content for m in again.find_by_conversation_id("user:marta")][-1] == "sigo aquí"


def test_the_file_is_in_wal_mode_with_a_versioned_schema(tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    with SqliteRepository(path) as repo:
        assert repo.schema_version == SCHEMA_VERSION
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    columns = [row[1] for row in raw.execute("PRAGMA table_info(messages)")]
    assert columns == [
        "conversation_id",
        "position",
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
    ]
    raw.close()


def plan(path: Path, sql: str, *parameters: object) -> str:
    raw = sqlite3.connect(path)
    rows = raw.execute("EXPLAIN QUERY PLAN " + sql, parameters).fetchall()
    raw.close()
    return " | ".join(row[-1] for row in rows)


def test_tail_and_append_read_the_index_not_the_history(tmp_path: Path) -> None:
    # Cost claims checked through the query planner, not a stopwatch: both statements
    # search the primary key of one conversation, and the tail needs no sort.
    path = tmp_path / "plan.db"
    SqliteRepository(path).close()
    tail = plan(
        path,
        "SELECT role, content, tool_calls, tool_call_id FROM messages "
        "WHERE conversation_id = ? ORDER BY position DESC LIMIT ?",
        "c",
        3,
    )
    assert "SEARCH messages USING PRIMARY KEY (conversation_id=?)" in tail
    assert "TEMP B-TREE" not in tail
    last = plan(path, "SELECT MAX(position) FROM messages WHERE conversation_id = ?", "c")
    assert "SEARCH messages USING PRIMARY KEY (conversation_id=?)" in last


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StorageError, match="not a usable SQLite database"):
        SqliteRepository(path)


def test_a_missing_folder_is_reported(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="folder exists"):
        SqliteRepository(tmp_path / "no" / "such" / "dir" / "c.db")


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SqliteRepository(path).close()
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="newer windowmem"):
        SqliteRepository(path)


def test_someone_elses_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE invoices (id INTEGER)")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="invoices"):
        SqliteRepository(path)
    raw = sqlite3.connect(path)
    assert [r[0] for r in raw.execute("SELECT name FROM sqlite_master")] == ["invoices"]
    raw.close()


def test_a_failed_write_rolls_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "rollback.db"
    with SqliteRepository(path) as repo:
        repo.append("c", [user("u1")])
        raw = sqlite3.connect(path)
        # A trigger that fails on the third row of a batch: the first two must not stay.
        raw.execute(
            "CREATE TRIGGER no_third BEFORE INSERT ON messages WHEN NEW.position = 3 "
            "BEGIN SELECT RAISE(ABORT, 'third row refused'); END"
        )
        raw.commit()
        raw.close()
        with pytest.raises(StorageError, match="third row refused"):
            repo.append("c", [user("u2"), user("u3"), user("u4")])
        assert [m.content for m in repo.find_by_conversation_id("c")] == ["u1"]
        repo.append("c", [user("u2")])  # the connection is usable afterwards
        assert [m.content for m in repo.find_by_conversation_id("c")] == ["u1", "u2"]


def test_a_writer_waits_for_the_lock_while_another_process_holds_it(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    SqliteRepository(path).close()
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock for a moment
    release = threading.Timer(0.3, lambda: blocker.execute("ROLLBACK"))
    release.start()
    with SqliteRepository(path) as repo:
        repo.append("c", [user("u1")])  # waits for the lock instead of failing
        assert [m.content for m in repo.find_by_conversation_id("c")] == ["u1"]
    release.join()
    blocker.close()


def test_a_lock_held_past_busy_timeout_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    SqliteRepository(path).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    repo = SqliteRepository(path, busy_timeout=0.05)
    with pytest.raises(StorageError, match="locked.*retry"):
        repo.append("c", [user("u1")])
    blocker.execute("ROLLBACK")
    assert repo.find_by_conversation_id("c") == []
    repo.append("c", [user("u1")])
    assert [m.content for m in repo.find_by_conversation_id("c")] == ["u1"]
    repo.close()
    blocker.close()
