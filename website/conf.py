"""Sphinx configuration of the course website (built by ``scripts/build_site.py``, ``make site``).

The pages are the course notebooks with the outputs stored in git: nothing is executed
(``nb_execution_mode = "off"``) and nothing is fetched, so the site builds with no network
and shows exactly what a learner sees on opening a notebook. Explorer widgets cannot run
without a kernel, so their live view is left out and the static snapshot stored above it
is what the page shows, except where ``scripts/site_live.py`` makes an explorer live
(every state computed at build time, drawn by ``_static/windowmem/explorers.js``) and
gives each self-check an answer box (``_static/windowmem/checks.js``). MathJax comes from the ``jupyter-server-mathjax`` package, copied
into ``_static`` by the build script, instead of a CDN.
"""

from __future__ import annotations

project = "windowmem: how an agent's conversation memory really works"
author = "the windowmem authors"
copyright = "the windowmem authors"
language = "en"

extensions = ["myst_nb", "sphinx_book_theme"]
root_doc = "00_start_here"
exclude_patterns = ["_build", "_extra", "_notebooks", "**.ipynb_checkpoints"]

# The stored outputs are the content: never run a notebook to build the site.
nb_execution_mode = "off"
# No widget state is stored (scripts/execute_notebooks.py strips it), so no widget JavaScript.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
# A widget view without a kernel would render as an empty box: leave it out; the
# snapshot and the "live: needs a running kernel" text beside it stay.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("dirhtml", "application/vnd.jupyter.widget-view+json", None),
]
nb_output_stderr = "remove"
# A cell's Markdown output (lesson 5's table of sizing rules) is parsed as MyST, as the pages
# are: CommonMark, MyST-NB's default for outputs, has no pipe tables.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

html_theme = "sphinx_book_theme"
html_title = "windowmem course"
html_static_path = ["_static"]
html_css_files = ["course.css"]
# The live explorers and self-checks (scripts/site_live.py writes their data).
html_js_files = ["windowmem/explorers.js", "windowmem/checks.js"]
html_show_sphinx = False
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    # The run box on each lesson offers the notebook itself; the theme's button would link
    # to a copy of the staged source, which the site does not keep.
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    # pydata-sphinx-theme 0.20 fills an unset navbar_persistent with its search field, which
    # makes it render its own header with a hidden ☰ and contents button of the same classes
    # as sphinx-book-theme's visible ones. Both themes bind their click handlers to the first
    # such button, the hidden one, so the visible ☰ and contents did nothing (upstream:
    # pydata-sphinx-theme#2451, sphinx-book-theme#988). With it empty, as the book theme
    # means it to be, that header stays empty and each button exists once. Search stays in
    # the sidebar and the article header; test_site_devices_browser.py clicks both buttons.
    "navbar_persistent": [],
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "extra_footer": "Built offline from the course notebooks' stored outputs.",
}

# MathJax 2.7 from jupyter-server-mathjax, served from _static/mathjax (no CDN).
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
# The package ships the STIX-Web fonts only, so MathJax is told to use them.
mathjax2_config = {
    "tex2jax": {"processClass": "math", "processEscapes": True},
    "HTML-CSS": {
        "availableFonts": ["STIX-Web"],
        "preferredFont": "STIX-Web",
        "webFont": "STIX-Web",
        "imageFont": None,
    },
}
html_extra_path = ["_extra"]
