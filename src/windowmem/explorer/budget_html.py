"""The token-budget explorer's view as HTML: one self-contained fragment, no script.

The same fragment is the live widget's content and the static snapshot a notebook
stores for readers without a kernel.
"""

from __future__ import annotations

import html

from windowmem.explorer.budget_view import BudgetView

STYLE = """
<style>
.wm-budget{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px}
.wm-budget h4{margin:10px 0 4px;font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:#57606a}
.wm-budget .wm-headline{font-size:14px;margin:4px 0 8px}
.wm-bar{position:relative;height:26px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;overflow:hidden}
.wm-seg{position:absolute;top:0;bottom:0;border-right:1px solid #fff}
.wm-seg-system{background:#8250df}.wm-seg-task{background:#6e7781}.wm-seg-read{background:#2da44e}
.wm-seg-read.wm-nofact{background:#9be9a8}.wm-seg-summary{background:#bf8700}
.wm-limit{position:absolute;top:0;bottom:0;border-left:3px dashed #cf222e}
.wm-bar-key span{margin-right:12px}
.wm-bar-key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.wm-figures{display:flex;gap:10px;flex-wrap:wrap;margin:6px 0}
.wm-figure{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;min-width:140px}
.wm-figure b{display:block;font-size:18px;font-variant-numeric:tabular-nums}
.wm-over b{color:#cf222e}
.wm-dots{display:flex;gap:4px;flex-wrap:wrap}
.wm-dot{border-radius:50%;width:26px;height:26px;line-height:26px;text-align:center;font-size:11px;font-variant-numeric:tabular-nums}
.wm-dot.wm-held{background:#2da44e;color:#fff}.wm-dot.wm-gone{background:#eaeef2;color:#8c959f}
.wm-items{max-height:320px;overflow:auto;border:1px solid #d0d7de;border-radius:6px}
.wm-items table{border-collapse:collapse;width:100%}
.wm-budget .wm-items table td,.wm-budget .wm-items table th{padding:3px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
.wm-budget .wm-items table td.wm-num{text-align:right;font-variant-numeric:tabular-nums}
</style>
"""


def _bar_html(view: BudgetView) -> str:
    segments, left = [], 0
    for item in view.items:
        width = 100 * item.tokens / view.scale
        factless = " wm-nofact" if item.kind == "read" and not item.facts else ""
        segments.append(
            f'<div class="wm-seg wm-seg-{item.kind}{factless}" style="left:{100 * left / view.scale:.2f}%;width:{width:.2f}%"'
            f' title="{html.escape(item.label)}: {item.tokens} tokens"></div>'
        )
        left += item.tokens
    limit = f'<div class="wm-limit" style="left:{100 * view.budget / view.scale:.2f}%" title="budget: {view.budget} tokens"></div>'
    key = "".join(
        f'<span><i class="wm-seg-{kind}{extra}"></i>{label}</span>'
        for kind, extra, label in (
            ("system", "", "system"),
            ("task", "", "task"),
            ("read", "", "read with a fact"),
            ("read", " wm-nofact", "read without"),
            ("summary", "", "summary"),
        )
    )
    return (
        f'<div class="wm-bar" data-used="{view.used}" data-budget="{view.budget}">{"".join(segments)}{limit}</div>'
        f'<div class="wm-bar-key">{key}<span>dashed red line: the budget</span></div>'
    )


def _figures_html(view: BudgetView) -> str:
    over = " wm-over" if view.over_budget else ""
    return (
        '<div class="wm-figures">'
        f'<div class="wm-figure{over}">window used / budget<b class="wm-used">{view.used:,} / {view.budget:,}</b>'
        f"{'over budget: the policy acts next' if view.over_budget else 'tokens'}</div>"
        f'<div class="wm-figure">facts held<b class="wm-facts-held">{len(view.facts_held)} / {view.task_size}</b>'
        f"questions answerable now</div>"
        f'<div class="wm-figure">input bill so far<b class="wm-running-bill">{view.input_tokens:,}</b>'
        f"{view.calls} call(s), {view.reads} read(s), {view.compactions} compaction(s)</div>"
        f'<div class="wm-figure">whole task<b class="wm-final-bill">{view.final_input_tokens:,}</b>'
        f"{view.final_answered} of {view.task_size} answered at the end</div>"
        "</div>"
    )


def _dots_html(view: BudgetView) -> str:
    held = set(view.facts_held)
    return (
        '<div class="wm-dots">'
        + "".join(
            f'<span class="wm-dot {"wm-held" if n in held else "wm-gone"}" title="Q{n}: {html.escape(q)}">Q{n}</span>'
            for n, q in enumerate(view.questions, start=1)
        )
        + "</div>"
    )


def _items_html(view: BudgetView) -> str:
    rows = "".join(
        f'<tr><td>{item.kind}</td><td>{html.escape(item.label)}</td><td class="wm-num">{item.tokens}</td>'
        f"<td>{', '.join(f'Q{n}' for n in item.facts) or '—'}</td></tr>"
        for item in view.items
    )
    return (
        '<div class="wm-items"><table><tr><th>item</th><th>what</th><th>tokens</th><th>facts</th></tr>'
        f"{rows}</table></div>"
    )


def render_budget_html(view: BudgetView) -> str:
    """The explorer's view as one self-contained HTML fragment (styles included)."""
    headline = (
        f"<b>{html.escape(view.corpus)}</b> task, policy <b>{html.escape(view.choice)}</b>, budget "
        f"<b>{view.budget:,}</b> tokens · step <b>{view.step}</b> of {view.step_count - 1}: "
        f"<i>{html.escape(view.event)}</i>, {html.escape(view.detail)}"
    )
    return (
        f'{STYLE}<div class="wm-budget" data-budget="{view.budget}" data-step="{view.step}" data-choice="{html.escape(view.choice)}">'
        f'<div class="wm-headline">{headline}</div>'
        f"<h4>The window against its budget</h4>{_bar_html(view)}"
        f"{_figures_html(view)}"
        f"<h4>Facts the window holds</h4>{_dots_html(view)}"
        f"<h4>The window's items</h4>{_items_html(view)}"
        "</div>"
    )
