"""An HTML module's style constants, handed to the website's script that draws the same HTML.

>>> exported_styles({"_CELL": "padding:3px", "_helper": 1, "LIMIT": 3, "_KEY": ("a",)})
{'cell': 'padding:3px', 'key': ('a',)}
"""

from __future__ import annotations

from collections.abc import Mapping


def exported_styles(namespace: Mapping[str, object]) -> dict[str, object]:
    """The private constants (``_CELL``, ``_STATUS_STYLE``) of *namespace*, named in lower case."""
    return {
        name[1:].lower(): value
        for name, value in namespace.items()
        if name.startswith("_") and not name.startswith("__") and name[1:].isupper()
    }
