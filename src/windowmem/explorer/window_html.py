"""The window explorer's view as HTML: one self-contained fragment, inline styles, no script.

The same fragment is the live widget's content and the static snapshot a notebook
keeps for readers without a kernel.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from windowmem.explorer.styles import exported_styles
from windowmem.explorer.window_view import (
    CURRENT,
    EVICTED,
    LATER,
    PARTIAL,
    VISIBLE,
    WindowView,
)
from windowmem.turn_ranges import turn_runs

#: Past this many turns the timeline draws small unlabelled squares (numbers on hover).
LABELLED_TIMELINE_TURNS = 60

# Styles are inline, not a <style> sheet: JupyterLab strips style sheets from the
# outputs of an untrusted notebook (one opened without running it) but keeps inline
# styles, so the static snapshot looks the same with or without a kernel.
# Text colours keep WCAG AA contrast (4.5:1) on their backgrounds; the website's axe check holds them to it.
_STATUS_STYLE = {
    VISIBLE: "background:#1a7f37;color:#fff",
    PARTIAL: "background:#9a6700;color:#fff",
    EVICTED: "background:#eaeef2;color:#57606a;text-decoration:line-through",
    CURRENT: "background:#0969da;color:#fff;font-weight:600",
    LATER: "background:#fff;color:#57606a;border:1px solid #d0d7de",
}
_STATUS_LABEL = {
    VISIBLE: "in the window",
    PARTIAL: "partly in the window",
    EVICTED: "out of the window, still stored",
    CURRENT: "being answered",
    LATER: "not yet said",
}
_ROLE_COLOUR = {"system": "#8250df", "user": "#0969da", "assistant": "#1a7f37", "tool": "#9a6700"}
_MARK = "display:inline-block;border-radius:4px;padding:1px 6px;min-width:14px;text-align:center;margin:0 3px 3px 0;"
_COMPACT_MARK = "display:inline-block;width:9px;height:9px;margin:1px;font-size:0;"
_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_FIGURE = "display:inline-block;vertical-align:top;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:0 8px 8px 0;min-width:150px"
_NUMBER = "display:block;font-size:18px;font-weight:600"
_CELL = (
    "padding:3px 8px;border:none;border-bottom:1px solid #eaeef2;vertical-align:top;text-align:left"
)
_ROOT = (
    "font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px"
)
_HEADLINE = "font-size:14px;margin:4px 0 8px"


def _highlight(text: str, needle: str) -> str:
    escaped = html.escape(text)
    if not needle:
        return escaped
    return escaped.replace(
        html.escape(needle),
        f'<mark class="wm-hit" style="background:#fff8c5">{html.escape(needle)}</mark>',
    )


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{title}</div>'


def _timeline_html(view: WindowView) -> str:
    # A long conversation's timeline is hundreds of marks, resent on every update: keep
    # each one short (no preview on hover, a terse style).
    compact = view.turn_count > LABELLED_TIMELINE_TURNS
    mark_style = _COMPACT_MARK if compact else _MARK
    marks = " ".join(
        f'<span class="wm-turn wm-{m.status}" style="{mark_style}{_STATUS_STYLE[m.status]}" '
        f'title="turn {m.number} ({_STATUS_LABEL[m.status]}){"" if compact else ": " + html.escape(m.preview)}">'
        f"{m.number}</span>"
        for m in view.timeline
    )
    key = " &middot; ".join(
        f'<span style="{_MARK}min-width:0;padding:0 5px;{_STATUS_STYLE[status]}">&nbsp;</span>{label}'
        for status, label in _STATUS_LABEL.items()
    )
    return (
        f'<div class="wm-timeline" data-visible-turns="{html.escape(view.visible)}" style="margin:4px 0">{marks}</div>'
        f'<div class="wm-key" style="font-size:12px;color:#57606a">{key}</div>'
        f'<div>In the window: {_turn_word(view.visible_turns)}<b class="wm-visible-turns">{html.escape(view.visible)}</b>'
        f" &middot; out of the window (n8n still stores them): "
        f'{_turn_word(view.evicted_turns)}<b class="wm-evicted-turns">{html.escape(view.evicted)}</b></div>'
    )


def _turn_word(turns: Sequence[int]) -> str:
    # "turn 1", "turns 2–6", and plain "none": the word agrees with what follows it.
    return "" if not turns else ("turn " if len(turns) == 1 else "turns ")


def _messages_html(view: WindowView) -> str:
    rows = []
    for message, owner in zip(view.sent, view.sent_turns):
        is_new = owner == view.turn
        where = (
            "sent beside the buffer"
            if owner is None
            else ("new message" if is_new else f"turn {owner}")
        )
        role = message.role.value
        rows.append(
            f'<tr class="{"wm-new" if is_new else ""}" style="background:{"#ddf4ff" if is_new else "#fff"}">'
            f'<td style="{_CELL};width:1%;font-weight:600;white-space:nowrap;color:{_ROLE_COLOUR.get(role, "#1f2328")}">{role}</td>'
            f'<td style="{_CELL}">{_highlight(message.content, view.fact)}</td>'
            f'<td style="{_CELL};width:1%;white-space:nowrap;color:#57606a">{where}</td></tr>'
        )
    return (
        '<div class="wm-messages" tabindex="0" aria-label="the messages" style="max-height:400px;overflow:auto;border:1px solid #d0d7de;border-radius:6px">'
        f'<table style="border-collapse:collapse;table-layout:auto;width:100%;margin:0;font-size:13px">{"".join(rows)}</table></div>'
    )


def _fact_html(view: WindowView) -> str:
    if view.fact_visible is None:
        return "<div>Type a fact to follow it through the window.</div>"
    said = (
        f"said in turn {turn_runs(view.fact_turns)}"
        if view.fact_turns
        else "not said in this conversation"
    )
    verdict = (
        '<b style="color:#1a7f37">the model can see it on this call</b>'
        if view.fact_visible
        else '<b style="color:#cf222e">the model cannot see it on this call</b>'
    )
    return (
        f'<div class="wm-fact" data-fact-visible="{str(view.fact_visible).lower()}">'
        f"&ldquo;{html.escape(view.fact)}&rdquo; ({said}): {verdict}</div>"
    )


def _figure(label: str, number: str, note: str = "", css: str = "") -> str:
    return (
        f'<div style="{_FIGURE}">{label}<b class="{css}" style="{_NUMBER}">{number}</b>{note}</div>'
    )


def render_window_html(view: WindowView, counter_name: str = "tokens") -> str:
    """The explorer's view as one self-contained HTML fragment (inline styles, no script)."""
    headline = (
        f"<b>{html.escape(view.title or 'conversation')}</b>: Context Window Length <b>{view.window}</b>"
        f"{' (0 loads every message)' if view.window == 0 else ''}, answering turn <b>{view.turn}</b> of {view.turn_count}"
    )
    parts_sent = " + ".join(
        part
        for part, present in (
            ("system", view.sent_turns[:1] == (None,)),
            ("buffer", view.messages_in_window > 0),
            ("new message", view.sent_turns[-1:] == (view.turn,)),
        )
        if present
    )
    interactions = f'from <span class="wm-interactions-in-window">{view.interactions_in_window}</span> interaction(s)'
    figures = (
        _figure(
            "messages loaded from the buffer",
            str(view.messages_in_window),
            interactions,
            "wm-messages-in-window",
        )
        + _figure("messages sent on this call", str(len(view.sent)), parts_sent)
        + _figure(
            f"{html.escape(counter_name)} this call",
            f"{view.tokens_this_call:,}",
            css="wm-tokens-this-call",
        )
        + _figure(
            f"running input tokens, turns 1&ndash;{view.turn}",
            f"{view.running_bill:,}",
            css="wm-running-bill",
        )
    )
    return (
        f'<div class="wm-explorer" data-window="{view.window}" data-turn="{view.turn}" '
        f'style="{_ROOT}">'
        f'<div style="{_HEADLINE}">{headline}</div>'
        f"{_section('Timeline')}{_timeline_html(view)}"
        f"{_section('Messages and interactions')}<div>{figures}</div>"
        f"{_section('Fact')}{_fact_html(view)}"
        f"{_section('The message array the model receives')}{_messages_html(view)}"
        "</div>"
    )


def render_error(message: str) -> str:
    """An explorer pane that says what is wrong with the learner's input."""
    return f'<div class="wm-explorer" style="color:#cf222e;font-weight:600">{html.escape(message)}</div>'


def site_styles() -> dict[str, object]:
    """The styles and labels above, for the website's script that draws this same HTML."""
    return exported_styles(globals())
