"""The sandbox on a real cgroup v2 kernel: a QEMU guest, as root and as a user with a delegated subtree.

One boot (``verify/cgroup2``) runs, inside the guest, the sandbox's tests and the guest's
grading checks (``verify/cgroup2/guest_grading.py``) as root, then ``grade`` as a user
without root or delegation (it must refuse), then the same tests as that user in a
delegated subtree. These tests read what the guest wrote back, and compare its grading of
a small honest class with this machine's own. Where QEMU cannot boot, they say why and
skip; under CI (``CI=true``) they fail instead. ``make verify-cgroup2`` runs them;
``make test`` runs them with everything else.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, skip_or_fail
from tests.fixtures.grading import NO_SANDBOX
from verify.cgroup2 import guest
from verify.cgroup2.guest_grading import grade_honest_class

pytestmark = [pytest.mark.cgroup2, pytest.mark.slow]

#: The guest's whole run may take this long: Python runs about 10x slower under TCG, and
#: parts of one run took 15 to 22 minutes each on a 2-core machine loaded five times over.
GUEST_TIMEOUT = 3 * 3600
#: The runs of ``in_guest.sh`` that run the tests.
RUNS = ("root", "delegated")


@pytest.fixture(scope="module")
def booted(tmp_path_factory) -> guest.GuestRun:
    reason = guest.unavailable()
    if reason is not None:
        skip_or_fail(f"the cgroup v2 guest cannot boot here: {reason}")
    results = tmp_path_factory.mktemp("cgroup2-guest")
    run = guest.boot(
        guest.HERE / "in_guest.sh",
        results,
        {"TIER_REPO": str(REPO_ROOT)},
        timeout=GUEST_TIMEOUT,
    )
    print(f"cgroup v2 guest: up in {run.boot_seconds} s, whole run {run.seconds:.0f} s")
    return run


def junit_counts(path: Path) -> dict[str, int]:
    """Tests, failures, errors and skips in a JUnit file pytest wrote."""
    suite = ElementTree.parse(path).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    return {key: int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped")}


def run_log(booted: guest.GuestRun, label: str) -> str:
    path = booted.results / f"{label}.log"
    return path.read_text()[-6000:] if path.exists() else booted.console[-6000:]


def test_the_guest_boots_a_cgroup2_kernel_with_memory_and_pids(booted):
    assert booted.exit_code == 0, booted.console[-6000:]
    offered = (booted.results / "controllers").read_text().split()
    assert "memory" in offered and "pids" in offered


@pytest.mark.parametrize("label", RUNS)
def test_every_sandbox_check_holds(booted, label):
    """Memory bomb, fork bomb, CPU time, other students, multiprocessing, the heavy attacks."""
    assert (booted.results / f"{label}.rc").read_text().strip() == "0", run_log(booted, label)
    counts = junit_counts(booted.results / f"{label}.xml")
    assert counts["tests"] >= 19 and counts["failures"] == counts["errors"] == 0, counts
    assert counts["skipped"] == 0, run_log(booted, label)  # a skip would be a check not made


def test_without_root_or_delegation_grade_refuses_naming_what_to_arrange(booted):
    said = (booted.results / "refusal.log").read_text()
    assert (booted.results / "refusal.rc").read_text().strip() != "0", said
    assert "cannot sandbox" in said and "not delegated to user" in said, said
    assert "run grade as root" in said and "systemd-run --user --scope -p Delegate=yes" in said
    assert "--no-sandbox" in said and "hidden tests" in said  # what grading without it gives up


def test_the_honest_class_grades_as_on_this_machine(booted, tmp_path):
    if NO_SANDBOX is not None:
        skip_or_fail(f"this machine cannot sandbox, so has no grading to compare: {NO_SANDBOX}")
    _, here = grade_honest_class(tmp_path)
    columns = ["notebook", "score", "max_score", "status", "detail"]
    for label in RUNS:
        there = pd.read_csv(booted.results / f"{label}-honest.csv", dtype={"student_id": str})
        there = there.set_index("student_id")
        pd.testing.assert_frame_equal(there[columns].sort_index(), here[columns].sort_index())
