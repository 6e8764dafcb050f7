"""The outlive explorer's view as HTML: one fragment, inline styles only, colours with AA contrast.

CSS classes (``wm-outlive``, ``wm-sent``, ``wm-stored``, ``wm-calls``, ``wm-note``)
name the parts for the browser test.
"""

from __future__ import annotations

import html

from windowmem.explorer.outlive_view import OutliveView

_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_CELL = "padding:3px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top"
_MEMORY = "background:#dafbe1;color:#116329"
_NEW = "background:#ddf4ff;color:#0550ae"
_NOTE = (
    "margin:8px 0;padding:6px 10px;border-left:4px solid #bf8700;background:#fff8c5;color:#633c01"
)
_CURRENT = "background:#0969da;color:#ffffff"


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{html.escape(title)}</div>'


def render_outlive_html(view: OutliveView) -> str:
    """The whole view as a self-contained HTML fragment."""
    sent = "".join(
        f'<tr class="{"wm-new" if i == len(view.sent) - 1 else "wm-from-memory"}" '
        f'style="{_NEW if i == len(view.sent) - 1 else _MEMORY}"><td style="{_CELL}">'
        f"{'new input' if i == len(view.sent) - 1 else 'from memory'}</td>"
        f'<td style="{_CELL}">{html.escape(m.role.value)}</td><td style="{_CELL}">{html.escape(m.content)}</td></tr>'
        for i, m in enumerate(view.sent)
    )
    stored = "".join(
        f'<tr class="wm-stored-row"><td style="{_CELL}">{i + 1}</td><td style="{_CELL}">{html.escape(m.role.value)}</td>'
        f'<td style="{_CELL}">{html.escape(m.content)}</td></tr>'
        for i, m in enumerate(view.stored_after)
    )
    calls = "".join(
        f'<tr style="{_CURRENT if c.current else ""}"><td style="{_CELL}">{c.number}</td>'
        f'<td style="{_CELL}">worker {c.worker}</td><td style="{_CELL}">{c.from_memory}</td>'
        f'<td style="{_CELL}">{c.stored}</td></tr>'
        for c in view.calls
    )
    note = (
        f'<div class="wm-note" style="{_NOTE}">{html.escape(view.note)}</div>' if view.note else ""
    )
    gaps = "".join(
        f"; {label}: turn{'s' if len(turns) > 1 else ''} {', '.join(str(t) for t in turns)}"
        for label, turns in (
            ("missing from this store", view.unstored_turns),
            ("stored, outside the window", view.outside_window_turns),
        )
        if turns
    )
    return (
        f'<div class="wm-outlive" data-store="{html.escape(view.store)}" data-workers="{view.workers}" '
        f'data-event="{html.escape(view.event)}" data-call="{view.call}" data-worker="{view.worker}" '
        f'data-sent="{len(view.sent) - 1}" data-stored="{len(view.stored_after)}" style="font-family:system-ui,sans-serif;font-size:13px;color:#1f2328;max-width:760px">'
        f"<div><b>{html.escape(view.store)}</b> · {view.workers} worker{'s' if view.workers > 1 else ''} · "
        f"event before turn 4: <b>{html.escape(view.event)}</b> · call {view.call}, answered by "
        f'<b class="wm-worker">worker {view.worker}</b></div>{note}'
        + _section(f"What call {view.call} sends: {len(view.sent) - 1} from memory{gaps}")
        + f'<table class="wm-sent" style="border-collapse:collapse">{sent}</table>'
        + _section(
            f"What the store holds after it: {len(view.stored_after)} messages"
            + ("" if view.keeps_everything else ", only the window (cut on write)")
        )
        + f'<table class="wm-stored" style="border-collapse:collapse">{stored}</table>'
        + _section("Every call")
        + f'<table class="wm-calls" style="border-collapse:collapse"><tr><th style="{_CELL}">turn</th>'
        f'<th style="{_CELL}">answered by</th><th style="{_CELL}">from memory</th><th style="{_CELL}">stored after</th></tr>'
        f"{calls}</table></div>"
    )
