"""What ``make course`` opens: the learner's working copy in JupyterLab, on the start page, quietly.

``make course`` ends with ``scripts/course_lab.py --work my_course``. Here that script runs
on a scratch working folder with private Jupyter folders, a free port and a "browser"
that only prints what it would open, and Chromium follows the address it printed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.browser.lab_harness import (
    RUN_STATE,
    error_outputs,
    free_port,
    run_all_cells,
    run_menu_command,
    wait_for_kernel_idle,
    write_lab_settings,
)
from tests.conftest import REPO_ROOT as REPO
from tests.conftest import course_files_status

sys.path.insert(0, str(REPO / "scripts"))

from course_pages import START_PAGE  # noqa: E402

#: nbgrader's instructor tools, as JupyterLab shows them with nbgrader's defaults.
INSTRUCTOR_TOOLS = ("Formgrader", "Course List", "Create assignment", "Nbgrader Create Assignment")
#: A lesson that imports its self-checks (from checks.lesson03 import check).
LESSON = "03_window_buffer_memory.ipynb"
#: The assignment whose notebook the test opens from the working copy's assignments/.
ASSIGNMENT = "assignments/lesson03_window_buffer/window_buffer.ipynb"


def _clean_env() -> dict[str, str]:
    """The environment as a person's shell has it, not inside make test's own make."""
    return {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}


def test_make_course_ends_by_running_the_learners_lab():
    dry_run = subprocess.run(
        ["make", "--no-print-directory", "-n", "course"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
    )
    last = dry_run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\S+/python scripts/course_lab\.py --work my_course", last), last


@pytest.fixture
def learner_lab(tmp_path, chromium_path):
    """scripts/course_lab.py serving a scratch working copy: (log path, working folder)."""
    work, log_path = tmp_path / "my_course", tmp_path / "lab.log"
    private = {
        name: tmp_path / folder
        for name, folder in {
            "JUPYTER_CONFIG_DIR": "config",
            "JUPYTER_DATA_DIR": "data",
            "JUPYTER_RUNTIME_DIR": "runtime",
            "IPYTHONDIR": "ipython",
        }.items()
    }
    env = {
        **_clean_env(),
        **{name: str(path) for name, path in private.items()},
        # make course puts the venv's bin/ first on PATH: the kernel spec runs "python".
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    command = [
        sys.executable,
        str(REPO / "scripts" / "course_lab.py"),
        "--work",
        str(work),
        "--ip=127.0.0.1",
        f"--port={free_port()}",
        "--ServerApp.port_retries=0",
        "--ServerApp.browser=/bin/echo OPENED %s",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        # Every cell in the page, so the harness can read each prompt (as in lab_harness).
        f"--LabApp.user_settings_dir={write_lab_settings(tmp_path / 'settings')}",
        # window.jupyterapp, which the harness reads a notebook's kernel state from.
        "--LabApp.expose_app_in_browser=True",
    ]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        yield log_path, work
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a busy machine: the server still shutting its kernels
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _printed_address(log_path: Path, timeout_s: float = 120) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:\d+/\S+\?token=\w+", log_path.read_text())
        if found:
            return found.group(0)
        time.sleep(0.25)
    raise AssertionError(f"no address printed:\n{log_path.read_text()[-3000:]}")


@pytest.mark.browser
@pytest.mark.slow
def test_the_printed_address_opens_the_start_page_with_no_instructor_tools(learner_lab, page):
    log_path, work = learner_lab
    address = _printed_address(log_path)
    base, token = address.split("/lab/")[0], address.split("token=")[1]
    assert address.split("?")[0].endswith(f"/lab/tree/{START_PAGE.name}"), address
    assert (work / START_PAGE.name).is_file() and (work / ASSIGNMENT).is_file()
    assert not (work / "checks").exists()

    page.goto(address)
    heading = page.locator(".jp-NotebookPanel .jp-RenderedMarkdown h1").first
    heading.wait_for(timeout=60_000)
    assert "Start here" in heading.inner_text()
    wait_for_kernel_idle(page)
    first_screen = log_path.read_text()

    menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    assert "Kernel" in menus and "Nbgrader" not in menus, menus
    tabs = page.locator(".jp-SideBar .lm-TabBar-tab").evaluate_all("els => els.map(e => e.title)")
    assert "Table of Contents" in " ".join(tabs)
    assert not [t for t in tabs if any(tool in t for tool in INSTRUCTOR_TOOLS)], tabs
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{base}/formgrader?token={token}")
    assert refused.value.code == 404, "the formgrader server extension is off"

    # The learner's own tool stays: an assignment in the working copy has its Validate button.
    page.goto(f"{base}/lab/tree/{ASSIGNMENT}")
    page.locator(".jp-NotebookPanel-toolbar .validate-button").wait_for(timeout=60_000)
    # Its kernel connected before the page moves on: leaving while the kernel's websocket is
    # still opening makes jupyter_server log an uncaught 500 on /channels, which no person,
    # who reads a page before leaving it, would cause.
    wait_for_kernel_idle(page)

    # A lesson runs from the working copy: its self-checks come from the clone's course/.
    before = course_files_status()
    # In a workspace of its own: the start page's tab, restored beside it, would keep its
    # stored prompts in the page, and the harness reads every prompt there.
    page.goto(f"{base}/lab/workspaces/lesson/tree/{LESSON}")
    wait_for_kernel_idle(page)
    run_all_cells(page)
    assert error_outputs(page) == []
    page.keyboard.press("Control+s")
    assert course_files_status() == before, "running a lesson changed nothing in the clone"

    log = log_path.read_text()
    assert "setup: copied" in log and "starting JupyterLab on your working copy" in log
    # What the learner's terminal shows up to the start page with its kernel: the address only.
    assert _noise(first_screen) == [], "the server said more than the address:\n" + "\n".join(
        _noise(first_screen)
    )
    # Later, nothing from the kernels, warnings included. The test leaves each tab at once,
    # and jupyter_server logs a WebSocketClosedError traceback when a reply meets a tab
    # already gone; a person does not leave a tab within milliseconds of a run.
    later = [
        line
        for line in _noise(log[len(first_screen) :])
        if "404 GET /formgrader" not in line  # the test's own request, refused above
        and not ("ZMQStream" in line or "zmqstream" in line)
    ]
    assert later == [], (
        "the server said more than the address:\n"
        + "\n".join(later)
        + (
            "\n\nthe log after the start page, tracebacks included:\n"
            + log[len(first_screen) :][-6000:]
        )
    )


def _noise(log: str) -> list[str]:
    """The lines of a server *log* that are not its address block: log records and warnings."""
    return [
        line
        for line in log.splitlines()
        if re.match(r"\[[IWE] ", line) or "WARNING" in line or "nbgrader_config" in line
    ]


#: In the page: mark every output the notebook holds now, so a later look can tell a new one.
_MARK_OUTPUTS = """() => {
    const outputs = [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output')];
    outputs.forEach(o => o.setAttribute('data-before-run', '1'));
    return outputs.length;
}"""


@pytest.mark.browser
@pytest.mark.slow
def test_run_all_clicked_before_the_kernel_exists_waits_and_runs_the_lesson(learner_lab, page):
    """The learner opens a lesson and clicks Run All before its kernel has started.

    JupyterLab 4.6 alone clears each cell and runs nothing, saying nothing. The learner's
    JupyterLab (learner_jupyter/extension) waits for the kernel and then runs every cell. The
    race is made certain: the request that creates the lesson's kernel session is held back
    until Run All has been clicked.
    """
    log_path, _work = learner_lab
    address = _printed_address(log_path)
    base = address.split("/lab/")[0]
    page.goto(address)  # the token's cookie, and a first kernel, for the start page
    wait_for_kernel_idle(page)

    held = []

    def hold_session_start(route):
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/sessions*", hold_session_start)
    page.goto(f"{base}/lab/workspaces/early/tree/{LESSON}")
    page.locator(".jp-NotebookPanel .jp-OutputArea-output").first.wait_for(timeout=60_000)
    stored = page.evaluate(_MARK_OUTPUTS)
    assert stored > 0, "the lesson opens with its stored outputs"
    deadline = time.monotonic() + 30
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert held, "the lesson's session request was not seen"

    run_menu_command(page, "Run", "Run All Cells")
    page.wait_for_timeout(1500)  # long enough for JupyterLab alone to have dropped the run
    waiting = page.locator(".jp-Notification-Toast, .Toastify__toast", has_text="still starting")
    assert waiting.count() >= 1, "the learner is told the cells wait for the kernel"
    for route in held:
        route.continue_()
    page.unroute("**/api/sessions*")

    # Stored counts would pass for a run: the run is over once no stored output is left, every
    # cell has a count again and nothing is queued (or once the harness's state says it failed).
    ended = f"""() => {{
        const state = ({RUN_STATE})();
        if (state !== null && state !== 'done') return state;
        const stored = document.querySelectorAll('.jp-NotebookPanel [data-before-run]').length;
        return state === 'done' && stored === 0 ? 'ran' : null;
    }}"""
    state = page.wait_for_function(ended, timeout=300_000, polling=250).json_value()
    assert state == "ran", f"Run All ended {state!r}\n{error_outputs(page)}"
    assert error_outputs(page) == []
    assert page.locator(".jp-NotebookPanel .jp-OutputArea-output").count() > 0
