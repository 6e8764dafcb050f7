"""Build the course website from the notebooks' stored outputs, with no network.

Usage: ``python scripts/build_site.py [--out DIR]`` (default ``_build/site``; ``make site``)

The pages are staged in ``OUT/src`` and built by Sphinx with MyST-NB into ``OUT/html``;
open ``OUT/html/index.html``. Nothing is executed: each page shows what the notebook in
``course/`` stores today, so the site follows the lessons as they change. Staging adds, to
the copies only, the navigation (a hidden table of contents on the start page, in the order
of ``course/lessons.json``, each lesson's reference page right after it and the glossary
last: :func:`site_pages`) and a "run this lesson" box on each lesson page. Sphinx runs
with warnings as errors, so a cross-reference that does not resolve fails the build.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from course_pages import (  # noqa: E402
    GLOSSARY,
    REFERENCE,
    START_PAGE,
    CatalogError,
    Lesson,
    load_lessons,
)
from site_live import (  # noqa: E402
    EXPLORERS,
    LiveData,
    SiteExplorerError,
    make_checks_live,
    make_live,
)
from working_copy import DEFAULT_WORK  # noqa: E402

WEBSITE = REPO / "website"
DEFAULT_OUT = REPO / "_build" / "site"
#: The learner's working copy, which `make course` opens in JupyterLab (as the clone names it).
WORK_FOLDER = DEFAULT_WORK.name
#: Where the staged copies of the original notebooks go, for the download links.
DOWNLOADS = "_notebooks"
#: MathJax parts the pages use (TeX input, HTML-CSS output with its web fonts).
MATHJAX_PARTS = ("MathJax.js", "LICENSE", "config", "extensions", "jax", "fonts", "localization/en")


def _markdown_cell(cell_id: str, text: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def run_box(lesson: Lesson) -> str:
    """The box each lesson page opens with: how to run the notebook whose outputs it shows."""
    works_here = (
        "Its self-checks and its explorer work here too, from what windowmem computed when "
        "this site was built. To run the code, change it, or explore a conversation of your "
        "own, run it:"
        if lesson.notebook in EXPLORERS
        else "Its self-checks work here too; each explorer is a static snapshot. To move the "
        "sliders, run it:"
    )
    return f"""```{{admonition}} Run this lesson in JupyterLab
:class: tip run-in-jupyterlab

This page shows the notebook as stored: the outputs of its last full run.
{works_here}

- in your clone of the course, run `make course`: JupyterLab opens on the start page of
  your working copy, `{WORK_FOLDER}/`, where your changes are kept; open
  `{lesson.notebook}` from its file browser. (The address and token are the ones
  `make course` prints: a site cannot know them.) Or
- {{download}}`download the notebook <{DOWNLOADS}/{lesson.notebook}>` and open it in any JupyterLab
  where `windowmem` is installed.
```"""


def site_pages(lessons: list[Lesson], course: Path = COURSE) -> list[str]:
    """Every page of the site in reading order, as Sphinx names them (no ``.ipynb``).

    The start page, then each written lesson followed by its reference page if it has one,
    then the glossary (when ``course/reference/glossary.ipynb`` exists).
    """
    pages = [START_PAGE.stem]
    for lesson in lessons:
        if lesson.docname:
            pages.append(lesson.docname)
        if lesson.reference_docname:
            pages.append(lesson.reference_docname)
    if (course / GLOSSARY).is_file():
        pages.append(GLOSSARY.removesuffix(".ipynb"))
    return pages


def navigation(lessons: list[Lesson], course: Path = COURSE) -> str:
    """The start page's hidden table of contents: every page after it, in reading order."""
    entries = "\n".join(site_pages(lessons, course)[1:])
    return f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```"


def stage(src: Path, lessons: list[Lesson], course: Path = COURSE) -> list[LiveData]:
    """Copy the site's configuration, MathJax and the notebooks into *src*, adding navigation.

    The lessons' explorers named in ``site_live.EXPLORERS`` and every lesson's self-checks
    are made live; what each adds is returned.
    """
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(WEBSITE, src, ignore=shutil.ignore_patterns("__pycache__"))
    import jupyter_server_mathjax

    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"
    for part in MATHJAX_PARTS:
        source, target = mathjax / part, src / "_static" / "mathjax" / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)

    explorers: list[LiveData] = []
    start = json.loads((course / START_PAGE.name).read_text(encoding="utf-8"))
    start["cells"].append(_markdown_cell("site-navigation", navigation(lessons, course)))
    (src / START_PAGE.name).write_text(json.dumps(start), encoding="utf-8")
    for lesson in lessons:
        if not lesson.notebook:
            continue
        original = course / lesson.notebook
        notebook = json.loads(original.read_text(encoding="utf-8"))
        # The box goes right under the title: split the first cell after its heading line.
        first = notebook["cells"][0]
        text = "".join(first["source"]) if isinstance(first["source"], list) else first["source"]
        title, _, rest = text.partition("\n")
        first["source"] = title
        added = [_markdown_cell("site-run-this-lesson", run_box(lesson))]
        if rest.strip():
            added.append(_markdown_cell("site-lesson-introduction", rest))
        notebook["cells"][1:1] = added
        for live in (
            make_live(notebook, lesson.notebook, src / "_static"),
            make_checks_live(notebook, lesson.notebook, src / "_static", course),
        ):
            if live is not None:
                explorers.append(live)
        (src / lesson.notebook).write_text(json.dumps(notebook), encoding="utf-8")
        # What the download link gives is the notebook itself, without the box.
        (src / DOWNLOADS).mkdir(exist_ok=True)
        shutil.copy(original, src / DOWNLOADS / lesson.notebook)
    # The reference pages and the glossary are published as they are, beside the lessons.
    (src / REFERENCE).mkdir(exist_ok=True)
    for page in site_pages(lessons, course):
        if page.startswith(f"{REFERENCE}/"):
            shutil.copy(course / f"{page}.ipynb", src / f"{page}.ipynb")
    # The lessons read their data through windowmem, not from files beside them; copy any
    # other file a page links to (images, data) so its links resolve on the site too.
    for folder in (course, course / REFERENCE):
        for path in folder.glob("*"):
            if path.suffix not in {".ipynb", ".json", ".md"} and path.is_file():
                shutil.copy(path, src / path.relative_to(course))
    # The n8n pictures and the importable workflows lessons 1 to 4 link to, folders and all.
    for folder in ("images", "workflows"):
        if (course / folder).is_dir():
            shutil.copytree(course / folder, src / folder, dirs_exist_ok=True)
    return explorers


def build(out: Path = DEFAULT_OUT) -> Path:
    """Stage and build the site under *out*; the folder holding ``index.html``."""
    lessons = load_lessons(COURSE)
    src, html = out / "src", out / "html"
    for live in stage(src, lessons):
        print(live.summary())
    if html.exists():
        shutil.rmtree(html)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        "html",
        "-W",
        "--keep-going",
        "-q",
        "-d",
        str(out / "doctrees"),
        str(src),
        str(html),
    ]
    subprocess.run(command, check=True)
    return html


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="build folder (default: _build/site)"
    )
    args = parser.parse_args(argv)
    try:
        html = build(args.out.resolve())
    except (CatalogError, SiteExplorerError) as error:
        print(f"build_site: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(
            f"build_site: Sphinx failed (exit {error.returncode}); see its messages above",
            file=sys.stderr,
        )
        return 1
    print(f"built the course website: open {html / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
