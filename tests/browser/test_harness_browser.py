"""The browser harness itself: a failing Run All says what failed instead of timing out."""

from __future__ import annotations

import json
import re
import urllib.request

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
    sources = ["1", "import os; os._exit(1)", "3"]
    open_notebook(page, lab_server, probe(lab_server, "dying_probe.ipynb", sources))
    with (
        pytest.warns(UserWarning, match="a dialog opened"),
        pytest.raises(AssertionError) as failure,
    ):
        run_all_cells(page, timeout_s=120)
    message = str(failure.value)
    assert message.startswith("Run All stopped (")
    assert "Kernel Restarting" in message and "2:[ ]" in message


def test_a_kernel_that_died_once_is_restarted_and_the_run_repeated(lab_server, page):
    """JupyterLab restarts the kernel; the harness accepts its dialog and runs everything again."""
    dies_once = (
        "import os, pathlib\n"
        "flag = pathlib.Path('died_once.flag')\n"
        "if not flag.exists():\n"
        "    flag.write_text('')\n"
        "    os._exit(1)"
    )
    open_notebook(page, lab_server, probe(lab_server, "dies_once.ipynb", ["1", dies_once, "3"]))
    with pytest.warns(UserWarning, match="Kernel Restarting"):
        run_all_cells(page, timeout_s=120)
    prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt").all_inner_texts()
    assert [p.strip() for p in prompts] == ["[1]:", "[2]:", "[3]:"]


def dropping_cell(count: int, every_run: bool) -> str:
    """A cell that has ipykernel abort the *count* execute requests queued behind it.

    ipykernel does that after an error; here there is no error, so JupyterLab resets their
    prompts and shows nothing, which is how a dropped run looks. It sets ipykernel's
    private ``_aborting`` flag (this is a probe), read as each request leaves the queue,
    and clears it after *count* aborts, so no timing is involved.
    """
    guard = "True" if every_run else "not getattr(kernel, '_probe_dropped', False)"
    return f"""
kernel = get_ipython().kernel
if {guard}:
    kernel._probe_dropped = True
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


def test_a_dropped_run_is_run_again_with_a_warning(lab_server, page):
    open_notebook(
        page,
        lab_server,
        probe(lab_server, "drop_once.ipynb", [dropping_cell(2, every_run=False), "2", "3"]),
    )
    with pytest.warns(
        UserWarning, match=r"Run All stopped \(cells dropped\); running it again"
    ) as caught:
        run_all_cells(page, timeout_s=120)
    warning = str(caught[0].message)
    assert "1:[ ]" in warning
    # The kernel's own replies are quoted: the dropped cells' requests were answered "aborted".
    assert re.search(r"received shell execute_reply \w+ \(re \w+\) status=aborted", warning)
    prompts = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPrompt").all_inner_texts()
    assert all(re.fullmatch(r"\[\d+\]:", p.strip()) for p in prompts)


def test_a_run_dropped_twice_fails_and_says_so(lab_server, page):
    open_notebook(
        page,
        lab_server,
        probe(lab_server, "drop_always.ipynb", [dropping_cell(1, every_run=True), "2"]),
    )
    with pytest.warns(UserWarning), pytest.raises(AssertionError) as failure:
        run_all_cells(page, timeout_s=120)
    assert str(failure.value).startswith("Run All stopped (cells dropped)")
    assert "1:[ ]" in str(failure.value)


def test_no_session_outlives_the_previous_test(lab_server):
    """The autouse teardown shut down the kernels the tests above started (one was still busy)."""
    with urllib.request.urlopen(f"{lab_server.url}/api/sessions", timeout=10) as response:
        assert json.load(response) == []
