"""The items n8n's WhatsApp and Telegram triggers pass on, and the Key that finds the customer in each.

Read from ``n8n-nodes-base`` 2.41.1 (``WhatsApp/WhatsAppTrigger.node.js`` and
``Telegram/TelegramTrigger.node.js``, ``webhook()``), and checked by running those two
functions on the sample payloads below (``tests/n8n/test_node_source.py``):

* the WhatsApp Trigger turns each ``entry[].changes[]`` of Meta's webhook body into one
  item, the change's ``value`` plus its ``field``; in a message, the sender's phone number
  is ``messages[0].from``;
* the Telegram Trigger passes on Telegram's *Update* as it came; in a message, the chat's
  id is ``message.chat.id`` (a number; n8n turns it into text for the session id).

Both triggers also start the workflow on events that carry no customer message, and the
Keys above then find nothing ("Key parameter is empty"): WhatsApp's status updates (the
sent, delivered and read receipts of the agent's own replies: ``statuses``, no
``messages``), which come unless the trigger's *Receive Message Status Updates* option is
added with no status selected; and any Telegram update other than a new ``message`` (an
edit comes as ``edited_message``) unless *Trigger On* is *Message* only.

The payloads follow the two platforms' documented webhook formats, shortened.

>>> from windowmem.policies.n8n.session_ids import define_below, session_id
>>> session_id(telegram_trigger_item(TELEGRAM_UPDATE), **define_below(TELEGRAM_KEY))
'7001'
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from windowmem.errors import SessionKeyError

#: The Key (Define below) that reads the sender's phone number from a WhatsApp Trigger item.
WHATSAPP_KEY = "={{ $json.messages[0].from }}"
#: The Key (Define below) that reads the chat's id from a Telegram Trigger item.
TELEGRAM_KEY = "={{ $json.message.chat.id }}"


def _whatsapp_body(**event: Any) -> dict[str, Any]:
    """Meta's webhook body around one change to the business number, its value holding *event*."""
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550783881", "phone_number_id": "106540352242922"},
        **event,
    }
    change = {"field": "messages", "value": value}
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": "102290129340398", "changes": [change]}],
    }


#: A WhatsApp Cloud API webhook body carrying one text message (shortened).
WHATSAPP_BODY: dict[str, Any] = _whatsapp_body(
    contacts=[{"profile": {"name": "Marta"}, "wa_id": "573001112233"}],
    messages=[
        {
            "from": "573001112233",
            "id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=",
            "timestamp": "1765090000",
            "type": "text",
            "text": {"body": "Where is my order?"},
        }
    ],
)

#: The same webhook body carrying a status update instead: the reply was delivered.
WHATSAPP_STATUS_BODY: dict[str, Any] = _whatsapp_body(
    statuses=[
        {
            "id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3QjRDRTk2QUM5QTI1NzdGQUIA",
            "status": "delivered",
            "timestamp": "1765090005",
            "recipient_id": "573001112233",
        }
    ]
)

#: A Telegram Bot API *Update* carrying one private-chat message (shortened).
TELEGRAM_UPDATE: dict[str, Any] = {
    "update_id": 10000,
    "message": {
        "message_id": 1365,
        "from": {"id": 7001, "is_bot": False, "first_name": "Marta"},
        "chat": {"id": 7001, "first_name": "Marta", "type": "private"},
        "date": 1765090000,
        "text": "Where is my order?",
    },
}


#: The same chat's message, edited by the customer: Telegram sends it as ``edited_message``.
TELEGRAM_EDITED_UPDATE: dict[str, Any] = {
    "update_id": 10001,
    "edited_message": {
        **TELEGRAM_UPDATE["message"],
        "edit_date": 1765090030,
        "text": "Where is my order #6023?",
    },
}


def whatsapp_trigger_items(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The items the WhatsApp Trigger makes of Meta's webhook *body*: one per change.

    >>> [item["messages"][0]["from"] for item in whatsapp_trigger_items(WHATSAPP_BODY)]
    ['573001112233']
    """
    if body.get("object") != "whatsapp_business_account" or not isinstance(body.get("entry"), list):
        raise SessionKeyError(
            "not a WhatsApp webhook body: it needs object 'whatsapp_business_account' and a "
            "list under 'entry' (see WHATSAPP_BODY)"
        )
    return [
        {**copy.deepcopy(change["value"]), "field": change["field"]}
        for entry in body["entry"]
        for change in entry["changes"]
    ]


def telegram_trigger_item(update: Mapping[str, Any]) -> dict[str, Any]:
    """The item the Telegram Trigger makes of an *update* (no file download, no filters): the update.

    >>> telegram_trigger_item(TELEGRAM_UPDATE)["message"]["chat"]["id"]
    7001
    """
    if "update_id" not in update:
        raise SessionKeyError(
            "not a Telegram update: it needs an 'update_id' (see TELEGRAM_UPDATE)"
        )
    return copy.deepcopy(dict(update))
