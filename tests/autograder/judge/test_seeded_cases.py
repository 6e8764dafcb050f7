"""Every assignment's graded cases stay what they were: a digest of each hidden test's calls.

The hidden tests draw their cases from one seeded generator (:mod:`autograder.judge.seeded`).
Written out again in each support module and hidden cell before, it now lives in one place;
a change to it, or to how a test seeds it, would silently give every student other cases.
This runs every hidden test of every assignment here (as :mod:`tests.answer_shares` does:
the instructor's notebook top to bottom with the model answers, each hidden section with
the names the judge gives it), records each call a test makes to the student's functions
(name, arguments, keyword arguments, the behaviour check's *allow*), and compares a digest
of each cell's calls and its score with the digests recorded from main before the
generator moved (``tests/fixtures/graded_case_digests.json``).

To record the digests again, on purpose, after changing a test's cases::

    .venv/bin/python -m tests.autograder.judge.test_seeded_cases --record
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import sys
from collections.abc import Callable
from typing import Any

import pytest

from autograder.judge.hidden_tests import in_folder
from autograder.judge.support import hidden_test_names, optional_hidden_support, sealed
from autograder.term.nbgrader_course import nbgrader_meta
from tests.answer_shares import _run, source_notebook
from tests.nbgrader_helpers import HIDDEN_MARKERS, REPO_ROOT, cell_text, read_notebook

DIGESTS = REPO_ROOT / "tests" / "fixtures" / "graded_case_digests.json"
ASSIGNMENTS = sorted(p.name for p in (REPO_ROOT / "source").iterdir() if p.is_dir())


def _plain(value: Any) -> str:
    """*value* written out the same way on every run (no memory address may get in)."""
    text = repr(value)
    if " at 0x" in text:
        raise AssertionError(f"a recorded argument has no stable form: {text[:200]}")
    return text


def _recording(function: Callable[..., Any], calls: list[str], allow: Any = None) -> Any:
    """*function*, each call written to *calls* first."""

    @functools.wraps(function)
    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append(f"{function.__name__}{_plain(args)}{_plain(kwargs)} allow={allow!r}")
        return function(*args, **kwargs)

    # _with_notebook_globals finds the notebook's globals through __wrapped__: the answer's own
    record.__wrapped__ = getattr(function, "__wrapped__", function)  # type: ignore[attr-defined]
    record._recorded = record.__wrapped__  # type: ignore[attr-defined]
    return record


def cell_digests(assignment: str) -> dict[str, dict[str, Any]]:
    """Per hidden test cell: how many calls it made, their digest, and its score."""
    path = source_notebook(assignment)
    support = optional_hidden_support(path.parent)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    digests: dict[str, dict[str, Any]] = {}
    with in_folder(path.parent), contextlib.redirect_stdout(io.StringIO()):
        for cell in read_notebook(path)["cells"]:
            if cell["cell_type"] != "code":
                continue
            meta, code = nbgrader_meta(cell), cell_text(cell)
            if not (meta.get("grade") and not meta.get("solution")):
                with contextlib.suppress(Exception):
                    _run(code, namespace, meta.get("grade_id") or "cell")
                continue
            visible, _, rest = code.partition(HIDDEN_MARKERS[0])
            hidden = rest.partition(HIDDEN_MARKERS[1])[0]
            with contextlib.suppress(Exception):
                _run(visible, namespace, meta["grade_id"])
            if not hidden:
                continue
            calls: list[str] = []
            # the student's functions (an answer's: defined by the notebook) record each call
            space = dict(namespace)
            for name, value in namespace.items():
                if callable(value) and getattr(value, "__module__", None) == "__main__":
                    if not name.startswith("_") and not isinstance(value, type):
                        space[name] = _recording(value, calls)
            names = hidden_test_names(support)

            def recorded_sealed(function: Any, allow: Any = (), calls: list[str] = calls) -> Any:
                original = getattr(function, "_recorded", function)
                return _recording(sealed(original, allow), calls, tuple(allow))

            names["_sealed"] = recorded_sealed
            space.update(names)
            try:
                value = _run(hidden, space, meta["grade_id"])
                score = value if type(value) in (int, float) else "full"
            except Exception as error:  # noqa: BLE001 - recorded: the same error each run
                score = f"error {type(error).__name__}"
            digest = hashlib.sha256("\n".join(calls).encode()).hexdigest()
            digests[meta["grade_id"]] = {"calls": len(calls), "sha256": digest, "score": score}
    return digests


def all_digests() -> dict[str, dict[str, dict[str, Any]]]:
    return {assignment: cell_digests(assignment) for assignment in ASSIGNMENTS}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_hidden_test_draws_the_cases_it_drew_on_main(assignment: str) -> None:
    recorded = json.loads(DIGESTS.read_text())[assignment]
    now = cell_digests(assignment)
    assert sorted(now) == sorted(recorded), "the hidden test cells changed"
    changed = {cell: (recorded[cell], now[cell]) for cell in now if now[cell] != recorded[cell]}
    assert not changed, f"these cells' graded cases (or scores) changed: {changed}"
    # the record means something: the hidden tests called the student's code (a cell that
    # only reads a value the student assigned records no call)
    assert sum(entry["calls"] for entry in now.values()) > 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit(
            f"usage: python -m tests.autograder.judge.test_seeded_cases --record\n{__doc__}"
        )
    DIGESTS.write_text(json.dumps(all_digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DIGESTS.relative_to(REPO_ROOT)}")
