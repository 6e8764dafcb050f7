"""Lesson 2's explorer view as one self-contained HTML fragment (inline styles, no script).

The fragment is both the live widget's content and the static snapshot a notebook keeps.
CSS classes and ``data-`` attributes (``wm-calls``, ``data-call``, ``wm-on``,
``data-from-memory``, ``wm-tool-item``) are what the browser test reads.
"""

from __future__ import annotations

import html

from windowmem.calls.agent_calls import Part
from windowmem.calls.tool_input import js_json
from windowmem.explorer.calls_view import CallsView, Column, Row

_PART_COLOUR = {
    Part.SYSTEM: "#8250df",
    Part.MEMORY: "#1a7f37",
    Part.INPUT: "#0969da",
    Part.THIS_RUN: "#9a6700",
}
_CELL = (
    "padding:3px 8px;border:none;border-bottom:1px solid #eaeef2;vertical-align:top;text-align:left"
)
_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_COLUMN = "display:inline-block;vertical-align:top;width:48%;min-width:320px;margin:0 1% 8px 0"
_BOX = "max-height:420px;overflow:auto;border:1px solid #d0d7de;border-radius:6px"
_CODE = "font-family:ui-monospace,monospace;font-size:12px;background:#f6f8fa;padding:4px 6px;border-radius:4px;display:block;white-space:pre-wrap"


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{title}</div>'


def _text(row: Row) -> str:
    if row.tool_calls:
        calls = ", ".join(html.escape(c) for c in row.tool_calls)
        shown = f"<i>asks for tool call(s) {calls}</i>"
        return f"{html.escape(row.content)} {shown}" if row.content else shown
    if row.tool_call_id:
        return f"<i>result of {html.escape(row.tool_call_id)}:</i> {html.escape(row.content)}"
    return html.escape(row.content) or "<i>(empty)</i>"


def _table(column: Column) -> str:
    rows = "".join(
        f'<tr class="wm-row wm-part-{row.part.name.lower()}">'
        f'<td style="{_CELL};width:1%;font-weight:600;white-space:nowrap">{row.role}</td>'
        f'<td style="{_CELL}">{_text(row)}</td>'
        f'<td style="{_CELL};width:1%;white-space:nowrap;color:{_PART_COLOUR[row.part]}">{html.escape(row.source)}</td></tr>'
        for row in column.rows
    )
    return (
        f'<div tabindex="0" aria-label="the calls" style="{_BOX}"><table style="border-collapse:collapse;width:100%;margin:0;font-size:13px">'
        f"{rows}</table></div>"
    )


def _column(view: CallsView, column: Column, css: str) -> str:
    memory = (
        "no memory connected: nothing is loaded"
        if column.session_id is None
        else (
            f"session <code>{html.escape(column.session_id)}</code> held {column.stored_before} "
            f"message(s) before this run; {column.from_memory} reach this call"
            + (
                f" (turn{'s' if len(column.memory_turns) > 1 else ''} "
                f"{', '.join(map(str, column.memory_turns))})"
                if column.memory_turns
                else ""
            )
        )
    )
    writes = ""
    if column.session_id is not None:
        writes = (
            f"<div>When the run ends it writes <b>{column.saves}</b> message(s) to memory"
            + ("" if view.answered else ": it produced no answer, so nothing")
            + ".</div>"
        )
    return (
        f'<div class="{css}" data-messages="{len(column.rows)}" data-from-memory="{column.from_memory}" '
        f'style="{_COLUMN}"><div style="font-weight:600;margin-bottom:2px">{html.escape(column.label)}: '
        f'<span class="wm-count">{len(column.rows)}</span> message(s) sent</div>'
        f'<div style="color:#57606a">{memory}</div>{writes}{_table(column)}</div>'
    )


def _tools(view: CallsView) -> str:
    if view.reply is None:
        return (
            "<div>The recorded run has no reply to this call: the model call failed, so the run "
            "ends without an answer.</div>"
        )
    if not view.deliveries:
        kind = "its answer" if not view.reply.calls_tool else "a tool call"
        return f"<div>The model's reply to this call is {kind}; no tool runs now.</div>"
    parts = []
    for delivery in view.deliveries:
        parts.append(
            f'<div class="wm-tool" data-tool="{html.escape(delivery.tool.name)}" style="margin:4px 0">'
            f"<b>{html.escape(delivery.tool.name)}</b> runs sub-workflow "
            f"<code>{html.escape(delivery.tool.workflow_id)}</code> with one item:"
            f'<code class="wm-tool-item" style="{_CODE}">{html.escape(js_json(delivery.item))}</code>'
            f"</div>"
        )
    if view.evidence:
        items = "".join(
            f'<li class="wm-evidence" data-in-off="{str(e.in_off).lower()}" data-in-on="{str(e.in_on).lower()}">'
            f"{html.escape(e.tool)} <code>{html.escape(e.key)}</code> = "
            f"&ldquo;{html.escape(e.value)}&rdquo;: in the array with memory off "
            f"<b>{'yes' if e.in_off else 'no'}</b>, with memory on <b>{'yes' if e.in_on else 'no'}</b></li>"
            for e in view.evidence
        )
        parts.append(
            "<div>The model fills <code>$fromAI()</code> values from the array it was sent. "
            f'The recorded values, and where the model could read them:<ul style="margin:2px 0">{items}</ul></div>'
        )
    memory_note = (
        f"The parent's memory held {view.on.stored_before} message(s) for this session; none of "
        "them, and nothing of the conversation, is in the item: only the mapped fields are."
    )
    return "".join(parts) + f'<div style="color:#57606a">{memory_note}</div>'


def render_calls_html(view: CallsView) -> str:
    """The explorer's view of one call as HTML."""
    kind = "reads the user's message" if view.round == 1 else "comes after tool results"
    headline = (
        f"<b>{html.escape(view.title or 'conversation')}</b>: call <b>{view.number}</b> of "
        f"{view.call_count}, turn {view.turn} of {view.turn_count}, model call {view.round} of "
        f"{view.rounds_in_run} in this run ({kind})"
    )
    return (
        f'<div class="wm-calls" data-call="{view.number}" data-window="{view.window}" '
        f'data-mode="{html.escape(view.mode)}" data-turn="{view.turn}" '
        'style="font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:1100px">'
        f'<div style="font-size:14px;margin:4px 0 8px">{headline}</div>'
        f"{_section('The array each call sends')}"
        f"{_column(view, view.off, 'wm-off')}{_column(view, view.on, 'wm-on')}"
        f'{_section("What a tool receives")}<div class="wm-tools">{_tools(view)}</div>'
        "</div>"
    )


def render_calls_error(message: str) -> str:
    """The explorer's pane when the controls select something impossible: what is wrong."""
    return f'<div class="wm-calls wm-error" style="color:#cf222e;font-weight:600">{html.escape(message)}</div>'


__all__ = ["render_calls_error", "render_calls_html"]
