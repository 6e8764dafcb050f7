"""Wait for a process the hub tier started to answer, failing at once, with its log, if it exits."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable


def wait_until_answering(
    process: subprocess.Popen,
    answers: Callable[[], bool],
    what: str,
    log: Callable[[], str],
    timeout_s: float,
) -> float:
    """Poll *answers* until it is true; the seconds that took. Raises if *process* exits or time runs out.

    *answers* returns false (or raises ``OSError``) while the process is not ready yet.
    """
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode}:\n{log()}")
        try:
            if answers():
                return time.monotonic() - started
        except (OSError, AssertionError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{what} did not answer within {timeout_s:g} s:\n{log()}")
