"""The behaviour check: a function that reaches a forbidden windowmem helper by any path fails
inside ``without_library``; one that does not runs unchanged; everything is put back after."""

from __future__ import annotations

import functools
import importlib
import sys
import textwrap
import types

import pytest

import windowmem
import windowmem.cost
import windowmem.tokens
from windowmem.behaviour_check import (
    Blocked,
    LibraryBlocked,
    plain,
    sealed,
    without_library,
)
from windowmem.tokens import count_text


def notebook(code: str) -> dict:
    """Run *code* as a notebook would, in a namespace of its own named ``__main__``."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(textwrap.dedent(code), "<cell>", "exec"), namespace)
    return namespace


#: One answer per path to windowmem.cost.input_bill: each must fail while blocked.
PATHS = {
    "plain import": """
        from windowmem.cost import input_bill
        def answer():
            return input_bill
    """,
    "module alias": """
        import windowmem.cost as cost
        def answer():
            return cost.input_bill
    """,
    "import at run time": """
        def answer():
            from windowmem.cost import input_bill
            return input_bill
    """,
    "package attribute": """
        import windowmem
        def answer():
            return windowmem.cost.input_bill
    """,
    "sys.modules": """
        import sys
        def answer():
            return sys.modules["windowmem.cost"].input_bill
    """,
    "importlib": """
        import importlib
        def answer():
            return importlib.import_module("windowmem." + "cost").input_bill
    """,
    "importlib.reload": """
        import importlib, sys
        def answer():
            return importlib.reload(sys.modules["windowmem.cost"]).input_bill
    """,
    "a fresh copy from the file": """
        import importlib.util
        import os
        import windowmem.behaviour_check as here
        def answer():
            # windowmem/cost.py, found from the check's own package folder
            path = os.path.join(os.path.dirname(os.path.dirname(here.__file__)), "cost.py")
            spec = importlib.util.spec_from_file_location("copy_of_cost", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.input_bill
    """,
    "__import__": """
        def answer():
            return __import__("windowmem.cost", fromlist=["input_bill"]).input_bill
    """,
    "a dict": """
        from windowmem.cost import input_bill
        HELPERS = {"bill": input_bill}
        def answer():
            return HELPERS["bill"]
    """,
    "a list in a tuple": """
        from windowmem.cost import input_bill
        HELPERS = ([input_bill],)
        def answer():
            return HELPERS[0][0]
    """,
    "a closure": """
        def make():
            from windowmem.cost import input_bill
            def inner():
                return input_bill
            return inner
        answer = make()
    """,
    "a default": """
        from windowmem.cost import input_bill
        def answer(bill=input_bill):
            return bill
    """,
    "a helper's closure": """
        def make():
            from windowmem.cost import input_bill
            return lambda: input_bill
        helper = make()
        def answer():
            return helper()
    """,
    "a class attribute": """
        from windowmem.cost import input_bill
        class Tools:
            bill = staticmethod(input_bill)
        def answer():
            return Tools.bill
    """,
    "an instance": """
        import types
        from windowmem.cost import input_bill
        tools = types.SimpleNamespace()
        class Box: pass
        box = Box(); box.bill = input_bill
        def answer():
            return box.bill
    """,
    "a partial": """
        import functools
        from windowmem.cost import input_bill
        bill = functools.partial(input_bill)
        def answer():
            return bill.func
    """,
    "builtins": """
        import builtins
        from windowmem.cost import input_bill
        builtins.stashed_bill = input_bill
        def answer():
            return stashed_bill
    """,
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_helper_reached_by_any_path_is_blocked(path):
    answer = notebook(PATHS[path])["answer"]
    # reload() refuses the stand-in before it could look for a fresh copy
    with pytest.raises(TypeError if path == "importlib.reload" else LibraryBlocked):
        with without_library(answer):
            answer()(None)
    assert answer() is windowmem.cost.input_bill or path == "a fresh copy from the file", (
        "everything is put back after the block"
    )
    import builtins

    vars(builtins).pop("stashed_bill", None)


def test_everything_is_put_back():
    modules, meta_path = dict(sys.modules), list(sys.meta_path)
    ns = notebook(textwrap.dedent(PATHS["a dict"]) + "\nPAIR = (1, HELPERS)\n")
    with pytest.raises(LibraryBlocked):
        with without_library(ns["answer"]):
            ns["answer"]()()
    assert sys.modules == modules and sys.meta_path == meta_path
    assert ns["HELPERS"]["bill"] is windowmem.cost.input_bill
    assert importlib.import_module("windowmem.cost") is windowmem.cost


def test_a_function_without_the_library_runs_unchanged():
    ns = notebook("""
        import json
        TABLE = {"a": [1, 2]}
        def helper(n):
            return [n * 2]
        def answer(n, extra=(3,)):
            return json.loads(json.dumps(TABLE["a"] + helper(n) + list(extra)))
    """)
    assert sealed(ns["answer"])(5) == [1, 2, 10, 3]


def test_allowed_helpers_and_values_stay_reachable():
    ns = notebook("""
        from windowmem import Conversation, user
        from windowmem.tokens import count_text
        import windowmem.tokens as tokens
        def answer(chat):
            return [count_text(m.content) for m in chat.messages] + [tokens.count_text("a b")]
    """)
    chat = windowmem.Conversation((windowmem.user("hello there"),))
    got = sealed(ns["answer"], allow=("windowmem.tokens.count_text",))(chat)
    assert got == [count_text("hello there"), count_text("a b")]


def test_an_allowed_object_does_not_open_its_module():
    ns = notebook("""
        import windowmem.tokens as tokens
        def answer():
            return [name for name in vars(tokens) if not name.startswith("_")
                    and not isinstance(getattr(tokens, name), type(tokens))
                    and callable(getattr(tokens, name))
                    and type(getattr(tokens, name)).__name__ == "Blocked"]
    """)
    blocked = sealed(ns["answer"], allow=("windowmem.tokens.count_text",))()
    assert "count_text" not in blocked and blocked, "the module's other helpers are blocked"


def test_values_of_a_forbidden_module_are_blocked_too():
    ns = notebook("""
        from windowmem import Conversation, user
        CHAT = Conversation((user("x"),))
        def answer():
            return len(CHAT.messages)
    """)
    assert sealed(ns["answer"])() == 1
    with pytest.raises(LibraryBlocked):
        sealed(ns["answer"], values=False)()


def test_only_plain_values_come_back():
    class Lazy(list):
        pass

    with pytest.raises(TypeError, match="found a Lazy"):
        sealed(lambda: Lazy([1]))()
    with pytest.raises(TypeError, match="found a bool"):
        plain([1, True], (list, int))
    assert plain({"a": (1, 2.5, None)}) == {"a": (1, 2.5, None)}


def test_a_blocked_object_refuses_every_use_but_looks_absent_to_hasattr():
    stub = Blocked("windowmem.cost.input_bill")
    for use in (
        lambda: stub(),
        lambda: stub.x,
        lambda: stub[0],
        lambda: list(stub),
        lambda: stub == 1,
    ):
        with pytest.raises(LibraryBlocked, match="windowmem.cost.input_bill is not allowed"):
            use()
    assert not hasattr(stub, "__spec__")


def test_a_wrapper_from_elsewhere_is_not_walked():
    # functools' own functions keep their globals: only the notebook's code is sealed.
    ns = notebook("""
        import functools
        reduce = functools.reduce
        def answer():
            return reduce(lambda a, b: a + b, [1, 2, 3])
    """)
    assert sealed(ns["answer"])() == 6
    assert isinstance(functools.reduce, types.BuiltinFunctionType)
