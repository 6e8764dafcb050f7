"""Which of windowmem's files a grading kernel is shown: only what the assignment hands out.

A student who calls the course's library instead of answering must score nothing on the
cells it answers, however the call is made (through a renamed copy, a ``SimpleNamespace``,
``gc``): the modules that compute answers are therefore not in the grading kernel at all.
The kernel is shown the files its locked setup cells load when they run (the small types,
the tokenizer, the data, whatever the assignment's prompts allow), those the judge's end of
the channel needs (the conversation types and the behaviour check), their compiled copies,
and the package's data folder; nothing else of windowmem exists in the sandbox. An
assignment whose setup imports nothing of windowmem shows only those few files.

The list is found by running the setup cells in a fresh interpreter, in the assignment's
folder, and reading which windowmem modules it then holds: the instructor's cells, never a
student's.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: Modules the judge's end of the channel imports in the kernel (autograder.judge.in_kernel).
JUDGE_NEEDS = ("windowmem.conversation", "windowmem.messages", "windowmem.behaviour_check")

_PROGRAM = """
import contextlib, io, json, sys
setups = json.loads(sys.argv[1])
namespace = {"__name__": "__main__"}
with contextlib.redirect_stdout(io.StringIO()):
    for code in setups:
        try:
            exec(compile(code, "<setup>", "exec"), namespace)
        except Exception:  # a setup that fails here fails in the kernel too, saying why
            pass
for name in json.loads(sys.argv[2]):
    __import__(name)
files = sorted(
    module.__file__
    for name, module in list(sys.modules.items())
    if (name == "windowmem" or name.startswith("windowmem.")) and getattr(module, "__file__", None)
)
print(json.dumps(files))
"""


def library_files(setup_code: Sequence[str], folder: Path | None) -> tuple[Path, ...]:
    """The windowmem source files the setup cells (run in *folder*) and the judge load.

    >>> files = library_files([], None)
    >>> sorted(f.name for f in files if f.parent.name == "windowmem")[:3]
    ['__init__.py', 'conversation.py', 'errors.py']
    """
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM, json.dumps(list(setup_code)), json.dumps(JUDGE_NEEDS)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            "could not list the windowmem modules the assignment's setup cells load: "
            + result.stderr.strip()[-2000:]
        )
    return tuple(Path(f).resolve() for f in json.loads(result.stdout.strip().splitlines()[-1]))


def package_root() -> Path | None:
    """windowmem's package folder, as this interpreter imports it."""
    spec = importlib.util.find_spec("windowmem")
    return Path(spec.origin).resolve().parent if spec is not None and spec.origin else None


def shown_files(files: Sequence[Path]) -> list[Path]:
    """*files* with their compiled copies (so the kernel need not compile them each start)."""
    shown = []
    for path in files:
        shown.append(path)
        cached = Path(importlib.util.cache_from_source(str(path)))
        if cached.is_file():
            shown.append(cached)
    return shown
