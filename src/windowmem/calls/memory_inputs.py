"""Which n8n nodes can take a memory at all: agents can, chains can't.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1: no node under ``nodes/chains/`` declares an
``ai_memory`` input, while the AI Agent does (one memory at most: ``maxConnections`` 1 for
``ai_memory`` in ``nodes/agents/Agent/utils.js``). A few other nodes take a memory too:
the Chat Trigger (to reload a session into the chat window), the Chat node, the Chat
Memory Manager, the LangChain Code node and OpenAI's "Message an Assistant". n8n's docs
put the rule for the AI root nodes in one line: "In n8n, AI agent nodes can use memory,
but AI chains can't."

>>> takes_memory("Basic LLM Chain"), takes_memory("AI Agent")
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.errors import WindowMemError

#: The n8n release these inputs were read in.
READ_IN = "@n8n/n8n-nodes-langchain 2.41.1"


@dataclass(frozen=True, slots=True)
class NodeInputs:
    """An n8n node, its internal type name, and whether it has a Memory input."""

    display_name: str
    type_name: str
    kind: str
    """``agent``, ``chain`` or ``other``."""
    memory_input: bool


NODES = (
    NodeInputs("AI Agent", "agent", "agent", True),
    # An agent used as another agent's tool takes a memory of its own, like the AI Agent.
    NodeInputs("AI Agent Tool", "agentTool", "agent", True),
    NodeInputs("Basic LLM Chain", "chainLlm", "chain", False),
    NodeInputs("Question and Answer Chain", "chainRetrievalQa", "chain", False),
    NodeInputs("Summarization Chain", "chainSummarization", "chain", False),
    NodeInputs("Information Extractor", "informationExtractor", "chain", False),
    NodeInputs("Sentiment Analysis", "sentimentAnalysis", "chain", False),
    NodeInputs("Text Classifier", "textClassifier", "chain", False),
    NodeInputs("Chat Trigger", "chatTrigger", "other", True),
    NodeInputs("Chat", "chat", "other", True),
    NodeInputs("Chat Memory Manager", "memoryManager", "other", True),
    NodeInputs("LangChain Code", "code", "other", True),
    NodeInputs("OpenAI: Message an Assistant", "openAi", "other", True),
)


def node_inputs(name: str) -> NodeInputs:
    """The node called *name* (its display name or internal type name, any case)."""
    wanted = name.strip().lower()
    for node in NODES:
        if wanted in (node.display_name.lower(), node.type_name.lower()):
            return node
    known = ", ".join(n.display_name for n in NODES)
    raise WindowMemError(f"no node {name!r} in the table read from {READ_IN}: use one of {known}")


def takes_memory(name: str) -> bool:
    """True when the n8n node *name* has a Memory input (as read in 2.41.1)."""
    return node_inputs(name).memory_input


__all__ = ["NODES", "READ_IN", "NodeInputs", "node_inputs", "takes_memory"]
