"""The lesson list: one source (course/lessons.json), the same on the start page and in README.md."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import load_script

REPO = Path(__file__).resolve().parents[1]


def _load_script(name: str = "course_pages"):
    return load_script(name)


pages = _load_script()


def _markdown_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def _copy_repo_pages(tmp_path: Path) -> Path:
    """README.md, course/ (notebooks and lessons.json) and source/ in a scratch folder."""
    for folder in ("course", "source"):
        shutil.copytree(
            REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
        )
    shutil.copy(REPO / "README.md", tmp_path / "README.md")
    return tmp_path


def test_start_page_and_readme_show_the_list_in_lessons_json():
    """Neither page has drifted from lessons.json (run scripts/course_pages.py if this fails)."""
    assert pages.stale_pages(REPO) == [], "run: python scripts/course_pages.py"


def test_the_lessons_are_the_six_of_the_course_and_the_written_ones_are_the_notebooks():
    """Six lessons numbered 1 to 6; the written ones are exactly the lesson notebooks in course/."""
    lessons = pages.load_lessons()
    assert [lesson.number for lesson in lessons] == [1, 2, 3, 4, 5, 6]
    notebooks = sorted(p.name for p in (REPO / "course").glob("[0-9][0-9]_*.ipynb"))
    assert ["00_start_here.ipynb"] + [x.notebook for x in lessons if x.written] == notebooks
    for lesson in lessons:
        assert lesson.minutes > 0 and lesson.outcome and lesson.title
        if lesson.written:
            first = _markdown_cells(REPO / "course" / lesson.notebook)[0]
            assert lesson.title in first.splitlines()[0]
            assert f"about {lesson.minutes} minutes" in first


def test_readme_mirrors_the_start_page_row_for_row():
    """The README's rows are the start page's, with links into course/ instead of beside it."""
    start = next(c for c in _markdown_cells(pages.START_PAGE) if c.startswith(pages.START_MARKER))
    start_rows = [line for line in start.splitlines() if line.startswith("|")]
    readme = (REPO / "README.md").read_text()
    section = readme.split(pages.README_BEGIN, 1)[1].split(pages.README_END, 1)[0]
    readme_rows = [line for line in section.splitlines() if line.startswith("|")]
    assert len(start_rows) == 2 + 6
    assert readme_rows == [row.replace("](0", "](course/0") for row in start_rows]
    for lesson in pages.load_lessons():
        row = next(
            r
            for r in start_rows
            if r.startswith(f"| [{lesson.number} ·") or r.startswith(f"| {lesson.number} ·")
        )
        assert ("(coming)" in row) is (not lesson.written)
        assert (f"]({lesson.notebook})" in row) is lesson.written


def test_adding_a_lesson_is_one_entry_and_its_notebook(tmp_path):
    """Write lesson 4's notebook, point its entry at it: both pages list it as written."""
    root = _copy_repo_pages(tmp_path)
    notebook = {
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "# Lesson 4 · Memory that outlives the session\n\n**What you will be able to do** (about 45 minutes)\n",
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    for written in (root / "course").glob("04_*.ipynb"):
        written.unlink()  # the real lesson 4, once written, gives way to this one
    for notes in (root / "course" / "reference").glob("04_*_notes.ipynb"):
        notes.unlink()  # and so does its reference page, which belongs to no lesson now
    (root / "course" / "04_persistent_memory.ipynb").write_text(json.dumps(notebook))
    catalog = json.loads((root / "course" / "lessons.json").read_text())
    entry = catalog["lessons"][3]
    entry["notebook"] = "04_persistent_memory.ipynb"
    entry.pop("title", None), entry.pop("minutes", None)  # absent once lesson 4 is written
    (root / "course" / "lessons.json").write_text(json.dumps(catalog))

    assert set(pages.stale_pages(root, write=True)) == {
        root / "README.md",
        root / "course" / "00_start_here.ipynb",
    }
    assert pages.stale_pages(root) == []
    row = "| [4 · Memory that outlives the session](course/04_persistent_memory.ipynb) | about 45 min |"
    assert row in (root / "README.md").read_text()
    assert "](04_persistent_memory.ipynb) | about 45 min |" in "\n".join(
        _markdown_cells(root / "course" / "00_start_here.ipynb")
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda root, c: (root / "course" / "07_extra.ipynb").write_text("{}"),
            "missing from course/lessons.json",
        ),
        (lambda root, c: c["lessons"][2].update(notebook="03_renamed.ipynb"), "does not exist"),
        (lambda root, c: c["lessons"][2].update(minutes=5), "the notebook is the source"),
        (
            # Every lesson is written now: make the last one a coming entry without minutes.
            lambda root, c: c["lessons"][-1].update(notebook=None, title="Planned"),
            "planned title and minutes",
        ),
        (lambda root, c: c["lessons"].pop(1), "numbered 3"),
    ],
    ids=["unlisted notebook", "missing notebook", "conflicting time", "coming without time", "gap"],
)
def test_an_inconsistent_list_is_refused_saying_what_to_fix(tmp_path, change, message):
    """Each way lessons.json and course/ can disagree stops the build with a message naming the fix."""
    root = _copy_repo_pages(tmp_path)
    catalog = json.loads((root / "course" / "lessons.json").read_text())
    change(root, catalog)
    (root / "course" / "lessons.json").write_text(json.dumps(catalog))
    with pytest.raises(pages.CatalogError, match=message):
        pages.load_lessons(root / "course")


def test_the_readme_lists_every_assignment_with_the_points_its_headings_give(tmp_path):
    """A new part, or a new assignment folder, makes README.md stale until the script runs."""
    table = pages.assignment_table(REPO / "source")
    folders = sorted(p.name for p in (REPO / "source").iterdir() if p.is_dir())
    assert [row.split("`")[1] for row in table.splitlines()[2:]] == folders
    root = _copy_repo_pages(tmp_path)
    notebook = next((root / "source" / folders[0]).glob("*.ipynb"))
    data = json.loads(notebook.read_text())
    data["cells"].append(
        {"cell_type": "markdown", "metadata": {}, "source": "## Part Z: one more (3 points)"}
    )
    notebook.write_text(json.dumps(data))
    assert pages.stale_pages(root) == [root / "README.md"]
    pages.stale_pages(root, write=True)
    assert "Z: one more (3)" in (root / "README.md").read_text()


def test_the_start_page_names_every_product_family_the_library_models():
    """Each registered policy's product belongs to a family the start page names."""
    from windowmem.policies.registry import policy_infos

    families = (
        "n8n",
        "LangChain",
        "LangGraph",
        "OpenAI Agents SDK",
        "Spring AI",
        "LlamaIndex",
        "Semantic Kernel",
        "Microsoft Agent Framework",
        "Tensorify",
    )
    unnamed = [i.product for i in policy_infos() if not i.product.startswith(families)]
    assert unnamed == [], f"add these products' family to the start page and here: {unnamed}"
    first_cell = _markdown_cells(REPO / "course" / "00_start_here.ipynb")[0]
    opening = " ".join(first_cell.split())
    assert [f for f in families if f not in opening] == []


#: Issue 34: the start page holds what the course is for, the causes, the path and how to work.
START_PAGE_MAX_WORDS = 800


def test_the_start_page_is_at_most_800_words_as_lesson_time_counts_them():
    words = _load_script("lesson_time").reading(pages.START_PAGE).words
    assert words <= START_PAGE_MAX_WORDS, (
        f"the start page has {words} words; keep it to {START_PAGE_MAX_WORDS} "
        "(depth belongs on the glossary and the reference pages)"
    )


def test_the_start_page_gives_each_cause_its_symptom_first_check_and_lessons():
    """A table row per cause of forgetting, each linking the lessons that treat it."""
    text = "\n".join(_markdown_cells(pages.START_PAGE))
    rows = {
        cause: next(line for line in text.splitlines() if line.startswith(f"| **{cause}**"))
        for cause in ("scope", "storage", "window")
    }
    header = next(line for line in text.splitlines() if line.startswith("| cause |"))
    assert header == "| cause | the symptom | check first | lessons |"
    lessons = {lesson.number: lesson.notebook for lesson in pages.load_lessons()}
    for cause, numbers in {"scope": (1, 2), "storage": (1, 4), "window": (3, 5, 6)}.items():
        cells = [c.strip() for c in rows[cause].strip("|").split("|")]
        assert len(cells) == 4 and all(cells), f"{cause}: symptom, first check and lessons"
        for number in numbers:
            assert f"[{number}]({lessons[number]})" in cells[3], f"{cause}: lesson {number}"


def test_the_start_page_sends_learners_to_their_working_copy_for_assignments():
    """`make course` opens my_course/ with assignments in my_course/assignments/; the Assignment List is off."""
    text = " ".join(" ".join(_markdown_cells(pages.START_PAGE)).split())
    assert "`my_course/assignments/`" in text and "`my_course/`" in text
    assert "Assignment List" not in text
    assert "](reference/glossary.ipynb#glossary)" in text


# ---------------------------------------------------------------- reference pages


build_site = _load_script("build_site")
execute_notebooks = _load_script("execute_notebooks")
lesson_time = _load_script("lesson_time")
working_copy = _load_script("working_copy")


def test_every_reference_page_is_linked_from_its_lesson():
    """A lesson with a reference page links it; lessons without one yet are left out."""
    lessons = pages.load_lessons()
    with_notes = [lesson for lesson in lessons if lesson.reference]
    assert pages.unlinked_reference_pages(lessons) == [], (
        "link each reference page from its lesson's main path"
    )
    for lesson in with_notes:
        assert (REPO / "course" / lesson.reference).is_file()


def test_the_site_publishes_each_lesson_then_its_reference_page_and_the_glossary_last():
    order = build_site.site_pages(pages.load_lessons())
    assert order[0] == pages.START_PAGE.stem and order[-1] == "reference/glossary"
    for lesson in pages.load_lessons():
        if lesson.reference_docname:
            assert order.index(lesson.reference_docname) == order.index(lesson.docname) + 1


#: A lesson's reference page as the fixture writes it: a heading, a link back, a table computed.
NOTES = {
    "cells": [
        {
            "cell_type": "markdown",
            "id": "notes-title",
            "metadata": {},
            "source": "# Lesson 4 · Product notes\n\nBack to [the lesson](../04_memory_that_outlives_the_session.ipynb).",
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "notes-table",
            "metadata": {},
            "outputs": [],
            "source": "from windowmem.policies.registry import policy_infos\nlen(policy_infos())",
        },
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def course_with_notes(tmp_path: Path) -> Path:
    """A scratch copy of the course in which lesson 4 has a reference page, linked from the lesson."""
    root = _copy_repo_pages(tmp_path)
    lesson = next((root / "course").glob("04_*.ipynb"))
    notes = root / "course" / pages.reference_page_for(lesson.name)
    notes.write_text(json.dumps(NOTES))
    (notes.parent / "04_table.png").write_bytes(b"not really a png")
    data = json.loads(lesson.read_text())
    link = f"]({notes.relative_to(root / 'course')}"
    # The fixture's lesson links its page only through the cell appended here.
    for cell in data["cells"]:
        cell["source"] = "".join(cell["source"]).replace(link, "](#the-reference-page")
    data["cells"].append(
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": f"The version tables are on [the reference page]({notes.relative_to(root / 'course')}).",
        }
    )
    lesson.write_text(json.dumps(data))
    return root


def test_a_reference_page_is_found_published_after_its_lesson_and_run_copied_not_timed(
    course_with_notes, tmp_path
):
    """The plumbing on a fixture: one new file, and every tool picks it up with no other change."""
    course = course_with_notes / "course"
    lessons = pages.load_lessons(course)
    four = lessons[3]
    assert four.reference == f"reference/{four.docname}_notes.ipynb"
    # The other lessons keep whatever pages the real course gives them.
    real = {lesson.number: lesson.reference for lesson in pages.load_lessons()}
    assert [lesson.reference for lesson in lessons if lesson.number != 4] == [
        real[lesson.number] for lesson in lessons if lesson.number != 4
    ]
    assert pages.unlinked_reference_pages(lessons, course) == []
    # the site: right after its lesson, staged with the files beside it
    order = build_site.site_pages(lessons, course)
    assert order[order.index(four.docname) + 1] == four.reference_docname
    assert order[-1] == "reference/glossary"
    src = tmp_path / "site-src"
    build_site.stage(src, lessons, course)
    assert (src / four.reference).is_file() and (src / "reference" / "04_table.png").is_file()
    staged_start = json.loads((src / pages.START_PAGE.name).read_text())
    toctree = "".join(staged_start["cells"][-1]["source"])
    assert f"{four.docname}\n{four.reference_docname}\n" in toctree
    # the notebook runs (execute_notebooks.py, and nbval through tests/test_notebooks.py)
    assert course / four.reference in execute_notebooks.notebooks_in([str(course)])
    # the working copy
    changes = working_copy.update(tmp_path / "work", course, course_with_notes / "source")
    assert four.reference in changes.copied and "reference/04_table.png" in changes.copied
    # the time a lesson takes: a reference page is not a lesson
    assert lesson_time.is_reference_page(course / four.reference)
    assert not lesson_time.is_reference_page(course / four.notebook)


def test_a_reference_page_its_lesson_does_not_link_is_reported(course_with_notes):
    course = course_with_notes / "course"
    lesson = next(course.glob("04_*.ipynb"))
    data = json.loads(lesson.read_text())
    data["cells"].pop()
    lesson.write_text(json.dumps(data))
    lessons = pages.load_lessons(course)
    assert pages.unlinked_reference_pages(lessons, course) == [lessons[3].reference]


def test_a_reference_page_that_belongs_to_no_lesson_is_refused(course_with_notes):
    course = course_with_notes / "course"
    (course / "reference" / "07_extra_notes.ipynb").write_text(json.dumps(NOTES))
    with pytest.raises(pages.CatalogError, match="belong to no lesson"):
        pages.load_lessons(course)
