"""The class gradebook on a real PostgreSQL server, as a shared JupyterHub keeps it.

``grade --db-url`` publishes into the server gradebook; a grader enters a hand grade
there (as formgrader does on the hub); grading and publishing again keeps it; ``export
--db-url`` and nbgrader's own ``nbgrader export`` (through the course's config with
``NBGRADER_DB_URL``) read the same final grades. Each run works in a schema of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from autograder.records.server_gradebook import sqlalchemy_url
from tests.autograder.term.test_term_exchange import COMMENT, manual_cells, read_csv
from tests.conftest import skip_or_fail
from tests.fixtures import make_submissions
from tests.fixtures.grading import ASSIGNMENT, CELL_TIMEOUT, NOTEBOOK, REPO_ROOT
from tests.fixtures.term import (
    autograder,
    autograder_here,
    enter_hand_grade,
    grade_other_written_cells,
    hand_grade,
)
from tests.nbgrader_helpers import graded_points, read_notebook

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture(scope="module")
def server_gradebook():
    """An SQLAlchemy URL into a fresh schema of the test PostgreSQL server; dropped afterwards."""
    import psycopg

    url = os.environ.get("WINDOWMEM_POSTGRES_URL", "")
    if not url:
        skip_or_fail(
            'WINDOWMEM_POSTGRES_URL is not set (eval "$(bash .ci/services.sh)" starts one)'
        )
    schema = f"gradebook_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(f'CREATE SCHEMA "{schema}"')
    except psycopg.OperationalError as error:
        skip_or_fail(f"PostgreSQL server not reachable: {error}")
    yield sqlalchemy_url(url) + f"?options=-csearch_path%3D{schema}"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="module")
def hub(tmp_path_factory, server_gradebook):
    root = tmp_path_factory.mktemp("hub")
    make_submissions.make_class(root / "class", ASSIGNMENT, only=("correct", "not_json"))
    out = root / "out"
    grade = ("grade", ASSIGNMENT, "--submissions", root / "class", "--out", out)
    grade += ("--timeout", str(CELL_TIMEOUT), "--no-progress", "--db-url", server_gradebook)
    source = read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    written = next(iter(manual_cells(source)))
    first = autograder(*grade)
    enter_hand_grade(server_gradebook, ASSIGNMENT, NOTEBOOK, "correct", written, 2.5, COMMENT)
    grade_other_written_cells(
        server_gradebook, ASSIGNMENT, NOTEBOOK, "correct", manual_cells(source), written
    )
    second = autograder(*grade)
    export = autograder_here("export", ASSIGNMENT, "--out", out, "--db-url", server_gradebook)
    nbgrader_export = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export"]
        + [
            "--exporter=autograder.records.export.FinalGradesExportPlugin",
            f"--to={root / 'nbgrader.csv'}",
        ],
        cwd=out / "course",
        env={
            **os.environ,
            "NBGRADER_DB_URL": server_gradebook,
            "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]),
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {
        "runs": (first, second),
        "export": export,
        "nbgrader_export": nbgrader_export,
        "out": out,
        "root": root,
        "source": source,
        "written": written,
        "url": server_gradebook,
    }


def test_grade_publishes_into_the_server_gradebook(hub):
    from nbgrader.api import Gradebook

    for run in hub["runs"]:
        assert run.returncode == 1, run.stderr[-2000:]  # not_json is not graded
        assert "published 1 students into the server gradebook" in run.stdout
    with Gradebook(hub["url"], "windowmem") as gradebook:
        assert [s.id for s in gradebook.students] == ["correct"]
        submitted = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "correct")
        assert submitted.score == sum(graded_points(hub["source"]).values()) + 2.5


def test_a_rerun_keeps_the_hand_grade_entered_on_the_server(hub):
    assert hand_grade(hub["url"], ASSIGNMENT, NOTEBOOK, "correct", hub["written"]) == (2.5, COMMENT)
    assert "correct:" not in hub["runs"][1].stdout  # same submission, same automatic scores


def test_export_reads_the_server_gradebook(hub):
    rows = read_csv(hub["out"] / "final_grades.csv")
    auto = sum(graded_points(hub["source"]).values())
    assert (rows["correct"]["status"], float(rows["correct"]["total"])) == ("final", auto + 2.5)
    assert (rows["not_json"]["status"], rows["not_json"]["total"]) == ("not_scored", "")


def test_nbgrader_export_in_the_course_uses_nbgrader_db_url(hub):
    run = hub["nbgrader_export"]
    assert run.returncode == 0, run.stderr[-2000:]
    assert (hub["root"] / "nbgrader.csv").read_text() == (
        hub["out"] / "final_grades.csv"
    ).read_text()


def test_publishing_again_changes_nothing_on_the_server(hub):
    from nbgrader.api import Gradebook

    from autograder.records.server_gradebook import publish

    local = "sqlite:///" + str(hub["out"] / "course" / "gradebook.db")
    published = publish(local, hub["url"], ASSIGNMENT)
    assert published.students == ("correct",) and published.notebooks == (NOTEBOOK,)
    assert hand_grade(hub["url"], ASSIGNMENT, NOTEBOOK, "correct", hub["written"]) == (2.5, COMMENT)
    with Gradebook(hub["url"], "windowmem") as gradebook:
        assert [a.name for a in gradebook.assignments] == [ASSIGNMENT]
        assert len(gradebook.find_assignment(ASSIGNMENT).submissions) == 1
