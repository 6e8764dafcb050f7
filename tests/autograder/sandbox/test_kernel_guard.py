"""The kernel guard undoes a student's monkeypatching."""

from __future__ import annotations

import builtins
import sys
import types

from autograder.sandbox import kernel_guard


def test_snapshot_restores_patched_modules_classes_and_builtins():
    package = types.ModuleType("guardedpkg")
    exec(
        "class Point:\n    def __eq__(self, other):\n        return False\n\ndef area():\n    return 1\n",
        package.__dict__,
    )
    package.Point.__module__ = "guardedpkg"
    sys.modules["guardedpkg"] = package
    original_eq, original_area, original_sum = package.Point.__eq__, package.area, builtins.sum
    try:
        snapshot = kernel_guard.Snapshot(["guardedpkg"], [])
        package.Point.__eq__ = lambda self, other: True
        package.Point.__ne__ = lambda self, other: False  # added, not replaced
        package.area = lambda: 99
        builtins.sum = lambda *args: 0
        point = package.Point()
        restored = snapshot.restore()
        assert (
            package.Point.__eq__ is original_eq
            and package.area is original_area
            and builtins.sum is original_sum
        )
        assert "__ne__" not in vars(package.Point)
        assert point != package.Point(), "objects made before the restore use the restored class"
        assert set(restored) == {
            "builtins.sum",
            "guardedpkg.area",
            "guardedpkg.Point.__eq__",
            "guardedpkg.Point.__ne__",
        }
        assert snapshot.restore() == []
    finally:
        builtins.sum = original_sum
        del sys.modules["guardedpkg"]
