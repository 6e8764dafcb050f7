"""Spring AI's conversation-id fallback by release, against the fact sheet's per-tag check (D1)."""

from __future__ import annotations

import pytest

from windowmem.errors import SessionKeyError
from windowmem.policies.spring_ai_ids import (
    CONVERSATION_ID_KEY,
    IllegalArgumentError,
    advisor_conversation_id,
    falls_back_to_default,
    parse_version,
)

WITH_DEFAULT = [f"1.0.{p}" for p in range(7)] + [f"1.1.{p}" for p in range(6)]
WITH_DEFAULT += [f"2.0.0-M{m}" for m in range(1, 6)]
WITHOUT = ["1.0.7", "1.0.8", "1.0.9", "1.1.6", "1.1.7", "1.1.8", "2.0.0-M6", "2.0.0-M8"]
WITHOUT += ["2.0.0-RC1", "2.0.0", "2.0.1", "v2.0.1"]


@pytest.mark.parametrize("version", WITH_DEFAULT)
def test_early_releases_put_every_caller_without_an_id_in_default(version):
    assert falls_back_to_default(version)
    assert advisor_conversation_id({}, version) == "default"


@pytest.mark.parametrize("version", WITHOUT)
def test_later_releases_raise_spring_ais_message(version):
    assert not falls_back_to_default(version)
    with pytest.raises(IllegalArgumentError) as caught:
        advisor_conversation_id({"other": 1}, version)
    assert str(caught.value) == "conversationId cannot be null"


@pytest.mark.parametrize("version", ["1.0.0", "2.0.1"])
def test_a_given_id_is_used_as_text(version):
    assert advisor_conversation_id({CONVERSATION_ID_KEY: "u7:s2"}, version) == "u7:s2"
    assert advisor_conversation_id({CONVERSATION_ID_KEY: 42}, version) == "42"


def test_a_null_id_is_not_the_fallback():
    with pytest.raises(SessionKeyError, match="NullPointerException"):
        advisor_conversation_id({CONVERSATION_ID_KEY: None}, "1.0.0")


def test_versions_sort_milestones_before_candidates_before_the_release():
    order = ["1.0.0", "1.1.0", "2.0.0-M1", "2.0.0-M6", "2.0.0-RC1", "2.0.0", "2.0.1"]
    assert sorted(order, key=parse_version) == order


@pytest.mark.parametrize("bad", ["", "1.0", "one", "0.8.1"])
def test_bad_versions_say_how_to_write_one(bad):
    with pytest.raises(SessionKeyError):
        falls_back_to_default(bad)
