"""The feedback page as nbconvert writes it, without nbconvert's second pass over the whole page.

nbconvert's ``HTMLExporter`` (7.17) renders its template, then parses the page it just
wrote with BeautifulSoup to add two accessibility touches, and serialises the tree again:
every ``<img>`` without ``alt`` gets a stock one, and the cells under a ``.jp-Notebook``
get ``tabindex="0"``. For a graded notebook that pass is about half of the page's cost
(a feedback page is about 250 kB, half of it inlined CSS). :class:`FeedbackExporter`
renders the same template and makes the same edits to the ``<img>`` tags directly; where
the page holds anything the direct edit cannot be sure of (a ``jp-Notebook`` class, an
``<img`` that does not read as a tag), it takes nbconvert's own pass instead. The
page parses to the same tree as nbconvert's (``tests/autograder/records/test_feedback_page.py``).

The worker uses it for the pages it writes at grading time; formgrader and ``feedback``
regenerate pages with nbconvert's own exporter (the course's configuration names no class
of ours), and the two agree.
"""

from __future__ import annotations

import re
from typing import Any

from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbformat import NotebookNode

#: The text nbconvert gives an image without one.
MISSING_ALT = "No description has been provided for this image"
#: What Python's html.parser (nbconvert's parser) reads as text, not tags: the insides of
#: ``<script>`` and ``<style>`` (its CDATA_CONTENT_ELEMENTS), comments and CDATA sections.
_RAW_TEXT = re.compile(
    r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<!\[CDATA\[.*?\]\]>", re.IGNORECASE | re.DOTALL
)
#: An attribute of a start tag, as the HTML standard writes them: its name, then any value.
_ATTRIBUTE_NAME = r"""[^\s"'>/=]+"""
_ATTRIBUTE_VALUE = r"""(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?"""
#: An ``<img>`` start tag, its attributes in group 1.
_IMG = re.compile(rf"<img((?:\s+{_ATTRIBUTE_NAME}{_ATTRIBUTE_VALUE})*)\s*/?>", re.IGNORECASE)
#: The name of each attribute in an ``<img>`` tag's attributes.
_NAME = re.compile(rf"\s+({_ATTRIBUTE_NAME}){_ATTRIBUTE_VALUE}")


def add_missing_alt(html: str) -> str | None:
    """*html* with the stock ``alt`` on every ``<img>`` that has none; None where unsure.

    A ``<img`` in a raw-text region (a ``<script>``, a comment) is text, as to a parser,
    and stays as it is. None when a ``<img`` outside one is not a start tag this can
    read, or the page has a ``jp-Notebook`` class whose cells nbconvert would also mark:
    the caller then takes nbconvert's own pass.

    >>> add_missing_alt('<p><img src="a.png"></p>')
    '<p><img src="a.png" alt="No description has been provided for this image"></p>'
    >>> add_missing_alt('<img alt="" src="a.png">')
    '<img alt="" src="a.png">'
    >>> add_missing_alt('<script>"<img src=x>"</script><img src=y>')
    '<script>"<img src=x>"</script><img src=y alt="No description has been provided for this image">'
    >>> add_missing_alt('<img src="a" <img') is None
    True
    """
    if "jp-Notebook" in html:
        return None
    outside = _RAW_TEXT.sub("", html)
    if outside.lower().count("<img") != len(_IMG.findall(outside)):
        return None

    def with_alt(tag: re.Match[str]) -> str:
        attributes = tag.group(1)
        if "alt" in (name.lower() for name in _NAME.findall(attributes)):
            return tag.group(0)
        end = tag.group(0)[len("<img") + len(attributes) :]
        return f'<img{attributes} alt="{MISSING_ALT}"{end}'

    # the tags outside the raw-text regions are edited; the regions are kept as they are
    pieces, start = [], 0
    for region in _RAW_TEXT.finditer(html):
        pieces += [_IMG.sub(with_alt, html[start : region.start()]), region.group(0)]
        start = region.end()
    pieces.append(_IMG.sub(with_alt, html[start:]))
    return "".join(pieces)


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTMLExporter, its accessibility pass made on the tags instead of a parsed page."""

    def from_notebook_node(  # type: ignore[override]
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        # As HTMLExporter.from_notebook_node (nbconvert 7.17) up to its BeautifulSoup pass.
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get(
            "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)
        )
        resources = self._init_resources(resources)
        filter_data_type = WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources
        )
        self.register_filter("highlight_code", highlight_code)
        self.register_filter("filter_data_type", filter_data_type)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        edited = add_missing_alt(html)
        return (nbconvert_pass(html, self.log) if edited is None else edited), resources


def nbconvert_pass(html: str, log: Any) -> str:
    """nbconvert 7.17's own pass over the page (``HTMLExporter.from_notebook_node``'s end)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, features="html.parser")
    missing_alt = 0
    for elem in soup.select("img:not([alt])"):
        elem.attrs["alt"] = MISSING_ALT
        missing_alt += 1
    if missing_alt:
        log.warning("Alternative text is missing on %s image(s).", missing_alt)
    for elem in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
        elem.attrs["tabindex"] = "0"
    for elem in soup.select(".jp-Notebook div.jp-OutputArea-output"):
        elem.attrs["tabindex"] = "0"
    return str(soup)
