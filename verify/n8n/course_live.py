"""The course workflows in a running harness: imported as a learner would, wired to the recording model.

    with Harness.open() as h:
        live = import_course_workflows(h)           # every course/workflows file, published
        run = chat(h, live["lesson3_window"], "s1", "Hi", [Text("Hello")])

Each file of ``course/workflows/`` is created through n8n's REST API as the owner (what the
editor's *Import from File* does), given the harness's credentials in place of the ones the
learner would pick, and published. :func:`chat` then sends
one message the way the workflow's trigger receives it: the Chat Trigger's
``{action, sessionId, chatInput}``, or the Webhook's JSON body with ``sessionId``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verify.n8n.course_workflows import (
    COURSE_WORKFLOWS,
    OUT,
    CourseWorkflow,
)
from verify.n8n.harness import CREDENTIAL_IDS, Harness, Run
from verify.n8n.instance import HarnessError
from verify.n8n.model_server import Reply
from verify.n8n.picture_subworkflow import workflow_id_token

#: The credential each node type takes, as the harness imported it.
CREDENTIALS = {
    "@n8n/n8n-nodes-langchain.lmChatOpenAi": (
        "openAiApi",
        {"id": CREDENTIAL_IDS["openai"], "name": "windowmem model"},
    ),
    "@n8n/n8n-nodes-langchain.memoryPostgresChat": (
        "postgres",
        {"id": CREDENTIAL_IDS["postgres"], "name": "windowmem postgres"},
    ),
    "@n8n/n8n-nodes-langchain.memoryRedisChat": (
        "redis",
        {"id": CREDENTIAL_IDS["redis"], "name": "windowmem redis"},
    ),
    # Lesson 4's lock: the Redis node's Increment and Delete.
    "n8n-nodes-base.redis": (
        "redis",
        {"id": CREDENTIAL_IDS["redis"], "name": "windowmem redis"},
    ),
}


@dataclass(frozen=True)
class LiveWorkflow:
    """A course workflow as n8n holds it: its *spec*, n8n's *id* and the *workflow* sent."""

    spec: CourseWorkflow
    id: str
    workflow: dict[str, Any]

    @property
    def trigger(self) -> dict[str, Any]:
        return next(
            n for n in self.workflow["nodes"] if n["type"].endswith((".chatTrigger", ".webhook"))
        )

    @property
    def webhook(self) -> str:
        """The production URL path a message goes to."""
        if self.spec.trigger == "chat":
            return f"webhook/{self.trigger['webhookId']}/chat"
        return f"webhook/{self.trigger['parameters']['path']}"

    def node(self, name: str) -> dict[str, Any]:
        return next(n for n in self.workflow["nodes"] if n["name"] == name)

    @property
    def memory(self) -> dict[str, Any]:
        return next(n for n in self.workflow["nodes"] if ".memory" in n["type"])


def wired(workflow: dict[str, Any]) -> dict[str, Any]:
    """*workflow* with the harness's credentials set where the learner would pick theirs.

    Postgres Chat Memory keeps n8n's default table, ``n8n_chat_histories``, in the tests'
    database: every run's session ids are its own, so two runs never read each other's rows.
    """
    copy = dict(json.loads(json.dumps(workflow)))
    for node in copy["nodes"]:
        if node["type"] in CREDENTIALS:
            kind, reference = CREDENTIALS[node["type"]]
            node["credentials"] = {kind: reference}
    return copy


def import_course_workflows(
    harness: Harness, extra: Iterable[tuple[CourseWorkflow, dict[str, Any]]] = ()
) -> dict[str, LiveWorkflow]:
    """Create and publish every course workflow, and each *extra* (spec, workflow), in
    *harness*'s n8n; by file stem."""
    rest = harness.rest()
    out: dict[str, LiveWorkflow] = {}
    course = [
        (spec, json.loads((OUT / f"{spec.file}.json").read_text(encoding="utf-8")))
        for spec in COURSE_WORKFLOWS
    ]
    for spec, raw in [*course, *extra]:
        text = json.dumps(raw)
        for stem, made in out.items():  # a workflow that calls one imported before it
            text = text.replace(workflow_id_token(stem), made.id)
        workflow = wired(json.loads(text))
        created = rest.call("POST", "workflows", workflow)
        rest.call(
            "POST", f"workflows/{created['id']}/activate", {"versionId": created["versionId"]}
        )
        out[spec.file] = LiveWorkflow(spec, str(created["id"]), workflow)
    _wait_registered(harness, out.values())
    return out


def _wait_registered(
    harness: Harness, workflows: Iterable[LiveWorkflow], seconds: float = 60
) -> None:
    """Wait until every published webhook answers (activation ends a moment after the API call)."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + seconds
    pending = [w.webhook for w in workflows if w.spec.trigger in ("chat", "webhook")]
    while pending and time.monotonic() < deadline:
        path = pending[0]
        try:
            urllib.request.urlopen(f"{harness.n8n.url}/{path}", timeout=5).close()
            pending.pop(0)
        except urllib.error.HTTPError as error:
            body = error.read()
            if b"is not registered" in body and b"not registered for GET" not in body:
                time.sleep(0.5)
            else:
                pending.pop(0)
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    if pending:
        raise HarnessError(f"these course webhooks never registered: {pending}")


def chat(
    harness: Harness, live: LiveWorkflow, session: str, text: str, replies: Iterable[Reply]
) -> Run:
    """Send *text* for *session* to *live*'s trigger with the model scripted to give *replies*."""
    harness._idle()
    harness.model.script.push(replies)
    began = time.monotonic()
    status, answer = send(harness, live, session, text)
    requests, unused = harness.model.script.drain()
    return Run(status, answer, tuple(requests), tuple(unused), time.monotonic() - began)


def send(harness: Harness, live: LiveWorkflow, session: str, text: str) -> tuple[int, Any]:
    """POST *text* for *session* the way *live*'s trigger receives it; status and answer."""
    if live.spec.trigger == "chat":
        body = {"action": "sendMessage", "sessionId": session, "chatInput": text}
    else:
        body = {"sessionId": session, "chatInput": text}
    return harness.n8n.post(live.webhook, body)


def executions(harness: Harness, live: LiveWorkflow) -> list[str]:
    """The ids of *live*'s executions, oldest first."""
    data = harness.rest().call(
        "GET", f"executions?filter={_quote(json.dumps({'workflowId': live.id}))}&limit=100"
    )
    results = data["results"] if isinstance(data, dict) else data
    return [str(r["id"]) for r in sorted(results, key=lambda r: int(r["id"]))]


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text)
