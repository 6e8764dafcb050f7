"""The recorded scenarios: which workflow, which messages, which scripted model replies.

A scenario is a list of turns. Each turn is one user message sent to the workflow's
webhook for one session, with the replies the model server gives, in order: a
:class:`Text` answer, :class:`ToolCalls` (n8n then runs the Calculator tool and calls the
model again), or a :class:`Failure`. The prediction side (``predict.py``) reads the same
turns as a windowmem conversation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verify.n8n.build_workflows import DEFAULT_SYSTEM
from verify.n8n.model_server import Call, Failure, Reply, Text, ToolCalls
from windowmem.examples import load_example
from windowmem.messages import Role


@dataclass(frozen=True)
class Turn:
    """One user message *text* to session *session*, and the model's scripted *replies*."""

    text: str
    replies: tuple[Reply, ...]
    session: str = "a"
    restart_before: bool = False
    """Restart n8n before this turn (Simple Memory lives in the process)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    workflow: str
    description: str
    turns: tuple[Turn, ...]
    system: str | None = DEFAULT_SYSTEM
    agent_version: float = 3.1
    window: int = 5
    extra: dict[str, object] = field(default_factory=dict)


def calc(call_id: str, expression: str) -> Call:
    """A Calculator call (the tool node is named "Calculator", so the tool is too)."""
    return Call(call_id, "Calculator", {"input": expression})


def plain(turns: int, prefix: str = "") -> tuple[Turn, ...]:
    return tuple(Turn(f"{prefix}u{t}", (Text(f"{prefix}a{t}"),)) for t in range(1, turns + 1))


def one_round(tag: str, expression: str = "2+3", answer: str = "It is 5.") -> Turn:
    return Turn(
        f"{tag}: what is {expression}?",
        (ToolCalls.of(calc(f"call_{tag}", expression)), Text(answer)),
    )


def two_rounds(tag: str) -> Turn:
    return Turn(
        f"{tag}: what is (2+3)*7?",
        (
            ToolCalls.of(calc(f"call_{tag}_1", "2+3")),
            ToolCalls.of(calc(f"call_{tag}_2", "5*7")),
            Text("It is 35."),
        ),
    )


def parallel(tag: str) -> Turn:
    return Turn(
        f"{tag}: what are 2+3 and 6*7?",
        (
            ToolCalls.of(calc(f"call_{tag}_a", "2+3"), calc(f"call_{tag}_b", "6*7")),
            Text("5 and 42."),
        ),
    )


def marta() -> Scenario:
    chat = load_example("marta")
    turns = []
    for interaction in chat.interactions:
        answer = next(m for m in interaction.messages if m.role is Role.ASSISTANT)
        turns.append(Turn(interaction.messages[0].content, (Text(answer.content),)))
    return Scenario(
        "marta",
        "window-k5",
        "Marta's seven turns (windowmem.examples 'marta') with Context Window Length 5",
        tuple(turns),
        system=chat.system_message.content if chat.system_message else None,
    )


def lesson3_tool_use() -> Scenario:
    """Lesson 3's tool chat (windowmem.examples "tool_use"), each result scripted as the call's input."""
    chat = load_example("tool_use")
    names = {"track": "track_order", "address": "change_address", "stock": "check_stock"}
    results = {m.tool_call_id: m.content for m in chat.messages if m.role is Role.TOOL}
    turns = []
    for interaction in chat.interactions:
        replies: list[Reply] = []
        for m in interaction.messages[1:]:
            if m.calls_tool:
                calls = [
                    Call(c, names[c.split("_")[1]], {"input": results[c]}) for c in m.tool_calls
                ]
                replies.append(ToolCalls(tuple(calls)))
            elif m.role is Role.ASSISTANT:
                replies.append(Text(m.content))
        turns.append(Turn(interaction.messages[0].content, tuple(replies)))
    return Scenario(
        "lesson3-tool-use",
        "lesson3-tools-k2",
        "lesson 3's tool chat (tool_use) with Context Window Length 2, Code Tools echoing the results",
        tuple(turns),
        system=chat.system_message.content if chat.system_message else None,
        window=2,
    )


def scenarios() -> dict[str, Scenario]:
    """Every recorded scenario, by name."""
    items = [
        Scenario("window-k5", "window-k5", "Simple Memory 1.3, k = 5: seven plain turns", plain(7)),
        Scenario(
            "window-k1",
            "window-k1",
            "Simple Memory 1.3, k = 1: three plain turns",
            plain(3),
            window=1,
        ),
        Scenario(
            "window-k0",
            "window-k0",
            "Simple Memory 1.3, k = 0: four plain turns",
            plain(4),
            window=0,
        ),
        marta(),
        Scenario(
            "failed-call",
            "window-k5",
            "a model error on the first call of turn 2 and on the second call of turn 3",
            (
                Turn("u1", (Text("a1"),)),
                Turn("u2 fails", (Failure(500, "The scripted model is down."),)),
                Turn(
                    "u3: 2+3?",
                    (ToolCalls.of(calc("call_f3", "2+3")), Failure(400, "Bad request, scripted.")),
                ),
                Turn("u4", (Text("a4"),)),
            ),
        ),
        Scenario(
            "empty-answer",
            "window-k5",
            "an answer with empty text in turn 2",
            (Turn("u1", (Text("a1"),)), Turn("u2", (Text(""),)), Turn("u3", (Text("a3"),))),
        ),
        Scenario(
            "one-tool-round",
            "window-k5",
            "one tool round, then a plain turn that loads it",
            (one_round("t1"), Turn("u2", (Text("a2"),))),
        ),
        Scenario(
            "two-tool-rounds",
            "window-k5",
            "a run with two tool rounds, then a plain turn that loads what was stored",
            (Turn("u1", (Text("a1"),)), two_rounds("t2"), Turn("u3", (Text("a3"),))),
        ),
        Scenario(
            "parallel-tools",
            "window-k5",
            "two tool calls in one model response, then a plain turn",
            (parallel("t1"), Turn("u2", (Text("a2"),))),
        ),
        Scenario(
            "orphans-k1",
            "window-k1",
            "k = 1 after tool turns: the window starts inside a tool exchange",
            (one_round("t1"), Turn("u2", (Text("a2"),)), parallel("t3"), Turn("u4", (Text("a4"),))),
            window=1,
        ),
        Scenario(
            "orphans-k2",
            "window-k2",
            "k = 2 across a parallel pair: the window can start between the pairs",
            (
                parallel("t1"),
                Turn("u2", (Text("a2"),)),
                parallel("t3"),
                one_round("t4"),
                Turn("u5", (Text("a5"),)),
            ),
            window=2,
        ),
        Scenario(
            "chat-completions",
            "chat-completions-k2",
            "the same tool turns with responsesApiEnabled off (/v1/chat/completions)",
            (one_round("t1"), two_rounds("t2"), parallel("t3"), Turn("u4", (Text("a4"),))),
            window=2,
        ),
        Scenario(
            "no-system",
            "no-system-k5",
            "AI Agent 3.1 with no System Message option",
            plain(2),
            system=None,
        ),
        Scenario(
            "agent-v22",
            "agent-v22-k5",
            "AI Agent typeVersion 2.2: one round, two rounds, parallel calls, then a plain turn",
            (one_round("t1"), two_rounds("t2"), parallel("t3"), Turn("u4", (Text("a4"),))),
            agent_version=2.2,
        ),
        Scenario(
            "agent-v31",
            "agent-v31-chat-k5",
            "AI Agent typeVersion 3.1 on the same turns as agent-v22",
            (one_round("t1"), two_rounds("t2"), parallel("t3"), Turn("u4", (Text("a4"),))),
        ),
        Scenario(
            "restart",
            "window-k5",
            "two turns, an n8n restart, a third turn: Simple Memory starts empty",
            (
                Turn("u1", (Text("a1"),)),
                Turn("u2", (Text("a2"),)),
                Turn("u3", (Text("a3"),), restart_before=True),
            ),
        ),
        Scenario(
            "simple-memory-v14",
            "window-k5-v14",
            "Simple Memory 1.4 with a session key defined below: as 1.3",
            (one_round("t1"), Turn("u2", (Text("a2"),))),
        ),
    ]
    items.append(lesson3_tool_use())
    return {s.name: s for s in items}
