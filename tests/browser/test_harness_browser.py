"""The browser harness itself: a failing Run All says what failed instead of timing out."""

from __future__ import annotations

import json
import re
import urllib.request
import warnings

import pytest
from nbformat.v4 import new_code_cell

from tests.browser.lab_harness import open_notebook, run_all_cells, write_notebook

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


def test_no_session_outlives_the_previous_test(lab_server):
    """The autouse teardown shut down the kernels the tests above started (one was still busy)."""
    with urllib.request.urlopen(f"{lab_server.url}/api/sessions", timeout=10) as response:
        assert json.load(response) == []
