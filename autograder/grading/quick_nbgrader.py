"""Make nbgrader's own bookkeeping cheap without changing what it does.

nbgrader opens a fresh :class:`nbgrader.api.Gradebook` (a new SQLAlchemy engine, its
connection pool, its statement cache) about ten times per autograde, and checks its
metadata schema against JSON Schema's meta-schema before validating every cell. The
profile printed by ``benchmarks/bench_autograder.py`` showed both among the largest costs
of a graded submission after the student's own cells. Two process-wide changes remove
them, each with the same results:

* :func:`share_gradebook_engines`: one engine per gradebook URL, kept for the process,
  so a statement SQLAlchemy compiled for one ``Gradebook`` is reused by the next and the
  SQLite connection stays open between them. Each ``Gradebook`` still gets its own
  session, commits as before and closes it.
* :func:`check_schemas_once`: nbgrader's metadata schema is a constant file; checking it
  against the meta-schema once per process, instead of once per cell, leaves every
  cell's validation (and its error) as it was.
* :func:`check_tables_once`: every ``Gradebook`` nbgrader opens lists the database's
  tables and runs ``create_all`` (a query per table on SQLite); on a shared engine the
  first open of the process does it, and the later ones skip it (nbgrader drops no
  table), still checking the course row as before.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_LOCK = threading.Lock()
#: Engines by (process, URL, options): a forked child never uses its parent's connections.
_ENGINES: dict[tuple[int, str, tuple[tuple[str, Any], ...]], Any] = {}
_CHECKED_SCHEMAS: set[str] = set()
#: The shared engines whose database has had its tables checked (and made) in this process.
_TABLES_READY: set[tuple[int, int]] = set()
#: The URLs whose engines are shared; None: every URL (a worker's only gradebook is its own).
_SHARED_URLS: set[str] | None = set()


def share_gradebook_engines(url: str | None = None) -> None:
    """Let nbgrader's ``Gradebook`` reuse one engine for *url* (None: for every URL) in this process.

    ``Gradebook.close`` disposes its engine; on a shared one that would close the pooled
    connection for every later ``Gradebook`` too, so a shared engine keeps its pool until
    :func:`close_shared_engines` (SQLite commits are on disk at each ``commit``, which
    nbgrader calls). A process that opens many gradebooks once each (the grader opens every
    worker's) shares only the one it opens again and again. Idempotent.
    """
    global _SHARED_URLS
    import nbgrader.api
    from sqlalchemy import create_engine

    with _LOCK:
        if url is None:
            _SHARED_URLS = None
        elif _SHARED_URLS is not None:
            _SHARED_URLS.add(str(url))
    if getattr(nbgrader.api.create_engine, "shares_engines", False):
        return

    def shared_engine(url, **kwargs):
        if _SHARED_URLS is not None and str(url) not in _SHARED_URLS:
            return create_engine(url, **kwargs)
        key = (os.getpid(), str(url), tuple(sorted(kwargs.items())))
        with _LOCK:
            engine = _ENGINES.get(key)
            if engine is None:
                engine = create_engine(url, **kwargs)
                engine.dispose = _keep_pool  # type: ignore[method-assign]
                _ENGINES[key] = engine
            return engine

    shared_engine.shares_engines = True  # type: ignore[attr-defined]
    nbgrader.api.create_engine = shared_engine


def _keep_pool(close: bool = True) -> None:
    """A shared engine's ``dispose``: the pool stays for the next ``Gradebook``."""


def close_shared_engines() -> None:
    """Dispose every shared engine (their connections closed); later opens make new ones."""
    from sqlalchemy.engine import Engine

    global _SHARED_URLS
    with _LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
        _TABLES_READY.clear()
        _SHARED_URLS = set()
    for engine in engines:
        Engine.dispose(engine)


def check_schemas_once() -> None:
    """Check nbgrader's cell-metadata schema once per process, then validate cells against it.

    ``jsonschema.validate`` checks the schema itself before every instance; nbgrader calls
    it for each cell of each notebook it reads, writes or checks. This does what
    ``jsonschema.validate`` does (the validator class the schema names, the same best
    error raised) with that schema check done once per distinct schema. Idempotent.
    """
    import json

    import jsonschema
    import nbgrader.nbgraderformat.common as common

    if getattr(common.jsonschema, "checks_schemas_once", False):
        return

    class _Validate:
        """Stands in for the ``jsonschema`` module inside nbgrader's metadata validator."""

        checks_schemas_once = True
        ValidationError = jsonschema.ValidationError

        @staticmethod
        def validate(instance, schema, cls=None, *args, **kwargs) -> None:
            if cls is None:
                cls = jsonschema.validators.validator_for(schema)
            key = json.dumps(schema, sort_keys=True) + repr(cls)
            if key not in _CHECKED_SCHEMAS:
                cls.check_schema(schema)
                _CHECKED_SCHEMAS.add(key)
            error = jsonschema.exceptions.best_match(
                cls(schema, *args, **kwargs).iter_errors(instance)
            )
            if error is not None:
                raise error

        def __getattr__(self, name: str) -> Any:
            return getattr(jsonschema, name)

    common.jsonschema = _Validate()


def check_tables_once() -> None:
    """Check a shared engine's tables once per process, not at every ``Gradebook`` opened on it.

    nbgrader's ``Gradebook.__init__`` (0.9) lists the tables, runs ``create_all``, writes
    the alembic version into a new database, then checks the course row. An autograde
    opens the worker's gradebook about ten times. Once one open on a shared engine (see
    :func:`share_gradebook_engines`) has done all that, the tables are there for every
    later one: those open a session on the engine and check the course, as nbgrader does.
    Any other engine takes nbgrader's own way each time. Idempotent.
    """
    import nbgrader.api
    from sqlalchemy.orm import scoped_session, sessionmaker

    gradebook = nbgrader.api.Gradebook
    if getattr(gradebook.__init__, "checks_tables_once", False):
        return
    original = gradebook.__init__

    def __init__(self, db_url, course_id="default_course", authenticator=None):  # noqa: N807
        engine = nbgrader.api.create_engine(db_url, echo=False, future=True)
        if (os.getpid(), id(engine)) not in _TABLES_READY:
            original(self, db_url, course_id, authenticator)
            if getattr(engine, "dispose", None) is _keep_pool:  # a shared engine: kept
                with _LOCK:
                    _TABLES_READY.add((os.getpid(), id(engine)))
            return
        self.engine = engine
        self.db = scoped_session(sessionmaker(autoflush=True, bind=engine, future=True))
        self.check_course(course_id=course_id)
        self.course_id = course_id
        self.authenticator = authenticator

    __init__.checks_tables_once = True  # type: ignore[attr-defined]
    __init__.__doc__ = original.__doc__
    gradebook.__init__ = __init__


def quicken(url: str | None = None) -> None:
    """The three changes (see the module's docstring); engines shared for *url* (None: every URL)."""
    share_gradebook_engines(url)
    check_schemas_once()
    check_tables_once()
