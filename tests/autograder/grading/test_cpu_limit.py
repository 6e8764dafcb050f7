"""The CPU clock a cell's time limit counts: read from /proc, for the kernel's processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

from autograder.grading.cpu_limit import cpu_seconds, kernel_cpu_seconds, kernel_pids


def test_cpu_seconds_counts_work_not_sleep():
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.3)  # both interpreters started
        busy_start, sleep_start = cpu_seconds([busy.pid]), cpu_seconds([sleeper.pid])
        time.sleep(1.5)
        assert cpu_seconds([busy.pid]) - busy_start > 0.05
        assert cpu_seconds([sleeper.pid]) - sleep_start < 0.05
        both = cpu_seconds([busy.pid, sleeper.pid])
        assert both >= cpu_seconds([busy.pid]) - 0.05
    finally:
        for process in (busy, sleeper):
            process.kill()
            process.wait()


def test_a_process_that_is_gone_counts_nothing():
    assert cpu_seconds([2**22 + 17]) == 0.0  # above any pid_max default: no such process


def test_the_sandbox_counts_its_cgroup_and_otherwise_the_kernel_process():
    boxed = SimpleNamespace(cgroup=SimpleNamespace(processes=lambda: [11, 12]))
    assert kernel_pids(boxed) == [11, 12]
    # A kernel of its own, with one child (the judge's forked call) and one grandchild: the
    # test process itself may have children of other tests, so it is not the kernel here.
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', "
        '\'import subprocess, sys, time; subprocess.Popen(["sleep", "30"]); time.sleep(30)\'])\n'
        "print(child.pid, flush=True)\n"
        "time.sleep(30)\n"
    )
    kernel = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert kernel.stdout is not None
        child = int(kernel.stdout.readline())
        plain = SimpleNamespace(
            provisioner=SimpleNamespace(process=SimpleNamespace(pid=kernel.pid))
        )
        deadline = time.monotonic() + 30
        while len(kernel_pids(plain)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # the grandchild starts a moment after the child
        pids = kernel_pids(plain)
        assert pids[:2] == [kernel.pid, child] and len(pids) == 3, pids
    finally:
        for pid in reversed(
            kernel_pids(SimpleNamespace(provisioner=SimpleNamespace(process=kernel)))
        ):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        kernel.wait()
    assert kernel_pids(SimpleNamespace(provisioner=None)) == []


def test_the_sandbox_reads_its_groups_count_and_otherwise_the_kernel_process():
    boxed = SimpleNamespace(cgroup=SimpleNamespace(cpu_seconds=lambda: 2.5))
    assert kernel_cpu_seconds(boxed) == 2.5
    plain = SimpleNamespace(provisioner=SimpleNamespace(process=SimpleNamespace(pid=os.getpid())))
    assert kernel_cpu_seconds(plain) > 0  # this test process has used some
    assert kernel_cpu_seconds(SimpleNamespace(provisioner=None)) is None
