"""pyproject.toml and environment.yml name the same dependencies."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO_ROOT as ROOT


def _pyproject_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = set(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs.update(r for r in extra if not r.startswith("windowmem"))
    return reqs


def _environment_requirements() -> set[str]:
    reqs = set()
    in_pip = False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if re.match(r"\s*- pip:\s*$", line):
            in_pip = True
            continue
        match = re.match(r"\s+- (.+?)\s*$", line)
        if in_pip and match and not match.group(1).startswith("-e"):
            reqs.add(match.group(1))
    return reqs


def test_environment_yml_matches_pyproject():
    assert _environment_requirements() == _pyproject_requirements()


def test_environment_pins_the_python_that_pyproject_requires():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11"
    assert "python=3.11" in (ROOT / "environment.yml").read_text()
