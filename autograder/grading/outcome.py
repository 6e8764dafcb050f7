"""What a grading worker tells the parent: typed values, saved as JSON between the two.

A worker is a separate process (forked per student), so its outcome crosses a process
boundary as a file; these dataclasses are that file's schema, read back with
:meth:`WorkerOutcome.read`, which treats anything unreadable as "no outcome".
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class StepResult:
    """One nbgrader API call (``autograde`` or ``generate_feedback``): its success and log."""

    success: bool
    log: str = ""
    error: str = ""

    @classmethod
    def from_api(cls, result: dict[str, Any]) -> StepResult:
        """nbgrader's ``{success, log, error}`` dict, typed."""
        return cls(bool(result.get("success")), result.get("log") or "", result.get("error") or "")

    @property
    def text(self) -> str:
        return self.error or self.log


@dataclass(frozen=True)
class CellTimeout:
    cell: str
    seconds: float


@dataclass(frozen=True)
class ExecutionReport:
    """What :class:`~autograder.grading.guarded_execute.GuardedExecute` saw while one notebook ran."""

    timeouts: tuple[CellTimeout, ...] = ()
    kernel_killed: str | None = None  # the cell that ignored the interrupt
    kernel_died: str | None = None  # the cell the kernel died in
    restored: tuple[str, ...] = ()  # what the guard put back before the tests
    unfaithful: tuple[str, ...] = ()  # why the kernel could not be trusted to run the tests
    judge_out_of_time: bool = False  # the student's time ran out before every test was judged

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExecutionReport:
        return cls(
            tuple(CellTimeout(**t) for t in data.get("timeouts", ())),
            data.get("kernel_killed"),
            data.get("kernel_died"),
            tuple(data.get("restored", ())),
            tuple(data.get("unfaithful", ())),
            bool(data.get("judge_out_of_time", False)),
        )


@dataclass(frozen=True)
class SandboxReport:
    """What the student's sandbox measured: peak memory, limits hit, processes killed at the end."""

    memory_peak_mb: float = 0.0
    hit_memory_limit: bool = False
    hit_pids_limit: bool = False
    killed_at_end: int = 0


@dataclass(frozen=True)
class WorkerOutcome:
    """Everything one worker reports; ``crash`` holds a traceback when the worker itself failed."""

    autograde: StepResult | None = None
    feedback: StepResult | None = None
    crash: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    executions: dict[str, ExecutionReport] = field(default_factory=dict)  # by notebook
    sandbox: SandboxReport | None = None

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)))

    @classmethod
    def read(cls, path: Path) -> WorkerOutcome | None:
        """The outcome at *path*, or None when the worker never wrote one (killed or crashed hard)."""
        try:
            data = json.loads(path.read_text())
            step = lambda d: StepResult(**d) if d else None  # noqa: E731
            return cls(
                step(data.get("autograde")),
                step(data.get("feedback")),
                data.get("crash"),
                {k: float(v) for k, v in (data.get("seconds") or {}).items()},
                tuple(data.get("warnings") or ()),
                {
                    k: ExecutionReport.from_json(v)
                    for k, v in (data.get("executions") or {}).items()
                },
                SandboxReport(**data["sandbox"]) if data.get("sandbox") else None,
            )
        except (OSError, ValueError, TypeError, KeyError):
            return None
