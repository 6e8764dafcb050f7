"""One explorer on the screen: once the kernel has run an explorer cell, only the live view shows.

A stored notebook shows each explorer's static snapshot (no kernel, no live widgets);
after the cell runs, the live widgets hide the snapshot above them
(``windowmem.explorer.live.HIDE_SNAPSHOT``), so moving a slider changes the one explorer
on the screen.
"""

from __future__ import annotations

import pytest

from tests.browser.lab_harness import (
    error_outputs,
    open_notebook,
    pristine_notebook,
    run_all_cells,
)
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "03_window_buffer_memory.ipynb"
#: The caption every snapshot starts with (windowmem.explorer.live.SNAPSHOT_CAPTION).
CAPTION = "Static snapshot of the explorer"


def test_the_live_explorer_replaces_its_snapshot(lab_server, page):
    name = pristine_notebook(lab_server, REPO_ROOT / "course" / NOTEBOOK)
    open_notebook(page, lab_server, name)
    snapshots = page.locator(".jp-OutputArea-child", has_text=CAPTION)
    assert snapshots.count() >= 1
    snapshots.first.scroll_into_view_if_needed()
    assert snapshots.first.is_visible(), "with no cell run, the stored snapshot is what shows"

    run_all_cells(page)
    assert error_outputs(page) == []
    live = page.locator(".wm-output").first
    live.scroll_into_view_if_needed()
    assert live.is_visible()
    assert snapshots.count() >= 1, "the snapshot is still in the outputs, for the saved file"
    shown = [index for index in range(snapshots.count()) if snapshots.nth(index).is_visible()]
    assert shown == [], f"{len(shown)} snapshots still show beside their live explorers"
