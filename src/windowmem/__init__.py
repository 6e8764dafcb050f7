"""windowmem: exact models of the window memories AI agents use, and what they cost."""

from windowmem.conversation import Conversation, load_conversation, save_conversation
from windowmem.errors import (
    BudgetError,
    ConversationFormatError,
    PolicyError,
    SessionKeyError,
    WindowMemError,
)
from windowmem.messages import (
    Interaction,
    Message,
    Role,
    assistant,
    interactions,
    system,
    tool,
    user,
)

__all__ = [
    "BudgetError",
    "Conversation",
    "ConversationFormatError",
    "Interaction",
    "Message",
    "PolicyError",
    "Role",
    "SessionKeyError",
    "WindowMemError",
    "assistant",
    "interactions",
    "load_conversation",
    "save_conversation",
    "system",
    "tool",
    "user",
]
