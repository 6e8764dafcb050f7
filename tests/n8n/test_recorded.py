"""windowmem against the committed recordings of n8n 2.41.1 (fast: no n8n needed).

Each fixture in ``windowmem/data/n8n_recorded`` is what a running n8n sent the model and
stored, recorded by ``make record-n8n``. windowmem's prediction of the same turns must
match it request by request and store by store.
"""

from __future__ import annotations

import json

import pytest

from verify.n8n.predict import calculate, conversation, differences, tool_result
from windowmem.n8n_recorded import (
    RECORDED_N8N_VERSION,
    load_recording,
    recording_names,
    request_messages,
    stored_messages,
)

NAMES = recording_names()


def _data(name: str) -> dict[str, object]:
    from windowmem import n8n_recorded

    return json.loads((n8n_recorded._folder() / f"{name}.json").read_text(encoding="utf-8"))


def test_the_recordings_cover_the_issue_scenarios() -> None:
    wanted = {
        "window-k5",
        "window-k1",
        "window-k0",
        "marta",
        "failed-call",
        "empty-answer",
        "one-tool-round",
        "two-tool-rounds",
        "parallel-tools",
        "orphans-k1",
        "orphans-k2",
        "agent-v22",
        "agent-v31",
        "restart",
    }
    assert wanted <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_windowmem_predicts_what_n8n_sent_and_stored(name: str) -> None:
    assert differences(_data(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_a_recording_loads_as_typed_runs(name: str) -> None:
    recording = load_recording(name)
    assert recording.n8n_version == RECORDED_N8N_VERSION
    assert recording.command == "make record-n8n"
    assert recording.type_versions["@n8n/n8n-nodes-langchain.lmChatOpenAi"] == 1.3
    for run in recording.runs:
        assert all(type(m) is tuple for m in run.requests)
        assert run.stored is not None


def test_the_conversation_reads_failures_as_runs_that_stop() -> None:
    messages, sessions = conversation(_data("failed-call"))
    assert [m.role.value for m in messages][:4] == ["system", "user", "assistant", "user"]
    assert sessions == ["a#0"] * 4


def test_the_calculator_results_are_n8n_s() -> None:
    assert calculate("6*7") == "42"
    assert tool_result("2+3", 3.1) == '[{"response":"5"}]'
    assert tool_result("2+3", 2.2) == "5"


def test_request_messages_read_both_apis() -> None:
    responses = {
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "2+3?"}]},
            {"type": "function_call", "call_id": "c1", "name": "Calculator", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "Calculator", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "5"},
            {"type": "function_call_output", "call_id": "c2", "output": "6"},
        ]
    }
    got = request_messages(responses)
    assert [m.tool_calls for m in got] == [(), ("c1", "c2"), (), ()]
    assert [m.tool_call_id for m in got] == [None, None, "c1", "c2"]


def test_stored_messages_refuse_an_unknown_class() -> None:
    with pytest.raises(Exception, match="unknown LangChain message class"):
        stored_messages([{"id": ["x", "FunctionMessage"], "kwargs": {"content": ""}}])


@pytest.mark.parametrize("name", NAMES)
def test_every_recorded_call_is_beside_a_prediction_that_agrees(name: str) -> None:
    from windowmem.calls.recorded_runs import recorded_beside_predicted

    calls = recorded_beside_predicted(name)
    assert sum(len(run.request_bodies) for run in load_recording(name).runs) == len(calls)
    assert all(call.agrees for call in calls)


def test_lesson_3_turn_4_at_window_2_is_what_n8n_sent() -> None:
    """Lesson 3's tool chat, k = 2, turn 4: n8n 2.41.1 sends the second stock call, its result, the answer."""
    from windowmem.calls.recorded_runs import recorded_beside_predicted

    turn_4 = [c for c in recorded_beside_predicted("lesson3-tool-use") if c.turn == 4]
    assert len(turn_4) == 1 and turn_4[0].agrees
    sent = turn_4[0].recorded
    assert [m.role.value for m in sent] == ["system", "assistant", "tool", "assistant", "user"]
    assert sent[1].tool_calls == ("call_stock_3b",) and sent[2].tool_call_id == "call_stock_3b"
