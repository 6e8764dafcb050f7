"""Which package, at which version, each window policy models, and how it compares with the newest.

A model is exact for the version it was read and tested at. A newer release may change
the rule, so it must be *reported* (then tested and the model updated), never assumed
to behave the same. :data:`MODELLED` is the one list; ``scripts/check_versions.py``
(``make check-versions``) asks each registry for its newest version and prints
:func:`version_report`.

>>> rows = version_report({"openai-agents": "0.25.0", "langchain": "1.5.2"})
>>> [(r.package, r.status) for r in rows if r.package in ("openai-agents", "langchain")]
[('langchain', 'current'), ('openai-agents', 'newer: 0.25.0')]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class Registry(StrEnum):
    """Where a package is published (and so how its newest version is looked up)."""

    PYPI = "pypi"
    NPM = "npm"
    MAVEN = "maven"
    #: No public package: nothing to look up (documented behaviour only).
    NONE = "none"


@dataclass(frozen=True, slots=True)
class ModelledPackage:
    """A package whose behaviour some policies model, at the version they were checked against."""

    registry: Registry
    package: str
    version: str
    policies: tuple[str, ...]
    #: What else is built on the package, where no window policy is (``windowmem.prices``).
    models: str = ""

    @property
    def recheck(self) -> str:
        """What to test again when the registry serves a newer version.

        >>> MODELLED[-1].recheck
        'windowmem.prices (tests/test_prices.py)'
        """
        return ", ".join(self.policies) or self.models


#: Every modelled package, the version read and tested, and the policies built on it.
MODELLED: tuple[ModelledPackage, ...] = (
    ModelledPackage(Registry.NPM, "@n8n/n8n-nodes-langchain", "2.41.1", ("n8n",)),
    ModelledPackage(Registry.NPM, "@langchain/classic", "1.0.50", ("langchain-js",)),
    ModelledPackage(Registry.PYPI, "langchain-classic", "1.0.8", ("langchain-py",)),
    ModelledPackage(Registry.PYPI, "langchain-core", "1.8.3", ("trim-messages",)),
    ModelledPackage(
        Registry.MAVEN, "org.springframework.ai:spring-ai-model", "2.0.1", ("spring-ai",)
    ),
    ModelledPackage(
        Registry.MAVEN, "org.springframework.ai:spring-ai-model@1.x", "1.1.8", ("spring-ai-1x",)
    ),
    ModelledPackage(
        Registry.PYPI, "llama-index-core", "0.14.25", ("llamaindex", "llamaindex-memory")
    ),
    ModelledPackage(Registry.PYPI, "semantic-kernel", "1.45.0", ("semantic-kernel",)),
    ModelledPackage(Registry.NONE, "Tensorify Window Memory", "documented", ("tensorify",)),
    ModelledPackage(Registry.PYPI, "openai-agents", "0.24.0", ("openai-agents",)),
    ModelledPackage(
        Registry.PYPI,
        "langgraph",
        "1.2.24",
        ("langgraph", "langgraph-trim-input", "langgraph-trim-state"),
    ),
    ModelledPackage(
        Registry.PYPI,
        "langgraph-prebuilt",
        "1.1.3",
        ("langgraph", "langgraph-trim-input", "langgraph-trim-state"),
    ),
    ModelledPackage(
        Registry.PYPI,
        "langchain",
        "1.5.2",
        (
            "langchain-summarization",
            "langchain-trim-input",
            "langchain-trim-state",
            "langchain-context-editing",
        ),
    ),
    ModelledPackage(
        Registry.PYPI,
        "agent-framework-core",
        "1.23.0",
        ("agent-framework-truncation", "agent-framework-summarization"),
    ),
    # The list prices lessons 3, 5 and 6 bill with: pydantic's table, which cites each
    # provider's price page.
    ModelledPackage(
        Registry.PYPI, "genai-prices", "0.2.5", (), "windowmem.prices (tests/test_prices.py)"
    ),
)


@dataclass(frozen=True, slots=True)
class VersionRow:
    """One line of the report: a package, the version modelled, the newest found, and a verdict."""

    registry: Registry
    package: str
    modelled: str
    newest: str | None
    status: str
    policies: tuple[str, ...]
    recheck: str = ""


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """A sort key for release numbers: numeric parts as numbers, ``1.10.0`` after ``1.9.3``.

    >>> version_key("1.10.0") > version_key("1.9.3"), version_key("0.25.0") > version_key("0.24.0")
    (True, True)
    """
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"[.\-+]", version)
    )


def status_of(modelled: str, newest: str | None, registry: Registry) -> str:
    """``current``, ``newer: X`` (a release the model was not checked against), or why unknown.

    >>> status_of("0.24.0", "0.24.0", Registry.PYPI), status_of("0.24.0", None, Registry.PYPI)
    ('current', 'not looked up')
    """
    if registry is Registry.NONE:
        return "no public package"
    if newest is None:
        return "not looked up"
    if version_key(newest) > version_key(modelled):
        return f"newer: {newest}"
    return "current"


def version_report(newest: Mapping[str, str | None]) -> tuple[VersionRow, ...]:
    """A row per modelled package, sorted by registry then name, given the *newest* versions found."""
    rows = (
        VersionRow(
            m.registry,
            m.package,
            m.version,
            newest.get(m.package),
            status_of(m.version, newest.get(m.package), m.registry),
            m.policies,
            m.recheck,
        )
        for m in MODELLED
    )
    return tuple(sorted(rows, key=lambda r: (r.registry.value, r.package)))


def stale(rows: tuple[VersionRow, ...]) -> tuple[VersionRow, ...]:
    """The rows whose registry serves a version newer than the one modelled."""
    return tuple(r for r in rows if r.status.startswith("newer"))
