"""scripts/course_install.py: pip's lines turned into progress a learner can follow."""

from __future__ import annotations

import sys

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))

from course_install import LOG_EVERY, Progress, progress, reporter  # noqa: E402

PIP_LINES = [
    "Obtaining file:///repo",
    "  Installing build dependencies: started",
    "Requirement already satisfied: pandas>=2.2 in ./.venv/lib/python3.11/site-packages",
    "Collecting jupyterlab<5,>=4.2 (from windowmem==0.1.0)",
    "  Using cached jupyterlab-4.6.6-py3-none-any.whl.metadata (16 kB)",
    "Collecting nbgrader==0.9.6 (from windowmem==0.1.0)",
    "Installing collected packages: nbgrader, jupyterlab, windowmem",
    "Successfully installed jupyterlab-4.6.6 nbgrader-0.9.6 windowmem-0.1.0",
]


def test_progress_counts_packages_names_the_latest_and_follows_the_stages():
    assert list(progress(PIP_LINES)) == [
        Progress(1, "pandas", "fetching"),
        Progress(2, "jupyterlab", "fetching"),
        Progress(3, "nbgrader", "fetching"),
        Progress(3, "", "installing"),
        Progress(3, "", "installed"),
    ]
    assert Progress(2, "jupyterlab", "fetching").line() == "  fetching: 2 packages (jupyterlab)"


def test_a_log_gets_a_line_every_few_packages_and_every_stage(capsys):
    report = reporter(interactive=False)
    lines = [f"Collecting package{n}" for n in range(1, 2 * LOG_EVERY + 3)]
    for step in progress(
        [*lines, "Installing collected packages: a", "Successfully installed a-1"]
    ):
        report(step)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"  fetching: {LOG_EVERY} packages (package{LOG_EVERY})",
        f"  fetching: {2 * LOG_EVERY} packages (package{2 * LOG_EVERY})",
        "  installing: 1 package",
        "  installed: 1 package",
    ]


def test_a_terminal_gets_one_line_rewritten_in_place(capsys):
    report = reporter(interactive=True)
    for step in progress(PIP_LINES):
        report(step)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.endswith("  installed: 3 packages\n")
    assert "\r\033[K  fetching: 2 packages (jupyterlab)" in out


def test_the_docstring_examples_hold():
    import doctest

    import course_install

    assert doctest.testmod(course_install).failed == 0
