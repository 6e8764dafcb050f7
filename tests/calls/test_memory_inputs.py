"""Which n8n nodes take a memory (nodes-langchain 2.41.1, fact sheet B2): chains none, the agent one."""

from __future__ import annotations

import pytest

from windowmem.calls.memory_inputs import NODES, node_inputs, takes_memory
from windowmem.errors import WindowMemError

#: The chain nodes the fact sheet lists under nodes/chains/, none with an ai_memory input.
CHAINS = (
    "chainLlm",
    "chainRetrievalQa",
    "chainSummarization",
    "informationExtractor",
    "sentimentAnalysis",
    "textClassifier",
)
#: The other nodes the fact sheet lists with a memory input, and the AI Agent Tool
#: (``agentTool``, typeVersions 2 to 2.2), which takes the AI Agent's inputs, memory included.
WITH_MEMORY = ("agent", "agentTool", "chatTrigger", "chat", "memoryManager", "code", "openAi")


def test_chains_cannot_agents_can():
    assert not any(takes_memory(name) for name in CHAINS)
    assert all(takes_memory(name) for name in WITH_MEMORY)
    assert {n.type_name for n in NODES} == set(CHAINS) | set(WITH_MEMORY)
    assert all(n.kind == "chain" for n in NODES if n.type_name in CHAINS)


def test_names_are_found_by_display_or_type_name():
    assert node_inputs("basic llm chain") is node_inputs("chainLlm")
    with pytest.raises(WindowMemError, match="no node 'Memory Agent'"):
        takes_memory("Memory Agent")
