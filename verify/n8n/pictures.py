"""Pictures of the real n8n 2.41.1 editor for lessons 1 to 4, taken from a running n8n.

    make n8n-pictures                          # = python -m verify.n8n.pictures, services up
    python -m verify.n8n.pictures --out DIR    # somewhere else (the live tier uses a temp dir)

The harness starts (n8n and the recording model, as ``make record-n8n``), every course
workflow and every picture-only workflow is imported and published
(:mod:`verify.n8n.course_live`), the :data:`CHATS` are sent through them (a failing run, a
double-send and a sub-workflow called as a tool among them), and Playwright's Chromium
(Debian's ``/usr/bin/chromium``) logs in as the owner and takes each of the :data:`SHOTS`: a
workflow's canvas, a node's fields, or an execution: the chat model's input (the messages the
window let through), a node's window in it (an error, an output, a sub-workflow's inputs) or
the log of the agent's steps. The tables are :mod:`verify.n8n.picture_plan` (workflows and
chats) and :mod:`verify.n8n.picture_shots` (the pictures). Each picture is taken only when the
page holds the texts it should show; a picture that would not is an error, never a silent
file. PNGs are reduced to 256 colours to stay small.
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

from verify.n8n.course_live import (
    LiveWorkflow,
    chat,
    executions,
    import_course_workflows,
    send,
)
from verify.n8n.course_workflows import ONE_MOMENT
from verify.n8n.harness import Harness, Rest, Run
from verify.n8n.instance import HarnessError
from verify.n8n.picture_plan import CHATS, PICTURE_WORKFLOWS, Chat, Turn
from verify.n8n.picture_shots import EXECUTION_VIEWS, SHOTS, Shot

__all__ = ["CHATS", "OUT", "SHOTS", "Chat", "Pictures", "Shot", "Taken", "Turn", "make_pictures"]

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "course" / "images" / "n8n"
CHROMIUM = Path("/usr/bin/chromium")
VIEWPORT: Any = {"width": 1280, "height": 720}
#: How long a page may take to show what a picture waits for, in milliseconds.
WAIT_MS = 60_000
#: How long n8n may take to open its production checklist over a published workflow, in ms.
POPUP_MS = 4_000
#: How long after a message its double is sent (:attr:`Turn.alongside`), in seconds.
ALONGSIDE_AFTER = 1.0


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
            f"{self.shot.name}: the page showed {s!r} {self.text.count(s)} times, not {n}"
            for s, n in self.shot.counts
            if self.text.count(s) != n
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
    """Send every :data:`CHATS` conversation; the runs (one per execution) and session ids by
    workflow.

    A run that does not answer its turn's status, leaves a scripted reply unused, or (a
    message sent alongside) is not turned away, is an error.
    """
    runs: dict[str, tuple[Run, ...]] = {}
    sessions: dict[str, str] = {}
    suffix = uuid.uuid4().hex[:8]  # stores outlive a run (Postgres, Redis): this run's own sessions
    for conversation in CHATS:
        done: list[Run] = []
        session = sessions[conversation.workflow] = f"{conversation.session}-{suffix}"
        for turn in conversation.turns:
            flow = live[conversation.workflow]
            if turn.alongside:
                done += _double_send(harness, flow, session, turn)
            else:
                done.append(chat(harness, flow, session, turn.text, turn.replies))
            if done[-1].status != turn.status or done[-1].unused:
                raise HarnessError(
                    f"{conversation.workflow}: {turn.text!r} answered {done[-1].status} "
                    f"{done[-1].body!r} with {len(done[-1].unused)} scripted replies unused"
                )
        runs[conversation.workflow] = tuple(done)
    return runs, sessions


def _double_send(harness: Harness, live: LiveWorkflow, session: str, turn: Turn) -> list[Run]:
    """*turn*'s message and, while its run is open, its *alongside*: both runs, in that order.

    The first run takes the model's scripted (slow) replies; the second must be turned away
    with :data:`ONE_MOMENT` and call no model.
    """
    from concurrent.futures import ThreadPoolExecutor

    harness._idle()
    harness.model.script.push(turn.replies)
    began = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(send, harness, live, session, turn.text)
        time.sleep(ALONGSIDE_AFTER)
        second_status, second_answer = send(harness, live, session, turn.alongside)
        seconds = time.monotonic() - began
        status, answer = first.result()
    requests, unused = harness.model.script.drain()
    second = Run(second_status, second_answer, (), (), seconds)
    if second.status != 200 or second.output != ONE_MOMENT:
        raise HarnessError(f"{live.spec.file}: {turn.alongside!r} got {second.body!r}")
    first_run = Run(status, answer, tuple(requests), tuple(unused), time.monotonic() - began)
    return [first_run, second]


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
    path = out / shot.file
    values: dict[str, str] = {}
    if shot.view == "canvas":
        text = _canvas(page, harness, live, path)
    elif shot.view == "node":
        text = _node_fields(page, harness, live, shot, path, values)
    elif shot.view in EXECUTION_VIEWS:
        ids = executions(harness, live)
        if len(ids) < shot.turn:
            raise HarnessError(
                f"{shot.name}: {live.spec.file} has {len(ids)} executions, not {shot.turn}"
            )
        page.goto(f"{harness.n8n.url}/workflow/{live.id}/executions/{ids[shot.turn - 1]}")
        host = page.locator('[data-test-id="execution-preview-host"]')
        host.locator('[data-test-id="canvas-node"]').first.wait_for()
        _close_popups(page)
        if shot.view == "model-input":
            text = _model_input(page, host, path)
        elif shot.view == "logs":
            text = _logs(page, host, path)
        else:
            text = _execution(page, host, shot, path)
    else:
        raise HarnessError(f"{shot.name}: unknown view {shot.view!r}")
    _shrink(path)
    return Taken(shot, path, text, values)


def _canvas(page: Any, harness: Harness, live: LiveWorkflow, path: Path) -> str:
    page.goto(f"{harness.n8n.url}/workflow/{live.id}")
    page.wait_for_selector('[data-test-id="canvas-node"]')
    _close_popups(page)
    page.click('[data-test-id="zoom-to-fit"]')
    page.wait_for_timeout(800)  # the zoom animates
    text = str(page.locator('[data-test-id="canvas"]').inner_text())
    page.screenshot(path=str(path))
    return text


def _node_fields(
    page: Any, harness: Harness, live: LiveWorkflow, shot: Shot, path: Path, values: dict[str, str]
) -> str:
    """The node's window: the input panel (what the trigger passes on) and the fields."""
    page.goto(f"{harness.n8n.url}/workflow/{live.id}/{_node_id(live, shot.node)}")
    ndv = page.locator('[data-test-id="ndv"]')
    parameters = ndv.locator('[data-test-id="node-parameters"]')
    parameters.wait_for()
    _close_popups(page)
    for name, _ in shot.values:
        field_input = ndv.locator(f'[data-test-id="parameter-input-{name}"] input').first
        values[name] = str(field_input.input_value())
    text = str(ndv.inner_text())
    box, right = ndv.bounding_box(), parameters.bounding_box()
    page.screenshot(  # not the empty output panel
        path=str(path),
        clip={
            "x": box["x"],
            "y": box["y"],
            "width": right["x"] + right["width"] + 16 - box["x"],
            "height": box["height"],
        },
    )
    return text


def _model_input(page: Any, host: Any, path: Path) -> str:
    """The chat model's input in an execution: from the window's title to the token estimate."""
    host.locator('[data-test-id="canvas-node"]', has_text="OpenAI Chat Model").first.dblclick()
    ndv = page.locator('[data-test-id="ndv"]')
    panel = ndv.locator('[data-test-id="ndv-input-panel"]')
    tokens = panel.get_by_text("estimatedTokens", exact=True).first
    tokens.wait_for()
    text = str(panel.inner_text()).split("estimatedTokens")[0]
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
    return text


def _execution(page: Any, host: Any, shot: Shot, path: Path) -> str:
    """An execution: the list and the canvas, or the window of *shot.node* in it."""
    if not shot.node:
        page.wait_for_timeout(800)
        page.screenshot(path=str(path))
        return str(page.locator("body").inner_text())
    host.locator('[data-test-id="canvas-node"]', has_text=shot.node).first.dblclick()
    ndv = page.locator('[data-test-id="ndv"]')
    ndv.get_by_text(shot.shows[-1]).last.wait_for()  # the last text is what the run wrote
    text = str(ndv.inner_text())
    page.screenshot(path=str(path), clip=ndv.bounding_box())
    return text


def _logs(page: Any, host: Any, path: Path) -> str:
    """An execution's log: the chat beside the agent's steps, one row per sub-node call."""
    panel = page.locator('[data-test-id="logs-panel"]')
    body = panel.locator('[data-test-id="logs-overview-body"]')
    if not body.is_visible():
        panel.locator('[data-test-id="logs-overview-header"]').click()
    body.wait_for()
    # The panel's top edge up under the execution's title, the chat narrower, the log wider.
    handles = panel.locator('[data-test-id="resize-handle"]')
    for index, (x, y) in enumerate(((None, 180), (590, None), (930, None))):
        box = handles.nth(index).bounding_box()
        start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(start[0] if x is None else x, start[1] if y is None else y, steps=10)
        page.mouse.up()
    page.wait_for_timeout(800)  # the panel animates
    text = str(panel.inner_text())  # the chat, the log and the selected step's output
    box = panel.bounding_box()
    page.screenshot(path=str(path), clip=box)
    return text


def _shrink(path: Path) -> None:
    """Reduce *path* to a 256-colour PNG (a screenshot of flat UI colours loses nothing visible)."""
    from PIL import Image

    with Image.open(path) as image:
        reduced = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    reduced.save(path, optimize=True)


def make_pictures(harness: Harness, out: Path) -> Pictures:
    """Import the course workflows into *harness*, chat through them and take every shot into *out*."""
    out.mkdir(parents=True, exist_ok=True)
    live = import_course_workflows(harness, [(w.spec, w.build()) for w in PICTURE_WORKFLOWS])
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
