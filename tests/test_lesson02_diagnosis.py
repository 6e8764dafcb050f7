"""Lesson 2's pictures of real n8n runs, taken by ``verify/n8n/pictures.py``: self-check 2
reads one, so the chat the check book replays must be the chat that picture's workflow was
sent; section 3 and Going further's tool turns describe others, so what they say must be what
the shots hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

from verify.n8n.model_server import Text, ToolCalls
from verify.n8n.pictures import CHATS, SHOTS
from windowmem_course.checks.lesson02_see import PICTURED_CHAT


def test_self_check_2_replays_the_chat_behind_its_picture():
    shot = next(s for s in SHOTS if s.file == "lesson3_model_input.png")
    sent = next(c for c in CHATS if c.workflow == shot.workflow)
    assert shot.turn == len(sent.turns) == len(PICTURED_CHAT)
    replies = [turn.replies for turn in sent.turns]
    assert all(len(r) == 1 and isinstance(r[0], Text) for r in replies)
    assert [(t.text, r[0].content) for t, r in zip(sent.turns, replies)] == list(PICTURED_CHAT)
    # the picture hides turn 1's order number: the case the check diagnoses
    assert "4512" in PICTURED_CHAT[0][0] and "4512" in shot.hides


def test_self_check_2_replays_the_pictured_workflows_system_message():
    from windowmem_course.checks.lesson02_see import PICTURED_SYSTEM
    from windowmem_course.checks.page import workflow_node

    agent = workflow_node("lesson3_window", "AI Agent")
    assert agent["parameters"]["options"]["systemMessage"] == PICTURED_SYSTEM


def _lesson_text() -> str:
    notebook = Path(__file__).resolve().parents[1] / "course" / "02_with_and_without_memory.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", markdown)


def test_the_tool_turns_log_picture_is_one_run_with_two_calculator_steps():
    shot = next(s for s in SHOTS if s.file == "lesson2_two_tool_steps.png")
    sent = next(c for c in CHATS if c.workflow == shot.workflow)
    assert shot.workflow == "lesson2_tool_turns" and shot.view == "logs"
    turn = sent.turns[shot.turn - 1]
    steps = [r for r in turn.replies if isinstance(r, ToolCalls)]
    assert len(steps) == 2 and all(len(s.calls) == 1 for s in steps)  # two steps, not parallel
    counts = dict(shot.counts)
    assert counts["OpenAI Chat Model"] == 3 and counts["Calculator"] == 2
    assert counts["Simple Memory"] == 3
    text = _lesson_text()
    assert f'On turn {shot.turn} of this lesson\'s workflow, "{turn.text}"' in text
    assert "three *OpenAI Chat Model* calls, a *Calculator* step between each two" in text


def test_section_3s_picture_shows_the_order_the_model_filled():
    shot = next(s for s in SHOTS if s.file == "lesson2_subworkflow_inputs.png")
    assert shot.view == "execution" and "View parent execution" in shot.shows
    caller = next(
        c
        for c in CHATS
        if c.turns
        and any(
            isinstance(r, ToolCalls)
            and any(call.arguments == {"order": "#6023"} for call in r.calls)
            for r in c.turns[0].replies
        )
    )
    assert {"order", "#6023"} <= set(shot.shows) and caller.workflow == "lesson2_workflow_tool"
    assert "a small test tool's row `order` holds #6023." in _lesson_text()


def test_the_tool_turns_spot_it_reads_what_the_turn_2_picture_shows():
    """Going further's tool-turn fix reads n8n's turn-2 model input: turn 1, one Calculator step, came back
    as 4 messages (question, tool call, tool result, answer), each named as the shot shows it."""
    shot = next(s for s in SHOTS if s.file == "lesson2_model_input.png")
    sent = next(c for c in CHATS if c.workflow == shot.workflow)
    assert shot.workflow == "lesson2_tool_turns" and shot.turn == 2
    turn_1 = sent.turns[0]
    steps = [r for r in turn_1.replies if isinstance(r, ToolCalls)]
    assert len(steps) == 1 and len(steps[0].calls) == 1  # one step: stored as 4 messages
    assert {"Tool: Calculator", "AI: 84."} <= set(shot.shows)
    text = _lesson_text()
    # Round 28: the picture sits in section 2's n8n step; Going further's fix points back to it.
    assert f'as in section 2\'s picture of turn 2, "{sent.turns[1].text}".' in text
    assert f'Turn 1, "{turn_1.text}", had used the Calculator once.'.replace("*", "\\*") in text
    assert "It came back as 4 messages: its question," in text
    assert "`Tool: Calculator` with the result `84`, and the answer `AI: 84.`" in text
