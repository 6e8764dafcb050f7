"""Run a student's function with windowmem's computing helpers out of reach (the behaviour check).

An assignment question that asks a student to *rebuild* what windowmem computes is graded
by running the student's function inside :class:`without_library`: for the length of the
call every windowmem object the question does not allow is replaced, wherever the
function could reach it, by a :class:`Blocked` stand-in that raises :class:`LibraryBlocked`
when it is used. What the function may reach, and where it is replaced:

* the names it reads: its globals (the notebook's namespace) and ``builtins``;
* what those names hold: lists, tuples, dicts, sets, ``functools.partial``, bound methods,
  the notebook's own classes and their instances, and modules the student wrote;
* its closure cells and its default arguments, and those of every function it can reach;
* ``sys.modules``: a forbidden module becomes ``None`` (an ``import`` of it fails), an
  allowed module or package a filtered copy (``import windowmem; windowmem.cost`` fails);
* the import machinery: a finder first on ``sys.meta_path`` refuses every windowmem module
  not already loaded, and ``io.open_code`` refuses windowmem's files, so neither
  ``importlib.import_module``, ``importlib.reload`` nor ``spec_from_file_location`` loads
  a fresh copy.

Everything is put back when the block ends. A function that does not need the library
runs unchanged; one that does fails with a message naming the helper. What it returns is
then kept only if it is made of the plain types the question allows (:func:`plain`), so a
lazy object cannot call the library after the block.

It stops the paths a student takes to reach a helper, not a hunt through the
interpreter's internals (``gc.get_objects()``, an allowed helper's ``__globals__``,
frames) or a copy of the library's source read as text and executed: those are copying,
which a reader of the answer sees. Standard library only; it imports no windowmem module.

>>> import windowmem.cost
>>> def bill():
...     return windowmem.cost.input_bill.__name__
>>> with without_library(bill):
...     bill()
Traceback (most recent call last):
...
windowmem.behaviour_check.LibraryBlocked: windowmem.cost is not allowed here: ...
>>> bill()
'input_bill'
"""

from __future__ import annotations

import builtins
import functools
import io
import os
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

LIBRARY = "windowmem"
#: This module: always reachable (the tests hold it), never a helper.
SELF = __name__
#: The plain values a rebuilt answer is made of, unless a question allows fewer.
PLAIN_TYPES: tuple[type, ...] = (type(None), bool, int, float, str, list, tuple, dict)
_LIBRARY_DIR = os.path.dirname(os.path.abspath(__file__))
_STDLIB_DIRS = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


class LibraryBlocked(Exception):
    """A rebuild question's function used a windowmem helper the question does not allow."""


class Blocked:
    """What a forbidden windowmem object is while the block runs: any use raises."""

    __slots__ = ("_blocked_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_blocked_name", name)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        name = object.__getattribute__(self, "_blocked_name")
        raise LibraryBlocked(
            f"{name} is not allowed here: this question asks you to rebuild what it computes"
        )

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # hasattr(module, "__spec__") and the like: simply absent
            raise AttributeError(attr)
        return self._refuse()

    __call__ = __getitem__ = __iter__ = __len__ = __bool__ = _refuse
    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = __add__ = __contains__ = _refuse
    __hash__ = object.__hash__

    def __setattr__(self, key: str, value: Any) -> None:
        self._refuse()

    def __repr__(self) -> str:
        return f"<blocked {object.__getattribute__(self, '_blocked_name')}>"


def _in_library(module: str) -> bool:
    return module == LIBRARY or module.startswith(LIBRARY + ".")


def _under(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


class without_library:  # noqa: N801 - used as a context manager, like contextlib's
    """While the block runs, windowmem is reachable only through what *allow* names.

    *allow* holds module names (``"windowmem.tokens"``: everything defined there) and
    object names (``"windowmem.tokens.count_text"``: that function or class and its
    instances); ``windowmem.messages`` and ``windowmem.conversation`` are the values a
    question hands over and are allowed unless *values* is false. *reach* are the
    functions whose state is sealed (their globals, closures, defaults); the notebook's
    ``__main__`` namespace is always sealed.
    """

    def __init__(
        self, *reach: Callable[..., Any], allow: Iterable[str] = (), values: bool = True
    ) -> None:
        allowed = set(allow) | (
            {f"{LIBRARY}.messages", f"{LIBRARY}.conversation"} if values else set()
        )
        self.allow = frozenset(allowed | {SELF})
        self.reach = reach
        self._undo: list[Callable[[], object]] = []
        self._memo: dict[int, Any] = {}
        self._keep: list[Any] = []  # objects whose ids are in _memo stay alive while sealed

    # ---------------------------------------------------------------- what is allowed

    def _origin(self, value: Any) -> tuple[str, str] | None:
        """(module, qualified name) of a windowmem object, None for anything else."""
        if isinstance(value, types.ModuleType):
            name = getattr(value, "__name__", "")
            return (name, name) if isinstance(name, str) and _in_library(name) else None
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
            owner = value
        else:
            owner = type(value)
        module = getattr(owner, "__module__", None)
        if not isinstance(module, str) or not _in_library(module):
            return None
        return module, f"{module}.{getattr(owner, '__qualname__', '?')}"

    def allowed(self, module: str, name: str) -> bool:
        """Whether an object of *module* called *name* stays reachable."""
        return _under(module, self.allow) or name in self.allow

    # ---------------------------------------------------------------- entering and leaving

    def __enter__(self) -> without_library:
        try:
            self._seal_modules()
            self._seal_imports()
            self._seal(vars(builtins))
            main = sys.modules.get("__main__")
            if main is not None:
                self._seal(vars(main))
            for function in self.reach:
                if isinstance(function, types.FunctionType):
                    self._seal_function(function)
                else:
                    self._seal(function)
        except BaseException:
            self._restore()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()

    def _restore(self) -> None:
        while self._undo:
            self._undo.pop()()
        self._memo.clear()
        self._keep.clear()

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` inside the block, its value kept only if plain."""
        return plain(function(*args, **kwargs), where=getattr(function, "__name__", "it"))

    # ---------------------------------------------------------------- sys.modules and imports

    def _set_item(self, mapping: dict[Any, Any], key: Any, value: Any) -> None:
        old = dict.get(mapping, key, _MISSING)
        dict.__setitem__(mapping, key, value)
        if old is _MISSING:
            self._undo.append(lambda: dict.pop(mapping, key, None))
        else:
            self._undo.append(lambda: dict.__setitem__(mapping, key, old))

    def _seal_modules(self) -> None:
        for name, module in list(sys.modules.items()):
            if not _in_library(name) or name == SELF or module is None:
                continue
            self._set_item(sys.modules, name, self._replacement(module))

    def _seal_imports(self) -> None:
        finder = _RefuseLibrary(self)
        sys.meta_path.insert(0, finder)
        self._undo.append(lambda: sys.meta_path.remove(finder))
        owners: list[Any] = [io, sys.modules.get("_io")]  # io re-exports _io's open_code
        for owner in owners:
            if owner is None:
                continue
            original = owner.open_code

            def open_code(path: Any, _original: Any = original) -> Any:
                where = os.path.abspath(os.fspath(path))
                if where.startswith(_LIBRARY_DIR + os.sep):
                    raise LibraryBlocked(f"{where} is windowmem's own code: it is not allowed here")
                return _original(path)

            owner.open_code = open_code
            self._undo.append(functools.partial(setattr, owner, "open_code", original))

    # ---------------------------------------------------------------- the walk

    def _replacement(self, value: Any) -> Any:
        """What *value* is while sealed: itself, a :class:`Blocked`, or a filtered copy."""
        origin = self._origin(value)
        if origin is None:
            return value
        module, name = origin
        if isinstance(value, types.ModuleType):
            if name == SELF:
                return value
            opens = any(a.startswith(name + ".") for a in self.allow)  # it holds something allowed
            if not self.allowed(module, name) and not opens and not hasattr(value, "__path__"):
                return Blocked(name)
            return self._filtered_module(value)
        return value if self.allowed(module, name) else Blocked(name)

    def _filtered_module(self, module: types.ModuleType) -> Any:
        key = id(module)
        if key in self._memo:
            return self._memo[key]
        copy = types.ModuleType(module.__name__, getattr(module, "__doc__", None))
        self._memo[key] = copy
        self._keep.append(module)
        for attr, value in list(vars(module).items()):
            if attr in ("__spec__", "__loader__", "__path__", "__file__"):
                setattr(copy, attr, value)
                continue
            setattr(copy, attr, self._replacement(value))
        return copy

    def _seal(self, value: Any) -> Any:
        """Seal *value* in place where it can be changed; what stands for it while sealed."""
        if self._origin(value) is not None:
            return self._replacement(value)
        key = id(value)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = value
        self._keep.append(value)
        kind = type(value)
        if isinstance(value, dict):
            for k in list(dict.keys(value)):
                self._swap_item(value, k)
        elif isinstance(value, list):
            for i in range(list.__len__(value)):
                item = list.__getitem__(value, i)
                new = self._seal(item)
                if new is not item:
                    list.__setitem__(value, i, new)
                    self._undo.append(functools.partial(list.__setitem__, value, i, item))
        elif kind in (tuple, frozenset, set):
            items = list(value)
            sealed = [self._seal(item) for item in items]
            if any(a is not b for a, b in zip(items, sealed)):
                if kind is set:
                    set.clear(value)
                    set.update(value, sealed)
                    self._undo.append(functools.partial(_refill, value, items))
                else:
                    self._memo[key] = kind(sealed)
        elif isinstance(value, types.FunctionType):
            if self._student_code(value):
                self._seal_function(value)
        elif isinstance(value, types.MethodType):
            func, owner = self._seal(value.__func__), self._seal(value.__self__)
            if func is not value.__func__ or owner is not value.__self__:
                self._memo[key] = Blocked(getattr(value, "__qualname__", "a method"))
        elif isinstance(value, functools.partial):
            parts = (value.func, value.args, value.keywords)
            sealed_parts = (
                self._seal(value.func),
                self._seal(value.args),
                self._seal(value.keywords),
            )
            if any(a is not b for a, b in zip(parts, sealed_parts)):
                self._memo[key] = functools.partial(
                    sealed_parts[0], *sealed_parts[1], **sealed_parts[2]
                )
        elif isinstance(value, (staticmethod, classmethod)):
            func = self._seal(value.__func__)
            if func is not value.__func__:
                self._memo[key] = kind(func)
        elif isinstance(value, property):
            self._seal(value.fget)
        elif isinstance(value, types.ModuleType):
            if self._student_module(value):
                self._seal(vars(value))
        elif isinstance(value, type):
            if value.__module__ == "__main__":
                for attr in list(vars(value)):
                    old = vars(value)[attr]
                    new = self._seal(old)
                    if new is not old:
                        setattr(value, attr, new)
                        self._undo.append(functools.partial(setattr, value, attr, old))
        elif getattr(kind, "__module__", "") == "__main__":
            namespace = getattr(value, "__dict__", None)
            if isinstance(namespace, dict):
                self._seal(namespace)
        return self._memo[key]

    def _swap_item(self, mapping: dict[Any, Any], key: Any) -> None:
        old = dict.__getitem__(mapping, key)
        new = self._seal(old)
        if new is not old:
            self._set_item(mapping, key, new)

    def _seal_function(self, function: types.FunctionType) -> None:
        self._seal(function.__globals__)
        self._seal(function.__dict__)
        for cell in function.__closure__ or ():
            try:
                old = cell.cell_contents
            except ValueError:  # a cell not filled yet
                continue
            new = self._seal(old)
            if new is not old:
                cell.cell_contents = new
                self._undo.append(functools.partial(setattr, cell, "cell_contents", old))
        defaults = function.__defaults__
        if defaults:
            sealed = self._seal(defaults)
            if sealed is not defaults:
                function.__defaults__ = sealed
                self._undo.append(lambda: setattr(function, "__defaults__", defaults))
        if function.__kwdefaults__:
            self._seal(function.__kwdefaults__)

    def _student_code(self, function: types.FunctionType) -> bool:
        """A function the notebook (or a module the student wrote) defined."""
        module = function.__module__
        if module in (None, "__main__"):
            return True
        owner = sys.modules.get(module) if isinstance(module, str) else None
        return isinstance(owner, types.ModuleType) and self._student_module(owner)

    @staticmethod
    def _student_module(module: types.ModuleType) -> bool:
        """A module the student wrote: a file outside the Python installation and windowmem."""
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            return False
        path = os.path.abspath(path)
        return not path.startswith(_STDLIB_DIRS) and not path.startswith(_LIBRARY_DIR)


class _RefuseLibrary:
    """A meta path finder that refuses every windowmem module while the block runs."""

    def __init__(self, check: without_library) -> None:
        self.check = check

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if _in_library(name) and name != SELF:
            raise LibraryBlocked(f"{name} is not allowed here: import refused")


_MISSING = object()


def _refill(target: set[Any], items: list[Any]) -> None:
    set.clear(target)
    set.update(target, items)


def plain(value: Any, types_: tuple[type, ...] = PLAIN_TYPES, *, where: str = "the answer") -> Any:
    """*value* rebuilt from plain types only (exact types, no subclasses), or a TypeError.

    >>> plain([1, (2, "x")])
    [1, (2, 'x')]
    >>> plain([True], (list, int))
    Traceback (most recent call last):
    ...
    TypeError: the answer: return plain list, int, found a bool
    """
    kind = type(value)
    if kind not in types_:
        names = ", ".join(t.__name__ for t in types_)
        raise TypeError(f"{where}: return plain {names}, found a {kind.__name__}")
    if kind is list:
        return [plain(item, types_, where=where) for item in list.__iter__(value)]
    if kind is tuple:
        return tuple(plain(item, types_, where=where) for item in tuple.__iter__(value))
    if kind is dict:
        return {
            plain(k, types_, where=where): plain(v, types_, where=where)
            for k, v in dict.items(value)
        }
    return value


def sealed(
    function: Callable[..., Any], allow: Iterable[str] = (), *, values: bool = True
) -> Callable[..., Any]:
    """*function*, run inside :class:`without_library` on every call, its value kept only if plain.

    >>> import windowmem.cost
    >>> def rebuilt(n):
    ...     return list(range(n))
    >>> sealed(rebuilt)(3)
    [0, 1, 2]
    """
    allow = tuple(allow)

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        with without_library(function, allow=allow, values=values) as block:
            return block.call(function, *args, **kwargs)

    return run
