"""The chat widget's session id: reused from the browser only when Load Previous Session is on."""

from __future__ import annotations

import pytest

from windowmem.errors import SessionKeyError
from windowmem.policies.n8n import session_ids
from windowmem.policies.n8n.chat_widget import (
    LOAD_PREVIOUS_SESSION,
    hosted_chat_loads_previous_session,
    widget_session_id,
)


def test_the_widget_reuses_its_stored_id_only_with_load_previous_session():
    assert widget_session_id(None, load_previous_session=True, fresh="n") == "n"
    assert widget_session_id("s", load_previous_session=True, fresh="n") == "s"
    assert widget_session_id("s", load_previous_session=False, fresh="n") == "n"
    with pytest.raises(SessionKeyError):
        widget_session_id("s", load_previous_session=True, fresh="")


def test_the_hosted_page_reuses_the_stored_id_under_every_option_but_off():
    # templates.js passes loadPreviousSession: option !== 'notSupported' (nodes-langchain 2.41.1)
    assert hosted_chat_loads_previous_session("Off") is False
    assert hosted_chat_loads_previous_session("notSupported") is False
    assert hosted_chat_loads_previous_session("From Memory") is True
    assert hosted_chat_loads_previous_session("Manually") is True
    assert hosted_chat_loads_previous_session("manually") is True
    with pytest.raises(SessionKeyError, match="Off, From Memory or Manually"):
        hosted_chat_loads_previous_session("always")
    with pytest.raises(SessionKeyError):
        hosted_chat_loads_previous_session("off")  # labels are matched exactly, as n8n saves them


def test_the_hosted_page_options_are_the_chat_trigger_s_three():
    assert LOAD_PREVIOUS_SESSION == {
        "Off": "notSupported",
        "From Memory": "memory",
        "Manually": "manually",
    }


def test_session_ids_still_offers_the_widget_s_functions():
    # the lessons and their check books reach them as n8n.widget_session_id
    assert session_ids.widget_session_id is widget_session_id
    assert session_ids.hosted_chat_loads_previous_session is hosted_chat_loads_previous_session
