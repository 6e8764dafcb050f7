"""Undo a student's monkeypatching before each test cell runs (executed inside the kernel).

This module's *source* is sent to the student's kernel before the first cell: it records
``builtins`` and the guarded packages (their module dicts and the dicts of the classes
they define), and before every graded test cell it puts back whatever a student's cell
replaced. Objects keep their identity, so a correct answer built from ``windowmem``
objects still compares equal; a patched ``Message.__eq__`` or policy ``load`` does not
survive into the tests. Standard library only, because it runs in the student's kernel.
It is a guard, not a sandbox: code that hunts the snapshot down can still defeat it, so
the hidden tests keep checking plain values and types.
"""

from __future__ import annotations

import builtins
import importlib
import sys
from types import ModuleType

_MISSING = object()
#: Builtins ipykernel and IPython rebind on every execution (input forwarding, display):
#: theirs to manage, so never restored.
KERNEL_MANAGED_BUILTINS = frozenset(
    {"input", "raw_input", "getpass", "get_ipython", "display", "exit", "quit", "__IPYTHON__"}
)


class Snapshot:
    """The pristine state of ``builtins`` and the guarded modules."""

    def __init__(self, roots: list[str], imports: list[str]) -> None:
        for name in imports:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a broken import is the notebook's to report
                pass
        self.last_restored: list[str] = []
        self.builtins = {
            k: v for k, v in vars(builtins).items() if k not in KERNEL_MANAGED_BUILTINS
        }
        self.modules: dict[str, tuple[ModuleType, dict]] = {}
        self.classes: list[tuple[type, dict]] = []
        for name, module in list(sys.modules.items()):
            if module is None or not any(name == r or name.startswith(r + ".") for r in roots):
                continue
            namespace = dict(vars(module))
            self.modules[name] = (module, namespace)
            for value in namespace.values():
                if isinstance(value, type) and value.__module__ == name:
                    self.classes.append((value, dict(vars(value))))

    def restore(self) -> list[str]:
        """Put back every replaced attribute; the names of what was restored (kept in ``last_restored``)."""
        restored: list[str] = []
        self.last_restored = restored
        current = vars(builtins)
        for key, value in self.builtins.items():
            if current.get(key, _MISSING) is not value:
                setattr(builtins, key, value)
                restored.append(f"builtins.{key}")
        for name, (module, namespace) in self.modules.items():
            if sys.modules.get(name) is not module:
                sys.modules[name] = module
                restored.append(name)
            for key, value in namespace.items():
                if vars(module).get(key, _MISSING) is not value:
                    setattr(module, key, value)
                    restored.append(f"{name}.{key}")
        for cls, namespace in self.classes:
            label = f"{cls.__module__}.{cls.__qualname__}"
            for key in [k for k in vars(cls) if k not in namespace]:
                if _try(delattr, cls, key):
                    restored.append(f"{label}.{key}")
            for key, value in namespace.items():
                if vars(cls).get(key, _MISSING) is not value:
                    if _try(setattr, cls, key, value):
                        restored.append(f"{label}.{key}")
        return restored


def _try(action, *args) -> bool:
    """Apply *action*; False where the attribute is read-only (some C-level slots)."""
    try:
        action(*args)
    except (AttributeError, TypeError):
        return False
    return True
