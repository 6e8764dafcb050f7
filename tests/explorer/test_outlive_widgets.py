"""The outlive explorer's widgets recompute the pure view when a control moves."""

from __future__ import annotations

import pytest

from windowmem.explorer.outlive_html import render_outlive_html
from windowmem.explorer.outlive_view import outlive_view
from windowmem.explorer.outlive_widgets import OutliveExplorer


def test_each_control_moves_the_view():
    explorer = OutliveExplorer()
    assert explorer.output.value == render_outlive_html(
        outlive_view("Simple Memory (in-process)", 1, "nothing", 4)
    )
    explorer.workers.value = 2
    explorer.event.value = "the agent restarts"
    explorer.store.value = "n8n Postgres table"
    explorer.call.value = 6
    assert explorer.output.value == render_outlive_html(
        outlive_view("n8n Postgres table", 2, "the agent restarts", 6)
    )
    assert explorer.snapshot_html().endswith(explorer.output.value)


def test_a_bad_starting_call_is_refused():
    with pytest.raises(ValueError):
        OutliveExplorer(call=9)
