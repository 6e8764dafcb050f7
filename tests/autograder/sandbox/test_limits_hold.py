"""The sandbox's limits, for real, on whichever cgroup hierarchy this machine mounts.

Each test starts the sandbox's Python in a fresh student group, as a kernel is started,
and reads the group's own figures. The same tests run on this project's cgroup v1
machines and, in ``make verify-cgroup2``, in a cgroup v2 guest as root and as a user
with a delegated subtree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

from autograder.sandbox import bubblewrap
from autograder.sandbox.cgroup import StudentCgroup
from autograder.sandbox.limits import SandboxLimits
from tests.fixtures.grading import needs_sandbox

pytestmark = needs_sandbox

#: Small limits, so the bombs hit them quickly even in a slow guest.
SMALL = SandboxLimits(memory_mb=200, pids=40)


@contextlib.contextmanager
def student(name: str, limits: SandboxLimits = SMALL) -> Iterator[StudentCgroup]:
    """A fresh student group, removed (every process killed) afterwards."""
    group = StudentCgroup.create(f"test-{name}-{os.getpid()}", limits)
    try:
        yield group
    finally:
        group.remove()


def sandboxed(group: StudentCgroup, code: str, limits: SandboxLimits = SMALL) -> list[str]:
    """The sandbox's command line that runs *code* in the sandbox's Python, in *group*."""
    return bubblewrap.kernel_command(
        [sys.executable, "-c", code], group, limits, home_files=(), ipc_dir=None, assignment="hw"
    )


def run(group: StudentCgroup, code: str, limits: SandboxLimits = SMALL):
    return subprocess.run(
        sandboxed(group, code, limits), capture_output=True, text=True, timeout=600
    )


def test_the_machine_has_a_hierarchy_the_grader_drives():
    with student("version") as group:
        assert group.version in (1, 2)
        assert all(f.is_dir() for f in group.folders)


def test_a_memory_bomb_is_stopped_and_reported():
    code = "hog = []\nwhile True:\n    hog.append(b'x' * (16 << 20))\n"
    with student("memory") as group:
        done = run(group, code)
        assert done.returncode != 0  # killed by the OOM killer (or MemoryError)
        assert group.hit_memory_limit()
        assert 100 < group.memory_peak_mb() <= SMALL.memory_mb + 1
        group.kill_all(grace=1.0)  # as the worker does: a dying sandbox may take a moment
        assert group.processes() == []


def test_a_fork_bomb_is_refused_and_leaves_nothing_behind():
    code = (
        "import subprocess\nkids = []\n"
        "for _ in range(200):\n"
        "    try:\n"
        "        kids.append(subprocess.Popen(['sleep', '600'], start_new_session=True))\n"
        "    except OSError:\n"
        "        break\n"
        "print(len(kids), flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    with student("forks") as group:
        process = subprocess.Popen(sandboxed(group, code), stdout=subprocess.PIPE, text=True)
        try:
            started = process.stdout.readline()  # type: ignore[union-attr]
            assert 0 < int(started) < SMALL.pids
            assert group.hit_pids_limit()
            assert len(group.processes()) >= int(started)
            killed = group.kill_all()
            assert len(killed) >= int(started) and group.processes() == []
        finally:
            process.kill()
            process.wait()
        assert process.returncode != 0


def test_the_time_limits_count_cpu_not_sleep():
    code = "import sys, time\nprint('go', flush=True)\nsys.stdin.readline()\n{}\ntime.sleep(600)\n"
    for work, busy in (
        ("time.sleep(2)", False),
        ("t = time.process_time()\nwhile time.process_time() - t < 1.5: pass", True),
    ):
        with student("cpu") as group:
            process = subprocess.Popen(
                sandboxed(group, code.format(work)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                process.stdout.readline()  # type: ignore[union-attr]
                start = group.cpu_seconds()
                process.stdin.write("\n")  # type: ignore[union-attr]
                process.stdin.flush()  # type: ignore[union-attr]
                time.sleep(1.0 if not busy else 0.1)
                deadline = time.monotonic() + 120
                while busy and group.cpu_seconds() - start < 1.4 and time.monotonic() < deadline:
                    time.sleep(0.1)
                used = group.cpu_seconds() - start
            finally:
                process.kill()
                process.wait()
            assert (used >= 1.4) if busy else (used < 0.5), (work, used)


def test_other_students_are_untouched_by_a_bomb():
    bomb = "hog = []\nwhile True:\n    hog.append(b'x' * (16 << 20))\n"
    honest = "import sys\nprint(sum(range(10**6)), flush=True)\nsys.stdin.readline()\nprint('still here')\n"
    with student("victim") as victim, student("bomber") as bomber:
        process = subprocess.Popen(
            sandboxed(victim, honest), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert process.stdout.readline().strip() == str(sum(range(10**6)))  # type: ignore[union-attr]
            assert run(bomber, bomb).returncode != 0 and bomber.hit_memory_limit()
            assert bomber.kill_all() == [] or bomber.processes() == []
            out, _ = process.communicate("\n", timeout=120)
        finally:
            process.kill()
            process.wait()
        assert out.strip() == "still here" and not victim.hit_memory_limit()


def test_multiprocessing_pool_runs_inside_the_sandbox():
    code = (
        "import multiprocessing as mp\n"
        "if __name__ == '__main__':\n"
        "    with mp.Pool(2) as pool:\n"
        "        print(pool.map(abs, [-1, -2, -3]))\n"
        "    print(open('/proc/self/mountinfo').read().count(' /dev/shm '))\n"
    )
    with student("pool", SandboxLimits()) as group:
        done = run(group, code, SandboxLimits())
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[1,", "2,", "3]", "1"]


def test_shared_memory_counts_against_the_memory_limit():
    code = (
        "from multiprocessing import shared_memory\n"
        "blocks = []\n"
        "while True:\n"
        "    block = shared_memory.SharedMemory(create=True, size=16 << 20)\n"
        "    block.buf[:] = b'x' * (16 << 20)\n"
        "    blocks.append(block)\n"
    )
    limits = SandboxLimits(memory_mb=200, pids=40, tmpfs_mb=1024)
    with student("shm", limits) as group:
        done = run(group, code, limits)
        assert done.returncode != 0
        assert group.hit_memory_limit(), done.stderr[-2000:]


def test_the_sandbox_user_has_no_privileges():
    code = (
        "import os\nstatus = open('/proc/self/status').read()\n"
        "fields = dict(l.split(':', 1) for l in status.splitlines())\n"
        "print(os.getuid(), os.getgid(), fields['CapEff'].strip(), fields['NoNewPrivs'].strip())\n"
    )
    with student("privileges") as group:
        done = run(group, code)
    assert done.stdout.split() == ["65534", "65534", "0000000000000000", "1"], done.stderr
