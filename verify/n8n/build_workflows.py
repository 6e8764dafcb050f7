"""Writes the harness's n8n workflows, one JSON file per scenario, into ``workflows/``.

    python verify/n8n/build_workflows.py

The files are committed; this script is how they were made and how to remake them after a
change, so every workflow names the same node typeVersions the same way. Parameters were
read from the installed ``@n8n/n8n-nodes-langchain`` 2.41.1 and ``n8n-nodes-base`` 2.41.1
(``dist/nodes/...``). Tokens ``__WM_...__`` are filled in by the harness at import time
(the credential ids, the Postgres table of this run).

Every workflow has two webhooks: ``POST /webhook/<path>`` runs the agent on
``{"sessionId", "chatInput"}`` and answers the agent's output; ``POST /webhook/<path>-memory``
runs a Chat Memory Manager on the same memory node and answers what memory holds.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "workflows"
LC = "@n8n/n8n-nodes-langchain"
# The System Message comes with each request, so one workflow serves every conversation.
SYSTEM_MESSAGE = "={{ $json.body.system }}"
#: What the harness sends as the system message unless a scenario gives its own.
DEFAULT_SYSTEM = "You are windowmem's test agent. Answer briefly."
OPENAI_CREDENTIAL = {"openAiApi": {"id": "__WM_OPENAI_ID__", "name": "windowmem model"}}
POSTGRES_CREDENTIAL = {"postgres": {"id": "__WM_POSTGRES_ID__", "name": "windowmem postgres"}}
REDIS_CREDENTIAL = {"redis": {"id": "__WM_REDIS_ID__", "name": "windowmem redis"}}


def _id(name: str) -> str:
    """A stable 16-character workflow id from the scenario name (n8n's id alphabet)."""
    return ("wm" + "".join(c for c in name.title() if c.isalnum()) + "0" * 16)[:16]


def _webhook_id(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"windowmem-n8n/{name}"))


def node(
    name: str, kind: str, version: float, parameters: dict[str, Any], x: int, y: int, **extra: Any
) -> dict[str, Any]:
    return {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"windowmem-node/{name}/{kind}/{x}/{y}")),
        "name": name,
        "type": kind,
        "typeVersion": version,
        "position": [x, y],
        "parameters": parameters,
        **extra,
    }


def webhook(name: str, path: str, scenario: str, *, all_entries: bool = False) -> dict[str, Any]:
    parameters: dict[str, Any] = {
        "httpMethod": "POST",
        "path": path,
        "responseMode": "lastNode",
        "options": {},
    }
    if all_entries:
        parameters["responseData"] = "allEntries"
    return node(
        name,
        "n8n-nodes-base.webhook",
        2.1,
        parameters,
        0,
        0 if not all_entries else 400,
        webhookId=_webhook_id(f"{scenario}/{path}"),
    )


def chat_model(*, responses_api: bool = True) -> dict[str, Any]:
    parameters: dict[str, Any] = {
        "model": {"__rl": True, "mode": "id", "value": "gpt-4.1-mini"},
        "options": {},
    }
    if not responses_api:
        parameters["responsesApiEnabled"] = False
    return node(
        "OpenAI Chat Model",
        f"{LC}.lmChatOpenAi",
        1.3,
        parameters,
        200,
        250,
        credentials=OPENAI_CREDENTIAL,
    )


def agent(version: float, *, system_message: str | None, prompt: str = "define") -> dict[str, Any]:
    parameters: dict[str, Any] = {"options": {}}
    if prompt == "define":
        parameters["promptType"] = "define"
        parameters["text"] = "={{ $json.body.chatInput }}"
    else:
        parameters["promptType"] = "auto"
    if system_message is not None:
        parameters["options"]["systemMessage"] = system_message
    return node("AI Agent", f"{LC}.agent", version, parameters, 250, 0)


def simple_memory(version: float, k: int | None, *, from_input: bool = False) -> dict[str, Any]:
    parameters: dict[str, Any] = {}
    if from_input:
        parameters["sessionIdType"] = "fromInput"
    else:
        parameters["sessionIdType"] = "customKey"
        parameters["sessionKey"] = "={{ $json.body.sessionId }}"
    if k is not None:
        parameters["contextWindowLength"] = k
    return node("Simple Memory", f"{LC}.memoryBufferWindow", version, parameters, 400, 250)


def postgres_memory(k: int) -> dict[str, Any]:
    parameters = {
        "sessionIdType": "customKey",
        "sessionKey": "={{ $json.body.sessionId }}",
        "tableName": "__WM_TABLE__",
        "contextWindowLength": k,
    }
    return node(
        "Postgres Chat Memory",
        f"{LC}.memoryPostgresChat",
        1.3,
        parameters,
        400,
        250,
        credentials=POSTGRES_CREDENTIAL,
    )


def redis_memory(k: int) -> dict[str, Any]:
    parameters = {
        "sessionIdType": "customKey",
        "sessionKey": "={{ $json.body.sessionId }}",
        "contextWindowLength": k,
    }
    return node(
        "Redis Chat Memory",
        f"{LC}.memoryRedisChat",
        1.5,
        parameters,
        400,
        250,
        credentials=REDIS_CREDENTIAL,
    )


def calculator() -> dict[str, Any]:
    return node("Calculator", f"{LC}.toolCalculator", 1, {}, 550, 250)


#: Lesson 3's tools (windowmem.examples "tool_use"): Code Tools that answer with their input,
#: so the scripted model decides each result and the lesson's own texts reach n8n.
LESSON_TOOLS = ("track_order", "change_address", "check_stock")


def echo_tool(name: str, x: int) -> dict[str, Any]:
    parameters = {
        "description": f"TuTienda's {name.replace('_', ' ')} lookup (the harness's echo).",
        "language": "javaScript",
        "jsCode": "return query;",
    }
    return node(name, f"{LC}.toolCode", 1.3, parameters, x, 250)


def memory_manager(name: str, parameters: dict[str, Any], y: int) -> dict[str, Any]:
    return node(name, f"{LC}.memoryManager", 1.1, parameters, 250, y)


def link(source: str, target: str, kind: str = "main") -> tuple[str, str, str]:
    return (source, target, kind)


def connections(links: list[tuple[str, str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for source, target, kind in links:
        out.setdefault(source, {}).setdefault(kind, [[]])[0].append(
            {"node": target, "type": kind, "index": 0}
        )
    return out


#: The Chat Memory Manager operations the harness can call, by webhook suffix.
MANAGER_MODES: dict[str, dict[str, Any]] = {
    "memory": {"mode": "load", "simplifyOutput": False},
    "memory-simple": {"mode": "load", "simplifyOutput": True},
    "insert": {
        "mode": "insert",
        "insertMode": "insert",
        "messages": {
            "messageValues": [
                {"type": "system", "message": "Internal note: the customer is Marta."},
                {"type": "ai", "message": "Noted by the manager."},
            ]
        },
    },
    "override": {
        "mode": "insert",
        "insertMode": "override",
        "messages": {"messageValues": [{"type": "user", "message": "Only this one remains."}]},
    },
    "delete-last": {"mode": "delete", "deleteMode": "lastN", "lastMessagesCount": 2},
}


def agent_workflow(
    scenario: str,
    *,
    agent_version: float = 3.1,
    memory: dict[str, Any] | None = None,
    system_message: str | None = SYSTEM_MESSAGE,
    responses_api: bool = True,
    managers: tuple[str, ...] = ("memory",),
    tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Webhook -> AI Agent (model, memory, calculator), and a Memory Manager webhook per mode."""
    memory = memory if memory is not None else simple_memory(1.3, 5)
    tools = tools if tools is not None else [calculator()]
    nodes = [
        webhook("Webhook", scenario, scenario),
        agent(agent_version, system_message=system_message),
        chat_model(responses_api=responses_api),
        memory,
        *tools,
    ]
    links = [
        link("Webhook", "AI Agent"),
        link("OpenAI Chat Model", "AI Agent", "ai_languageModel"),
        link(memory["name"], "AI Agent", "ai_memory"),
        *(link(t["name"], "AI Agent", "ai_tool") for t in tools),
    ]
    for index, suffix in enumerate(managers):
        hook, manager = f"Webhook {suffix}", f"Memory Manager {suffix}"
        nodes.append(webhook(hook, f"{scenario}-{suffix}", scenario, all_entries=True))
        nodes[-1]["position"] = [0, 400 + 150 * index]
        nodes.append(memory_manager(manager, MANAGER_MODES[suffix], 400 + 150 * index))
        links += [link(hook, manager), link(memory["name"], manager, "ai_memory")]
    return {
        "id": _id(scenario),
        "name": f"windowmem {scenario}",
        "nodes": nodes,
        "connections": connections(links),
        "settings": {"executionOrder": "v1"},
        "active": False,
        "pinData": {},
    }


def chat_trigger_workflow(scenario: str) -> dict[str, Any]:
    """Chat Trigger 1.4 with every default -> AI Agent 3.1 (prompt from the trigger) + Simple Memory 1.4 defaults."""
    trigger = node(
        "When chat message received",
        f"{LC}.chatTrigger",
        1.4,
        {"public": True, "options": {}},
        0,
        0,
        webhookId=_webhook_id(f"{scenario}/chat"),
    )
    memory = simple_memory(1.4, None, from_input=True)
    # The Memory Manager's webhook hands over sessionId the way the Chat Trigger does.
    set_session = node(
        "Session",
        "n8n-nodes-base.set",
        3.4,
        {
            "assignments": {
                "assignments": [
                    {
                        "id": "s1",
                        "name": "sessionId",
                        "value": "={{ $json.body.sessionId }}",
                        "type": "string",
                    }
                ]
            },
            "options": {},
        },
        150,
        400,
    )
    nodes = [
        trigger,
        agent(3.1, system_message=None, prompt="auto"),
        chat_model(),
        memory,
        calculator(),
        webhook("Webhook memory", f"{scenario}-memory", scenario, all_entries=True),
        set_session,
        memory_manager("Memory Manager memory", MANAGER_MODES["memory"], 400),
    ]
    links = [
        link("When chat message received", "AI Agent"),
        link("OpenAI Chat Model", "AI Agent", "ai_languageModel"),
        link("Simple Memory", "AI Agent", "ai_memory"),
        link("Calculator", "AI Agent", "ai_tool"),
        link("Webhook memory", "Session"),
        link("Session", "Memory Manager memory"),
        link("Simple Memory", "Memory Manager memory", "ai_memory"),
    ]
    return {
        "id": _id(scenario),
        "name": f"windowmem {scenario}",
        "nodes": nodes,
        "connections": connections(links),
        "settings": {"executionOrder": "v1"},
        "active": False,
        "pinData": {},
    }


def scenarios() -> dict[str, dict[str, Any]]:
    """Every workflow the harness imports, by scenario name (= its webhook path)."""
    out = {
        "window-k5": agent_workflow("window-k5", memory=simple_memory(1.3, 5)),
        "window-k2": agent_workflow("window-k2", memory=simple_memory(1.3, 2)),
        "window-k1": agent_workflow("window-k1", memory=simple_memory(1.3, 1)),
        "window-k0": agent_workflow("window-k0", memory=simple_memory(1.3, 0)),
        "window-k5-v14": agent_workflow("window-k5-v14", memory=simple_memory(1.4, 5)),
        "chat-completions-k2": agent_workflow(
            "chat-completions-k2", memory=simple_memory(1.3, 2), responses_api=False
        ),
        "no-system-k5": agent_workflow("no-system-k5", system_message=None),
        # AI Agent 2.2 refuses a model on the Responses API (ToolsAgent/V2/execute.js), so
        # 2.2 is compared with 3.1 on chat completions.
        "agent-v22-k5": agent_workflow("agent-v22-k5", agent_version=2.2, responses_api=False),
        "agent-v31-chat-k5": agent_workflow("agent-v31-chat-k5", responses_api=False),
        "agent-v22-responses": agent_workflow(
            "agent-v22-responses", agent_version=2.2, managers=()
        ),
        "live-window": agent_workflow("live-window", memory=simple_memory(1.3, 3)),
        "session-from-input": agent_workflow(
            "session-from-input", memory=simple_memory(1.4, 5, from_input=True), managers=()
        ),
        "manager": agent_workflow("manager", managers=tuple(MANAGER_MODES)),
        "postgres-k2": agent_workflow("postgres-k2", memory=postgres_memory(2)),
        "redis-k2": agent_workflow("redis-k2", memory=redis_memory(2)),
        "chat-trigger": chat_trigger_workflow("chat-trigger"),
        "lesson3-tools-k2": agent_workflow(
            "lesson3-tools-k2",
            memory=simple_memory(1.3, 2),
            tools=[echo_tool(name, 550 + 150 * i) for i, name in enumerate(LESSON_TOOLS)],
        ),
    }
    return out


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for old in FOLDER.glob("*.json"):
        old.unlink()
    for name, workflow in scenarios().items():
        (FOLDER / f"{name}.json").write_text(
            json.dumps(workflow, indent=2) + "\n", encoding="utf-8"
        )
    print(f"wrote {len(scenarios())} workflows to {FOLDER}")


if __name__ == "__main__":
    main()
