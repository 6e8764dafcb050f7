"""n8n's MongoDB Chat Memory: one document per session, and how big it grows.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1 (``MemoryMongoDbChat``, collection default
``n8n_chat_histories``) and ``@langchain/mongodb`` 1.0.1 ``MongoDBChatMessageHistory``:
each session is one document ``{sessionId, messages: [{type, data}, ...]}``; a write
is ``updateOne({sessionId}, {$push: {messages: {$each: [...]}}}, {upsert: true})``; a
read is ``findOne``; nothing expires. Every message therefore makes one document
bigger, and MongoDB refuses a document over 16 MiB (its ``maxBsonObjectSize``).

There is no MongoDB server here, so the layout is computed, not stored:
:func:`bson_size` is the exact length of the document's BSON encoding (the format is
simple for strings, objects and arrays), checked against pymongo's ``bson`` in the tests.

>>> from windowmem.messages import user
>>> doc = session_document("abc", [user("hi")])
>>> bson_size(doc)
155
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from windowmem.messages import Message
from windowmem.storage.base import StorageError, check_conversation_id, check_messages
from windowmem.storage.langchain_json import nested

#: MongoDB's largest document, in bytes (16 MiB).
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
#: An ObjectId ``_id`` field: type byte, ``"_id\\0"``, 12 bytes.
_OBJECT_ID_FIELD = 1 + 4 + 12


def session_document(session_id: str, messages: Sequence[Message]) -> dict[str, Any]:
    """The document LangChain keeps for *session_id* (without the ``_id`` MongoDB adds)."""
    return {
        "sessionId": check_conversation_id(session_id),
        "messages": [nested(m) for m in check_messages(messages)],
    }


def bson_size(document: dict[str, Any], *, with_object_id: bool = True) -> int:
    """Bytes of *document* encoded as BSON, plus the ``_id`` MongoDB adds on insert."""
    return _document_size(document) + (_OBJECT_ID_FIELD if with_object_id else 0)


def _document_size(document: dict[str, Any] | list[Any]) -> int:
    items = (
        document.items()
        if isinstance(document, dict)
        else ((str(i), v) for i, v in enumerate(document))
    )
    # int32 length, the elements, a closing NUL.
    return 4 + sum(_element_size(name, value) for name, value in items) + 1


def _element_size(name: str, value: Any) -> int:
    head = 1 + len(name.encode("utf-8")) + 1  # type byte, field name, NUL
    if isinstance(value, str):
        return head + 4 + len(value.encode("utf-8")) + 1
    if isinstance(value, bool):
        return head + 1
    if isinstance(value, (dict, list)):
        return head + _document_size(value)
    raise StorageError(
        f"bson_size models strings, booleans, objects and arrays, not {type(value).__name__}"
    )


def turns_until_full(session_id: str, user_text: str, reply_text: str) -> int:
    """How many identical turns (*user_text*, then *reply_text*) fit before the cap.

    Each turn adds the same two array items, so the size grows by a fixed step and the
    count is arithmetic; :func:`bson_size` of that many turns is still under the cap.
    """
    from windowmem.messages import assistant, user

    empty = bson_size(session_document(session_id, []))
    one = bson_size(session_document(session_id, [user(user_text), assistant(reply_text)])) - empty
    # Array keys grow in length ("9" -> "10" -> "100"): step through digit counts exactly.
    turns, size = 0, empty
    while True:
        width_messages = (2 * turns, 2 * turns + 1)
        extra = sum(len(str(i)) - 1 for i in width_messages)  # longer index names than "0"/"1"
        if size + one + extra > MAX_DOCUMENT_BYTES:
            return turns
        size += one + extra
        turns += 1
