"""Drive a real JupyterLab in headless Chromium: start a private server, open, run, interact.

Any lesson's browser test reuses these. A server runs on a free loopback port with no
token, private config/settings/workspace/runtime folders (so nothing of the machine's
own Jupyter set-up leaks in), no news pop-up, and its root in a scratch copy of the
notebooks, so the autosave of a browser-run notebook never touches the repository.
Playwright drives Debian's ``/usr/bin/chromium``; no browser is ever downloaded.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_notebook

from tests.browser import kernel_wire

CHROMIUM = Path("/usr/bin/chromium")
#: Flags Chromium needs as root in a container with a small /dev/shm and no GPU.
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage")
#: Where screenshots go: never into git. Override with WINDOWMEM_ARTIFACTS.
ARTIFACTS = Path(
    os.environ.get("WINDOWMEM_ARTIFACTS", Path(tempfile.gettempdir()) / "windowmem-artifacts")
)
VIEWPORT = {"width": 1400, "height": 1000}

#: JupyterLab user settings that keep runs repeatable: every cell stays in the DOM (so a
#: test can read any output), and no news or update notifications cover the page.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


#: The servers started here, by URL: a failure message on a page quotes its server's log.
_SERVERS: dict[str, LabServer] = {}
#: What each page's browser console printed (warnings, errors, kernel states); a page's entry goes with it.
_CONSOLE: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()
#: Each page's kernel websocket traffic (see kernel_wire), quoted when a Run All stops.
_WIRE: weakref.WeakKeyDictionary[Any, kernel_wire.WireLog] = weakref.WeakKeyDictionary()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LabServer:
    """A running JupyterLab: its base *url*, its *root* folder, its process and log."""

    url: str
    root: Path
    process: subprocess.Popen
    log_path: Path

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's log, for failure messages."""
        return self.log_path.read_text(errors="replace")[-chars:]

    def end_sessions(self) -> None:
        """Shut down every notebook session and its kernel, so a test leaves none running.

        Otherwise every kernel a worker's tests started would live on, beside the next
        test's, until the server stops.
        """
        # A DELETE needs the server's XSRF cookie back as a header, as the browser sends it.
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(f"{self.url}/api/sessions", timeout=10) as response:
            sessions = json.load(response)
        if not sessions:
            return
        opener.open(f"{self.url}/lab", timeout=30).close()
        xsrf = next((c.value for c in jar if c.name == "_xsrf"), "")
        for session in sessions:
            request = urllib.request.Request(
                f"{self.url}/api/sessions/{session['id']}",
                method="DELETE",
                headers={"X-XSRFToken": xsrf},
            )
            opener.open(request, timeout=30).close()

    def stop(self) -> None:
        """Stop the server and its kernels (its own process group), by PID."""
        _SERVERS.pop(self.url, None)
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)


def write_lab_settings(folder: Path) -> Path:
    """Write LAB_SETTINGS into *folder*, for ``--LabApp.user_settings_dir``; *folder*."""
    for name, settings in LAB_SETTINGS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    return folder


def start_lab(
    root: Path,
    scratch: Path,
    timeout_s: float = 90,
    extra_args: tuple[str, ...] = (),
    browser: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> LabServer:
    """Start JupyterLab serving *root*, with its private folders under *scratch*.

    *extra_args* go at the end of the command line (a notebook to open, as ``make course``
    gives). With *browser* (a command with ``%s`` for the address), JupyterLab "opens" what
    it would show a person by running that command; without it, no browser is opened.
    *extra_env* is added to the server's environment (overriding any variable above).
    """
    write_lab_settings(scratch / "settings")
    for folder in ("config", "runtime", "workspaces", "ipython"):
        (scratch / folder).mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {
        **os.environ,
        # The kernel spec runs "python": make it this interpreter, with windowmem installed.
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "JUPYTER_CONFIG_DIR": str(scratch / "config"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        # The kernels' IPython profile and history database too: every other kernel the
        # suite starts writes ~/.ipython's at the same time.
        "IPYTHONDIR": str(scratch / "ipython"),
        **(extra_env or {}),
    }
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.browser={browser}" if browser else "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={scratch / 'workspaces'}",
        f"--LabApp.user_settings_dir={scratch / 'settings'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # window.jupyterapp: the harness reads a notebook's session from JupyterLab itself
        # (see wait_for_kernel_idle), as the page's indicators can read "idle" too early.
        "--LabApp.expose_app_in_browser=True",
        *extra_args,
    ]
    log_path = scratch / "jupyterlab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = LabServer(f"http://127.0.0.1:{port}", root, process, log_path)
    _SERVERS[server.url] = server
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"JupyterLab exited with code {process.returncode}:\n{server.log_tail()}"
            )
        try:
            with urllib.request.urlopen(f"{server.url}/api/status", timeout=2) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"JupyterLab did not answer within {timeout_s:.0f} s:\n{server.log_tail()}")


def copy_notebooks(source: Path, destination: Path) -> Path:
    """A scratch copy of the notebooks in *source* (the browser's autosave writes there)."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return destination


def pristine_notebook(server: LabServer, source: Path) -> str:
    """A fresh copy of *source* in the server's root, under a name no earlier test opened.

    A test that reads a notebook's stored outputs opens this, not the shared copy: a test
    that ran the shared copy has cleared and re-run it, and JupyterLab's autosave wrote
    that to disk.
    """
    name = f"pristine-{uuid.uuid4().hex[:8]}-{source.name}"
    shutil.copyfile(source, server.root / name)
    return name


def write_notebook(server: LabServer, name: str, cells: list) -> str:
    """Write a Python 3 notebook of nbformat *cells* to *name* in the server's root; *name*."""
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, server.root / name)
    return name


def open_notebook(page, server: LabServer, relative_path: str, timeout_s: float = 60) -> None:
    """Open *relative_path* alone in a fresh JupyterLab workspace and wait until its kernel is idle.

    See :func:`show_notebook` and :func:`wait_for_kernel_idle`.
    """
    show_notebook(page, server, relative_path, timeout_s)
    wait_for_kernel_idle(page, timeout_s)


def show_notebook(page, server: LabServer, relative_path: str, timeout_s: float = 60) -> None:
    """Open *relative_path* alone in a fresh JupyterLab workspace and wait until it shows.

    Its kernel may not exist yet. A new workspace per call keeps notebooks opened by
    earlier tests out of this page (JupyterLab would otherwise restore them as tabs
    beside this one).
    """
    if page not in _CONSOLE:
        lines = _CONSOLE[page] = []
        page.on(
            "console",
            lambda message: (
                lines.append(f"{message.type}: {message.text}")
                # JupyterLab logs a kernel's changes of state other than busy and idle
                # ("Kernel: restarting (id)") at debug level: kept, as a dropped run needs them.
                if message.type in ("warning", "error") or message.text.startswith("Kernel: ")
                else None
            ),
        )
    if page not in _WIRE:
        _WIRE[page] = kernel_wire.record(page)
    workspace = f"test-{uuid.uuid4().hex[:12]}"
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{relative_path}")
    page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(
        state="visible", timeout=timeout_s * 1000
    )


#: In the page: the notebook's session as JupyterLab itself holds it (needs the app exposed,
#: as start_lab does). "ready" once the notebook has a kernel that is connected and idle
#: and its toolbar indicator agrees; else what it lacks. The indicator alone cannot tell:
#: it reads "idle" (its default) from the moment it is drawn, seconds before a busy server
#: has started any kernel, and a Run All clicked then starts a second kernel and drops
#: the cells.
_KERNEL_READY = """() => {
    const app = window.jupyterapp;
    if (!app) return 'no window.jupyterapp: start JupyterLab with start_lab';
    const panels = [...app.shell.widgets('main')].filter(w => w.node.classList.contains('jp-NotebookPanel'));
    const panel = panels.includes(app.shell.currentWidget) ? app.shell.currentWidget : panels[0];
    if (!panel) return 'no notebook open';
    const context = panel.sessionContext;
    const kernel = context.session?.kernel ?? null;
    if (!context.isReady || kernel === null) return 'no kernel yet: ' + context.kernelDisplayStatus;
    if (kernel.connectionStatus !== 'connected') return 'kernel ' + kernel.connectionStatus;
    if (kernel.status !== 'idle') return 'kernel ' + kernel.status;
    const indicator = panel.node.querySelector('.jp-Notebook-ExecutionIndicator');
    if (indicator === null || indicator.getAttribute('data-status') !== 'idle') return 'indicator not yet idle';
    return 'ready';
}"""


def kernel_state(page) -> str:
    """The open notebook's kernel as JupyterLab holds it: "ready", or what it lacks."""
    return page.evaluate(_KERNEL_READY)


def wait_for_kernel_idle(page, timeout_s: float = 60) -> None:
    """Wait until the notebook has its kernel, connected and idle, and its indicator says so."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            f"() => ({_KERNEL_READY})() === 'ready'", timeout=timeout_s * 1000, polling=100
        )
    except PlaywrightTimeout:
        raise AssertionError(
            f"the notebook's kernel was not ready within {timeout_s:g} s "
            f"({kernel_state(page)})\n{notebook_state(page)}"
        ) from None


def run_menu_command(page, menu: str, item: str) -> None:
    """Click *item* in the menu bar's *menu*, as a person would, and wait for the menu to close.

    The wait keeps a second command from clicking into a menu that is still closing.
    """
    page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^{re.escape(menu)}$")).first.click()
    page.locator(".lm-Menu-item:visible", has_text=re.compile(rf"^{re.escape(item)}")).first.click()
    page.locator(".lm-Menu:visible").first.wait_for(state="hidden", timeout=10_000)


#: Code cells' real prompts (a folded cell's placeholder prompt never gets a count).
_PROMPTS = ".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)"

#: In the page: how far a Run All has got. "done" once every code cell has a count, "error"
#: once any output shows a traceback (JupyterLab then drops the cells still queued, so
#: waiting longer would only burn the timeout), the kernel's state when it died or is
#: restarting, "a dialog opened" (how JupyterLab reports a kernel that died), or "cells
#: dropped" when the kernel is idle with nothing queued and cells still uncounted; else null.
_RUN_STATE = """() => {
    const prompts = [...document.querySelectorAll('__PROMPTS__')];
    const status = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
    const kernel = status === null ? '' : status.getAttribute('data-status');
    if (['dead', 'terminating', 'restarting', 'autorestarting'].includes(kernel)) return 'kernel ' + kernel;
    // JupyterLab tells of a kernel that died (and restarts it) in a dialog.
    if (document.querySelector('.jp-Dialog') !== null) return 'a dialog opened';
    const errors = [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
        .filter(o => /Traceback|^\\w+Error\\b/m.test(o.textContent));
    if (errors.length > 0) return 'error';
    if (prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent))) return 'done';
    // Nothing queued or running, yet cells without a count: the rest of the run was dropped.
    if (kernel === 'idle' && !prompts.some(p => /\\[\\*\\]/.test(p.textContent))) return 'cells dropped';
    return null;
}""".replace("__PROMPTS__", _PROMPTS)
#: The same, for a test that clicks Run All its own way.
RUN_STATE = _RUN_STATE


#: In the page: true once no code cell is queued or running ([*]).
_NOTHING_QUEUED = f"() => ![...document.querySelectorAll('{_PROMPTS}')].some(p => /\\[\\*\\]/.test(p.textContent))"

_STARTED = f"() => [...document.querySelectorAll('{_PROMPTS}')].some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"


def run_all_cells(page, timeout_s: float = 300) -> None:
    """Run every cell (Run > Run All Cells) and wait until each code cell has run.

    Stored outputs are cleared first, so a stored execution count cannot pass for a new one.
    A folded cell (the lessons' maintainer checks) shows an empty placeholder prompt that
    never gets a count; its real prompt, hidden with the input, does, and is the one read.
    A traceback, a dead or restarting kernel, a kernel dialog, or a run that JupyterLab
    dropped part-way (the kernel idle, nothing queued, cells without a count) ends the
    wait at once and fails, saying which cells ran, which one was running, the kernel's
    state, the tracebacks, the browser console and every kernel message on the wire.
    Nothing is run twice: a run that stops is a failure to read, not to retry.
    """
    state, why = _run_all_once(page, timeout_s)
    if state != "done":
        raise AssertionError(f"Run All stopped ({state})\n{why}")
    wait_for_kernel_idle(page, timeout_s)


def _run_all_once(page, timeout_s: float) -> tuple[str, str]:
    """Clear, Run All, wait: the end state (see ``_RUN_STATE``) and, unless done, why."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    run_menu_command(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{_PROMPTS}')].every(p => !/\\[\\d+\\]/.test(p.textContent))",
        timeout=timeout_s * 1000,
    )
    # A queued cell shows [*] at once, the kernel being ready (open_notebook waited for it).
    # A Run All that queued nothing used to be clicked again. What left it unqueued was the
    # click racing the kernel's start (see _KERNEL_READY; with the old wait the slow-session
    # test shows exactly that), and a second click only started another kernel.
    run_menu_command(page, "Run", "Run All Cells")
    try:
        page.wait_for_function(_STARTED, timeout=15_000)
    except PlaywrightTimeout:
        raise AssertionError(
            f"Run > Run All Cells was clicked and no cell was queued\n{notebook_state(page)}"
        ) from None
    try:
        state = page.wait_for_function(
            _RUN_STATE, timeout=timeout_s * 1000, polling=250
        ).json_value()
    except PlaywrightTimeout:
        raise AssertionError(
            f"Run All did not finish within {timeout_s:g} s\n{notebook_state(page)}"
        ) from None
    if state == "error":
        # The traceback shows before the kernel's "aborted" replies reach the cells queued
        # behind it: wait for those to lose their [*], so the report shows what was dropped.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(_NOTHING_QUEUED, timeout=30_000, polling=100)
    return state, "" if state == "done" else notebook_state(page)


def notebook_state(page) -> str:
    """What a failure message needs: each code cell's prompt, the kernel, any dialog or traceback."""
    prompts = [t.strip() or "[ ]" for t in page.locator(_PROMPTS).all_inner_texts()]
    status = page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator").first
    kernel = status.get_attribute("data-status") if status.count() else "no indicator"
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    lines = [
        f"kernel: {kernel}",
        "code cell prompts: " + " ".join(f"{i}:{p}" for i, p in enumerate(prompts)),
    ]
    lines += [f"dialog: {' '.join(d.split())}" for d in dialogs]
    lines += [f"traceback:\n{text[-2000:]}" for text in error_outputs(page)]
    console = _CONSOLE.get(page, [])
    if console:
        lines.append("browser console (last 15 warnings, errors and kernel states):")
        lines += [f"  {line[:300]}" for line in console[-15:]]
    wire = _WIRE.get(page)
    if wire is not None:
        lines.append("kernel websocket messages (last 80; seconds since the page opened):")
        lines += [f"  {line}" for line in wire.lines()]
    server = next((s for url, s in _SERVERS.items() if page.url.startswith(url)), None)
    if server is not None:
        lines.append(f"JupyterLab log (end):\n{server.log_tail(2500)}")
    return "\n".join(lines)


def error_outputs(page) -> list[str]:
    """The text of every traceback the notebook shows (empty when all cells succeeded)."""
    texts = page.locator(".jp-OutputArea-output").all_inner_texts()
    return [t for t in texts if "Traceback" in t or re.search(r"^\w+Error\b", t, re.M)]


def slider(page, css_class: str):
    """The ipywidgets slider carrying *css_class* (set in Python with ``add_class``)."""
    return page.locator(f".widget-slider.{css_class}").first


def slider_value(page, css_class: str) -> int:
    """The integer the slider's readout shows."""
    return int(slider(page, css_class).locator(".widget-readout").inner_text().strip())


def type_slider_value(page, css_class: str, value: int) -> None:
    """Type *value* into the slider's readout and press Enter, as a person can."""
    readout = slider(page, css_class).locator(".widget-readout")
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def nudge_slider(page, css_class: str, steps: int) -> None:
    """Move the slider's handle *steps* notches with the arrow keys (negative: left)."""
    handle = slider(page, css_class).locator(".noUi-handle")
    handle.focus()
    key = "ArrowRight" if steps > 0 else "ArrowLeft"
    for _ in range(abs(steps)):
        page.keyboard.press(key)


def drag_slider_to_fraction(page, css_class: str, fraction: float) -> None:
    """Drag the slider's handle with the mouse to *fraction* (0 to 1) of the track."""
    track = slider(page, css_class).locator(".noUi-base")
    handle = slider(page, css_class).locator(".noUi-handle")
    box, grip = track.bounding_box(), handle.bounding_box()
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + fraction * box["width"], grip["y"] + grip["height"] / 2, steps=8)
    page.mouse.up()


def screenshot(page, name: str) -> Path:
    """Save a full-page PNG screenshot under the artifacts folder; its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
