"""A sub-workflow called by an agent's *Call n8n Workflow Tool*, for lesson 2's picture of its inputs.

:func:`sub_workflow` is the called workflow: *When Executed by Another Workflow* (typeVersion
1.1, one input field, ``order``) and a Set node whose output is the tool's result.
:func:`with_workflow_tool` puts a *Call n8n Workflow Tool* (typeVersion 2.2) in place of a
workflow's Calculator; its Workflow is :func:`workflow_id_token`, which
:func:`verify.n8n.course_live.import_course_workflows` replaces with the called workflow's id.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

#: The sub-workflow's trigger, as n8n 2.41.1 names it on the canvas.
CALLED_TRIGGER = "When Executed by Another Workflow"
#: The one field the sub-workflow asks for, and the tool's name the model calls.
ORDER_FIELD = "order"
TOOL_NAME = "track_order"
#: What the sub-workflow answers for any order.
ORDER_STATUS = "in transit with Envía, arriving 2 December"


def workflow_id_token(stem: str) -> str:
    """What stands for workflow *stem*'s n8n id until it is imported."""
    return f"@@id:{stem}@@"


def _id(stem: str, name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"windowmem-pictures/{stem}/{name}"))


def sub_workflow(stem: str, title: str) -> dict[str, Any]:
    """The called workflow: its trigger's one input field, then the order's status."""
    trigger = {
        "id": _id(stem, CALLED_TRIGGER),
        "name": CALLED_TRIGGER,
        "type": "n8n-nodes-base.executeWorkflowTrigger",
        "typeVersion": 1.1,
        "position": [0, 0],
        "parameters": {"workflowInputs": {"values": [{"name": ORDER_FIELD}]}},
    }
    status = {
        "id": _id(stem, "Order status"),
        "name": "Order status",
        "type": "n8n-nodes-base.set",
        "typeVersion": 3.4,
        "position": [220, 0],
        "parameters": {
            "assignments": {
                "assignments": [
                    {
                        "id": _id(stem, "status"),
                        "name": "status",
                        "value": f"={{{{ $json.{ORDER_FIELD} }}}}: {ORDER_STATUS}",
                        "type": "string",
                    }
                ]
            },
            "options": {},
        },
    }
    return {
        "name": title,
        "nodes": [trigger, status],
        "connections": {
            CALLED_TRIGGER: {"main": [[{"node": "Order status", "type": "main", "index": 0}]]}
        },
        "settings": {"executionOrder": "v1"},
        "pinData": {},
    }


def with_workflow_tool(workflow: dict[str, Any], stem: str, calls: str) -> dict[str, Any]:
    """*workflow* with its Calculator replaced by a tool that calls workflow *calls*."""
    copy = dict(json.loads(json.dumps(workflow)))
    calculator = next(n for n in copy["nodes"] if n["name"] == "Calculator")
    description = "Look up where a TuTienda order is."
    tool = {
        "id": _id(stem, TOOL_NAME),
        "name": TOOL_NAME,
        "type": "@n8n/n8n-nodes-langchain.toolWorkflow",
        "typeVersion": 2.2,
        "position": calculator["position"],
        "parameters": {
            "description": description,
            "workflowId": {"__rl": True, "value": workflow_id_token(calls), "mode": "id"},
            "workflowInputs": {
                "mappingMode": "defineBelow",
                "value": {
                    ORDER_FIELD: f"={{{{ $fromAI('{ORDER_FIELD}', 'The order number', 'string') }}}}"
                },
                "matchingColumns": [],
                "schema": [
                    {
                        "id": ORDER_FIELD,
                        "displayName": ORDER_FIELD,
                        "required": False,
                        "defaultMatch": False,
                        "display": True,
                        "canBeUsedToMatch": True,
                        "type": "string",
                    }
                ],
                "attemptToConvertTypes": False,
                "convertFieldsToString": False,
            },
        },
    }
    copy["nodes"] = [tool if n is calculator else n for n in copy["nodes"]]
    connections = {}
    for name, kinds in copy["connections"].items():
        connections[TOOL_NAME if name == "Calculator" else name] = kinds
    copy["connections"] = connections
    return copy
