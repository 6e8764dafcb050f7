"""Keep Jupyter's tools quick to import in every grading process.

``import nbformat`` pulls in ``jsonschema``'s format checkers, and jsonschema imports
``rfc3987_syntax`` (installed through jupyter-events' ``jsonschema[format-nongpl]``) to
check the ``iri`` string format. That package compiles an Earley parser while it is
imported: 1-5 s in each process, paid again by every worker. No notebook or nbgrader
schema uses the ``iri`` formats, and jsonschema already treats a checker whose import
fails as "format not checked". Marking the module unavailable in ``sys.modules`` is
therefore lossless here, needs no change to the environment, and so survives any
reinstall. ``benchmarks/bench_autograder.py`` measures the import before and after.

nbformat's validator is chosen here too: see the end of this module.
"""

import os
import sys

#: Modules that cost seconds at import and that grading never needs.
SLOW_UNUSED_MODULES = ("rfc3987_syntax",)

for _name in SLOW_UNUSED_MODULES:
    # setdefault: a process that already imported it keeps its working copy.
    sys.modules.setdefault(_name, None)  # type: ignore[arg-type]

# nbformat validates every notebook it reads and writes (autograde does both several times
# per student); fastjsonschema, already an nbformat dependency, does it about 4x faster.
os.environ.setdefault("NBFORMAT_VALIDATOR", "fastjsonschema")
