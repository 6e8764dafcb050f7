"""The window explorer's HTML: what it shows, what it escapes, where it highlights the fact."""

from __future__ import annotations

import re

from tests.explorer.conftest import view_of
from windowmem.explorer.window_html import render_error, render_window_html
from windowmem.messages import assistant, user


class TestHtml:
    def test_shows_the_visible_turns_and_fact_verdict(self, marta):
        page = render_window_html(view_of(marta, 5, 7, fact="#6023"), "Qwen tokens")
        assert re.search(r'class="wm-visible-turns">2–6<', page)
        assert re.search(r'class="wm-evicted-turns">1<', page)
        assert 'still stores them): turn <b class="wm-evicted-turns">' in page  # one turn: "turn"
        assert 'turns <b class="wm-visible-turns">2–6' in page
        assert 'data-fact-visible="false"' in page and 'data-window="5" data-turn="7"' in page
        assert "Qwen tokens this call" in page

    def test_escapes_message_text(self):
        page = render_window_html(
            view_of([user("<script>alert(1)</script>"), assistant("ok"), user("next")], 5, 2)
        )
        assert "<script>alert" not in page and "&lt;script&gt;" in page

    def test_highlights_the_fact_only_where_it_appears(self, marta):
        page = render_window_html(view_of(marta, 10, 7, fact="#6023"))
        assert (
            len(re.findall(r'<mark class="wm-hit"[^>]*>#6023</mark>', page)) == 2
        )  # Marta's message and the reply

    def test_no_fact_asks_for_one(self, marta):
        view = view_of(marta, 5, 7, fact="   ")
        assert view.fact_visible is None and "Type a fact" in render_window_html(view)

    def test_error_pane_escapes_and_shows_the_message(self):
        assert "line 1 &lt;x&gt;" in render_error("line 1 <x>")
