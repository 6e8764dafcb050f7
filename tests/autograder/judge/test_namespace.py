"""A hidden test's namespace: its own names never reach the kernel, the student's do."""

from __future__ import annotations

from autograder.judge.hidden_tests import run_test
from autograder.judge.namespace import JudgeNamespace, StudentFunction


def test_only_question_names_are_looked_up():
    asked = []

    def lookup(name):
        asked.append(name)
        if name == "answer":
            return 42
        raise KeyError(name)

    source = (
        "_loaded = lambda: 1\n"  # the test's own helper, whatever the student named theirs
        "assert _loaded() == 1\n"
        "assert len([1]) == 1 and sorted([2, 1]) == [1, 2]\n"
        "try:\n    _parts\nexcept NameError:\n    pass\n"
        "assert answer == 42\n"
    )
    verdict = run_test("t", 1.0, source, {"CAUSES": ("scope",)}, lookup)
    assert verdict.passed, verdict.log
    assert asked == ["answer"]


def test_built_in_names_are_found_without_a_lookup():
    """A test's loops read `len` and `range` from the namespace itself, never through __missing__."""

    def lookup(name):
        raise AssertionError(f"{name} looked up")

    namespace = JudgeNamespace({"len": "the setup's"}, lookup)
    assert namespace["range"] is range and dict.__contains__(namespace, "ValueError")
    assert namespace["len"] == "the setup's"  # the setup's names come after, and win
    assert "__name__" not in namespace


def test_setup_names_are_the_judges_own():
    namespace = JudgeNamespace({"chat": "the judge's"}, lambda name: "the kernel's")
    assert namespace["chat"] == "the judge's"
    assert namespace["other"] == "the kernel's"


def test_a_student_function_carries_its_check_and_globals():
    calls = []
    function = StudentFunction("f", lambda *a: calls.append(a) or 7)
    assert function.allowing(("windowmem.tokens",)).with_globals({"SYSTEM": ""})(1, k=2) == 7
    assert calls == [("f", (1,), {"k": 2}, ("windowmem.tokens",), {"SYSTEM": ""})]
