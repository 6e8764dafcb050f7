"""The block itself: while it runs, windowmem is reachable only through what a question allows.

See :mod:`windowmem.behaviour_check` for what is sealed and why.
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

from windowmem.behaviour_check.stand_ins import (
    LIBRARY,
    SELF,
    Blocked,
    LibraryBlocked,
    _in_library,
    _under,
)
from windowmem.behaviour_check.values import plain

#: This module: always reachable (the tests hold it), never a helper.
# the windowmem package folder (this module sits one folder below it)
_LIBRARY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIRS = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


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
            if not _in_library(name) or _under(name, (SELF,)) or module is None:
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
            if _under(name, (SELF,)):
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
        if _in_library(name) and not _under(name, (SELF,)):
            raise LibraryBlocked(f"{name} is not allowed here: import refused")


_MISSING = object()


def _refill(target: set[Any], items: list[Any]) -> None:
    set.clear(target)
    set.update(target, items)


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
