"""Keep Jupyter's tools quick to start in this environment (run by ``make`` after every install).

``import nbformat`` (and so ``nbgrader``, ``jupyter lab``, nbval) imports jsonschema's
format checkers, which import ``rfc3987_syntax`` to check the ``iri`` string format; that
package compiles an Earley parser at import, 1-5 s in every process. Nothing in this
course validates ``iri`` strings, and jsonschema already skips a checker whose import
fails. This script writes one ``.pth`` line into the environment's site-packages that
marks the module unavailable at interpreter start, so every tool skips it.

A reinstall of the packages leaves the file alone, and a fresh environment gets it from
``make``. ``--undo`` removes it. The autograder does the same in its own processes
(``autograder/startup.py``) so it is fast even where this step never ran.

    python scripts/fast_jupyter_startup.py [--undo]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

PTH = Path(sysconfig.get_paths()["purelib"]) / "windowmem_fast_jupyter_startup.pth"
#: A .pth line starting with "import" is executed by site.py at every interpreter start.
LINE = "import sys; sys.modules.setdefault('rfc3987_syntax', None)  # windowmem: see scripts/fast_jupyter_startup.py\n"


def import_seconds(code: str = "import nbformat") -> float:
    """Wall seconds for a fresh interpreter of this environment to run *code*."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--undo", action="store_true", help="remove the .pth file")
    args = parser.parse_args(argv)
    if args.undo:
        PTH.unlink(missing_ok=True)
        print(f"removed {PTH}")
        return 0
    # what the environment costs without the line, whether or not it is installed already
    before = import_seconds("import sys; sys.modules.pop('rfc3987_syntax', None); import nbformat")
    PTH.write_text(LINE)
    after = import_seconds()
    print(f"wrote {PTH}: import nbformat {before:.2f} s -> {after:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
