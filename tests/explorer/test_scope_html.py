"""The scope explorer's HTML names the key, the leak and the causes for the browser tests and the reader."""

from __future__ import annotations

import html

from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.explorer.scope_html import render_scope_html
from windowmem.explorer.scope_view import scope_view

RUNS = ScopeRuns()


def page(*settings):
    return render_scope_html(scope_view(RUNS, *settings))


def test_the_page_carries_the_settings_and_every_message():
    view = scope_view(RUNS, "per user", "in-process", "nothing", 5)
    text = render_scope_html(view)
    assert 'data-choice="per user"' in text and 'data-request="5"' in text
    assert '<code class="wm-key">user:u-1</code>' in text
    for line in view.prompt:
        assert html.escape(line.message.content) in text


def test_the_page_names_the_causes_and_the_leak():
    scope = page("per thread", "sqlite", "nothing", 5)
    assert 'data-causes="scope"' in scope and "wm-cause-scope" in scope
    storage = page("composite", "in-process", "61 minutes pass", 6)
    assert 'data-causes="storage"' in storage and "wm-swept" not in storage
    swept = page("composite", "in-process", "61 minutes pass", 5)
    assert "wm-swept" in swept
    leak = page("constant", "sqlite", "nothing", 5)
    assert 'data-foreign="Carlos Lucía"' in leak and "wm-foreign" in leak
    alone = page("tenant + user", "sqlite", "the agent restarts", 5)
    assert 'data-foreign=""' in alone and "only Marta" in alone


def test_an_empty_store_says_so():
    assert 'data-buffers="0"' in page("per user", "in-process", "the agent restarts", 5)
