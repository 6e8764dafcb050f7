"""A sandbox per student: the kernel runs with nothing of the grader's in reach.

Built from parts Debian keeps: bubblewrap (``bwrap``) for the namespaces and the file
system, util-linux ``setpriv`` to drop to an unprivileged user, and the cgroup v1
``memory`` and ``pids`` controllers for limits and for finding every process again.
The grader runs as root; for each student:

* :class:`StudentCgroup` makes a memory and a pids group with the student's limits;
  the kernel's launcher joins both before it execs bwrap, so everything the student's
  code starts is counted, limited and, at the end, killed and waited for;
* :func:`kernel_command` wraps the kernel's command line: new PID, network, IPC, UTS
  and cgroup namespaces (no other process visible, only a private loopback), a root
  file system made of read-only system folders, the Python installation and the
  ``windowmem`` package, a fresh tmpfs home whose assignment folder holds read-only
  copies of the student's own notebook(s) and the released data files, and a folder
  of IPC sockets through which the grader talks to the kernel (no TCP). ``setpriv``
  then drops to uid/gid 65534 with no capabilities and ``no_new_privs``.

Nothing else exists inside: not ``source/``, not ``--out``, not a gradebook, not
another student, not the repository, not the instructor's home. :func:`unavailable`
says why a machine cannot do this, so ``grade`` refuses instead of grading unsafely.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The unprivileged user and group the kernel runs as ("nobody" on Debian): it owns nothing.
SANDBOX_UID = 65534
SANDBOX_GID = 65534
#: Where the student's files appear inside the sandbox.
SANDBOX_HOME = "/home/student"
#: cgroup v1 hierarchies the grader needs, read-write.
CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")
#: Read-only system folders the kernel's Python needs (merged-/usr Debian: the rest are links).
SYSTEM_DIRS = ("/usr", "/etc/alternatives", "/etc/ssl/certs")
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/mime.types",
)
#: Packages the kernel must import (the course's library); only their folders are shown.
KERNEL_PACKAGES = ("windowmem",)
#: Launcher run by /bin/sh before bwrap: join the cgroups, set rlimits, then exec.
LAUNCHER = (
    'for group in "$1" "$2"; do echo $$ > "$group/cgroup.procs" || exit 125; done; '
    'ulimit -c 0; ulimit -n "$3"; ulimit -f "$4"; shift 4; exec "$@"'
)
#: Largest file the kernel may write, in 512-byte blocks (20 MiB; its own log included).
MAX_FILE_BLOCKS = 40960


@dataclass(frozen=True)
class SandboxLimits:
    """What one student's kernel may use: memory (MiB, tmpfs files included), tasks, files."""

    memory_mb: int = 1024
    pids: int = 128  # threads count: an idle ipykernel has about ten
    open_files: int = 1024
    tmpfs_mb: int = 256

    def describe(self) -> str:
        """One line for the log and the README.

        >>> SandboxLimits().describe()
        'memory 1024 MiB, 128 processes/threads, 1024 open files, 256 MiB of files'
        """
        return (
            f"memory {self.memory_mb} MiB, {self.pids} processes/threads, "
            f"{self.open_files} open files, {self.tmpfs_mb} MiB of files"
        )


def own_cgroup(controller: str) -> Path:
    """The cgroup v1 folder this process belongs to for *controller* (new groups go inside it)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
    raise FileNotFoundError(f"no cgroup v1 {controller} controller for this process")


def unavailable() -> str | None:
    """Why this machine cannot sandbox a kernel, or None when it can (checked for real)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux namespaces and cgroups; this is {sys.platform}"
    if os.geteuid() != 0:
        return "the sandbox needs root (to set up namespaces, cgroups and drop to an unprivileged user)"
    for tool, package in (("bwrap", "bubblewrap"), ("setpriv", "util-linux")):
        if shutil.which(tool) is None:
            return f"'{tool}' is not installed (apt-get install {package}, or bash .ci/system_packages.sh)"
    try:
        probe = StudentCgroup.create(f"probe-{os.getpid()}", SandboxLimits())
    except OSError as error:
        return f"cannot create a cgroup v1 memory and pids group ({error})"
    try:
        done = subprocess.run(
            kernel_command(
                ["/bin/true"], probe, SandboxLimits(), home_files=(), ipc_dir=None, assignment="x"
            ),
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not start a sandbox ({error})"
    finally:
        probe.remove()
    if done.returncode != 0:
        return (
            f"bubblewrap could not start a sandbox: {done.stderr.strip()[-300:] or done.returncode}"
        )
    return None


@dataclass(frozen=True)
class StudentCgroup:
    """A memory and a pids cgroup for one student's kernel."""

    name: str
    folders: tuple[Path, ...]  # one per controller, in CONTROLLERS order

    @classmethod
    def create(cls, name: str, limits: SandboxLimits) -> StudentCgroup:
        """Make (or empty and reuse) the groups for *name* and set *limits*."""
        folders = tuple(own_cgroup(c) / f"autograder-{name}" for c in CONTROLLERS)
        group = cls(name, folders)
        group.kill_all()
        for folder in folders:
            folder.mkdir(exist_ok=True)
        memory, pids = folders
        limit = str(limits.memory_mb * 1024 * 1024)
        (memory / "memory.limit_in_bytes").write_text(limit)
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():  # with swap accounting: no swapping past the limit either
            with contextlib.suppress(OSError):
                swap.write_text(limit)
        (pids / "pids.max").write_text(str(limits.pids))
        return group

    @property
    def memory(self) -> Path:
        return self.folders[0]

    @property
    def pids(self) -> Path:
        return self.folders[1]

    def processes(self) -> list[int]:
        """Every process still in the groups."""
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
        return sorted(found)

    def kill_all(self, wait: float = 10.0, grace: float = 0.0) -> list[int]:
        """SIGKILL every process in the groups until none is left; the pids that were killed.

        Processes exiting on their own within *grace* seconds are left to do so.
        Processes forking while this runs are caught on the next pass: the pids limit
        bounds how many there can be, and a killed process cannot fork.
        """
        settle = time.monotonic() + grace
        while self.processes() and time.monotonic() < settle:
            time.sleep(0.02)
        killed: set[int] = set()
        deadline = time.monotonic() + wait
        while True:
            left = self.processes()
            if not left:
                return sorted(killed)
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"processes {left[:10]} of sandbox {self.name} survived SIGKILL for {wait:g} s"
                )
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            time.sleep(0.01)

    def memory_peak_mb(self) -> float:
        """The most memory the group used, in MiB."""
        try:
            return int((self.memory / "memory.max_usage_in_bytes").read_text()) / 2**20
        except (OSError, ValueError):
            return 0.0

    def hit_memory_limit(self) -> bool:
        """True when the kernel ran into the memory limit (the OOM killer may have struck)."""
        try:
            control = (self.memory / "memory.oom_control").read_text()
            failcnt = int((self.memory / "memory.failcnt").read_text())
        except (OSError, ValueError):
            return False
        kills = [line.split()[1] for line in control.splitlines() if line.startswith("oom_kill ")]
        return failcnt > 0 or any(k != "0" for k in kills)

    def hit_pids_limit(self) -> bool:
        """True when a fork or thread was refused by the pids limit."""
        try:
            return int((self.pids / "pids.events").read_text().split()[-1]) > 0
        except (OSError, ValueError, IndexError):
            return False

    def remove(self) -> None:
        """Kill what is left, then remove the groups."""
        self.kill_all()
        for folder in self.folders:
            with contextlib.suppress(FileNotFoundError):
                folder.rmdir()


def package_folders(names: Sequence[str] = KERNEL_PACKAGES) -> list[Path]:
    """The folders the kernel imports *names* from (an editable install's ``src/``)."""
    folders = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folders.append(Path(spec.origin).resolve().parent)
    return folders


def python_folders() -> list[Path]:
    """The interpreter's installation and the venv, which the kernel runs from."""
    found: list[Path] = []
    for prefix in {sys.base_prefix, sys.prefix, str(Path(sys.executable).parent.parent)}:
        path = Path(prefix).resolve()
        if not any(path.is_relative_to(f) for f in found):
            found.append(path)
    return sorted(found)


def kernel_command(
    command: Sequence[str],
    cgroup: StudentCgroup,
    limits: SandboxLimits,
    *,
    home_files: Sequence[Path],
    ipc_dir: Path | None,
    assignment: str,
) -> list[str]:
    """*command* (the kernel's argv) wrapped to run inside the student's sandbox.

    *home_files* (files or folders) appear read-only in ``/home/student/<assignment>/``,
    the kernel's working folder; the rest of that folder is a private tmpfs. *ipc_dir*
    is bound read-write at its own path, for the connection file and the sockets.
    """
    work = f"{SANDBOX_HOME}/{assignment}"
    argv = ["/bin/sh", "-c", LAUNCHER, "sandbox", *map(str, cgroup.folders)]
    argv += [str(limits.open_files), str(MAX_FILE_BLOCKS)]
    argv += ["bwrap", "--die-with-parent", "--new-session"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup"]
    argv += ["--hostname", "sandbox"]
    for folder in SYSTEM_DIRS:
        argv += ["--ro-bind-try", folder, folder]
    for file in SYSTEM_FILES:
        argv += ["--ro-bind-try", file, file]
    for link in ("bin", "lib", "lib64", "sbin"):
        if Path("/", link).is_symlink():
            argv += ["--symlink", os.readlink(Path("/", link)), f"/{link}"]
        elif Path("/", link).is_dir():
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    size = str(limits.tmpfs_mb * 1024 * 1024)
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    shown = [*python_folders(), *package_folders()]
    if ipc_dir is not None:
        shown.append(Path(ipc_dir))
    for parent in sorted({a for f in shown for a in f.parents if a != Path("/")}):
        # bwrap makes missing mount points 0700: the unprivileged user must pass through them
        argv += ["--perms", "0755", "--dir", str(parent)]
    for installed in shown[: len(shown) - (ipc_dir is not None)]:
        argv += ["--ro-bind", str(installed), str(installed)]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "1777", "--size", size, "--tmpfs", SANDBOX_HOME]
    argv += ["--perms", "1777", "--dir", work]
    for path in home_files:
        argv += ["--ro-bind", str(path), f"{work}/{Path(path).name}"]
    if ipc_dir is not None:
        argv += ["--bind", str(ipc_dir), str(ipc_dir)]
    argv += ["--chdir", work, "--clearenv"]
    environment = {
        "HOME": SANDBOX_HOME,
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        # the same set and dict order of strings on every run: a re-run grades the same
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{SANDBOX_HOME}/.config/matplotlib",
        "TMPDIR": "/tmp",
    }
    for key, value in environment.items():
        argv += ["--setenv", key, value]
    argv += [
        "setpriv",
        f"--reuid={SANDBOX_UID}",
        f"--regid={SANDBOX_GID}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        *command,
    ]
    return argv
