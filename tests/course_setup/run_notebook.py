"""Execute one notebook with nbclient in this Python, from a folder; print the outcome as JSON.

Usage: ``python run_notebook.py NOTEBOOK CWD`` (run by the fresh venvs of the course tests,
so the kernel is that venv's Python). Prints ``{"error": null}`` when every cell ran, or the
first error's name, its cell's index and its cells run before it. Standard library and nbclient only:
it must not import the tests or the repository.
"""

import json
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

path, cwd = sys.argv[1], sys.argv[2]
notebook = nbformat.read(path, as_version=4)
client = NotebookClient(
    notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}}
)
outcome = {"error": None, "cell": None}
try:
    client.execute()
except CellExecutionError as error:
    failed = next(
        i
        for i, cell in enumerate(notebook.cells)
        if any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    )
    outcome = {"error": error.ename, "cell": failed, "source": notebook.cells[failed].source}
print(json.dumps(outcome))
