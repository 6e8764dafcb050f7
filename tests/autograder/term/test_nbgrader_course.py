"""Pointing nbgrader at a course: the gradebook's schema without a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.term import nbgrader_course


def test_in_process_alembic_head_matches_alembic_heads():
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/unused.db") as ini:
        printed = subprocess.run(
            [str(Path(sys.executable).parent / "alembic"), "-c", ini, "heads"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert nbgrader_course.alembic_head() == printed.split()[0]


def test_the_scripts_read_line_by_line_give_alembics_own_head():
    from nbgrader.dbutil import ALEMBIC_DIR

    parsed = nbgrader_course.head_revision(Path(ALEMBIC_DIR) / "versions")
    assert parsed is not None and parsed == nbgrader_course._alembic_api_head(ALEMBIC_DIR)


def test_a_merge_or_a_broken_chain_is_left_to_alembic(tmp_path):
    (tmp_path / "a.py").write_text("revision = 'a1'\ndown_revision = None\n")
    (tmp_path / "b.py").write_text("revision = 'b2'\ndown_revision = 'a1'\n")
    (tmp_path / "c.py").write_text("revision = 'c3'\ndown_revision = 'a1'\n")
    assert nbgrader_course.head_revision(tmp_path) is None  # two heads
    (tmp_path / "c.py").write_text("revision = 'c3'\ndown_revision = ('a1', 'b2')\n")
    assert nbgrader_course.head_revision(tmp_path) is None  # a merge revision
    (tmp_path / "c.py").write_text("revision = 'c3'\ndown_revision = 'zz'\n")
    assert nbgrader_course.head_revision(tmp_path) is None  # a parent no script defines
    (tmp_path / "c.py").write_text("revision = 'c3'\ndown_revision = 'b2'\n")
    assert nbgrader_course.head_revision(tmp_path) == "c3"
