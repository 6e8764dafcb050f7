"""Start, sandbox and stop the student's kernel (in the worker process).

:class:`SandboxedKernelManager` is jupyter_client's kernel manager with the kernel's
command wrapped by :func:`autograder.sandbox.bubblewrap.kernel_command` and its channels on IPC
sockets in a private folder (a kernel in its own network namespace cannot reach TCP
loopback ports). Kernels are started ahead of time by :func:`prestart_kernel`, so one
boots while nbgrader sanitizes the notebook.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient.util import run_sync
from traitlets import Int, List, Unicode

from autograder.sandbox.bubblewrap import SANDBOX_GID, SANDBOX_UID, kernel_command
from autograder.sandbox.cgroup import StudentCgroup, backend
from autograder.sandbox.limits import SandboxLimits

#: Kernels started ahead of time by :func:`prestart_kernel`, taken by the next execution.
_PRESTARTED: list[AsyncKernelManager] = []
#: What nbgrader's Execute passes to a Python kernel.
KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]
#: Seconds to wait for one kernel_info reply, and for its idle status on IOPub, before asking again.
READY_POLL = 1.0


class ReadyClient(AsyncKernelClient):
    """jupyter_client's async client, ready as soon as the kernel shows it is.

    jupyter_client's ``wait_for_ready`` ends by reading IOPub until nothing comes for 0.2 s,
    a fixed 0.2 s per student. A kernel publishes ``status: idle`` for each request once it
    has answered it, so waiting for the idle of our own ``kernel_info`` request proves the
    same thing (IOPub connected, everything published before it read) without the wait.
    An idle that never comes (IOPub not subscribed yet) means asking again, as jupyter_client does.
    """

    async def _ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            msg_id = self.kernel_info()
            try:
                reply = await self._async_recv_reply(msg_id, timeout=READY_POLL)
                await self._idle_after(msg_id, min(READY_POLL, deadline - time.monotonic()))
            except (TimeoutError, Empty):
                if not await self._async_is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info") from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds") from None
                continue
            self._handle_kernel_info_reply(reply)
            return

    async def _idle_after(self, msg_id: str, timeout: float) -> None:
        """Read IOPub up to the kernel's idle status for *msg_id* (``Empty`` if none comes in time)."""
        end = time.monotonic() + max(timeout, 0.0)
        while True:
            message = await self.iopub_channel.get_msg(timeout=max(end - time.monotonic(), 0.0))
            if (
                message.get("parent_header", {}).get("msg_id") == msg_id
                and message.get("msg_type") == "status"
                and message.get("content", {}).get("execution_state") == "idle"
            ):
                return

    wait_for_ready = _ready


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel inside the student's sandbox, talked to over IPC sockets."""

    cgroup_name = Unicode(help="The student's cgroup, made by the parent").tag(config=True)
    cgroup_folders = List(Unicode(), help="Its folders (v1: memory and pids; v2: one)").tag(
        config=True
    )
    cgroup_version = Int(1, help="The cgroup version of its folders (1 or 2)").tag(config=True)
    library_files = List(
        Unicode(),
        None,
        allow_none=True,
        help="windowmem's files the kernel is shown (None: the whole package)",
    ).tag(config=True)
    home_files = List(Unicode(), help="Files shown read-only in the kernel's folder").tag(
        config=True
    )
    assignment = Unicode("assignment", help="Name of the kernel's folder").tag(config=True)
    sockets_root = Unicode(
        "", help="Folder to make the socket folder in (empty: the system's temp folder)"
    ).tag(config=True)
    memory_mb = Int(SandboxLimits.memory_mb).tag(config=True)
    pids = Int(SandboxLimits.pids).tag(config=True)
    open_files = Int(SandboxLimits.open_files).tag(config=True)
    tmpfs_mb = Int(SandboxLimits.tmpfs_mb).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.ipc_dir = Path(
            tempfile.mkdtemp(prefix="autograder-ipc-", dir=self.sockets_root or None)
        )
        if os.geteuid() == 0:  # the kernel creates its sockets here (else: bwrap maps us to it)
            os.chown(self.ipc_dir, SANDBOX_UID, SANDBOX_GID)
        self.transport = "ipc"
        self.ip = str(self.ipc_dir / "kernel")
        self.connection_file = str(self.ipc_dir / "kernel.json")

    @property
    def cgroup(self) -> StudentCgroup:
        folders = tuple(Path(f) for f in self.cgroup_folders)
        return backend(self.cgroup_version)(self.cgroup_name, folders)

    @property
    def limits(self) -> SandboxLimits:
        return SandboxLimits(self.memory_mb, self.pids, self.open_files, self.tmpfs_mb)

    def format_kernel_cmd(self, extra_arguments=None):
        command = super().format_kernel_cmd(extra_arguments)
        return kernel_command(
            command,
            self.cgroup,
            self.limits,
            home_files=[Path(p) for p in self.home_files],
            library=None if self.library_files is None else [Path(p) for p in self.library_files],
            ipc_dir=self.ipc_dir,
            assignment=self.assignment,
        )

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        if os.geteuid() == 0:  # 0600: readable by the kernel only
            os.chown(self.connection_file, SANDBOX_UID, SANDBOX_GID)

    async def _async_signal_kernel(self, signum: int) -> None:
        # bwrap puts the kernel in a session of its own: a process-group signal would stop at
        # bwrap. Signal the student's processes in the cgroup instead (not bwrap itself).
        if signum == signal.SIGKILL:
            self.cgroup.kill_all()
            return
        for pid in self.cgroup.processes():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() != "bwrap":
                    os.kill(pid, signum)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart)
        if not restart:
            shutil.rmtree(self.ipc_dir, ignore_errors=True)


#: The longest path a Unix socket may have on Linux (``sun_path`` holds 108 bytes with its NUL).
SOCKET_PATH_MAX = 107
#: What a kernel's longest socket path adds to the run's folder: its own folder, a socket name.
SOCKET_PATH_TAIL = len("/autograder-ipc-12345678/kernel-5")


def make_sockets_root(temp: str | None = None) -> Path:
    """The run's folder for its kernels' socket folders, named for this process (the grader).

    In the system's temp folder (*temp*, else ``tempfile.gettempdir()``), or in ``/tmp``
    where that is too long for a socket's path: a kernel that cannot make its sockets
    would fail every student.
    """
    base = temp or tempfile.gettempdir()
    name = f"autograder-kernels-{os.getpid()}-12345678"
    if len(os.path.join(base, name)) + SOCKET_PATH_TAIL > SOCKET_PATH_MAX:
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix=f"autograder-kernels-{os.getpid()}-", dir=base))


def prestart_kernel(
    manager_class: type[AsyncKernelManager], config, cwd: str | None = None
) -> int | None:
    """Start a kernel now, so it boots while nbgrader sanitizes the notebook; the next run uses it.

    Returns the kernel's process group. Outside a sandbox the kernel moves to the
    notebook's folder before the first cell (nbgrader recreates that folder, so it
    cannot be the kernel's starting directory).
    """
    manager = manager_class(kernel_name="python3", config=config)
    run_sync(manager.start_kernel)(extra_arguments=KERNEL_ARGUMENTS, cwd=cwd)
    _PRESTARTED.append(manager)
    return process_group(manager)


def take_prestarted(kernel_name: str) -> AsyncKernelManager | None:
    """The kernel started ahead of time for *kernel_name*, if any (it is then the caller's)."""
    for manager in _PRESTARTED:
        if manager.kernel_name == kernel_name:
            _PRESTARTED.remove(manager)
            return manager
    return None


def shut_down_prestarted() -> None:
    """Stop kernels started ahead of time that no execution took (grading failed before running)."""
    while _PRESTARTED:
        run_sync(_PRESTARTED.pop().shutdown_kernel)(now=True)


def process_group(manager: AsyncKernelManager) -> int | None:
    """The kernel's process group (its launcher's), for a last-resort kill."""
    provisioner = manager.provisioner
    return getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)
