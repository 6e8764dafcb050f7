"""The n8n pictures' plan and the committed PNGs (fast: no n8n needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.n8n.course_workflows import COURSE_WORKFLOWS
from verify.n8n.pictures import CHATS, OUT, SHOTS, Shot, Taken

FILES = {spec.file for spec in COURSE_WORKFLOWS}


def test_every_shot_names_a_course_workflow_and_a_known_view() -> None:
    assert len({s.name for s in SHOTS}) == len(SHOTS)
    for shot in SHOTS:
        assert shot.workflow in FILES
        assert shot.view in ("canvas", "node", "model-input")
        assert shot.name.startswith(shot.workflow[: len("lessonN")])


def test_every_workflow_has_a_chat_and_model_input_turns_exist() -> None:
    chats = {c.workflow: c for c in CHATS}
    assert set(chats) == FILES
    for shot in SHOTS:
        if shot.view == "model-input":
            assert 1 <= shot.turn <= len(chats[shot.workflow].turns)


def test_lessons_1_to_4_each_have_a_canvas_and_a_memory_picture() -> None:
    for lesson in (1, 2, 3, 4):
        views = {s.view for s in SHOTS if s.name.startswith(f"lesson{lesson}_")}
        assert "canvas" in views or "node" in views
    assert {s.view for s in SHOTS} == {"canvas", "node", "model-input"}


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
                values=(("contextWindowLength", "2"),))  # fmt: skip
    right = Taken(shot, Path("x.png"), "Session ID here", {"contextWindowLength": "2"})
    assert right.problems() == []
    wrong = Taken(shot, Path("x.png"), "order 4512", {"contextWindowLength": "5"})
    assert wrong.problems() == [
        "x: the page did not show 'Session ID'",
        "x: the page showed '4512'",
        "x: field contextWindowLength held '5', not '2'",
    ]
