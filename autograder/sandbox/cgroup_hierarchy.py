"""Which cgroup hierarchy this machine mounts (v1 controllers or the v2 unified tree), read from /proc.

The grader needs a ``memory`` and a ``pids`` controller. A machine mounts them either as
cgroup v1 hierarchies (one folder per controller, as on Debian 10 and this project's
build machine) or in the single cgroup v2 tree (Debian 11+, Ubuntu 21.10+, RHEL 9+,
Fedora 31+, WSL). A "hybrid" machine mounts both, its v2 tree without controllers:
there the v1 controllers are the ones to use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: The controllers every student's group needs.
NEEDED = ("memory", "pids")


@dataclass(frozen=True)
class Mount:
    """One cgroup file system mount: its version, where it is, and (v1) its controllers."""

    version: int
    path: Path
    options: frozenset[str] = frozenset()  # v1: the controllers it holds (and other options)


def parse_mounts(mountinfo: str) -> list[Mount]:
    """The cgroup mounts listed in a ``/proc/self/mountinfo`` text.

    >>> text = '''30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
    ... 31 25 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
    ... 32 25 0:28 / /proc rw - proc proc rw'''
    >>> [(m.version, str(m.path), "memory" in m.options) for m in parse_mounts(text)]
    [(1, '/sys/fs/cgroup/memory', True), (2, '/sys/fs/cgroup/unified', False)]
    """
    mounts = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        path = Path(fields[4].replace("\\040", " "))
        options = frozenset(tail[2].split(","))
        mounts.append(Mount(1 if tail[0] == "cgroup" else 2, path, options))
    return mounts


def parse_own_cgroups(text: str) -> dict[str, str]:
    """A process's cgroup paths from ``/proc/<pid>/cgroup``, by v1 controller; v2's under ``""``.

    >>> parse_own_cgroups("4:memory:/a\\n8:pids:/\\n1:name=systemd:/b\\n0::/user.slice/x.scope")
    {'memory': '/a', 'pids': '/', 'name=systemd': '/b', '': '/user.slice/x.scope'}
    """
    found = {}
    for line in text.splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            found[name] = path
    return found


def v1_controller_folders(mounts: list[Mount], own: dict[str, str]) -> dict[str, Path]:
    """The v1 folder this process belongs to for each of :data:`NEEDED` that is mounted."""
    folders = {}
    for controller in NEEDED:
        for mount in mounts:
            if mount.version == 1 and controller in mount.options and controller in own:
                folders[controller] = mount.path / own[controller].lstrip("/")
    return folders


def v2_mount(mounts: list[Mount]) -> Path | None:
    """The v2 tree, when it offers every controller in :data:`NEEDED` at its root."""
    for mount in mounts:
        if mount.version == 2:
            try:
                offered = (mount.path / "cgroup.controllers").read_text().split()
            except OSError:
                continue
            if all(c in offered for c in NEEDED):
                return mount.path
    return None


def version() -> int | None:
    """1 or 2: the hierarchy whose memory and pids controllers this process can use; None: neither."""
    mounts = parse_mounts(Path("/proc/self/mountinfo").read_text())
    own = parse_own_cgroups(Path("/proc/self/cgroup").read_text())
    if len(v1_controller_folders(mounts, own)) == len(NEEDED):
        return 1
    if v2_mount(mounts) is not None:
        return 2
    return None


def own_v1_folder(controller: str) -> Path:
    """The cgroup v1 folder this process belongs to for *controller* (new groups go inside it)."""
    mounts = parse_mounts(Path("/proc/self/mountinfo").read_text())
    own = parse_own_cgroups(Path("/proc/self/cgroup").read_text())
    folder = v1_controller_folders(mounts, own).get(controller)
    if folder is None:
        raise FileNotFoundError(f"no cgroup v1 {controller} controller for this process")
    return folder


def own_v2_folder() -> tuple[Path, Path]:
    """The v2 tree's mount and the folder of this process's own group in it."""
    mounts = parse_mounts(Path("/proc/self/mountinfo").read_text())
    mount = v2_mount(mounts)
    if mount is None:
        raise FileNotFoundError("no cgroup v2 tree with the memory and pids controllers")
    path = parse_own_cgroups(Path("/proc/self/cgroup").read_text()).get("", "/")
    return mount, mount / path.lstrip("/")
