"""n8n's session ids per trigger and typeVersion, against the checked fact sheet's vectors and quotes.

The vectors are the table in the fact sheet's section A3 (nodes-langchain 2.41.1, workflow
id ``wf1``, node named ``Simple Memory``); the error texts are quoted from its section A2.
"""

from __future__ import annotations

import pytest

from windowmem.errors import SessionKeyError
from windowmem.policies.n8n.session_ids import (
    INVALID_SESSION_ID,
    KEY_EMPTY,
    NO_SESSION_ID,
    SCHEDULE_FIELDS,
    SCOPED_NOTICE,
    N8nNodeError,
    chat_trigger_item,
    coerce_session_id,
    evaluate_parameter,
    schedule_item,
    scopes_to_node,
    session_id,
    simple_memory_buffer_key,
    webhook_item,
)

CHAT = {"action": "sendMessage", "sessionId": "abc", "chatInput": "hi"}
WEBHOOK = {"headers": {}, "params": {}, "query": {}, "body": {"sessionId": "abc"}}
WEBHOOK_NO_ID = {"headers": {}, "params": {}, "query": {}, "body": {}}
SCHEDULE = {name: "x" for name in SCHEDULE_FIELDS}

# (typeVersion, Session ID option, Key parameter, item, buffer key or error message)
VECTORS = [
    (1, None, None, {"anything": 1}, "wf1__chat_history"),
    (1.3, "fromInput", None, CHAT, "wf1__abc"),
    (1.4, "fromInput", None, CHAT, "wf1__abc__Simple_Memory"),
    (1.4, "customKey", "={{ $json.sessionId }}", CHAT, "wf1__abc"),
    (1.4, "fromInput", None, WEBHOOK, "No session ID found"),
    (1.4, "customKey", "={{ $json.body.sessionId }}", WEBHOOK, "wf1__abc"),
    (1.4, "customKey", "={{ $json.body.sessionId }}", WEBHOOK_NO_ID, "Key parameter is empty"),
    (1.4, "fromInput", None, {"sessionId": 42}, "wf1__42__Simple_Memory"),
    (1.4, "fromInput", None, {"sessionId": {"id": 1}}, "Invalid session ID"),
    (1.4, "fromInput", None, SCHEDULE, "No session ID found"),
    (1.4, "customKey", "nightly-report", SCHEDULE, "wf1__nightly-report"),
]


@pytest.mark.parametrize("version, id_type, key, item, expected", VECTORS)
def test_fact_sheet_vectors(version, id_type, key, item, expected):
    kwargs = {"workflow_id": "wf1", "type_version": version, "key": key}
    if id_type is not None:
        kwargs["id_type"] = id_type
    if expected.startswith("wf1__"):
        assert simple_memory_buffer_key(item, **kwargs) == expected
    else:
        with pytest.raises(N8nNodeError) as caught:
            simple_memory_buffer_key(item, **kwargs)
        assert str(caught.value) == expected


def test_error_texts_are_n8ns_word_for_word():
    assert (NO_SESSION_ID.message, NO_SESSION_ID.description) == (
        "No session ID found",
        "Expected to find the session ID in an input field called 'sessionId' (this is what the "
        "chat trigger node outputs). To use something else, change the 'Session ID' parameter",
    )
    assert (KEY_EMPTY.message, KEY_EMPTY.description) == (
        "Key parameter is empty",
        "Provide a key to use as session ID in the 'Key' parameter or use the 'Connected Chat "
        "Trigger Node' option to use the session ID from your Chat Trigger",
    )
    assert (INVALID_SESSION_ID.message, INVALID_SESSION_ID.description) == (
        "Invalid session ID",
        "The session ID must be a text value",
    )
    assert SCOPED_NOTICE.startswith("Session is automatically scoped only to this memory node.")


def test_an_error_carries_its_description_and_is_a_session_key_error():
    with pytest.raises(SessionKeyError) as caught:
        session_id(webhook_item({"sessionId": "abc"}))
    assert isinstance(caught.value, N8nNodeError)
    assert caught.value.description == NO_SESSION_ID.description


def test_the_trigger_items_have_the_shapes_n8n_gives_them():
    assert chat_trigger_item("abc", "hi") == CHAT
    assert webhook_item({"sessionId": "abc"}) == WEBHOOK
    assert set(schedule_item()) == set(SCHEDULE_FIELDS)
    assert "sessionId" not in schedule_item()


def test_from_input_falls_back_to_the_workflows_chat_trigger():
    item = {"body": {"x": 1}}
    assert session_id(item, chat_trigger=CHAT) == "abc"
    with pytest.raises(N8nNodeError, match="No session ID found"):
        session_id(item, chat_trigger={"sessionId": ""})


@pytest.mark.parametrize(
    "value, text",
    [(42, "42"), ("42", "42"), (0, "0"), (False, "false"), ("  ", "  "), (1.5, "1.5")],
)
def test_ids_are_coerced_like_javascript_and_never_trimmed(value, text):
    assert coerce_session_id(value) == text


@pytest.mark.parametrize("value", [{"id": 1}, [1], None])
def test_objects_lists_and_null_are_not_text(value):
    with pytest.raises(N8nNodeError, match="Invalid session ID"):
        coerce_session_id(value)


def test_zero_and_false_are_ids_not_empty():
    assert session_id({"sessionId": 0}) == "0"
    assert session_id({}, id_type="customKey", key=False) == "false"


def test_version_1_1_only_coerces_so_a_missing_id_is_invalid():
    with pytest.raises(N8nNodeError, match="Invalid session ID"):
        simple_memory_buffer_key(WEBHOOK, workflow_id="wf1", type_version=1.1)
    assert simple_memory_buffer_key(CHAT, workflow_id="wf1", type_version=1.1) == "wf1__abc"


@pytest.mark.parametrize(
    "name, cleaned",
    [
        ("Simple Memory", "Simple_Memory"),
        ("Postgres Chat Memory", "Postgres_Chat_Memory"),
        ("Mémoire 1", "M_moire_1"),
        ("🧠 Memory", "___Memory"),
        ("a.b/c-d_e", "a_b_c-d_e"),
    ],
)
def test_version_1_4_appends_the_cleaned_node_name(name, cleaned):
    key = simple_memory_buffer_key(CHAT, workflow_id="wf1", type_version=1.4, node_name=name)
    assert key == f"wf1__abc__{cleaned}"


def test_two_nodes_share_a_custom_key_but_not_an_inherited_id():
    def key(name, **kw):
        return simple_memory_buffer_key(CHAT, workflow_id="wf1", node_name=name, **kw)

    assert key("Memory A") != key("Memory B")
    custom = {"id_type": "customKey", "key": "={{ $json.sessionId }}"}
    assert key("Memory A", **custom) == key("Memory B", **custom)


@pytest.mark.parametrize(
    "node, version, scoped",
    [
        ("memoryBufferWindow", 1.3, False),
        ("memoryBufferWindow", 1.4, True),
        ("memoryPostgresChat", 1.4, True),
        ("memoryRedisChat", 1.5, False),
        ("memoryRedisChat", 1.6, True),
        ("memoryMongoDbChat", 1.1, True),
        ("memoryXata", 1.4, False),
        ("someFutureMemory", 1.0, True),
    ],
)
def test_scoping_minimum_versions(node, version, scoped):
    assert scopes_to_node(node, version, "fromInput") is scoped
    assert scopes_to_node(node, version, "customKey") is False


def test_expressions_return_raw_values_and_join_text():
    item = webhook_item({"tenant": "t1", "user": 7})
    assert evaluate_parameter("={{ $json.body.user }}", item) == 7
    assert evaluate_parameter("={{ $json.body.tenant }}:{{ $json.body.user }}", item) == "t1:7"
    assert evaluate_parameter("plain text {{ not read }}", item) == "plain text {{ not read }}"
    with pytest.raises(SessionKeyError, match="does not guess"):
        evaluate_parameter("=t:{{ $json.body.missing }}", item)
    with pytest.raises(SessionKeyError, match="not modelled"):
        evaluate_parameter("={{ $now }}", item)


def test_unknown_versions_and_options_are_refused_with_the_valid_ones():
    with pytest.raises(SessionKeyError, match="1.4"):
        simple_memory_buffer_key(CHAT, workflow_id="wf1", type_version=2)
    with pytest.raises(SessionKeyError, match="customKey"):
        session_id(CHAT, id_type="header")  # type: ignore[arg-type]


def test_buffer_key_or_error_gives_the_message_instead_of_raising():
    from windowmem.policies.n8n.session_ids import buffer_key_or_error

    assert buffer_key_or_error(CHAT, workflow_id="wf1", type_version=1.3) == "wf1__abc"
    assert buffer_key_or_error(WEBHOOK, workflow_id="wf1") == "No session ID found"
    with pytest.raises(SessionKeyError, match="typeVersions"):
        buffer_key_or_error(CHAT, workflow_id="wf1", type_version=9)
