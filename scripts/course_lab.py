"""Open the learner's working copy of the course in JupyterLab, on the start page, quietly.

Usage: ``.venv/bin/python scripts/course_lab.py [--work DIR] [JUPYTER LAB OPTIONS...]``
(``make course`` runs it; default ``my_course``).

It brings the working copy up to date (``scripts/working_copy.py``), then replaces itself
with ``jupyter lab`` serving that folder, with:

- ``learner_jupyter/`` on ``JUPYTER_CONFIG_PATH``: nbgrader's instructor tools (formgrader,
  Create Assignment, the course list) and the Assignment List, which needs an exchange a
  self-study machine does not have, are off, and the server logs warnings only;
- ``course/`` on ``PYTHONPATH``, so a lesson's ``from checks.lesson03 import check`` finds
  the clone's self-checks;
- the start page as the default URL, so the address JupyterLab prints (for machines where
  no browser opens: SSH, WSL, a container) opens the start page, not the Launcher.

``learner_jupyter/README.md`` says why each of its settings is there. The notebooks it
copies are signed as trusted (they are the course's own outputs): otherwise the server
logs "Notebook ... is not trusted" for each one opened, until the learner's first save
signs it anyway.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import working_copy  # noqa: E402
from course_pages import START_PAGE  # noqa: E402

#: The learner's Jupyter configuration, shipped with the course.
LEARNER_CONFIG = REPO / "learner_jupyter"


def _prepend(path: Path, existing: str | None) -> str:
    return os.pathsep.join([str(path), *([existing] if existing else [])])


def lab_command(work: Path, extra: list[str], jupyter: str) -> list[str]:
    """The ``jupyter lab`` command line that serves *work* on the start page."""
    command = [
        jupyter,
        "lab",
        f"--ServerApp.root_dir={work}",
        f"--LabApp.default_url=/lab/tree/{START_PAGE.name}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # a container or CI runs as root; Jupyter refuses it unasked
    return command + extra


def lab_environment(environ: dict[str, str]) -> dict[str, str]:
    """*environ* with the learner's Jupyter configuration and the clone's checks on the paths."""
    return {
        **environ,
        "JUPYTER_CONFIG_PATH": _prepend(LEARNER_CONFIG, environ.get("JUPYTER_CONFIG_PATH")),
        # Its data path too: the prebuilt extension in learner_jupyter/labextensions.
        "JUPYTER_PATH": _prepend(LEARNER_CONFIG, environ.get("JUPYTER_PATH")),
        "PYTHONPATH": _prepend(REPO / "course", environ.get("PYTHONPATH")),
    }


def trust(notebook: Path) -> None:
    """Sign *notebook* in this user's Jupyter notary, as ``jupyter trust`` does."""
    import nbformat
    from nbformat.sign import NotebookNotary

    NotebookNotary().sign(nbformat.read(notebook, as_version=4))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=working_copy.DEFAULT_WORK)
    args, extra = parser.parse_known_args(argv)
    work = args.work.resolve()
    for line in working_copy.report(working_copy.update(work, trust=trust), work):
        print(line)
    jupyter = shutil.which("jupyter", path=str(Path(sys.executable).parent))
    if jupyter is None:
        print(
            f"setup: no jupyter beside {sys.executable}: run make clean-venv, then make course",
            file=sys.stderr,
        )
        return 1
    print(
        f"setup: starting JupyterLab on your working copy, {work.name}/ (about 10 s).\n"
        "  It opens the start page in your browser; where none opens, open the address it\n"
        "  prints below. Your work stays in that folder; Ctrl+C twice stops JupyterLab.",
        flush=True,
    )
    command = lab_command(work, extra, jupyter)
    os.execve(command[0], command, lab_environment(dict(os.environ)))
    return 0  # not reached: exec replaces this process


if __name__ == "__main__":
    raise SystemExit(main())
