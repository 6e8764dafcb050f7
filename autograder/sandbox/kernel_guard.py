"""Undo a student's monkeypatching before each test cell runs (executed inside the kernel).

This module's *source* is sent to the student's kernel before the first cell: it records
``builtins`` and the guarded packages (their module dicts and the dicts of the classes
they define), and before every graded test cell it puts back whatever a student's cell
replaced. Objects keep their identity, so a correct answer built from ``windowmem``
objects still compares equal; a patched ``Message.__eq__`` or policy ``load`` does not
survive into the tests. Standard library only, because it runs in the student's kernel.
It also records how the interpreter runs a cell (IPython's input and AST transformers,
its event callbacks, the methods of the shell, the kernel and their helpers, ``sys``
hooks and trace functions) and undoes a student's changes there too, so a transformer
that turns every later cell into ``pass`` is gone before the tests run.

It is a guard, not a sandbox: code that hunts the snapshot down can still defeat it. The
grader therefore also sends a probe before each test (see
:class:`autograder.grading.guarded_execute.GuardedExecute`) and flags a kernel that does not fail
it, and the hidden tests keep checking plain values and types.
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


#: Modules whose classes decide how a cell runs and reports: their methods are restored.
MACHINERY_PREFIXES = ("IPython.", "ipykernel.", "jupyter_client.", "comm.")
#: Attributes of the shell whose lists of hooks are restored.
SHELL_LISTS = ("input_transformers_cleanup", "input_transformers_post", "ast_transformers")
MANAGER_LISTS = ("cleanup_transforms", "line_transforms", "token_transformers")
#: sys hooks the kernel sets once (IPython swaps displayhook and excepthook itself on every cell).
SYS_HOOKS = ("breakpointhook", "stdout", "stderr", "stdin")
#: How many restored names the snapshot keeps for the grader's report.
EVER_RESTORED = 200


def cap_streams(limit: int) -> None:
    """Stop a cell's stdout and stderr after *limit* characters: the rest goes nowhere.

    Installed before the snapshot, so it is part of the pristine state. Once a cell has
    written *limit* characters, ``sys.stdout.write`` becomes the built-in ``len`` (so a
    ``print`` costs the kernel almost nothing and sends nothing) and file descriptors 1 and
    2 point at ``/dev/null`` (so ``os.write`` and child processes write nowhere, instead of
    through ipykernel's pipe-reading thread into the grader's log). Everything is put back
    before the next cell. A flood of output therefore costs the grader no time and the
    kernel only the student's own loop: its score and status do not depend on the machine.
    """
    import os

    shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - the kernel's
    devnull = os.open(os.devnull, os.O_WRONLY)
    reopeners = []
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        # a copy of the descriptor ipykernel reads: also keeps its pipe open while fd points away
        reopeners.append(_cap_stream(stream, fd, os.dup(fd), devnull, limit))

    def reset(*args, **kwargs):
        for reopen in reopeners:
            reopen()

    shell.events.register("pre_execute", reset)


def _cap_stream(stream, fd: int, saved_fd: int, devnull: int, limit: int):
    """Cap *stream* (and its descriptor *fd*) at *limit* characters; the function that reopens it."""
    import os

    write, flush = stream.write, stream.flush
    state = {"count": 0, "closed": False}

    def capped(text):
        state["count"] += len(text)
        if state["count"] <= limit:
            return write(text)
        kept = text[: max(0, len(text) - (state["count"] - limit))]
        write(kept + f"\n... output stopped in the kernel after {limit:,} characters ...\n")
        flush()  # what was kept reaches the grader before the stream goes quiet
        state["closed"] = True
        stream.write = len  # built-in: no Python frame per write, nothing sent
        stream.flush = _nothing
        os.dup2(devnull, fd)
        return len(text)

    def reopen():
        if state["closed"]:
            os.dup2(saved_fd, fd)
        state["count"], state["closed"] = 0, False
        stream.write, stream.flush = capped, flush

    stream.write = capped
    return reopen


def store_errors_plainly() -> None:
    """Keep only an error's name and value in IPython's history, not a second formatted traceback.

    IPython 9 formats every error twice: once to show it (the ``error`` output the
    grader reads) and once more for its history database, which nothing in a grading
    kernel reads. The second costs as much as the first (about 6 ms, most of it syntax
    highlighting), for every probe and every failing test. What is shown is untouched.
    Installed before the snapshot, so it is part of the pristine state.
    """
    shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - the kernel's
    if not hasattr(shell, "_format_exception_for_storage"):  # IPython 8 keeps no such copy
        return

    def plain(exception, *args, **kwargs):
        return {"ename": type(exception).__name__, "evalue": str(exception), "traceback": []}

    shell._format_exception_for_storage = plain


def _nothing(*args, **kwargs) -> None:
    """A capped stream's ``flush``."""


class Snapshot:
    """The pristine state of ``builtins``, the guarded modules and the cell machinery."""

    def __init__(self, roots: list[str], imports: list[str]) -> None:
        for name in imports:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a broken import is the notebook's to report
                pass
        self.last_restored: list[str] = []
        # every name restored since the snapshot, once each, in the order first seen
        self.ever_restored: dict[str, None] = {}
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
        self._record_machinery()

    def _record_machinery(self) -> None:
        try:
            shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - the kernel's
        except NameError:
            shell = None
        self.shell = shell
        # the traceback formatter's colour theme, put back before every test cell
        self.formatter = getattr(shell, "InteractiveTB", None)
        self.theme = getattr(self.formatter, "_theme_name", None)
        self.sys_hooks = {name: getattr(sys, name, None) for name in SYS_HOOKS}
        self.trace, self.profile = sys.gettrace(), sys.getprofile()  # None in a plain kernel
        self.meta_path = list(sys.meta_path)
        self.path_hooks = list(sys.path_hooks)
        self.lists: list[tuple[object, str, list]] = []
        self.events: dict[str, list] = {}
        self.user_shadows: dict[str, object] = {}
        self.instances: list[tuple[object, dict]] = []
        if shell is None:
            return
        manager = getattr(shell, "input_transformer_manager", None)
        for owner, names in ((shell, SHELL_LISTS), (manager, MANAGER_LISTS)):
            for name in names:
                value = getattr(owner, name, None)
                if isinstance(value, list):
                    self.lists.append((owner, name, list(value)))
        self.events = {k: list(v) for k, v in shell.events.callbacks.items()}
        # names IPython itself puts over builtins in the user namespace (its own `open`)
        self.user_shadows = {
            k: v
            for k, v in shell.user_ns.items()
            if k in self.builtins and v is not self.builtins[k]
        }
        kernel = getattr(shell, "kernel", None)
        owners = [shell, manager, kernel, getattr(kernel, "session", None)]
        owners += [
            getattr(shell, n, None)
            for n in ("displayhook", "display_pub", "compile", "InteractiveTB", "SyntaxTB")
        ]
        owners += [getattr(kernel, n, None) for n in ("iopub_socket", "shell_stream")]
        seen: set[int] = set()
        for owner in owners:
            if owner is None or id(owner) in seen:
                continue
            seen.add(id(owner))
            self.instances.append((owner, _instance_methods(owner)))
            for cls in type(owner).__mro__:
                if cls.__module__.startswith(MACHINERY_PREFIXES) and id(cls) not in seen:
                    seen.add(id(cls))
                    self.classes.append((cls, dict(vars(cls))))

    def restore_and_import(self, imports: str) -> list[str]:
        """Restore, then run *imports* (the locked cells' import lines) in the notebook's namespace.

        Called from a ``user_expressions`` entry, which IPython evaluates without its input
        transformers: a student's transformer cannot rewrite this call away.
        """
        restored = self.restore()
        if imports and self.shell is not None:
            exec(compile(imports, "<autograder imports>", "exec"), self.shell.user_ns)
        return restored

    def restore_and_report(self) -> list[str]:
        """Restore, then name everything restored since the snapshot (the grader reads it once)."""
        self.restore()
        return list(self.ever_restored)

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
        self._restore_machinery(restored)
        for name in restored[: EVER_RESTORED - len(self.ever_restored)]:
            self.ever_restored.setdefault(name)
        return restored

    def _restore_machinery(self, restored: list[str]) -> None:
        set_theme = getattr(self.formatter, "set_theme_name", None)  # IPython 9's formatter
        if set_theme is not None and self.formatter._theme_name != self.theme:  # type: ignore[union-attr]
            _try(set_theme, self.theme)
            restored.append("the traceback colours")
        for name, value in self.sys_hooks.items():
            # ==, not is: IPython installs a fresh bound method as excepthook for every cell
            if getattr(sys, name, None) != value:
                setattr(sys, name, value)
                restored.append(f"sys.{name}")
        if sys.gettrace() is not self.trace:
            sys.settrace(self.trace)
            restored.append("sys.settrace")
        if sys.getprofile() is not self.profile:
            sys.setprofile(self.profile)
            restored.append("sys.setprofile")
        for name, pristine in (("meta_path", self.meta_path), ("path_hooks", self.path_hooks)):
            current = getattr(sys, name)
            if current != pristine:
                current[:] = pristine
                restored.append(f"sys.{name}")
        for owner, name, pristine in self.lists:
            current = getattr(owner, name, None)
            if not isinstance(current, list) or current != pristine:
                _try(setattr, owner, name, list(pristine))
                restored.append(f"{type(owner).__name__}.{name}")
        if self.shell is not None:
            callbacks = self.shell.events.callbacks
            for event in set(callbacks) | set(self.events):
                if callbacks.get(event) != self.events.get(event, []):
                    callbacks[event] = list(self.events.get(event, []))
                    restored.append(f"events.{event}")
            namespace = self.shell.user_ns
            if namespace.get("__builtins__") is not builtins:
                namespace["__builtins__"] = builtins
                restored.append("__builtins__")
            for key, value in list(namespace.items()):
                # a student's `type = ...` or `def isinstance(...)` would answer for the tests
                original = self.user_shadows.get(key, self.builtins.get(key, _MISSING))
                if original is not _MISSING and value is not original and callable(value):
                    if key in self.user_shadows:
                        namespace[key] = original
                    else:
                        del namespace[key]
                    restored.append(f"the notebook's own {key}")
        for owner, saved in self.instances:
            for key in [k for k in _instance_methods(owner) if k not in saved]:
                if _try(delattr, owner, key):
                    restored.append(f"{type(owner).__name__}.{key}")
            for key, value in saved.items():
                if vars(owner).get(key, _MISSING) is not value:
                    if _try(setattr, owner, key, value):
                        restored.append(f"{type(owner).__name__}.{key}")


def _instance_methods(owner: object) -> dict:
    """Instance attributes of *owner* that stand in for one of its class's methods."""
    cls = type(owner)
    return {
        k: v
        for k, v in vars(owner).items()
        if callable(v) and callable(getattr(cls, k, None)) and not isinstance(getattr(cls, k), type)
    }


def _try(action, *args) -> bool:
    """Apply *action*; False where the attribute is read-only (some C-level slots)."""
    try:
        action(*args)
    except (AttributeError, TypeError):
        return False
    return True
