"""Makes the importable workflows of lessons 1 to 4 (``course/workflows/``) from the harness's own.

    python -m verify.n8n.course_workflows           # rewrite course/workflows/*.json
    python -m verify.n8n.course_workflows --check   # exit 1 if a file differs from what it makes

Each course workflow starts from one workflow of ``verify/n8n/workflows/`` (the ones the
live tier runs through n8n 2.41.1) and keeps its agent, chat model, memory node (with its
typeVersion, Session ID option and Context Window Length) and tools. What only the harness
needs goes: the Chat Memory Manager webhooks, the credentials (the learner picks their own
in each node marked with a warning), the system message sent with each request and the
test table's name. Most get the harness's Chat Trigger (public, as there: once published, its
hosted chat page answers too) in place of its Webhook, so the editor's *Open chat* button
drives them. A sticky note says what to try.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SOURCES = HERE / "workflows"
OUT = REPO / "course" / "workflows"
LC = "@n8n/n8n-nodes-langchain"
AGENT = "AI Agent"
#: The harness's Chat Trigger workflow, the one every chat-driven course workflow's trigger comes from.
CHAT_TRIGGER_SOURCE = "chat-trigger"
#: The system message each course workflow gives its agent, in place of the harness's per-request one.
SYSTEM_MESSAGE = "You are TuTienda's shop assistant. Answer briefly and in the customer's language."
#: Lesson 2's agent must call its Calculator, or a capable model answers 12*7 itself and the
#: learner sees no tool call to find in the next turn's model input.
USE_THE_CALCULATOR = " Use the Calculator tool for every calculation, even a simple one."
#: n8n's own default table name for Postgres Chat Memory (the harness uses one per run).
POSTGRES_TABLE = "n8n_chat_histories"
#: What the harness fills in at import time; none of it may reach a course file.
HARNESS_TOKENS = ("__WM_",)
#: The Postgres table token the harness fills in.
TABLE_TOKEN = "__WM_TABLE__"


@dataclass(frozen=True)
class CourseWorkflow:
    """One importable workflow: its *file* stem, *lesson*, harness *source*, *trigger* and *note*."""

    file: str
    lesson: int
    source: str
    title: str
    trigger: str
    """``"chat"`` (a Chat Trigger, driven by *Open chat*) or ``"webhook"`` (curl, as the source)."""
    note: str
    """The sticky note's Markdown: what the workflow shows and what to try."""
    define_below: bool = False
    """Whether the memory's Session ID is *Define below* with lesson 4's one key (:data:`ONE_KEY`)."""
    lock: bool = False
    """Whether a per-session lock stands around the agent (lesson 4's recipe, :func:`with_lock`)."""
    system_message: str = SYSTEM_MESSAGE
    """The agent's System Message (the harness sends its own with each request)."""

    @property
    def webhook_path(self) -> str:
        """The Webhook's path (webhook workflows): the course's own, never a harness path."""
        return f"tutienda-{self.file.replace('_', '-')}"


class CourseWorkflowError(ValueError):
    """A course workflow could not be made from its source; the message says what is missing."""


COURSE_WORKFLOWS: tuple[CourseWorkflow, ...] = (
    CourseWorkflow(
        "lesson1_chat_trigger",
        1,
        "chat-trigger",
        "TuTienda lesson 1: the Chat Trigger's session id",
        "chat",
        "## Lesson 1: whose memory is it?\n"
        "Simple Memory 1.4 reads the session id the Chat Trigger passes on "
        "(*Session ID: Connected Chat Trigger Node*).\n\n"
        "1. Pick your OpenAI credential in **OpenAI Chat Model**.\n"
        "2. **Open chat**, say your name, then ask for it: remembered.\n"
        "3. Start a new session (the arrow beside *Session* in the Chat panel) and ask "
        "again: a new session id, an empty memory.\n"
        "4. Rename **Simple Memory** and ask again: typeVersion 1.4 adds the node's name to "
        "the key, so the old messages are no longer found.",
    ),
    CourseWorkflow(
        "lesson1_webhook_session_key",
        1,
        "window-k5",
        "TuTienda lesson 1: a Webhook in front of Simple Memory",
        "webhook",
        "## Lesson 1: a Webhook has no session id of its own\n"
        "The Webhook puts the client's JSON under `body`, so Simple Memory uses "
        "*Define below* with the key `{{ $json.body.sessionId }}`.\n\n"
        "1. Pick your OpenAI credential in **OpenAI Chat Model**, then publish the workflow.\n"
        "2. Send two messages with the same `sessionId`:\n"
        "`curl -X POST <your n8n>/webhook/tutienda-lesson1-webhook-session-key "
        '-H "Content-Type: application/json" '
        """-d '{"sessionId": "marta", "chatInput": "Hi, I am Marta"}'`\n"""
        "3. Change the key to `{{ $json.sessionId }}` and send again: "
        '"Key parameter is empty".',
    ),
    CourseWorkflow(
        "lesson2_tool_turns",
        2,
        "window-k5",
        "TuTienda lesson 2: what each call to the model carries",
        "chat",
        "## Lesson 2: what each model call carries\n"
        "The agent calls the model once per tool step and once more to answer; each call "
        "carries the system message, "
        "the window from **Simple Memory** and this turn's input and tool steps.\n\n"
        "1. Pick your OpenAI credential in **OpenAI Chat Model**.\n"
        "2. **Open chat**: ask `What is 12*7?`, then `And plus 5?`.\n"
        "3. Open the second turn's execution, then **OpenAI Chat Model**: its input lists "
        "the messages sent, the first turn's tool call among them.",
        system_message=SYSTEM_MESSAGE + USE_THE_CALCULATOR,
    ),
    CourseWorkflow(
        "lesson3_window",
        3,
        "window-k2",
        "TuTienda lesson 3: a window of two interactions",
        "chat",
        "## Lesson 3: the window\n"
        "**Simple Memory** has *Context Window Length* 2: each call carries the last "
        "2 x 2 = 4 stored messages, and anything older is not sent.\n\n"
        "1. Pick your OpenAI credential in **OpenAI Chat Model**.\n"
        "2. **Open chat**: give your order number, then chat two more turns, then ask for "
        "the number: it has left the window.\n"
        "3. Open the last execution, then **OpenAI Chat Model**: count the messages.\n"
        "4. Set the length to 5 and start a new session: the number stays in.",
    ),
    CourseWorkflow(
        "lesson4_postgres",
        4,
        "postgres-k2",
        "TuTienda lesson 4: Postgres Chat Memory",
        "chat",
        "## Lesson 4: a store that outlives n8n\n"
        "**Postgres Chat Memory** writes every message to the table `n8n_chat_histories` "
        "(one row per message) and loads the last 2 interactions from it on every run.\n\n"
        "1. Pick your OpenAI and Postgres credentials.\n"
        "2. **Open chat** and chat a few turns; restart n8n; ask again: still remembered.\n"
        "3. In Postgres: `SELECT id, session_id, message FROM n8n_chat_histories ORDER BY id;`",
        define_below=True,
    ),
    CourseWorkflow(
        "lesson4_redis",
        4,
        "redis-k2",
        "TuTienda lesson 4: Redis Chat Memory",
        "chat",
        "## Lesson 4: Redis Chat Memory\n"
        "**Redis Chat Memory** keeps each session as one Redis list under the session id, "
        "newest message first, and loads the last 2 interactions on every run.\n\n"
        "1. Pick your OpenAI and Redis credentials.\n"
        "2. **Open chat** and chat a few turns; restart n8n; ask again: still remembered.\n"
        "3. In Redis: `KEYS *`, then `LRANGE <session id> 0 -1`.\n"
        "4. *Session Time To Live* 0 keeps a list for ever; set it to delete quiet chats.",
        define_below=True,
    ),
    CourseWorkflow(
        "lesson4_lock",
        4,
        "postgres-k2",
        "TuTienda lesson 4: a lock per session",
        "chat",
        "## Lesson 4: one run per chat at a time\n"
        "**Take the lock** (Redis Increment, TTL 60 s) counts the runs of this chat in "
        "progress; **First run?** lets only the first through to the agent, and any other "
        "gets **One moment** at once: its question is neither answered nor stored. "
        "**Release the lock** deletes the key after the agent; a failed run gets there "
        "through **Sorry**, from the agent's Error output.\n\n"
        "1. Pick your OpenAI, Postgres and Redis credentials (Redis in both Redis nodes).\n"
        "2. **Open chat** and send two messages quickly: the second is answered "
        '"One moment".\n'
        "3. Keep the TTL above your longest run: a run that outlives it lets the next "
        "one in beside it.",
        define_below=True,
        lock=True,
    ),
)
#: The lock's nodes (lesson 4's recipe), and what the turned-away run answers.
LOCK_TAKE, LOCK_TEST, LOCK_WAIT, LOCK_SORRY, LOCK_RELEASE = (
    "Take the lock",
    "First run?",
    "One moment",
    "Sorry",
    "Release the lock",
)
LOCK_TTL_SECONDS = 60
ONE_MOMENT = (
    "One moment, I'm still answering your last message. Please send this one again after my reply."
)
#: What a failed run answers, on its way from the agent's Error output to Release the lock.
SORRY = "Sorry, something went wrong on my side. Please send your message again."
#: The Chat Trigger's item, read by name once the Redis node has replaced it.
FROM_TRIGGER = "$('When chat message received').item.json"
#: Lesson 4's one Session ID key: the trigger's session id, read by name.
ONE_KEY = f"={{{{ {FROM_TRIGGER}.sessionId }}}}"


def load_sources(folder: Path = SOURCES) -> dict[str, dict[str, Any]]:
    """The harness's workflows by name (file stem)."""
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))
    }


def _node_id(file: str, name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"windowmem-course/{file}/{name}"))


def _agent_inputs(source: dict[str, Any]) -> list[str]:
    """The names of the nodes wired into the agent (trigger, model, memory, tools), in file order."""
    feeding = {
        name
        for name, kinds in source["connections"].items()
        for outputs in kinds.values()
        for targets in outputs
        for target in targets
        if target["node"] == AGENT
    }
    return [n["name"] for n in source["nodes"] if n["name"] in feeding]


def _node(source: dict[str, Any], name: str) -> dict[str, Any]:
    for node in source["nodes"]:
        if node["name"] == name:
            return dict(json.loads(json.dumps(node)))
    raise CourseWorkflowError(f"workflow {source.get('name')!r} has no node named {name!r}")


def _sticky(spec: CourseWorkflow) -> dict[str, Any]:
    # On a 380-pixel note about 32 characters of a heading fit on a 34-pixel line, and about
    # 42 of the text on an 18-pixel line (measured on the pictures' canvases).
    height = 40
    for line in spec.note.splitlines():
        if line.startswith("#"):
            height += 34 * -(-len(line.lstrip("# ")) // 32)
        else:
            height += 18 * -(-len(line) // 42) if line else 8
    return {
        "id": _node_id(spec.file, "note"),
        "name": "What to try",
        "type": "n8n-nodes-base.stickyNote",
        "typeVersion": 1,
        "position": [-420, -40],
        "parameters": {"content": spec.note, "height": height, "width": 380},
    }


def derive(spec: CourseWorkflow, sources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The course workflow *spec* describes, made from its harness source in *sources*."""
    if spec.source not in sources:
        raise CourseWorkflowError(f"{spec.file}: no harness workflow {spec.source!r} in {SOURCES}")
    if spec.trigger not in ("chat", "webhook"):
        raise CourseWorkflowError(
            f"{spec.file}: trigger must be 'chat' or 'webhook', not {spec.trigger!r}"
        )
    source = sources[spec.source]
    kept = [AGENT, *_agent_inputs(source)]
    nodes: list[dict[str, Any]] = []
    trigger_name = ""
    for name in kept:
        node = _node(source, name)
        kind = node["type"]
        if kind == "n8n-nodes-base.webhook" or kind.endswith(".chatTrigger"):
            if spec.trigger == "chat":
                node = _node(sources[CHAT_TRIGGER_SOURCE], "When chat message received")
                node["position"] = [0, 0]
            else:
                node["parameters"]["path"] = spec.webhook_path
            node["webhookId"] = _node_id(spec.file, "webhook")
            trigger_name = node["name"]
        elif kind == f"{LC}.agent":
            node["parameters"]["options"]["systemMessage"] = spec.system_message
            if spec.trigger == "chat":  # the Chat Trigger's chatInput is the prompt
                node["parameters"] = {
                    "options": node["parameters"]["options"],
                    "promptType": "auto",
                }
        elif kind.startswith(f"{LC}.memory"):
            if spec.define_below:  # no node-name suffix: chat abc is filed under abc
                node["parameters"]["sessionIdType"] = "customKey"
                node["parameters"]["sessionKey"] = ONE_KEY
            elif spec.trigger == "chat":
                node["parameters"]["sessionIdType"] = "fromInput"
                node["parameters"].pop("sessionKey", None)
            if node["parameters"].get("tableName") == TABLE_TOKEN:
                node["parameters"]["tableName"] = POSTGRES_TABLE
        node.pop("credentials", None)  # the learner picks their own
        node["id"] = _node_id(spec.file, node["name"])
        nodes.append(node)
    if not trigger_name:
        raise CourseWorkflowError(f"{spec.file}: {spec.source!r} has no trigger feeding {AGENT!r}")
    names = {n["name"] for n in nodes}
    connections: dict[str, Any] = {}
    for name, kinds in source["connections"].items():
        for kind, outputs in kinds.items():
            for targets in outputs:
                for target in targets:
                    if target["node"] in names and name in names:
                        connections.setdefault(name, {}).setdefault(kind, [[]])[0].append(target)
    # The trigger feeds the agent (a Chat Trigger stands where the harness's Webhook stood).
    connections.pop(trigger_name, None)
    connections = {
        trigger_name: {"main": [[{"node": AGENT, "type": "main", "index": 0}]]},
        **connections,
    }
    nodes.sort(key=lambda n: (n["name"] != trigger_name, n["name"] != AGENT))  # stable otherwise
    workflow = {
        "name": spec.title,
        "nodes": [_sticky(spec), *nodes],
        "connections": connections,
        "settings": {"executionOrder": "v1"},
        "pinData": {},
    }
    if spec.lock:
        workflow = with_lock(spec, workflow)
    text = json.dumps(workflow)
    leaked = [token for token in HARNESS_TOKENS if token in text]
    if leaked or '"credentials"' in text:
        raise CourseWorkflowError(f"{spec.file}: harness parts left in the workflow: {leaked}")
    return workflow


def with_lock(spec: CourseWorkflow, workflow: dict[str, Any]) -> dict[str, Any]:
    """*workflow* (a Chat Trigger feeding the agent) with lesson 4's lock around its agent.

    Trigger → Redis Increment ``lock:<session id>`` with Expire (n8n-nodes-base 2.41.1 sends
    ``EXPIRE`` after every ``INCR``) → If the count is 1 → the agent → Redis Delete; a failed
    run leaves the agent by its Error output and reaches the Delete through Sorry, which sets
    ``output``, as the If's other branch (One moment) does: the chat shows it as the reply. The Redis node's output
    replaces the chat's item, so the agent's prompt and the memory's key read the trigger.
    """
    nodes = [dict(json.loads(json.dumps(n))) for n in workflow["nodes"]]
    trigger = next((n for n in nodes if n["type"].endswith(".chatTrigger")), None)
    if trigger is None or trigger["name"] != "When chat message received":
        raise CourseWorkflowError(f"{spec.file}: the lock needs the Chat Trigger in front")
    session = f"{FROM_TRIGGER}.sessionId"
    for node in nodes:
        if node["type"] == f"{LC}.agent":
            node["parameters"] = {
                "promptType": "define",
                "text": f"={{{{ {FROM_TRIGGER}.chatInput }}}}",
                "options": node["parameters"]["options"],
            }
            # Settings, On Error: Continue (using error output): a failed run leaves the agent
            # by its second output, Error, through Sorry to Release the lock.
            node["onError"] = "continueErrorOutput"
        elif (
            node["type"].startswith(f"{LC}.memory")
            and node["parameters"].get("sessionKey") != ONE_KEY
        ):
            raise CourseWorkflowError(f"{spec.file}: the lock needs the memory on the one key")
    x, y = trigger["position"]
    for moved in nodes:  # the agent and its model, memory and tools make room for the lock
        if moved["name"] != trigger["name"] and not moved["type"].endswith("stickyNote"):
            moved["position"] = [moved["position"][0] + 460, moved["position"][1]]

    def node(name: str, kind: str, version: float, at: list[int], parameters: Any) -> Any:
        return {
            "id": _node_id(spec.file, name),
            "name": name,
            "type": kind,
            "typeVersion": version,
            "position": at,
            "parameters": parameters,
        }

    lock_key = f"=lock:{{{{ {session} }}}}"

    def reply(name: str, at: list[int], text: str) -> Any:
        """An Edit Fields node that sets ``output``, which the chat shows as the reply."""
        key = "output" if name == LOCK_WAIT else f"{name} output"  # One moment's id as before
        assignment = {"id": _node_id(spec.file, key), "name": "output"}
        assignment |= {"value": text, "type": "string"}
        parameters = {"assignments": {"assignments": [assignment]}, "options": {}}
        return node(name, "n8n-nodes-base.set", 3.4, at, parameters)

    added = [
        node(
            LOCK_TAKE,
            "n8n-nodes-base.redis",
            1,
            [x + 220, y],
            {
                "operation": "incr",
                "key": lock_key,  # the one key expression lesson 4 uses everywhere
                "expire": True,
                "ttl": LOCK_TTL_SECONDS,
            },
        ),
        node(
            LOCK_TEST,
            "n8n-nodes-base.if",
            2.2,
            [x + 440, y],
            {
                "conditions": {
                    "options": {
                        "caseSensitive": True,
                        "leftValue": "",
                        "typeValidation": "strict",
                        "version": 2,
                    },
                    "conditions": [
                        {
                            "id": _node_id(spec.file, "count is 1"),
                            "leftValue": f"={{{{ $json['lock:' + {session}] }}}}",
                            "rightValue": 1,
                            "operator": {"type": "number", "operation": "equals"},
                        }
                    ],
                    "combinator": "and",
                },
                "options": {},
            },
        ),
        reply(LOCK_WAIT, [x + 660, y + 380], ONE_MOMENT),
        reply(LOCK_SORRY, [x + 1100, y - 200], SORRY),
        node(
            LOCK_RELEASE,
            "n8n-nodes-base.redis",
            1,
            [x + 1320, y],
            {"operation": "delete", "key": lock_key},
        ),
    ]
    connections = dict(workflow["connections"])
    connections[trigger["name"]] = {"main": [[{"node": LOCK_TAKE, "type": "main", "index": 0}]]}
    connections[LOCK_TAKE] = {"main": [[{"node": LOCK_TEST, "type": "main", "index": 0}]]}
    connections[LOCK_TEST] = {
        "main": [
            [{"node": AGENT, "type": "main", "index": 0}],
            [{"node": LOCK_WAIT, "type": "main", "index": 0}],
        ]
    }
    release = [{"node": LOCK_RELEASE, "type": "main", "index": 0}]
    sorry = [{"node": LOCK_SORRY, "type": "main", "index": 0}]
    connections[AGENT] = {"main": [release, sorry]}  # Success, then Error
    connections[LOCK_SORRY] = {"main": [list(release)]}
    return {**workflow, "nodes": [*nodes, *added], "connections": connections}


def render(workflow: dict[str, Any]) -> str:
    """A workflow as the file holds it."""
    return json.dumps(workflow, indent=2, ensure_ascii=False) + "\n"


def build(sources: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """Every course workflow's file name and text."""
    sources = load_sources() if sources is None else sources
    return {f"{spec.file}.json": render(derive(spec, sources)) for spec in COURSE_WORKFLOWS}


def stale(folder: Path = OUT) -> list[str]:
    """The course workflow files that are missing, differ from what :func:`build` makes, or are extra."""
    wanted = build()
    present = {p.name for p in folder.glob("*.json")} if folder.is_dir() else set()
    wrong = [
        name
        for name, text in wanted.items()
        if name not in present or (folder / name).read_text(encoding="utf-8") != text
    ]
    return sorted(wrong + sorted(present - set(wanted)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is not current")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale()
        if wrong:
            print(f"not current: {', '.join(wrong)} (run python -m verify.n8n.course_workflows)")
            return 1
        print(f"{len(COURSE_WORKFLOWS)} course workflows current in {OUT}")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for name, text in build().items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(COURSE_WORKFLOWS)} course workflows to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
