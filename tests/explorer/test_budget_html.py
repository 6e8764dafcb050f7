"""The token-budget explorer's HTML: the bar, the figures and the dots match the view; text is escaped."""

from __future__ import annotations

from tests.explorer.conftest import view_at
from windowmem.explorer.budget_html import render_budget_html


def test_html_shows_the_view(runs):
    view = view_at(runs, 1000, "compact (lossy)", 20)
    page = render_budget_html(view)
    assert f'data-used="{view.used}"' in page and f'data-budget="{view.budget}"' in page
    assert page.count('class="wm-dot ') == view.task_size
    assert page.count("wm-dot wm-held") == len(view.facts_held)
    assert page.count('class="wm-seg wm-seg-') == len(view.items)
    assert f'<b class="wm-running-bill">{view.input_tokens:,}</b>' in page
    assert "compact (lossy)" in page


def test_html_escapes_question_text(runs):
    view = view_at(runs, 1500, "truncate", -1)
    tricky = view.__class__(
        **{**view.__dict__, "questions": ("<b>bold?</b>",) + view.questions[1:]}
    )
    page = render_budget_html(tricky)
    assert "<b>bold?</b>" not in page and "&lt;b&gt;bold?&lt;/b&gt;" in page
