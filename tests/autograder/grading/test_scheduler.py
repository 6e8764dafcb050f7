"""The scheduler: a slot is given back once a student's code has stopped, feedback overlapping the next."""

from __future__ import annotations

import time
from pathlib import Path

from traitlets.config import Config

from autograder.grading.scheduler import run_all
from autograder.grading.worker import Job

#: Seconds a fake worker waits for the next student to start before it gives up.
PATIENCE = 20.0


def fake_worker(job: Job, release, graded) -> None:
    """Grade (instantly), say so, then 'write feedback' until the next student is seen starting."""
    release.wait()
    log = job.work_root.parent / "events.log"
    with log.open("a") as file:
        file.write(f"start {job.student_id}\n")
    graded.set()
    others = {"s1": "s2", "s2": "s3"}
    if job.student_id in others:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            if f"start {others[job.student_id]}" in log.read_text():
                break
            time.sleep(0.02)
    with log.open("a") as file:
        file.write(f"exit {job.student_id}\n")


def jobs(folder: Path) -> list[Job]:
    return [Job(f"s{n}", "a1", folder, folder / f"s{n}", ("nb",), Config()) for n in (1, 2, 3)]


def test_with_one_slot_the_next_student_grades_while_the_last_one_writes_feedback(tmp_path):
    finished = []
    run_all(jobs(tmp_path), 1, lambda job: 120.0, finished.append, target=fake_worker)
    events = (tmp_path / "events.log").read_text().split("\n")
    # s2 starts before s1 exits, s3 before s2 exits: each waited only for the other's grading
    assert events.index("start s2") < events.index("exit s1")
    assert events.index("start s3") < events.index("exit s2")
    assert sorted(d.job.student_id for d in finished) == ["s1", "s2", "s3"]
    assert not any(d.killed for d in finished) and {d.exitcode for d in finished} == {0}


def never_graded(job: Job, release, graded) -> None:
    """A worker that keeps its student's kernel (never sets graded) for a while."""
    release.wait()
    log = job.work_root.parent / "events.log"
    with log.open("a") as file:
        file.write(f"start {job.student_id}\n")
    time.sleep(0.5)
    with log.open("a") as file:
        file.write(f"exit {job.student_id}\n")


def test_a_worker_still_grading_keeps_its_slot(tmp_path):
    run_all(jobs(tmp_path), 1, lambda job: 120.0, lambda done: None, target=never_graded)
    events = (tmp_path / "events.log").read_text().split()
    assert events == [
        "start",
        "s1",
        "exit",
        "s1",
        "start",
        "s2",
        "exit",
        "s2",
        "start",
        "s3",
        "exit",
        "s3",
    ]
