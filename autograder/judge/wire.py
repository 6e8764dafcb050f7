"""Plain data on the wire between the judge and a student's kernel, both ways.

A value crosses as JSON text. Only exact plain types cross as themselves: ``None``,
``bool``, ``int``, ``float``, ``str`` and ``list``; a ``tuple``, ``dict``, ``set`` or
``frozenset`` crosses as a tagged object (``{"~": "tuple", "items": [...]}``), so the other
side rebuilds the same type and a test that checks ``type(r) is list`` still can. Anything
else (a ``list`` subclass with its own ``__eq__``, a generator, a class instance) is handed
to *extra*, which may tag it (the judge tags the course's conversations); what *extra*
declines crosses as ``{"~": "unsupported", "type": name}``, which the judge reads as an
:class:`Opaque` value equal to nothing. Depth and size are bounded on both sides.

This module uses only the standard library: its source is also run inside the student's
kernel, which has the same rules for what it sends back. Nothing the kernel sends is
trusted: a kernel can only lie about its own values.

>>> loads(dumps({"turns": [1, 2], "key": ("a", 3)}))
{'turns': [1, 2], 'key': ('a', 3)}
>>> type(loads(dumps(frozenset({1})))).__name__
'frozenset'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

#: How deep a value may nest, and how many items it may hold in all, on either side.
MAX_DEPTH = 64
MAX_ITEMS = 200_000
#: Characters of JSON text either side accepts.
MAX_CHARS = 8_000_000
TAG = "~"
_SCALARS = (type(None), bool, int, float, str)


class WireError(ValueError):
    """A value that cannot cross: too deep, too big, or not made of plain data."""


class Opaque:
    """What the judge receives for a value the kernel could not send as plain data."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<a {self.type_name} that is not plain data>"


def encode(value: Any, extra: Callable[[Any], dict | None] | None = None) -> Any:
    """*value* as JSON-ready data, tagged where JSON alone would lose its type."""
    budget = [MAX_ITEMS]

    def walk(item: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise WireError(f"more than {MAX_ITEMS} items")
        if depth > MAX_DEPTH:
            raise WireError(f"nested deeper than {MAX_DEPTH}")
        kind = type(item)
        if kind in _SCALARS:
            return item
        if kind is list:
            return [walk(i, depth + 1) for i in item]
        if kind is tuple or kind is set or kind is frozenset:
            items = list(item) if kind is tuple else sorted_items(item)
            return {TAG: kind.__name__, "items": [walk(i, depth + 1) for i in items]}
        if kind is dict:
            return {
                TAG: "dict",
                "pairs": [[walk(k, depth + 1), walk(v, depth + 1)] for k, v in item.items()],
            }
        tagged = extra(item) if extra is not None else None
        if tagged is not None:
            return {TAG: "extra", "value": walk(tagged, depth + 1)}
        name = getattr(kind, "__name__", "?")
        return {TAG: "unsupported", "type": name if type(name) is str else "?"}

    return walk(value, 0)


def sorted_items(items: Any) -> list[Any]:
    """A set's items in a fixed order where they have one, so the same set sends the same text."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def decode(data: Any, extra: Callable[[Any], Any] | None = None) -> Any:
    """The value *data* (from :func:`encode`) stands for; raises :class:`WireError` on bad data."""
    budget = [MAX_ITEMS]

    def walk(item: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            raise WireError("too big or too deep")
        kind = type(item)
        if kind in _SCALARS:
            return item
        if kind is list:
            return [walk(i, depth + 1) for i in item]
        if kind is not dict or type(item.get(TAG)) is not str:
            raise WireError("an untagged object")
        tag = item[TAG]
        if tag in ("tuple", "set", "frozenset"):
            items = [walk(i, depth + 1) for i in _list(item.get("items"))]
            try:
                return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
            except TypeError as error:  # an unhashable item in a set
                raise WireError(str(error)) from None
        if tag == "dict":
            out = {}
            for pair in _list(item.get("pairs")):
                if type(pair) is not list or len(pair) != 2:
                    raise WireError("a dict entry that is not a pair")
                key = walk(pair[0], depth + 1)
                try:
                    out[key] = walk(pair[1], depth + 1)
                except TypeError as error:  # an unhashable key
                    raise WireError(str(error)) from None
            return out
        if tag == "extra":
            value = walk(item.get("value"), depth + 1)
            if extra is None:
                raise WireError("a tagged value with no reader")
            return extra(value)
        if tag == "unsupported":
            name = item.get("type")
            return Opaque(name[:100] if type(name) is str else "?")
        raise WireError(f"an unknown tag {tag[:40]!r}")

    return walk(data, 0)


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise WireError("a tagged object without its items")
    return value


def dumps(value: Any, extra: Callable[[Any], dict | None] | None = None) -> str:
    """*value* as JSON text (see :func:`encode`)."""
    return json.dumps(encode(value, extra), allow_nan=True, separators=(",", ":"))


def loads(text: str, extra: Callable[[Any], Any] | None = None) -> Any:
    """The value JSON *text* from :func:`dumps` stands for."""
    if type(text) is not str or len(text) > MAX_CHARS:
        raise WireError("not text, or too long")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise WireError(f"not JSON: {type(error).__name__}") from None
    return decode(data, extra)
