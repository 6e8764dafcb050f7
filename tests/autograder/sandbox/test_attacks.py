"""The grading pipeline against a class of attacking students (tests/fixtures/attacks.py).

One run grades every attacker beside two victims; a second, clean run grades the
victims alone. Asserted: each attack's status and score, the victims' rows equal to the
clean run's, the originals unchanged, no file written outside ``--out``, no process
left behind, no connection reaching the grader's loopback, no hidden test in feedback.
"""

from __future__ import annotations

import io
import shutil
import socket
import stat
import threading
import time
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from tests.fixtures import attacks
from tests.fixtures.grading import (
    ASSIGNMENT,
    NOTEBOOK,
    REPO_ROOT,
    grade,
    needs_sandbox,
    sandbox_leftovers,
    tree_hashes,
)
from tests.nbgrader_helpers import cell_text, graded_points, read_notebook

pytestmark = [
    pytest.mark.slow,
    needs_sandbox,
]


class Listener:
    """A TCP server on the grader's loopback that records whether anyone connected."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.server.close()


def files_with_marker(folder: Path, skip: Path | None = None) -> list[str]:
    hits = []
    for path in folder.rglob("*"):
        if skip is not None and path.is_relative_to(skip):
            continue
        if attacks.MARKER in path.name:
            hits.append(str(path))
        elif path.is_file() and not path.is_symlink() and path.stat().st_size < 5_000_000:
            if attacks.MARKER.encode() in path.read_bytes():
                hits.append(str(path))
    return hits


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    root = tmp_path_factory.mktemp("attacks")
    listener = Listener()
    submissions = root / "class"
    attacks.make_attack_class(submissions, ASSIGNMENT, REPO_ROOT, port=listener.port)
    before = tree_hashes(submissions)
    out = root / "out"
    started = time.time()
    run = grade(submissions, out, "--jobs", "2", "--no-progress")
    finished = time.time()
    left = sandbox_leftovers(run.pid)
    listener.stop()
    clean = root / "clean"
    for victim in attacks.VICTIMS:
        shutil.copytree(submissions / victim, clean / victim)
    clean_run = grade(clean, root / "clean-out", "--no-progress")
    return {
        "root": root,
        "submissions": submissions,
        "before": before,
        "run": run,
        "out": out,
        "window": (started, finished),
        "left": left,
        "connections": listener.connections,
        "grades": pd.read_csv(out / "grades.csv", dtype={"student_id": str}).set_index(
            "student_id"
        ),
        "clean": pd.read_csv(
            root / "clean-out" / "grades.csv", dtype={"student_id": str}
        ).set_index("student_id"),
        "clean_run": clean_run,
    }


@pytest.mark.parametrize("student", sorted(attacks.EXPECTED))
def test_each_attack_gains_nothing(attacked, student):
    row = attacked["grades"].loc[student]
    status, score = attacks.EXPECTED[student]
    got = None if pd.isna(row.score) else float(row.score)
    assert (row.status, got) == (status, score), row.detail


def test_flagged_submission_says_why_and_holds_its_score(attacked):
    row = attacked["grades"].loc["patched_kernel"]
    assert "cannot be trusted" in row.detail and "held for the instructor" in row.detail
    from nbgrader.api import Gradebook

    url = "sqlite:///" + str(attacked["out"] / "course" / "gradebook.db")
    with Gradebook(url) as gradebook:
        notebook = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "patched_kernel")
        assert all(g.auto_score is None and g.needs_manual_grade for g in notebook.grades)


def test_no_student_writes_a_score(attacked):
    from nbgrader.api import Gradebook

    url = "sqlite:///" + str(attacked["out"] / "course" / "gradebook.db")
    with Gradebook(url) as gradebook:
        for student in ("writes_gradebook", "victim_blank", "victim_correct"):
            notebook = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
            assert all(g.manual_score is None for g in notebook.grades), student
            assert all((g.auto_score or 0) <= g.max_score for g in notebook.grades), student
        assert (
            gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "writes_gradebook").score == 0
        )


def test_limits_are_reported(attacked):
    grades = attacked["grades"]
    assert "memory limit" in grades.loc["allocates_memory"].detail
    assert "refused processes past the limit" in grades.loc["outlives_grading"].detail


def test_tampering_with_the_interpreter_is_undone_and_reported(attacked):
    grades = attacked["grades"]
    assert "input_transformers_cleanup" in grades.loc["input_transformer"].detail
    assert "events.pre_run_cell" in grades.loc["event_hook"].detail
    assert "InteractiveShell.showtraceback" in grades.loc["patched_shell"].detail
    assert "VerboseTB.structured_traceback" in grades.loc["patched_formatter"].detail
    assert "the traceback colours" in grades.loc["patched_formatter"].detail
    assert "builtins.all" in grades.loc["rebound_builtins"].detail
    assert "the notebook's own isinstance" in grades.loc["rebound_builtins"].detail


def test_victims_are_graded_as_in_a_clean_run(attacked):
    assert attacked["clean_run"].returncode == 0, attacked["clean_run"].stderr[-2000:]
    for victim in attacks.VICTIMS:
        mine, clean = attacked["grades"].loc[victim], attacked["clean"].loc[victim]
        assert (mine.status, mine.score, mine.detail) == (clean.status, clean.score, clean.detail)


def test_bad_notebooks_are_their_students_rows(attacked):
    grades = attacked["grades"]
    assert (
        grades.loc["too_deep"].status == "malformed"
        and "nested more than" in grades.loc["too_deep"].detail
    )
    assert (
        grades.loc["too_large"].status == "malformed"
        and "byte limit" in grades.loc["too_large"].detail
    )


def test_originals_unchanged_and_nothing_written_outside_out(attacked):
    assert tree_hashes(attacked["submissions"]) == attacked["before"]
    # the attacks' own notebooks (and their copies under --out) hold the marker as code
    written = [
        hit
        for folder in attacked["root"].iterdir()
        if folder.name not in {"class", "out", "clean", "clean-out"}
        for hit in files_with_marker(folder)
    ]
    assert written == []
    assert files_with_marker(REPO_ROOT / "source") == []
    assert not list(Path("/tmp").glob(f"{attacks.MARKER}*"))
    out = attacked["out"]
    assert not (out / "summary").is_symlink()
    # OUT/course holds the config the grader writes for formgrader, never the planted one
    config = out / "course" / "nbgrader_config.py"
    assert not config.is_symlink() and attacks.MARKER not in config.read_text()
    assert config.read_text().startswith('"""nbgrader configuration of this graded course')
    links = [p for p in out.rglob("*") if p.is_symlink()]
    assert links == [], links


def test_no_process_outlives_the_command(attacked):
    assert attacked["left"] == []
    time.sleep(1)
    assert sandbox_leftovers(attacked["run"].pid) == []


def test_no_network(attacked):
    assert attacked["connections"] == 0


def test_reports_are_not_rewritten_later(attacked):
    grades = attacked["out"] / "grades.csv"
    written = grades.stat().st_mtime
    time.sleep(2)
    assert grades.stat().st_mtime == written and written <= attacked["window"][1] + 1


def test_feedback_shows_no_hidden_test(attacked):
    source = read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    hidden = []
    for cell in source["cells"]:
        text = cell_text(cell)
        if "BEGIN HIDDEN TESTS" in text:
            region = text.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS", 1)[0]
            hidden += [line.strip() for line in region.splitlines() if len(line.strip()) > 25]
    assert hidden
    pages = sorted((attacked["out"] / "course" / "feedback").rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        leaked = [line for line in hidden if line in text]
        assert not leaked, f"{page} shows hidden tests: {leaked[:2]}"
        # An attacker's own answer cell may search for the words "BEGIN HIDDEN TESTS" and is
        # shown as written; the instructor's marker line (with its ###) must be gone.
        assert "### BEGIN HIDDEN TESTS" not in text


# --- an LMS zip that attacks ---------------------------------------------------------------


def add(zipped: zipfile.ZipFile, name: str, data: bytes, *, link: bool = False) -> None:
    info = zipfile.ZipInfo(name)
    if link:
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
    zipped.writestr(info, data)


def test_an_attacking_zip_only_harms_its_own_students(tmp_path):
    release = (REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes()
    from tests.fixtures.make_submissions import answered, dump

    correct = dump(
        answered(
            read_notebook(REPO_ROOT / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
            read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        )
    ).encode()
    nested = io.BytesIO()
    with zipfile.ZipFile(nested, "w") as inner:
        add(inner, f"victim/{ASSIGNMENT}/{NOTEBOOK}.ipynb", release)  # aims at the victim's folder
    path = f"{NOTEBOOK}.ipynb"
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        add(zipped, f"dl/victim/{ASSIGNMENT}/{path}", correct)
        add(zipped, f"dl/climber/{ASSIGNMENT}/{path}", correct)
        add(zipped, f"dl/climber/../victim/{ASSIGNMENT}/{path}", release)
        add(zipped, f"dl/linker/{ASSIGNMENT}/{path}", correct)
        add(zipped, f"dl/linker/{ASSIGNMENT}/other.ipynb", b"/etc/passwd", link=True)
        add(zipped, f"dl/nester/{ASSIGNMENT}/work.zip", nested.getvalue())
        add(zipped, f"dl/twice/{ASSIGNMENT}/{path}", correct)
        add(zipped, f"dl/twice/{ASSIGNMENT}/sub/{path}", release)
        add(zipped, "/abs/victim/" + f"{ASSIGNMENT}/{path}", release)
    out = tmp_path / "out"
    run = grade(
        archive,
        out,
        "--no-progress",
        "--zip-regexp",
        rf"(?:.*/)?(?P<student_id>[^/]+)/{ASSIGNMENT}/(?:.*/)?(?P<file_id>[^/]+\.(?:ipynb|zip))$",
    )
    assert run.returncode == 1, run.stderr[-2000:]
    grades = pd.read_csv(out / "grades.csv").set_index("student_id")
    full = sum(
        graded_points(
            read_notebook(REPO_ROOT / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
        ).values()
    )
    assert (grades.loc["victim", "status"], grades.loc["victim", "score"]) == ("graded", full)
    for refused, says in (
        ("climber", "'..'"),
        ("linker", "symbolic link"),
        ("twice", "2 files map to"),
    ):
        assert grades.loc[refused, "status"] == "malformed", refused
        assert says in grades.loc[refused, "detail"], grades.loc[refused, "detail"]
    assert (grades.loc["nester", "status"], grades.loc["nester", "score"]) == ("graded", 0.0)
    assert not (out / "downloaded" / "submitted" / "victim" / "victim").exists()
    assert "refused for no student: archive member '/abs/victim/" in run.stdout
