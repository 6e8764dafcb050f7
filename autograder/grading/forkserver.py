"""The warmed server every grading worker is forked from, startable before anything heavy is imported.

Kept apart from :mod:`autograder.grading.scheduler` (which imports nbgrader through the
worker) so the command line can start it first thing: the server imports nbgrader and
renders a feedback page once (see :mod:`autograder.grading.warmup`) while the grader
itself imports nbgrader and builds the course, instead of after.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context

#: What the server imports (and so runs) before it forks the first worker.
PRELOAD = ["autograder.grading.warmup", "autograder.grading.worker"]


def start_forkserver() -> multiprocessing.context.ForkServerContext:
    """Start (once) the server workers fork from, preloaded and warmed; it works in the background."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    from multiprocessing import forkserver

    forkserver.ensure_running()
    return context
