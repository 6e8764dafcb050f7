"""Lesson 2's self-check 3 reads a picture taken by ``verify/n8n/pictures.py``: the chat the
check book replays must be the chat that picture's workflow was sent."""

from __future__ import annotations

from verify.n8n.model_server import Text
from verify.n8n.pictures import CHATS, SHOTS
from windowmem_course.checks.lesson02_see import PICTURED_CHAT


def test_self_check_3_replays_the_chat_behind_its_picture():
    shot = next(s for s in SHOTS if s.file == "lesson3_model_input.png")
    sent = next(c for c in CHATS if c.workflow == shot.workflow)
    assert shot.turn == len(sent.turns) == len(PICTURED_CHAT)
    replies = [turn.replies for turn in sent.turns]
    assert all(len(r) == 1 and isinstance(r[0], Text) for r in replies)
    assert [(t.text, r[0].content) for t, r in zip(sent.turns, replies)] == list(PICTURED_CHAT)
    # the picture hides turn 1's order number: the case the check diagnoses
    assert "4512" in PICTURED_CHAT[0][0] and "4512" in shot.hides


def test_self_check_3_replays_the_pictured_workflows_system_message():
    from windowmem_course.checks.lesson02_see import PICTURED_SYSTEM
    from windowmem_course.checks.page import workflow_node

    agent = workflow_node("lesson3_window", "AI Agent")
    assert agent["parameters"]["options"]["systemMessage"] == PICTURED_SYSTEM
