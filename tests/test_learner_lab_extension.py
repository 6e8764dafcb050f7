"""The learner's JupyterLab extension: the committed build is the committed source's, and the
learner's JupyterLab loads it in place of JupyterLab's own cell executor.

What it does is proven in the browser (tests/browser/test_make_course_browser.py: Run All
clicked before the kernel exists).
"""

from __future__ import annotations

import json
import re

from tests.conftest import REPO_ROOT

LEARNER = REPO_ROOT / "learner_jupyter"
SOURCE = LEARNER / "extension"
BUILT = LEARNER / "labextensions" / "@windowmem" / "lab"


def _quoted_strings(js: str) -> set[str]:
    """The longer string literals of *js*, its comments left out."""
    code = "\n".join(line for line in js.splitlines() if not line.lstrip().startswith("//"))
    return set(re.findall(r"'([^'\n]{20,})'", code))


def test_the_build_holds_every_message_and_id_of_the_source():
    source = (SOURCE / "src" / "index.js").read_text(encoding="utf-8")
    built = "".join(p.read_text(encoding="utf-8") for p in (BUILT / "static").glob("*.js"))
    missing = [s for s in _quoted_strings(source) if s not in built]
    assert missing == [], f"rebuild it (make lab-extension): the build lacks {missing}"


def test_the_build_is_of_this_package_and_version():
    source = json.loads((SOURCE / "package.json").read_text(encoding="utf-8"))
    built = json.loads((BUILT / "package.json").read_text(encoding="utf-8"))
    assert (built["name"], built["version"]) == (source["name"], source["version"])
    load = BUILT / built["jupyterlab"]["_build"]["load"]
    assert load.is_file(), f"{load} is missing: rebuild it (make lab-extension)"


def test_the_learners_lab_swaps_jupyterlabs_executor_for_it():
    import sys

    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    from course_lab import lab_environment

    page = json.loads((LEARNER / "labconfig" / "page_config.json").read_text(encoding="utf-8"))
    assert page["disabledExtensions"].get("@jupyterlab/notebook-extension:cell-executor") is True
    env = lab_environment({"JUPYTER_PATH": "/elsewhere"})
    assert env["JUPYTER_PATH"].split(":")[:2] == [str(LEARNER), "/elsewhere"]
