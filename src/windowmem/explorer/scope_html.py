"""The scope explorer's view as HTML: one self-contained fragment with inline styles and no script.

CSS classes and ``data-`` attributes (``wm-scope``, ``wm-key``, ``wm-prompt``,
``wm-missing``, ``wm-held``, ...) name the parts for the browser tests.
"""

from __future__ import annotations

import html

from windowmem.explorer.scope_view import STORE_LABELS, ScopeView
from windowmem.scope.shared_agent import SCOPE, STORAGE, WINDOW

_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_CELL = (
    "padding:3px 8px;border:none;border-bottom:1px solid #eaeef2;vertical-align:top;text-align:left"
)
_CHIP = (
    "display:inline-block;padding:1px 7px;margin:1px 3px 1px 0;border-radius:10px;font-size:12px;"
)
_KIND_STYLE = {
    "request": "background:#f6f8fa;color:#1f2328;border:1px solid #d0d7de;",
    "restart": "background:#ffebe9;color:#82071e;border:1px solid #ff8182;",
    "pause": "background:#fff8c5;color:#633c01;border:1px solid #d4a72c;",
}
_CURRENT = "background:#0969da;color:#fff;border:1px solid #0969da;"
_CAUSE_STYLE = {
    SCOPE: "background:#fbefff;color:#6639ba;",
    STORAGE: "background:#ffebe9;color:#82071e;",
    WINDOW: "background:#fff8c5;color:#633c01;",
}
_CAUSE_LABEL = {
    SCOPE: "scope: filed under another key",
    STORAGE: "storage: its buffer is gone",
    WINDOW: "window: stored, but too old for the window",
}


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{title}</div>'


def _timeline(view: ScopeView) -> str:
    return (
        '<div class="wm-scope-timeline">'
        + "".join(
            f'<span class="wm-event wm-{m.kind}{" wm-current" if m.current else ""}" data-position="{m.position}" '
            f'style="{_CHIP}{_CURRENT if m.current else _KIND_STYLE[m.kind]}">{html.escape(m.label)}</span>'
            for m in view.timeline
        )
        + "</div>"
    )


def _prompt(view: ScopeView) -> str:
    rows = []
    for line in view.prompt:
        if line.origin is None:
            where, css, colour = "new message", "wm-new", "#ddf4ff"
        elif line.own:
            where = f"{line.origin.customer}, thread {line.origin.thread}"
            css, colour = "wm-own", "#dafbe1"
        else:
            where = f"{line.origin.customer}, thread {line.origin.thread}"
            css, colour = "wm-foreign", "#ffebe9"
        rows.append(
            f'<tr class="{css}" style="background:{colour}">'
            f'<td style="{_CELL};width:1%;font-weight:600">{line.message.role.value}</td>'
            f'<td style="{_CELL}">{html.escape(line.message.content)}</td>'
            f'<td style="{_CELL};width:1%;white-space:nowrap;color:#57606a">{html.escape(where)}</td></tr>'
        )
    return (
        '<table class="wm-prompt" style="border-collapse:collapse;width:100%;font-size:13px;'
        'border:1px solid #d0d7de">'
        f'<tr><td colspan="3" style="{_CELL};color:#57606a">system message (sent beside the memory on every call)</td></tr>'
        f"{''.join(rows)}</table>"
    )


def _missing(view: ScopeView) -> str:
    if not view.missing:
        return f'<div class="wm-missing" data-causes="">Every earlier turn of {html.escape(view.request.customer.name)} is in the prompt.</div>'
    items = "".join(
        f'<li><span class="wm-cause wm-cause-{cause}" style="{_CHIP}{_CAUSE_STYLE[cause]}">{_CAUSE_LABEL[cause]}</span>'
        f"event {ref.position}, thread {html.escape(ref.thread)}: {html.escape(detail)}</li>"
        for ref, cause, detail in view.missing
    )
    return (
        f'<div class="wm-missing" data-causes="{" ".join(view.causes)}">'
        f"{html.escape(view.request.customer.name)}'s earlier turns that did not arrive:"
        f'<ul style="margin:2px 0">{items}</ul></div>'
    )


def _held(view: ScopeView) -> str:
    if not view.held:
        return '<div class="wm-held" data-buffers="0">The store holds no buffer before this call.</div>'
    rows = "".join(
        f'<tr><td style="{_CELL}"><code>{html.escape(name)}</code></td>'
        f'<td style="{_CELL}">{html.escape(", ".join(customers))}</td></tr>'
        for name, customers in view.held
    )
    return (
        f'<table class="wm-held" data-buffers="{len(view.held)}" style="border-collapse:collapse;font-size:13px">'
        f'<tr><th style="{_CELL}">buffer</th><th style="{_CELL}">whose turns it holds</th></tr>{rows}</table>'
    )


def render_scope_html(view: ScopeView) -> str:
    """The explorer's view as one self-contained HTML fragment (inline styles, no script)."""
    who = view.request.customer
    if view.error is not None:
        key_line = f'<b style="color:#cf222e" class="wm-key-error">{html.escape(view.error)}</b>'
    else:
        key_line = (
            f'key <code class="wm-key">{html.escape(view.key or "")}</code> &rarr; buffer '
            f'<code class="wm-buffer">{html.escape(view.buffer or "")}</code>'
        )
    foreign = view.foreign_customers
    verdict = (
        f'<b class="wm-verdict" style="color:#cf222e">{html.escape(", ".join(foreign))} '
        f"{'is' if len(foreign) == 1 else 'are'} in {html.escape(who.name)}'s prompt</b>"
        if foreign
        else f'<b class="wm-verdict" style="color:#1a7f37">only {html.escape(who.name)}\'s own turns</b>'
    )
    swept = (
        f'<div class="wm-swept">Deleted by the idle sweep as this call started: '
        f"{html.escape(', '.join(view.swept))}</div>"
        if view.swept
        else ""
    )
    return (
        f'<div class="wm-scope" data-choice="{html.escape(view.choice)}" data-store="{view.store}" '
        f'data-between="{html.escape(view.between)}" data-request="{view.number}" '
        f'data-foreign="{html.escape(" ".join(foreign))}" '
        'style="font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px">'
        f'<div style="font-size:14px;margin:4px 0 8px">Key <code>{html.escape(view.template)}</code> '
        f"({html.escape(view.choice)}) &middot; store: {html.escape(STORE_LABELS[view.store])} "
        f"&middot; Context Window Length {view.window} &middot; between the sessions: {html.escape(view.between)}</div>"
        f"{_section('Script')}{_timeline(view)}"
        f"{_section('This call')}<div><b>{html.escape(who.name)}</b> ({html.escape(who.tenant)}, user "
        f"<code>{html.escape(who.user_id)}</code>, thread <code>{html.escape(view.request.thread)}</code>): "
        f"{key_line}</div><div>{verdict}</div>{swept}"
        f"{_section('What the model receives')}{_prompt(view)}"
        f"{_section('Missing turns')}{_missing(view)}"
        f"{_section('Buffers in the store before this call')}{_held(view)}"
        "</div>"
    )
