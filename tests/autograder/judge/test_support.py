"""The hidden tests' imports, run in a plain interpreter (as the assignment tests run them)."""

from __future__ import annotations

from autograder.judge.support import qwen_tokenizer, sealed, with_notebook_globals

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
