"""The errors n8n's memory nodes raise about session ids, word for word (n8n 2.41.1).

``@n8n/n8n-nodes-langchain`` 2.41.1, ``utils/helpers.js`` (``getSessionId``,
``coerceSessionIdToString``) throws a ``NodeOperationError`` whose message is short and
whose description says what to do. Both are kept here once, so every module that
resolves a session id raises the same texts the n8n editor shows.

>>> str(N8nNodeError(NO_SESSION_ID))
'No session ID found'
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.errors import SessionKeyError


@dataclass(frozen=True)
class NodeErrorText:
    """An n8n ``NodeOperationError``'s *message* and the *description* shown under it."""

    message: str
    description: str


NO_SESSION_ID = NodeErrorText(
    "No session ID found",
    "Expected to find the session ID in an input field called 'sessionId' (this is what the "
    "chat trigger node outputs). To use something else, change the 'Session ID' parameter",
)
KEY_EMPTY = NodeErrorText(
    "Key parameter is empty",
    "Provide a key to use as session ID in the 'Key' parameter or use the 'Connected Chat "
    "Trigger Node' option to use the session ID from your Chat Trigger",
)
INVALID_SESSION_ID = NodeErrorText("Invalid session ID", "The session ID must be a text value")


class N8nNodeError(SessionKeyError):
    """What n8n's memory node raises: ``str(error)`` is n8n's message, ``description`` its detail."""

    def __init__(self, text: NodeErrorText) -> None:
        super().__init__(text.message)
        self.text = text

    @property
    def message(self) -> str:
        return self.text.message

    @property
    def description(self) -> str:
        return self.text.description
