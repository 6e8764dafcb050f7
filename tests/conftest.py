"""Where the tests find the repository and the reference corpus: defined here, once.

The reference corpus (``../shared/reference/agent-context/corpus.json``) is not the
project's to commit. CI has ``../shared`` beside the clone; elsewhere point
``WINDOWMEM_SHARED`` at the folder that holds ``reference/``. Tests that need the
corpus ask for the ``reference_corpus`` fixture and skip, saying where they looked,
when it is absent.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: The repository's root folder.
REPO_ROOT = Path(__file__).resolve().parents[1]
#: The shared material beside the repository (``../shared``), or ``$WINDOWMEM_SHARED``.
SHARED_DIR = Path(os.environ.get("WINDOWMEM_SHARED") or REPO_ROOT.parent / "shared")
#: The reference chapter's corpus: six articles and their questions.
REFERENCE_CORPUS = SHARED_DIR / "reference" / "agent-context" / "corpus.json"
#: Under CI (``CI=true``) what a test needs must be there: its absence fails, never skips.
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported once as module *name* (the scripts folder is no package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader, name
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def skip_or_fail(reason: str) -> None:
    """Skip, saying *reason*; under CI fail instead, since there everything must run."""
    if IN_CI:
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def course_files_status() -> str:
    """``git status`` of course/ and release/, ignored files included: what a learner could dirty."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "course", "release"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root folder."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def reference_corpus() -> Path:
    """The reference corpus file; the test is skipped, saying why, when it is absent."""
    if not REFERENCE_CORPUS.is_file():
        pytest.skip(
            f"reference corpus not found at {REFERENCE_CORPUS}: put ../shared beside the "
            "repository or set WINDOWMEM_SHARED to the folder that holds reference/"
        )
    return REFERENCE_CORPUS
