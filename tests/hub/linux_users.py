"""Real Linux users for the hub tier: made with ``useradd``, each with a home, removed afterwards.

JupyterHub's LocalProcessSpawner runs each hub user's server as the Linux user of the same
name, in that user's home: the hub tier makes an instructor and a student that way, as an
administrator would, and takes them away again, stopping by PID any process of theirs
still running (none should be: the hub stops their servers as it stops).
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LinuxUser:
    """A user made for a test: its *name*, *uid* and *gid*, and its *home*."""

    name: str
    uid: int
    gid: int
    home: Path


def unique_name(role: str) -> str:
    """A user name no one on the machine has: ``wm<role>`` and six random hex digits.

    >>> name = unique_name("st")
    >>> name.startswith("wmst") and len(name) == 10
    True
    """
    while True:
        name = f"wm{role}{secrets.token_hex(3)}"
        try:
            pwd.getpwnam(name)
        except KeyError:
            return name


def add_user(name: str) -> LinuxUser:
    """Make the Linux user *name* with a home of its own (``useradd``: needs root)."""
    subprocess.run(
        ["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name],
        check=True,
        capture_output=True,
        text=True,
    )
    entry = pwd.getpwnam(name)
    return LinuxUser(name, entry.pw_uid, entry.pw_gid, Path(entry.pw_dir))


def processes_of(uid: int) -> list[int]:
    """The PIDs of the processes running as *uid*, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except FileNotFoundError:  # it ended while we looked
            continue
    return found


def remove_user(user: LinuxUser, grace_s: float = 10, settle_s: float = 30) -> list[int]:
    """Stop what still runs as *user* (by PID), then remove the user and its home.

    A stopping hub stops the users' servers, and they stop their kernels, in their own time:
    on a busy machine that takes seconds after the hub has exited. So what is still running
    after *settle_s* is what outlived the hub. Returns those PIDs, for the test to report.
    """
    settled = time.monotonic() + settle_s
    while processes_of(user.uid) and time.monotonic() < settled:
        time.sleep(0.2)
    left = processes_of(user.uid)
    for pid in left:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while processes_of(user.uid) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in processes_of(user.uid):
        _signal(pid, signal.SIGKILL)
    subprocess.run(["userdel", "--remove", user.name], capture_output=True, text=True)
    if user.home.exists():  # userdel leaves a home it did not make, or one in use
        shutil.rmtree(user.home, ignore_errors=True)
    return left


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def give(user: LinuxUser, path: Path) -> None:
    """Make *path* (a folder, everything in it) belong to *user*."""
    for folder, dirs, files in os.walk(path):
        os.chown(folder, user.uid, user.gid)
        for name in dirs + files:
            os.chown(os.path.join(folder, name), user.uid, user.gid, follow_symlinks=False)
