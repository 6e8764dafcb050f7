"""Where students' cgroup v2 groups go: root's own folder at the top, or a subtree delegated to the grader.

cgroup v2 lets a user manage a subtree that is *delegated* to it: its folder and that
folder's ``cgroup.procs``, ``cgroup.subtree_control`` and ``cgroup.threads`` belong to the
user (systemd's ``Delegate=``, ``systemd-run --user --scope -p Delegate=yes``, or the
group a hub's spawner hands a container). Two kernel rules shape what the grader does:

* a group's controllers are offered to its children only when listed in its
  ``cgroup.subtree_control``, and
* a group that offers memory to its children may hold no process of its own
  ("no internal processes"; the tree's root is exempt).

So as root the grader makes ``autograder/`` at the top of the tree and offers memory and
pids there. Without root it uses the group it was started in, when that group is
delegated: it first moves itself into a leaf of its own (``autograder-grader-<pid>``),
then offers memory and pids in the delegated group, and makes each student's group
beside that leaf. Its children (workers, the forkserver, a later ``grade`` from the same
test run) start in the leaf and find the delegated group as the leaf's parent.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from autograder.sandbox.cgroup import CgroupUnavailable
from autograder.sandbox.cgroup_hierarchy import NEEDED, own_v2_folder

#: Root's folder for students' groups, at the top of the v2 tree.
ROOT_FOLDER = "autograder"
#: The leaf a grader moves itself into inside a delegated group.
LEAF_PREFIX = "autograder-grader-"
#: What a delegation must give the user, file by file.
DELEGATED_FILES = ("cgroup.procs", "cgroup.subtree_control")
#: What to arrange, said in every refusal.
ARRANGE = (
    "run grade as root, or in a cgroup v2 subtree delegated to you: with systemd, "
    "`systemd-run --user --scope -p Delegate=yes -- python -m autograder grade ...`; "
    "on a hub, ask its administrator to delegate the container's cgroup (memory and pids)"
)


def student_parent() -> Path:
    """The folder to make students' groups in, offering memory and pids (set up on first use)."""
    mount, own = own_v2_folder()
    if os.geteuid() == 0:
        try:
            return _root_parent(mount)
        except OSError as error:  # e.g. in a container, whose top may hold processes
            root_error = error
    else:
        root_error = None
    try:
        return _delegated_parent(own)
    except CgroupUnavailable as error:
        if root_error is None:
            raise
        raise CgroupUnavailable(
            f"as root, could not set up {mount / ROOT_FOLDER} ({root_error}); and {error}"
        ) from None


def _root_parent(mount: Path) -> Path:
    """``autograder/`` at the top of the tree, offering memory and pids to its children."""
    offer(mount)
    folder = mount / ROOT_FOLDER
    folder.mkdir(exist_ok=True)
    offer(folder)
    return folder


def delegated_group(own: Path) -> Path:
    """The delegated group for a process in *own*: *own*, or its parent when *own* is a grader's leaf.

    >>> str(delegated_group(Path("/sys/fs/cgroup/u.scope/autograder-grader-42")))
    '/sys/fs/cgroup/u.scope'
    >>> str(delegated_group(Path("/sys/fs/cgroup/u.scope")))
    '/sys/fs/cgroup/u.scope'
    """
    return own.parent if own.name.startswith(LEAF_PREFIX) else own


def _delegated_parent(own: Path) -> Path:
    """The group delegated to this user, with this process moved into a leaf of it."""
    group = delegated_group(own)
    unwritable = [name for name in ("", *DELEGATED_FILES) if not os.access(group / name, os.W_OK)]
    if unwritable:
        raise CgroupUnavailable(
            f"this process's cgroup {group} is not delegated to user {os.geteuid()} "
            f"(cannot write {', '.join(n or 'the folder' for n in unwritable)}); {ARRANGE}"
        )
    offered = (group / "cgroup.controllers").read_text().split()
    missing = [c for c in NEEDED if c not in offered]
    if missing:
        raise CgroupUnavailable(
            f"the cgroup {group} delegated to you lacks the {' and '.join(missing)} "
            f"controller(s) (its parent must offer them; with systemd, Delegate=memory pids); "
            f"{ARRANGE}"
        )
    if own == group:
        leaf = group / f"{LEAF_PREFIX}{os.getpid()}"
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
    try:
        offer(group)
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise
        held = (group / "cgroup.procs").read_text().split()
        raise CgroupUnavailable(
            f"the cgroup {group} delegated to you also holds other processes ({' '.join(held[:10])}), "
            "so it cannot offer memory and pids to students' groups; start the grader in a "
            "delegated scope of its own, e.g. `systemd-run --user --scope -p Delegate=yes -- "
            "python -m autograder grade ...`"
        ) from None
    return group


def offer(group: Path) -> None:
    """List memory and pids in *group*'s ``cgroup.subtree_control`` (so its children get them)."""
    control = group / "cgroup.subtree_control"
    missing = [c for c in NEEDED if c not in control.read_text().split()]
    if missing:
        control.write_text(" ".join(f"+{c}" for c in missing))
