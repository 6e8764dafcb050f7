"""Window policies: faithful models of the window memories of real agent frameworks."""

from windowmem.policies.base import Memory, TokenCounter, Unit, WindowPolicy
from windowmem.policies.counting import count_one, count_words
from windowmem.policies.langchain import LangChainJsBufferWindow, LangChainPyBufferWindow
from windowmem.policies.llamaindex import LlamaIndexChatMemoryBuffer
from windowmem.policies.n8n import N8nSimpleMemory, drop_orphaned_tool_messages
from windowmem.policies.n8n_store import ManualClock, SimpleMemoryStore
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
    "PolicyInfo",
    "SemanticKernelTruncation",
    "SimpleMemoryStore",
    "SpringAi1xMessageWindow",
    "SpringAiMessageWindow",
    "TensorifyWindowMemory",
    "TokenCounter",
    "TrimMessages",
    "Unit",
    "WindowPolicy",
    "count_one",
    "count_words",
    "drop_orphaned_tool_messages",
    "make_policy",
    "policy_class",
    "policy_infos",
]
