"""How many small mistakes in the model solutions the hidden tests catch (mutation score).

Usage::

    python scripts/mutation_score.py                         # every assignment under source/
    python scripts/mutation_score.py lesson03                # the assignments whose name starts so
    python scripts/mutation_score.py lesson01 --json         # the figures as JSON on stdout
    python scripts/mutation_score.py --json out.json         # the table, and the JSON in out.json
    python scripts/mutation_score.py lesson04 --list         # the mutants only, nothing run

For each answer cell of an assignment's source notebook, the code between
``### BEGIN SOLUTION`` and ``### END SOLUTION`` is parsed and changed in one place at a
time by the operators below (:data:`OPERATORS`). Each such *mutant* is the notebook with
that one region replaced and every other answer the model solution. The notebook is then
graded the way the judge grades it (``autograder/judge/hidden_tests.py``): every cell runs
in order in one namespace (test cells with their visible part only), then every test cell
runs whole, hidden section included, with :func:`~autograder.judge.hidden_tests.run_test`
on the judge's setup namespace, the notebook's names read as each test cell found them and
its functions called with plain data going in and out. A mutant is **killed** when its
autograded total is below the model solution's, **invalid** when its answer cell does not
compile or raises when it runs (the student would see that), and **survives** otherwise.
A survivor is either an equivalent mutant or a mistake no test catches: only a reader can
tell which, so every survivor is listed with its cell, line and change. What a reader found
equivalent (no input the question allows tells it from the model solution) is recorded in
``scripts/mutation_equivalent.toml`` (:data:`EQUIVALENT_FILE`), with why: such a survivor counts as **equivalent**, in neither figure of
the score, and is listed apart with its reason. A record that matches a killed mutant, or no
mutant of the notebook at all (its cell changed), is reported as *stale*: read it again.

Operators, each one change (:data:`OPERATORS`), never inside string formatting (an f-string,
``str.format`` or ``%``: a message's text):

``compare``       ``<``/``<=``, ``>``/``>=``, ``==``/``!=``, ``in``/``not in``, ``is``/``is not`` swapped
``int``           an integer constant plus one, then minus one
``arith``         ``+``/``-`` swapped (not when one side is a literal string, list or tuple)
``boolop``        ``and``/``or`` swapped
``slice``         ``[a:b]`` to ``[a + 1:b]`` and to ``[a:b - 1]`` (for the bounds written)
``min_max``       ``min``/``max`` swapped
``any_all``       ``any``/``all`` swapped
``negate_if``     the condition of an ``if`` statement or an ``x if c else y`` negated
``delete``        one statement of a block replaced by ``pass`` (not a def, class or import)
``early_return``  the block's first ``return`` whose value uses none of the block's own names,
                  copied to the block's start (the function answers that for every input)

The table gives per assignment the mutants run (*generated*), *invalid*, *killed* (of them,
*timeout*: ran too long; *hidden-only*: no visible check failed, only the hidden sections
noticed), *survived*, *equivalent* (survived, and recorded there, or proved by the harness: see :data:`SAME_VALUES`), *errors*
(the harness itself failed on a mutant: look at it, it is in neither figure) and *score* =
killed / (killed + survived); then every survivor, and every equivalent one with its reason.

At most :data:`CAP_PER_CELL` mutants per answer cell are run: when a cell has more, an even
sample of them in source order, offset by :data:`SEED`. A mutant whose run takes longer than
``max(--timeout, TIMEOUT_FACTOR x the model solution's time for the same cells)`` is counted
as killed and reported as a timeout.

Speed: the harness runs in one worker process per assignment, which imports the libraries
once and runs the model solution cell by cell; at each answer cell it forks one child per
mutant of that cell, so a child runs only the cells from there on (the test cells before
it cannot see the change) and stops grading at the first test cell that loses points. The
judge's sandboxed kernel and socket are replaced by the same process: the scoring, the
namespaces and the plain-data crossing are the judge's own functions. Two shortcuts: the
model solution is first checked to earn full points here (else the assignment is reported
as a harness error and not scored), and the test cells before a mutated cell are taken to
score what they score for the model solution.

The parts live in the ``mutation`` package beside this script, one idea each: ``operators``,
``notebooks`` (the mutants of a notebook), ``equivalents`` (the record), ``harness`` (the
judge's grading in one process, a fork per mutant), ``scoring`` and ``report``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the mutation package beside this file

from mutation import REPO_ROOT, SOURCE  # noqa: E402
from mutation.equivalents import EQUIVALENT_FILE, Equivalent, load_equivalents  # noqa: E402
from mutation.harness import (  # noqa: E402
    BASELINE_SECONDS,
    MEMORY_HEADROOM,
    TIMEOUT_FACTOR,
    InProcessKernel,
    Notebook,
    Run,
    forked,
    values_of,
    work,
    worker_main,
)
from mutation.notebooks import (  # noqa: E402
    CAP_PER_CELL,
    SEED,
    Mutant,
    cell_mutants,
    even_sample,
    notebook_mutants,
    solution_regions,
)
from mutation.operators import OPERATORS, Change, CodeMutant, Context, code_mutants  # noqa: E402
from mutation.report import find_notebooks, listing, survivors, table  # noqa: E402
from mutation.scoring import (  # noqa: E402
    MUTANT_SECONDS,
    SAME_VALUES,
    AssignmentScore,
    Outcome,
    apply_equivalents,
    judge_outcome,
    score_assignment,
)

__all__ = [
    "BASELINE_SECONDS",
    "CAP_PER_CELL",
    "EQUIVALENT_FILE",
    "MEMORY_HEADROOM",
    "MUTANT_SECONDS",
    "OPERATORS",
    "REPO_ROOT",
    "SAME_VALUES",
    "SEED",
    "SOURCE",
    "TIMEOUT_FACTOR",
    "AssignmentScore",
    "Change",
    "CodeMutant",
    "Context",
    "Equivalent",
    "InProcessKernel",
    "Mutant",
    "Notebook",
    "Outcome",
    "Run",
    "apply_equivalents",
    "cell_mutants",
    "code_mutants",
    "even_sample",
    "find_notebooks",
    "forked",
    "judge_outcome",
    "listing",
    "load_equivalents",
    "main",
    "notebook_mutants",
    "score_assignment",
    "solution_regions",
    "survivors",
    "table",
    "values_of",
    "work",
]


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--worker"]:
        return worker_main(args[1], args[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", help="assignment folder names (or their starts)")
    parser.add_argument("--cap", type=int, default=CAP_PER_CELL, help="mutants per answer cell")
    parser.add_argument(
        "--timeout", type=float, default=MUTANT_SECONDS, help="seconds per mutant, at least"
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="the figures as JSON: on stdout instead of the table, or into FILE beside it",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    options = parser.parse_args(args)
    notebooks = find_notebooks(options.assignments)
    if options.list:
        print("\n".join(listing(nb, options.cap) for nb in notebooks))
        return 0
    scores = []
    for path in notebooks:
        print(f"{path.parent.name}: running", file=sys.stderr, flush=True)
        scores.append(score_assignment(path, options.cap, options.timeout))
    if options.json:
        text = json.dumps([s.as_dict() for s in scores], indent=1)
        if options.json == "-":
            print(text)
        else:
            Path(options.json).write_text(text + "\n")
    if options.json != "-":
        print(table(scores))
        for s in scores:
            if not s.harness_error:
                print(survivors(s))
    return 1 if any(s.harness_error for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
