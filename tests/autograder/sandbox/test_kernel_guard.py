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
        package.area = lambda: 98
        # what every restore since the snapshot put back, each once, for the grader's one read
        assert snapshot.restore_and_report() == restored
        assert package.area is original_area
    finally:
        builtins.sum = original_sum
        del sys.modules["guardedpkg"]


def test_a_guarded_kernel_shows_errors_as_before_and_stores_them_plainly():
    """The error output keeps IPython's coloured traceback; only the history's copy is plain."""
    from jupyter_client.manager import start_new_kernel

    from autograder.grading.guard_requests import guard_setup_code

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        shown = {}

        def run(code: str, **options) -> dict:
            def keep(message):
                if message["msg_type"] == "error":
                    shown[code] = message["content"]

            return client.execute_interactive(code, output_hook=keep, timeout=60, **options)

        plain_kernel = run("1 / 0")
        run(guard_setup_code(1000, ["windowmem"], []), silent=True, store_history=False)
        guarded = run("1 / 0 ")
        stored = run(
            "",
            silent=True,
            user_expressions={
                "kept": f"get_ipython().history_manager.exceptions[{guarded['content']['execution_count']}]"
            },
        )
        assert plain_kernel["content"]["status"] == guarded["content"]["status"] == "error"
        before, after = shown["1 / 0"]["traceback"], shown["1 / 0 "]["traceback"]
        assert any("\x1b[" in line for line in after), "the shown traceback keeps its colours"
        assert len(after) == len(before) and after[-1] == before[-1]
        kept = stored["content"]["user_expressions"]["kept"]["data"]["text/plain"]
        assert "'ename': 'ZeroDivisionError'" in kept and "'traceback': []" in kept
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
