"""Install this project with one extra into the running venv, saying what it does and how far it got.

Usage: ``.venv/bin/python scripts/course_install.py EXTRA`` (``make course`` runs it with
``course``; ``make site`` with ``site``, ``make test`` with ``test``).

pip runs without ``-q``, its lines read here and turned into one progress line (rewritten
in place on a terminal, one line per 25 packages in a log); what pip says on stderr,
warnings and errors, goes through unchanged, and if pip fails, its last lines are printed.
Then ``scripts/fast_jupyter_startup.py`` runs, as before.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: What each extra costs on a first install, measured on the project's 2-core machine.
ESTIMATES = {
    "course": "about 1 to 2 minutes and 600 MB the first time",
    "site": "about 2 minutes and 650 MB the first time",
    "test": "about 4 minutes and 1.1 GB the first time",
}
#: A pip line that names one more package being fetched or found.
PACKAGE = re.compile(r"^(?:Collecting|Requirement already satisfied:) (?P<name>[A-Za-z0-9._-]+)")
#: Every how many packages a log without a terminal gets a progress line.
LOG_EVERY = 25


@dataclass(frozen=True)
class Progress:
    """How far pip has got: *packages* seen so far, the *latest* one, and the *stage*."""

    packages: int
    latest: str
    stage: str

    def line(self) -> str:
        """``  fetching: 42 packages (jupyterlab)``."""
        latest = f" ({self.latest})" if self.latest else ""
        plural = "" if self.packages == 1 else "s"
        return f"  {self.stage}: {self.packages} package{plural}{latest}"


def progress(lines: Iterable[str]) -> Iterator[Progress]:
    """The progress each of pip's stdout *lines* shows, one Progress per line that changes it.

    >>> [p.line() for p in progress(["Collecting pandas>=2.2", "  Using cached x.whl",
    ...     "Installing collected packages: a, b", "Successfully installed a-1 b-2"])]
    ['  fetching: 1 package (pandas)', '  installing: 2 packages', '  installed: 2 packages']
    """
    seen = 0
    for line in lines:
        found = PACKAGE.match(line)
        if found:
            seen += 1
            yield Progress(seen, found["name"], "fetching")
        elif line.startswith("Installing collected packages:"):
            # The names pip is about to install: the count to show from here on (pip
            # fetches some packages without a "Collecting" line of their own).
            names = line.partition(":")[2].split(",")
            yield Progress(len(names), "", "installing")
        elif line.startswith("Successfully installed"):
            yield Progress(len(line.split()) - 2, "", "installed")


def _remembered(stream: Iterable[str], last: deque[str]) -> Iterator[str]:
    """Each line of *stream* without its newline, the latest ones kept in *last*."""
    for line in stream:
        last.append(line.rstrip())
        yield line.rstrip()


def pip_install(extra: str, say_progress: Callable[[Progress], None]) -> None:
    """``pip install -e .[extra]``, reporting Progress to *say_progress*; exits 1 if pip fails."""
    command = [sys.executable, "-m", "pip", "install", "--progress-bar", "off", "-e"]
    command.append(f".[{extra}]")
    # setuptools' "Editable installation" notice is about a layout this project has on
    # purpose (windowmem under src/, autograder at the top); it is not the learner's to act on.
    env = {**os.environ, "PYTHONWARNINGS": "ignore:Editable installation"}
    last: deque[str] = deque(maxlen=30)
    with subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, text=True, env=env, bufsize=1
    ) as pip:
        for step in progress(_remembered(pip.stdout or [], last)):
            say_progress(step)
    if pip.returncode != 0:
        print("\n".join(["", "pip failed; its last lines:", *last]), file=sys.stderr)
        raise SystemExit(1)


def reporter(interactive: bool) -> Callable[[Progress], None]:
    """A function that prints Progress: in place on a terminal, now and then in a log."""
    shown = {"packages": 0}

    def report(step: Progress) -> None:
        if interactive:
            print(f"\r\033[K{step.line()}", end="" if step.stage != "installed" else "\n")
        elif step.stage != "fetching" or step.packages - shown["packages"] >= LOG_EVERY:
            shown["packages"] = step.packages
            print(step.line(), flush=True)

    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extra", choices=sorted(ESTIMATES), help="which extra to install")
    args = parser.parse_args(argv)
    started = time.monotonic()
    print(f"setup: installing the {args.extra} packages into .venv ({ESTIMATES[args.extra]}).")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--upgrade", "pip"], cwd=REPO, check=True
    )
    pip_install(args.extra, reporter(sys.stdout.isatty()))
    print("setup: making Jupyter start faster (a few seconds).")
    subprocess.run([sys.executable, str(REPO / "scripts" / "fast_jupyter_startup.py")], check=True)
    print(f"setup: done in {time.monotonic() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
