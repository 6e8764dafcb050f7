"""Run a lesson's maintainer checks: every figure and claim on its page, recomputed.

The checks live in ``checks/lessonNN_page.py``, out of the reading path like the check
books, because they state the self-checks' answers. A lesson's last cell (removed from the
website, folded in JupyterLab) is one call, ``verify_page("lesson03", globals())``: the
page module runs with the lesson's names in scope, and prints ``every figure in the text
checked`` only if every assert holds. nbval and ``tests/test_lesson_texts.py`` run it.
"""

from __future__ import annotations

import runpy
from pathlib import Path

HERE = Path(__file__).resolve().parent


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
