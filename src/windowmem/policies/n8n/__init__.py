"""Everything windowmem knows about n8n's Simple Memory, in one place.

* :mod:`.simple_memory`: the window (the last ``2k`` messages), the turns it reaches
  (:func:`visible_turns`), the closed-form bill of a uniform chat
  (:func:`n8n_uniform_bill`) and the agent's clean-up of broken tool exchanges;
* :mod:`.buffer_names`: which buffer a request goes to (``workflowId__sessionId``);
* :mod:`.store`: where the buffers live and when they vanish (one process, one hour).
"""

from windowmem.policies.n8n.buffer_names import (
    N8N_KEY_SEPARATOR,
    N8N_NODE_SCOPED_VERSION,
    N8N_SOURCES,
    N8nSource,
    n8n_buffer_key,
    n8n_node_scope,
    n8n_safe_name,
    n8n_session_id,
)
from windowmem.policies.n8n.simple_memory import (
    N8nSimpleMemory,
    drop_orphaned_tool_messages,
    n8n_uniform_bill,
    visible_turns,
)
from windowmem.policies.n8n.store import (
    DEFAULT_NODE_NAME,
    IDLE_LIMIT_SECONDS,
    BufferEntry,
    ManualClock,
    SimpleMemoryStore,
)

__all__ = [
    "DEFAULT_NODE_NAME",
    "IDLE_LIMIT_SECONDS",
    "N8N_KEY_SEPARATOR",
    "N8N_NODE_SCOPED_VERSION",
    "N8N_SOURCES",
    "BufferEntry",
    "ManualClock",
    "N8nSimpleMemory",
    "N8nSource",
    "SimpleMemoryStore",
    "drop_orphaned_tool_messages",
    "n8n_buffer_key",
    "n8n_node_scope",
    "n8n_safe_name",
    "n8n_session_id",
    "n8n_uniform_bill",
    "visible_turns",
]
