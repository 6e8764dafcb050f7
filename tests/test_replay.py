"""Replay: each turn's sent array equals the definition, turn bookkeeping is right, bad input is named."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, chat, contents, conversations, turns
from windowmem.conversation import Conversation
from windowmem.errors import PolicyError, WindowMemError
from windowmem.examples import load_example
from windowmem.messages import Role, assistant, interactions, system, user
from windowmem.policies.base import Memory, Unit, WindowPolicy
from windowmem.policies.n8n import N8nSimpleMemory, visible_turns
from windowmem.policies.registry import POLICIES, make_policy
from windowmem.replay import TurnView, iter_turn_views, replay, turn_view
from windowmem.tokens import count_words


def expected_sent(messages, policy, turn):
    """The definition, computed from scratch: system + window over earlier turns + the new user message."""
    first_system = next((m for m in messages if m.role is Role.SYSTEM), None)
    all_turns = interactions(messages)
    earlier = [m for t in all_turns[: turn - 1] for m in t.messages]
    opening = all_turns[turn - 1].user_message
    new = (opening,) if opening else ()
    head = (first_system,) if first_system else ()
    if policy.includes_new_message:  # LangGraph's hooks see the thread with the new message
        memory = Memory(policy)
        memory.add(*earlier)
        return head + memory.load_with(new)
    return head + policy.window(earlier) + new


@PROPERTY_SETTINGS
@given(conversations(max_turns=8), st.sampled_from(sorted(POLICIES)), st.integers(-2, 12))
def test_incremental_replay_equals_the_definition_for_every_policy(messages, name, size):
    try:
        policy = make_policy(name, size)
    except PolicyError:
        assume(False)
    views = replay(messages, policy, count_words)
    assert len(views) == len(interactions(messages))
    for view in views:
        sent = expected_sent(messages, policy, view.turn)
        assert view.sent == sent
        assert view.input_tokens == sum(count_words(m) for m in sent)
        assert all(m.role is not Role.SYSTEM for m in view.window)


@PROPERTY_SETTINGS
@given(st.integers(0, 15), st.integers(1, 20))
def test_n8n_replay_of_plain_turns_matches_the_arithmetic(window, turn_count):
    views = replay(turns(turn_count), N8nSimpleMemory(window))
    for view in views:
        assert view.visible_turns == visible_turns(window, view.turn)
        assert view.partial_turns == ()
        assert set(view.visible_turns) | set(view.evicted_turns) == set(range(1, view.turn))
        assert not set(view.visible_turns) & set(view.evicted_turns)


@PROPERTY_SETTINGS
@given(conversations(max_turns=8), st.integers(1, 6))
def test_turn_bookkeeping_follows_the_messages_in_the_window(messages, window):
    all_turns = interactions(messages)
    for view in replay(messages, N8nSimpleMemory(window)):
        earlier = [m for t in all_turns[: view.turn - 1] for m in t.messages]
        # n8n's window is a suffix of what was stored: the turn of each message is known by position.
        owners = [t.number for t in all_turns[: view.turn - 1] for _ in t.messages][
            len(earlier) - len(view.window) :
        ]
        assert view.visible_turns == tuple(sorted(set(owners)))
        expected_partial = tuple(
            n for n in sorted(set(owners)) if owners.count(n) < len(all_turns[n - 1].messages)
        )
        assert view.partial_turns == expected_partial
        assert view.evicted_turns == tuple(n for n in range(1, view.turn) if n not in owners)


def test_peers_tool_slice_leaves_turn_1_partly_visible():
    # peers.md: k=2 over [u1, ai(call), tool, a1, u2, a2] loads [tool, a1, u2, a2].
    view = turn_view(chat("[u1, ai(call), tool, a1, u2, a2, u3]"), N8nSimpleMemory(2), 3)
    assert contents(view.window) == ["tool", "a1", "u2", "a2"]
    assert view.visible_turns == (1, 2)
    assert view.partial_turns == (1,)
    assert view.evicted_turns == ()


def test_identical_messages_are_attributed_to_their_own_turns():
    same = [m for _ in range(6) for m in (user("ok"), assistant("ok"))]
    view = turn_view(same + [user("ok")], N8nSimpleMemory(2), 7)
    assert view.visible_turns == (5, 6)
    assert view.evicted_turns == (1, 2, 3, 4)


def test_a_greeting_turn_sends_no_user_message():
    conversation = [system("S"), assistant("Welcome to TuTienda!"), user("Hi"), assistant("Hello")]
    first, second = replay(conversation, N8nSimpleMemory(5))
    assert first.new_message is None and contents(first.sent) == ["S"]
    assert contents(second.sent) == ["S", "Welcome to TuTienda!", "Hi"]
    assert second.visible_turns == (1,)


def test_only_the_first_system_message_is_sent_and_none_is_stored():
    conversation = [system("S1"), user("u1"), assistant("a1"), system("S2"), user("u2")]
    view = turn_view(conversation, N8nSimpleMemory(5), 2)
    assert contents(view.sent) == ["S1", "u1", "a1", "u2"]


def test_turn_view_equals_the_full_replay_at_that_turn():
    marta = load_example("marta")
    full = replay(marta, N8nSimpleMemory(3))
    assert [turn_view(marta, N8nSimpleMemory(3), t) for t in range(1, 8)] == list(full)
    assert isinstance(full[0], TurnView)


def test_iter_turn_views_is_lazy():
    views = iter_turn_views(turns(2_000), N8nSimpleMemory(5))
    assert next(views).turn == 1 and next(views).turn == 2


def test_a_list_of_messages_and_a_conversation_replay_alike():
    messages = load_example("tool_use").messages
    assert replay(messages, N8nSimpleMemory(2)) == replay(
        Conversation(messages), N8nSimpleMemory(2)
    )


def test_input_tokens_count_the_sent_array_with_the_given_counter():
    view = turn_view(load_example("marta"), N8nSimpleMemory(5), 2)
    assert view.input_tokens == 4
    words = turn_view(load_example("marta"), N8nSimpleMemory(5), 2, count_words)
    assert words.input_tokens == sum(len(m.content.split()) for m in words.sent)


@pytest.mark.parametrize("turn", [0, 8, -1, "3", 2.0, True])
def test_turn_view_refuses_a_turn_outside_the_conversation(turn):
    with pytest.raises(WindowMemError, match="turn"):
        turn_view(load_example("marta"), N8nSimpleMemory(5), turn)


def test_replay_refuses_what_is_not_a_conversation_or_a_policy():
    with pytest.raises(WindowMemError, match="load_conversation"):
        replay("marta.json", N8nSimpleMemory(5))  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match="make_policy"):
        replay(load_example("marta"), 5)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EveryOtherMessage(WindowPolicy):
    """A made-up policy whose window is not a suffix: every other stored message, newest kept."""

    size: int = 0
    name: ClassVar[str] = "every-other"
    product: ClassVar[str] = "test policy"
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int] = 0

    def load(self, stored):
        return tuple(stored)[::-2][::-1]


@PROPERTY_SETTINGS
@given(conversations(max_turns=8))
def test_turn_bookkeeping_for_a_window_that_is_not_a_suffix(messages):
    all_turns = interactions(messages)
    for view in replay(messages, EveryOtherMessage(), count_words):
        owners = [t.number for t in all_turns[: view.turn - 1] for _ in t.messages][::-2][::-1]
        assert view.visible_turns == tuple(sorted(set(owners)))
        assert view.partial_turns == tuple(
            n for n in sorted(set(owners)) if owners.count(n) < len(all_turns[n - 1].messages)
        )
        assert view.input_tokens == sum(count_words(m) for m in view.sent)


def test_iter_turn_views_refuses_bad_input_before_iterating():
    with pytest.raises(PolicyError):
        iter_turn_views(load_example("marta"), "n8n")  # type: ignore[arg-type]
