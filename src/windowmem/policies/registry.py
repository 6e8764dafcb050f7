"""Every window policy by the name the CLI and the lessons use, and one way to make them.

>>> make_policy("langchain-py").size
5
>>> make_policy("spring-ai", 3).trims_on_write
True
>>> [info.name for info in policy_infos()][:3]
['n8n', 'langchain-js', 'langchain-py']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from windowmem.errors import PolicyError
from windowmem.policies.agent_framework import (
    AgentFrameworkSummarization,
    AgentFrameworkTruncation,
)
from windowmem.policies.base import Unit, WindowPolicy
from windowmem.policies.langchain import LangChainJsBufferWindow, LangChainPyBufferWindow
from windowmem.policies.langchain_agents import (
    LangChainContextEditing,
    LangChainTrimInput,
    LangChainTrimState,
)
from windowmem.policies.langgraph import (
    LangChainSummarization,
    LangGraphThread,
    LangGraphTrimInput,
    LangGraphTrimState,
)
from windowmem.policies.llamaindex import LlamaIndexChatMemoryBuffer
from windowmem.policies.llamaindex_memory import LlamaIndexMemory
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.openai_agents import OpenAIAgentsSession
from windowmem.policies.package_versions import MODELLED
from windowmem.policies.semantic_kernel import SemanticKernelTruncation
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.policies.tensorify import TensorifyWindowMemory
from windowmem.policies.trim_messages import TrimMessages

#: Policy name -> class, in the order tables list them.
POLICIES: Mapping[str, type[WindowPolicy]] = {
    cls.name: cls
    for cls in (
        N8nSimpleMemory,
        LangChainJsBufferWindow,
        LangChainPyBufferWindow,
        TrimMessages,
        SpringAiMessageWindow,
        SpringAi1xMessageWindow,
        LlamaIndexChatMemoryBuffer,
        SemanticKernelTruncation,
        TensorifyWindowMemory,
        OpenAIAgentsSession,
        LangGraphThread,
        LangGraphTrimInput,
        LangGraphTrimState,
        LangChainSummarization,
        LangChainTrimInput,
        LangChainTrimState,
        LangChainContextEditing,
        LlamaIndexMemory,
        AgentFrameworkTruncation,
        AgentFrameworkSummarization,
    )
}


@dataclass(frozen=True, slots=True)
class PolicyInfo:
    """One row of ``windowmem policies``: what a policy models and how its size is counted."""

    name: str
    product: str
    unit: Unit
    default_size: int | None
    trims_on_write: bool
    description: str
    superseded: str | None = None
    use_instead: tuple[str, ...] = ()
    source: str = ""
    """The product's file(s) the model was read from."""
    packages: tuple[str, ...] = ()
    """Each modelled package with the version read and tested, ``"langchain 1.5.2"``."""


def packages_of(name: str) -> tuple[str, ...]:
    """The packages (and versions) that policy *name* models, from :data:`MODELLED`.

    >>> packages_of("langchain-trim-state"), packages_of("tensorify")
    (('langchain 1.5.2',), ('Tensorify Window Memory documented',))
    """
    return tuple(f"{m.package} {m.version}" for m in MODELLED if name in m.policies)


def policy_class(name: str) -> type[WindowPolicy]:
    """The policy class registered as *name*, or a PolicyError listing the valid names."""
    try:
        return POLICIES[name]
    except (KeyError, TypeError):
        valid = ", ".join(POLICIES)
        raise PolicyError(f"unknown window policy {name!r}: use one of {valid}") from None


def options_of(cls: type[WindowPolicy]) -> tuple[str, ...]:
    """The keyword options *cls* takes besides its size (``counter``, ``include_system``, ...)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "size")


def make_policy(name: str, size: Any = None, **options: Any) -> WindowPolicy:
    """The policy *name* with window *size* (None: the product's default) and *options*.

    An unknown name, an option the policy does not have, or a size it cannot take
    raises a PolicyError that says what would be accepted.
    """
    cls = policy_class(name)
    unknown = sorted(set(options) - set(options_of(cls)))
    if unknown:
        allowed = ", ".join(options_of(cls)) or "none"
        raise PolicyError(
            f"{name}: unknown option(s) {', '.join(unknown)}; this policy takes: {allowed}"
        )
    chosen: Any = cls.default_size if size is None else size
    try:
        return cls(chosen, **options)
    except PolicyError as error:
        accepted = getattr(cls, "accepted_sizes", "see the policy's documentation")
        raise PolicyError(f"{error}. {name} ({cls.product}) accepts {accepted}") from None


def describe(cls: type[WindowPolicy]) -> str:
    """The first line of *cls*'s docstring."""
    return (cls.__doc__ or cls.product).strip().splitlines()[0]


def policy_infos() -> tuple[PolicyInfo, ...]:
    """A row per registered policy, in registry order."""
    return tuple(
        PolicyInfo(
            cls.name,
            cls.product,
            cls.unit,
            cls.default_size,
            cls.trims_on_write,
            describe(cls),
            cls.superseded,
            cls.use_instead,
            cls.source,
            packages_of(cls.name),
        )
        for cls in POLICIES.values()
    )
