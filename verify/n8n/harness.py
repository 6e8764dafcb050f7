"""The harness: the recording model, one n8n with every scenario's workflow, and how to drive them.

    with Harness.open() as h:                       # installs n8n if needed, starts it all
        run = h.run("window-k5", "s1", "Hi, I'm Marta", [Text("Hi Marta")])
        run.requests                                # what n8n sent the model, in order
        h.memory("window-k5", "s1")                 # what the memory node holds now

Every workflow in ``workflows/`` is imported and published before n8n starts. The model
server and n8n are stopped by ``close()`` (also on an exception inside ``with``, and at
interpreter exit).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.n8n.instance import HarnessError, N8nInstance, Postgres, Redis, install
from verify.n8n.model_server import ModelServer, Recorded, Reply

HERE = Path(__file__).resolve().parent
WORKFLOWS = HERE / "workflows"
CREDENTIAL_IDS = {
    "openai": "wmOpenAiCred0001",
    "postgres": "wmPostgresCred01",
    "redis": "wmRedisCred00001",
}


@dataclass(frozen=True)
class Run:
    """One agent run through a webhook: n8n's HTTP answer and the model requests it made."""

    status: int
    body: Any
    requests: tuple[Recorded, ...]
    unused: tuple[Reply, ...]
    seconds: float

    @property
    def output(self) -> Any:
        return self.body.get("output") if isinstance(self.body, dict) else None


def load_workflows() -> dict[str, dict[str, Any]]:
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(WORKFLOWS.glob("*.json"))
    }


@dataclass
class Harness:
    model: ModelServer
    n8n: N8nInstance
    table: str
    redis: Redis
    workflows: dict[str, dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)
    _rest: Rest | None = None
    sessions: list[str] = field(default_factory=list)
    """Every session id the scenarios used, in order."""

    @classmethod
    @contextmanager
    def open(cls) -> Iterator[Harness]:
        harness = cls.start()
        try:
            yield harness
        finally:
            harness.close()

    @classmethod
    def start(cls) -> Harness:
        began = time.monotonic()
        home = install()
        installed = time.monotonic()
        postgres, redis = Postgres.from_environment(), Redis.from_environment()
        model = ModelServer().start()
        webhooks = tuple(
            f"webhook/{n['parameters']['path']}"
            if "path" in n["parameters"]
            else f"webhook/{n['webhookId']}/chat"
            for w in load_workflows().values()
            for n in w["nodes"]
            if n["type"] in ("n8n-nodes-base.webhook", "@n8n/n8n-nodes-langchain.chatTrigger")
        )
        n8n = N8nInstance(home, postgres, webhook_paths=webhooks)
        table = f"n8n_chat_histories_{uuid.uuid4().hex[:8]}"
        harness = cls(model, n8n, table, redis, load_workflows())
        try:
            n8n.prepare()
            n8n.import_credentials(harness._credentials())
            workflows = [harness._filled(w) for w in harness.workflows.values()]
            n8n.import_workflows(workflows)
            imported = time.monotonic()
            n8n.start()
            harness.timings = {
                "install or reuse": installed - began,
                "import and publish": imported - installed,
                "start": time.monotonic() - imported,
            }
        except BaseException:
            harness.close()
            raise
        return harness

    def _credentials(self) -> list[dict[str, Any]]:
        pg = self.n8n.postgres
        return [
            {
                "id": CREDENTIAL_IDS["openai"],
                "name": "windowmem model",
                "type": "openAiApi",
                "data": {"apiKey": "sk-windowmem-harness", "url": self.model.url},
            },
            {
                "id": CREDENTIAL_IDS["postgres"],
                "name": "windowmem postgres",
                "type": "postgres",
                "data": {
                    "host": pg.host,
                    "port": pg.port,
                    "database": pg.database,
                    "user": pg.user,
                    "password": pg.password,
                    "ssl": "disable",
                },
            },
            {
                "id": CREDENTIAL_IDS["redis"],
                "name": "windowmem redis",
                "type": "redis",
                "data": {
                    "host": self.redis.host,
                    "port": self.redis.port,
                    "database": 0,
                    "password": "",
                },
            },
        ]

    def _filled(self, workflow: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(workflow)
        for token, value in (
            ("__WM_OPENAI_ID__", CREDENTIAL_IDS["openai"]),
            ("__WM_POSTGRES_ID__", CREDENTIAL_IDS["postgres"]),
            ("__WM_REDIS_ID__", CREDENTIAL_IDS["redis"]),
            ("__WM_TABLE__", self.table),
        ):
            text = text.replace(token, value)
        return dict(json.loads(text))

    def workflow_id(self, scenario: str) -> str:
        return str(self.workflows[scenario]["id"])

    def run(
        self, scenario: str, session: Any, text: str, replies: Iterable[Reply], **extra: Any
    ) -> Run:
        """Send one user message to *scenario*'s agent with the model scripted to give *replies*."""
        self._idle()
        self.model.script.push(replies)
        began = time.monotonic()
        body = {"chatInput": text, **extra}
        if session is not ...:
            body["sessionId"] = session
        status, answer = self.n8n.post(f"webhook/{scenario}", body)
        took = time.monotonic() - began
        requests, unused = self.model.script.drain()
        return Run(status, answer, tuple(requests), tuple(unused), took)

    def chat(self, scenario: str, session: str, text: str, replies: Iterable[Reply]) -> Run:
        """Send one message the way n8n's chat widget does, to a Chat Trigger's webhook."""
        self._idle()
        self.model.script.push(replies)
        began = time.monotonic()
        webhook_id = next(
            n["webhookId"]
            for n in self.workflows[scenario]["nodes"]
            if n["type"].endswith("chatTrigger")
        )
        status, answer = self.n8n.post(
            f"webhook/{webhook_id}/chat",
            {"action": "sendMessage", "sessionId": session, "chatInput": text},
        )
        requests, unused = self.model.script.drain()
        return Run(status, answer, tuple(requests), tuple(unused), time.monotonic() - began)

    def manager(self, scenario: str, session: str, mode: str = "memory") -> Any:
        """Run *scenario*'s Chat Memory Manager webhook *mode* for *session*; its output items."""
        status, answer = self.n8n.post(f"webhook/{scenario}-{mode}", {"sessionId": session})
        if status != 200:
            raise HarnessError(
                f"the Memory Manager '{mode}' of {scenario} answered {status}: {answer}"
            )
        return answer

    def memory(self, scenario: str, session: str) -> list[dict[str, Any]]:
        """What *scenario*'s memory node holds for *session*: LangChain's serialised messages."""
        answer = self.manager(scenario, session)
        items = answer if isinstance(answer, list) else [answer]
        if len(items) != 1 or "messages" not in items[0]:
            raise HarnessError(f"unexpected Memory Manager output: {answer}")
        return list(items[0]["messages"])

    def last_execution_data(self) -> str:
        """The stored data of n8n's latest execution (its error texts are in it), as text."""
        rows = self.n8n.sql(
            'SELECT d.data FROM execution_data d ORDER BY d."executionId" DESC LIMIT 1'
        )
        if not rows:
            raise HarnessError("n8n has stored no execution yet")
        return str(rows[0][0])

    def last_error(self, node: str | None = None) -> tuple[str, str]:
        """The message and description of the error that ended n8n's latest execution.

        With *node*, the error that node's own run recorded (a sub-node's error reaches the
        execution wrapped as "Error in sub-node <name>").
        """
        data = unflatten(json.loads(self.last_execution_data()))
        result = data.get("resultData", {})
        if node is None:
            error = result.get("error") or {}
        else:
            runs = result.get("runData", {}).get(node) or [{}]
            error = runs[-1].get("error") or {}
        return str(error.get("message", "")), str(error.get("description", ""))

    def postgres_rows(self, session: str) -> list[tuple[int, str, Any]]:
        """The rows n8n's Postgres Chat Memory wrote for *session* (id, session_id, message)."""
        pg = self.n8n.postgres
        return [
            (int(r[0]), str(r[1]), r[2])
            for r in pg.execute(
                f'SELECT id, session_id, message FROM "{self.table}" WHERE session_id = %s ORDER BY id',
                (session,),
            )
        ]

    def postgres_columns(self) -> list[tuple[str, str, str]]:
        """The Postgres Chat Memory table's columns as n8n created them: name, type, nullable."""
        return [
            (str(r[0]), str(r[1]), str(r[2]))
            for r in self.n8n.postgres.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_name = %s ORDER BY ordinal_position",
                (self.table,),
            )
        ]

    def redis_list(self, key: str) -> list[str]:
        """The Redis list n8n's Redis Chat Memory wrote under *key*, as stored (newest first)."""
        return list(self.redis.command("LRANGE", key, "0", "-1"))

    def redis_ttl(self, key: str) -> int:
        return int(self.redis.command("TTL", key))

    def rest(self) -> Rest:
        """A REST client logged in as the instance owner (created on first use)."""
        if self._rest is None:
            self._rest = Rest(self.n8n.url, self._published_version)
            self._rest.setup_owner()
        return self._rest

    def _idle(self) -> None:
        requests, unused = self.model.script.drain()
        if requests or unused:
            raise HarnessError(
                f"the model server had leftovers: {len(requests)} requests, {unused}"
            )

    def _published_version(self, workflow_id: str) -> str | None:
        rows = self.n8n.sql(
            'SELECT "publishedVersionId" FROM workflow_published_version WHERE "workflowId" = ?',
            (workflow_id,),
        )
        return str(rows[0][0]) if rows else None

    def restart(self) -> float:
        return self.n8n.restart()

    def close(self) -> None:
        try:
            self.n8n.close()
        finally:
            self.model.stop()


def unflatten(table: list[Any]) -> Any:
    """n8n's stored execution data (the ``flatted`` format: values by index) as plain JSON."""
    done: dict[int, Any] = {}

    def value(index: int) -> Any:
        if index in done:
            return done[index]
        item = table[index]
        if isinstance(item, list):
            done[index] = out = []
            out.extend(ref(v) for v in item)
            return out
        if isinstance(item, dict):
            done[index] = obj = {}
            obj.update({k: ref(v) for k, v in item.items()})
            return obj
        done[index] = item
        return item

    def ref(v: Any) -> Any:
        return value(int(v)) if isinstance(v, str) and v.isdigit() else v

    return value(0)


class Rest:
    """n8n's editor REST API with the owner's session cookie: enough to edit a live workflow."""

    EMAIL = "owner@windowmem.invalid"
    PASSWORD = "Windowmem-harness-1"

    def __init__(self, url: str, published: Callable[[str], str | None] | None = None) -> None:
        import http.cookiejar
        import urllib.request

        self.url = url
        # n8n 2.41.1 publishes through an outbox: the activate call returns once the version is
        # recorded, and a background drain later copies it to workflow_published_version, which
        # production webhooks execute. *published* reads that table so an edit can wait for it.
        self._published = published
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def call(self, method: str, path: str, body: Any = None) -> Any:
        import urllib.error
        import urllib.request

        request = urllib.request.Request(
            f"{self.url}/rest/{path.lstrip('/')}",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "browser-id": "windowmem-harness"},
            method=method,
        )
        try:
            with self._opener.open(request, timeout=60) as reply:
                data = json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as error:
            raise HarnessError(
                f"n8n REST {method} /rest/{path} answered {error.code}: {error.read()[:500]!r}"
            ) from error
        return data.get("data", data) if isinstance(data, dict) else data

    def setup_owner(self) -> None:
        self.call(
            "POST",
            "owner/setup",
            {
                "email": self.EMAIL,
                "firstName": "Window",
                "lastName": "Mem",
                "password": self.PASSWORD,
            },
        )

    def set_parameter(self, workflow_id: str, node_name: str, name: str, value: Any) -> None:
        """Change one node parameter of a live workflow and publish the change, as the editor does."""
        workflow = self.call("GET", f"workflows/{workflow_id}")
        for node in workflow["nodes"]:
            if node["name"] == node_name:
                node["parameters"][name] = value
        saved = self.call(
            "PATCH",
            f"workflows/{workflow_id}",
            {
                "nodes": workflow["nodes"],
                "connections": workflow["connections"],
                "versionId": workflow["versionId"],
            },
        )
        self.call("POST", f"workflows/{workflow_id}/activate", {"versionId": saved["versionId"]})
        self.wait_published(workflow_id, saved["versionId"])

    def wait_published(self, workflow_id: str, version_id: str, timeout: float = 120) -> None:
        """Wait until production webhooks of *workflow_id* run *version_id*, or raise."""
        if self._published is None:
            return
        deadline = time.monotonic() + timeout
        seen = self._published(workflow_id)
        while seen != version_id:
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"n8n recorded version {version_id} of workflow {workflow_id} as published, "
                    f"but after {timeout:.0f} s its webhooks still run version {seen}: the "
                    "publication drain did not finish; read n8n's log for the drain's error"
                )
            time.sleep(0.05)
            seen = self._published(workflow_id)
