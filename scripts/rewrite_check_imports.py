"""Point the lessons' imports of their self-checks at the installed package: ``windowmem_course.checks``.

Usage: ``python scripts/rewrite_check_imports.py [--check]``

The self-checks live in ``course/checks`` and are built into the wheel as
``windowmem_course.checks`` (``setup.py``), so a downloaded lesson runs wherever windowmem is
installed only if it imports them under that name. This rewrites every
``from checks<.module> import ...`` line in the code cells of ``course/**/*.ipynb`` and in
``course/checks/*.py`` to ``from windowmem_course.checks<.module> import ...``; nothing else
in a file changes (a notebook is written back in the same JSON layout it was read in).

It is idempotent: run it again after merging lessons written against the old name
(``from checks.lesson03 import check`` still works in a clone, where ``course/`` is on the
kernels' path). ``--check`` changes nothing and exits 1 naming the files left to rewrite.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
#: The self-checks' package name wherever windowmem is installed.
PACKAGE = "windowmem_course.checks"
#: A line that imports from the old top-level name, with its indent and submodule kept.
OLD_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from checks(?P<module>\.\w+)* import ", re.M)


def rewrite_source(text: str) -> str:
    """*text* with each ``from checks... import`` line importing from :data:`PACKAGE`.

    >>> rewrite_source("import json\\nfrom checks.lesson03 import check\\n")
    'import json\\nfrom windowmem_course.checks.lesson03 import check\\n'
    >>> rewrite_source("    from checks import page")
    '    from windowmem_course.checks import page'
    >>> rewrite_source(rewrite_source("from checks.page import verify_page"))
    'from windowmem_course.checks.page import verify_page'
    """

    def new(match: re.Match[str]) -> str:
        module = match.group(0)[len(match.group("indent")) + len("from checks") : -len(" import ")]
        return f"{match.group('indent')}from {PACKAGE}{module} import "

    return OLD_IMPORT.sub(new, text)


def _json_text(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def rewrite_notebook(text: str) -> str:
    """The notebook *text* with its code cells' check imports rewritten, in the same layout."""
    notebook = json.loads(text)
    if _json_text(notebook) != text:
        raise ValueError(
            "its JSON is not laid out as nbformat writes it (indent 1); "
            "save it once in JupyterLab or with nbformat, then run this again"
        )
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        joined = "".join(source) if isinstance(source, list) else source
        changed = rewrite_source(joined)
        if changed != joined:
            cell["source"] = (
                changed.splitlines(keepends=True) if isinstance(source, list) else changed
            )
    return _json_text(notebook)


def targets(course: Path = COURSE) -> list[Path]:
    """The files whose check imports are rewritten: the course's notebooks and check modules."""
    notebooks = [p for p in course.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts]
    return sorted(notebooks) + sorted((course / "checks").glob("*.py"))


def rewritten(path: Path) -> str:
    """What *path* holds once rewritten."""
    text = path.read_text(encoding="utf-8")
    try:
        return rewrite_notebook(text) if path.suffix == ".ipynb" else rewrite_source(text)
    except ValueError as error:
        raise SystemExit(f"rewrite_check_imports: {path}: {error}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    parser.add_argument("--course", type=Path, default=COURSE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    stale = []
    for path in targets(args.course):
        new = rewritten(path)
        if new != path.read_text(encoding="utf-8"):
            stale.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "to rewrite" if args.check else "rewritten"
    for path in stale:
        print(f"{verb}: {path.relative_to(args.course.parent)}")
    if not stale:
        print(f"every check import already names {PACKAGE}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
