"""The namespace a hidden test runs in: the instructor's setup, and the student's names by proxy.

A hidden test reads three kinds of names. Its own (every helper it defines, all of them
starting with ``_``) live only here and never reach the kernel, so a student's helper of
the same name changes nothing. The setup cells' names (``chat``, ``CAUSES``) are the
judge's own, made by running the locked setup cells in the judge. Any other name is the
student's: it is looked up in the kernel on first use, a function becoming a
:class:`StudentFunction` whose calls cross the channel and a value arriving as plain
data. A name starting with ``_`` or naming a built-in is never looked up in the kernel.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any


class StudentFunction:
    """A function of the student's notebook, called through the channel."""

    __slots__ = ("_call", "_allow", "_globals", "__name__")

    def __init__(
        self,
        name: str,
        call: Callable[..., Any],
        allow: tuple[str, ...] | None = None,
        globals_: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        self.__name__ = name
        self._call = call
        self._allow = allow
        self._globals = globals_

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(self.__name__, args, kwargs, self._allow, dict(self._globals))

    def allowing(self, allow: tuple[str, ...]) -> StudentFunction:
        """The same function, each call run inside the kernel's behaviour check with *allow*."""
        return StudentFunction(self.__name__, self._call, allow, self._globals)

    def with_globals(self, names: dict[str, Any]) -> StudentFunction:
        """The same function, each call made with these notebook globals set (then put back)."""
        return StudentFunction(self.__name__, self._call, self._allow, tuple(names.items()))

    def __repr__(self) -> str:
        return f"<the student's {self.__name__}>"


#: The built-in names a test reads (``len``, ``range``, ``ValueError``), not the module's own.
BUILTINS = {k: v for k, v in vars(builtins).items() if not k.startswith("__")}


class JudgeNamespace(dict):
    """A test's globals: its own names, the setup's, and the student's looked up on first use.

    *lookup* returns the value for a student's name or raises ``KeyError``; the names it
    could not find are kept in :attr:`missing`, so a verdict can say which one the notebook
    lacks (a name the question gives, never one of the test's).
    """

    def __init__(self, base: dict[str, Any], lookup: Callable[[str], Any]) -> None:
        # the built-ins first, as the namespace's own names: a dict subclass as globals is
        # asked for every name, so a test's loop would otherwise call __missing__ and raise
        # KeyError before each `len` or `range` it finds in builtins
        super().__init__(BUILTINS)
        self.update(base)
        self._lookup = lookup
        self.missing: list[str] = []

    def __missing__(self, name: str) -> Any:
        if type(name) is not str or name.startswith("_") or hasattr(builtins, name):
            raise KeyError(name)
        try:
            value = self._lookup(name)
        except KeyError:
            if name not in self.missing:
                self.missing.append(name)
            raise
        self[name] = value
        return value
