"""Real ``psql`` and ``redis-cli`` output for lesson 4, captured from running servers.

    eval "$(bash .ci/services.sh start)"
    python -m verify.transcripts            # rewrite course/transcripts/*.txt
    python -m verify.transcripts --check    # exit 1 when a fresh capture differs

Marta's turns are written the way n8n 2.41.1's memory nodes write them (the library's
rebuilds, whose layouts ``tests/`` check against the node source): her first three to
Postgres Chat Memory's ``n8n_chat_histories`` in a schema of its own, and her first to Redis
Chat Memory's list ``abc`` with *Session Time To Live* 3600. Then the real ``psql`` and
``redis-cli`` the lesson tells the builder to use are run on them (``TTL abc`` twice,
:data:`TTL_PAUSE_S` apart, to show the countdown), and their output is stored as each prompt
shows it.
The lesson's pages quote these files; ``tests/test_transcripts.py`` checks both.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from windowmem.messages import assistant, user
from windowmem.outlive.store_scenarios import MARTA_TURNS
from windowmem.storage.list_stores import RedisLists
from windowmem.storage.n8n_postgres_history import N8nPostgresHistory
from windowmem.storage.n8n_redis_history import N8nRedisHistory
from windowmem.storage.sql_database import open_sql

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "course" / "transcripts"
#: The schema the capture writes to and drops first: never the services' own tables.
SCHEMA = "windowmem_lesson4_transcripts"
SESSION = "abc"
#: Lesson 4's *Session Time To Live* (section 4).
SESSION_TTL = 3600
#: Marta's turns the psql transcript shows: a table after several turns, one row per message.
PSQL_TURNS = 3
#: Seconds between the two ``TTL abc`` readings: the countdown, seen running.
TTL_PAUSE_S = 10
#: What the lesson asks each prompt, in order.
PSQL_QUERY = (
    f"SELECT id, message FROM n8n_chat_histories WHERE session_id = '{SESSION}' ORDER BY id;"
)
REDIS_COMMANDS = (("TTL", SESSION), ("TTL", SESSION))


class TranscriptError(RuntimeError):
    """The servers are missing or a command failed; the message says what to start or fix."""


@dataclass(frozen=True)
class Transcript:
    """A prompt session as the builder would see it: its file *name* and *text*."""

    name: str
    text: str


def _url(variable: str, scheme: str) -> str:
    url = os.environ.get(variable, "")
    if not url.startswith(scheme):
        raise TranscriptError(
            f"{variable} is not a {scheme} URL: start the services first "
            '(eval "$(bash .ci/services.sh start)")'
        )
    return url


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise TranscriptError(f"{command[0]} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def psql_transcript() -> Transcript:
    """``psql`` on a fresh schema holding Marta's first :data:`PSQL_TURNS` turns, as n8n writes them."""
    server = urlsplit(_url("WINDOWMEM_POSTGRES_URL", "postgresql://"))
    admin = urlunsplit(server._replace(query=""))
    _run(
        [
            "psql",
            admin,
            "-q",
            "-c",
            f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA};",
        ]
    )
    # Every connection below sees only that schema, so the table and its ids start afresh.
    url = urlunsplit(server._replace(query=f"options=-csearch_path%3D{SCHEMA}"))
    table = N8nPostgresHistory(open_sql(url), SESSION)
    for question, answer in MARTA_TURNS[:PSQL_TURNS]:  # one run a turn, as n8n saves them
        table.add_messages([user(question[3:]), assistant(answer[3:])])  # without u1/a1 labels
    shown = _run(["psql", url, "-P", "pager=off", "-c", PSQL_QUERY])
    _run(["psql", admin, "-q", "-c", f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE;"])
    return Transcript("lesson4_psql.txt", f"postgres=# {PSQL_QUERY}\n{shown.rstrip()}\n")


def redis_transcript() -> Transcript:
    """``redis-cli`` on Marta's list just after her first turn, *Session Time To Live* 3600,
    and again :data:`TTL_PAUSE_S` seconds later."""
    url = _url("WINDOWMEM_REDIS_URL", "redis://")
    lists = RedisLists(url)
    lists.delete(SESSION)
    question, answer = MARTA_TURNS[0]
    history = N8nRedisHistory(lists, SESSION, session_ttl=SESSION_TTL)
    history.add_messages([user(question[3:]), assistant(answer[3:])])
    lines = []
    for number, command in enumerate(REDIS_COMMANDS):
        if number:
            time.sleep(TTL_PAUSE_S)
        lines.append(f"127.0.0.1:6379> {' '.join(command)}")
        lines.append(_run(["redis-cli", "--no-raw", "-u", url, *command]).rstrip())
    lists.delete(SESSION)
    return Transcript("lesson4_redis.txt", "\n".join(lines) + "\n")


def capture() -> tuple[Transcript, ...]:
    """Both transcripts, fresh from the servers."""
    return psql_transcript(), redis_transcript()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    try:
        made = capture()
    except TranscriptError as error:
        print(f"transcripts: {error}", file=sys.stderr)
        return 2
    differ = []
    OUT.mkdir(parents=True, exist_ok=True)
    for transcript in made:
        path = OUT / transcript.name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != transcript.text:
                differ.append(path.name)
        else:
            path.write_text(transcript.text, encoding="utf-8")
            print(f"wrote {path}")
    if differ:
        print(f"transcripts differ from a fresh capture: {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
