"""What a set of answers earns on each part of an assignment, measured in this process.

The grading pipeline (``python -m autograder grade``) is the record, and slow: a class takes
minutes. To measure many students who answer with constants or one label, this module runs
the instructor's notebook here instead: its code cells in order in one namespace, the given
answers in place of the model answers, and each test cell's visible checks then its hidden
tests, scored as nbgrader scores them (an error gives 0, a cell's last value is its partial
credit, clamped to [0, its points]). The hidden tests run in the assignment's folder, as the
judge runs them, so they find its ``hidden_support.py`` and data files. A check of a test
file compares a few of these figures with the pipeline's.

    shares = part_shares("lesson02_with_and_without_memory", {"cases_answer": CONSTANT})
    shares["Part C"]    # the share of Part C's autograded points the answers earn
    part_shares("lesson02_with_and_without_memory", {"cases_answer": CONSTANT}, parts={"Part C"})
                        # the same share, without running the other parts' hidden tests
"""

from __future__ import annotations

import ast
import contextlib
import io
from collections.abc import Collection, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.judge.hidden_tests import in_folder
from autograder.judge.support import hidden_test_names, optional_hidden_support
from autograder.term.nbgrader_course import nbgrader_meta
from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    PART_HEADING,
    REPO_ROOT,
    cell_text,
    read_notebook,
)


def source_notebook(assignment: str) -> Path:
    """The instructor's notebook of *assignment* (one per assignment)."""
    (path,) = sorted((REPO_ROOT / "source" / assignment).glob("*.ipynb"))
    return path


def _run(code: str, namespace: dict[str, Any], name: str) -> Any:
    """Run *code* in *namespace*; the value of its last line if that is an expression."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), namespace)  # noqa: S102 - the course's own notebook
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), name, "eval"), namespace)  # noqa: S307


def _score(
    code: str, namespace: dict[str, Any], name: str, points: float, support: ModuleType | None
) -> float:
    """A test cell's score: 0 on an error, its last value clamped to [0, points] if a number,
    else full points. Its hidden section starts with the names the judge gives every test
    (*support*'s helpers and a fresh case counter)."""
    visible, _, rest = code.partition(HIDDEN_MARKERS[0])
    hidden = rest.partition(HIDDEN_MARKERS[1])[0]
    try:
        _run(visible, namespace, name)
        namespace.update(hidden_test_names(support))
        value = _run(hidden, namespace, name) if hidden else None
    except Exception:  # noqa: BLE001 - any error scores the cell 0, as in nbgrader
        return 0.0
    if type(value) in (int, float):
        return min(max(float(value), 0.0), points)
    return points


def cell_scores(
    assignment: str, answers: Mapping[str, str], only: Collection[str] | None = None
) -> dict[str, float]:
    """Each autograded test cell's score when *answers* (answer cell grade_id -> source)
    replace the model answers; the cells not named keep the model answer.

    With *only* (grade ids), the other test cells run their visible checks but not their
    hidden tests, and are not scored. That changes no score of a cell in *only*: the judge
    runs hidden tests outside the student's namespace, so one test cell's hidden part never
    reaches another's.
    """
    notebook = read_notebook(source_notebook(assignment))
    unknown = set(answers) - {nbgrader_meta(c).get("grade_id") for c in notebook["cells"]}
    if unknown:
        raise KeyError(f"{assignment} has no answer cells {sorted(unknown)}")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    scores: dict[str, float] = {}
    support = optional_hidden_support(source_notebook(assignment).parent)
    with in_folder(source_notebook(assignment).parent), contextlib.redirect_stdout(io.StringIO()):
        for cell in notebook["cells"]:
            if cell["cell_type"] != "code":
                continue
            meta = nbgrader_meta(cell)
            grade_id, code = meta.get("grade_id"), cell_text(cell)
            if meta.get("solution"):
                code = answers.get(grade_id, code)
            if meta.get("grade") and not meta.get("solution"):
                if only is None or grade_id in only:
                    points = float(meta["points"])
                    scores[grade_id] = _score(code, namespace, grade_id, points, support)
                    continue
                code = code.partition(HIDDEN_MARKERS[0])[0]
            with contextlib.suppress(Exception):  # a wrong answer may break a demo cell
                _run(code, namespace, grade_id or "cell")
    return scores


def cell_parts(assignment: str) -> dict[str, tuple[str, float]]:
    """Each autograded test cell's part heading and points."""
    out, part = {}, ""
    for cell in read_notebook(source_notebook(assignment))["cells"]:
        heading = PART_HEADING.search(cell_text(cell)) if cell["cell_type"] == "markdown" else None
        part = heading.group(1) if heading else part
        meta = nbgrader_meta(cell)
        if meta.get("grade") and not meta.get("solution"):
            out[meta["grade_id"]] = (part, float(meta["points"]))
    return out


def part_shares(
    assignment: str, answers: Mapping[str, str], parts: Collection[str] | None = None
) -> dict[str, float]:
    """Per part, the share of its autograded points *answers* earn (rounded to hundredths).

    With *parts* (headings such as ``"Part C"``), only those parts are scored: the others'
    hidden tests, most of the run's time, are not run.
    """
    cells = cell_parts(assignment)
    if parts is not None:
        unknown = set(parts) - {part for part, _ in cells.values()}
        if unknown:
            raise KeyError(f"{assignment} has no parts {sorted(unknown)}")
        cells = {grade_id: cell for grade_id, cell in cells.items() if cell[0] in parts}
    scores = cell_scores(assignment, answers, only=None if parts is None else set(cells))
    earned: dict[str, float] = {}
    total: dict[str, float] = {}
    for grade_id, (part, points) in cells.items():
        earned[part] = earned.get(part, 0.0) + scores[grade_id]
        total[part] = total.get(part, 0.0) + points
    return {part: round(earned[part] / total[part], 2) for part in total}
