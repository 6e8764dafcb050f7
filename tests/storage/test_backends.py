"""Choosing PostgreSQL and Redis from the environment, and falling back to SQLite in one clear line.

Bad settings are real: a port nothing listens on, and (against the test servers) a wrong
password. Each gives exactly one line naming the problem and the variable to fix, the
password masked, and the lesson's writes land in the SQLite file instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.conftest import skip_or_fail
from tests.storage.test_contract import server_url
from windowmem.messages import user
from windowmem.storage.backends import POSTGRES_VARIABLE, REDIS_VARIABLE, choose_backends
from windowmem.storage.n8n_postgres_history import N8nPostgresHistory
from windowmem.storage.n8n_redis_history import N8nRedisHistory


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    user_part = parts.username or ""
    netloc = f"{user_part}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def check_fell_back(chosen, folder, *, secret: str | None = None) -> None:
    assert (chosen.sql_kind, chosen.lists_kind) == ("sqlite", "sqlite")
    for note in chosen.notes:
        assert "\n" not in note and note.endswith(".")
        if secret:
            assert secret not in note
    # Nothing is lost: what the lesson writes is in the files, and still there on reopening.
    N8nPostgresHistory(chosen.open_sql(), "s").add_message(user("kept"))
    N8nRedisHistory(chosen.open_lists(), "s").add_message(user("kept"))
    assert [m.content for m in N8nPostgresHistory(chosen.open_sql(), "s").get_messages()] == [
        "kept"
    ]
    assert [m.content for m in N8nRedisHistory(chosen.open_lists(), "s").get_messages()] == ["kept"]
    assert {p.name for p in folder.iterdir()} >= {"lesson_tables.db", "lesson_lists.db"}


def test_unset_variables_say_how_to_use_a_server(tmp_path):
    chosen = choose_backends({}, tmp_path)
    assert [n.split(":")[0] for n in chosen.notes] == ["PostgreSQL", "Redis"]
    assert POSTGRES_VARIABLE in chosen.notes[0] and REDIS_VARIABLE in chosen.notes[1]
    check_fell_back(chosen, tmp_path)


def test_a_port_nothing_listens_on_falls_back_in_one_line(tmp_path):
    port = free_port()
    chosen = choose_backends(
        {
            POSTGRES_VARIABLE: f"postgresql://app:s3cret@127.0.0.1:{port}/chat",
            REDIS_VARIABLE: f"redis://:s3cret@127.0.0.1:{port}/0",
        },
        tmp_path,
    )
    assert "cannot connect to PostgreSQL at postgresql://app:***@127.0.0.1" in chosen.notes[0]
    assert f"Check the host, port and password in {POSTGRES_VARIABLE}" in chosen.notes[0]
    assert "cannot reach Redis" in chosen.notes[1] and REDIS_VARIABLE in chosen.notes[1]
    check_fell_back(chosen, tmp_path, secret="s3cret")


@pytest.mark.postgres
def test_a_wrong_postgres_password_falls_back_in_one_line(tmp_path):
    url = with_password(server_url(POSTGRES_VARIABLE, "PostgreSQL"), "not-the-password")
    chosen = choose_backends({POSTGRES_VARIABLE: url}, tmp_path)
    assert "password authentication failed" in chosen.notes[0]
    check_fell_back(chosen, tmp_path, secret="not-the-password")


def start_redis(folder, *options: str) -> tuple[subprocess.Popen, int]:
    """A private redis-server on a free loopback port, writing in *folder*, once it answers.

    *options* are redis-server's own (``--requirepass``, ``--save``...); none means Redis's
    built-in settings, as a container started without a configuration file has them.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        skip_or_fail("redis-server is not installed (bash .ci/services.sh installs it)")
    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    return server, port


@pytest.fixture
def redis_with_password(tmp_path):
    """A private Redis that requires a password (the shared test server has none), stopped after."""
    server, port = start_redis(
        tmp_path, "--requirepass", "the-password", "--save", "", "--appendonly", "no"
    )
    try:
        yield f"redis://:the-password@127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.redis
def test_a_wrong_redis_password_falls_back_in_one_line(tmp_path, redis_with_password):
    right = choose_backends({REDIS_VARIABLE: redis_with_password}, tmp_path / "right")
    assert right.lists_kind == "redis"
    wrong = with_password(redis_with_password, "not-the-password")
    chosen = choose_backends({REDIS_VARIABLE: wrong}, tmp_path)
    assert chosen.notes[1].startswith("Redis: cannot reach Redis at redis://:***@127.0.0.1")
    assert "password" in chosen.notes[1].split(";")[0].lower()
    check_fell_back(chosen, tmp_path, secret="not-the-password")


@pytest.mark.postgres
@pytest.mark.redis
def test_reachable_servers_are_used(tmp_path):
    chosen = choose_backends(
        {
            POSTGRES_VARIABLE: server_url(POSTGRES_VARIABLE, "PostgreSQL"),
            REDIS_VARIABLE: server_url(REDIS_VARIABLE, "Redis"),
        },
        tmp_path,
    )
    assert (chosen.sql_kind, chosen.lists_kind) == ("postgresql", "redis")
    assert chosen.notes[0].startswith("PostgreSQL: using postgresql://")
    if urlsplit(os.environ[POSTGRES_VARIABLE]).password:
        assert ":***@" in chosen.notes[0]


def test_a_missing_driver_says_to_install_it(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the stores extra were not installed
    monkeypatch.setitem(sys.modules, "redis", None)
    chosen = choose_backends(
        {
            POSTGRES_VARIABLE: "postgresql://a:b@127.0.0.1:1/x",
            REDIS_VARIABLE: "redis://127.0.0.1:1/0",
        },
        tmp_path,
    )
    assert all(
        "pip install 'windowmem[stores]'" in note and "Install it, or unset" in note
        for note in chosen.notes
    )
    check_fell_back(chosen, tmp_path)


@pytest.mark.redis
def test_a_redis_without_a_configuration_file_saves_at_most_an_hour_after_a_write(tmp_path):
    """Lesson 4: a Redis started as its ``docker run`` line starts it (no configuration file)
    keeps its chats through a clean restart, and a crash can lose up to an hour of writes.

    Redis's built-in save rules decide both: a snapshot an hour after one change (sooner after
    more), and one on a clean shutdown. The reference page quotes them.
    """
    server, port = start_redis(tmp_path)  # no save setting given, as the docker run line
    cli = [shutil.which("redis-cli") or "redis-cli", "-p", str(port)]
    try:
        saves = subprocess.run(
            [*cli, "CONFIG", "GET", "save"], capture_output=True, text=True, timeout=30
        ).stdout.split()
        assert saves == ["save", "3600", "1", "300", "100", "60", "10000"]
        appendonly = subprocess.run(
            [*cli, "CONFIG", "GET", "appendonly"], capture_output=True, text=True, timeout=30
        ).stdout.split()
        assert appendonly == ["appendonly", "no"]  # no log of every write: only the snapshots
        subprocess.run([*cli, "SET", "abc", "kept"], capture_output=True, timeout=30, check=True)
        subprocess.run([*cli, "SHUTDOWN"], capture_output=True, timeout=30)
        server.wait(timeout=30)
        assert (tmp_path / "dump.rdb").exists()  # the clean shutdown saved the key
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)
