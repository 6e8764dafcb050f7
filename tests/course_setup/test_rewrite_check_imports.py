"""scripts/rewrite_check_imports.py: the lessons import their checks from windowmem_course, and only that changes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))

from rewrite_check_imports import main, rewrite_notebook  # noqa: E402


def _notebook(setup: str) -> str:
    cells = [
        {
            "cell_type": "markdown",
            "id": "a",
            "metadata": {},
            "source": ["from checks.x import y\n"],
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "b",
            "metadata": {"tags": ["setup"]},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["from checks\n"]}],
            "source": setup.splitlines(keepends=True),
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


OLD = (
    "import json\nfrom checks.lesson02 import check\nfrom checks.lesson02_see import (\n    a,\n)\n"
)
NEW = (
    "import json\nfrom windowmem_course.checks.lesson02 import check\n"
    "from windowmem_course.checks.lesson02_see import (\n    a,\n)\n"
)


def test_only_the_code_cells_import_lines_change_and_a_second_run_changes_nothing():
    rewritten = rewrite_notebook(_notebook(OLD))
    assert rewritten == _notebook(NEW)
    assert rewrite_notebook(rewritten) == rewritten


def test_the_course_and_its_check_modules_are_rewritten_and_check_then_passes(tmp_path, capsys):
    course = tmp_path / "course"
    (course / "checks").mkdir(parents=True)
    (course / "03_lesson.ipynb").write_text(_notebook(OLD))
    (course / "checks" / "lesson03_page.py").write_text("from checks.lesson03 import CLAIMS\n")
    assert main(["--check", "--course", str(course)]) == 1
    assert main(["--course", str(course)]) == 0
    assert (course / "checks" / "lesson03_page.py").read_text() == (
        "from windowmem_course.checks.lesson03 import CLAIMS\n"
    )
    assert (course / "03_lesson.ipynb").read_text() == _notebook(NEW)
    capsys.readouterr()
    assert main(["--check", "--course", str(course)]) == 0
    assert "already" in capsys.readouterr().out


def test_a_notebook_in_another_layout_is_refused_not_reformatted(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    squeezed = json.dumps(json.loads(_notebook(OLD)))
    (course / "03_lesson.ipynb").write_text(squeezed)
    with pytest.raises(SystemExit, match="not laid out as nbformat writes it"):
        main(["--course", str(course)])
    assert Path(course / "03_lesson.ipynb").read_text() == squeezed
