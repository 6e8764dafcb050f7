"""A sandbox per student: the kernel runs with nothing of the grader's in reach.

Built from parts Debian keeps: bubblewrap (``bwrap``) for the namespaces and the file
system, util-linux ``setpriv`` to drop to an unprivileged user, and the cgroup
``memory`` and ``pids`` controllers (v1, or the v2 tree) for limits and for finding every
process again. For each student:

* :class:`StudentCgroup` makes the student's group(s) with its limits; the kernel's
  launcher joins them before it execs bwrap, so everything the student's code starts is
  counted, limited and, at the end, killed and waited for;
* :func:`kernel_command` wraps the kernel's command line: new PID, network, IPC, UTS
  and cgroup namespaces (no other process visible, only a private loopback), a root
  file system made of read-only system folders, the Python installation and the
  ``windowmem`` package, a fresh tmpfs home whose assignment folder holds read-only
  copies of the student's own notebook(s) and the released data files, a private
  ``/dev/shm`` (for ``multiprocessing``), and a folder of IPC sockets through which the
  grader talks to the kernel (no TCP). As root, ``setpriv`` then drops to uid/gid 65534
  with no capabilities and ``no_new_privs``; without root (a delegated cgroup v2
  subtree), bwrap's own user namespace maps the grader's user to uid/gid 65534, with no
  capabilities, ``no_new_privs`` and no further user namespaces.

Nothing else exists inside: not ``source/``, not ``--out``, not a gradebook, not
another student, not the repository, not the instructor's home. :func:`unavailable`
says why a machine cannot do this, so ``grade`` refuses instead of grading unsafely.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from autograder.sandbox.cgroup import StudentCgroup
from autograder.sandbox.limits import SandboxLimits

#: The unprivileged user and group the kernel runs as ("nobody" on Debian): it owns nothing.
SANDBOX_UID = 65534
SANDBOX_GID = 65534
#: Where the student's files appear inside the sandbox.
SANDBOX_HOME = "/home/student"
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
#: Installed packages the kernel is not shown (an empty folder covers each). ipykernel
#: imports debugpy at every start, to offer a debugger no grading client asks for: about
#: 0.05 of the 0.25 to 0.30 CPU seconds a sandboxed kernel takes to start, paid by every
#: student. Without it, ipykernel (7.4) starts with its debugger off (its ``kernel_info``
#: no longer lists ``debugger`` among its features) and runs cells the same way.
HIDDEN_PACKAGES = ("debugpy",)
#: Launcher run by /bin/sh before bwrap: join the N cgroup folders, set rlimits, then exec.
#: Its arguments: N, the N folders, the open-file limit, the file-size limit, the command.
LAUNCHER = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; '
    'shift; n=$((n - 1)); done; ulimit -c 0; ulimit -n "$1"; ulimit -f "$2"; shift 2; exec "$@"'
)
#: Largest file the kernel may write, in 512-byte blocks (20 MiB; its own log included).
MAX_FILE_BLOCKS = 40960


def unavailable() -> str | None:
    """Why this machine cannot sandbox a kernel, or None when it can (checked for real)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux namespaces and cgroups; this is {sys.platform}"
    for tool, package in (("bwrap", "bubblewrap"), ("setpriv", "util-linux")):
        if shutil.which(tool) is None:
            return f"'{tool}' is not installed (apt-get install {package}, or bash .ci/system_packages.sh)"
    try:
        probe = StudentCgroup.create(f"probe-{os.getpid()}", SandboxLimits())
    except OSError as error:
        return f"cannot create a cgroup for a student ({error})"
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


def library_mounts(library: Sequence[Path]) -> list[str]:
    """bwrap arguments that cover windowmem's folder and show only *library* (and data) in it."""
    from autograder.sandbox.library_reach import package_root, shown_files

    root = package_root()
    if root is None:
        return []
    files = [f for f in shown_files(library) if f.is_relative_to(root)]
    argv = ["--perms", "0755", "--size", str(64 * 1024 * 1024), "--tmpfs", str(root)]
    folders = sorted({a for f in files for a in f.parents if a.is_relative_to(root) and a != root})
    for folder in folders:
        argv += ["--perms", "0755", "--dir", str(folder)]
    for file in files:
        argv += ["--ro-bind", str(file), str(file)]
    if (root / "data").is_dir():
        argv += ["--ro-bind", str(root / "data"), str(root / "data")]
    return argv


def kernel_command(
    command: Sequence[str],
    cgroup: StudentCgroup,
    limits: SandboxLimits,
    *,
    home_files: Sequence[Path],
    ipc_dir: Path | None,
    assignment: str,
    library: Sequence[Path] | None = None,
    privileged: bool | None = None,
) -> list[str]:
    """*command* (the kernel's argv) wrapped to run inside the student's sandbox.

    *home_files* (files or folders) appear read-only in ``/home/student/<assignment>/``,
    the kernel's working folder; the rest of that folder is a private tmpfs. *ipc_dir*
    is bound read-write at its own path, for the connection file and the sockets. With
    *library* (see :mod:`autograder.sandbox.library_reach`), windowmem's folder is covered
    and only those of its files (and its data folder) are shown in it. *privileged* (by
    default: whether the grader is root) drops to the sandbox user with ``setpriv``;
    otherwise bwrap's user namespace maps the grader's user to it.
    """
    if privileged is None:
        privileged = os.geteuid() == 0
    work = f"{SANDBOX_HOME}/{assignment}"
    argv = ["/bin/sh", "-c", LAUNCHER, "sandbox", str(len(cgroup.folders))]
    argv += [*map(str, cgroup.folders), str(limits.open_files), str(MAX_FILE_BLOCKS)]
    argv += ["bwrap", "--die-with-parent", "--new-session"]
    if not privileged:
        argv += ["--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID)]
        argv += ["--gid", str(SANDBOX_GID)]
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
    for hidden in package_folders(HIDDEN_PACKAGES):
        if any(hidden.is_relative_to(f) for f in shown):
            argv += ["--perms", "0555", "--size", "4096", "--tmpfs", str(hidden)]
    if library is not None:
        argv += library_mounts(library)
    argv += ["--proc", "/proc", "--dev", "/dev"]
    # multiprocessing's locks and queues live in /dev/shm; its pages count against the
    # student's memory limit like any other, and the size caps it as /tmp is capped
    argv += ["--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
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
    if not privileged:  # already the sandbox user, with no capabilities (bwrap's doing)
        return [*argv, "--", *command]
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
