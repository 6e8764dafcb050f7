"""What a forbidden windowmem object is during the behaviour check: a stand-in that refuses every use."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The library whose helpers a rebuild question takes out of reach.
LIBRARY = "windowmem"
#: The behaviour check itself, which a hidden test imports while the block runs.
SELF = "windowmem.behaviour_check"


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
