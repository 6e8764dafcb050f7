"""The course's lesson list, from ``course/lessons.json``, written into every page that shows it.

Usage: ``python scripts/course_pages.py [--check]``

``course/lessons.json`` is the one list of lessons. A written lesson names its notebook,
and its title (the notebook's first heading, without "Lesson N ·") and time ("about N
minutes" in its first cell) are read from that notebook, so they cannot disagree with it;
a lesson not written yet carries its planned title and time and is shown as coming. This
script renders the list into the start page (``course/00_start_here.ipynb``, the markdown
cell that opens with :data:`START_MARKER`) and into README.md (between
:data:`README_BEGIN` and :data:`README_END`). README.md's list of assignments (between
:data:`ASSIGNMENTS_BEGIN` and :data:`ASSIGNMENTS_END`) is read from ``source/``: every
assignment folder, with the parts and points its notebook's headings give. The website's navigation
(``scripts/build_site.py``) reads :func:`load_lessons` directly. ``--check`` changes nothing and
exits 1 naming each stale page.

Beside the lessons, ``course/reference/`` holds the pages a reader consults rather than reads
through: the glossary (``reference/glossary.ipynb``) and each lesson's **reference page**
("product notes"), ``reference/NN_<lesson>_notes.ipynb`` for lesson ``NN_<lesson>.ipynb``:
its version tables, typeVersion rules, other products, source pointers and proofs. A lesson
has one when the file exists (:attr:`Lesson.reference`); the site publishes it after its
lesson, the working copy and the notebook runs pick it up, and a reference page that names
no lesson is refused.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
CATALOG = COURSE / "lessons.json"
START_PAGE = COURSE / "00_start_here.ipynb"
#: The folder of pages beside the lessons: the glossary and the lessons' reference pages.
REFERENCE = "reference"
#: The glossary's page, in the reference folder (its ``#glossary`` anchor is what lessons link).
GLOSSARY = f"{REFERENCE}/glossary.ipynb"
#: A lesson's reference page: ``reference/<lesson notebook's stem>_notes.ipynb``.
REFERENCE_SUFFIX = "_notes.ipynb"
README = REPO / "README.md"

START_MARKER = (
    "<!-- The lesson path: generated from lessons.json by scripts/course_pages.py. "
    "Edit lessons.json, not this cell. -->"
)
README_BEGIN = (
    "<!-- lessons: begin (generated from course/lessons.json by scripts/course_pages.py) -->"
)
README_END = "<!-- lessons: end -->"
SOURCE = REPO / "source"
ASSIGNMENTS_BEGIN = (
    "<!-- assignments: begin (generated from source/ by scripts/course_pages.py) -->"
)
ASSIGNMENTS_END = "<!-- assignments: end -->"
#: A part's heading in an assignment: ``## Part A: keys and buckets (10 points)``.
PART = re.compile(
    r"^##\s+Part\s+(?P<part>\w+):\s*(?P<title>.+?)\s*\((?P<points>\d+) points?\)\s*$", re.M
)

HEADING = re.compile(r"^#\s+(?:Lesson\s+\d+\s*[·:\-–]\s*)?(?P<title>.+?)\s*$", re.M)
MINUTES = re.compile(r"\babout (?P<minutes>\d+) minutes\b")


class CatalogError(ValueError):
    """``course/lessons.json`` and the notebooks in ``course/`` disagree, or the file is malformed."""


@dataclass(frozen=True)
class Lesson:
    """One lesson: its *number*, *title*, *minutes*, *outcome* and *notebook* (None: coming).

    *reference* is its reference page, ``reference/NN_<lesson>_notes.ipynb`` relative to
    ``course/``, when that file exists (None: the lesson has none yet).
    """

    number: int
    title: str
    minutes: int
    outcome: str
    notebook: str | None
    reference: str | None = None

    @property
    def written(self) -> bool:
        """True when the lesson's notebook exists and it is part of the course today."""
        return self.notebook is not None

    @property
    def docname(self) -> str | None:
        """The notebook's name without ``.ipynb`` (the website's page name), or None."""
        return self.notebook.removesuffix(".ipynb") if self.notebook else None

    @property
    def reference_docname(self) -> str | None:
        """The reference page's name without ``.ipynb`` (``reference/..._notes``), or None."""
        return self.reference.removesuffix(".ipynb") if self.reference else None


def reference_page_for(notebook: str) -> str:
    """Where lesson *notebook*'s reference page lives, relative to ``course/``.

    >>> reference_page_for("03_window_buffer_memory.ipynb")
    'reference/03_window_buffer_memory_notes.ipynb'
    """
    return f"{REFERENCE}/{notebook.removesuffix('.ipynb')}{REFERENCE_SUFFIX}"


def reference_pages(course: Path = COURSE) -> list[str]:
    """Every notebook in ``course/reference/``, relative to ``course/``, sorted."""
    return sorted(
        f"{REFERENCE}/{p.name}"
        for p in (course / REFERENCE).glob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )


def _first_cell_text(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    markdown = [c for c in cells if c["cell_type"] == "markdown"]
    if not markdown:
        raise CatalogError(f"{notebook.name}: has no markdown cell to take a title from")
    source = markdown[0]["source"]
    return "".join(source) if isinstance(source, list) else source


def _from_notebook(entry: dict, course: Path) -> Lesson:
    path = course / entry["notebook"]
    if not path.is_file():
        raise CatalogError(
            f"lessons.json names {entry['notebook']} for lesson {entry['number']}, but "
            f'{path} does not exist: add the notebook, or set "notebook": null while it is coming'
        )
    if not entry["notebook"].startswith(f"{entry['number']:02d}_"):
        raise CatalogError(
            f"lesson {entry['number']}'s notebook {entry['notebook']} must be named "
            f"{entry['number']:02d}_<topic>.ipynb so the files sort in lesson order"
        )
    text = _first_cell_text(path)
    heading, minutes = HEADING.search(text), MINUTES.search(text)
    if heading is None:
        raise CatalogError(f"{path.name}: its first cell needs a '# Lesson N · Title' heading")
    if minutes is None:
        raise CatalogError(
            f"{path.name}: its first cell must say how long it takes, 'about N minutes'"
        )
    for key, found in (("title", heading["title"]), ("minutes", int(minutes["minutes"]))):
        if key in entry and entry[key] != found:
            raise CatalogError(
                f"lessons.json gives lesson {entry['number']} {key} {entry[key]!r} but "
                f"{path.name} says {found!r}: the notebook is the source, drop {key!r} from the entry"
            )
    reference = reference_page_for(entry["notebook"])
    return Lesson(
        entry["number"],
        heading["title"],
        int(minutes["minutes"]),
        entry["outcome"],
        entry["notebook"],
        reference if (course / reference).is_file() else None,
    )


def load_lessons(course: Path = COURSE) -> list[Lesson]:
    """Every lesson in order, written ones completed from their notebooks; CatalogError if inconsistent."""
    try:
        entries = json.loads((course / "lessons.json").read_text(encoding="utf-8"))["lessons"]
    except (OSError, ValueError, KeyError) as error:
        raise CatalogError(
            f"{course / 'lessons.json'}: cannot read the lesson list: {error}"
        ) from error
    lessons = []
    for position, entry in enumerate(entries, start=1):
        missing = {"number", "outcome", "notebook"} - entry.keys()
        if missing:
            raise CatalogError(f"lessons.json entry {position} lacks {sorted(missing)}")
        if entry["number"] != position:
            raise CatalogError(
                f"lessons.json entry {position} is numbered {entry['number']}: number lessons 1, 2, 3, ... in order"
            )
        if entry["notebook"] is None:
            if not {"title", "minutes"} <= entry.keys():
                raise CatalogError(
                    f"lesson {position} is coming: give its planned title and minutes"
                )
            lessons.append(
                Lesson(position, entry["title"], entry["minutes"], entry["outcome"], None)
            )
        else:
            lessons.append(_from_notebook(entry, course))
    listed = {lesson.notebook for lesson in lessons if lesson.notebook}
    unlisted = sorted(
        p.name
        for p in course.glob("[0-9][0-9]_*.ipynb")
        if p.name != START_PAGE.name and p.name not in listed
    )
    if unlisted:
        raise CatalogError(
            f"lesson notebooks missing from course/lessons.json: {unlisted}: add an entry for each"
        )
    owned = {lesson.reference for lesson in lessons if lesson.reference} | {GLOSSARY}
    orphans = [page for page in reference_pages(course) if page not in owned]
    if orphans:
        raise CatalogError(
            f"reference pages that belong to no lesson: {orphans}: name each "
            f"reference/<lesson notebook's name without .ipynb>{REFERENCE_SUFFIX}"
        )
    return lessons


def unlinked_reference_pages(lessons: list[Lesson], course: Path = COURSE) -> list[str]:
    """The reference pages whose lesson has no markdown link to them (``](reference/...)``)."""
    unlinked = []
    for lesson in lessons:
        if lesson.notebook and lesson.reference:
            cells = json.loads((course / lesson.notebook).read_text(encoding="utf-8"))["cells"]
            markdown = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
            if f"]({lesson.reference}" not in markdown:
                unlinked.append(lesson.reference)
    return unlinked


def lesson_table(lessons: list[Lesson], link_prefix: str) -> str:
    """The lesson path as a markdown table; written lessons link to ``link_prefix + notebook``."""
    rows = ["| lesson | time | you will be able to |", "|---|---|---|"]
    for lesson in lessons:
        if lesson.written:
            name = f"[{lesson.number} · {lesson.title}]({link_prefix}{lesson.notebook})"
            time = f"about {lesson.minutes} min"
        else:
            name = f"{lesson.number} · {lesson.title} *(coming)*"
            time = f"about {lesson.minutes} min (planned)"
        rows.append(f"| {name} | {time} | {lesson.outcome} |")
    return "\n".join(rows)


def start_page_cell(lessons: list[Lesson]) -> str:
    """The start page's lesson-path cell: the marker, then the table with links beside it."""
    written = sum(lesson.written for lesson in lessons)
    total = sum(lesson.minutes for lesson in lessons if lesson.written)
    if written == len(lessons):
        status = f"All {len(lessons)} lessons are written, about {total} minutes in all."
    else:
        status = (
            f"{written} of the {len(lessons)} lessons are written, about {total} minutes in all; "
            "the others are listed as they are planned and join this page when they land."
        )
    return f"{START_MARKER}\n{lesson_table(lessons, '')}\n\n{status}"


def assignment_table(source: Path) -> str:
    """Every assignment in *source* as a markdown table: its folder, its parts, its points."""
    rows = ["| assignment | parts (points) | points |", "|---|---|---|"]
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        notebooks = sorted(folder.glob("*.ipynb"))
        if not notebooks:
            continue
        parts = [
            match
            for notebook in notebooks
            for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
            if cell["cell_type"] == "markdown"
            for match in PART.finditer("".join(cell["source"]))
        ]
        if not parts:
            raise CatalogError(f"{folder.name}: no '## Part X: title (N points)' heading found")
        listed = "; ".join(f"{m['part']}: {m['title']} ({m['points']})" for m in parts)
        total = sum(int(m["points"]) for m in parts)
        rows.append(f"| `{folder.name}` | {listed} | {total} |")
    return "\n".join(rows)


def _between(text: str, begin: str, end: str, body: str) -> str:
    if begin not in text or end not in text:
        raise CatalogError(f"README.md lacks the markers {begin!r} ... {end!r}")
    head, rest = text.split(begin, 1)
    return head + begin + "\n" + body + "\n" + end + rest.split(end, 1)[1]


def _updated_readme(text: str, lessons: list[Lesson], source: Path = SOURCE) -> str:
    text = _between(text, README_BEGIN, README_END, lesson_table(lessons, "course/"))
    return _between(text, ASSIGNMENTS_BEGIN, ASSIGNMENTS_END, assignment_table(source))


def _updated_start_page(text: str, lessons: list[Lesson]) -> str:
    notebook = json.loads(text)
    cells = [
        c
        for c in notebook["cells"]
        if c["cell_type"] == "markdown" and "".join(c["source"]).startswith(START_MARKER)
    ]
    if len(cells) != 1:
        raise CatalogError(
            f"{START_PAGE.name}: needs exactly one markdown cell opening with {START_MARKER!r}"
        )
    cells[0]["source"] = start_page_cell(lessons).splitlines(keepends=True)
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def stale_pages(repo: Path = REPO, write: bool = False) -> list[Path]:
    """The pages whose lesson list differs from lessons.json; rewritten first when *write*."""
    lessons = load_lessons(repo / "course")
    stale = []
    for path, update in (
        (repo / "README.md", lambda text, lessons: _updated_readme(text, lessons, repo / "source")),
        (repo / "course" / START_PAGE.name, _updated_start_page),
    ):
        current = path.read_text(encoding="utf-8")
        wanted = update(current, lessons)
        if wanted != current:
            stale.append(path)
            if write:
                path.write_text(wanted, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a page is stale"
    )
    args = parser.parse_args(argv)
    try:
        stale = stale_pages(write=not args.check)
    except CatalogError as error:
        print(f"course_pages: {error}", file=sys.stderr)
        return 2
    for path in stale:
        verb = "is stale: run python scripts/course_pages.py" if args.check else "updated"
        print(f"{path.relative_to(REPO)} {verb}")
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
