"""Lessons 1 to 4's workflows in a running n8n 2.41.1, and the pictures made from it.

One harness for the module (``pytest --dist loadscope`` keeps it on one worker): every
course workflow is imported through the REST API and published, the pictures' chats run
through them with the recording model, and every picture is made again in a temporary
folder. Marked ``n8n``: it fails, saying why, where n8n cannot run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import event_loop
from verify.n8n.course_workflows import COURSE_WORKFLOWS, ONE_MOMENT, SORRY
from verify.n8n.harness import Harness
from verify.n8n.model_server import Failure, Text
from verify.n8n.picture_plan import NO_SESSION_ID, PICTURE_WORKFLOWS
from verify.n8n.pictures import CHATS, SHOTS, Pictures, make_pictures

pytestmark = [pytest.mark.n8n, pytest.mark.slow]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Harness, Pictures]]:
    folder = tmp_path_factory.mktemp("n8n-pictures")
    with Harness.open() as harness:
        # the browser tests' session-long Playwright may hold this worker's main thread's loop
        yield harness, event_loop.in_own_thread(make_pictures, harness, folder)


def _texts(request_body: dict[str, object]) -> list[str]:
    """The message texts of one Responses API request, in order (tool steps as their kind)."""
    out = []
    for item in request_body["input"]:  # type: ignore[attr-defined]
        out.append(item.get("content") if item.get("type") == "message" else item["type"])
    return out


def test_every_course_workflow_publishes_and_answers(made: tuple[Harness, Pictures]) -> None:
    _, pictures = made
    assert set(pictures.live) == {spec.file for spec in COURSE_WORKFLOWS} | {
        w.spec.file for w in PICTURE_WORKFLOWS
    }
    for conversation in CHATS:
        if conversation.workflow == NO_SESSION_ID:
            continue  # test_a_webhook_on_the_chat_trigger_s_session_id_fails
        runs = pictures.runs[conversation.workflow]
        wanted = []
        for turn in conversation.turns:
            wanted.append((200, next(x.content for x in turn.replies if isinstance(x, Text))))
            if turn.alongside:  # turned away by the lock
                wanted.append((200, ONE_MOMENT))
        assert [(r.status, r.output) for r in runs] == wanted


def test_a_webhook_on_the_chat_trigger_s_session_id_fails(made: tuple[Harness, Pictures]) -> None:
    """Simple Memory on *Connected Chat Trigger Node* behind a Webhook: the run fails before
    any model call (lesson 1's picture of the execution)."""
    _, pictures = made
    [run] = pictures.runs[NO_SESSION_ID]
    assert run.status == 500 and run.requests == ()
    assert run.body == {"message": "Error in workflow"}


def test_one_question_with_two_tool_steps_calls_the_model_three_times(
    made: tuple[Harness, Pictures],
) -> None:
    _, pictures = made
    third = pictures.runs["lesson2_tool_turns"][2]
    assert len(third.requests) == 3
    steps = [_texts(r.body)[-1] for r in third.requests]
    assert steps == ["Now times 3, minus 7?", "function_call_output", "function_call_output"]


def test_lesson_3_s_window_sends_the_last_two_interactions(made: tuple[Harness, Pictures]) -> None:
    _, pictures = made
    chat = next(c for c in CHATS if c.workflow == "lesson3_window")
    last = pictures.runs["lesson3_window"][-1].requests[-1].body
    k = pictures.live["lesson3_window"].memory["parameters"]["contextWindowLength"]
    kept = chat.turns[-1 - k : -1]
    expected = [
        pictures.live["lesson3_window"].node("AI Agent")["parameters"]["options"]["systemMessage"]
    ]
    for turn in kept:
        expected += [turn.text, turn.replies[-1].content]  # type: ignore[union-attr]
    assert _texts(last) == [*expected, chat.turns[-1].text]
    assert "4512" not in json.dumps(last)


def test_lesson_2_s_second_call_carries_the_first_turn_s_tool_step(
    made: tuple[Harness, Pictures],
) -> None:
    _, pictures = made
    second = pictures.runs["lesson2_tool_turns"][1].requests[-1].body
    assert _texts(second)[1:] == [
        "What is 12*7?",
        "function_call",
        "function_call_output",
        "84.",
        "And plus 5?",
    ]


def test_lesson_4_s_stores_hold_the_chat(made: tuple[Harness, Pictures]) -> None:
    harness, pictures = made
    rows = harness.n8n.postgres.execute(
        "SELECT message FROM n8n_chat_histories WHERE session_id = %s ORDER BY id",
        (pictures.sessions["lesson4_postgres"],),
    )
    assert len(rows) == 4  # two turns, a question and an answer each
    assert len(harness.redis_list(pictures.sessions["lesson4_redis"])) == 4
    assert harness.redis_ttl(pictures.sessions["lesson4_redis"]) == -1  # TTL 0: kept for ever


def test_lesson_4_s_lock_releases_and_turns_a_second_run_away(
    made: tuple[Harness, Pictures],
) -> None:
    """After each answered run the lock's key is gone (Delete); with a run holding it (the key
    at 1), the next message is answered "one moment" without a model call or a stored row."""
    from verify.n8n.course_live import chat
    from windowmem.outlive import session_lock

    harness, pictures = made
    session = pictures.sessions["lesson4_lock"]
    assert int(harness.redis.command("EXISTS", f"lock:{session}")) == 0
    rows = "SELECT count(*) FROM n8n_chat_histories WHERE session_id = %s"
    # three turns answered; the message sent alongside the third was neither answered nor stored
    assert harness.n8n.postgres.execute(rows, (session,)) == [(6,)]
    assert [r.requests == () for r in pictures.runs["lesson4_lock"]] == [False] * 3 + [True]
    harness.redis.command("INCR", f"lock:{session}")  # a run in progress
    try:
        run = chat(harness, pictures.live["lesson4_lock"], session, "Are you there?", ())
        assert run.status == 200 and run.output == session_lock.ONE_MOMENT
        assert run.requests == () and run.unused == ()
        assert harness.n8n.postgres.execute(rows, (session,)) == [(6,)]
        assert 0 < harness.redis_ttl(f"lock:{session}") <= session_lock.RECIPE_TTL
        assert int(harness.redis.command("GET", f"lock:{session}")) == 2
    finally:
        harness.redis.command("DEL", f"lock:{session}")
    # A failed model call: the agent's Error output goes through Sorry to Release the lock, so
    # the customer reads Sorry's reply, the key is gone and nothing is stored (lesson 4, step 3).
    failed = chat(harness, pictures.live["lesson4_lock"], session, "Is it shipped?", (Failure(),))
    assert failed.status == 200 and failed.output == SORRY, failed.body
    assert int(harness.redis.command("EXISTS", f"lock:{session}")) == 0
    assert harness.n8n.postgres.execute(rows, (session,)) == [(6,)]


def test_every_picture_was_taken_and_showed_what_it_should(made: tuple[Harness, Pictures]) -> None:
    from PIL import Image

    _, pictures = made
    assert [t.shot.name for t in pictures.taken] == [s.name for s in SHOTS]
    for taken in pictures.taken:
        assert taken.problems() == []
        assert taken.path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(taken.path) as image:
            assert image.width >= 300 and image.height >= 200, taken.path


def test_the_model_input_pictures_show_the_request_sent(made: tuple[Harness, Pictures]) -> None:
    _, pictures = made
    for taken in pictures.taken:
        if taken.shot.view != "model-input":
            continue
        run = pictures.runs[taken.shot.workflow][taken.shot.turn - 1]
        body = run.requests[-1].body
        sent = [t for t in _texts(body) if t not in ("function_call", "function_call_output")]
        shown = taken.text.replace("\\n", "\n")
        assert all(text in shown for text in sent), (sent, shown)
        chat = next(c for c in CHATS if c.workflow == taken.shot.workflow)
        for turn in chat.turns[: taken.shot.turn]:
            assert (turn.text in shown) == (turn.text in sent), turn.text


def test_the_committed_pictures_are_the_shots(made: tuple[Harness, Pictures]) -> None:
    folder = Path(__file__).resolve().parents[2] / "course" / "images" / "n8n"
    assert sorted(p.name for p in folder.glob("*.png")) == sorted(s.file for s in SHOTS)
