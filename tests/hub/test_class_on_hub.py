"""A class on a real JupyterHub, end to end, in the browser (issue 37, item 3).

The student signs in through an nbgitpuller link made by ``python -m autograder link``: it
pulls the student edition into their home and opens lesson 3 in JupyterLab. The
instructor, in their own server's terminal, releases lesson 3's assignment through
nbgrader's exchange; the student fetches and submits it from JupyterLab's Assignments
panel; the instructor collects it, grades it with ``python -m autograder grade``
(sandboxed) and returns the feedback; the student fetches the feedback in the panel, and
the test reads the page they received against the instructor's grades.
"""

from __future__ import annotations

import contextlib
import csv
import html
import json
import re
import shlex
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autograder.grading.grade_class import UNSANDBOXED
from autograder.term.links import nbgitpuller_link
from tests.browser.lab_harness import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, screenshot
from tests.event_loop import in_own_thread
from tests.hub.conftest import ClassOnHub
from tests.hub.hub_process import run_in_terminal

pytestmark = [pytest.mark.hub, pytest.mark.browser, pytest.mark.slow]

ASSIGNMENT = "lesson03_window_buffer"
#: Generous waits: the machine running this may be busy with other work.
WAIT_MS = 180_000


def _lesson_3(edition: Path) -> Path:
    """Lesson 3's notebook in the student edition, relative to it."""
    found = sorted(p for p in edition.rglob("03_*.ipynb") if ".git" not in p.parts)
    assert found, f"the student edition {edition} has no lesson 3 (03_*.ipynb)"
    return found[0].relative_to(edition)


def _first_heading(notebook: Path) -> str:
    """The text of the first heading of the notebook's first cell (its title)."""
    first = json.loads(notebook.read_text())["cells"][0]
    source = "".join(first["source"])
    heading = re.search(r"^#+\s+(.+?)\s*$", source, re.M)
    assert heading, f"{notebook}'s first cell has no heading:\n{source[:300]}"
    return re.sub(r"[*_`]", "", heading.group(1))


def _instructor_runs(on_hub: ClassOnHub, server: str, command: str, timeout_s: float = 900):
    """Run *command* in the instructor's own server's terminal; what it printed. Fails on a non-zero exit."""
    result = run_in_terminal(on_hub.hub, server, command, timeout_s)
    assert result.status == 0, f"`{command}` exited {result.status}:\n{result.output[-4000:]}"
    return result.output


def _step(page, on_hub: ClassOnHub, what: str, action: Callable[[], object]) -> None:
    """Do *action* (a wait or a click); when it times out, fail saying *what* and what the page shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        action()
    except PlaywrightTimeout:
        body = page.locator("body").inner_text(timeout=10_000)
        screenshot(page, "hub-failed")
        raise AssertionError(
            f"{what}: not within {WAIT_MS / 1000:g} s; the page ({page.url}) shows:\n"
            f"{body[-3000:]}\nhub log:\n{on_hub.hub.log_tail(3000)}"
        ) from None


def _sign_in(page, on_hub: ClassOnHub, url: str) -> None:
    """Open *url* as the student: the hub asks them to sign in first, then goes on to *url*."""
    page.goto(url)
    page.locator("#username_input").fill(on_hub.student.name)
    page.locator("#password_input").fill(on_hub.hub.password)
    page.locator("#login_submit").click()


def _open_assignments_panel(page, on_hub: ClassOnHub) -> None:
    """Open nbgrader's Assignments panel from the Nbgrader menu."""
    menu = page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Nbgrader$")).first
    _step(page, on_hub, "the Nbgrader menu", lambda: menu.click(timeout=WAIT_MS))
    item = page.locator(".lm-Menu-item:visible", has_text="Assignment List").first
    _step(page, on_hub, "Nbgrader > Assignment List", lambda: item.click(timeout=WAIT_MS))
    panel = page.locator("#released_assignments_list").first
    _step(page, on_hub, "the Assignments panel", lambda: panel.wait_for(timeout=WAIT_MS))


@contextlib.contextmanager
def _new_page() -> Iterator:
    """A tab of a fresh headless Chromium (its own Playwright: this runs in a thread of its own)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            yield browser.new_context(viewport=VIEWPORT).new_page()
        finally:
            browser.close()


def _student_part_one(on_hub: ClassOnHub, link: str, lesson: Path, title: str) -> dict:
    """The student: the link opens lesson 3; fetch and submit the assignment. Timings."""
    timings = {}
    with _new_page() as page:
        started = time.monotonic()
        _sign_in(page, on_hub, link)
        tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text=lesson.name).first
        _step(page, on_hub, "the link opening lesson 3", lambda: tab.wait_for(timeout=WAIT_MS))
        first_cell = page.locator(".jp-NotebookPanel .jp-Cell").first
        heading = first_cell.locator(".jp-RenderedMarkdown h1, .jp-RenderedMarkdown h2").first
        _step(page, on_hub, "lesson 3's title", lambda: heading.wait_for(timeout=WAIT_MS))
        rendered = first_cell.locator(".jp-RenderedMarkdown").first.inner_text()
        assert title in rendered, f"lesson 3's first cell shows {rendered[:300]!r}"
        # the course's jupyter_lab_config.json reached the student's JupyterLab: no news pop-up
        page_config = json.loads(page.locator("#jupyter-config-data").text_content())
        assert page_config["news"] == {"disabled": True}, page_config.get("news")
        timings["link: sign in, pull, lesson 3 shown"] = time.monotonic() - started
        screenshot(page, "hub-lesson-3")

        started = time.monotonic()
        _open_assignments_panel(page, on_hub)
        released = page.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT)
        fetch = released.locator("button", has_text="Fetch").first
        _step(page, on_hub, "Fetch", lambda: fetch.click(timeout=WAIT_MS))
        fetched = page.locator("#fetched_assignments_list .list_item", has_text=ASSIGNMENT)
        submit = fetched.locator("button", has_text="Submit").first
        _step(page, on_hub, "Submit", lambda: submit.click(timeout=WAIT_MS))
        submitted = page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT)
        _step(
            page, on_hub, "the submission listed", lambda: submitted.first.wait_for(timeout=WAIT_MS)
        )
        timings["assignment fetched and submitted"] = time.monotonic() - started
        screenshot(page, "hub-submitted")
    return timings


def _student_part_two(on_hub: ClassOnHub) -> dict:
    """The student, signed in again: fetch the feedback in the Assignments panel. Timings."""
    timings = {}
    with _new_page() as page:
        started = time.monotonic()
        _sign_in(page, on_hub, f"{on_hub.hub.url}/hub/login")
        lab = page.locator("#jp-main-dock-panel").first
        _step(page, on_hub, "JupyterLab after signing in", lambda: lab.wait_for(timeout=WAIT_MS))
        _open_assignments_panel(page, on_hub)
        submitted = page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT)
        fetch = submitted.locator("button", has_text="Fetch Feedback").first
        _step(page, on_hub, "Fetch Feedback", lambda: fetch.click(timeout=WAIT_MS))
        view = submitted.locator("a", has_text="view feedback").first
        _step(page, on_hub, "the feedback's link", lambda: view.wait_for(timeout=WAIT_MS))
        timings["feedback fetched"] = time.monotonic() - started
        screenshot(page, "hub-feedback")
    return timings


def test_a_class_runs_on_the_hub(class_on_hub: ClassOnHub):
    on_hub = class_on_hub
    timings = dict(on_hub.timings)
    python = shlex.quote(str(on_hub.python))

    # the instructor releases the assignment, in their own server
    started = time.monotonic()
    instructor = on_hub.hub.start_server(on_hub.instructor.name)
    timings["instructor's server started"] = time.monotonic() - started
    started = time.monotonic()
    _instructor_runs(
        on_hub,
        instructor,
        f"{python} -m autograder release {ASSIGNMENT} --exchange {on_hub.exchange} --repo ~/windowmem",
    )
    timings["released"] = time.monotonic() - started

    # the student follows the link the course's command makes, then fetches and submits
    lesson = _lesson_3(on_hub.edition)
    title = _first_heading(on_hub.edition / lesson)
    made = _instructor_runs(
        on_hub,
        instructor,
        f"{python} -m autograder link {shlex.quote(str(lesson))} --hub {on_hub.hub.url} "
        f"--repository {on_hub.edition_url} --branch {on_hub.edition_branch}",
    )
    link = next(line for line in made.splitlines() if "/git-pull?" in line).strip()
    assert link == nbgitpuller_link(
        on_hub.hub.url, on_hub.edition_url, str(lesson), branch=on_hub.edition_branch
    )
    timings.update(in_own_thread(_student_part_one, on_hub, link, lesson, title))
    pulled = on_hub.student.home / on_hub.edition.name / lesson
    assert pulled.is_file(), f"nbgitpuller did not put {lesson} in the student's home"
    assert pulled.stat().st_uid == on_hub.student.uid

    # the instructor collects, grades (sandboxed, as root through sudo) and returns feedback
    started = time.monotonic()
    _instructor_runs(
        on_hub,
        instructor,
        f"{python} -m autograder collect {ASSIGNMENT} --exchange {on_hub.exchange} "
        "--into ~/collected --repo ~/windowmem",
    )
    graded = _instructor_runs(
        on_hub,
        instructor,
        f"sudo -n {on_hub.grader_as_root} grade {ASSIGNMENT} --submissions ~/collected/submitted "
        "--out ~/graded --repo ~/windowmem --no-progress",
    )
    _instructor_runs(
        on_hub,
        instructor,
        f"sudo -n {on_hub.grader_as_root} feedback {ASSIGNMENT} --out ~/graded --exchange {on_hub.exchange}",
    )
    timings["collected, graded, feedback returned"] = time.monotonic() - started
    out = on_hub.instructor.home / "graded"
    with open(out / "grades.csv", newline="") as grades:
        rows = [r for r in csv.DictReader(grades) if r["student_id"] == on_hub.student.name]
    assert rows and all(r["status"] == "graded" for r in rows), (graded, rows)
    assert not any(UNSANDBOXED in r["detail"] for r in rows), rows

    # the student fetches the feedback; the page they received carries the instructor's score
    timings.update(in_own_thread(_student_part_two, on_hub))
    received = sorted((on_hub.student.home / ASSIGNMENT / "feedback").rglob("*.html"))
    assert received, f"no feedback in {on_hub.student.home / ASSIGNMENT / 'feedback'}"
    for row in rows:
        page = next(p for p in received if p.stem == Path(row["notebook"]).stem)
        text = html.unescape(page.read_text())
        score = f"{float(row['score']):g}"
        assert re.search(
            rf"Score:\s*{re.escape(score)}(\.0+)?\s*/\s*{float(row['max_score']):g}", text
        ), f"{page.name} does not show {row['score']} / {row['max_score']}"
    print("\nthe class on the hub, seconds per step:")
    for step, seconds in timings.items():
        print(f"  {step:45} {seconds:7.1f}")
