"""Pay the one-off costs of nbgrader's converters once, in the forkserver, not in every worker.

Workers are forked from a server that imported this module, so they start with nbgrader,
nbclient and the HTML feedback exporter already imported, and its Markdown renderer and
syntax highlighter already built: a first feedback export in a fresh process costs about
2 s more than the next one. Each exporter builds its own Jinja environment, which would
compile the feedback templates again in every worker; a bytecode cache shared by every
environment of the process (filled here, inherited by each fork) compiles them once. The
changes of :mod:`autograder.grading.quick_nbgrader` are made here too, so every worker has them.

Two more first uses are paid here (:func:`find_kernel_and_open_gradebook_once`): jupyter_client's
kernel spec lookup imports IPython (for its folder) and ipykernel (for the native kernel),
and the first SQLite engine imports SQLAlchemy's SQLite dialect. Every worker did both:
measured over three alternating pairs of runs, a worker's CPU time fell from about 0.50 s to
0.455 s a student once the server does them.

The gradebook's SQLAlchemy mappers are configured here (:func:`configure_gradebook_mappers`),
and the judge's tokenizers are built here too (:func:`build_the_judges_tokenizers`): the hidden
tests of the lessons that count tokens call windowmem's ``count_text`` and their own
``qwen_tokenizer()``, and each loads Qwen's vocabulary (about half a second) on first use,
in every worker. The profile of a lesson 3 student put the two loads at more than half of
the judge's time; built once here, every worker inherits them.
"""

from __future__ import annotations

import nbformat
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from jupyter_client.manager import AsyncKernelManager  # noqa: F401
from nbclient import NotebookClient  # noqa: F401
from nbconvert.exporters import TemplateExporter
from nbgrader.converters import Autograde, GenerateFeedback  # noqa: F401 - imported to be inherited
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from autograder.grading import cap_output, guarded_execute, notebook_rows  # noqa: F401
from autograder.grading.quick_nbgrader import quicken
from autograder.records import hide_hidden_tests  # noqa: F401
from autograder.records.feedback_page import FeedbackExporter


class SharedTemplateCache(BytecodeCache):
    """Compiled Jinja templates kept in memory, keyed by template and source checksum."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


TEMPLATE_CACHE = SharedTemplateCache()
_create_environment = TemplateExporter._create_environment


def _environment_with_cache(self):
    environment = _create_environment(self)
    environment.bytecode_cache = TEMPLATE_CACHE
    return environment


TemplateExporter._create_environment = _environment_with_cache  # type: ignore[method-assign]
quicken()  # one engine per gradebook, nbgrader's metadata schema checked once: see its module


def render_feedback_once() -> str:
    """Export a two-cell notebook the way GenerateFeedback does; the HTML, for checking."""
    config = Config()
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = FeedbackExporter(config=converter.config)
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Warm-up\nSome *Markdown* with `code`."),
            nbformat.v4.new_code_cell(
                "print('warm')\nx = [1, 2]",
                outputs=[nbformat.v4.new_output("stream", text="warm\n")],
            ),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            # as the kernel writes it into every graded notebook: its ipython3 lexer imports
            # pygments' HTML, markup and Lisp lexers, about 0.3 s a worker paid again
            "language_info": {"name": "python", "pygments_lexer": "ipython3"},
        },
    )
    resources = {
        "nbgrader": {"notebook": "warmup", "score": 0.0, "max_score": 1.0, "late_penalty": 0.0}
    }
    html, _ = exporter.from_notebook_node(notebook, resources=resources)
    return html


def find_kernel_and_open_gradebook_once() -> str:
    """Look the grading kernel up and open a SQLite database, as each worker does first; the kernel's argv[0]."""
    import sqlalchemy
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    engine = sqlalchemy.create_engine("sqlite://")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    finally:
        engine.dispose()
    return spec.argv[0]


def configure_gradebook_mappers() -> bool:
    """Configure the gradebook's SQLAlchemy mappers, as a worker's first nbgrader query does.

    SQLAlchemy sets up every mapped class of a registry on the first query that needs one;
    a lesson 3 worker's profile put that at 1.4 of its 18.6 s of autograde on a busy machine.
    """
    import nbgrader.api
    from sqlalchemy.orm import configure_mappers

    configure_mappers()
    return bool(nbgrader.api.Course.__mapper__.configured)


def build_the_judges_tokenizers() -> int:
    """Load the vocabularies the judge counts tokens with, as a hidden test first does; a count."""
    from autograder.judge.support import qwen_tokenizer
    from windowmem.tokens import count_text

    return len(qwen_tokenizer().encode("warm")) + count_text("warm")


for warm_up in (
    render_feedback_once,
    find_kernel_and_open_gradebook_once,
    configure_gradebook_mappers,
    build_the_judges_tokenizers,
):
    try:
        warm_up()
    except Exception:  # noqa: BLE001 - a warm-up that fails only costs speed
        pass
