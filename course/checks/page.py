"""Run a lesson's maintainer checks: every figure and claim on its page, recomputed.

The checks live in ``checks/lessonNN_page.py``, out of the reading path like the check
books, because they state the self-checks' answers. A lesson's last cell (removed from the
website, folded in JupyterLab) is one call, ``verify_page("lesson03", globals())``: the
page module runs with the lesson's names in scope, and prints ``maintainers' check: every
figure in this lesson was recomputed and matches`` only if every assert holds. nbval and
``tests/test_lesson_texts.py`` run it.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The importable n8n workflows the lessons link to (``make n8n-workflows`` writes them).
WORKFLOWS = HERE.parent / "workflows"


def workflow_node(workflow: str, node: str) -> dict[str, Any]:
    """The node named *node* in the course's importable workflow ``workflows/<workflow>.json``.

    >>> workflow_node("lesson3_window", "Simple Memory")["parameters"]["contextWindowLength"]
    2
    >>> workflow_node("lesson3_window", "Postgres Chat Memory")
    Traceback (most recent call last):
    ...
    KeyError: "no node 'Postgres Chat Memory' in workflows/lesson3_window.json"
    """
    nodes = json.loads((WORKFLOWS / f"{workflow}.json").read_text(encoding="utf-8"))["nodes"]
    found = next((n for n in nodes if n["name"] == node), None)
    if found is None:
        raise KeyError(f"no node {node!r} in workflows/{workflow}.json")
    return found


def verify_page(lesson: str, page: dict) -> None:
    """Run ``checks/<lesson>_page.py`` over a copy of the lesson's namespace *page*.

    >>> verify_page("lesson99", {})
    Traceback (most recent call last):
    ...
    FileNotFoundError: no maintainer checks for lesson99: write checks/lesson99_page.py
    """
    path = HERE / f"{lesson}_page.py"
    if not path.is_file():
        raise FileNotFoundError(f"no maintainer checks for {lesson}: write checks/{path.name}")
    runpy.run_path(str(path), init_globals=page, run_name=f"checks.{lesson}_page")
