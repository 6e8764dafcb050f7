"""What a worker reports, saved and read back."""

from __future__ import annotations


def test_worker_outcome_round_trips_and_rejects_garbage(tmp_path):
    from autograder.grading.outcome import CellTimeout, ExecutionReport, StepResult, WorkerOutcome

    outcome = WorkerOutcome(
        StepResult(True, "log"),
        None,
        None,
        {"autograde": 1.5},
        (),
        {"nb": ExecutionReport((CellTimeout("cell 'a'", 20.0),), restored=("builtins.sum",))},
    )
    outcome.write(tmp_path / "r.json")
    assert WorkerOutcome.read(tmp_path / "r.json") == outcome
    (tmp_path / "bad.json").write_text('{"autograde": 3}')
    assert WorkerOutcome.read(tmp_path / "bad.json") is None
    assert WorkerOutcome.read(tmp_path / "missing.json") is None
