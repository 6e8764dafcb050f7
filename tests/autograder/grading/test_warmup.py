"""The forkserver's warm-up: feedback templates compiled once per process, not per export."""

from __future__ import annotations

import re
import subprocess
import sys

from autograder.grading import warmup

CELL_ID = r"cell-id=[0-9a-f-]+"


def test_a_second_feedback_export_compiles_no_template():
    compiled = dict(warmup.TEMPLATE_CACHE.compiled)
    assert compiled  # the import rendered the feedback once
    first = warmup.render_feedback_once()
    assert warmup.TEMPLATE_CACHE.compiled == compiled  # every template came from the cache
    warmup.TEMPLATE_CACHE.compiled.clear()
    try:
        # compiled afresh: the same page (each new notebook's cells get new ids)
        assert re.sub(CELL_ID, "", warmup.render_feedback_once()) == re.sub(CELL_ID, "", first)
    finally:
        warmup.TEMPLATE_CACHE.compiled.update(compiled)


SCRATCH_CHECK = """
import sqlalchemy
from autograder.grading.worker import _scratch_gradebook_writes
_scratch_gradebook_writes()
with sqlalchemy.create_engine("sqlite:///" + {path!r}).connect() as connection:
    print(connection.exec_driver_sql("PRAGMA synchronous").scalar(),
          connection.exec_driver_sql("PRAGMA journal_mode").scalar())
"""


def test_a_worker_writes_its_scratch_gradebook_without_waiting_for_the_disk(tmp_path):
    # in a fresh interpreter: the setting holds for every engine of the process it runs in
    code = SCRATCH_CHECK.format(path=str(tmp_path / "gradebook.db"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "memory"]


WARMED_IMPORTS = """
import sys
import autograder.grading.warmup
print(" ".join(m for m in ("IPython", "ipykernel.kernelspec", "sqlalchemy.dialects.sqlite")
               if m not in sys.modules))
"""


def test_the_server_has_imported_what_a_worker_s_kernel_lookup_and_gradebook_import():
    # in a fresh interpreter: what the forkserver holds after its preload, before any worker
    done = subprocess.run(
        [sys.executable, "-c", WARMED_IMPORTS], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [], f"a worker would still import: {done.stdout}"


WARMED_TOKENIZERS = """
import autograder.grading.warmup
from autograder.judge import support
from windowmem import tokens
import nbgrader.api
print(support.qwen_tokenizer.cache_info().currsize, tokens._qwen_tokenizer.cache_info().currsize,
      nbgrader.api.Grade.__mapper__.configured)
"""


def test_the_server_has_built_the_tokenizers_and_the_gradebook_mappers():
    # in a fresh interpreter: a worker forked from the server finds both vocabularies loaded
    # and nbgrader's mapped classes configured
    done = subprocess.run(
        [sys.executable, "-c", WARMED_TOKENIZERS], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["1", "1", "True"]


WARMED_LEXERS = """
import sys
import nbformat
import autograder.grading.warmup
from autograder.records.feedback_page import FeedbackExporter
notebook = nbformat.v4.new_notebook(
    cells=[nbformat.v4.new_code_cell("%time x = [1, 2]")],
    # what the kernel writes into every notebook it runs (ipykernel 7)
    metadata={"language_info": {"name": "python", "pygments_lexer": "ipython3"}},
)
before = set(sys.modules)
FeedbackExporter().from_notebook_node(notebook, resources={"nbgrader": {
    "notebook": "n", "score": 0.0, "max_score": 1.0, "late_penalty": 0.0}})
print(" ".join(sorted(m for m in set(sys.modules) - before if "lexer" in m)))
"""


def test_the_server_has_imported_the_lexers_a_graded_notebook_s_page_highlights_with():
    # in a fresh interpreter: a worker's feedback page highlights graded notebooks as ipython3
    done = subprocess.run(
        [sys.executable, "-c", WARMED_LEXERS], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [], f"a worker would still import: {done.stdout}"
