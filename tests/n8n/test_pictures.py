"""The n8n pictures' plan and the committed PNGs (fast: no n8n needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.n8n.course_workflows import COURSE_WORKFLOWS
from verify.n8n.course_workflows import OUT as WORKFLOWS_OUT
from verify.n8n.model_server import ToolCalls
from verify.n8n.picture_plan import PICTURE_WORKFLOWS
from verify.n8n.picture_shots import EXECUTION_VIEWS
from verify.n8n.picture_subworkflow import TOOL_NAME
from verify.n8n.pictures import CHATS, OUT, SHOTS, Shot, Taken

FILES = {spec.file for spec in COURSE_WORKFLOWS}
PICTURE_ONLY = {w.spec.file for w in PICTURE_WORKFLOWS}


def test_every_shot_names_a_course_workflow_and_a_known_view() -> None:
    assert len({s.name for s in SHOTS}) == len(SHOTS)
    for shot in SHOTS:
        assert shot.workflow in FILES | PICTURE_ONLY
        assert shot.view in ("canvas", "node", *EXECUTION_VIEWS)
        assert shot.name.startswith(shot.workflow[: len("lessonN")])


def test_every_course_workflow_has_a_chat_and_every_pictured_execution_exists() -> None:
    chats = {c.workflow: c for c in CHATS}
    assert len(chats) == len(CHATS)
    assert FILES <= set(chats) <= FILES | PICTURE_ONLY
    for shot in SHOTS:
        if shot.view in EXECUTION_VIEWS:
            assert 1 <= shot.turn <= _executions(shot.workflow)


def _executions(workflow: str) -> int:
    """How many executions the chats give *workflow*: one a message (one more for a message
    sent alongside), or for a sub-workflow one a call of the tool that runs it."""
    called = {w.spec.file: w for w in PICTURE_WORKFLOWS}.get(workflow)
    if called is not None and called.called:
        callers = [w.spec.file for w in PICTURE_WORKFLOWS if w.calls == workflow]
        return sum(
            1
            for chat in CHATS
            if chat.workflow in callers
            for turn in chat.turns
            for reply in turn.replies
            if isinstance(reply, ToolCalls)
            for call in reply.calls
            if call.name == TOOL_NAME
        )
    chat = next(c for c in CHATS if c.workflow == workflow)
    return sum(1 + bool(t.alongside) for t in chat.turns)


def test_the_picture_only_workflows_are_no_learner_s_file() -> None:
    assert not PICTURE_ONLY & FILES
    assert not {f"{name}.json" for name in PICTURE_ONLY} & {p.name for p in WORKFLOWS_OUT.glob("*")}
    for workflow in PICTURE_WORKFLOWS:
        text = json.dumps(workflow.build())
        assert "__WM_" not in text and '"credentials"' not in text


def test_the_lock_picture_is_the_turned_away_run_of_a_double_send() -> None:
    shot = next(s for s in SHOTS if s.name == "lesson4_lock_one_moment")
    turns = next(c for c in CHATS if c.workflow == shot.workflow).turns
    assert turns[-1].alongside  # the last execution is the message sent alongside
    assert sum(1 + bool(t.alongside) for t in turns) == shot.turn
    assert turns[-1].replies and all(getattr(r, "delay", 0) > 2 for r in turns[-1].replies)


def test_lessons_1_to_4_each_have_a_canvas_and_a_memory_picture() -> None:
    for lesson in (1, 2, 3, 4):
        views = {s.view for s in SHOTS if s.name.startswith(f"lesson{lesson}_")}
        assert "canvas" in views or "node" in views
    assert {s.view for s in SHOTS} == {"canvas", "node", *EXECUTION_VIEWS}


@pytest.mark.parametrize("shot", SHOTS, ids=lambda s: s.name)
def test_the_committed_picture_is_a_small_png(shot: Shot) -> None:
    from PIL import Image

    path = OUT / shot.file
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size < 80_000, "reduce it (pictures.py's _shrink)"
    with Image.open(path) as image:
        assert image.mode == "P"  # 256 colours


def test_a_taken_picture_reports_what_it_lacks() -> None:
    shot = Shot("x", "lesson3_window", "node", shows=("Session ID",), hides=("4512",),
                values=(("contextWindowLength", "2"),), counts=(("Model", 2),))  # fmt: skip
    right = Taken(
        shot, Path("x.png"), "Session ID here, Model, Model", {"contextWindowLength": "2"}
    )
    assert right.problems() == []
    wrong = Taken(shot, Path("x.png"), "order 4512, Model", {"contextWindowLength": "5"})
    assert wrong.problems() == [
        "x: the page did not show 'Session ID'",
        "x: the page showed '4512'",
        "x: the page showed 'Model' 1 times, not 2",
        "x: field contextWindowLength held '5', not '2'",
    ]
