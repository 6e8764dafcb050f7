"""The n8n chat widget's session id, in the browser and on n8n's hosted chat page.

The Chat Trigger does not make the session id: the chat widget (``@n8n/chat`` 1.37.0)
does, and keeps it in the browser's local storage. Whether a page opened later reuses it
depends on the widget's ``loadPreviousSession``, which n8n's hosted chat page sets from the
Chat Trigger's *Load Previous Session* option (nodes-langchain 2.41.1, ``templates.js``).

>>> widget_session_id("old-id", load_previous_session=hosted_chat_loads_previous_session("Off"), fresh="new-id")
'new-id'
"""

from __future__ import annotations

from windowmem.errors import SessionKeyError

#: Where the n8n chat widget (``@n8n/chat`` 1.37.0) keeps its session id in the browser.
WIDGET_STORAGE_KEY = "n8n-chat/sessionId"


def widget_session_id(stored: str | None, *, load_previous_session: bool, fresh: str) -> str:
    """The session id the chat widget uses when a page opens (``startNewSession``, ``@n8n/chat`` 1.37.0).

    *stored* is ``localStorage["n8n-chat/sessionId"]`` for the page's origin, shared by
    every tab of that browser profile; *fresh* is the new UUID the widget would make.
    The stored id is reused only when Load Previous Session is on; the hosted chat's
    option is Off by default, so each page load starts a new session.

    >>> widget_session_id("old-id", load_previous_session=False, fresh="new-id")
    'new-id'
    >>> widget_session_id("old-id", load_previous_session=True, fresh="new-id")
    'old-id'
    """
    if not isinstance(fresh, str) or not fresh:
        raise SessionKeyError("fresh must be the new id the widget would generate (non-empty text)")
    if stored and load_previous_session:
        return stored
    return fresh


#: The Chat Trigger's *Load Previous Session* option: each label and the value a workflow saves
#: (``ChatTrigger.node.js``, nodes-langchain 2.41.1); Off is the default.
LOAD_PREVIOUS_SESSION = {"Off": "notSupported", "From Memory": "memory", "Manually": "manually"}


def hosted_chat_loads_previous_session(option: str) -> bool:
    """Whether n8n's hosted chat page turns the widget's ``loadPreviousSession`` on under *option*.

    The hosted page (``templates.js`` ``createPage``, nodes-langchain 2.41.1) passes
    ``loadPreviousSession: option !== 'notSupported'`` to ``createChat``: every option but
    Off, *Manually* as well as *From Memory*, makes the widget reuse the id stored in the
    browser (:func:`widget_session_id`). *option* is a label or its saved value.

    >>> [hosted_chat_loads_previous_session(o) for o in ("Off", "From Memory", "Manually")]
    [False, True, True]
    >>> hosted_chat_loads_previous_session("Always")
    Traceback (most recent call last):
    ...
    windowmem.errors.SessionKeyError: unknown Load Previous Session option 'Always': use Off, From Memory or Manually
    """
    value = LOAD_PREVIOUS_SESSION.get(option, option)
    if value not in LOAD_PREVIOUS_SESSION.values():
        raise SessionKeyError(
            f"unknown Load Previous Session option {option!r}: use {', '.join(list(LOAD_PREVIOUS_SESSION)[:-1])} "
            f"or {list(LOAD_PREVIOUS_SESSION)[-1]}"
        )
    return value != LOAD_PREVIOUS_SESSION["Off"]
