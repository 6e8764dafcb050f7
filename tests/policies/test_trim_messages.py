"""trim_messages(strategy="last"): the peers.md table and the rules read from langchain-core."""

from __future__ import annotations

import pytest

from tests.strategies import chat, contents
from windowmem.errors import PolicyError
from windowmem.messages import system, user
from windowmem.policies import TrimMessages
from windowmem.tokens import count_messages, count_words

HISTORY = chat("[s,u1,a1,u2,a2,u3,a3]")

#: peers.md: trim_messages(strategy="last", token_counter=len) on [s,u1,a1,u2,a2,u3,a3].
PEERS_TABLE = [
    (dict(size=4), "u2 a2 u3 a3"),
    (dict(size=4, include_system=True), "s a2 u3 a3"),
    (dict(size=4, include_system=True, start_on="human"), "s u3 a3"),
    (dict(size=5, include_system=True, start_on="human"), "s u2 a2 u3 a3"),
    (dict(size=0, include_system=True), "s"),
    (dict(size=0), ""),
    (dict(size=100, start_on="human"), "u1 a1 u2 a2 u3 a3"),
]


@pytest.mark.parametrize(("options", "expected"), PEERS_TABLE)
def test_peers_table_with_one_token_per_message(options, expected):
    assert (
        contents(TrimMessages(counter=count_messages, **options).window(HISTORY))
        == expected.split()
    )


def test_system_message_is_kept_even_when_it_alone_is_over_budget():
    history = (system("a long system prompt of many words"), user("hi there"))
    assert contents(TrimMessages(3, include_system=True).window(history)) == [
        "a long system prompt of many words"
    ]


def test_only_the_first_message_is_protected():
    history = chat("u1 s a1")
    assert contents(
        TrimMessages(1, counter=count_messages, include_system=True).window(history)
    ) == ["a1"]


def test_the_run_stops_at_the_first_message_that_does_not_fit():
    history = (user("one"), user("two words"), user("three more words"), user("x"))
    # From the end: x (1), "three more words" (4 total), "two words" would make 6 > 5: stop.
    assert contents(TrimMessages(5).window(history)) == ["three more words", "x"]


def test_start_on_can_leave_nothing():
    assert TrimMessages(100, counter=count_messages, start_on="tool").window(HISTORY) == ()


def test_end_on_drops_from_the_end_first_even_the_system_message():
    assert contents(TrimMessages(3, counter=count_messages, end_on="human").window(HISTORY)) == [
        "u2",
        "a2",
        "u3",
    ]
    assert (
        TrimMessages(3, counter=count_messages, include_system=True, end_on="tool").window(HISTORY)
        == ()
    )


def test_role_names_use_either_spelling():
    a = TrimMessages(5, counter=count_messages, start_on="human").window(HISTORY)
    b = TrimMessages(5, counter=count_messages, start_on=("user",)).window(HISTORY)
    assert a == b


def test_bad_options_are_reported():
    with pytest.raises(PolicyError, match="start_on"):
        TrimMessages(5, start_on="robot")
    with pytest.raises(PolicyError, match="trim-messages"):
        TrimMessages(-1)
    with pytest.raises(PolicyError, match="counter"):
        TrimMessages(5, counter="len")  # type: ignore[arg-type]


def test_default_counter_counts_words():
    assert TrimMessages().counter is count_words
    assert TrimMessages.unit.value == "tokens"
