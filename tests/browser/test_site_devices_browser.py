"""The course website on a phone (390x844) and a desktop (1366x900), walked in Chromium.

On every page: the ☰ button opens the lesson menu (a panel on a phone, the sidebar shown
and hidden on a desktop), the contents button opens the page's contents on a phone (a
desktop shows them beside the page), no page is wider than the screen, and axe finds no
serious or critical violation. The site is the one ``make site`` builds (the
``built_site`` fixture), served from 127.0.0.1.
"""

from __future__ import annotations

import importlib.resources
import re
import sys
import urllib.parse

import pytest

from tests.conftest import REPO_ROOT as REPO

sys.path.insert(0, str(REPO / "scripts"))

from build_site import site_pages  # noqa: E402
from course_pages import START_PAGE, load_lessons  # noqa: E402

LESSONS = [lesson for lesson in load_lessons() if lesson.written]
#: Every page in the site's reading order: the start page, lessons with their reference pages, the glossary.
PAGES = site_pages(load_lessons())
#: A phone (an iPhone 12 to 15's CSS size) and a common laptop screen.
DEVICES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
#: What the accessibility check refuses: axe's two highest impacts.
REFUSED_IMPACTS = {"serious", "critical"}
#: The elements that stick out past the right edge of the screen, each named with its
#: text, outermost first, skipping those clipped by a scrolling box that itself fits.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  for (const element of document.querySelectorAll('body *')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let parent = element.parentElement, clipped = false;
    while (parent && !clipped) {
      clipped = getComputedStyle(parent).overflowX !== 'visible'
        && parent.getBoundingClientRect().right <= width + 1;
      parent = parent.parentElement;
    }
    if (clipped) continue;
    const name = element.tagName.toLowerCase() + '.' + [...element.classList].join('.');
    const text = (element.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    found.push(`${name} reaches ${Math.round(box.right)} px: "${text}"`);
  }
  return found.slice(0, 3);
}"""


@pytest.fixture(params=list(DEVICES))
def device(request, browser):
    """A fresh tab with a phone's or a desktop's viewport: ``(name, page)``."""
    context = browser.new_context(viewport=DEVICES[request.param])
    try:
        yield request.param, context.new_page()
    finally:
        context.close()


def _open(page, site_url: str, name: str) -> None:
    """Open a page and wait until MathJax's fonts and every other asset have arrived."""
    page.goto(f"{site_url}/{name}.html", timeout=120_000)
    # Playwright's 30 s default was passed on a 2-core machine under a load of 10.
    page.wait_for_load_state("networkidle", timeout=120_000)


def _walk(page, site_url: str, stems: list[str] = PAGES):
    """Open each page in turn, yielding its name once it has loaded."""
    for stem in stems:
        _open(page, site_url, stem)
        yield stem


def _visible_button(page, css_class: str):
    """The one button with *css_class* a reader can see (the themes render hidden copies)."""
    visible = [b for b in page.locator(f"button.{css_class}").all() if b.is_visible()]
    assert len(visible) == 1, f"{len(visible)} visible .{css_class} buttons on {page.url}"
    return visible[0]


def _menu_pages(menu) -> list[str]:
    links = menu.locator("nav.bd-docs-nav a.reference.internal")
    hrefs = links.evaluate_all("els => els.filter(e => e.offsetParent).map(e => e.href)")
    return [urllib.parse.urlparse(h).path.lstrip("/").removesuffix(".html") for h in hrefs]


@pytest.mark.browser
@pytest.mark.slow
def test_no_page_is_wider_than_the_screen(built_site, site_url, device):
    """Every page Sphinx wrote fits the screen's width: nothing scrolls sideways."""
    name, page = device
    root = built_site["html"]
    pages = sorted(
        str(path.relative_to(root).with_suffix(""))
        for path in [*root.glob("*.html"), *root.glob("reference/*.html")]
    )
    assert set(PAGES) <= set(pages)
    too_wide = []
    for stem in _walk(page, site_url, pages):
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > DEVICES[name]["width"]:
            culprits = "; ".join(page.evaluate(OVERFLOWING))
            too_wide.append(f"{stem}.html is {width} px wide ({culprits})")
    assert not too_wide, f"on a {DEVICES[name]['width']} px {name}:\n" + "\n".join(too_wide)


@pytest.mark.browser
@pytest.mark.slow
def test_the_menu_button_opens_the_lessons_on_every_page(site_url, device):
    """☰ opens the lesson menu as a panel on a phone; on a desktop it hides and shows the sidebar."""
    name, page = device
    for stem in _walk(page, site_url):
        menu_button = _visible_button(page, "primary-toggle")
        panel = page.locator("#pst-primary-sidebar-modal")
        sidebar = page.locator("#pst-primary-sidebar")
        if name == "phone":
            assert not sidebar.locator("nav.bd-docs-nav").is_visible(), "menu shown unasked"
            menu_button.click()
            panel.locator("nav.bd-docs-nav").wait_for(state="visible", timeout=5_000)
            assert panel.evaluate("dialog => dialog.open"), f"{stem}: the menu did not open"
            assert _menu_pages(panel) == PAGES, f"{stem}: the menu lists every page in order"
            page.keyboard.press("Escape")
            panel.locator("nav.bd-docs-nav").wait_for(state="detached", timeout=5_000)
        else:
            assert _menu_pages(sidebar) == PAGES, f"{stem}: the sidebar lists every page"
            menu_button.click()
            sidebar.wait_for(state="hidden", timeout=5_000)
            assert not panel.evaluate("dialog => dialog.open"), "a desktop hides, not pops up"
            menu_button.click()
            sidebar.wait_for(state="visible", timeout=5_000)


@pytest.mark.browser
@pytest.mark.slow
def test_a_lesson_is_reached_from_the_phone_menu(site_url, browser):
    """On a phone, a lesson picked in the ☰ menu opens."""
    context = browser.new_context(viewport=DEVICES["phone"])
    try:
        page = context.new_page()
        _open(page, site_url, START_PAGE.stem)
        _visible_button(page, "primary-toggle").click()
        last = LESSONS[-1]
        page.locator("#pst-primary-sidebar-modal").get_by_role("link", name=last.title).click()
        page.wait_for_url(re.compile(rf"/{last.docname}\.html$"), timeout=10_000)
        assert last.title in page.locator("main h1").first.inner_text()
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_the_contents_button_opens_the_page_contents(site_url, device):
    """On a phone the contents button opens the page's sections; a desktop shows them beside the page."""
    name, page = device
    for stem in _walk(page, site_url):
        headings = page.locator("main section > h2").all_inner_texts()
        assert headings, f"{stem} has no sections to list"
        if name == "phone":
            _visible_button(page, "secondary-toggle").click()
            contents = page.locator("#pst-secondary-sidebar-modal nav.page-toc")
            contents.wait_for(state="visible", timeout=5_000)
        else:
            assert not any(b.is_visible() for b in page.locator("button.secondary-toggle").all())
            contents = page.locator("#pst-secondary-sidebar nav.page-toc")
            assert contents.is_visible(), f"{stem}: no contents beside the page"
        first = contents.locator("a.nav-link").first
        assert first.is_visible()
        # A heading's text ends with its "#" permalink; the contents entry does not.
        assert headings[0].rstrip("#").strip() == first.inner_text().strip()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("stem", PAGES)
def test_axe_finds_no_serious_or_critical_violation(site_url, device, stem):
    """axe-core (WCAG 2.x A and AA rules, and its best practices) finds nothing serious on the page."""
    name, page = device
    _open(page, site_url, stem)
    axe = importlib.resources.files("axe_playwright_python") / "axe.min.js"
    page.add_script_tag(path=str(axe))
    results = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    refused = [v for v in results["violations"] if v["impact"] in REFUSED_IMPACTS]
    report = [
        f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}x, e.g. {v['nodes'][0]['target']})"
        for v in refused
    ]
    assert not refused, f"{stem}.html on a {name}:\n" + "\n".join(report)
