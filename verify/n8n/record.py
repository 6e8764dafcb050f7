"""Runs every scenario through n8n 2.41.1 and writes what it sent and stored as fixtures.

    make record-n8n                     # = python -m verify.n8n.record, with the services up
    python -m verify.n8n.record marta   # only the scenarios named

One JSON file per scenario lands in ``src/windowmem/data/n8n_recorded/`` (package data, read
by :mod:`windowmem.n8n_recorded`): for each turn the scripted replies, n8n's HTTP answer,
every request body it sent the model, and its memory node's content afterwards.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from verify.n8n.harness import Harness
from verify.n8n.instance import N8N_VERSION
from verify.n8n.model_server import Reply, Text, ToolCalls
from verify.n8n.scenarios import Scenario, scenarios

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "src" / "windowmem" / "data" / "n8n_recorded"
COMMAND = "make record-n8n"


def reply_data(reply: Reply) -> dict[str, Any]:
    if isinstance(reply, Text):
        return {"text": reply.content}
    if isinstance(reply, ToolCalls):
        return {
            "tool_calls": [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.calls
            ]
        }
    return {"failure": reply.status, "message": reply.message}


def type_versions(workflow: dict[str, Any]) -> dict[str, float]:
    return {n["type"]: n["typeVersion"] for n in workflow["nodes"]}


def run_scenario(harness: Harness, scenario: Scenario) -> dict[str, Any]:
    """Drive *scenario* through the running n8n; the fixture's content."""
    suffix = uuid.uuid4().hex[:8]
    runs = []
    for turn in scenario.turns:
        if turn.restart_before:
            harness.restart()
        session = f"{scenario.name}-{turn.session}-{suffix}"
        harness.sessions.append(session)
        body: dict[str, Any] = dict(scenario.extra)
        if scenario.system is not None:
            body["system"] = scenario.system
        run = harness.run(scenario.workflow, session, turn.text, turn.replies, **body)
        runs.append(
            {
                "session": turn.session,
                "user_input": turn.text,
                "restart_before": turn.restart_before,
                "replies": [reply_data(r) for r in turn.replies],
                "status": run.status,
                "output": run.output if run.status == 200 else _error_text(run.body),
                "requests": [r.body for r in run.requests],
                "paths": [r.path for r in run.requests],
                "unused_replies": len(run.unused),
                "memory_after": harness.memory(scenario.workflow, session),
            }
        )
    return {
        "scenario": scenario.name,
        "description": scenario.description,
        "n8n_version": N8N_VERSION,
        "workflow": f"verify/n8n/workflows/{scenario.workflow}.json",
        "type_versions": type_versions(harness.workflows[scenario.workflow]),
        "window": scenario.window,
        "agent_version": scenario.agent_version,
        "system": scenario.system,
        "command": COMMAND if scenario.name else COMMAND,
        "runs": runs,
    }


def _error_text(body: Any) -> Any:
    """n8n's error answer without its stack trace (which names this machine's paths)."""
    if isinstance(body, dict):
        return {k: v for k, v in body.items() if k in ("code", "message", "hint")}
    return body


def main(names: list[str]) -> None:
    chosen = scenarios()
    unknown = [n for n in names if n not in chosen]
    if unknown:
        raise SystemExit(f"unknown scenarios {unknown}: use some of {sorted(chosen)}")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    with Harness.open() as harness:
        print(f"n8n up: {harness.timings}", flush=True)
        for name in names or list(chosen):
            began = time.monotonic()
            data = run_scenario(harness, chosen[name])
            path = FIXTURES / f"{name}.json"
            path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(
                f"{name}: {len(data['runs'])} runs in {time.monotonic() - began:.1f} s -> {path}",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
