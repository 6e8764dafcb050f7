"""Make the lessons' explorers and self-checks live on the course website, computed at build time.

``scripts/build_site.py`` calls :func:`make_live` on each staged lesson. For a lesson named
in :data:`EXPLORERS`, it builds the explorer as the lesson's cell does, checks that its
starting view is the snapshot the notebook stores (so the site cannot drift from the
lesson), writes every state of its controls to ``_static/windowmem/<key>_explorer.js``,
and puts, in place of the snapshot, a box that ``_static/windowmem/explorers.js`` fills
with controls and the same HTML the Python view draws. The snapshot stays inside the box
for a reader whose browser runs no script.

:func:`make_checks_live` gives each check cell an answer box, and writes the lesson's check
book as data (``_static/windowmem/<key>_checks.js``, see :mod:`windowmem.explorer.check_site`)
for ``_static/windowmem/checks.js``, which prints the line the notebook's ``check()`` would.
"""

from __future__ import annotations

import gzip
import html
import importlib
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from windowmem.explorer.live import SNAPSHOT_CAPTION

#: Where the explorers' data files go, under the staged site's ``_static``.
STATIC_DIR = "windowmem"
#: The MIME type of a live widget's view in a stored output.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

LIVE_CAPTION = (
    '<p class="wm-site-note"><i>Live explorer: windowmem computed every state of these '
    "controls when this site was built, so it runs in your browser with no kernel.</i></p>"
)


class SiteExplorerError(RuntimeError):
    """A lesson's explorer cannot be made live as it stands: the message says what to change."""


def _lesson03() -> Any:
    from windowmem.examples import ANCHOR_FACTS, example_names, generated_support, load_example
    from windowmem.explorer.window_widgets import WindowExplorer

    # As lesson 3's explorer cell builds it.
    conversations = {name: load_example(name) for name in example_names()}
    conversations["support_500"] = generated_support(500)
    return WindowExplorer(
        conversations,
        start="marta",
        window=5,
        turn=7,
        fact=ANCHOR_FACTS["marta"],
        facts={**ANCHOR_FACTS, "support_500": ANCHOR_FACTS["support_60"]},
    )


def _lesson06() -> Any:
    from windowmem.budget import help_centre, prepare
    from windowmem.explorer.budget_widgets import BudgetExplorer

    # As lesson 6's explorer cell builds it.
    return BudgetExplorer(prepare(help_centre()), budget=1500, choice="just-in-time")


#: The lessons whose explorer the site makes live: notebook -> (key, how its cell builds it).
EXPLORERS: dict[str, tuple[str, Callable[[], Any]]] = {
    "03_window_buffer_memory.ipynb": ("lesson03", _lesson03),
    "06_token_budgets.ipynb": ("lesson06", _lesson06),
}


@dataclass(frozen=True)
class LiveData:
    """What one lesson's live *part* (explorer, self-checks) added to the site: *count* *units*, *size* bytes."""

    key: str
    part: str
    count: int
    units: str
    size: int
    gzipped: int

    def summary(self) -> str:
        """One line for the build's output."""
        return (
            f"{self.key} {self.part}: {self.count:,} {self.units}, {self.size:,} bytes of data "
            f"({self.gzipped:,} gzipped)"
        )

    @classmethod
    def written(
        cls, target: Path, text: str, key: str, part: str, count: int, units: str
    ) -> LiveData:
        """Write *text* to *target* and say what it holds."""
        target.parent.mkdir(parents=True, exist_ok=True)
        encoded = text.encode("utf-8")
        target.write_bytes(encoded)
        return cls(key, part, count, units, len(encoded), len(gzip.compress(encoded)))


def _text(data: Any) -> str:
    return "".join(data) if isinstance(data, list) else str(data)


def count_states(data: dict[str, Any]) -> int:
    """How many control settings *data* holds a view for."""
    if data["kind"] == "window":
        return sum(len(turns) for c in data["conversations"].values() for turns in c["windows"])
    return sum(len(run[2]) for runs in data["runs"].values() for run in runs)


def live_box(key: str, snapshot_html: str) -> str:
    """The HTML that replaces a snapshot: controls, the view (the snapshot until the script runs), the data."""
    return (
        f'<div class="wm-site-explorer" data-explorer="{key}">{LIVE_CAPTION}'
        '<div class="wm-site-controls"></div>'
        f'<div class="wm-site-output">{snapshot_html}</div></div>'
        f'<script src="_static/{STATIC_DIR}/{key}_explorer.js"></script>'
    )


def make_live(notebook: dict[str, Any], name: str, static: Path) -> LiveData | None:
    """Replace *notebook*'s explorer snapshot with a live explorer and write its data to *static*.

    *name* is the notebook's file name; a lesson not in :data:`EXPLORERS` is left alone.
    """
    if name not in EXPLORERS:
        return None
    key, build = EXPLORERS[name]
    found = [
        (cell, output)
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if _text(output.get("data", {}).get("text/html", "")).startswith(SNAPSHOT_CAPTION)
    ]
    if len(found) != 1:
        raise SiteExplorerError(
            f"{name}: expected one stored explorer snapshot, found {len(found)}; "
            "run the lesson with scripts/execute_notebooks.py"
        )
    cell, output = found[0]
    snapshot_html = _text(output["data"]["text/html"])[len(SNAPSHOT_CAPTION) :]
    explorer = build()
    if explorer.current_html() != snapshot_html:
        raise SiteExplorerError(
            f"{name}: the explorer scripts/site_live.py builds does not start where the "
            "lesson's does (its first view differs from the stored snapshot); make it build "
            "the explorer as the lesson's cell does"
        )
    data = explorer.site_data()
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    script = f"(window.WM_EXPLORERS = window.WM_EXPLORERS || {{}})[{json.dumps(key)}] = {text};\n"
    target = static / STATIC_DIR / f"{key}_explorer.js"
    written = LiveData.written(target, script, key, "explorer", count_states(data), "states")
    output["data"] = {"text/html": live_box(key, snapshot_html), "text/plain": [explorer.label]}
    # The widget's stand-in text ("live: needs a running kernel") is not true here.
    cell["outputs"] = [o for o in cell["outputs"] if WIDGET_VIEW not in o.get("data", {})]
    return written


#: A lesson's check cell, whole: ``check("3a", answer)``.
CHECK_CELL = re.compile(r'\s*check\("(?P<id>[^"]+)",\s*\w+\)\s*')


def check_form(key: str, check_id: str, stored: str) -> str:
    """The box under a check cell: the learner's answer, a button, and the line the notebook prints."""
    field = f"wm-check-{key}-{check_id}"
    return (
        f'<form class="wm-site-check" data-lesson="{key}" data-check="{html.escape(check_id)}">'
        f'<label for="{field}">Your answer to {html.escape(check_id)}</label> '
        f'<input id="{field}" type="text" autocomplete="off" spellcheck="false" '
        "placeholder=\"as in the cell above: [1, 2, 3], 12, 'window', True\"> "
        '<button type="submit">Check</button>'
        f'<output for="{field}" class="wm-check-feedback" aria-live="polite">{html.escape(stored)}</output>'
        "</form>"
    )


def make_checks_live(
    notebook: dict[str, Any], name: str, static: Path, course: Path
) -> LiveData | None:
    """Give each check cell of *notebook* an answer box and write the lesson's feedback to *static*.

    The check book is ``checks/lessonNN.py`` under *course*; a lesson without check cells
    is left alone.
    """
    cells = [
        (cell, match["id"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
        and (match := CHECK_CELL.fullmatch(_text(cell["source"]))) is not None
    ]
    if not cells:
        return None
    from windowmem.explorer.check_site import book_data

    key = f"lesson{name[:2]}"
    if str(course) not in sys.path:
        sys.path.insert(0, str(course))
    book = importlib.import_module(f"checks.{key}").BOOK
    data = book_data(book)
    unknown = sorted({check_id for _, check_id in cells} - set(data["checks"]))
    if unknown:
        raise SiteExplorerError(f"{name}: check cells name checks its book lacks: {unknown}")
    # The data comes with the first box, before checks.js looks for the boxes.
    data_script = f'<script src="_static/{STATIC_DIR}/{key}_checks.js"></script>'
    for number, (cell, check_id) in enumerate(cells):
        stored = "".join(_text(o.get("text", "")) for o in cell.get("outputs", [])).strip()
        box = check_form(key, check_id, stored) + (data_script if number == 0 else "")
        cell["outputs"] = [
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"text/html": box, "text/plain": stored},
            }
        ]
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    script = f"(window.WM_CHECKS = window.WM_CHECKS || {{}})[{json.dumps(key)}] = {text};\n"
    target = static / STATIC_DIR / f"{key}_checks.js"
    return LiveData.written(target, script, key, "self-checks", len(data["checks"]), "checks")
