"""Build the course website from the notebooks' stored outputs, with no network.

Usage: ``python scripts/build_site.py [--out DIR]`` (default ``_build/site``; ``make site``)

The pages are staged in ``OUT/src`` and built by Sphinx with MyST-NB into ``OUT/html``;
open ``OUT/html/index.html``. Nothing is executed: each page shows what the notebook in
``course/`` stores today, so the site follows the lessons as they change. Staging adds, to
the copies only, the navigation (a hidden table of contents on the start page, in the order
of ``course/lessons.json``) and a "run this lesson" box on each lesson page. Sphinx runs
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from course_pages import START_PAGE, CatalogError, Lesson, load_lessons  # noqa: E402

WEBSITE = REPO / "website"
DEFAULT_OUT = REPO / "_build" / "site"
#: The address `make course` serves the course folder on (JupyterLab's default port).
LAB_URL = "http://localhost:8888/lab/tree"
#: Where the staged copies of the original notebooks go, for the download links.
DOWNLOADS = "_notebooks"
#: MathJax parts the pages use (TeX input, HTML-CSS output with its web fonts).
MATHJAX_PARTS = ("MathJax.js", "LICENSE", "config", "extensions", "jax", "fonts", "localization/en")


def _markdown_cell(cell_id: str, text: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def run_box(lesson: Lesson) -> str:
    """The box each lesson page opens with: how to run the notebook whose outputs it shows."""
    return f"""```{{admonition}} Run this lesson in JupyterLab
:class: tip run-in-jupyterlab

This page shows the notebook as stored: the outputs of its last full run, and a static
snapshot of each explorer. To move the sliders and try the self-checks, run it:

- with `make course` running (it serves the course on port 8888),
  [open {lesson.notebook} in your JupyterLab]({LAB_URL}/{lesson.notebook}); or
- {{download}}`download the notebook <{DOWNLOADS}/{lesson.notebook}>` and open it in any JupyterLab
  where `windowmem` is installed.
```"""


def navigation(lessons: list[Lesson]) -> str:
    """The start page's hidden table of contents: the written lessons in course order."""
    entries = "\n".join(lesson.docname for lesson in lessons if lesson.docname)
    return f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```"


def stage(src: Path, lessons: list[Lesson]) -> None:
    """Copy the site's configuration, MathJax and the notebooks into *src*, adding navigation."""
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(WEBSITE, src, ignore=shutil.ignore_patterns("__pycache__"))
    import jupyter_server_mathjax

    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"
    for part in MATHJAX_PARTS:
        source, target = mathjax / part, src / "_static" / "mathjax" / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)

    start = json.loads((REPO / "course" / START_PAGE.name).read_text(encoding="utf-8"))
    start["cells"].append(_markdown_cell("site-navigation", navigation(lessons)))
    (src / START_PAGE.name).write_text(json.dumps(start), encoding="utf-8")
    for lesson in lessons:
        if not lesson.notebook:
            continue
        original = REPO / "course" / lesson.notebook
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
        (src / lesson.notebook).write_text(json.dumps(notebook), encoding="utf-8")
        # What the download link gives is the notebook itself, without the box.
        (src / DOWNLOADS).mkdir(exist_ok=True)
        shutil.copy(original, src / DOWNLOADS / lesson.notebook)
    # The lessons read their data through windowmem, not from files beside them; copy any
    # other file a lesson links to (images, data) so its links resolve on the site too.
    for path in (REPO / "course").iterdir():
        if path.suffix not in {".ipynb", ".json", ".md"} and path.is_file():
            shutil.copy(path, src / path.name)
    # The n8n pictures and the importable workflows lessons 1 to 4 link to, folders and all.
    for folder in ("images", "workflows"):
        if (REPO / "course" / folder).is_dir():
            shutil.copytree(REPO / "course" / folder, src / folder, dirs_exist_ok=True)


def build(out: Path = DEFAULT_OUT) -> Path:
    """Stage and build the site under *out*; the folder holding ``index.html``."""
    lessons = load_lessons(REPO / "course")
    src, html = out / "src", out / "html"
    stage(src, lessons)
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
    except CatalogError as error:
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
