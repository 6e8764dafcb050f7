"""The kernel's command line: isolated namespaces, no privileges."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from autograder.sandbox import bubblewrap, cgroup, cgroup_v1, cgroup_v2, limits
from tests.conftest import REPO_ROOT
from tests.fixtures.grading import needs_sandbox


def test_kernel_command_isolates_and_drops_privileges(tmp_path):
    group = cgroup_v1.V1Cgroup("x", (tmp_path / "memory", tmp_path / "pids"))
    notebook = tmp_path / "nb.ipynb"
    argv = bubblewrap.kernel_command(
        ["python", "-m", "ipykernel_launcher"],
        group,
        limits.SandboxLimits(),
        home_files=[notebook],
        ipc_dir=tmp_path / "ipc",
        assignment="hw",
        privileged=True,
    )
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--clearenv"):
        assert flag in argv
    assert argv[4:7] == ["2", str(tmp_path / "memory"), str(tmp_path / "pids")]
    assert argv[argv.index("--reuid=65534") - 1] == "setpriv" and "--no-new-privs" in argv
    assert "--unshare-user" not in argv
    assert ["--ro-bind", str(notebook), "/home/student/hw/nb.ipynb"] == argv[
        argv.index(str(notebook)) - 1 : argv.index(str(notebook)) + 2
    ]
    shown = {argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")}
    assert not any(Path(p).is_relative_to(REPO_ROOT / "source") for p in shown)
    assert str(REPO_ROOT) not in shown and "/root" not in shown and "/work" not in shown


def test_without_root_bwrap_maps_the_grader_to_the_sandbox_user(tmp_path):
    group = cgroup_v2.V2Cgroup("x", (tmp_path / "autograder-x",))
    argv = bubblewrap.kernel_command(
        ["python"],
        group,
        limits.SandboxLimits(),
        home_files=(),
        ipc_dir=None,
        assignment="hw",
        privileged=False,
    )
    assert argv[4:6] == ["1", str(tmp_path / "autograder-x")]
    assert argv[argv.index("--uid") + 1] == "65534" and argv[argv.index("--gid") + 1] == "65534"
    assert "--unshare-user" in argv and "--disable-userns" in argv
    assert "setpriv" not in argv and argv[-2:] == ["--", "python"]
    assert argv[argv.index("/dev/shm") - 5 : argv.index("/dev/shm")] == [
        "--perms",
        "1777",
        "--size",
        str(256 * 2**20),
        "--tmpfs",
    ]


@needs_sandbox
def test_the_kernel_starts_without_a_debugger_it_cannot_write_back():
    """debugpy is installed (ipykernel depends on it) but the sandboxed kernel never loads it."""
    assert importlib.util.find_spec("debugpy") is not None  # else this test shows nothing
    code = (
        "import ipykernel.debugger as d, sys, pathlib\n"
        "print(d._is_debugpy_available, 'debugpy.server' in sys.modules)\n"
        "folder = pathlib.Path(d.__file__).parents[1] / 'debugpy'\n"
        "print(sorted(p.name for p in folder.iterdir()))\n"
        "(folder / '__init__.py').write_text('')\n"
    )
    group = cgroup.StudentCgroup.create(f"test-debugpy-{os.getpid()}", limits.SandboxLimits())
    try:
        done = subprocess.run(
            bubblewrap.kernel_command(
                [sys.executable, "-c", code],
                group,
                limits.SandboxLimits(),
                home_files=(),
                ipc_dir=None,
                assignment="hw",
            ),
            capture_output=True,
            text=True,
            timeout=600,  # a ceiling: the cgroup v2 tier runs this in a guest 10x slower
        )
    finally:
        group.remove()
    assert done.stdout.splitlines() == ["False False", "[]"], done.stderr
    assert "PermissionError" in done.stderr  # the empty folder is not the student's to fill
