"""The token-budget explorer's view as HTML: one self-contained fragment, inline styles, no script.

The same fragment is the live widget's content and the static snapshot a notebook
stores for readers without a kernel. Styles are inline, as in
:mod:`~windowmem.explorer.window_html`: JupyterLab drops ``<style>`` elements from the
outputs of an untrusted notebook (one opened without running it) and keeps inline
properties it knows, so the snapshot looks the same with or without a kernel
(``tests/browser/test_snapshot_styles_browser.py`` shows both). Class names stay, for
the tests to find each part.
"""

from __future__ import annotations

import html

from windowmem.explorer.budget_view import BudgetView
from windowmem.explorer.styles import exported_styles

#: The colour of each kind of entry in the bar and its key.
_SEGMENT_COLOUR = {
    "system": "#8250df",
    "task": "#6e7781",
    "read": "#2da44e",
    "summary": "#bf8700",
    "reference": "#0969da",
}
#: A read that holds none of the task's facts.
_FACTLESS_READ = "#9be9a8"
_ROOT = (
    "font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px"
)
_HEADLINE = "font-size:14px;margin:4px 0 8px"
_SECTION = "margin:10px 0 4px;font-size:13px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_BAR = "position:relative;height:26px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;overflow:hidden"
_SEGMENT = "position:absolute;top:0;bottom:0;border-right:1px solid #fff"
_LIMIT = "position:absolute;top:0;bottom:0;border-left:3px dashed #cf222e"
_KEY_SWATCH = "display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle"
_FIGURE = "display:inline-block;vertical-align:top;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;min-width:140px;margin:6px 10px 6px 0"
_NUMBER = "display:block;font-size:18px;font-weight:600"
_OVER = "color:#cf222e"
_DOT = "display:inline-block;border-radius:50%;width:26px;height:26px;line-height:26px;text-align:center;font-size:11px;margin:0 4px 4px 0"
# Text colours keep WCAG AA contrast (4.5:1); the website's axe check holds them to it.
_HELD = "background:#1a7f37;color:#fff"
_GONE = "background:#eaeef2;color:#57606a"
_ENTRIES = "max-height:320px;overflow:auto;border:1px solid #d0d7de;border-radius:6px"
_TABLE = "border-collapse:collapse;width:100%;margin:0;font-size:13px"
_CELL = (
    "padding:3px 8px;border:none;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top"
)


def _colour(kind: str, holds_a_fact: bool = True) -> str:
    return _FACTLESS_READ if kind == "read" and not holds_a_fact else _SEGMENT_COLOUR[kind]


def _section(title: str) -> str:
    return f'<h4 style="{_SECTION}">{title}</h4>'


def _bar_html(view: BudgetView) -> str:
    segments, left = [], 0
    for entry in view.entries:
        width = 100 * entry.tokens / view.scale
        factless = " wm-nofact" if entry.kind == "read" and not entry.facts else ""
        segments.append(
            f'<div class="wm-seg wm-seg-{entry.kind}{factless}" style="{_SEGMENT};'
            f'left:{100 * left / view.scale:.2f}%;width:{width:.2f}%;background:{_colour(entry.kind, bool(entry.facts))}"'
            f' title="{html.escape(entry.label)}: {entry.tokens} tokens"></div>'
        )
        left += entry.tokens
    limit = (
        f'<div class="wm-limit" style="{_LIMIT};left:{100 * view.budget / view.scale:.2f}%" '
        f'title="budget: {view.budget} tokens"></div>'
    )
    key = "".join(
        f'<span style="margin-right:12px"><i class="wm-seg-{kind}{extra}" '
        f'style="{_KEY_SWATCH};background:{_colour(kind, not extra)}"></i>{label}</span>'
        for kind, extra, label in _KEY
    )
    return (
        f'<div class="wm-bar" data-used="{view.used}" data-budget="{view.budget}" style="{_BAR}">'
        f"{''.join(segments)}{limit}</div>"
        f'<div class="wm-bar-key">{key}<span>dashed red line: the budget</span></div>'
    )


def _figure(label: str, number: str, note: str, css: str, *, over: bool = False) -> str:
    figure_class = "wm-figure wm-over" if over else "wm-figure"
    number_style = f"{_NUMBER};{_OVER}" if over else _NUMBER
    return (
        f'<div class="{figure_class}" style="{_FIGURE}">{label}'
        f'<b class="{css}" style="{number_style}">{number}</b>{note}</div>'
    )


def _figures_html(view: BudgetView) -> str:
    over = view.over_budget
    return (
        '<div class="wm-figures">'
        + _figure(
            "call's size / budget",
            f"{view.used:,} / {view.budget:,}",
            "over budget: the policy acts next" if over else "tokens",
            "wm-used",
            over=over,
        )
        + _figure(
            "facts held",
            f"{len(view.facts_held)} / {view.task_size}",
            "questions answerable now",
            "wm-facts-held",
        )
        + _figure(
            "input bill so far",
            f"{view.input_tokens:,}",
            f"{view.calls} call(s), {view.reads} read(s), {view.compactions} compaction(s)",
            "wm-running-bill",
        )
        + _figure(
            "whole task",
            f"{view.final_input_tokens:,}",
            f"{view.final_answered} of {view.task_size} answered at the end",
            "wm-final-bill",
        )
        + "</div>"
    )


def _dots_html(view: BudgetView) -> str:
    held = set(view.facts_held)
    dots = "".join(
        f'<span class="wm-dot {"wm-held" if n in held else "wm-gone"}" '
        f'style="{_DOT};{_HELD if n in held else _GONE}" title="Q{n}: {html.escape(q)}">Q{n}</span>'
        for n, q in enumerate(view.questions, start=1)
    )
    return f'<div class="wm-dots">{dots}</div>'


def _entries_html(view: BudgetView) -> str:
    header = "".join(
        f'<th style="{_CELL}">{name}</th>' for name in ("entry", "what", "tokens", "facts")
    )
    rows = "".join(
        f'<tr><td style="{_CELL}">{entry.kind}</td><td style="{_CELL}">{html.escape(entry.label)}</td>'
        f'<td class="wm-num" style="{_CELL};text-align:right">{entry.tokens}</td>'
        f'<td style="{_CELL}">{", ".join(f"Q{n}" for n in entry.facts) or "—"}</td></tr>'
        for entry in view.entries
    )
    return (
        f'<div class="wm-entries" tabindex="0" aria-label="the context\'s entries" style="{_ENTRIES}"><table style="{_TABLE}"><tr>{header}</tr>'
        f"{rows}</table></div>"
    )


def render_budget_html(view: BudgetView) -> str:
    """The explorer's view as one self-contained HTML fragment (inline styles, no script)."""
    headline = (
        f"<b>{html.escape(view.corpus)}</b> task, policy <b>{html.escape(view.choice)}</b>, budget "
        f"<b>{view.budget:,}</b> tokens · step <b>{view.step}</b> of {view.step_count - 1}: "
        f"<i>{html.escape(view.event)}</i>, {html.escape(view.detail)}"
    )
    return (
        f'<div class="wm-budget" data-budget="{view.budget}" data-step="{view.step}" '
        f'data-choice="{html.escape(view.choice)}" style="{_ROOT}">'
        f'<div class="wm-headline" style="{_HEADLINE}">{headline}</div>'
        + _section("The call's size against the budget")
        + _bar_html(view)
        + _figures_html(view)
        + _section("Facts the window holds")
        + _dots_html(view)
        + _section("What the call carries: system prompt, task text, window")
        + _entries_html(view)
        + "</div>"
    )


#: The bar's key: (kind, extra class, label).
_KEY = (
    ("system", "", "system"),
    ("task", "", "task"),
    ("read", "", "read with a fact"),
    ("read", " wm-nofact", "read without"),
    ("summary", "", "summary"),
)


def site_styles() -> dict[str, object]:
    """The styles and labels above, for the website's script that draws this same HTML."""
    return exported_styles(globals())
