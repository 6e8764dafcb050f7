"""A small timeline drawing: lanes of spans and marks along one time axis.

Lesson 4 shows two: two runs of one chat overlapping (what each loads and when it writes),
and a Redis key's time to live across a customer's day. Like
:mod:`windowmem.explorer.store_load_diagram` it is plain SVG text with inline styles, so it
renders offline in JupyterLab and on the course website, and ``scripts/draw_diagrams.py``
computes what it draws from windowmem's replay.

>>> svg = timeline_svg("One run", [Lane("A", (Span(0, 5, "model call", "assistant"),), (Mark(5, "write", "user"),))],
...                    [(0, "0 s"), (5, "5 s")])
>>> svg.startswith("<svg") and "model call" in svg and "5 s" in svg
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from windowmem.explorer.store_load_diagram import COLOURS

#: Colours beyond the message roles: a span that is gone or refused.
KINDS = {**COLOURS, "gone": "#8c959f"}
LABEL_W, PLOT_W, LANE_H, TOP, SPAN_H = 120, 600, 60, 34, 18


@dataclass(frozen=True)
class Span:
    """A stretch from *start* to *end* (axis units) labelled *label*, coloured by *kind*."""

    start: float
    end: float
    label: str
    kind: str


@dataclass(frozen=True)
class Mark:
    """A moment *at* (axis units), a tick labelled *label*, coloured by *kind*."""

    at: float
    label: str
    kind: str


@dataclass(frozen=True)
class Lane:
    """One line of the drawing: its *title*, its spans and its marks."""

    title: str
    spans: tuple[Span, ...] = ()
    marks: tuple[Mark, ...] = ()


def _check(lanes: Sequence[Lane], ticks: Sequence[tuple[float, str]]) -> tuple[float, float]:
    if len(ticks) < 2:
        raise ValueError("give at least two axis ticks (value, label): the first and the last")
    low, high = ticks[0][0], ticks[-1][0]
    if high <= low:
        raise ValueError(f"the axis ticks must rise: first {low}, last {high}")
    for lane in lanes:
        items: tuple[Span | Mark, ...] = (*lane.spans, *lane.marks)
        for item in items:
            if item.kind not in KINDS:
                raise ValueError(
                    f"{item.label}: kind {item.kind!r} has no colour; use one of {sorted(KINDS)}"
                )
        for span in lane.spans:
            if not low <= span.start <= span.end <= high:
                raise ValueError(
                    f"{span.label}: span {span.start}-{span.end} is off the axis {low}-{high}"
                )
        for mark in lane.marks:
            if not low <= mark.at <= high:
                raise ValueError(f"{mark.label}: mark at {mark.at} is off the axis {low}-{high}")
    return low, high


def timeline_svg(
    title: str, lanes: Sequence[Lane], ticks: Sequence[tuple[float, str]], note: str = ""
) -> str:
    """The SVG text of *lanes* on an axis labelled at *ticks*, under *title*, with *note* below."""
    low, high = _check(lanes, ticks)

    def x(value: float) -> float:
        return round(LABEL_W + (value - low) / (high - low) * PLOT_W, 1)

    axis_y = TOP + len(lanes) * LANE_H + 6
    height = axis_y + 30 + (20 if note else 0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{LABEL_W + PLOT_W + 40}" height="{height}" '
        f'font-family="sans-serif" font-size="12" role="img" aria-label="{escape(title)}">',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        f'<text x="8" y="20" font-size="14" font-weight="bold" fill="#1f2328">{escape(title)}</text>',
    ]
    for number, lane in enumerate(lanes):
        top = TOP + number * LANE_H
        parts.append(f'<text x="8" y="{top + 22}" fill="#1f2328">{escape(lane.title)}</text>')
        for span in lane.spans:
            colour = KINDS[span.kind]
            dash = ' stroke-dasharray="4 3"' if span.kind == "gone" else ""
            parts.append(
                f'<rect x="{x(span.start)}" y="{top + 8}" width="{max(x(span.end) - x(span.start), 2)}" '
                f'height="{SPAN_H}" rx="3" fill="{colour}" fill-opacity="0.25" stroke="{colour}"{dash}/>'
                f'<text x="{x(span.start) + 4}" y="{top + 21}" fill="#1f2328">{escape(span.label)}</text>'
            )
        for order, mark in enumerate(lane.marks):
            colour = KINDS[mark.kind]
            # Labels alternate between two lines so that close marks do not overprint; one
            # in the last fifth of the axis ends at its mark. Every tick stops above the first
            # line of labels, so that it never runs through an earlier mark's label.
            anchor = "end" if mark.at > low + 0.8 * (high - low) else "start"
            shift = -3 if anchor == "end" else 3
            parts.append(
                f'<line x1="{x(mark.at)}" y1="{top + 4}" x2="{x(mark.at)}" y2="{top + 30}" '
                f'stroke="{colour}" stroke-width="3"/>'
                f'<text x="{x(mark.at) + shift}" y="{top + 41 + 12 * (order % 2)}" text-anchor="{anchor}" '
                f'font-size="11" fill="{colour}">{escape(mark.label)}</text>'
            )
    parts.append(
        f'<line x1="{LABEL_W}" y1="{axis_y}" x2="{LABEL_W + PLOT_W}" y2="{axis_y}" stroke="#57606a"/>'
    )
    for value, label in ticks:
        parts.append(
            f'<line x1="{x(value)}" y1="{axis_y}" x2="{x(value)}" y2="{axis_y + 5}" stroke="#57606a"/>'
            f'<text x="{x(value)}" y="{axis_y + 18}" text-anchor="middle" font-size="11" fill="#57606a">'
            f"{escape(label)}</text>"
        )
    if note:
        parts.append(
            f'<text x="8" y="{height - 8}" font-size="11" fill="#57606a">{escape(note)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
