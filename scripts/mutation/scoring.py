"""Each mutant's verdict from its run, and an assignment's figures (the worker runs in a process of its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mutation.equivalents import Equivalent, load_equivalents
from mutation.notebooks import CAP_PER_CELL, Mutant, notebook_mutants

#: Seconds a mutant may run at least; a slower one is killed and counted as a timeout.
MUTANT_SECONDS = 20.0
#: The command whose ``--worker`` runs an assignment's mutants.
COMMAND = Path(__file__).resolve().parents[1] / "mutation_score.py"


@dataclass
class Outcome:
    """One mutant and what became of it."""

    mutant: Mutant
    verdict: str  # "killed", "survived", "equivalent", "invalid" or "error"
    detail: str = ""  # the test that lost points, the timeout, the error, why it is equivalent
    caught_by_visible: bool = False


@dataclass
class AssignmentScore:
    """The figures of one assignment."""

    assignment: str
    sites: int  # mutants the operators make, before the cap
    outcomes: list[Outcome] = field(default_factory=list)
    harness_error: str = ""
    baseline_seconds: float = 0.0
    stale: list[Equivalent] = field(default_factory=list)  # records to read again

    def count(self, verdict: str) -> int:
        return sum(o.verdict == verdict for o in self.outcomes)

    @property
    def timeouts(self) -> int:
        return sum(o.verdict == "killed" and o.detail.startswith("timeout") for o in self.outcomes)

    @property
    def hidden_only(self) -> int:
        return sum(o.verdict == "killed" and not o.caught_by_visible for o in self.outcomes)

    @property
    def score(self) -> float | None:
        killed, survived = self.count("killed"), self.count("survived")
        return killed / (killed + survived) if killed + survived else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "assignment": self.assignment,
            "harness_error": self.harness_error,
            "baseline_seconds": round(self.baseline_seconds, 2),
            "mutants_possible": self.sites,
            "generated": len(self.outcomes),
            "invalid": self.count("invalid"),
            "killed": self.count("killed"),
            "killed_by_timeout": self.timeouts,
            "killed_hidden_only": self.hidden_only,
            "survived": self.count("survived"),
            "equivalent": self.count("equivalent"),
            "errors": self.count("error"),
            "score": None if self.score is None else round(self.score, 3),
            "mutants": [
                {
                    **{k: v for k, v in asdict(o.mutant).items() if k != "source"},
                    "verdict": o.verdict,
                    "detail": o.detail,
                    "caught_by_visible": o.caught_by_visible,
                }
                for o in self.outcomes
            ],
            "stale_equivalents": [asdict(e) for e in self.stale],
        }


def judge_outcome(mutant: Mutant, run: dict[str, Any], maxima: dict[str, float]) -> Outcome:
    """Killed, survived, invalid or error, from one mutant's run."""
    status = run["status"]
    if status == "invalid":
        return Outcome(mutant, "invalid", run["error"])
    if status == "error":
        last = run["error"].strip().splitlines()[-1:]
        return Outcome(mutant, "error", last[0] if last else "")
    if status in ("timeout", "crashed"):
        return Outcome(mutant, "killed", f"{status}: {run['error']}")
    lost = sum(maxima[g] - p for g, p in run["scores"].items())
    visible = bool(run["visible_failed"])
    if run["lost"] or lost > 1e-9:
        return Outcome(mutant, "killed", f"{run['lost']} {run['scores'].get(run['lost'])}", visible)
    if run.get("same_values"):
        return Outcome(mutant, "equivalent", SAME_VALUES, visible)
    return Outcome(mutant, "survived", "", visible)


#: Why a survivor whose cell holds only values, all of them the model solution's, is equivalent.
SAME_VALUES = (
    "the changed cell defines no function and leaves every name with the model solution's "
    "value: nothing after it can tell it apart (checked by the harness)"
)


def apply_equivalents(
    score: AssignmentScore, every: list[Mutant], records: tuple[Equivalent, ...]
) -> None:
    """Mark the survivors *records* name as equivalent; keep the records that need reading again.

    A record is stale when it names a mutant that was killed, or none of *every* (all the
    notebook's mutants, sampled or not): its cell changed since it was written.
    """
    mine = [r for r in records if r.assignment == score.assignment]
    for number, outcome in enumerate(score.outcomes):
        found = [r for r in mine if r.matches(score.assignment, outcome.mutant)]
        if found and outcome.verdict == "survived":
            score.outcomes[number] = Outcome(
                outcome.mutant, "equivalent", found[0].why, outcome.caught_by_visible
            )
        elif found and outcome.verdict == "killed":
            score.stale += found
    score.stale += [r for r in mine if not any(r.matches(score.assignment, m) for m in every)]


def score_assignment(
    notebook_path: Path,
    cap: int = CAP_PER_CELL,
    timeout: float = MUTANT_SECONDS,
    python: str = sys.executable,
    records: tuple[Equivalent, ...] | None = None,
) -> AssignmentScore:
    """Generate the mutants of one source notebook, run them in a worker, and score them."""
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    mutants, sites = notebook_mutants(notebook, cap)
    score = AssignmentScore(notebook_path.parent.name, sites)
    with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
        job_path, result_path = Path(folder, "job.json"), Path(folder, "result.json")
        job = {
            "notebook": str(notebook_path.resolve()),
            "timeout": timeout,
            "mutants": [asdict(m) for m in mutants],
        }
        job_path.write_text(json.dumps(job))
        env = {
            **os.environ,
            "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
        }
        command = [
            python,
            str(COMMAND),
            "--worker",
            str(job_path),
            str(result_path),
        ]
        finished = subprocess.run(command, cwd=notebook_path.parent, env=env)
        if finished.returncode != 0 or not result_path.exists():
            score.harness_error = f"the worker failed (exit {finished.returncode})"
            return score
        result = json.loads(result_path.read_text())
    score.baseline_seconds = result["baseline"]["seconds"]
    if result.get("harness_error"):
        baseline = result["baseline"]
        score.harness_error = (
            f"{result['harness_error']}: {baseline['status']} {baseline['scores']} "
            f"{baseline['error']}".strip()
        )
        return score
    for mutant in mutants:
        score.outcomes.append(
            judge_outcome(mutant, result["mutants"][mutant.ident], result["maxima"])
        )
    every = notebook_mutants(notebook, sys.maxsize)[0]
    apply_equivalents(score, every, load_equivalents() if records is None else records)
    return score
