"""Execute one notebook with nbclient in this Python, from a folder; print the outcome as JSON.

Usage: ``python run_notebook.py NOTEBOOK CWD`` (run by the fresh venvs of the course tests,
so the kernel is that venv's Python). Prints ``{"error": null, "cell": null}`` when every cell
ran, or the first error's name, its cell's index and that cell's source. Standard library and
nbclient only: it must not import the tests or the repository.
"""

import json
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(path: str, cwd: str) -> dict:
    """Run the notebook at *path* from *cwd*; the outcome to print."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}}
    )
    try:
        client.execute()
    except CellExecutionError as error:
        failed = next(
            i
            for i, cell in enumerate(notebook.cells)
            if any(o.get("output_type") == "error" for o in cell.get("outputs", []))
        )
        return {"error": error.ename, "cell": failed, "source": notebook.cells[failed].source}
    return {"error": None, "cell": None}


if __name__ == "__main__":  # pytest's doctest collection imports this file too
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
