"""The sandbox on a real cgroup v2 kernel: a QEMU guest, as root and as a user with a delegated subtree.

One boot (``verify/cgroup2``) runs, inside the guest, the sandbox's tests and the guest's
grading checks (``verify/cgroup2/guest_grading.py``) as root, then ``grade`` as a user
without root or delegation (it must refuse), then the same tests as that user in a
delegated subtree. These tests read what the guest wrote back, and compare its grading of
a small honest class with this machine's own. Where QEMU cannot boot, they say why and
skip; under CI (``CI=true``) they fail instead. ``make verify-cgroup2`` runs them (1.5
to 2 hours on 2 cores); ``make test`` runs the smaller ``test_guest_core.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.cgroup2 import guest_runs
from tests.conftest import skip_or_fail
from tests.fixtures.grading import NO_SANDBOX
from verify.cgroup2 import guest
from verify.cgroup2.guest_grading import grade_honest_class

pytestmark = [pytest.mark.cgroup2, pytest.mark.slow]

#: The guest's whole run may take this long: Python runs about 10x slower under TCG, and
#: parts of one run took 15 to 22 minutes each on a 2-core machine loaded five times over.
GUEST_TIMEOUT = 3 * 3600


@pytest.fixture(scope="module")
def booted(tmp_path_factory) -> guest.GuestRun:
    return guest_runs.boot(tmp_path_factory.mktemp("cgroup2-guest"), timeout=GUEST_TIMEOUT)


def test_the_guest_boots_a_cgroup2_kernel_with_memory_and_pids(booted):
    guest_runs.check_boot(booted)


@pytest.mark.parametrize("label", guest_runs.TEST_RUNS)
def test_every_sandbox_check_holds(booted, label):
    """Memory bomb, fork bomb, CPU time, other students, multiprocessing, the heavy attacks."""
    guest_runs.check_run(booted, label, tests=19)


def test_without_root_or_delegation_grade_refuses_naming_what_to_arrange(booted):
    guest_runs.check_refusal(booted)


def test_the_honest_class_grades_as_on_this_machine(booted, tmp_path):
    if NO_SANDBOX is not None:
        skip_or_fail(f"this machine cannot sandbox, so has no grading to compare: {NO_SANDBOX}")
    _, here = grade_honest_class(tmp_path)
    columns = ["notebook", "score", "max_score", "status", "detail"]
    for label in guest_runs.TEST_RUNS:
        there = pd.read_csv(booted.results / f"{label}-honest.csv", dtype={"student_id": str})
        there = there.set_index("student_id")
        pd.testing.assert_frame_equal(there[columns].sort_index(), here[columns].sort_index())
