"""The running n8n 2.41.1 is the judge: every scenario, and random conversations, through it.

These tests start n8n (installed by ``verify/n8n/install.sh`` when absent) and the
recording model, and fail, saying why, on a machine that cannot: they are never skipped.
``make verify-n8n`` runs them; ``make test`` runs them with everything else. All of them
live in this one module, so ``pytest -n 2 --dist loadscope`` starts one n8n, not two.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from verify.n8n.build_workflows import DEFAULT_SYSTEM, MANAGER_MODES
from verify.n8n.harness import Harness
from verify.n8n.model_server import Call, Failure, Reply, Text, ToolCalls
from verify.n8n.predict import differences
from verify.n8n.record import run_scenario
from verify.n8n.scenarios import Scenario, Turn, one_round, scenarios
from windowmem.messages import Message, assistant, user
from windowmem.n8n_recorded import (
    load_recording,
    recording_names,
    request_messages,
    stored_messages,
)
from windowmem.policies.n8n import ManualClock, N8nSimpleMemory, SimpleMemoryStore, n8n_session_id
from windowmem.policies.n8n import memory_manager as manager
from windowmem.policies.n8n.memory_manager import ManagerMessage, stored_history
from windowmem.policies.n8n.node_errors import N8nNodeError
from windowmem.storage.langchain_json import flattened, from_flattened, from_nested, nested
from windowmem.storage.n8n_postgres_history import COLUMNS as POSTGRES_COLUMNS

pytestmark = [pytest.mark.n8n, pytest.mark.slow]

#: Random conversations per run, at least 30 (issue 21); their seed is PROPERTY_SETTINGS'.
RANDOM_CONVERSATIONS = 30
#: The workflows random conversations run on: (Context Window Length, AI Agent typeVersion).
RANDOM_WORKFLOWS = {
    "window-k0": (0, 3.1),
    "window-k1": (1, 3.1),
    "window-k2": (2, 3.1),
    "window-k5": (5, 3.1),
    "window-k5-v14": (5, 3.1),
    "chat-completions-k2": (2, 3.1),
    "agent-v22-k5": (5, 2.2),
}
#: The kinds of turn a random conversation mixes (text twice: plain turns are the most common).
TURN_KINDS = (
    "text", "text", "one", "two", "three", "parallel", "parallel3", "parallel-then-one",
    "fail", "fail-after-tool", "empty",
)  # fmt: skip


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness.open() as running:
        print(f"\nn8n harness: {', '.join(f'{k} {v:.1f} s' for k, v in running.timings.items())}")
        yield running


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_n8n_does_what_windowmem_predicts(harness: Harness, name: str) -> None:
    live = run_scenario(harness, scenarios()[name])
    assert differences(live) == []
    if name in recording_names():  # and the committed fixture is still what n8n does
        committed = load_recording(name)
        assert [tuple(map(request_messages, r["requests"])) for r in live["runs"]] == [
            run.requests for run in committed.runs
        ]
        assert [stored_messages(r["memory_after"]) for r in live["runs"]] == [
            run.stored for run in committed.runs
        ]


def _calls(draw: st.DrawFn, tag: str, count: int) -> ToolCalls:
    calls = []
    for index in range(count):
        a, b = draw(st.integers(1, 9)), draw(st.integers(1, 9))
        op = draw(st.sampled_from("+*-"))
        calls.append(Call(f"call_{tag}_{index}", "Calculator", {"input": f"{a}{op}{b}"}))
    return ToolCalls(tuple(calls))


@st.composite
def random_turn(draw: st.DrawFn, number: int) -> Turn:
    kind = draw(st.sampled_from(TURN_KINDS))
    tag = f"r{number}"
    replies: list[Reply]
    if kind == "text":
        replies = [Text(f"a{number}")]
    elif kind == "one":
        replies = [_calls(draw, tag, 1), Text(f"a{number}")]
    elif kind == "two":
        replies = [_calls(draw, tag + "x", 1), _calls(draw, tag + "y", 1), Text(f"a{number}")]
    elif kind == "three":
        replies = [_calls(draw, tag + f"r{r}", 1) for r in range(3)] + [Text(f"a{number}")]
    elif kind == "parallel-then-one":
        replies = [_calls(draw, tag + "p", 2), _calls(draw, tag + "q", 1), Text(f"a{number}")]
    elif kind == "parallel":
        replies = [_calls(draw, tag, 2), Text(f"a{number}")]
    elif kind == "parallel3":
        replies = [_calls(draw, tag, 3), Text(f"a{number}")]
    elif kind == "fail":
        replies = [Failure(500, "scripted failure")]
    elif kind == "fail-after-tool":
        replies = [_calls(draw, tag, 1), Failure(400, "scripted failure")]
    else:
        replies = [Text("")]
    return Turn(f"u{number} ({kind})", tuple(replies))


@st.composite
def random_scenario(draw: st.DrawFn) -> Scenario:
    workflow = draw(st.sampled_from(sorted(RANDOM_WORKFLOWS)))
    count = draw(st.integers(1, 6))
    turns = tuple(draw(random_turn(n)) for n in range(1, count + 1))
    window, version = RANDOM_WORKFLOWS[workflow]
    return Scenario(
        "random", workflow, "a random conversation", turns, window=window, agent_version=version
    )


@hypothesis_settings(parent=PROPERTY_SETTINGS, max_examples=RANDOM_CONVERSATIONS)
@given(scenario=random_scenario())
def test_random_conversations_agree_with_windowmem(harness: Harness, scenario: Scenario) -> None:
    assert differences(run_scenario(harness, scenario)) == []


# --- the nodes around the agent ---------------------------------------------------------

SYSTEM = {"system": DEFAULT_SYSTEM}


def _stored(harness: Harness, workflow: str, session: str) -> tuple[Message, ...]:
    return stored_messages(harness.memory(workflow, session))


def _node_error(error: N8nNodeError) -> tuple[str, str]:
    return error.text.message, error.text.description


@pytest.mark.parametrize(
    ("workflow", "session", "source"),
    [
        ("session-from-input", "ignored", "fromInput"),  # no Chat Trigger: no sessionId field
        ("window-k5", ..., "customKey"),  # the Key expression finds nothing
        ("window-k5", "", "customKey"),
        ("window-k5", {"a": 1}, "customKey"),
    ],
)
def test_session_id_errors_are_windowmem_s(
    harness: Harness, workflow: str, session: object, source: str
) -> None:
    value = None if session is ... or workflow == "session-from-input" else session
    with pytest.raises(N8nNodeError) as predicted:
        n8n_session_id(value, source)  # type: ignore[arg-type]
    run = harness.run(workflow, session, "hi", [Text("never sent")], **SYSTEM)
    assert run.status == 500 and run.requests == ()  # the memory fails before any model call
    message, description = _node_error(predicted.value)
    # The agent fails with the memory's message as its description ...
    assert harness.last_error() == ("Error in sub-node Simple Memory", message)
    # ... and the memory node's own run holds n8n's message and advice, as windowmem has them.
    assert harness.last_error("Simple Memory") == (message, description)


def test_a_number_and_its_text_share_a_buffer(harness: Harness) -> None:
    assert n8n_session_id(4242) == n8n_session_id("4242")
    harness.run("window-k5", 4242, "hi", [Text("hello")], **SYSTEM)
    assert [m.content for m in _stored(harness, "window-k5", "4242")] == ["hi", "hello"]


def test_the_chat_trigger_defaults(harness: Harness) -> None:
    """Chat Trigger 1.4 + AI Agent 3.1 + Simple Memory 1.4, every option at its default."""
    turns = [("Hi, I'm Marta", "Hi Marta"), ("Who am I?", "You are Marta.")]
    recording: dict[str, object] = {
        "scenario": "chat-trigger",
        "agent_version": 3.1,
        "system": None,
    }
    recording["window"] = N8nSimpleMemory.default_size
    runs = []
    for text, answer in turns:
        run = harness.chat("chat-trigger", "chat-1", text, [Text(answer)])
        assert run.status == 200 and run.body == {"output": answer}
        assert [r.path for r in run.requests] == ["/v1/responses"]
        assert not run.requests[0].streamed
        runs.append(
            {
                "session": "chat-1",
                "user_input": text,
                "replies": [{"text": answer}],
                "status": run.status,
                "output": run.output,
                "requests": [r.body for r in run.requests],
                "memory_after": harness.memory("chat-trigger", "chat-1"),
            }
        )
    recording["runs"] = runs
    assert differences(recording) == []


def test_the_memory_manager_modes(harness: Harness) -> None:
    session = "manager-1"
    harness.run("manager", session, "u1", [Text("a1")], **SYSTEM)
    harness.run(
        "manager",
        session,
        "t2: 2+3?",
        [ToolCalls.of(Call("call_m2", "Calculator", {"input": "2+3"})), Text("It is 5.")],
        **SYSTEM,
    )
    history = stored_history(_stored(harness, "manager", session))
    simple = manager.load(history, simplify_output=True)
    assert harness.manager("manager", session, "memory-simple") == [
        {"messages": list(simple.messages), "messagesCount": simple.messages_count}
    ]
    full = harness.manager("manager", session, "memory")
    assert full[0]["messagesCount"] == manager.load(history, simplify_output=False).messages_count
    rows = [
        ManagerMessage(v["message"], v["type"])
        for v in MANAGER_MODES["insert"]["messages"]["messageValues"]
    ]
    for mode, expected in (
        ("insert", manager.insert(history, rows)),
        ("delete-last", manager.delete(manager.insert(history, rows), "lastN", 2)),
        (
            "override",
            manager.insert((), [ManagerMessage("Only this one remains.", "user")], "override"),
        ),
    ):
        harness.manager("manager", session, mode)
        assert _stored(harness, "manager", session) == manager.model_history(expected), mode


def test_postgres_chat_memory_rows_are_lesson_4_s_layout(harness: Harness) -> None:
    scenario = Scenario(
        "postgres",
        "postgres-k2",
        "Postgres Chat Memory 1.3, k = 2",
        (Turn("u1", (Text("a1"),)), one_round("t2"), Turn("u3", (Text("a3"),))),
        window=2,
    )
    live = run_scenario(harness, scenario)
    assert differences(live) == []
    columns = harness.postgres_columns()
    assert [(name, nullable) for name, _, nullable in columns] == [
        (name, "NO") for name, _ in POSTGRES_COLUMNS
    ]
    assert [kind for _, kind, _ in columns] == ["integer", "character varying", "jsonb"]
    session = next(s for s in _sessions(harness, "postgres"))
    rows = harness.postgres_rows(session)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    stored = stored_messages(live["runs"][-1]["memory_after"])
    assert tuple(from_flattened(r[2]) for r in rows) == stored
    for (_, _, message), mine in zip(rows, stored):
        assert set(flattened(mine)) <= set(message)  # windowmem writes n8n's keys


def test_redis_chat_memory_list_is_lesson_4_s_layout(harness: Harness) -> None:
    scenario = Scenario(
        "redis",
        "redis-k2",
        "Redis Chat Memory 1.5, k = 2",
        (Turn("u1", (Text("a1"),)), one_round("t2"), Turn("u3", (Text("a3"),))),
        window=2,
    )
    live = run_scenario(harness, scenario)
    assert differences(live) == []
    session = next(s for s in _sessions(harness, "redis"))
    items = harness.redis_list(session)  # newest first: LPUSH
    stored = stored_messages(live["runs"][-1]["memory_after"])
    assert tuple(from_nested(i) for i in reversed(items)) == stored
    assert harness.redis_ttl(session) == -1  # Session Time To Live 0: no expiry
    for item, mine in zip(reversed(items), stored):
        assert set(nested(mine)["data"]) <= set(json.loads(item)["data"])


def _sessions(harness: Harness, scenario: str) -> list[str]:
    """The session ids run_scenario used last for *scenario* (it records them on the harness)."""
    return [s for s in harness.sessions if s.startswith(f"{scenario}-")][-1:]


def test_agent_2_2_refuses_the_responses_api(harness: Harness) -> None:
    run = harness.run("agent-v22-responses", "v22", "hi", [Text("never sent")], **SYSTEM)
    assert run.status == 500 and run.requests == ()
    assert harness.last_error()[0] == (
        "This model is not supported in 2.2 version of the Agent node. "
        "Please upgrade the Agent node to the latest version."
    )


def test_a_live_window_change_keeps_an_existing_session_s_window(harness: Harness) -> None:
    workflow = "live-window"
    store = SimpleMemoryStore(ManualClock())
    wf = harness.workflow_id(workflow)
    old_k, new_k = 3, 1
    for text in ("u1", "u2"):
        harness.run(workflow, "old", text, [Text(text.replace("u", "a"))], **SYSTEM)
        store.memory(wf, "old", context_window_length=old_k).add(
            user(text), assistant(text.replace("u", "a"))
        )
    harness.rest().set_parameter(wf, "Simple Memory", "contextWindowLength", new_k)
    try:
        run = harness.run(workflow, "old", "u3", [Text("a3")], **SYSTEM)
        predicted = store.memory(wf, "old", context_window_length=new_k).load()
        assert request_messages(run.requests[0].body)[1:-1] == predicted  # still k = 3
        for n in (1, 2):
            harness.run(workflow, "new", f"n{n}", [Text(f"b{n}")], **SYSTEM)
            store.memory(wf, "new", context_window_length=new_k).add(
                user(f"n{n}"), assistant(f"b{n}")
            )
        run = harness.run(workflow, "new", "n3", [Text("b3")], **SYSTEM)
        predicted = store.memory(wf, "new", context_window_length=new_k).load()
        assert request_messages(run.requests[0].body)[1:-1] == predicted  # k = 1
        assert len(predicted) == 2
    finally:
        harness.rest().set_parameter(wf, "Simple Memory", "contextWindowLength", old_k)
