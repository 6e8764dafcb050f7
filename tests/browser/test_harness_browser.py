"""The browser harness itself: a failing Run All says what failed instead of timing out."""

from __future__ import annotations

import json
import os
import re
import urllib.request
import warnings

import pytest
from nbformat.v4 import new_code_cell

from tests.browser.lab_harness import (
    kernel_state,
    open_notebook,
    run_all_cells,
    show_notebook,
    start_lab,
    wait_for_kernel_idle,
    write_notebook,
)
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def probe(lab_server, name: str, sources: list[str]) -> str:
    """A notebook of code cells *sources* in the server's root; its name."""
    return write_notebook(lab_server, name, [new_code_cell(source) for source in sources])


def test_run_all_stops_at_a_traceback_and_names_it(lab_server, page):
    """JupyterLab drops the cells queued after an error; the harness reports it at once."""
    sources = [
        "print('first')",
        "raise ValueError('the probe failed on purpose')",
        "print('never run')",
    ]
    open_notebook(page, lab_server, probe(lab_server, "error_probe.ipynb", sources))
    with pytest.raises(AssertionError) as failure:
        run_all_cells(page, timeout_s=120)
    message = str(failure.value)
    assert message.startswith("Run All stopped (error)")
    assert "ValueError: the probe failed on purpose" in message
    assert "0:[1]" in message and "2:[ ]" in message


def test_run_all_past_its_time_says_which_cell_is_running(lab_server, page):
    open_notebook(
        page,
        lab_server,
        probe(lab_server, "slow_probe.ipynb", ["1", "import time; time.sleep(600)", "3"]),
    )
    with pytest.raises(AssertionError) as failure:
        run_all_cells(page, timeout_s=5)
    message = str(failure.value)
    assert message.startswith("Run All did not finish within 5 s")
    assert "0:[1]" in message and "1:[*]" in message and "kernel: busy" in message


def test_run_all_stops_when_the_kernel_dies(lab_server, page):
    """JupyterLab tells of the death in a dialog and restarts the kernel: the run fails at once."""
    sources = ["1", "import os; os._exit(1)", "3"]
    open_notebook(page, lab_server, probe(lab_server, "dying_probe.ipynb", sources))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is retried, so nothing warns
        with pytest.raises(AssertionError) as failure:
            run_all_cells(page, timeout_s=120)
    message = str(failure.value)
    assert message.startswith("Run All stopped (")
    assert "Kernel Restarting" in message and "2:[ ]" in message


def dropping_cell(count: int) -> str:
    """A cell that has ipykernel abort the *count* execute requests queued behind it.

    ipykernel does that after an error; here there is no error, so JupyterLab resets their
    prompts and shows nothing, which is how a dropped run looks. It sets ipykernel's
    private ``_aborting`` flag (this is a probe), read as each request leaves the queue,
    and clears it after *count* aborts, so no timing is involved.
    """
    return f"""
kernel = get_ipython().kernel
send_abort_reply, left = kernel._send_abort_reply, [{count}]
def abort_some(*args, **kwargs):
    send_abort_reply(*args, **kwargs)
    left[0] -= 1
    if left[0] == 0:
        kernel._aborting = False
        kernel._send_abort_reply = send_abort_reply
kernel._send_abort_reply = abort_some
kernel._aborting = True
"""


def test_a_dropped_run_fails_at_once_and_quotes_the_kernel_s_replies(lab_server, page):
    open_notebook(
        page,
        lab_server,
        probe(lab_server, "drop_once.ipynb", [dropping_cell(2), "2", "3"]),
    )
    with pytest.raises(AssertionError) as failure:
        run_all_cells(page, timeout_s=120)
    message = str(failure.value)
    assert message.startswith("Run All stopped (cells dropped)")
    assert "0:[1]" in message and "1:[ ]" in message and "2:[ ]" in message
    # The kernel's own replies are quoted: the dropped cells' requests were answered "aborted".
    assert (
        len(re.findall(r"received shell execute_reply \w+ \(re \w+\) status=aborted", message)) == 2
    )


def test_a_run_all_waits_for_a_kernel_the_server_is_slow_to_start(chromium_path, page, tmp_path):
    """Every cell runs, though the server takes seconds to list its sessions.

    JupyterLab lists them before it starts the notebook's kernel; until then the notebook
    has no kernel, yet its indicator reads "idle". A Run All clicked in that window starts
    a second kernel and drops the cells behind the first (as a busy CI machine once saw).
    """
    root = tmp_path / "root"
    root.mkdir()
    server = start_lab(
        root,
        tmp_path / "lab",
        extra_args=(
            "--ServerApp.session_manager_class=tests.browser.slow_sessions.SlowSessionManager",
        ),
        extra_env={
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])
            ),
        },
    )
    try:
        name = write_notebook(server, "slow_start.ipynb", [new_code_cell(str(n)) for n in range(6)])
        show_notebook(page, server, name, timeout_s=90)
        # The window is there: the indicator reads "idle", and the notebook has no kernel.
        page.locator(
            '.jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status="idle"]'
        ).wait_for(timeout=30_000)
        assert kernel_state(page).startswith("no kernel yet"), kernel_state(page)
        wait_for_kernel_idle(page, timeout_s=90)
        run_all_cells(page, timeout_s=120)
        prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt").all_inner_texts()
        assert [p.strip() for p in prompts] == [f"[{n}]:" for n in range(1, 7)]
    finally:
        server.stop()


def test_no_session_outlives_the_previous_test(lab_server):
    """The autouse teardown shut down the kernels the tests above started (one was still busy)."""
    with urllib.request.urlopen(f"{lab_server.url}/api/sessions", timeout=10) as response:
        assert json.load(response) == []
