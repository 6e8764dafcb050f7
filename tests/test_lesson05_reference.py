"""Lesson 5's reference page: linked from the lesson, executed without an error, and carrying
the facts the lesson's main path left to it (issue 34), each with its version."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "course" / "05_designing_multi_turn_conversations.ipynb"
NOTES = REPO / "course" / "reference" / "05_designing_multi_turn_conversations_notes.ipynb"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(path: Path) -> str:
    return " ".join(
        " ".join("".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown").split()
    )


def test_the_lesson_links_its_reference_page():
    link = "reference/05_designing_multi_turn_conversations_notes.ipynb"
    assert NOTES.is_file()
    assert f"]({link})" in "".join("".join(c["source"]) for c in _cells(LESSON))


def test_the_reference_page_was_executed_and_raised_nothing():
    code = [c for c in _cells(NOTES) if c["cell_type"] == "code"]
    assert code and all(c["execution_count"] for c in code), "run scripts/execute_notebooks.py"
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    streams = [o for c in code for o in c["outputs"] if o["output_type"] == "stream"]
    assert not [o for o in streams if o.get("name") == "stderr"]


def test_the_reference_page_carries_issue_34_s_lesson_5_corrections():
    notes = _text(NOTES)
    # Gemini's shared message: built from 2.7.1; two calls store 5 only with the 2.29.2 code.
    assert "| 2.6.3 | no | 6 |" in notes and "| 2.7.1, 2.29.0 | yes | 6 |" in notes
    assert "| 2.28.6, 2.29.2, 2.41.1 | yes | 5 |" in notes and "2.8.0" not in notes
    # Semantic Kernel's reducer runs only on reduce() or with auto_reduce.
    assert "cuts only when you `await reducer.reduce()`" in notes and "`auto_reduce=True`" in notes
    # SummarizationMiddleware writes a user message.
    assert "writes its summary as a **user** message" in notes
    # Lesson 5's 2b premise.
    assert "Context Window Length was set before the chat started" in notes
    # Moved from the lesson with their facts (issue 22).
    assert "**Concurrency.**" in notes and "**Transcript loss.**" in notes
    assert "Before the AI Agent's typeVersion 1.9 the agent always sends one" in notes
    assert "Storing tool calls as messages came in n8n 2.3.0" in notes


def test_every_product_row_of_the_settings_table_names_its_version():
    notes = "\n".join("".join(c["source"]) for c in _cells(NOTES) if c["cell_type"] == "markdown")
    table = notes.split("| product (version read) |", 1)[1].split("\n\n", 1)[0]
    rows = [r for r in table.splitlines()[2:] if r.startswith("|")]
    assert len(rows) >= 9
    undated = [
        r
        for r in rows
        if not any(ch.isdigit() for ch in r.split("|")[1]) and "documented only" not in r
    ]
    assert not undated, undated
