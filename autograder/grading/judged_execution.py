"""The judge's part of grading execution: hidden tests run outside the student's kernel.

:class:`JudgedExecution` is mixed into :class:`~autograder.grading.guarded_execute.GuardedExecute`.
Once the student's notebook has run (its test cells holding only their visible checks), it
opens the channel into the kernel, has :mod:`autograder.judge` run every test cell whole,
and puts each verdict in its cell's outputs, where nbgrader reads the score.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from nbformat.notebooknode import NotebookNode
from traitlets import Bool, Float, Unicode
from traitlets.config import LoggingConfigurable

from autograder.judge.channel import KernelChannel
from autograder.judge.hidden_tests import judge_notebook
from autograder.judge.verdict import visible_outputs
from autograder.sandbox.kernels import prestart_kernel


class JudgedExecution(LoggingConfigurable):
    """Mixin for the grader's execute preprocessor: the judge's settings and its run."""

    judge = Bool(
        True,
        help="Run the hidden tests in the judge, outside the kernel (False: nbgrader's way, in it)",
    ).tag(config=True)
    judge_call_seconds = Float(
        10.0, help="CPU seconds each call the judge makes into the student's code may use"
    ).tag(config=True)
    judge_calls_apart = Bool(
        False,
        help="Run each call the judge makes in a forked copy of the kernel, so no call "
        "remembers another (costs CPU per call: see README, remaining risks)",
    ).tag(config=True)
    judge_deadline = Float(
        0.0,
        help="time.monotonic() past which the judge calls no more into the student's code "
        "(0: no deadline); the tests not judged by then score 0",
    ).tag(config=True)
    assignment_folder = Unicode(
        "", help="The instructor's folder of the assignment, where the judge runs the setup cells"
    ).tag(config=True)

    # set by the execute preprocessor this is mixed into
    kc: Any
    km: Any
    _stop_index: int | None
    _stopped_by: str | None
    _judge_out_of_time: bool
    wall_clock_factor: float
    interrupt_grace: float

    def _kill_kernel(self) -> None:  # the execute preprocessor's
        raise NotImplementedError

    def _judge(self, nb: NotebookNode, whole: dict[int, str], resources: dict) -> None:
        """Run the test cells in the judge and put its verdicts in their outputs."""
        if self._stop_index is not None:
            self._judge_before_stop(nb, whole, resources)
            return
        channel = KernelChannel(
            self.kc,
            self.km,
            cpu_seconds_per_call=self.judge_call_seconds,
            wall_clock_factor=self.wall_clock_factor,
            interrupt_grace=self.interrupt_grace,
            kill=self._kill_kernel,
            calls_apart=self.judge_calls_apart,
            deadline=self.judge_deadline or None,
        )
        if self._stopped_by is not None or self.kc is None:
            channel.gone = True
        folder = self.assignment_folder or self._default_assignment_folder(resources)
        try:
            verdicts, problems = judge_notebook(nb, whole, channel, folder)
        finally:
            channel.close()
        self._judge_out_of_time = channel.log.out_of_time
        if problems:
            self.log.warning("The judge could not run a setup cell:\n%s", problems)
        for index, verdict in verdicts.items():
            cell = nb.cells[index]
            cell.outputs = visible_outputs(cell.outputs) + verdict.outputs()
            if verdict.log:
                self.log.info("judge, %s:\n%s", verdict.grade_id, verdict.log)
        self.log.info(
            "judge: %d requests in %.2f s%s%s%s",
            channel.log.requests,
            channel.log.seconds,
            f"; {channel.log.killed}" if channel.log.killed else "",
            f"; {channel.log.strays} process(es) left by calls killed"
            if channel.log.strays
            else "",
            "; out of time, later calls not made" if channel.log.out_of_time else "",
        )

    def _judge_before_stop(self, nb: NotebookNode, whole: dict[int, str], resources: dict) -> None:
        """Judge the tests before the cell that stopped the kernel, on a kernel of their own.

        The stopped kernel's state is gone, and the tests are judged only once the whole
        notebook has run (so no later cell of the student's sees a hidden input). So a fresh
        kernel runs the notebook up to that cell, its outputs thrown away, and the judge runs
        the earlier tests on it: they keep the points they earn. The tests from that cell on
        keep their ``NotRun`` errors.
        """
        stop = self._stop_index or 0
        earlier = {index: source for index, source in whole.items() if index < stop}
        if not earlier:
            return
        truncated = copy.deepcopy(nb)
        truncated.cells = truncated.cells[:stop]
        for index, source in earlier.items():
            truncated.cells[index].source = source
        # a kernel started like the first (same manager, same sandbox), which the run takes;
        # the report of what the notebook's own run did is written after this, and stands
        prestart_kernel(type(self.km), self.config, cwd=os.getcwd())
        rerun: Any = type(self)(config=self.config)
        rerun._rerun = True
        rerun.judge_deadline = self.judge_deadline  # the turn's, set on this one at its start
        rerun.preprocess(truncated, copy.deepcopy(resources))
        self._judge_out_of_time = rerun._judge_out_of_time
        for index in earlier:
            nb.cells[index].outputs = truncated.cells[index].outputs

    def _default_assignment_folder(self, resources: dict) -> str | None:
        """source/<assignment> of the configured course, where the setup cells find their data."""
        assignment = resources.get("nbgrader", {}).get("assignment")
        root = getattr(getattr(self.config, "CourseDirectory", None), "root", None)
        if not assignment or not isinstance(root, str):
            return None
        folder = Path(root) / "source" / assignment
        return str(folder) if folder.is_dir() else None
