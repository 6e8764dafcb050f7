"""Which real stores a lesson uses: PostgreSQL and Redis when reachable, SQLite otherwise.

The settings come from the environment, under the names the tests use:

* ``WINDOWMEM_POSTGRES_URL``, e.g. ``postgresql://user:password@127.0.0.1:5432/db``,
  for the SQL tables (n8n's ``n8n_chat_histories``, Spring AI's ``SPRING_AI_CHAT_MEMORY``);
* ``WINDOWMEM_REDIS_URL``, e.g. ``redis://127.0.0.1:6379/0``, for n8n's Redis lists.

Each is tried once. An unset variable, a server that does not answer, or a refused
password gives one line saying what happened and what to do, and that store falls back
to a SQLite file: nothing the lesson writes is lost, it lands in the file instead.

>>> import tempfile
>>> chosen = choose_backends({}, tempfile.mkdtemp())
>>> chosen.sql_kind, chosen.lists_kind
('sqlite', 'sqlite')
>>> print(chosen.notes[0])
PostgreSQL: WINDOWMEM_POSTGRES_URL is not set, so the SQL tables live in SQLite; set it to a postgresql:// URL to use a server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from windowmem.storage.base import StorageError
from windowmem.storage.connections import redacted
from windowmem.storage.list_stores import ListStore, RedisLists, SqliteLists
from windowmem.storage.sql_database import SqlDatabase, open_sql

POSTGRES_VARIABLE = "WINDOWMEM_POSTGRES_URL"
REDIS_VARIABLE = "WINDOWMEM_REDIS_URL"
SQLITE_TABLES = "lesson_tables.db"
SQLITE_LISTS = "lesson_lists.db"


@dataclass(frozen=True)
class Backends:
    """Where the SQL tables and the Redis lists live, and one line per choice made."""

    sql_location: str
    lists_location: str
    notes: tuple[str, ...]

    @property
    def sql_kind(self) -> Literal["postgresql", "sqlite"]:
        return "postgresql" if self.sql_location.startswith("postgres") else "sqlite"

    @property
    def lists_kind(self) -> Literal["redis", "sqlite"]:
        return "redis" if self.lists_location.startswith(("redis://", "rediss://")) else "sqlite"

    def open_sql(self) -> SqlDatabase:
        """A connection to the chosen SQL database."""
        return open_sql(self.sql_location)

    def open_lists(self, clock: Callable[[], float] | None = None) -> ListStore:
        """The chosen list store; *clock* drives the SQLite stand-in's expiry."""
        if self.lists_kind == "redis":
            return RedisLists(self.lists_location)
        return (
            SqliteLists(self.lists_location, clock) if clock else SqliteLists(self.lists_location)
        )


def choose_backends(environ: Mapping[str, str], folder: str | Path) -> Backends:
    """Try the servers named in *environ*; fall back to SQLite files in *folder*."""
    folder = Path(folder)
    sql_location, sql_note = _choose(
        environ.get(POSTGRES_VARIABLE, ""),
        str(folder / SQLITE_TABLES),
        lambda url: open_sql(url).close(),
        ("PostgreSQL", POSTGRES_VARIABLE, "the SQL tables live in SQLite", "postgresql://"),
    )
    lists_location, lists_note = _choose(
        environ.get(REDIS_VARIABLE, ""),
        str(folder / SQLITE_LISTS),
        lambda url: RedisLists(url).close(),
        ("Redis", REDIS_VARIABLE, "the Redis lists are modelled in SQLite", "redis://"),
    )
    notes = [sql_note, lists_note]
    return Backends(sql_location, lists_location, tuple(notes))


def _choose(
    url: str,
    fallback: str,
    connect: Callable[[str], None],
    names: tuple[str, str, str, str],
) -> tuple[str, str]:
    """The location to use (*url* if it answers, else *fallback*) and the one line that says so."""
    server, variable, instead, scheme = names
    if not url:
        return fallback, (
            f"{server}: {variable} is not set, so {instead}; set it to a {scheme} URL to use a server."
        )
    try:
        connect(url)
    except StorageError as exc:
        problem = " ".join(str(exc).split())
        advice = (
            f"Install it, or unset {variable}."
            if "pip install" in problem
            else f"Check the host, port and password in {variable}, or unset it."
        )
        return fallback, f"{server}: {problem}; {instead} instead. {advice}"
    return url, f"{server}: using {redacted(url)}."
