"""Lesson 5's explorer view as one self-contained HTML fragment (inline styles only, no script).

The fragment is both the live widget's content and the notebook's static snapshot; an
untrusted notebook keeps inline styles and drops style sheets. Colours meet WCAG AA
contrast on white (text #1f2328; green #1a7f37, red #cf222e, purple #8250df, blue
#0969da; the fact's highlight is dark text on #fff8c5). CSS classes and ``data-``
attributes (``wm-design``, ``data-turn``, ``data-in-system``, ``wm-product``,
``data-place``, ``wm-fact``, ``wm-schedule``, ``data-saved``) are what the browser
test reads.
"""

from __future__ import annotations

import html

from windowmem.design.side_by_side import FactPlace
from windowmem.explorer.design_view import DesignView, ProductCell, ScheduleRow

_PLACE_COLOUR = {
    FactPlace.SYSTEM: "#8250df",
    FactPlace.MEMORY: "#1a7f37",
    FactPlace.INPUT: "#0969da",
    FactPlace.NOT_SENT: "#cf222e",
}
_CARD = (
    "display:inline-block;vertical-align:top;width:31%;min-width:260px;margin:0 1% 10px 0;"
    "border:1px solid #d0d7de;border-radius:6px;padding:6px 8px;box-sizing:border-box"
)
_LIST = "max-height:220px;overflow:auto;margin:4px 0 0;padding:0;list-style:none;font-size:12px;overflow-wrap:anywhere"
_CELL = "padding:2px 8px;border-bottom:1px solid #eaeef2;text-align:right"
_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_MARK = "background:#fff8c5;color:#1f2328;font-weight:600;padding:0 2px"


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{title}</div>'


def _line(role: str, text: str, has_fact: bool, fact: str) -> str:
    shown = html.escape(text) or "<i>(empty)</i>"
    if has_fact:
        shown = shown.replace(
            html.escape(fact), f'<mark class="wm-fact" style="{_MARK}">{html.escape(fact)}</mark>'
        )
    return (
        f'<li style="padding:1px 0;border-bottom:1px solid #eaeef2">'
        f'<b style="display:inline-block;min-width:62px">{role}</b> {shown}</li>'
    )


def _then(cell: ProductCell) -> str:
    # A window in tokens or items is filled by the new question too: say the whole amount.
    if cell.counts_tokens_or_items:
        return f"{html.escape(cell.amount)} with the new question"
    return "then the new question"


def _card(cell: ProductCell, fact: str) -> str:
    colour = _PLACE_COLOUR[cell.place]
    lines = "".join(_line(s.role, s.text, s.has_fact, fact) for s in cell.lines)
    return (
        f'<div class="wm-product" data-policy="{html.escape(cell.policy)}" '
        f'data-place="{cell.place.value}" data-messages="{len(cell.lines)}" style="{_CARD}">'
        f'<div style="font-weight:600">{html.escape(cell.product)}</div>'
        f'<div style="color:#57606a" data-memory-messages="{cell.memory_messages}">'
        f"window {html.escape(cell.size)}; {html.escape(cell.memory_line)}; {_then(cell)}</div>"
        f'<div style="color:{colour};font-weight:600">{html.escape(fact)}: {cell.place.value}</div>'
        # The list scrolls, so it takes keyboard focus (WCAG 2.1.1): arrow keys can read it.
        f'<ul tabindex="0" aria-label="{html.escape(cell.product)}: the array sent" '
        f'style="{_LIST}">{lines}</ul></div>'
    )


def _seen(row: ScheduleRow) -> str:
    if row.summary_sent is None:
        return "no summary yet"
    return "summary sent" if row.summary_sent else '<b style="color:#cf222e">summary cut</b>'


def _schedule(view: DesignView) -> str:
    head = "".join(
        f'<th style="{_CELL}">{h}</th>'
        for h in ("turn", "window, no summary", "whole history", "with the summary", "summary", "")
    )
    body = "".join(
        f'<tr class="wm-schedule-row" data-turn="{r.turn}" data-sent="{str(r.summary_sent).lower()}">'
        f'<td style="{_CELL}">{r.turn}</td><td style="{_CELL}">{r.plain_tokens:,}</td>'
        f'<td style="{_CELL}">{r.full_tokens:,}</td><td style="{_CELL}">{r.summarised_tokens:,}</td>'
        f'<td style="{_CELL}">{_seen(r)}</td>'
        f'<td style="{_CELL}">{"compacted after it" if r.summarised_after else ""}</td></tr>'
        for r in view.schedule
    )
    if view.every == 0:
        plan = "No summary scheduled: the agent's window alone."
    else:
        plan = (
            f"After every {view.every} turn(s) a Chat Memory Manager overrides the store with a "
            f"summary and the last {view.keep_turns} turn(s) (question and answer only)."
        )
    saved = view.full_total - view.summarised_total - view.summariser_total
    totals = (
        f'<div class="wm-savings" data-saved="{saved}" data-summarised="{view.summarised_total}" '
        f'data-full="{view.full_total}" data-plain="{view.plain_total}">'
        f"Input tokens over the conversation: window of {view.window} without a summary "
        f"<b>{view.plain_total:,}</b>; the whole history <b>{view.full_total:,}</b>; with the "
        f"summary <b>{view.summarised_total:,}</b> plus <b>{view.summariser_total:,}</b> read by "
        f"the summariser. Against the whole history the summary saves <b>{saved:,}</b>.</div>"
    )
    return (
        f'<div style="color:#57606a">{plan}</div>{totals}'
        f'<table class="wm-schedule" style="border-collapse:collapse;font-size:12px;margin-top:4px">'
        f"<tr>{head}</tr>{body}</table>"
    )


def render_design_html(view: DesignView) -> str:
    """The explorer's view of one turn as HTML."""
    where = (
        "in the system prompt (a saved fact read into it)"
        if view.fact_in_system
        else "in the chat only"
    )
    headline = (
        f"<b>{html.escape(view.title)}</b>: turn <b>{view.turn}</b> of {view.turn_count}; the "
        f"fact {html.escape(view.fact)} is {where}. It reaches "
        f'<b class="wm-reaching">{view.reaching}</b> of {len(view.products)} frameworks on this call.'
    )
    cards = "".join(_card(c, view.fact) for c in view.products)
    return (
        f'<div class="wm-design" data-turn="{view.turn}" data-in-system="{str(view.fact_in_system).lower()}" '
        f'data-every="{view.every}" data-keep="{view.keep_turns}" '
        'style="font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:1100px;background:#ffffff">'
        f'<div style="font-size:14px;margin:4px 0 8px">{headline}</div>'
        f"{_section('What each product sends on this turn')}{cards}"
        f"{_section('n8n with a rolling summary: input tokens per turn')}{_schedule(view)}"
        "</div>"
    )


def render_design_error(message: str) -> str:
    """The pane shown when the controls select something impossible: what is wrong."""
    return f'<div class="wm-design wm-error" style="color:#cf222e;font-weight:600">{html.escape(message)}</div>'


__all__ = ["render_design_error", "render_design_html"]
