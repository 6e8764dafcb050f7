"""The Workflow Inputs drawing: who fills each row, what the trigger received, what it refuses."""

import re

import pytest

from tests.conftest import load_script
from windowmem.calls.tool_scenario import load_tool_scenario
from windowmem.explorer.inputs_diagram import InputRow, ToolPanel, workflow_inputs_svg

ROWS = (
    InputRow("order_number", "={{ $fromAI('order_number') }}", True),
    InputRow("requested_by", "chat agent", False),
)


def _tags(svg: str) -> list[str]:
    return re.findall(r'text-anchor="middle" fill="#ffffff">(model|n8n|\?)<', svg)


def test_each_row_is_tagged_with_who_fills_it_in_order():
    svg = workflow_inputs_svg("t", [ToolPanel("tool", ROWS, (), "turn 1")])
    assert _tags(svg) == ["model", "n8n"]
    assert "Call n8n Workflow Tool · tool · Workflow Inputs" in svg
    assert "When Executed by Another Workflow, turn 1" in svg


def test_a_row_left_for_the_reader_is_tagged_with_a_question_mark():
    rows = (ROWS[0], InputRow("note", "={{ $json.x }}", None))
    assert _tags(workflow_inputs_svg("t", [ToolPanel("tool", rows, (), "t")])) == ["model", "?"]


def test_the_item_received_is_drawn_field_by_field_and_an_unknown_one_as_its_placeholder():
    known = workflow_inputs_svg("t", [ToolPanel("tool", ROWS, (("order_number", "#1"),), "t")])
    unknown = workflow_inputs_svg("t", [ToolPanel("tool", ROWS, (), "t", "? (your turn)")])
    assert "order_number: #1" in known and "? (your turn)" not in known
    assert "? (your turn)" in unknown and "order_number: " not in unknown


def test_a_long_parameter_is_cut_with_an_ellipsis_and_escaped():
    long = InputRow("x", "={{ " + "a" * 200 + " }}", True)
    svg = workflow_inputs_svg("t", [ToolPanel("tool", (long,), (), "t")])
    assert "a" * 200 not in svg and "…" in svg
    escaped = workflow_inputs_svg("t", [ToolPanel("tool", (ROWS[0],), (), "t")])
    assert "$fromAI(&#x27;order_number&#x27;)" in escaped


def test_a_drawing_without_a_tool_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="pass a ToolPanel per tool"):
        workflow_inputs_svg("t", [])


def test_lesson_2s_drawing_tags_track_order_s_rows_and_leaves_change_address_s_to_the_reader():
    svg = load_script("draw_diagrams").lesson2_inputs()
    scenario = load_tool_scenario("tutienda_tools")
    track_order, change_address = scenario.tools
    expected = [
        "model" if "$fromAI(" in parameter else "n8n" for _, parameter in track_order.inputs
    ] + ["?" for _ in change_address.inputs]
    assert _tags(svg) == expected == ["model", "n8n", "?", "?", "?"]
    assert [t.name for t in scenario.tools] == ["track_order", "change_address"]
    assert f"session_id: {scenario.session_id}" in svg and "order_number: #6023" in svg
