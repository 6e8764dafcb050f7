"""The grading slot: no cell of the student's runs before the turn, and none after it is given back.

Real kernels, run by the grader's execute preprocessor as a worker runs it (outside the
sandbox, whose cgroup the worker's give-back kills: tests/autograder/sandbox cover that).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from traitlets.config import Config

from autograder.grading import slot
from autograder.grading.guarded_execute import GuardedExecute
from autograder.sandbox.kernels import prestart_kernel, shut_down_prestarted


class Turn:
    """A release event that notes what had happened when the worker waited for its turn."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.waits: list[tuple[bool, bool]] = []

    def wait(self, timeout: float | None = None) -> bool:
        pgid = int((self.folder / "kernel.pgid").read_text())
        self.waits.append((_alive(pgid), (self.folder / "ran").exists()))
        return True


class Graded:
    """The worker's event: notes whether the student's kernel was still there when it was set."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sets: list[bool] = []

    def set(self) -> None:
        self.sets.append(_alive(int((self.folder / "kernel.pgid").read_text())))


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _notebook(*sources: str) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return notebook


def _execute(folder: Path, notebook: nbformat.NotebookNode, name: str) -> None:
    config = Config()
    config.GuardedExecute.judge = False
    config.GuardedExecute.kernel_pid_file = str(folder / "kernel.pgid")
    resources = {"metadata": {"path": str(folder)}, "nbgrader": {"notebook": name}}
    GuardedExecute(config=config).preprocess(notebook, resources)


@pytest.fixture
def worker_slot():
    yield
    slot.CURRENT = None
    shut_down_prestarted()


def test_the_student_runs_only_between_the_turn_and_the_give_back(tmp_path, worker_slot):
    turn, graded = Turn(tmp_path), Graded(tmp_path)
    stopped: list[float] = []
    slot.CURRENT = slot.Slot(
        release=turn,
        graded=graded,
        seconds=100.0,
        judge_share=0.5,
        stop_student=lambda: stopped.append(time.monotonic()),
    )
    # as the worker does: the kernel starts ahead, its process group on file
    pgid = prestart_kernel(AsyncKernelManager, Config(), cwd=str(tmp_path))
    (tmp_path / "kernel.pgid").write_text(str(pgid))
    notebook = _notebook(f"open({str(tmp_path / 'ran')!r}, 'w').write('1')", "x = 41 + 1\nx")
    before = time.monotonic()
    _execute(tmp_path, notebook, "nb")
    # waited once, with the kernel up and no cell of the student's run yet
    assert turn.waits == [(True, False)]
    assert (tmp_path / "ran").exists()
    assert notebook.cells[1].outputs[0]["data"]["text/plain"] == "42"
    # given back once, the student's kernel already gone
    assert graded.sets == [False] and len(stopped) == 1
    # the judge's deadline counts from the turn: half of the student's 100 s
    deadline = slot.CURRENT.take()
    assert deadline is not None and before + 50 <= deadline <= time.monotonic() + 50


def test_two_notebooks_hold_the_slot_until_the_second_is_done(tmp_path, worker_slot):
    turn, graded = Turn(tmp_path), Graded(tmp_path)
    slot.CURRENT = slot.Slot(release=turn, graded=graded, notebooks=2)
    pgid = prestart_kernel(AsyncKernelManager, Config(), cwd=str(tmp_path))
    (tmp_path / "kernel.pgid").write_text(str(pgid))
    _execute(tmp_path, _notebook("y = 1"), "first")
    assert turn.waits == [(True, False)] and graded.sets == []
    _execute(tmp_path, _notebook("z = 2"), "second")  # a kernel of its own, started after the turn
    assert len(turn.waits) == 1 and graded.sets == [False]


def test_a_worker_that_executes_nothing_still_waits_for_its_turn_before_giving_it_back():
    events: list[str] = []

    class Release:
        def wait(self, timeout: float | None = None) -> bool:
            events.append("turn")
            return True

    class Done:
        def set(self) -> None:
            events.append("given back")

    turn = slot.Slot(
        release=Release(), graded=Done(), stop_student=lambda: events.append("stopped")
    )
    turn.give_back()
    turn.give_back()
    assert events == ["turn", "stopped", "given back"]
