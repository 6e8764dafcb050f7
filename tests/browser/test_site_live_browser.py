"""The live explorers and self-checks on the course website, held to the notebook's Python in Chromium.

The site is the one ``make site`` builds (the ``built_site`` fixture), served from
127.0.0.1. Sampled states of lessons 3 and 6's explorers are drawn by the site's script and
compared with the HTML the Python explorer gives for the same controls; on a desktop
(1366x900) and a phone (390x844) the sliders are moved by keyboard, a self-check answered,
the menu opened, and no page is wider than the screen. Every self-check of every lesson
answers a set of inputs with the line the notebook's ``check()`` prints for them.
"""

from __future__ import annotations

import importlib
import random
import sys

import pytest

from tests.conftest import REPO_ROOT as REPO

sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "course"))

from site_live import EXPLORERS  # noqa: E402

from windowmem.examples import ANCHOR_FACTS  # noqa: E402
from windowmem.explorer.check_site import site_answer  # noqa: E402

DEVICES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
LESSON3 = "03_window_buffer_memory"
LESSON6 = "06_token_budgets"
#: How many states of each explorer the script draws beside the Python view.
SAMPLES = 120
#: The seed of the sampled states.
SEED = 35
#: Words a learner may write for a number (a forgiving check book reads them).
WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


@pytest.fixture(scope="module")
def explorers() -> dict:
    """Each live explorer, built in Python as the site's build builds it, by lesson key."""
    return {key: build() for key, build in EXPLORERS.values()}


@pytest.fixture(params=list(DEVICES))
def device(request, browser):
    """A fresh tab with a desktop's or a phone's viewport: ``(name, page)``, failing on a script error."""
    context = browser.new_context(viewport=DEVICES[request.param])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield request.param, page
        assert not errors, f"script errors on the page: {errors}"
    finally:
        context.close()


def _open(page, site_url: str, stem: str) -> None:
    """Open a lesson page and wait for its scripts: the live parts, not MathJax's fonts."""
    page.goto(f"{site_url}/{stem}.html", wait_until="load", timeout=120_000)
    page.wait_for_function(
        "() => window.wmCheckFeedback && document.querySelector('form.wm-site-check.wm-site-live')",
        timeout=120_000,
    )


def _python_window(explorer, name: str, window: int, turn: int, fact: str) -> str:
    explorer.conversation.value = name
    explorer.window.value = window
    explorer.turn.value = turn
    explorer.fact.value = fact
    return explorer.current_html()


def _python_budget(explorer, budget: int, choice: str, step: int) -> str:
    explorer.budget.value = budget
    explorer.policy.value = choice
    explorer.step.value = step
    return explorer.current_html()


def _first_difference(expected: str, got: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), None)
    at = min(len(expected), len(got)) if at is None else at
    return f"at {at}: python …{expected[at - 60 : at + 60]}… script …{got[at - 60 : at + 60]}…"


@pytest.mark.browser
@pytest.mark.slow
def test_sampled_window_states_are_the_python_views(site_url, page, explorers):
    """Lesson 3: the script's HTML for sampled conversations, windows, turns and facts is the Python view's."""
    explorer = explorers["lesson03"]
    _open(page, site_url, LESSON3)
    root = page.locator(".wm-site-explorer.wm-site-live")
    names = list(explorer.conversation.options)[:-1]  # the last is "your own"
    rng = random.Random(SEED)
    facts = ["", "#6023", " Carlos Ruiz ", "order", "a", "<b>&'\""]
    for sample in range(SAMPLES):
        name = names[sample % len(names)]
        explorer.conversation.value = name
        turns = explorer.turn.max
        # The ends of each range come first, then random states.
        window = (0, explorer.window.max)[sample % 2] if sample < 4 else rng.randint(0, 50)
        turn = (1, turns)[sample % 2] if sample < 4 else rng.randint(1, turns)
        fact = rng.choice(facts)
        expected = _python_window(explorer, name, window, turn, fact)
        got = root.evaluate("(root, a) => root.wmState(...a)", [name, window, turn, fact])
        assert got == expected, (name, window, turn, fact, _first_difference(expected, got))


@pytest.mark.browser
@pytest.mark.slow
def test_sampled_budget_states_are_the_python_views(site_url, page, explorers):
    """Lesson 6: the script's HTML for sampled budgets, policies and steps is the Python view's."""
    explorer = explorers["lesson06"]
    _open(page, site_url, LESSON6)
    root = page.locator(".wm-site-explorer.wm-site-live")
    rng = random.Random(SEED)
    budgets = list(range(explorer.budget.min, explorer.budget.max + 1, explorer.budget.step))
    choices = list(explorer.policy.options)
    for sample in range(SAMPLES):
        budget = budgets[0] if sample == 0 else budgets[-1] if sample == 1 else rng.choice(budgets)
        choice = choices[sample % len(choices)]
        explorer.budget.value = budget
        explorer.policy.value = choice
        step = rng.randint(0, explorer.step.max)
        expected = _python_budget(explorer, budget, choice, step)
        got = root.evaluate("(root, a) => root.wmState(...a)", [budget, choice, step])
        assert got == expected, (budget, choice, step, _first_difference(expected, got))


def _shown(page) -> str:
    return page.locator(".wm-site-output").evaluate("output => output.wmHtml")


def _press(page, css: str, key: str, times: int = 1) -> None:
    control = page.locator(f"input.{css}")
    control.focus()
    for _ in range(times):
        control.press(key)


def _value(page, css: str) -> str:
    return page.locator(f".{css}").input_value()


def _no_wider_than_the_screen(page, device_name: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= DEVICES[device_name]["width"], f"{page.url} is {width} px wide"


def _menu_opens(page, device_name: str) -> None:
    button = [b for b in page.locator("button.primary-toggle").all() if b.is_visible()]
    assert len(button) == 1
    button[0].click()
    if device_name == "phone":
        menu = page.locator("#pst-primary-sidebar-modal nav.bd-docs-nav")
        menu.wait_for(state="visible", timeout=5_000)
        assert menu.locator("a.reference.internal").count() > 1, "the menu lists the lessons"
        page.keyboard.press("Escape")
        menu.wait_for(state="detached", timeout=5_000)
    else:
        sidebar = page.locator("#pst-primary-sidebar")
        sidebar.wait_for(state="hidden", timeout=5_000)
        button[0].click()
        sidebar.wait_for(state="visible", timeout=5_000)


def _open_live_explorer(page, site_url: str, stem: str, device_name: str) -> None:
    """Open a lesson, check that its menu opens, and bring its live explorer into view."""
    _open(page, site_url, stem)
    _menu_opens(page, device_name)
    page.locator(".wm-site-explorer.wm-site-live").scroll_into_view_if_needed()


@pytest.mark.browser
@pytest.mark.slow
def test_lesson3_sliders_fact_and_picker_move_the_view(site_url, device, explorers):
    """Moving lesson 3's controls shows the Python view of where they stand; "your own" says to run the notebook."""
    name, page = device
    explorer = explorers["lesson03"]
    _open_live_explorer(page, site_url, LESSON3, name)

    def python_now() -> str:
        controls = ("wm-conversation", "wm-window", "wm-turn-slider", "wm-fact-text")
        conversation, window, turn, fact = (_value(page, css) for css in controls)
        return _python_window(explorer, conversation, int(window), int(turn), fact)

    start = (_value(page, "wm-window"), _value(page, "wm-turn-slider"))
    fresh = EXPLORERS[f"{LESSON3}.ipynb"][1]()  # the module's explorer has moved
    assert start == (str(fresh.window.value), str(fresh.turn.value))
    assert _shown(page) == fresh.current_html()
    _press(page, "wm-window", "ArrowLeft", 3)
    assert _value(page, "wm-window") == str(int(start[0]) - 3)
    assert _shown(page) == python_now()
    _press(page, "wm-turn-slider", "ArrowLeft", 2)
    assert _shown(page) == python_now()
    page.locator("input.wm-fact-text").fill("Medellín")
    assert 'data-fact-visible="' in _shown(page) and _shown(page) == python_now()
    page.locator("select.wm-conversation").select_option("support_500")
    assert _value(page, "wm-fact-text") == ANCHOR_FACTS["support_60"]
    _press(page, "wm-turn-slider", "End")
    assert _value(page, "wm-turn-slider") == "500"
    assert _shown(page) == python_now()
    _no_wider_than_the_screen(page, name)
    page.locator("select.wm-conversation").select_option(list(explorer.conversation.options)[-1])
    assert "run this lesson in JupyterLab" in page.locator(".wm-site-output").inner_text()
    _no_wider_than_the_screen(page, name)


@pytest.mark.browser
@pytest.mark.slow
def test_lesson6_sliders_and_policy_move_the_view(site_url, device, explorers):
    """Moving lesson 6's budget, policy and step shows the Python view of where they stand."""
    name, page = device
    explorer = explorers["lesson06"]
    _open_live_explorer(page, site_url, LESSON6, name)

    def python_now() -> str:
        budget, choice, step = (
            _value(page, c) for c in ("wm-budget-slider", "wm-policy", "wm-step-slider")
        )
        return _python_budget(explorer, int(budget), choice, int(step))

    assert _shown(page) == python_now()
    start = int(_value(page, "wm-budget-slider"))
    _press(page, "wm-budget-slider", "ArrowRight", 4)
    assert int(_value(page, "wm-budget-slider")) == start + 4 * explorer.budget.step
    assert _shown(page) == python_now()
    page.locator("select.wm-policy").select_option("compact")
    assert _shown(page) == python_now()
    _press(page, "wm-step-slider", "Home")
    assert _value(page, "wm-step-slider") == "0" and _shown(page) == python_now()
    _press(page, "wm-step-slider", "ArrowRight", 5)
    assert _shown(page) == python_now()
    _no_wider_than_the_screen(page, name)


@pytest.mark.browser
@pytest.mark.slow
def test_a_self_check_answers_as_the_notebook_does(site_url, device):
    """Typing an answer under lesson 3's first check and pressing Check prints the notebook's line."""
    name, page = device
    book = importlib.import_module("checks.lesson03").BOOK
    _open(page, site_url, LESSON3)
    form = page.locator("form.wm-site-check.wm-site-live").first
    check_id = form.get_attribute("data-check")
    form.scroll_into_view_if_needed()
    output = form.locator("output")
    assert output.inner_text().strip() == book.feedback(check_id, None)
    for text in ("[1, 2]", repr(book.expected(check_id))):
        form.locator("input").fill(text)
        form.get_by_role("button", name="Check").click()
        assert output.inner_text().strip() == book.feedback(check_id, site_answer(text))
    assert "correct" in output.inner_text()
    _no_wider_than_the_screen(page, name)


def _inputs(book, check_id: str) -> list[str]:
    """What learners type: each foreseen answer in several forms, and answers nobody foresaw."""
    texts = ["", "None", "abc", "7", "[1]", "True", "no", "2 3 4", "(3)", "'x'", "1,725"]
    for value in [book.expected(check_id), *book.mistakes(check_id)]:
        texts.append(repr(value))
        if isinstance(value, str):
            texts += [value, f"  {value.upper()}. ", f"the {value}"]
        elif isinstance(value, bool):
            texts.append("Yes" if value else "no")
        elif isinstance(value, int):
            texts += [f'"{value}"', f"{float(value)}", f"${value}", *WORDS[value : value + 1]]
        elif isinstance(value, (list, tuple)):
            texts += [", ".join(map(repr, value)), " ".join(map(str, value)), repr(list(value))]
            texts.append(repr(list(reversed(value))))  # a set's items in another order
            texts += [repr([v.upper() for v in value if isinstance(v, str)])]
    return texts


@pytest.mark.browser
@pytest.mark.slow
def test_every_self_check_gives_the_notebooks_line_for_every_input(site_url, page):
    """Each check of each lesson: the script's line for each input is CheckBook.feedback's."""
    pages = sorted(path.stem for path in (REPO / "course").glob("0[1-9]_*.ipynb"))
    compared = 0
    for stem in pages:
        book = importlib.import_module(f"checks.lesson{stem[:2]}").BOOK
        _open(page, site_url, stem)
        for check_id in book.ids:
            texts = _inputs(book, check_id)
            got = page.evaluate(
                "([lesson, id, texts]) => texts.map((t) => wmCheckFeedback(lesson, id, t))",
                [f"lesson{stem[:2]}", check_id, texts],
            )
            expected = [book.feedback(check_id, site_answer(text)) for text in texts]
            wrong = [(t, e, g) for t, e, g in zip(texts, expected, got) if e != g]
            assert not wrong, f"lesson {stem[:2]} check {check_id}: {wrong[:3]}"
            compared += len(texts)
    # every lesson's checks, about 40 inputs each (22 checks in all since issue 34's cuts)
    assert compared > 800, compared


@pytest.mark.browser
@pytest.mark.slow
def test_the_live_parts_work_from_a_file_url(built_site, page, explorers):
    """Opened from disk (file://, no server), the explorer draws the Python view and a check answers."""
    page.goto((built_site["html"] / f"{LESSON6}.html").as_uri(), wait_until="load")
    output = page.locator(".wm-site-explorer.wm-site-live .wm-site-output")
    explorer = explorers["lesson06"]
    _press(page, "wm-step-slider", "Home")
    assert output.evaluate("o => o.wmHtml") == _python_budget(
        explorer, int(_value(page, "wm-budget-slider")), _value(page, "wm-policy"), 0
    )
    form = page.locator("form.wm-site-check.wm-site-live").first
    form.locator("input").fill("no idea at all")
    form.get_by_role("button", name="Check").click()
    book = importlib.import_module("checks.lesson06").BOOK
    check_id = form.get_attribute("data-check")
    assert form.locator("output").inner_text().strip() == book.feedback(
        check_id, site_answer("no idea at all")
    )
