"""JupyterLab on the learner's working copy, on the start page, with the learner's configuration.

The learner's configuration (the course's ``jupyter/`` folder; ``learner_jupyter/`` in a
clone, whose README says why each setting is there) goes on ``JUPYTER_CONFIG_PATH``:
nbgrader's instructor tools and the Assignment List, which needs an exchange a self-study
machine does not have, are off, and the server logs warnings only. It goes on
``JUPYTER_PATH`` too, for its prebuilt lab extension (a cell executor that waits for the
kernel). The start page is the default URL, so the address JupyterLab prints (for machines
where no browser opens: SSH, WSL, a container) opens it, not the Launcher.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from windowmem.learner.content import START_PAGE


def _prepend(path: Path, existing: str | None) -> str:
    return os.pathsep.join([str(path), *([existing] if existing else [])])


def lab_command(work: Path, extra: Sequence[str], jupyter: str) -> list[str]:
    """The ``jupyter lab`` command line that serves *work* on the start page."""
    command = [
        jupyter,
        "lab",
        f"--ServerApp.root_dir={work}",
        f"--LabApp.default_url=/lab/tree/{START_PAGE}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # a container or CI runs as root; Jupyter refuses it unasked
    return command + list(extra)


def lab_environment(
    environ: Mapping[str, str], config: Path, python_path: Path | None = None
) -> dict[str, str]:
    """*environ* with the learner's Jupyter *config* on its paths (and *python_path*, if given)."""
    env = {
        **environ,
        "JUPYTER_CONFIG_PATH": _prepend(config, environ.get("JUPYTER_CONFIG_PATH")),
        "JUPYTER_PATH": _prepend(config, environ.get("JUPYTER_PATH")),
    }
    if python_path is not None:
        env["PYTHONPATH"] = _prepend(python_path, environ.get("PYTHONPATH"))
    return env


def trust(notebook: Path) -> None:
    """Sign *notebook* in this user's Jupyter notary, as ``jupyter trust`` does.

    Otherwise the server logs "Notebook ... is not trusted" for each copied lesson opened,
    until the learner's first save signs it anyway.
    """
    import nbformat
    from nbformat.sign import NotebookNotary

    NotebookNotary().sign(nbformat.read(notebook, as_version=4))


def find_jupyter() -> str | None:
    """The ``jupyter`` command beside this Python, or None when JupyterLab is not installed here."""
    return shutil.which("jupyter", path=str(Path(sys.executable).parent))


def opening_message(work: Path) -> str:
    """What the learner reads before JupyterLab's own lines."""
    return (
        f"setup: starting JupyterLab on your working copy, {work.name}/ (about 10 s).\n"
        "  It opens the start page in your browser; where none opens, open the address it\n"
        "  prints below. Your work stays in that folder; Ctrl+C twice stops JupyterLab."
    )
