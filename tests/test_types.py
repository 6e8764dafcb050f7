"""The type hints of windowmem and the autograder are checked, not only written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT as ROOT


@pytest.mark.slow
def test_mypy_finds_no_type_errors(tmp_path):
    """mypy, configured in pyproject.toml, passes on src/windowmem and autograder."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "Success" in result.stdout
