"""The grading slot: held while one student's code runs, given back the moment it stops.

The scheduler lets ``--jobs`` students run code at a time. A worker is started ahead of its
turn (:data:`autograder.grading.scheduler.AHEAD`), and everything it does before the
student's first cell is the grader's own work: start the kernel in the sandbox, open the
private gradebook, record the submission, read the notebook and run nbgrader's preprocessors
up to execution. So the worker does all of it at once and waits for its turn only where the
kernel would run the student's first cell (:meth:`Slot.take`). Likewise, once the hidden
tests are judged and every process of the student's is stopped, the slot is given back
(:meth:`Slot.give_back`) before nbgrader saves the scores and writes the feedback page:
that bookkeeping overlaps the next student's run instead of delaying it.

nbgrader builds its preprocessors itself, so the execute preprocessor finds the worker's
slot in :data:`CURRENT` (one worker process grades one student, so one slot a process).

>>> events = []
>>> slot = Slot(notebooks=2, stop_student=lambda: events.append("stopped"))
>>> slot.take(), slot.take()
(None, None)
>>> slot.notebook_done(); events
[]
>>> slot.notebook_done(); events
['stopped']
>>> slot.give_back(); events  # given back once
['stopped']
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The slot of the student this worker process grades (None outside a worker: a plain
#: ``nbgrader autograde``, or a test, executes at once).
CURRENT: Slot | None = None


class Slot:
    """One student's turn to run code: waited for once, given back once.

    *release* is the scheduler's event (set: this student's turn), *graded* the worker's
    (set: nothing of the student's runs any more). *seconds* is the student's time from the
    release, of which the judge may use *judge_share*. *notebooks* is how many notebooks
    the student's code runs in: the slot is given back after the last one.
    *stop_student* kills what is left of the student's processes (the sandbox's cgroup).
    """

    def __init__(
        self,
        *,
        release: Any = None,
        graded: Any = None,
        seconds: float | None = None,
        judge_share: float = 1.0,
        notebooks: int = 1,
        stop_student: Callable[[], None] = lambda: None,
    ) -> None:
        self._release = release
        self._graded = graded
        self._seconds = seconds
        self._judge_share = judge_share
        self._notebooks = notebooks
        self._stop_student = stop_student
        self._deadline: float | None = None
        self._taken = False
        self._ran = 0
        self._given_back = False
        #: Seconds spent waiting for the turn, and stopping the student's processes.
        self.waited = 0.0
        self.stopping = 0.0

    def take(self) -> float | None:
        """Wait for this student's turn (once); the judge's deadline, ``time.monotonic()`` based."""
        if not self._taken:
            started = time.perf_counter()
            if self._release is not None:
                self._release.wait()
            self.waited = time.perf_counter() - started
            self._taken = True
            if self._seconds is not None:
                self._deadline = time.monotonic() + self._judge_share * self._seconds
        return self._deadline

    def notebook_done(self) -> None:
        """One notebook's code and hidden tests are done; after the last, give the slot back."""
        self._ran += 1
        if self._ran >= self._notebooks:
            self.give_back()

    def give_back(self) -> None:
        """Stop the student's processes and let the next student run (once).

        A slot never taken is waited for first, so a job's wall clock (counted by the
        scheduler from its release) still covers all of it.
        """
        if self._given_back:
            return
        self.take()
        self._given_back = True
        started = time.perf_counter()
        self._stop_student()
        self.stopping = time.perf_counter() - started
        if self._graded is not None:
            self._graded.set()
