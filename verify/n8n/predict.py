"""windowmem's prediction of a recorded scenario, and where it differs from what n8n did.

A recording (a fixture written by ``record.py``, or a live run in the same shape) holds,
per turn, the user's message, the scripted model replies, every request n8n sent and its
memory afterwards. The same turns are read as a windowmem conversation (the Calculator's
results filled in as n8n's tool node reports them) and run through
:func:`windowmem.calls.agent_calls.agent_runs` with :class:`~windowmem.policies.n8n.N8nSimpleMemory`;
:func:`differences` lists every request and every stored history that disagree.
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from windowmem.calls.agent_calls import AgentRun, agent_runs
from windowmem.messages import Message, assistant, system, tool, user
from windowmem.n8n_recorded import request_messages, stored_messages
from windowmem.policies.n8n import N8nSimpleMemory

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def calculate(expression: str) -> str:
    """What LangChain's Calculator (mathjs) answers for simple arithmetic, as text.

    >>> calculate("2+3"), calculate("5*7"), calculate("7/2")
    ('5', '35', '3.5')
    """

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"the harness's calculator does only + - * /: {expression!r}")

    result = value(ast.parse(expression, mode="eval"))
    return str(int(result)) if float(result).is_integer() else repr(result)


def tool_result(expression: str, agent_version: float, tool_name: str = "Calculator") -> str:
    """The tool message's content n8n sends for a call of the Calculator or of an echo Code Tool.

    AI Agent 3.x runs the tool as a node and hands the model the node's JSON output
    (``[{"response":"5"}]``, as JavaScript's ``JSON.stringify`` writes it); 2.2 calls the
    LangChain tool directly and hands over its text. The harness's Code Tools answer with
    their input.
    """
    text = calculate(expression) if tool_name == "Calculator" else expression
    if agent_version >= 3:
        return json.dumps([{"response": text}], separators=(",", ":"), ensure_ascii=False)
    return text


def conversation(recording: Mapping[str, Any]) -> tuple[list[Message], list[str]]:
    """The recording's turns as one windowmem conversation, and each turn's memory session.

    A restart empties Simple Memory, which is a new session for the turns after it.
    """
    version = float(recording["agent_version"])
    messages: list[Message] = []
    if recording.get("system") is not None:
        messages.append(system(str(recording["system"])))
    sessions: list[str] = []
    restarts = 0
    for run in recording["runs"]:
        if run.get("restart_before"):
            restarts += 1
        sessions.append(f"{run['session']}#{restarts}")
        messages.append(user(str(run["user_input"])))
        for reply in run["replies"]:
            if "failure" in reply:
                break
            if "text" in reply:
                messages.append(assistant(str(reply["text"])))
                break
            calls = reply["tool_calls"]
            messages.append(assistant("", [c["id"] for c in calls]))
            for c in calls:
                result = tool_result(str(c["arguments"]["input"]), version, str(c["name"]))
                messages.append(tool(result, c["id"]))
    return messages, sessions


def predicted_runs(recording: Mapping[str, Any]) -> tuple[AgentRun, ...]:
    messages, sessions = conversation(recording)
    return agent_runs(
        messages,
        N8nSimpleMemory(int(recording["window"])),
        session_ids=sessions,
        agent_version=float(recording["agent_version"]),
    )


def predicted_stores(recording: Mapping[str, Any]) -> list[tuple[Message, ...]]:
    """What windowmem says each turn's session holds after the turn."""
    held: dict[str, list[Message]] = {}
    out = []
    for run in predicted_runs(recording):
        session = held.setdefault(str(run.session_id), [])
        session.extend(run.saved)
        out.append(tuple(session))
    return out


def _show(messages: Sequence[Message]) -> list[str]:
    out = []
    for m in messages:
        links = f" calls={list(m.tool_calls)}" if m.tool_calls else ""
        links += f" answers={m.tool_call_id}" if m.tool_call_id else ""
        out.append(f"{m.role.value}: {m.content!r}{links}")
    return out


def differences(recording: Mapping[str, Any]) -> list[str]:
    """Every place where windowmem's prediction and the recording disagree (empty: they agree)."""
    found: list[str] = []
    runs = predicted_runs(recording)
    stores = predicted_stores(recording)
    name = recording.get("scenario", "?")
    for number, (recorded, predicted, store) in enumerate(
        zip(recording["runs"], runs, stores), start=1
    ):
        if recorded.get("unused_replies"):
            found.append(
                f"{name} turn {number}: n8n left {recorded['unused_replies']} scripted replies unused"
            )
        sent = [request_messages(body) for body in recorded["requests"]]
        expected = [call.messages for call in predicted.calls]
        if len(sent) != len(expected):
            found.append(
                f"{name} turn {number}: n8n made {len(sent)} model calls, windowmem predicts {len(expected)}"
            )
        for index, (got, want) in enumerate(zip(sent, expected), start=1):
            if tuple(got) != tuple(want):
                found.append(
                    f"{name} turn {number} call {index}: n8n sent\n  "
                    + "\n  ".join(_show(got))
                    + "\n windowmem predicts\n  "
                    + "\n  ".join(_show(want))
                )
        if recorded.get("memory_after") is not None:
            got_store = stored_messages(recorded["memory_after"])
            if tuple(got_store) != tuple(store):
                found.append(
                    f"{name} turn {number}: n8n's memory holds\n  "
                    + "\n  ".join(_show(got_store))
                    + "\n windowmem predicts\n  "
                    + "\n  ".join(_show(store))
                )
        answered = predicted.answered
        if answered != (recorded["status"] == 200 and bool(recorded.get("output"))):
            found.append(
                f"{name} turn {number}: n8n answered {recorded['status']} {recorded.get('output')!r}, "
                f"windowmem predicts {'an answer' if answered else 'no answer'}"
            )
    return found
