"""Pictures of the real n8n 2.41.1 editor for lessons 1 to 4, taken from a running n8n.

    make n8n-pictures                          # = python -m verify.n8n.pictures, services up
    python -m verify.n8n.pictures --out DIR    # somewhere else (the live tier uses a temp dir)

The harness starts (n8n and the recording model, as ``make record-n8n``), every course
workflow is imported and published (:mod:`verify.n8n.course_live`), the :data:`CHATS` are sent
through them, and Playwright's Chromium (Debian's ``/usr/bin/chromium``) logs in as the owner
and takes each of the :data:`SHOTS`: a workflow's canvas, a node's fields, or an execution's
view of the chat model's input (the messages the window let through). Each picture is taken
only when the page holds the texts it should show; a picture that would not is an error,
never a silent file. PNGs are reduced to 256 colours to stay small.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.n8n.course_live import LiveWorkflow, chat, executions, import_course_workflows
from verify.n8n.harness import Harness, Rest, Run
from verify.n8n.instance import HarnessError
from verify.n8n.model_server import Call, Reply, Text, ToolCalls

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "course" / "images" / "n8n"
CHROMIUM = Path("/usr/bin/chromium")
VIEWPORT: Any = {"width": 1280, "height": 720}
#: How long a page may take to show what a picture waits for, in milliseconds.
WAIT_MS = 60_000
#: How long n8n may take to open its production checklist over a published workflow, in ms.
POPUP_MS = 4_000


@dataclass(frozen=True)
class Turn:
    """One message to a course workflow and the recording model's scripted *replies*."""

    text: str
    replies: tuple[Reply, ...]


@dataclass(frozen=True)
class Chat:
    """A conversation sent through one course workflow, for one session."""

    workflow: str
    session: str
    turns: tuple[Turn, ...]


def _says(text: str, answer: str) -> Turn:
    return Turn(text, (Text(answer),))


#: The conversations the pictures show, one per workflow that has one.
CHATS: tuple[Chat, ...] = (
    Chat(
        "lesson1_chat_trigger",
        "marta-chat",
        (_says("Hi, I'm Marta.", "Hello Marta! How can I help?"),),
    ),
    Chat(
        "lesson1_webhook_session_key",
        "marta",
        (_says("Hi, I'm Marta.", "Hello Marta! How can I help?"),),
    ),
    Chat(
        "lesson2_tool_turns",
        "marta-tools",
        (
            Turn(
                "What is 12*7?",
                (ToolCalls.of(Call("call_12x7", "Calculator", {"input": "12*7"})), Text("84.")),
            ),
            _says("And plus 5?", "89."),
        ),
    ),
    Chat(
        "lesson3_window",
        "marta-window",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
            _says("Leave it with the doorman, please.", "Noted: with the doorman."),
            _says("What was my order number?", "I don't see it; could you tell me again?"),
        ),
    ),
    Chat(
        "lesson4_postgres",
        "marta-postgres",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
        ),
    ),
    Chat(
        "lesson4_lock",
        "marta-lock",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
        ),
    ),
    Chat(
        "lesson4_redis",
        "marta-redis",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
        ),
    ),
)


@dataclass(frozen=True)
class Shot:
    """One picture: the *view* of a course *workflow*, and what the page must hold when taken."""

    name: str
    workflow: str
    view: str
    """``"canvas"``, ``"node"`` (a node's fields) or ``"model-input"`` (an execution's model call)."""
    node: str = ""
    turn: int = 0
    """For ``"model-input"``: which turn's execution (1 = the chat's first message)."""
    shows: tuple[str, ...] = ()
    hides: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    """(parameter name, value its input field must hold), for ``"node"``."""

    @property
    def file(self) -> str:
        return f"{self.name}.png"


#: How the Session ID option's default reads in the editor.
CHAT_TRIGGER = "Connected Chat Trigger Node"
CANVAS_NODES = ("When chat message received", "AI Agent", "OpenAI Chat Model", "Calculator")

SHOTS: tuple[Shot, ...] = (
    Shot(
        "lesson1_canvas",
        "lesson1_chat_trigger",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 1: whose memory is it?"),
    ),
    Shot(
        "lesson1_memory_fields",
        "lesson1_chat_trigger",
        "node",
        node="Simple Memory",
        # Lesson 1 points at the warning: the memory lives in the n8n instance, not in queue mode.
        shows=("Session ID", "Context Window Length", "sessionId", "stores memory locally"),
        values=(("sessionIdType", CHAT_TRIGGER), ("contextWindowLength", "5")),
    ),
    Shot(
        "lesson1_webhook_memory_fields",
        "lesson1_webhook_session_key",
        "node",
        node="Simple Memory",
        shows=("Session ID", "{{ $json.body.sessionId }}", "Context Window Length"),
        values=(("sessionIdType", "Define below"), ("contextWindowLength", "5")),
    ),
    Shot(
        "lesson2_canvas",
        "lesson2_tool_turns",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 2: what each model call carries"),
    ),
    Shot(
        "lesson2_model_input",
        "lesson2_tool_turns",
        "model-input",
        turn=2,
        shows=(
            "Human: What is 12*7?",
            "call_12x7",
            "Tool: Calculator",
            "AI: 84.",
            "Human: And plus 5?",
        ),
    ),
    Shot(
        "lesson3_canvas",
        "lesson3_window",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 3: the window"),
    ),
    Shot(
        "lesson3_memory_fields",
        "lesson3_window",
        "node",
        node="Simple Memory",
        shows=("Session ID", "Context Window Length"),
        values=(("sessionIdType", CHAT_TRIGGER), ("contextWindowLength", "2")),
    ),
    Shot(
        "lesson3_model_input",
        "lesson3_window",
        "model-input",
        turn=4,
        shows=("Human: Can it come on Friday?", "Human: What was my order number?"),
        hides=("4512",),
    ),
    Shot(
        "lesson4_postgres_canvas",
        "lesson4_postgres",
        "canvas",
        shows=(*CANVAS_NODES, "Postgres Chat Memory", "Lesson 4: a store that outlives n8n"),
    ),
    Shot(
        "lesson4_lock_canvas",
        "lesson4_lock",
        "canvas",
        shows=(
            *CANVAS_NODES,
            "Take the lock",
            "First run?",
            "One moment",
            "Release the lock",
            "Lesson 4: one run per chat at a time",
        ),
    ),
    Shot(
        "lesson4_postgres_fields",
        "lesson4_postgres",
        "node",
        node="Postgres Chat Memory",
        # Lesson 4's one key, as section 2's workflow ships it: Define below, the trigger's
        # session id read by name (no suffix).
        shows=("Session ID", "Key", "When chat message received", "Context Window Length"),
        values=(("sessionIdType", "Define below"), ("contextWindowLength", "2")),
    ),
    Shot(
        "lesson4_lock_take_fields",
        "lesson4_lock",
        "node",
        node="Take the lock",
        # Where the lock's 60 seconds are set: Increment, Expire on, TTL.
        shows=("Operation", "lock:", "Expire", "TTL"),
        values=(("operation", "Increment"), ("ttl", "60")),
    ),
    Shot(
        "lesson4_redis_fields",
        "lesson4_redis",
        "node",
        node="Redis Chat Memory",
        # Lesson 4's one key here too, so TTL abc finds chat abc's list.
        values=(
            ("sessionIdType", "Define below"),
            ("sessionTTL", "0"),
            ("contextWindowLength", "2"),
        ),
        shows=(
            "Session ID",
            "Key",
            "When chat message received",
            "Session Time To Live",
            "Context Window Length",
        ),
    ),
)


@dataclass(frozen=True)
class Taken:
    """A picture taken: its *shot*, *path*, the view's *text* and field *values* at that moment."""

    shot: Shot
    path: Path
    text: str
    values: dict[str, str] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """What the page did not hold that the shot needs (empty when the picture is right)."""
        out = [
            f"{self.shot.name}: the page did not show {s!r}"
            for s in self.shot.shows
            if s not in self.text
        ]
        out += [
            f"{self.shot.name}: the page showed {s!r}" for s in self.shot.hides if s in self.text
        ]
        out += [
            f"{self.shot.name}: field {name} held {self.values.get(name)!r}, not {want!r}"
            for name, want in self.shot.values
            if self.values.get(name) != want
        ]
        return out


@dataclass(frozen=True)
class Pictures:
    """Everything one run made: the pictures, and the runs (with the model requests) behind them."""

    taken: tuple[Taken, ...]
    runs: dict[str, tuple[Run, ...]]
    sessions: dict[str, str]
    """The session id each workflow's chat used, by workflow."""
    live: dict[str, LiveWorkflow]


def run_chats(
    harness: Harness, live: dict[str, LiveWorkflow]
) -> tuple[dict[str, tuple[Run, ...]], dict[str, str]]:
    """Send every :data:`CHATS` conversation; the runs and session ids by workflow.

    A run that does not answer 200, or leaves a scripted reply unused, is an error.
    """
    runs: dict[str, tuple[Run, ...]] = {}
    sessions: dict[str, str] = {}
    suffix = uuid.uuid4().hex[:8]  # stores outlive a run (Postgres, Redis): this run's own sessions
    for conversation in CHATS:
        done = []
        session = sessions[conversation.workflow] = f"{conversation.session}-{suffix}"
        for turn in conversation.turns:
            run = chat(harness, live[conversation.workflow], session, turn.text, turn.replies)
            if run.status != 200 or run.unused:
                raise HarnessError(
                    f"{conversation.workflow}: {turn.text!r} answered {run.status} {run.body!r} "
                    f"with {len(run.unused)} scripted replies unused"
                )
            done.append(run)
        runs[conversation.workflow] = tuple(done)
    return runs, sessions


@contextmanager
def browser_page(harness: Harness) -> Iterator[Any]:
    """A Chromium page logged in to *harness*'s n8n as the owner (made by the REST client first)."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        raise HarnessError(f"{CHROMIUM} is missing: apt-get install chromium")
    harness.rest()  # the owner exists from here on
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_context(viewport=VIEWPORT, device_scale_factor=1).new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(f"{harness.n8n.url}/signin")
            page.fill('[data-test-id="emailOrLdapLoginId"] input', Rest.EMAIL)
            page.fill('[data-test-id="password"] input', Rest.PASSWORD)
            page.click('[data-test-id="form-submit-button"]')
            page.wait_for_url(re.compile(r".*/home/.*"))
            yield page
        finally:
            browser.close()


def _close_popups(page: Any) -> None:
    """Close n8n's production checklist, which opens over the canvas of a published workflow."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    heading = page.get_by_text("Production Checklist", exact=True).first
    try:  # it opens a moment after the page
        heading.wait_for(timeout=POPUP_MS)
    except PlaywrightTimeout:
        return
    page.locator('[data-test-id="suggested-actions-close"]').first.click()
    heading.wait_for(state="hidden")


def _node_id(live: LiveWorkflow, name: str) -> str:
    return str(live.node(name)["id"])


def take(page: Any, harness: Harness, live: LiveWorkflow, shot: Shot, out: Path) -> Taken:
    """Take *shot* of *live* into *out*; what the view held when it was taken."""
    url = harness.n8n.url
    path = out / shot.file
    values: dict[str, str] = {}
    if shot.view == "canvas":
        page.goto(f"{url}/workflow/{live.id}")
        page.wait_for_selector('[data-test-id="canvas-node"]')
        _close_popups(page)
        page.click('[data-test-id="zoom-to-fit"]')
        page.wait_for_timeout(800)  # the zoom animates
        text = page.locator('[data-test-id="canvas"]').inner_text()
        page.screenshot(path=str(path))
    elif shot.view == "node":
        page.goto(f"{url}/workflow/{live.id}/{_node_id(live, shot.node)}")
        ndv = page.locator('[data-test-id="ndv"]')
        parameters = ndv.locator('[data-test-id="node-parameters"]')
        parameters.wait_for()
        _close_popups(page)
        for name, _ in shot.values:
            field_input = ndv.locator(f'[data-test-id="parameter-input-{name}"] input').first
            values[name] = str(field_input.input_value())
        text = ndv.inner_text()
        # The input panel (what the trigger passes on) and the fields; not the empty output.
        box, right = ndv.bounding_box(), parameters.bounding_box()
        page.screenshot(
            path=str(path),
            clip={
                "x": box["x"],
                "y": box["y"],
                "width": right["x"] + right["width"] + 16 - box["x"],
                "height": box["height"],
            },
        )
    elif shot.view == "model-input":
        ids = executions(harness, live)
        if len(ids) < shot.turn:
            raise HarnessError(
                f"{shot.name}: {live.spec.file} has {len(ids)} executions, not {shot.turn}"
            )
        page.goto(f"{url}/workflow/{live.id}/executions/{ids[shot.turn - 1]}")
        host = page.locator('[data-test-id="execution-preview-host"]')
        model = host.locator('[data-test-id="canvas-node"]', has_text="OpenAI Chat Model").first
        model.wait_for()
        _close_popups(page)
        model.dblclick()
        ndv = page.locator('[data-test-id="ndv"]')
        panel = ndv.locator('[data-test-id="ndv-input-panel"]')
        tokens = panel.get_by_text("estimatedTokens", exact=True).first
        tokens.wait_for()
        text = panel.inner_text().split("estimatedTokens")[0]
        # From the window's title (the node's name) down to the messages' token estimate.
        top, box, end = ndv.bounding_box(), panel.bounding_box(), tokens.bounding_box()
        page.screenshot(
            path=str(path),
            clip={
                "x": box["x"],
                "y": top["y"],
                "width": box["width"],
                "height": end["y"] + end["height"] + 12 - top["y"],
            },
        )
    else:
        raise HarnessError(f"{shot.name}: unknown view {shot.view!r}")
    _shrink(path)
    return Taken(shot, path, text, values)


def _shrink(path: Path) -> None:
    """Reduce *path* to a 256-colour PNG (a screenshot of flat UI colours loses nothing visible)."""
    from PIL import Image

    with Image.open(path) as image:
        reduced = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    reduced.save(path, optimize=True)


def make_pictures(harness: Harness, out: Path) -> Pictures:
    """Import the course workflows into *harness*, chat through them and take every shot into *out*."""
    out.mkdir(parents=True, exist_ok=True)
    live = import_course_workflows(harness)
    runs, sessions = run_chats(harness, live)
    taken = []
    with browser_page(harness) as page:
        for shot in SHOTS:
            done = take(page, harness, live[shot.workflow], shot, out)
            if done.problems():
                raise HarnessError("; ".join(done.problems()))
            taken.append(done)
    return Pictures(tuple(taken), runs, sessions, live)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNGs go (default {OUT})")
    args = parser.parse_args(argv)
    began = time.monotonic()
    with Harness.open() as harness:
        print(f"n8n up: {harness.timings}", flush=True)
        made = make_pictures(harness, args.out)
    for done in made.taken:
        print(f"{done.path} ({done.path.stat().st_size:,} bytes)")
    print(f"{len(made.taken)} pictures in {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
