"""Re-execute course notebooks in place, so the outputs stored in git are today's.

Usage: ``python scripts/execute_notebooks.py [course | NOTEBOOK.ipynb ...]``

A folder means every notebook in it and in its subfolders: ``course`` is the start page,
the lessons, and the glossary and reference pages of ``course/reference/``.

Each notebook runs top to bottom in a fresh kernel of this Python (its directory as the
working directory), the same way nbval re-runs it in ``tests/test_notebooks.py``. Saved
widget state (``metadata.widgets``), widget model ids and per-cell execution timestamps
are left out: the first two point at kernel objects that are gone once the kernel stops
(JupyterLab hides a widget output whose model id is empty, instead of reporting a missing
model), timestamps change on every run, and all of them only churn the diff. A notebook whose cell raises is left untouched and the
script exits 1, naming it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Generous per-cell limit: the slowest lesson cell (tokenising a long conversation) takes seconds.
CELL_TIMEOUT_S = 600


def notebooks_in(targets: list[str]) -> list[Path]:
    """The .ipynb files named by *targets* (files, or folders searched with their subfolders),
    sorted, checkpoints left out."""
    found: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.ipynb")))
        elif path.suffix == ".ipynb" and path.is_file():
            found.append(path)
        else:
            raise SystemExit(f"{target}: not a notebook or a folder of notebooks")
    return [p for p in found if ".ipynb_checkpoints" not in p.parts]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def strip_run_state(notebook) -> None:
    """Drop saved widget state, widget model ids and execution timestamps: none is the lesson's content."""
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("widgets", None)
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                view["model_id"] = ""


def execute_in_place(path: Path) -> float:
    """Run *path* top to bottom in a fresh kernel and save it; the seconds it took."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        record_timing=False,
        # One print can reach the notebook as two stream outputs when the kernel flushes
        # between its writes; a reader would see one line split over two output blocks.
        coalesce_streams=True,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    client.execute()
    strip_run_state(notebook)
    nbformat.write(notebook, path)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "targets",
        nargs="*",
        default=[str(REPO / "course")],
        help="notebooks or folders (default: course/)",
    )
    args = parser.parse_args(argv)
    # The kernel spec says "python": make that this interpreter, whatever PATH the caller had.
    os.environ["PATH"] = os.pathsep.join(
        [str(Path(sys.executable).parent), os.environ.get("PATH", "")]
    )
    failed = []
    for path in notebooks_in(args.targets):
        try:
            seconds = execute_in_place(path)
        except Exception as exc:  # a failing cell: report it and go on with the others
            failed.append(path)
            print(
                f"FAILED {path}: {type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
            )
            continue
        print(f"executed {path} in {seconds:.1f} s")
    if failed:
        print(f"{len(failed)} notebook(s) failed; their files were not changed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
