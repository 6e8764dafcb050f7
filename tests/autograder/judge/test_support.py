"""What every hidden test is given: the helpers run in a plain interpreter (as the assignment
tests run them), and the judge's loading of an assignment's hidden_support.py into each test."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.judge.hidden_tests import is_setup, judge_notebook, split_hidden
from autograder.judge.support import (
    HIDDEN_SUPPORT,
    hidden_support,
    hidden_test_names,
    optional_hidden_support,
    qwen_tokenizer,
    sealed,
    with_notebook_globals,
)
from tests.conftest import REPO_ROOT

SYSTEM = "the notebook's"


def greets():
    return SYSTEM + "!"


def test_notebook_globals_reach_a_sealed_function_and_are_put_back():
    wrapped = with_notebook_globals(sealed(greets, ()), SYSTEM="a case's")
    assert wrapped() == "a case's!"
    assert greets() == "the notebook's!"


def test_the_tokenizer_is_built_once_and_counts_as_qwen_does():
    assert qwen_tokenizer() is qwen_tokenizer()
    assert qwen_tokenizer().encode("The window is the working memory.") == [
        785,
        3241,
        374,
        279,
        3238,
        4938,
        13,
    ]


# ---------------------------------------------------------------- the names every test is given

SUPPORT = """
def _double(value):
    return 2 * value


def cause(case):
    return "scope"
"""


class _Log:
    def __init__(self) -> None:
        self.library: list[str] = []


class ValuesChannel:
    """The kernel's end of the channel for a notebook of plain values: what it was asked."""

    def __init__(self, values: dict) -> None:
        self.values, self.asked, self.log = values, [], _Log()

    def describe(self, name, at=None):
        self.asked.append(name)
        return ("value", self.values[name]) if name in self.values else ("missing", None)

    def call(self, *request):
        raise AssertionError(f"no function to call: {request}")


def graded_cell(grade_id: str, points: float, hidden: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(
        f'"""{grade_id}"""\nassert answer > 0\n### BEGIN HIDDEN TESTS\n{hidden}### END HIDDEN TESTS\n'
    )
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": grade_id,
        "locked": True,
        "points": points,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    return cell


def judged(folder: Path, *cells: nbformat.NotebookNode, answer: int = 4):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    channel = ValuesChannel({"answer": answer})
    verdicts, problems = judge_notebook(nb, split_hidden(nb), channel, folder)
    return {v.grade_id: v for v in verdicts.values()}, problems, channel


def test_the_judge_gives_every_test_its_folders_support_and_a_counter_of_its_own(tmp_path):
    (tmp_path / HIDDEN_SUPPORT).write_text(SUPPORT)
    counted = graded_cell(
        "counted",
        2,
        "_case(lambda: None)\n"
        "with _counted():\n    assert _double(answer) == 9, 'one case of two fails'\n"
        "round(2 * _parts[0] / _parts[1], 2) if _parts[1] else 0\n",
    )
    fresh = graded_cell(
        "fresh",
        1,
        "assert _parts == [0, 0], 'a counter of its own'\n"
        "assert _double(answer) == 8 and _support.cause(None) == 'scope'\n"
        "assert _type(answer) is _int and _sealed and _raises_value_error(int, 'x')\n",
    )
    verdicts, problems, channel = judged(tmp_path, counted, fresh)
    assert problems == ""
    assert (verdicts["counted"].points, verdicts["counted"].cases_failed) == (1.0, 1)
    assert verdicts["counted"].cases_run == 2
    assert verdicts["fresh"].passed, verdicts["fresh"].log
    # the support's names are the test's own: none was looked up in the student's kernel
    assert set(channel.asked) == {"answer"}


def test_a_bare_name_stays_the_students_though_the_support_defines_it(tmp_path):
    (tmp_path / HIDDEN_SUPPORT).write_text(SUPPORT)
    cell = graded_cell("bare", 1, "assert cause(1) == 'scope'\n")
    verdicts, _, channel = judged(tmp_path, cell)
    assert not verdicts["bare"].passed and verdicts["bare"].missing == ("cause",)
    assert "cause" in channel.asked


def test_without_a_support_module_the_common_names_remain(tmp_path):
    cell = graded_cell("plain", 1, "_case(lambda: None)\nassert _parts == [1, 1]\n")
    verdicts, problems, _ = judged(tmp_path, cell)
    assert verdicts["plain"].passed and problems == ""
    assert optional_hidden_support(tmp_path) is None and optional_hidden_support(None) is None


def test_a_support_module_that_fails_is_reported_and_fails_only_the_tests_using_it(tmp_path):
    (tmp_path / HIDDEN_SUPPORT).write_text("raise RuntimeError('a typo in the support')\n")
    uses = graded_cell("uses", 1, "assert _double(2) == 4\n")
    plain = graded_cell("plain", 1, "assert _list is list\n")
    verdicts, problems, _ = judged(tmp_path, uses, plain)
    assert "a typo in the support" in problems
    assert not verdicts["uses"].passed and verdicts["plain"].passed


def test_a_support_module_may_not_define_the_counter(tmp_path):
    (tmp_path / HIDDEN_SUPPORT).write_text("_parts = [5, 5]\n")
    with pytest.raises(ValueError, match="_parts, which the judge makes afresh"):
        hidden_test_names(hidden_support(tmp_path))


@pytest.mark.parametrize(
    "assignment", sorted(p.parent.name for p in (REPO_ROOT / "source").glob("*/" + HIDDEN_SUPPORT))
)
def test_every_given_name_is_the_tests_own_and_no_setup_name(assignment):
    """Each name a test is given starts with ``_`` (never the student's), and no locked setup
    cell of the assignment defines one (a test would not see the setup's)."""
    names = hidden_test_names(hidden_support(REPO_ROOT / "source" / assignment))
    assert all(name.startswith("_") for name in names)
    assert names["_parts"] is not hidden_test_names()["_parts"]
    (path,) = (REPO_ROOT / "source" / assignment).glob("*.ipynb")
    setup = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if is_setup(c))
    assert not [name for name in names if f"{name} =" in setup or f"def {name}(" in setup]
