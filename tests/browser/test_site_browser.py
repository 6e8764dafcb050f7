"""The course website: built offline, walked in a real browser, every link resolved.

The site is built once per run from the notebooks as they are in ``course/`` (inside a
network namespace with no network where the machine allows one, as root in CI), served
from 127.0.0.1, and read in Debian's Chromium. The phone and desktop checks (menus, page
widths, axe) are in ``test_site_devices_browser.py``.
"""

from __future__ import annotations

import html.parser
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))

from build_site import WORK_FOLDER, site_pages  # noqa: E402
from course_pages import START_PAGE, load_lessons  # noqa: E402
from working_copy import sources  # noqa: E402

LESSONS = [lesson for lesson in load_lessons() if lesson.written]
#: The start page, each lesson and its reference page, the glossary: the site's reading order.
PAGES = site_pages(load_lessons())
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _notebook(name: str) -> dict:
    return json.loads((REPO / "course" / name).read_text(encoding="utf-8"))


def _outputs(notebook: dict):
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            yield cell, cell.get("outputs", [])


def _expected_images(notebook: dict) -> int:
    return sum(
        "image/png" in o.get("data", {}) for _, outputs in _outputs(notebook) for o in outputs
    )


def _expected_snapshots(notebook: dict) -> list[str]:
    """The CSS class of each explorer's stored snapshot: the HTML output beside a widget view."""
    classes = []
    for _, outputs in _outputs(notebook):
        if not any(WIDGET_VIEW in o.get("data", {}) for o in outputs):
            continue
        for output in outputs:
            text = output.get("data", {}).get("text/html")
            if text:
                found = re.search(r'class="(wm-[a-z-]+)', "".join(text))
                if found:
                    classes.append(found.group(1))
    return classes


def _watch_requests(page) -> list[str]:
    """Every URL the page asks for, recorded as it goes."""
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    return requested


@pytest.mark.browser
@pytest.mark.slow
def test_site_builds_with_no_network(built_site):
    """The build ran in a network namespace with no network (as root, the way CI runs)."""
    if not built_site["offline"]:
        skip_or_fail("this machine cannot run the build without network (unshare --net failed)")
    for page in PAGES:
        assert (built_site["html"] / f"{page}.html").is_file()


@pytest.mark.browser
@pytest.mark.slow
def test_navigation_walks_every_lesson_in_order_and_shows_its_outputs(site_url, page):
    """From index.html, "next" goes through every lesson in course order; snapshots, plots and maths render."""
    requested = _watch_requests(page)
    page.goto(f"{site_url}/index.html")
    page.wait_for_url(re.compile(rf"/{START_PAGE.stem}\.html$"), timeout=20_000)
    assert "Start here" in page.locator("main h1").first.inner_text()

    sidebar = page.locator("nav.bd-docs-nav a.reference.internal")
    hrefs = [
        urllib.parse.urlparse(h).path.lstrip("/")
        for h in sidebar.evaluate_all("els => els.map(e => e.href)")
    ]
    assert hrefs == [f"{name}.html" for name in PAGES], (
        "the sidebar lists the start page, the written lessons each with its reference page, "
        "and the glossary, in order"
    )
    # The lesson path, not the table of causes above it.
    start_table = next(
        t for t in page.locator("main table").all_inner_texts() if "you will be able to" in t
    )
    for lesson in load_lessons():
        assert lesson.title in start_table
        assert ("coming" in start_table.split(lesson.title, 1)[1].split("\n", 1)[0]) is (
            not lesson.written
        )

    visited = []
    lessons = {lesson.docname: lesson for lesson in LESSONS}
    for name in PAGES[1:]:
        page.locator("a.right-next").first.click()
        page.wait_for_url(re.compile(rf"/{re.escape(name)}\.html$"), timeout=20_000)
        visited.append(name)
        if name not in lessons:  # a reference page or the glossary: a title, no run box
            assert page.locator("main h1").first.inner_text().strip()
            assert page.locator(".run-in-jupyterlab").count() == 0
            continue
        lesson = lessons[name]
        assert lesson.title in page.locator("main h1").first.inner_text()
        notebook = _notebook(lesson.notebook)

        box = page.locator(".run-in-jupyterlab")
        assert box.is_visible()
        # No address: the port and token are the learner's JupyterLab's, which a site cannot know.
        text = box.inner_text()
        assert "make course" in text and f"{WORK_FOLDER}/" in text and lesson.notebook in text
        download = box.locator("a.download").first.get_attribute("href")
        with urllib.request.urlopen(urllib.parse.urljoin(page.url, download)) as response:
            assert json.loads(response.read()) == notebook, "the download is the notebook itself"

        for css_class in _expected_snapshots(notebook):
            snapshot = page.locator(f".cell_output .{css_class}").first
            snapshot.scroll_into_view_if_needed()
            assert snapshot.is_visible() and snapshot.bounding_box()["height"] > 40, css_class
        assert page.locator(f'script[type="{WIDGET_VIEW}"]').count() == 0

        images = page.locator(".cell_output img")
        assert images.count() == _expected_images(notebook)
        for index in range(images.count()):
            image = images.nth(index)
            image.scroll_into_view_if_needed()
            page.wait_for_function(
                "img => img.complete", arg=image.element_handle(), timeout=10_000
            )
            assert image.evaluate("img => img.naturalWidth") > 100, f"image {index} did not load"

        if page.locator("span.math, div.math").count():
            page.locator(".MathJax").first.wait_for(state="attached", timeout=20_000)
            assert page.locator(".MathJax_Error, .mjx-merror").count() == 0

    assert visited == PAGES[1:]
    assert page.locator("a.right-next").count() == 0, "the last page has no next page"
    outside = [
        url
        for url in requested
        if urllib.parse.urlsplit(url).scheme not in {"about", "data", "blob"}
        and not url.startswith(site_url)
    ]
    assert outside == [], f"the site asked for something not on the site: {outside[:5]}"


class _Links(html.parser.HTMLParser):
    """The href/src values and the element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        for key in ("href", "src"):
            if values.get(key) and not (
                tag == "link" and values.get("rel") in {"preconnect", "dns-prefetch"}
            ):
                self.links.append(values[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


@pytest.mark.browser
@pytest.mark.slow
def test_every_link_in_the_site_resolves(built_site):
    """Every link and asset on every page exists, anchors included; none points at a local server."""
    root = built_site["html"]
    # The pages Sphinx wrote (the theme also copies Jinja macro files into _static, unrendered).
    pages = sorted([*root.glob("*.html"), *root.glob("reference/*.html")])
    parsed = {path: _parse(path) for path in pages}
    broken = []
    for path, links in parsed.items():
        for link in links.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme in {"http", "https"}:
                # Another site (a product's documentation or source) cannot be fetched
                # offline; it must at least be a well-formed https address.
                if parts.scheme != "https" or not parts.netloc:
                    broken.append(f"{path.name}: {link} is not an https address")
                continue
            if (
                parts.scheme in {"mailto", "data", "javascript"}
                or link.startswith("#")
                and not parts.fragment
            ):
                continue
            target = (
                (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
            )
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or root.resolve() not in target.parents:
                broken.append(f"{path.name}: {link} -> no such file in the site")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed.get(target, None) or _parse(target)
                if parts.fragment not in ids.ids:
                    broken.append(f"{path.name}: {link} -> no #{parts.fragment} there")
    assert not broken, "\n".join(broken)


def test_each_lesson_the_run_box_names_is_in_the_working_copy():
    """The notebook a run box tells the learner to open sits at the top of `make course`'s working copy."""
    copied = {place for _, place in sources(REPO / "course", REPO / "release")}
    assert {lesson.notebook for lesson in LESSONS} <= copied
