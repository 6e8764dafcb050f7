"""The part of the cgroup v2 tier that CI runs: the sandbox's core checks, in one boot.

One boot of the guest (``verify/cgroup2``) runs ``test_limits_hold.py`` (the memory bomb
stopped and reported, the fork bomb refused and nothing left behind, CPU time counted and
sleep not, another student untouched, ``multiprocessing.Pool`` and shared memory under
the memory limit, no privileges) as root and as a user with a delegated subtree, and
``grade`` as that user without delegation, which must refuse. ``make test`` runs it after
the main test run (whose bytecode the guest then reads instead of compiling); the whole
tier, the grading of the bombs beside two victims and of the honest class included, is
``make verify-cgroup2``. Where QEMU cannot boot, it says why and skips; under CI it fails.
"""

from __future__ import annotations

import pytest

from tests.cgroup2 import guest_runs
from verify.cgroup2 import guest

pytestmark = [pytest.mark.cgroup2, pytest.mark.slow]

#: What each run (root, delegated) runs in the guest, and how many tests that is.
CORE_TESTS = ("tests/autograder/sandbox/test_limits_hold.py",)
CORE_TEST_COUNT = 8
#: The boot's ceiling. Seen on a 2-core machine at a load average of about 14, two such
#: boots at once: 324 and 348 s each (root 97 and 103 s, the delegated user 89 and 97 s);
#: before the host's files were cached in the guest (init.sh), 30 minutes.
GUEST_TIMEOUT = 30 * 60


@pytest.fixture(scope="module")
def booted(tmp_path_factory) -> guest.GuestRun:
    return guest_runs.boot(
        tmp_path_factory.mktemp("cgroup2-core"), CORE_TESTS, timeout=GUEST_TIMEOUT
    )


def test_the_guest_boots_a_cgroup2_kernel_with_memory_and_pids(booted):
    guest_runs.check_boot(booted)


@pytest.mark.parametrize("label", guest_runs.TEST_RUNS)
def test_the_sandboxs_core_checks_hold(booted, label):
    guest_runs.check_run(booted, label, tests=CORE_TEST_COUNT)


def test_without_root_or_delegation_grade_refuses_naming_what_to_arrange(booted):
    guest_runs.check_refusal(booted)
