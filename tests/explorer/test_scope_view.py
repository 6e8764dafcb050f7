"""The scope explorer's pure view and its HTML, checked against run_script and hand-worked cases."""

from __future__ import annotations

import html

import pytest

from windowmem.errors import WindowMemError
from windowmem.explorer.scope_view import (
    ScopeRuns,
    render_scope_html,
    request_positions,
    scope_view,
)
from windowmem.explorer.scope_widgets import ScopeExplorer
from windowmem.shared_agent import BETWEEN, KEY_CHOICES, STORE_KINDS, run_script, support_desk

RUNS = ScopeRuns()


@pytest.mark.parametrize("between", list(BETWEEN))
@pytest.mark.parametrize("store", STORE_KINDS)
@pytest.mark.parametrize("choice", [c.name for c in KEY_CHOICES])
def test_every_view_matches_the_run_it_shows(choice, store, between):
    template = next(c.template for c in KEY_CHOICES if c.name == choice)
    run = run_script(support_desk(between), template, store)
    for number, call in enumerate(run.calls, start=1):
        view = scope_view(RUNS, choice, store, between, number)
        assert view.key == call.key and view.position == call.position
        assert [line.message for line in view.prompt[:-1]] == list(call.window)
        assert (
            view.prompt[-1].origin is None and view.prompt[-1].message.content == call.request.text
        )
        assert view.foreign_customers == tuple(dict.fromkeys(r.customer for r in call.foreign))
        page = render_scope_html(view)
        assert f'data-request="{number}"' in page
        assert html.escape(call.request.text) in page


def test_buffers_held_before_the_call():
    after_restart = scope_view(RUNS, "per user", "in-process", "the agent restarts", 5)
    assert after_restart.held == ()
    assert 'data-buffers="0"' in render_scope_html(after_restart)
    kept = scope_view(RUNS, "per user", "sqlite", "the agent restarts", 5)
    assert kept.held == (("user:u-1", ("Marta", "Carlos")), ("user:u-2", ("Lucía",)))


def test_the_page_names_the_causes_and_the_leak():
    scope = render_scope_html(scope_view(RUNS, "per thread", "sqlite", "nothing", 5))
    assert 'data-causes="scope"' in scope and "wm-cause-scope" in scope
    storage = render_scope_html(scope_view(RUNS, "composite", "in-process", "61 minutes pass", 6))
    assert 'data-causes="storage"' in storage and "wm-swept" not in storage
    leak = render_scope_html(scope_view(RUNS, "constant", "sqlite", "nothing", 5))
    assert 'data-foreign="Carlos Lucía"' in leak and "wm-foreign" in leak


def test_request_numbers_skip_restarts_and_pauses():
    assert request_positions("nothing") == (0, 1, 2, 3, 4, 5, 6)
    assert request_positions("the agent restarts") == (0, 1, 2, 3, 5, 6, 7)
    with pytest.raises(WindowMemError, match="requests 1 to 7"):
        scope_view(RUNS, "per user", "sqlite", "nothing", 8)
    with pytest.raises(WindowMemError, match="unknown store"):
        scope_view(RUNS, "per user", "redis", "nothing", 1)  # type: ignore[arg-type]


def test_the_widgets_follow_their_controls():
    explorer = ScopeExplorer()
    assert 'data-choice="per user"' in explorer.output.value
    explorer.choice.value = "constant"
    explorer.store.value = "sqlite"
    explorer.between.value = "the agent restarts"
    explorer.request.value = 7
    expected = render_scope_html(scope_view(RUNS, "constant", "sqlite", "the agent restarts", 7))
    assert explorer.output.value == expected
    assert explorer.snapshot_html().endswith(expected)
    with pytest.raises(WindowMemError):
        ScopeExplorer(request=9)
