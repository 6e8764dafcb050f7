"""Every course notebook is committed clean, and its stored outputs are what it produces today.

The second check is nbval's: each notebook re-runs in a fresh kernel and every stored
output is compared with the new one (PNG images and widget views excepted; the sanitize
file masks what differs between runs by nature). Run ``make build`` (or
``python scripts/execute_notebooks.py course``) after changing a lesson or the library.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT as REPO

#: The start page, the lessons, and the glossary and reference pages in course/reference/.
NOTEBOOKS = sorted(
    p for p in (REPO / "course").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
SANITIZE = REPO / "tests" / "nbval_sanitize.cfg"
#: A whole lesson runs in well under a minute here; this only stops a hung kernel.
NOTEBOOK_TIMEOUT_S = 900
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def notebook_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _name(notebook: Path) -> str:
    return str(notebook.relative_to(REPO / "course"))


def test_the_glossary_and_the_reference_pages_are_among_the_notebooks_run():
    assert REPO / "course" / "reference" / "glossary.ipynb" in NOTEBOOKS
    assert [p for p in NOTEBOOKS if p.parent.name == "reference"] == sorted(
        (REPO / "course" / "reference").glob("*.ipynb")
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_name)
def test_notebook_is_committed_clean(notebook: Path) -> None:
    """No saved widget state, no errors, and every code cell run once, top to bottom."""
    nb = notebook_json(notebook)
    assert "widgets" not in nb["metadata"], (
        f"{notebook.name}: strip metadata.widgets (scripts/execute_notebooks.py does)"
    )
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", (
        f"{notebook.name}: set the python3 kernelspec"
    )
    code_cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in code_cells]
    assert counts == list(range(1, len(code_cells) + 1)), (
        f"{notebook.name}: execution counts {counts} show it was not run top to bottom in one "
        "fresh kernel; run scripts/execute_notebooks.py"
    )
    stamped = [c["source"][:40] for c in code_cells if "execution" in c.get("metadata", {})]
    assert not stamped, (
        f"{notebook.name}: execution timestamps churn the diff; run scripts/execute_notebooks.py"
    )
    widget_ids = [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in code_cells
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {}) and o["data"][WIDGET_VIEW].get("model_id")
    ]
    assert not widget_ids, (
        f"{notebook.name}: stale widget model ids {widget_ids[:3]}; run scripts/execute_notebooks.py"
    )
    errors = [
        c["source"][:80]
        for c in code_cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{notebook.name}: cells stored with errors: {errors}"


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_name)
def test_stored_outputs_match_a_fresh_run(notebook: Path) -> None:
    """nbval re-runs the notebook and finds every stored output unchanged."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        "--nbval-current-env",
        "--nbval-sanitize-with",
        str(SANITIZE),
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-o",
        "addopts=",
        str(notebook),
    ]
    result = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=NOTEBOOK_TIMEOUT_S
    )
    if not any(c["cell_type"] == "code" for c in notebook_json(notebook)["cells"]):
        # A page of text only (the glossary): nbval reads it and finds no cell to run,
        # which pytest reports as "no tests ran" (exit 5); anything else is a failure.
        assert result.returncode == 5 and "no tests ran" in result.stdout, result.stdout
        return
    assert result.returncode == 0, (
        f"nbval found {notebook.name}'s stored outputs differ from a fresh run (or a cell failed); "
        f"re-run scripts/execute_notebooks.py if the change is intended.\n{result.stdout[-6000:]}{result.stderr[-2000:]}"
    )
