"""Our OpenAI Agents SDK model against the real ``openai-agents`` package, run offline.

Every random conversation (tool calls included) is played through ``Runner.run`` with a
scripted model and an in-memory ``SQLiteSession``; what the model receives on each turn
and what the session stores must be what :class:`OpenAIAgentsSession` and the replay say.
The named vectors hold for the version installed (0.24.0 when written); the version-
dependent one is checked against the rule for that version.
"""

from __future__ import annotations

import importlib.metadata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import event_loop
from tests.strategies import PROPERTY_SETTINGS, chat, conversations, turns
from windowmem.messages import Message, Role
from windowmem.policies.openai_agents import OpenAIAgentsSession, parse_version, stored_items
from windowmem.replay import replay

agents = pytest.importorskip("agents")
driver = pytest.importorskip("tests.policies.openai_agents_driver")
keys, expected_inputs = driver.keys, driver.expected_inputs

SDK_VERSION = importlib.metadata.version("openai-agents")


limits = st.one_of(st.none(), st.integers(-2, 14))


@settings(parent=PROPERTY_SETTINGS, max_examples=120)  # each example runs the real Runner
@given(messages=conversations(mid_chat_system=False), limit=limits, reasoning=st.booleans())
def test_model_input_and_storage_match_the_sdk(messages, limit, reasoning):
    policy = OpenAIAgentsSession(limit, reasoning=reasoning, version=SDK_VERSION)
    run = driver.play(messages, limit, reasoning=reasoning)
    assert run.first_inputs == expected_inputs(messages, policy)
    non_system = [m for m in messages if m.role is not Role.SYSTEM]
    assert run.stored == keys(stored_items(non_system, reasoning=reasoning))


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(messages=conversations(mid_chat_system=False), limit=limits)
def test_replay_sends_what_the_sdk_model_receives(messages, limit):
    """The replay's sent array (system message aside) is the SDK's input, message by message."""
    run = driver.play(messages, limit)
    policy = OpenAIAgentsSession(limit, version=SDK_VERSION)
    for view, received in zip(replay(messages, policy), run.first_inputs, strict=True):
        sent = [m for m in view.sent if m.role is not Role.SYSTEM]
        items = [i for m in sent for i in (_message_keys(m))]
        assert items == received
    system = next((m.content for m in messages if m.role is Role.SYSTEM), None)
    assert all(instructions == system for instructions in run.instructions)


@pytest.mark.parametrize("session_type", driver.OFFLINE_SESSIONS[1:])
@settings(parent=PROPERTY_SETTINGS, max_examples=30)
@given(messages=conversations(mid_chat_system=False), limit=limits)
def test_every_offline_session_type_sends_what_sqlite_session_sends(session_type, messages, limit):
    """``AsyncSQLiteSession``, ``AdvancedSQLiteSession`` (on its main branch) and
    ``SQLAlchemySession`` on SQLite read ``get_items(limit)`` as ``SQLiteSession`` does."""
    policy = OpenAIAgentsSession(limit, version=SDK_VERSION)
    run = driver.play(messages, limit, session_type=session_type)
    assert run.first_inputs == expected_inputs(messages, policy)
    non_system = [m for m in messages if m.role is not Role.SYSTEM]
    assert run.stored == keys(stored_items(non_system))


def _message_keys(message: Message) -> list[tuple[str, ...]]:
    if message.role is Role.TOOL:
        return [("function_call_output", message.tool_call_id, message.content)]
    out: list[tuple[str, ...]] = []
    if message.role is not Role.ASSISTANT or message.content or not message.tool_calls:
        out.append(("message", message.role.value, message.content))
    out.extend(("function_call", call) for call in message.tool_calls)
    return out


# --- named vectors (openai-agents 0.24.0; the split-exchange rule by version) ----------


async def _get_items(session, limit):
    rows = [{"role": "user", "content": f"m{i}"} for i in range(1, 6)]
    await session.add_items(rows)
    return [row["content"] for row in await session.get_items(limit)]


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (None, ["m1", "m2", "m3", "m4", "m5"]),
        (2, ["m4", "m5"]),
        (0, []),
        (-1, ["m1", "m2", "m3", "m4", "m5"]),
        (-7, ["m1", "m2", "m3", "m4", "m5"]),
        (9, ["m1", "m2", "m3", "m4", "m5"]),
    ],
)
@pytest.mark.parametrize("session_type", driver.OFFLINE_SESSIONS)
def test_get_items_limits_as_the_sdk_returns_them(session_type, limit, expected):
    async def stored_then_read():
        session = driver.open_session(session_type, agents.SessionSettings())
        try:
            return await _get_items(session, limit)
        finally:
            await driver.close_session(session)

    assert event_loop.run(stored_then_read()) == expected
    messages = tuple(Message(Role.USER, f"m{i}") for i in range(1, 6))
    assert [m.content for m in OpenAIAgentsSession(limit).window(messages)] == expected


def test_session_defaults_no_limit_and_an_in_memory_database():
    session = agents.SQLiteSession("defaults")
    try:
        assert session.db_path == ":memory:"
        assert session.session_settings.limit is None
    finally:
        session.close()
    assert OpenAIAgentsSession().size is None and OpenAIAgentsSession.default_size is None


def test_the_limit_counts_items_not_turns():
    """A tool turn stores five items: limit 6 reaches back only to a1, not to three turns."""
    history = chat("u1 a1 u2 c2 r2 a2 u3 a3")
    run = driver.play(history, 6)
    assert run.stored == keys(stored_items(history))
    assert len(run.stored) == 9
    # Turn 3 sees the latest 6 of the 7 items stored by turns 1-2, then u3.
    assert run.first_inputs[2] == [
        ("message", "assistant", "a1"),
        ("message", "user", "u2"),
        ("message", "assistant", "c2"),
        ("function_call", "call2"),
        ("function_call_output", "call2", "r2"),
        ("message", "assistant", "a2"),
        ("message", "user", "u3"),
    ]


def test_a_split_exchange_by_version():
    """Limit 2 keeps [output2, a2] of turn 2's items: the call that output answers is cut off."""
    history = chat("u1 a1 u2 c2 r2 a2 u3")
    run = driver.play(history, 2)
    sent = run.first_inputs[2]
    if parse_version(SDK_VERSION) >= (0, 20, 0):
        expected = [("message", "assistant", "a2"), ("message", "user", "u3")]
    else:  # 0.8-0.19 send the orphaned output; the Responses API rejects such a request
        expected = [("function_call_output", "call2", "r2"), *sent[1:]]
    assert sent == expected
    window = OpenAIAgentsSession(2, version=SDK_VERSION).window(history[:-1])
    assert [("message", "user", "u3")] == sent[-1:] and len(window) == len(sent) - 1
    # Storage keeps both halves in every version.
    assert ("function_call", "call2") in run.stored


def test_reasoning_items_take_rows_of_their_own():
    history = chat("u1 c1 r1 a1 u2")
    run = driver.play(history, None, reasoning=True)
    assert [key[0] for key in run.stored] == [
        "message",
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "message",
        "message",
    ]


def test_a_plain_long_chat_is_the_latest_items():
    history = turns(6)
    run = driver.play(history, 4)
    assert run.first_inputs[-1] == [
        ("message", "user", "u4"),
        ("message", "assistant", "a4"),
        ("message", "user", "u5"),
        ("message", "assistant", "a5"),
        ("message", "user", "u6"),
    ]
