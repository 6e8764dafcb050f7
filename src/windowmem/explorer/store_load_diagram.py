"""A small drawing of store against load: rows of messages, the loaded ones solid, the rest faded.

Lessons 1 to 3 each show one: what a memory keeps (one row per stored history) beside what
one model call is sent. The drawing is plain SVG text with its styles inline, so it renders
offline in JupyterLab and on the course website alike, and it is computed from windowmem's
own replay by ``scripts/draw_diagrams.py``, never drawn by hand.

>>> svg = store_load_svg("A window of 1", [Row("stored", (Box("u1", "user"), Box("a1", "assistant", False)))])
>>> svg.startswith("<svg") and 'font-family="sans-serif"' in svg and "u1" in svg
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

#: Fill per message role; a message that is not sent keeps its colour, faded and dashed.
COLOURS = {
    "system": "#7b61a8",
    "user": "#2f6fb3",
    "assistant": "#2e8b57",
    "tool": "#c07a18",
    "new": "#b03a48",
    # Lesson 1: another customer's message under this customer's key.
    "foreign": "#b03a48",
}
BOX_W, BOX_H, GAP = 34, 26, 4
LABEL_W, ROW_H, TOP = 250, 40, 34
#: The distance between two lines of the note.
NOTE_H = 15


@dataclass(frozen=True)
class Box:
    """One message: a short *label* (``u1``, ``a1``), its *role* (a key of :data:`COLOURS`), *solid* when sent.

    *light*: a solid box drawn half filled, with dark text (lesson 6: a shared start too short
    for the prompt cache, paid in full).
    """

    label: str
    role: str
    solid: bool = True
    light: bool = False


@dataclass(frozen=True)
class Row:
    """One line of the drawing: what it holds (*title*) and its messages, in order."""

    title: str
    boxes: tuple[Box, ...]


def store_load_svg(
    title: str, rows: Sequence[Row], note: str = "", label_width: int = LABEL_W
) -> str:
    """The SVG text of *rows* under *title*, with *note* as small print below them.

    Each line of *note* is drawn as a line of its own, since SVG text does not wrap; the rows'
    titles get *label_width* pixels, left of their boxes.
    """
    for row in rows:
        for box in row.boxes:
            if box.role not in COLOURS:
                raise ValueError(
                    f"{box.label}: role {box.role!r} has no colour; use one of {sorted(COLOURS)}"
                )
    widest = max((len(row.boxes) for row in rows), default=0)
    width = label_width + widest * (BOX_W + GAP) + 12
    notes = note.split("\n") if note else []
    height = TOP + len(rows) * ROW_H + (24 + NOTE_H * (len(notes) - 1) if notes else 8)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" role="img" '
        f'aria-label="{escape(title)}">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="8" y="20" font-size="14" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    for r, row in enumerate(rows):
        y = TOP + r * ROW_H
        parts.append(
            f'<text x="8" y="{y + 17}" font-size="12" fill="#333">{escape(row.title)}</text>'
        )
        for b, box in enumerate(row.boxes):
            x = label_width + b * (BOX_W + GAP)
            colour = COLOURS[box.role]
            if box.solid and box.light:
                style = f'fill="{colour}" fill-opacity="0.45" stroke="{colour}"'
            elif box.solid:
                style = f'fill="{colour}" stroke="{colour}"'
            else:
                style = (
                    f'fill="{colour}" fill-opacity="0.15" stroke="{colour}" stroke-dasharray="3,2"'
                )
            text_fill = "#222222" if box.solid and box.light else "#ffffff" if box.solid else colour
            parts.append(
                f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="4" {style}/>'
                f'<text x="{x + BOX_W / 2:g}" y="{y + 17}" font-size="11" text-anchor="middle" '
                f'fill="{text_fill}">{escape(box.label)}</text>'
            )
    for n, line in enumerate(notes):
        y = height - 8 - NOTE_H * (len(notes) - 1 - n)
        parts.append(f'<text x="8" y="{y}" font-size="11" fill="#555">{escape(line)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
