"""Showing an explorer in a notebook: a static snapshot first, then the live widgets.

A notebook's stored outputs are read by people with no running kernel (on GitHub, in a
course site): for them the snapshot carries the content, and the live widgets' text form
is one line instead of every child's state. Once the live widgets render, they hide the
snapshot above them (``HIDE_SNAPSHOT``), so a learner sees one explorer, the live one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from IPython.display import HTML, display

#: The caption above every snapshot, so nobody mistakes it for the live explorer.
SNAPSHOT_CAPTION = (
    "<p><i>Static snapshot of the explorer's starting view, for reading without a running "
    "kernel; run the notebook to move the sliders.</i></p>"
)


def snapshot(current_html: str) -> str:
    """*current_html* captioned as a static snapshot.

    >>> snapshot("<b>view</b>").endswith("<b>view</b>")
    True
    """
    return SNAPSHOT_CAPTION + current_html


#: Shown with the live widgets only: in JupyterLab and Notebook 7 it hides the output just
#: before the live explorer, the snapshot of it. It comes with the widgets, so it is there
#: only when they render (a running kernel has run the cell): a reader without a kernel,
#: and the website, which leaves widget views out, keep the snapshot. Widget state is not
#: stored, so the notebook's stored outputs do not change.
HIDE_SNAPSHOT = (
    '<style class="wm-hide-snapshot">'
    ".jp-OutputArea-child:has(+ .jp-OutputArea-child .wm-hide-snapshot) { display: none; }"
    "</style>"
)


def with_snapshot_hidden(box: Any) -> Any:
    """*box* under the widget that hides its snapshot once it renders.

    >>> import ipywidgets
    >>> live = with_snapshot_hidden(ipywidgets.Label("x"))
    >>> [type(child).__name__ for child in live.children]
    ['HTML', 'Label']
    """
    import ipywidgets

    return ipywidgets.VBox([ipywidgets.HTML(HIDE_SNAPSHOT), box])


def show_live(box: Any, current_html: str, label: str) -> None:
    """Display the snapshot of *current_html*, then the live widget *box*, whose text form is *label*."""
    display(HTML(snapshot(current_html)))
    bundle = with_snapshot_hidden(box)._repr_mimebundle_()
    bundle["text/plain"] = label
    display(bundle, raw=True)


class LiveExplorer:
    """What every explorer shares: refresh its output, snapshot it, show snapshot then widgets.

    A subclass builds ``box`` (the widgets) and ``output`` (the HTML widget it refreshes),
    names itself in ``label`` and computes its view in ``current_html``.
    """

    label: ClassVar[str]
    box: Any
    output: Any

    def current_html(self) -> str:
        """The HTML of what the controls select now."""
        raise NotImplementedError

    def _refresh(self, _change: object = None) -> None:
        self.output.value = self.current_html()

    def snapshot_html(self) -> str:
        """The current view as static HTML, captioned for readers with no running kernel."""
        return snapshot(self.current_html())

    def show(self) -> None:
        """Display the static snapshot, then the live explorer."""
        show_live(self.box, self.current_html(), f"{self.label} (live: needs a running kernel)")
