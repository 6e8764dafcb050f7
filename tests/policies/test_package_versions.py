"""The list of modelled packages: complete, in step with the test pins and with what is installed."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from windowmem.policies.package_versions import (
    MODELLED,
    Registry,
    stale,
    status_of,
    version_report,
)
from windowmem.policies.registry import POLICIES

ROOT = Path(__file__).resolve().parents[2]
PYPI = [m for m in MODELLED if m.registry is Registry.PYPI]


def test_every_registered_policy_names_the_package_it_models():
    covered = {name for m in MODELLED for name in m.policies}
    assert covered == set(POLICIES)


def _test_pins() -> dict[str, Requirement]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = (Requirement(r) for r in extras["optional-dependencies"]["test"])
    return {r.name: r for r in requirements}


@pytest.mark.parametrize("modelled", PYPI, ids=lambda m: m.package)
def test_the_test_pins_admit_the_modelled_version(modelled):
    pin = _test_pins().get(modelled.package)
    if pin is None:
        pytest.skip(f"{modelled.package} is not pinned in the test extra")
    assert pin.specifier.contains(modelled.version), (modelled.package, str(pin.specifier))


@pytest.mark.parametrize("modelled", PYPI, ids=lambda m: m.package)
def test_the_installed_version_is_the_modelled_one(modelled):
    """A different release in the test environment must be checked, then written here."""
    try:
        installed = importlib.metadata.version(modelled.package)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{modelled.package} is not installed here")
    assert installed == modelled.version


def test_a_newer_release_is_reported_with_the_policies_to_recheck():
    rows = version_report({"openai-agents": "0.25.0", "langchain": "1.5.2"})
    newer = stale(rows)
    assert [(r.package, r.status) for r in newer] == [("openai-agents", "newer: 0.25.0")]
    assert newer[0].policies == ("openai-agents",) and newer[0].recheck == "openai-agents"
    assert {r.package for r in rows} == {m.package for m in MODELLED}


def test_versions_compare_as_numbers_not_text():
    assert status_of("0.9.3", "0.10.0", Registry.PYPI) == "newer: 0.10.0"
    assert status_of("1.23.0", "1.23.0", Registry.PYPI) == "current"
    assert status_of("1.23.0", "1.22.9", Registry.PYPI) == "current"
    assert status_of("2.0.1", None, Registry.MAVEN) == "not looked up"
    assert status_of("documented", None, Registry.NONE) == "no public package"


def test_the_report_script_reads_pip_s_answer():
    spec = importlib.util.spec_from_file_location(
        "check_versions", ROOT / "scripts/check_versions.py"
    )
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.newest_from_pip("langchain (1.5.2)\nAvailable versions: 1.5.2") == "1.5.2"
    assert script.newest_from_pip("ERROR: No matching distribution found") is None


def test_the_price_table_is_reported_with_the_packages_it_comes_from():
    """``windowmem.prices`` is held to genai-prices: a newer release is reported too."""
    from windowmem.prices import PRICES_SOURCE

    (prices,) = [m for m in MODELLED if m.package == "genai-prices"]
    assert prices.version in PRICES_SOURCE and not prices.policies
    rows = version_report({"genai-prices": "0.3.0"})
    assert [(r.package, r.recheck) for r in stale(rows)] == [
        ("genai-prices", "windowmem.prices (tests/test_prices.py)")
    ]
