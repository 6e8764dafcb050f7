"""The token-budget explorer's HTML: the bar, the figures and the dots match the view; text is escaped."""

from __future__ import annotations

import re

from tests.explorer.conftest import view_at
from windowmem.explorer.budget_html import render_budget_html


def test_html_shows_the_view(runs):
    view = view_at(runs, 1000, "compact (lossy)", 20)
    page = render_budget_html(view)
    assert f'data-used="{view.used}"' in page and f'data-budget="{view.budget}"' in page
    assert page.count('class="wm-dot ') == view.task_size
    assert page.count("wm-dot wm-held") == len(view.facts_held)
    assert page.count('class="wm-seg wm-seg-') == len(view.entries)
    assert re.search(rf'<b class="wm-running-bill"[^>]*>{view.input_tokens:,}</b>', page)
    assert "compact (lossy)" in page


def test_html_escapes_question_text(runs):
    view = view_at(runs, 1500, "truncate", -1)
    tricky = view.__class__(
        **{**view.__dict__, "questions": ("<b>bold?</b>",) + view.questions[1:]}
    )
    page = render_budget_html(tricky)
    assert "<b>bold?</b>" not in page and "&lt;b&gt;bold?&lt;/b&gt;" in page


def test_styles_are_inline_like_the_window_explorer_s(runs, marta):
    """No style sheet, which an untrusted notebook would drop: every coloured part says its colour."""
    from tests.explorer.conftest import view_of
    from windowmem.explorer.window_html import render_window_html

    pages = [render_budget_html(view_at(runs, 1000, "compact (lossy)", 20))]
    pages.append(render_window_html(view_of(marta, 5, 7)))
    for page in pages:
        assert "<style" not in page and "class=" in page
    segments = re.findall(r'<div class="wm-seg [^"]*" style="([^"]*)"', pages[0])
    assert segments and all("background:#" in style for style in segments)
    dots = re.findall(r'<span class="wm-dot [^"]*" style="([^"]*)"', pages[0])
    assert dots and all("background:#" in style for style in dots)
