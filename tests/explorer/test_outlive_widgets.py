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


def test_the_store_menu_offers_n8n_s_stores_unless_told_otherwise():
    from windowmem.outlive.store_scenarios import N8N_STORES, STORES

    assert list(OutliveExplorer().store.options) == list(N8N_STORES)
    assert not any(s.startswith("Spring AI") for s in N8N_STORES)
    spring = OutliveExplorer(stores=STORES, store="Spring AI JDBC (maxMessages 4)")
    assert list(spring.store.options) == list(STORES)
    with pytest.raises(ValueError, match="store one of them"):
        OutliveExplorer(store="Spring AI JDBC (maxMessages 4)")


def test_two_requests_on_two_workers_own_maps_say_why_nothing_changed():
    from windowmem.outlive.store_scenarios import play_scenario

    overlap = play_scenario("Simple Memory (in-process)", 2, "two requests at once")
    nothing = play_scenario("Simple Memory (in-process)", 2, "nothing")
    assert [c.sent for c in overlap] == [c.sent for c in nothing]
    assert "changed nothing" in overlap[3].note and "changed nothing" in overlap[4].note
