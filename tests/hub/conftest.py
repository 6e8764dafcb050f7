"""The hub tier's class: a JupyterHub, an instructor and a student, the exchange and the student edition.

One fixture sets up what an instructor's hub has (``docs/jupyterhub.md``): two Linux users
with homes, the instructor's copy of the course repository, nbgrader's exchange as a
folder everyone can write to, the student edition as a git repository the students'
servers clone from, and the course's ``jupyterhub_config.py`` running. It needs root (it
makes users), Chromium, git, sudo and configurable-http-proxy; outside CI it skips,
saying what is missing. Everything it starts is stopped by PID, the users are removed
and its folders deleted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser.lab_harness import CHROMIUM
from tests.conftest import REPO_ROOT, skip_or_fail
from tests.hub.git_server import GitServer, serve
from tests.hub.hub_environment import hub_environment
from tests.hub.hub_process import PROXY, Hub, start_hub
from tests.hub.linux_users import LinuxUser, add_user, give, remove_user, unique_name

#: A JupyterHub config file, run by the hub, not imported: --doctest-modules must not collect it.
collect_ignore = ["hub_test_config.py"]

#: What the instructor's copy of the course holds: what release, collect and grade read.
COURSE_PARTS = ("source", "release", "nbgrader_config.py")
#: The student edition's builder (issue 37, item 1).
EDITION_SCRIPT = REPO_ROOT / "scripts" / "student_edition.py"


@dataclass(frozen=True)
class ClassOnHub:
    """What the test drives: the hub, its two users and the class's folders."""

    hub: Hub
    #: The hub's interpreter (every user's server and kernels run it), with the course installed.
    python: Path
    instructor: LinuxUser
    student: LinuxUser
    exchange: Path
    #: The student edition's git repository, its URL on the loopback git server, its branch.
    edition: Path
    edition_url: str
    edition_branch: str
    #: The instructor's copy of the course repository, in their home.
    course: Path
    #: ``sudo -n <this>`` runs ``python -m autograder`` as root (cgroup v1 needs it).
    grader_as_root: Path
    #: Seconds each part of the set-up took.
    timings: dict[str, float]


def _missing() -> str | None:
    """What this machine lacks for the hub tier, or None."""
    if os.geteuid() != 0:
        return "the hub tier makes Linux users and runs JupyterHub as root: run it as root"
    for tool in ("useradd", "git", "sudo"):
        if shutil.which(tool) is None:
            return f"{tool} is missing: run `bash .ci/system_packages.sh`"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing: run `bash .ci/system_packages.sh`"
    if not PROXY.exists():
        return f"configurable-http-proxy is missing at {PROXY}: run `bash .ci/hub_proxy.sh`"
    return None


def build_edition(out: Path) -> str:
    """Build the student edition into *out* with the course's command; its branch."""
    if not EDITION_SCRIPT.exists():
        pytest.fail(
            f"{EDITION_SCRIPT.relative_to(REPO_ROOT)} is missing: the hub tier pulls the student "
            "edition it builds (issue 37, item 1); merge the branch that adds it"
        )
    built = subprocess.run(
        [sys.executable, str(EDITION_SCRIPT), str(out)], capture_output=True, text=True
    )
    assert built.returncode == 0, f"student_edition.py failed:\n{built.stdout}\n{built.stderr}"
    branch = subprocess.run(
        ["git", "-C", str(out), "symbolic-ref", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return branch


def write_grader_as_root(folder: Path, python: Path, instructor: LinuxUser) -> tuple[Path, Path]:
    """A root-owned ``autograder`` launcher and the sudoers rule that lets *instructor* run it.

    On a cgroup v1 machine only root can make a student's memory and pids groups
    (``autograder/sandbox/cgroup_v1.py``), so a hub's administrator lets the instructor run
    the grader as root (docs/jupyterhub.md, which says why that is as much as root itself).
    Returns (launcher, rule).
    """
    bin_dir = python.parent
    launcher = folder / "autograder-as-root"
    launcher.write_text(
        "#!/bin/sh\n"
        "# python -m autograder as root, from the course's environment (nbgrader needs its bin/ on PATH)\n"
        f'PATH="{bin_dir}:/usr/local/bin:/usr/bin:/bin" exec "{bin_dir / "python"}" -m autograder "$@"\n'
    )
    launcher.chmod(0o755)
    rule = Path("/etc/sudoers.d") / f"windowmem-hub-{instructor.name}"
    rule.write_text(f"{instructor.name} ALL=(root) NOPASSWD: {launcher}\n")
    rule.chmod(0o440)
    return launcher, rule


@contextlib.contextmanager
def _stopped_after(server: GitServer) -> Iterator[GitServer]:
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def class_on_hub():
    """The hub running with an instructor and a student; all of it removed afterwards."""
    missing = _missing()
    if missing:
        skip_or_fail(missing)
    timings: dict[str, float] = {}
    scratch = Path(tempfile.mkdtemp(prefix="windowmem-hub-"))
    scratch.chmod(0o755)
    users: list[LinuxUser] = []
    rule: Path | None = None
    hub: Hub | None = None
    stack = contextlib.ExitStack()
    try:
        started = time.monotonic()
        python = stack.enter_context(hub_environment())
        timings["hub environment installed"] = time.monotonic() - started

        started = time.monotonic()
        edition = scratch / "git" / "windowmem-student"
        edition.parent.mkdir()
        branch = build_edition(edition)
        git = stack.enter_context(_stopped_after(serve(edition.parent)))
        timings["student edition built and served"] = time.monotonic() - started

        started = time.monotonic()
        instructor = add_user(unique_name("in"))
        users.append(instructor)
        student = add_user(unique_name("st"))
        users.append(student)
        course = instructor.home / "windowmem"
        course.mkdir()
        for part in COURSE_PARTS:
            source = REPO_ROOT / part
            if source.is_dir():
                shutil.copytree(
                    source, course / part, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_*")
                )
            else:
                shutil.copy2(source, course / part)
        give(instructor, course)
        exchange = scratch / "exchange"
        exchange.mkdir()
        exchange.chmod(0o777)
        grader, rule = write_grader_as_root(scratch, python, instructor)
        timings["users and folders made"] = time.monotonic() - started

        state = scratch / "hub"
        state.mkdir(mode=0o700)
        hub = start_hub(state, python, [instructor.name], [student.name], exchange)
        timings["hub started"] = hub.started_s
        yield ClassOnHub(
            hub,
            python,
            instructor,
            student,
            exchange,
            edition,
            git.url_of(edition),
            branch,
            course,
            grader,
            timings,
        )
    finally:
        if hub is not None:
            hub.stop()
        left = {user.name: remove_user(user) for user in users}
        if rule is not None:
            rule.unlink(missing_ok=True)
        stack.close()  # git daemon stopped, the environment's lock released
        shutil.rmtree(scratch, ignore_errors=True)
        still_running = {name: pids for name, pids in left.items() if pids}
        assert not still_running, f"processes outlived the hub and were stopped: {still_running}"
