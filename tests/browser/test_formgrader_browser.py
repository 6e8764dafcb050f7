"""Formgrader in a real JupyterLab on what the autograder wrote: a hand grade and a comment, then the export.

The class is graded with the one command; ``python -m autograder formgrader OUT`` starts
JupyterLab in ``OUT/course``; in Chromium the grader opens *Nbgrader > Formgrader*, goes
to one student's notebook, types a score and a comment for the written answer; the
export then carries them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.autograder.term.test_term_exchange import manual_cells, read_csv
from tests.browser.lab_harness import (
    LAB_SETTINGS,
    LabServer,
    free_port,
    run_menu_command,
    screenshot,
)
from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, CELL_TIMEOUT, NOTEBOOK, REPO_ROOT
from tests.fixtures.term import autograder, grade_other_written_cells, hand_grade
from tests.nbgrader_helpers import graded_points, read_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

COMMENT = "Clear diagnosis; say which setting you would change."
SCRIPTED_OUTPUT = (
    "from IPython.display import HTML, display\n"
    "display(HTML(\"<b id='student-html'>look</b>"
    '<script>window.parent.studentScriptRan = true; window.studentScriptRan = true</script>"))\n'
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("formgrader")
    make_submissions.make_class(root / "class", ASSIGNMENT, only=("correct", "blank"))
    # a student whose output carries HTML with a script, for the grader's browser to render
    release = read_notebook(REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    source = read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    scripted = make_submissions.answered(release, source)
    scripted["cells"].append(make_submissions.code_cell(SCRIPTED_OUTPUT))
    folder = root / "class" / "scripted" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"{NOTEBOOK}.ipynb").write_text(make_submissions.dump(scripted), encoding="utf-8")
    out = root / "out"
    run = autograder(
        "grade", ASSIGNMENT, "--submissions", root / "class", "--out", out,
        "--timeout", CELL_TIMEOUT, "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    return root, out


def open_student_notebook(frame, server: LabServer, student: str) -> None:
    """From formgrader's student page, open *student*'s notebook and wait until it is ready."""
    frame.goto(f"{server.url}/formgrader/manage_students/{student}/{ASSIGNMENT}")
    frame.locator(f"a:text-is('{NOTEBOOK}')").first.click()
    # formgrader binds the inputs once it has fetched the grades and comments; typing before
    # that would be overwritten by its first render
    frame.wait_for_function(
        "() => window.formgrader && formgrader.grades && formgrader.grades.loaded"
        " && formgrader.comments && formgrader.comments.loaded",
        timeout=30_000,
    )


@pytest.fixture(scope="module")
def formgrader_server(chromium_path, graded):
    """``python -m autograder formgrader OUT`` on a free port, with private Jupyter folders."""
    root, out = graded
    scratch = root / "jupyter"
    for name, settings in LAB_SETTINGS.items():
        path = scratch / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    for folder in ("config", "runtime", "workspaces"):
        (scratch / folder).mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [sys.executable, "-m", "autograder", "formgrader", str(out), f"--port={port}"]
    command += ["--no-browser", "--", "--IdentityProvider.token="]
    command += [f"--LabApp.workspaces_dir={scratch / 'workspaces'}"]
    command += [f"--LabApp.user_settings_dir={scratch / 'settings'}"]
    command += ["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(scratch / "config"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
    }
    log_path = scratch / "formgrader.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    server = LabServer(f"http://127.0.0.1:{port}", out / "course", process, log_path)
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"formgrader's JupyterLab did not start:\n{server.log_tail()}")
            try:
                with urllib.request.urlopen(f"{server.url}/api/status", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.25)
        yield server
    finally:
        server.stop()


def formgrader_frame(page, server: LabServer, timeout_s: float = 60):
    """The frame of the Formgrader panel JupyterLab opened, once it shows formgrader."""
    panel = page.wait_for_selector(".jp-MainAreaWidget iframe", timeout=timeout_s * 1000)
    frame = panel.content_frame()
    assert frame is not None, "the Formgrader panel holds no frame"
    try:
        frame.wait_for_url("**/formgrader/**", timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        # on a loaded machine the panel's first load can be lost; load it as its Reload would
        frame.goto(f"{server.url}/formgrader")
    return frame


def test_a_hand_grade_entered_in_formgrader_reaches_the_export(formgrader_server, page, graded):
    _, out = graded
    source = read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    cell, points = next(iter(manual_cells(source).items()))
    given = min(3.0, points)  # formgrader refuses a score above the cell's points
    server = formgrader_server
    page.goto(f"{server.url}/lab")
    page.locator(".jp-LabShell").wait_for(timeout=60_000)
    run_menu_command(page, "Nbgrader", "Formgrader")
    frame = formgrader_frame(page, server)
    frame.locator("a", has_text="Manage Students").first.wait_for(timeout=30_000)

    # one student's notebook, the way a grader reaches it
    open_student_notebook(frame, server, "correct")
    score = frame.locator(f"input.score#{cell}")
    score.fill(str(given))
    score.press("Tab")  # formgrader saves on change
    comment = frame.locator(f"textarea#{cell}-comment")
    comment.fill(COMMENT)
    comment.press("Tab")
    deadline = time.monotonic() + 20
    gradebook = "sqlite:///" + str(out / "course" / "gradebook.db")
    while hand_grade(gradebook, ASSIGNMENT, NOTEBOOK, "correct", cell) != (given, COMMENT):
        assert time.monotonic() < deadline, (
            f"formgrader did not save: {hand_grade(gradebook, ASSIGNMENT, NOTEBOOK, 'correct', cell)}"
        )
        page.wait_for_timeout(250)
    screenshot(page, "formgrader-hand-grade")

    # the scripted student's written answer too, so every student has a final grade
    open_student_notebook(frame, server, "scripted")
    frame.locator(f"input.score#{cell}").fill("1")
    frame.locator(f"input.score#{cell}").press("Tab")
    while hand_grade(gradebook, ASSIGNMENT, NOTEBOOK, "scripted", cell)[0] != 1:
        assert time.monotonic() < deadline + 20, "formgrader did not save the second grade"
        page.wait_for_timeout(250)

    # the assignment's other written answers, entered as the gradebook records them
    written = manual_cells(source)
    for student in ("correct", "scripted"):
        grade_other_written_cells(gradebook, ASSIGNMENT, NOTEBOOK, student, written, cell)

    export = autograder("export", ASSIGNMENT, "--out", out)
    assert export.returncode == 0, export.stdout + export.stderr  # everyone has a final grade now
    rows = read_csv(out / "final_grades.csv")
    auto = sum(graded_points(source).values())
    assert (rows["correct"]["status"], float(rows["correct"]["total"])) == ("final", auto + given)
    assert float(rows["correct"][cell]) == given and float(
        rows["correct"]["max_score"]
    ) == auto + sum(written.values())


def test_a_students_html_output_runs_no_script_in_formgrader(formgrader_server, page):
    server = formgrader_server
    page.goto(f"{server.url}/lab")
    page.locator(".jp-LabShell").wait_for(timeout=60_000)
    run_menu_command(page, "Nbgrader", "Formgrader")
    frame = formgrader_frame(page, server)
    open_student_notebook(frame, server, "scripted")
    frame.locator("#student-html").wait_for(timeout=30_000)  # the output is shown ...
    assert frame.evaluate("() => window.studentScriptRan === undefined")  # ... its script not run
    assert page.evaluate("() => window.studentScriptRan === undefined")
