"""Tool scenarios: the shipped one loads, and a scenario refuses calls to tools it lacks."""

from __future__ import annotations

import pytest

from windowmem.calls.tool_scenario import (
    load_tool_scenario,
    session_per_message,
    tool_scenario_from_data,
    tool_scenario_names,
)
from windowmem.errors import ConversationFormatError, WindowMemError


def test_the_shipped_scenario():
    assert "tutienda_tools" in tool_scenario_names()
    scenario = load_tool_scenario("tutienda_tools")
    assert [t.name for t in scenario.tools] == ["track_order", "change_address"]
    conversation_calls = {c for m in scenario.conversation.messages for c in m.tool_calls}
    assert conversation_calls == set(scenario.calls)  # every recorded call has its arguments
    assert scenario.trigger_item("hi") == {
        "action": "sendMessage",
        "sessionId": scenario.session_id,
        "chatInput": "hi",
    }


def test_bad_scenarios_are_explained():
    with pytest.raises(WindowMemError, match="no tool scenario"):
        load_tool_scenario("nope")
    with pytest.raises(ConversationFormatError, match="'conversation'"):
        tool_scenario_from_data({"tools": []})
    data = {
        "conversation": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "a", "workflow_id": "wf"}],
        "calls": {"c1": {"tool": "b"}},
    }
    with pytest.raises(WindowMemError, match="does not have"):
        tool_scenario_from_data(data)
    scenario = tool_scenario_from_data({**data, "calls": {}})
    with pytest.raises(WindowMemError, match="no arguments recorded"):
        scenario.deliveries("c9")
    with pytest.raises(WindowMemError, match="no tool 'z'"):
        scenario.tool("z")


def test_session_per_message_differs_every_turn():
    ids = session_per_message("s", 12)
    assert len(set(ids)) == 12
