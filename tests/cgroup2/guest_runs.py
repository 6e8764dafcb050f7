"""One boot of the cgroup v2 guest for a test module, and the checks every tier makes of it.

``tests/cgroup2/test_guest.py`` (the whole tier, ``make verify-cgroup2``) and
``test_guest_core.py`` (the part ``make test`` runs) boot the guest with their own runs
and tests (``in_guest.sh``'s ``TIER_RUNS`` and ``TIER_TESTS``) and read back what it wrote.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

from tests.conftest import REPO_ROOT, skip_or_fail
from verify.cgroup2 import guest

#: The runs of ``in_guest.sh`` that run tests: as root, and as the user with a delegated subtree.
TEST_RUNS = ("root", "delegated")


def boot(results: Path, tests: tuple[str, ...] = (), timeout: float = 3600) -> guest.GuestRun:
    """Boot the guest once: every run (root, refusal, delegated) of *tests* (default: all)."""
    reason = guest.unavailable()
    if reason is not None:
        skip_or_fail(f"the cgroup v2 guest cannot boot here: {reason}")
    settings = {"TIER_REPO": str(REPO_ROOT)}
    if tests:
        settings["TIER_TESTS"] = " ".join(tests)
    run = guest.boot(guest.HERE / "in_guest.sh", results, settings, timeout=timeout)
    parts = ", ".join(
        f"{label} {(results / f'{label}.seconds').read_text().strip()} s"
        for label in TEST_RUNS
        if (results / f"{label}.seconds").exists()
    )
    print(f"cgroup v2 guest: up in {run.boot_seconds} s, whole run {run.seconds:.0f} s ({parts})")
    return run


def junit_counts(path: Path) -> dict[str, int]:
    """Tests, failures, errors and skips in a JUnit file pytest wrote."""
    suite = ElementTree.parse(path).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    return {key: int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped")}


def run_log(booted: guest.GuestRun, label: str) -> str:
    path = booted.results / f"{label}.log"
    return path.read_text()[-6000:] if path.exists() else booted.console[-6000:]


def check_boot(booted: guest.GuestRun) -> None:
    """The guest ran its script to the end on a cgroup v2 tree offering memory and pids."""
    assert booted.exit_code == 0, booted.console[-6000:]
    offered = (booted.results / "controllers").read_text().split()
    assert "memory" in offered and "pids" in offered


def check_run(booted: guest.GuestRun, label: str, tests: int) -> None:
    """Run *label* passed at least *tests* tests, none failed, none skipped."""
    assert (booted.results / f"{label}.rc").read_text().strip() == "0", run_log(booted, label)
    counts = junit_counts(booted.results / f"{label}.xml")
    assert counts["tests"] >= tests and counts["failures"] == counts["errors"] == 0, counts
    assert counts["skipped"] == 0, run_log(booted, label)  # a skip would be a check not made


def check_refusal(booted: guest.GuestRun) -> None:
    """``grade`` without root or delegation refused, naming what to arrange and what is given up."""
    said = (booted.results / "refusal.log").read_text()
    assert (booted.results / "refusal.rc").read_text().strip() != "0", said
    assert "cannot sandbox" in said and "not delegated to user" in said, said
    assert "run grade as root" in said and "systemd-run --user --scope -p Delegate=yes" in said
    assert "--no-sandbox" in said and "hidden tests" in said  # what grading without it gives up
