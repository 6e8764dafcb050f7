"""Sealed calls in a real kernel: one seal kept across a test's calls acts as a seal per call.

The kernel keeps the behaviour check's seal open across consecutive calls of one function
with the same *allow* and test cell (``_Sealed`` in :mod:`autograder.judge.in_kernel`).
Each test here makes the same calls twice in one kernel: in a row (one seal for all of
them) and interleaved with a call of another function (so every call seals afresh, as
every call did before), and requires the same answers, the same refusals and the
notebook's modules back as they were once the judge moves on.
"""

from __future__ import annotations

import pytest

from autograder.judge.raised import CallTimedOut
from tests.autograder.judge.test_channel import open_channel, run

STUDENT = """
import sys
COUNT = 0
def counts(n):
    global COUNT
    COUNT += n
    return COUNT
KEPT = []
def keeps(n):
    KEPT.append(n)
    return len(KEPT)
def other():
    return 0
def reaches_library():
    import windowmem.replay
    return windowmem.replay.what_it_computes
def library_module():
    return type(sys.modules["windowmem.replay"]).__name__
def spins(seconds):
    import time
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "done"
import windowmem.replay
"""
#: The test cell the calls are made for (its names noted, as the guard notes them).
CELL = 7


@pytest.fixture
def kernel():
    for channel in open_channel(calls_apart=False):
        run(channel.client, STUDENT)
        run(channel.client, f"__import__('sys').modules['_autograder_judge'].note_names({CELL})")
        yield channel


def outcome(kernel, name, argument, at):
    """What one sealed call gives: its value, or the name of what it raised."""
    try:
        return kernel.call(name, () if argument is None else (argument,), {}, (), at=at)
    except Exception as error:  # noqa: BLE001 - the kind of failure is the outcome
        return type(error).__name__


def in_a_row(kernel, name, arguments, at=CELL):
    return [outcome(kernel, name, a, at) for a in arguments]


def each_sealed_afresh(kernel, name, arguments, at=CELL):
    answers = []
    for a in arguments:
        answers.append(outcome(kernel, name, a, at))
        kernel.call("other", (), {}, (), at=at)  # another function: the next call seals again
    return answers


def test_what_a_call_rebinds_is_put_back_before_the_next_as_with_a_seal_per_call(kernel):
    assert in_a_row(kernel, "counts", [1, 1, 5]) == each_sealed_afresh(kernel, "counts", [1, 1, 5])
    assert in_a_row(kernel, "counts", [1, 1, 5]) == [1, 1, 5]


def test_without_a_test_cell_rebinding_stays_as_with_a_seal_per_call(kernel):
    first = in_a_row(kernel, "counts", [1, 1, 5], at=None)
    second = each_sealed_afresh(kernel, "counts", [1, 1, 5], at=None)
    assert (first, second) == ([1, 2, 7], [8, 9, 14])


def test_what_a_call_changes_in_place_stays_as_with_a_seal_per_call(kernel):
    assert in_a_row(kernel, "keeps", [0, 0, 0]) == [1, 2, 3]
    assert each_sealed_afresh(kernel, "keeps", [0, 0, 0]) == [4, 5, 6]


def test_every_call_in_a_row_is_refused_the_library_and_the_notebook_gets_it_back(kernel):
    alone = each_sealed_afresh(kernel, "reaches_library", [None] * 3)
    refused = len(kernel.log.library)
    assert in_a_row(kernel, "reaches_library", [None] * 3) == alone
    assert len(kernel.log.library) == 2 * refused
    assert refused == 3 and alone == ["LibraryUsed"] * 3  # the seal held on every call
    assert in_a_row(kernel, "library_module", [None] * 2) == ["Blocked"] * 2
    # an unsealed call (any other request) finds the notebook's modules as they were
    assert kernel.call("library_module", (), {}, None, at=CELL) == "module"
    assert kernel.describe("COUNT", CELL) == ("value", 0)


def test_a_call_out_of_time_ends_its_seal_and_the_next_calls_are_sealed_again(kernel):
    with pytest.raises(CallTimedOut):
        kernel.call("spins", (30,), {}, (), at=CELL)
    assert kernel.call("spins", (0,), {}, (), at=CELL) == "done"
    assert in_a_row(kernel, "library_module", [None]) == ["Blocked"]
    assert in_a_row(kernel, "counts", [2, 2]) == [2, 2]
