"""Run a student's function with windowmem's computing helpers out of reach (the behaviour check).

An assignment question that asks a student to *rebuild* what windowmem computes is graded
by running the student's function inside :class:`without_library`: for the length of the
call every windowmem object the question does not allow is replaced, wherever the
function could reach it, by a :class:`Blocked` stand-in that raises :class:`LibraryBlocked`
when it is used. What the function may reach, and where it is replaced:

* the names it reads: its globals (the notebook's namespace) and ``builtins``;
* what those names hold: lists, tuples, dicts, sets, ``functools.partial``, bound methods,
  the notebook's own classes and their instances, and modules the student wrote;
* its closure cells and its default arguments, and those of every function it can reach;
* ``sys.modules``: a forbidden module becomes ``None`` (an ``import`` of it fails), an
  allowed module or package a filtered copy (``import windowmem; windowmem.cost`` fails);
* the import machinery: a finder first on ``sys.meta_path`` refuses every windowmem module
  not already loaded, and ``io.open_code`` refuses windowmem's files, so neither
  ``importlib.import_module``, ``importlib.reload`` nor ``spec_from_file_location`` loads
  a fresh copy.

Everything is put back when the block ends. A function that does not need the library
runs unchanged; one that does fails with a message naming the helper. What it returns is
then kept only if it is made of the plain types the question allows (:func:`plain`), so a
lazy object cannot call the library after the block.

It stops the paths a student takes to reach a helper, not a hunt through the
interpreter's internals (``gc.get_objects()``, an allowed helper's ``__globals__``,
frames) or a copy of the library's source read as text and executed: those are copying,
which a reader of the answer sees. Standard library only; it imports no windowmem module.

>>> import windowmem.cost
>>> def bill():
...     return windowmem.cost.input_bill.__name__
>>> with without_library(bill):
...     bill()
Traceback (most recent call last):
...
windowmem.behaviour_check.stand_ins.LibraryBlocked: windowmem.cost is not allowed here: ...
>>> bill()
'input_bill'
"""

from __future__ import annotations

from windowmem.behaviour_check.block import sealed, without_library
from windowmem.behaviour_check.stand_ins import Blocked, LibraryBlocked
from windowmem.behaviour_check.values import PLAIN_TYPES, plain

__all__ = ["PLAIN_TYPES", "Blocked", "LibraryBlocked", "plain", "sealed", "without_library"]
