"""The errors windowmem raises: each says what was wrong and what to do about it."""

from __future__ import annotations


class WindowMemError(ValueError):
    """Base class: bad input to windowmem, with a message a person can act on."""


class ConversationFormatError(WindowMemError):
    """A conversation file or object does not have the documented shape."""


class PolicyError(WindowMemError):
    """A window policy was asked for with an unknown name or an invalid size."""


class BudgetError(WindowMemError):
    """The token-budget task was asked for with an unknown strategy or summariser, or a bad budget or seed."""


class SessionKeyError(WindowMemError):
    """A session key is missing, empty or of a type no memory accepts."""
