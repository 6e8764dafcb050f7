"""The mutation-score tool (scripts/mutation_score.py): its operators and its harness.

Each operator is checked on a one-line piece of code (the mutant source it must give), and
the harness on a tiny synthetic assignment: a mutant its hidden assert catches is killed,
one no test can tell apart survives, and one that breaks the visible check is marked so.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from tests.conftest import REPO_ROOT


@lru_cache(maxsize=1)
def tool() -> ModuleType:
    """``scripts/mutation_score.py``, imported as a module."""
    path = REPO_ROOT / "scripts" / "mutation_score.py"
    spec = importlib.util.spec_from_file_location("mutation_score", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_score", module)
    spec.loader.exec_module(module)
    return module


def made_by(operator: str, code: str) -> list[str]:
    """The mutant sources *operator* makes of *code*, in order."""
    return [m.code for m in tool().code_mutants(code) if m.operator == operator]


@pytest.mark.parametrize(
    ("operator", "code", "expected"),
    [
        ("compare", "y = a < b", ["y = a <= b"]),
        ("compare", "y = a >= b", ["y = a > b"]),
        ("compare", "y = a == b", ["y = a != b"]),
        ("compare", "y = a not in b", ["y = a in b"]),
        ("int", "y = x + 1", ["y = x + 2", "y = x + 0"]),
        ("int", "y = f'{x:3}' + str(2)", ["y = f'{x:3}' + str(3)", "y = f'{x:3}' + str(1)"]),
        ("int", "y = True", []),
        ("arith", "y = a + b", ["y = a - b"]),
        ("arith", "y -= b", ["y += b"]),
        ("arith", "y = 'a' + b", []),
        ("boolop", "y = a and b", ["y = a or b"]),
        ("slice", "y = xs[a:b]", ["y = xs[a + 1:b]", "y = xs[a:b - 1]"]),
        ("slice", "y = xs[:-2]", []),  # a written number is the int operator's
        ("min_max", "y = min(a, b)", ["y = max(a, b)"]),
        ("any_all", "y = any(xs)", ["y = all(xs)"]),
        ("negate_if", "if a:\n    y = 1", ["if not a:\n    y = 1"]),
        ("negate_if", "y = 1 if not a else 2", ["y = 1 if a else 2"]),
        ("delete", "y = 1\nz = 2", ["pass\nz = 2", "y = 1\npass"]),
        ("delete", "import os\ndef f():\n    pass", []),
        (
            "early_return",
            "if a:\n    return 0\nx = 1\nreturn x",
            ["return 0\nif a:\n    return 0\nx = 1\nreturn x"],
        ),
        ("early_return", "x = 1\nreturn x", []),  # its value needs the block's own name
    ],
)
def test_each_operator_makes_its_mutant(operator: str, code: str, expected: list[str]) -> None:
    assert made_by(operator, code) == expected


def test_a_mutant_says_where_and_what() -> None:
    mutants = tool().code_mutants("a = 1\nif n > a:\n    a = n\n")
    (mutant,) = [m for m in mutants if m.operator == "compare"]
    assert (mutant.line, mutant.before, mutant.after) == (2, "n > a", "n >= a")


def test_the_sample_is_even_and_fixed() -> None:
    items = list(range(100))
    sample = tool().even_sample(items, 10, "cell")
    assert sample == tool().even_sample(items, 10, "cell")
    assert len(sample) == 10 and sample == sorted(sample)
    assert all(9 <= b - a <= 11 for a, b in zip(sample, sample[1:]))


def test_mutants_replace_only_the_solution_region() -> None:
    source = "def f(n):\n    ### BEGIN SOLUTION\n    return n + 1\n    ### END SOLUTION\n"
    mutants = tool().cell_mutants(source, 3, "f_answer")
    assert [(m.column, m.after) for m in mutants] == [
        (5, "pass"),
        (12, "n - 1"),
        (16, "n + 2"),
        (16, "n + 0"),
    ]
    assert mutants[1].source == (
        "def f(n):\n    ### BEGIN SOLUTION\n    return n - 1\n    ### END SOLUTION\n"
    )
    assert {(m.cell, m.line) for m in mutants} == {(3, 3)}


HIDDEN = '''"""clip keeps the values below LIMIT, in order"""
assert clip([1]) == [1]
### BEGIN HIDDEN TESTS
_parts = [0, 0]
for _values, _want in (([1, 2, 3, 4], [1, 2]), ([0], [0])):
    _parts[1] += 1
    try:
        assert clip(_values) == _want
        _parts[0] += 1
    except AssertionError:
        pass
round(2 * _parts[0] / _parts[1], 2)
### END HIDDEN TESTS
'''


def synthetic_assignment(folder: Path) -> Path:
    """A one-question assignment: a locked setup cell, an answer cell, a test cell."""
    cell = nbformat.v4.new_code_cell

    def graded(source: str, **meta: object) -> nbformat.NotebookNode:
        made = cell(source)
        made.metadata["nbgrader"] = {"schema_version": 3, **meta}
        return made

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        graded("LIMIT = 3", grade_id="setup", locked=True, grade=False, solution=False),
        graded(
            "def clip(values):\n"
            "    ### BEGIN SOLUTION\n"
            "    kept = [v for v in values if v < LIMIT]\n"
            "    kept.sort()\n"
            "    return kept\n"
            "    ### END SOLUTION\n",
            grade_id="clip_answer",
            solution=True,
            grade=False,
            locked=False,
        ),
        graded(HIDDEN, grade_id="test_clip", grade=True, points=2, solution=False, locked=True),
    ]
    folder.mkdir()
    path = folder / "demo.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_the_harness_kills_what_a_hidden_assert_catches(tmp_path: Path) -> None:
    score = tool().score_assignment(synthetic_assignment(tmp_path / "demo"))
    assert score.harness_error == ""
    by_change = {(o.mutant.before, o.mutant.after): o for o in score.outcomes}
    caught = by_change[("v < LIMIT", "v <= LIMIT")]  # clip([1, 2, 3, 4]) gives [1, 2, 3]
    assert caught.verdict == "killed" and not caught.caught_by_visible
    assert caught.detail == "test_clip 1.0"  # one case of two: half the points
    unseen = by_change[("kept.sort()", "pass")]  # every case is sorted already
    assert unseen.verdict == "survived"
    no_answer = by_change[("return kept", "pass")]  # None: the visible check fails too
    assert no_answer.verdict == "killed" and no_answer.caught_by_visible
    assert (score.count("killed"), score.count("survived"), score.count("invalid")) == (3, 1, 0)
    assert score.score == 0.75


def test_a_recorded_equivalent_mutant_leaves_the_score_and_a_wrong_record_is_stale(
    tmp_path: Path,
) -> None:
    equivalent = tool().Equivalent
    records = (
        equivalent("demo", "clip_answer", 4, "delete", "kept.sort()", "pass", "sorted already"),
        equivalent("demo", "clip_answer", 3, "compare", "v < LIMIT", "v <= LIMIT", "wrong"),
        equivalent("demo", "clip_answer", 9, "delete", "gone()", "pass", "its cell changed"),
        equivalent("other", "clip_answer", 4, "delete", "kept.sort()", "pass", "not this one"),
    )
    score = tool().score_assignment(synthetic_assignment(tmp_path / "demo"), records=records)
    by_change = {(o.mutant.before, o.mutant.after): o for o in score.outcomes}
    unseen = by_change[("kept.sort()", "pass")]
    assert (unseen.verdict, unseen.detail) == ("equivalent", "sorted already")
    assert by_change[("v < LIMIT", "v <= LIMIT")].verdict == "killed"  # a record does not spare it
    assert (score.count("killed"), score.count("survived"), score.count("equivalent")) == (3, 0, 1)
    assert score.score == 1.0
    assert [r.why for r in score.stale] == ["wrong", "its cell changed"]
    assert "equivalent" in tool().table([score]) and "sorted already" in tool().survivors(score)


def test_a_value_cell_whose_values_do_not_change_is_proved_equivalent(tmp_path: Path) -> None:
    """9 // 4 is 2 as 8 // 4 is: the harness sees the same values and needs no record."""
    cell = nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook()
    answer = cell("### BEGIN SOLUTION\nhalf = 8 // 4\n### END SOLUTION\n")
    answer.metadata["nbgrader"] = {"schema_version": 3, "grade_id": "half", "solution": True}
    test = cell('"""half"""\n### BEGIN HIDDEN TESTS\nassert half == 2\n### END HIDDEN TESTS\n')
    test.metadata["nbgrader"] = {"schema_version": 3, "grade_id": "test_half", "grade": True}
    test.metadata["nbgrader"] |= {"points": 1, "solution": False, "locked": True}
    nb.cells = [answer, test]
    (tmp_path / "demo").mkdir()
    nbformat.write(nb, str(tmp_path / "demo" / "demo.ipynb"))
    score = tool().score_assignment(tmp_path / "demo" / "demo.ipynb", records=())
    verdicts = {o.mutant.after: o.verdict for o in score.outcomes}
    assert verdicts == {
        "pass": "killed",
        "9 // 4": "equivalent",
        "7 // 4": "killed",
        "8 // 5": "killed",
        "8 // 3": "equivalent",
    }
    assert {o.detail for o in score.outcomes if o.verdict == "equivalent"} == {tool().SAME_VALUES}


def test_every_record_of_an_equivalent_mutant_names_an_assignment_and_a_reason() -> None:
    records = tool().load_equivalents()
    folders = {p.name for p in (REPO_ROOT / "source").iterdir()}
    assert records and all(r.assignment in folders for r in records)
    assert all(len(r.why) > 40 for r in records)  # a reason, not a missing name of [reasons]
    assert len(set(records)) == len(records)
