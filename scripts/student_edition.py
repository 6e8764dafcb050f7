"""Build the student edition: a git repository with the course and nothing a student may not see.

Usage: ``python scripts/student_edition.py OUT_DIR``

OUT_DIR (new, or an empty folder) becomes a git repository with one commit holding, from
this repository's tracked files as they are in the working tree:

- the lessons and their self-checks (``course/``, without the authors' lesson kit
  ``course/README.md``), the student assignments (``release/``);
- windowmem without the grading's behaviour check (``src/windowmem/behaviour_check``, which
  the hidden tests run), and ``setup.py``, which builds it with the course as
  ``windowmem_course``;
- the learner's Jupyter configuration with its built lab extension (``learner_jupyter/``);
- the website's sources (``website/`` and the scripts that build it: ``make site`` is
  ``python scripts/build_site.py`` there), not a built site;
- the Binder / repo2docker environment (``binder/``);
- a ``pyproject.toml`` with the course and site extras only (no test stack, no
  ``autograder`` commands), a README for students and a ``.gitignore``.

Nothing else is taken: not ``source/`` (solutions, hidden tests, their support), not
``autograder/`` (the judge and its test support), not ``tests/``, ``benchmarks/``,
``verify/``. What is taken is chosen by name (:data:`TAKEN`), never by leaving things out,
and the result is searched for every solution and hidden-test marker before it is
committed. An instructor pushes OUT_DIR where students clone it, or points nbgitpuller
and Binder at it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The student README, written to the edition's README.md.
README = Path(__file__).with_name("student_readme.md")
#: Tracked paths taken into the edition: a folder (ending in /) or one file.
TAKEN = (
    "course/",
    "release/",
    "src/windowmem/",
    "learner_jupyter/",
    "website/",
    "binder/",
    "setup.py",
    "scripts/build_site.py",
    "scripts/site_live.py",
    "scripts/course_pages.py",
    "scripts/working_copy.py",
)
#: Paths under :data:`TAKEN` that are not a student's to have.
WITHHELD = (
    "course/README.md",  # the authors' lesson kit: how assignments and hidden tests are made
    "src/windowmem/behaviour_check/",  # run by the hidden tests: how a rebuild is graded
    "learner_jupyter/extension/",  # the lab extension's sources; its build is taken
)
#: Text that marks a solution or a hidden test in nbgrader's markup.
MARKERS = (
    "### BEGIN SOLUTION",
    "### END SOLUTION",
    "### BEGIN HIDDEN TESTS",
    "### END HIDDEN TESTS",
)
#: The edition's .gitignore: the learner's working copy and what builds leave.
GITIGNORE = """\
.venv/
__pycache__/
*.egg-info/
.ipynb_checkpoints/
build/
dist/
/_build/
/my_course/
"""
#: Who the edition's commit is by.
AUTHOR = ("windowmem course", "course@windowmem.invalid")


class EditionError(Exception):
    """The edition cannot be built as asked."""


def taken(path: str) -> bool:
    """Whether the tracked file *path* goes into the student edition.

    >>> taken("course/03_window_buffer_memory.ipynb"), taken("course/checks/lesson03.py")
    (True, True)
    >>> taken("source/lesson03_window_buffer/window_buffer.ipynb"), taken("autograder/cli.py")
    (False, False)
    >>> taken("course/README.md"), taken("src/windowmem/behaviour_check/block.py")
    (False, False)
    """

    def under(prefixes: tuple[str, ...]) -> bool:
        return any(path == p or (p.endswith("/") and path.startswith(p)) for p in prefixes)

    return under(TAKEN) and not under(WITHHELD)


def tracked_files(repo: Path = REPO) -> list[str]:
    """The files git tracks in *repo*, as paths relative to it."""
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=repo, check=True, capture_output=True
    ).stdout
    return sorted(p for p in out.decode().split("\0") if p)


def edition_pyproject(text: str) -> str:
    """This repository's pyproject.toml for students: no test extra, no grading commands, no tool config."""
    text = re.sub(r"(?ms)^test = \[\n.*?^\]\n", "", text)
    text = re.sub(r'(?m)^(autograder|validate-assignment) = ".*"\n', "", text)
    text = text.split("\n[tool.pytest.ini_options]", 1)[0].rstrip() + "\n"
    data = tomllib.loads(text)
    extras = data["project"]["optional-dependencies"]
    if "test" in extras or set(data["project"]["scripts"]) != {"windowmem", "windowmem-course"}:
        raise EditionError("pyproject.toml changed shape: update edition_pyproject()")
    if "autograder" in text:
        raise EditionError("the edition's pyproject.toml still names autograder")
    return text


def leaks(root: Path) -> list[str]:
    """Each file under *root* (outside .git) holding a solution or hidden-test marker."""
    found = []
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts or not path.is_file():
            continue
        data = path.read_bytes()
        found += [f"{path.relative_to(root)}: {m}" for m in MARKERS if m.encode() in data]
    return found


def _git(out: Path, *args: str) -> str:
    name, email = AUTHOR
    command = ["git", "-c", f"user.name={name}", "-c", f"user.email={email}", *args]
    return subprocess.run(command, cwd=out, check=True, capture_output=True, text=True).stdout


def build(out: Path, repo: Path = REPO) -> list[str]:
    """Write the student edition into *out* and commit it; return the files it holds."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise EditionError(f"{out} exists and is not an empty folder: give a new or empty one")
    if out.resolve().is_relative_to(repo.resolve()):
        raise EditionError(f"{out} is inside the repository: give a folder outside it")
    files = [p for p in tracked_files(repo) if taken(p) and (repo / p).is_file()]
    out.mkdir(parents=True, exist_ok=True)
    for name in files:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, target)
    written = {
        "pyproject.toml": edition_pyproject((repo / "pyproject.toml").read_text(encoding="utf-8")),
        "README.md": README.read_text(encoding="utf-8"),
        ".gitignore": GITIGNORE,
    }
    for name, text in written.items():
        (out / name).write_text(text, encoding="utf-8")
    found = leaks(out)
    if found:
        raise EditionError(
            "the edition would carry solutions or hidden tests:\n" + "\n".join(found)
        )
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()
    _git(out, "init", "-q", "-b", "main")
    _git(out, "add", "-A")
    _git(
        out,
        "commit",
        "-q",
        "-m",
        f"The windowmem course, student edition (from {commit or 'a working tree'})",
    )
    return sorted([*files, *written])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("out", type=Path, metavar="OUT_DIR", help="a new or empty folder")
    args = parser.parse_args(argv)
    try:
        files = build(args.out)
    except EditionError as error:
        print(f"student_edition: {error}", file=sys.stderr)
        return 2
    print(f"student edition: {len(files)} files committed in {args.out} (a git repository)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
