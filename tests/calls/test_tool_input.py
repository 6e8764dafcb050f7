"""What a Call n8n Workflow Tool's sub-workflow receives (toolWorkflow 2-2.2, nodes-langchain 2.41.1).

Vectors from the fact sheet, section B3: the model's arguments are the ``$fromAI()``
expressions; the item is the evaluated Workflow Inputs mapping, or ``{query}`` with no
mapping; nothing of the agent's memory goes along; a Simple Memory in the sub-workflow
keys its buffer by the sub-workflow's id.
"""

from __future__ import annotations

import json

import pytest

from windowmem.calls.tool_input import (
    FromAI,
    WorkflowTool,
    evaluate,
    from_ai_arguments,
    js_json,
    tool_result_text,
)
from windowmem.errors import WindowMemError
from windowmem.messages import user
from windowmem.policies import ManualClock, SimpleMemoryStore

CHAT = "When chat message received"
NODES = {CHAT: {"action": "sendMessage", "sessionId": "s-42", "chatInput": "Where is #6023?"}}

TRACK = WorkflowTool.of(
    "track_order",
    "wf-track",
    {
        "order_number": "={{ $fromAI('order_number', 'The order to track', 'string') }}",
        "session_id": f"={{{{ $('{CHAT}').item.json.sessionId }}}}",
        "channel": "web",
    },
)


class TestArguments:
    def test_only_from_ai_expressions_become_arguments(self):
        assert TRACK.arguments == (FromAI("order_number", "The order to track", "string"),)

    def test_quotes_defaults_and_repeats(self):
        assert from_ai_arguments('={{ $fromAI("city") }}') == (FromAI("city", "", "string"),)
        assert from_ai_arguments("={{ $fromAI(`n`, `how many`) }}") == (FromAI("n", "how many"),)
        tool = WorkflowTool.of("t", "wf", {"a": "={{ $fromAI('k') }}", "b": "={{ $fromAI('k') }}"})
        assert [a.key for a in tool.arguments] == ["k"]

    def test_no_from_ai_means_one_query_text(self):
        assert WorkflowTool.of("faq", "wf-faq").arguments == ()
        assert WorkflowTool.of("faq", "wf-faq").item("hours?") == {"query": "hours?"}
        assert WorkflowTool.of("faq", "wf-faq").item({"q": 1}) == {"q": 1}

    @pytest.mark.parametrize(
        "expression, message",
        [
            ("={{ $fromAI('') }}", "key is empty"),
            ("={{ $fromAI('a', 'b', 'string', 'x') }}", "default value"),
        ],
    )
    def test_bad_from_ai_is_explained(self, expression, message):
        with pytest.raises(WindowMemError, match=message):
            from_ai_arguments(expression)


class TestItem:
    def test_the_item_is_the_mapping_evaluated_and_nothing_else(self):
        item = TRACK.item({"order_number": "#6023"}, NODES)
        assert item == {"order_number": "#6023", "session_id": "s-42", "channel": "web"}
        assert set(item) == {field for field, _ in TRACK.inputs}

    def test_first_and_item_read_the_same_field_and_types_are_kept(self):
        assert evaluate(f"={{{{ $('{CHAT}').first().json.sessionId }}}}", {}, NODES) == "s-42"
        assert evaluate("={{ $fromAI('n', '', 'number') }}", {"n": 3}, {}) == 3
        assert evaluate("=n={{ $fromAI('n') }}", {"n": {"a": 1.0}}, {}) == 'n={"a":1}'

    def test_fixed_only_mapping_ignores_the_query(self):
        tool = WorkflowTool.of(
            "who", "wf", {"session_id": f"={{{{ $('{CHAT}').item.json.sessionId }}}}"}
        )
        assert tool.arguments == () and tool.item("anything", NODES) == {"session_id": "s-42"}

    @pytest.mark.parametrize(
        "arguments, nodes, message",
        [
            ({}, NODES, "no value for \\$fromAI key 'order_number'"),
            ({"order_number": "#1", "memory": "x"}, NODES, "no \\$fromAI key 'memory'"),
            ({"order_number": "#1"}, {}, "which has no output here"),
            ("#6023", NODES, "as a dict"),
        ],
    )
    def test_mistakes_are_explained(self, arguments, nodes, message):
        with pytest.raises(WindowMemError, match=message):
            TRACK.item(arguments, nodes)

    def test_unknown_expressions_are_refused_not_guessed(self):
        with pytest.raises(WindowMemError, match="understands"):
            evaluate("={{ $json.chat_history }}", {}, NODES)
        with pytest.raises(WindowMemError, match="alone"):
            evaluate("={{ $fromAI('a').toUpperCase() }}", {"a": "x"}, {})

    def test_a_tool_needs_a_name_and_a_workflow(self):
        with pytest.raises(WindowMemError, match="name"):
            WorkflowTool.of("", "wf")
        with pytest.raises(WindowMemError, match="id of the workflow"):
            WorkflowTool.of("t", "")


def test_result_text_is_json_stringify():
    assert tool_result_text([{"r": 1}]) == '[{"r":1}]'  # the fact sheet's stored ToolMessage
    items = [{"city": "Medellín", "eta": 2.0, "ok": True, "x": None, "y": 0.5}]
    assert tool_result_text(items) == '[{"city":"Medellín","eta":2,"ok":true,"x":null,"y":0.5}]'
    assert json.loads(tool_result_text(items))[0]["city"] == "Medellín"
    assert js_json(float("nan")) == "null"
    with pytest.raises(WindowMemError, match="list of items"):
        tool_result_text({"r": 1})


def test_a_simple_memory_in_the_sub_workflow_finds_an_empty_buffer():
    store = SimpleMemoryStore(ManualClock())
    store.memory("wf-agent", "s-42").add(user("Hi, I'm Marta, my order is #6023."))
    item = TRACK.item({"order_number": "#6023"}, NODES)
    inside = store.memory(TRACK.workflow_id, item["session_id"])
    assert len(inside) == 0
    assert store.keys() == ("wf-agent__s-42", "wf-track__s-42")
