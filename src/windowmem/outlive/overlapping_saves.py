"""Two Spring AI ``saveAll`` transactions on PostgreSQL at once: the overlap a token cannot force.

:func:`windowmem.outlive.concurrent_runs.run_pair` forces any order of the agents' steps by
handing a token between two processes, but the two transactions of a Spring AI
``saveAll`` (delete the conversation, insert the new list) overlap inside the database,
where no token reaches. :func:`overlapping_save_alls` forces that overlap on two
connections: the first holds its commit until the second's DELETE waits on its rows.
No Spring AI process runs: the steps are windowmem's rebuild of
``JdbcChatMemoryRepository.saveAll`` (v2.0.1) on the product's table.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from windowmem.messages import Message
from windowmem.storage.spring_ai_jdbc import SpringAiJdbcRepository
from windowmem.storage.sql_database import SqlDatabase, open_sql


def overlapping_save_alls(
    url: str, session: str, history: Sequence[Message], first: Message, second: Message
) -> tuple[str, ...]:
    """Two Spring AI ``saveAll`` transactions on PostgreSQL, the second's DELETE while the first is open.

    The conversation starts as *history*; one connection saves *history* + *first*, another
    *history* + *second*. The first transaction deletes and inserts, then holds its commit
    until the second's DELETE is waiting on the rows it deleted (seen in
    ``pg_stat_activity``). Under READ COMMITTED, PostgreSQL's default, that DELETE then
    skips the rows that are gone and never sees the ones just committed, so both lists
    remain. Returns the stored texts, sorted (rows with equal ``sequence_id`` have no order).
    """
    if not url.startswith(("postgresql://", "postgres://")):
        raise ValueError(
            "overlapping_save_alls needs a postgresql:// URL: SQLite locks the whole file"
        )
    setup, first_db, second_db = open_sql(url), open_sql(url), open_sql(url)
    try:
        SpringAiJdbcRepository(setup).save_all(session, list(history))
        second_pid = second_db.query("SELECT pg_backend_pid()")[0][0]
        waiting = threading.Event()
        _hold_commit(first_db, lambda: _wait_for_lock(setup, second_pid, waiting))
        saver = threading.Thread(
            target=SpringAiJdbcRepository(second_db).save_all, args=(session, [*history, second])
        )
        started = threading.Event()

        def start_second() -> None:
            saver.start()
            started.set()

        _run_when_deleted(first_db, start_second)
        SpringAiJdbcRepository(first_db).save_all(session, [*history, first])
        saver.join(timeout=30)
        if not waiting.is_set() or saver.is_alive():
            raise RuntimeError("the second saveAll never waited on the first one's rows")
        rows = SpringAiJdbcRepository(setup).rows(session)
        return tuple(sorted(row[1] for row in rows))
    finally:
        for db in (setup, first_db, second_db):
            db.close()


def _hold_commit(db: SqlDatabase, before_commit: Any) -> None:
    """Make *db*'s next transaction call *before_commit* after its statements, before COMMIT."""
    original = db.transaction

    @contextmanager
    def held() -> Iterator[SqlDatabase]:
        with original() as tx:
            yield tx
            before_commit()

    db.transaction = held  # type: ignore[method-assign]


def _run_when_deleted(db: SqlDatabase, action: Any) -> None:
    """Call *action* once, right after *db* runs its first DELETE (inside the transaction)."""
    original = db.execute
    done = False

    def execute(statement: str, params: Sequence[Any] = ()) -> None:
        nonlocal done
        original(statement, params)
        if not done and statement.lstrip().upper().startswith("DELETE"):
            done = True
            action()

    db.execute = execute  # type: ignore[method-assign]


def _wait_for_lock(observer: SqlDatabase, pid: int, waiting: threading.Event) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = observer.query(
            "SELECT 1 FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'", (pid,)
        )
        if found:
            waiting.set()
            return
        time.sleep(0.01)
