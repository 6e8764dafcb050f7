"""nbgrader's gradebook with its tables checked once: the same records, fewer table checks.

Each case runs in a fresh interpreter (the changes are process-wide patches of nbgrader),
once with nbgrader as installed and once after :func:`autograder.grading.quick_nbgrader.quicken`,
and compares the whole SQLite database the same gradebook work leaves behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

#: Gradebook work as nbgrader's apps do it: a new database, then opened again and again.
WORK = """
import json, os, re, sqlite3, sys
import autograder.startup
import nbgrader.api
from autograder.term.nbgrader_course import alembic_head
nbgrader.api.get_alembic_version = alembic_head  # no alembic subprocess: same version string
if sys.argv[2] == "quick":
    from autograder.grading.quick_nbgrader import close_shared_engines, quicken
    quicken()
checks = []
create_all = nbgrader.api.Base.metadata.create_all
def counted(*args, **kwargs):
    checks.append(1)
    return create_all(*args, **kwargs)
nbgrader.api.Base.metadata.create_all = counted
url = "sqlite:///" + sys.argv[1]
with nbgrader.api.Gradebook(url) as gb:
    gb.add_student("ana", first_name="Ana")
with nbgrader.api.Gradebook(url, course_id="course101") as gb:  # a second course row
    gb.add_assignment("a1")
for name in ("bea", "cai"):
    with nbgrader.api.Gradebook(url) as gb:
        gb.update_or_create_student(name, last_name=name.upper())
with nbgrader.api.Gradebook(url) as gb:
    students = sorted(s.id for s in gb.students)
if sys.argv[2] == "quick":
    close_shared_engines()
# row ids are random uuids: each becomes the order it first appears in
ids = {}
dump = [re.sub("[0-9a-f]{32}", lambda m: "id%d" % ids.setdefault(m.group(), len(ids)), line)
        for line in sqlite3.connect(sys.argv[1]).iterdump()]
print(json.dumps({"checks": len(checks), "students": students, "dump": dump}))
"""


def gradebook_work(folder: Path, way: str) -> dict:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-c", WORK, str(folder / f"{way}.db"), way],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_checking_tables_once_leaves_the_same_gradebook(tmp_path):
    stock, quick = gradebook_work(tmp_path, "stock"), gradebook_work(tmp_path, "quick")
    assert stock["students"] == quick["students"] == ["ana", "bea", "cai"]
    assert quick["dump"] == stock["dump"]
    # nbgrader checks the tables at each of its five opens; the quick way at the first only
    assert (stock["checks"], quick["checks"]) == (5, 1)
