"""Make the lessons' explorers live on the course website: every state computed at build time.

``scripts/build_site.py`` calls :func:`make_live` on each staged lesson. For a lesson named
in :data:`EXPLORERS`, it builds the explorer as the lesson's cell does, checks that its
starting view is the snapshot the notebook stores (so the site cannot drift from the
lesson), writes every state of its controls to ``_static/windowmem/<key>_explorer.js``,
and puts, in place of the snapshot, a box that ``_static/windowmem/explorers.js`` fills
with controls and the same HTML the Python view draws. The snapshot stays inside the box
for a reader whose browser runs no script.
"""

from __future__ import annotations

import gzip
import json
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
    return BudgetExplorer(prepare(help_centre()), budget=1500, choice="truncate")


#: The lessons whose explorer the site makes live: notebook -> (key, how its cell builds it).
EXPLORERS: dict[str, tuple[str, Callable[[], Any]]] = {
    "03_window_buffer_memory.ipynb": ("lesson03", _lesson03),
    "06_token_budget_and_context_drift.ipynb": ("lesson06", _lesson06),
}


@dataclass(frozen=True)
class LiveExplorerData:
    """What one live explorer added to the site: its *key*, how many states, how many bytes."""

    key: str
    states: int
    size: int
    gzipped: int

    def summary(self) -> str:
        """One line for the build's output."""
        return (
            f"{self.key} explorer: {self.states:,} states, {self.size:,} bytes of data "
            f"({self.gzipped:,} gzipped)"
        )


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


def make_live(notebook: dict[str, Any], name: str, static: Path) -> LiveExplorerData | None:
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
    target.parent.mkdir(parents=True, exist_ok=True)
    encoded = script.encode("utf-8")
    target.write_bytes(encoded)
    output["data"] = {"text/html": live_box(key, snapshot_html), "text/plain": [explorer.label]}
    # The widget's stand-in text ("live: needs a running kernel") is not true here.
    cell["outputs"] = [o for o in cell["outputs"] if WIDGET_VIEW not in o.get("data", {})]
    return LiveExplorerData(key, count_states(data), len(encoded), len(gzip.compress(encoded)))
