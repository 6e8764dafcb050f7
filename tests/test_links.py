"""Every relative link in README.md, docs/*.md, course/*.md and the course notebooks (lessons, start page,
glossary and reference pages) points at something real."""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Markdown inline links and images: [text](target) or ![alt](target "title").
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _slug(heading: str) -> str:
    """GitHub's and JupyterLab's anchor for a heading (lower case, punctuation dropped, spaces to -)."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def _documents() -> list[Path]:
    return [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        *sorted((REPO / "course").glob("*.md")),
        *sorted((REPO / "course").glob("*.ipynb")),
        *sorted((REPO / "course" / "reference").glob("*.ipynb")),
    ]


@pytest.mark.parametrize("document", _documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(document: Path):
    """Files exist (inside the repository) and #anchors name a heading of the page they point at."""
    text = _markdown_of(document)
    # Code blocks and inline code hold examples, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    broken = []
    for target in LINK.findall(text):
        parts = urllib.parse.urlsplit(target)
        if parts.scheme in {"http", "https", "mailto"}:
            if parts.scheme == "http" and parts.hostname not in {"localhost", "127.0.0.1"}:
                broken.append(f"{target}: use https")
            continue
        path = (
            (document.parent / urllib.parse.unquote(parts.path)).resolve()
            if parts.path
            else document
        )
        if not path.exists() or REPO.resolve() not in [path, *path.parents]:
            broken.append(f"{target}: no such file")
            continue
        if parts.fragment and path.suffix in {".md", ".ipynb"}:
            markdown = _markdown_of(path)
            # A heading's anchor. A Markdown page may also use an explicit <a id>; a notebook
            # may not: the website (MyST) makes anchors from headings only, so a link to an
            # <a id> alone works in JupyterLab and breaks `make site`.
            anchors = {_slug(h) for h in HEADING.findall(markdown)}
            if path.suffix == ".md":
                anchors |= set(re.findall(r'<a id="([\w-]+)"></a>', markdown))
            if parts.fragment.lower() not in anchors:
                broken.append(f"{target}: no heading #{parts.fragment} in {path.name}")
    assert not broken, f"{document.relative_to(REPO)}:\n" + "\n".join(broken)


def test_the_readme_links_the_start_page_and_every_written_lesson():
    """README.md points a newcomer at the start page and at each lesson notebook that exists."""
    readme = (REPO / "README.md").read_text()
    targets = set(LINK.findall(readme))
    assert "course/00_start_here.ipynb" in targets
    for notebook in sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb")):
        assert f"course/{notebook.name}" in targets, f"README.md does not link {notebook.name}"
