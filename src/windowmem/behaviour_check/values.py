"""The plain values a rebuilt answer may be made of, checked exactly (no subclasses)."""

from __future__ import annotations

from typing import Any

#: The plain values a rebuilt answer is made of, unless a question allows fewer.
PLAIN_TYPES: tuple[type, ...] = (type(None), bool, int, float, str, list, tuple, dict)


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
