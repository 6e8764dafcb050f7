"""The kernel's command line: isolated namespaces, no privileges."""

from __future__ import annotations

from pathlib import Path

from autograder.sandbox import bubblewrap, cgroup, limits
from tests.conftest import REPO_ROOT


def test_kernel_command_isolates_and_drops_privileges(tmp_path):
    group = cgroup.StudentCgroup("x", (tmp_path / "memory", tmp_path / "pids"))
    notebook = tmp_path / "nb.ipynb"
    argv = bubblewrap.kernel_command(
        ["python", "-m", "ipykernel_launcher"],
        group,
        limits.SandboxLimits(),
        home_files=[notebook],
        ipc_dir=tmp_path / "ipc",
        assignment="hw",
    )
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--clearenv"):
        assert flag in argv
    assert argv[argv.index("--reuid=65534") - 1] == "setpriv" and "--no-new-privs" in argv
    assert ["--ro-bind", str(notebook), "/home/student/hw/nb.ipynb"] == argv[
        argv.index(str(notebook)) - 1 : argv.index(str(notebook)) + 2
    ]
    shown = {argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind")}
    assert not any(Path(p).is_relative_to(REPO_ROOT / "source") for p in shown)
    assert str(REPO_ROOT) not in shown and "/root" not in shown and "/work" not in shown
