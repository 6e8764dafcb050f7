"""Window policies: faithful models of the window memories of real agent frameworks."""

from windowmem.policies.base import Memory, PolicyFactory, Unit, WindowPolicy
from windowmem.policies.langchain import LangChainJsBufferWindow, LangChainPyBufferWindow
from windowmem.policies.llamaindex import LlamaIndexChatMemoryBuffer
from windowmem.policies.n8n import (
    ManualClock,
    N8nSimpleMemory,
    SimpleMemoryStore,
    drop_orphaned_tool_messages,
    visible_turns,
)
from windowmem.policies.registry import (
    POLICIES,
    PolicyInfo,
    make_policy,
    policy_class,
    policy_infos,
)
from windowmem.policies.semantic_kernel import SemanticKernelTruncation
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.policies.tensorify import TensorifyWindowMemory
from windowmem.policies.trim_messages import TrimMessages

__all__ = [
    "POLICIES",
    "LangChainJsBufferWindow",
    "LangChainPyBufferWindow",
    "LlamaIndexChatMemoryBuffer",
    "ManualClock",
    "Memory",
    "N8nSimpleMemory",
    "PolicyFactory",
    "PolicyInfo",
    "SemanticKernelTruncation",
    "SimpleMemoryStore",
    "SpringAi1xMessageWindow",
    "SpringAiMessageWindow",
    "TensorifyWindowMemory",
    "TrimMessages",
    "Unit",
    "WindowPolicy",
    "drop_orphaned_tool_messages",
    "make_policy",
    "policy_class",
    "policy_infos",
    "visible_turns",
]
