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
of ours), and the two agree. At grading time it also takes its highlighted code and
rendered Markdown from the run's :class:`~autograder.records.render_cache.RenderCache`
(``render_cache``): the instructor's cells are the same on every student's page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jinja2 import pass_context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbformat import NotebookNode
from traitlets import Unicode

from autograder.records.render_cache import RenderCache

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


class CachedHighlight:
    """nbconvert's ``highlight_code`` filter, its pieces kept in a :class:`RenderCache`."""

    def __init__(self, highlight: Highlight2HTML, cache: RenderCache) -> None:
        self.highlight, self.cache = highlight, cache

    def __call__(self, source: str, language: str | None = None, metadata: Any = None) -> str:
        # what nbconvert 7.17's Highlight2HTML and _pygments_highlight read, and nothing else
        resolved = language or self.highlight.pygments_lexer
        # as nbconvert: the key's presence counts, whatever its value (an empty one fails the
        # lexer lookup and leaves the cell plain), so presence and value are both in the key
        magics = "0"
        if resolved.startswith("ipython") and metadata and "magics_language" in metadata:
            magics = "1" + json.dumps(metadata["magics_language"], default=str)
        options = json.dumps(self.highlight.extra_formatter_options, sort_keys=True, default=str)
        parts = (source, resolved or "", magics, options)
        return self.cache.get(
            "code", parts, lambda: self.highlight(source, language=language, metadata=metadata)
        )


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTMLExporter, its accessibility pass made on the tags instead of a parsed page."""

    render_cache = Unicode(
        "", help="Folder of the run's RenderCache; empty: every piece is made afresh"
    ).tag(config=True)

    @property
    def _cache(self) -> RenderCache | None:
        return RenderCache(Path(self.render_cache)) if self.render_cache else None

    def default_filters(self):
        for name, function in super().default_filters():
            if name == "markdown2html" and self._cache is not None:
                yield name, self._cached_markdown2html
            else:
                yield name, function

    @pass_context
    def _cached_markdown2html(self, context: Any, source: str) -> str:
        """HTMLExporter's ``markdown2html`` (nbconvert 7.17), kept by what decides its output."""
        cell = context.get("cell", {})
        # in their own order: nbconvert shows an attachment's first type when none is an image
        attachments = json.dumps(cell.get("attachments", {}), default=str)
        # the notebook's folder matters only where images are read into the page
        path = context.get("resources", {}).get("metadata", {}).get("path", "")
        options = json.dumps(
            [
                self.anchor_link_text,
                self.exclude_anchor_links,
                self.embed_images,
                self.lexer_options,
            ],
            sort_keys=True,
            default=str,
        )
        parts = (source, attachments, str(path) if self.embed_images else "", options)
        cache = self._cache
        assert cache is not None  # registered only with a cache
        return cache.get("markdown", parts, lambda: self.markdown2html(context, source))

    def from_notebook_node(  # type: ignore[override]
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        # As HTMLExporter.from_notebook_node (nbconvert 7.17) up to its BeautifulSoup pass.
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get(
            "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)
        )
        # nbconvert's own filter only: a configured subclass may read more than the key holds
        if self._cache is not None and type(highlight_code) is Highlight2HTML:
            highlight_code = CachedHighlight(highlight_code, self._cache)
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
