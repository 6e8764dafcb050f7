"""A small drawing of a workflow tool's *Workflow Inputs*: each row, who fills it, what arrives.

Lesson 2 shows one: for each tool of the agent, the rows of its Call n8n Workflow Tool node
(field and parameter), marked *model* when the model writes it (a ``$fromAI()`` row) or *n8n*
when n8n does (fixed text or an expression), or *?* when the page leaves the reader to tell,
beside the item the sub-workflow's trigger,
*When Executed by Another Workflow*, receives. Plain SVG text with inline styles, like
:mod:`windowmem.explorer.store_load_diagram`, computed by ``scripts/draw_diagrams.py``.

>>> panel = ToolPanel("t", (InputRow("x", "={{ $fromAI('x') }}", True),), (("x", "1"),), "turn 1")
>>> svg = workflow_inputs_svg("Inputs", [panel])
>>> svg.startswith("<svg") and "model" in svg and "turn 1" in svg
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

#: Fill and text of the tag saying who fills a row (``None``: left for the reader to tell).
FILLER_COLOURS = {True: "#2f6fb3", False: "#7b61a8", None: "#9a9a9a"}
FILLER_TAGS = {True: "model", False: "n8n", None: "?"}
LINE_H, HEAD_H, GAP_H = 18, 22, 14
FIELD_X, TAG_X, PARAM_X, ITEM_X = 16, 120, 170, 770
MAX_PARAM, MAX_VALUE = 84, 36


@dataclass(frozen=True)
class InputRow:
    """One row of *Workflow Inputs*: the *field*, its *parameter* as stored, *by_model* when the model fills it.

    *by_model* ``None`` draws the row untagged (a "?"), for a page that asks who fills it.
    """

    field: str
    parameter: str
    by_model: bool | None


@dataclass(frozen=True)
class ToolPanel:
    """One tool: its *name*, its rows, the item its trigger *received* (field, value) and *when*.

    An empty *received* draws *placeholder* in the item's place (an item the page asks about).
    """

    name: str
    rows: tuple[InputRow, ...]
    received: tuple[tuple[str, str], ...]
    when: str
    placeholder: str = "?"


def _cut(text: str, limit: int) -> str:
    """*text*, ending in an ellipsis if longer than *limit* characters.

    >>> _cut("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _panel(panel: ToolPanel, top: int) -> tuple[list[str], int]:
    parts = [
        f'<text x="8" y="{top + 14}" font-size="12" font-weight="bold" fill="#222">'
        f"Call n8n Workflow Tool · {escape(panel.name)} · Workflow Inputs</text>",
        f'<text x="{ITEM_X}" y="{top + 14}" font-size="12" font-weight="bold" fill="#222">'
        f"When Executed by Another Workflow, {escape(panel.when)}</text>",
    ]
    y = top + HEAD_H
    for row in panel.rows:
        colour = FILLER_COLOURS[row.by_model]
        parts.append(
            f'<text x="{FIELD_X}" y="{y + 13}" font-size="11" fill="#222">{escape(row.field)}</text>'
            f'<rect x="{TAG_X}" y="{y + 2}" width="42" height="14" rx="3" fill="{colour}"/>'
            f'<text x="{TAG_X + 21}" y="{y + 13}" font-size="10" text-anchor="middle" '
            f'fill="#ffffff">{FILLER_TAGS[row.by_model]}</text>'
            f'<text x="{PARAM_X}" y="{y + 13}" font-size="11" font-family="monospace" '
            f'fill="#444">{escape(_cut(row.parameter, MAX_PARAM))}</text>'
        )
        y += LINE_H
    bottom = y
    y = top + HEAD_H
    arrow_y = top + HEAD_H + LINE_H * len(panel.rows) / 2
    parts.append(
        f'<path d="M {ITEM_X - 20} {arrow_y:g} l 12 0 m -5 -4 l 5 4 l -5 4" '
        'stroke="#888" fill="none"/>'
    )
    if not panel.received:
        parts.append(
            f'<text x="{ITEM_X}" y="{y + 13}" font-size="11" fill="#b03a48">{escape(panel.placeholder)}</text>'
        )
    for field, value in panel.received:
        parts.append(
            f'<text x="{ITEM_X}" y="{y + 13}" font-size="11" font-family="monospace" '
            f'fill="#222">{escape(field)}: {escape(_cut(value, MAX_VALUE))}</text>'
        )
        y += LINE_H
    return parts, max(bottom, y)


def workflow_inputs_svg(title: str, panels: Sequence[ToolPanel], note: str = "") -> str:
    """The SVG text of *panels* under *title*, with *note* as a last line of small print."""
    if not panels:
        raise ValueError("draw at least one tool: pass a ToolPanel per tool the agent has")
    width = ITEM_X + 330
    body: list[str] = []
    y = 34
    for panel in panels:
        parts, y = _panel(panel, y)
        body += parts
        y += GAP_H
    height = y + (20 if note else 0)
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" role="img" '
        f'aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="8" y="20" font-size="14" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    tail = (
        [f'<text x="8" y="{height - 8}" font-size="12" fill="#333">{escape(note)}</text>']
        if note
        else []
    )
    return "\n".join([*head, *body, *tail, "</svg>"]) + "\n"
