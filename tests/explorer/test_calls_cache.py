"""Lesson 2's explorer cache: the order of the model calls, one replay per window and mode."""

from __future__ import annotations

import pytest

from windowmem.calls.tool_scenario import load_tool_scenario
from windowmem.errors import WindowMemError
from windowmem.explorer.calls_cache import ONE_SESSION, CallsCache
from windowmem.explorer.calls_view import calls_view

SCENARIO = load_tool_scenario("tutienda_tools")


@pytest.fixture(scope="module")
def cache() -> CallsCache:
    return CallsCache(SCENARIO)


def test_calls_follow_the_runs(cache):
    # turn 2 and 3 call a tool (two model calls each); turn 4's run fails at its only call
    assert cache.order == ((1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (4, 1), (5, 1), (6, 1))


def test_unknown_mode_is_explained(cache):
    with pytest.raises(WindowMemError, match="memory mode"):
        calls_view(cache, 5, 1, "sometimes")


def test_each_replay_is_computed_once(cache):
    assert cache.on(5, ONE_SESSION) is cache.on(5, ONE_SESSION)
    assert cache.on(5, ONE_SESSION) is not cache.on(4, ONE_SESSION)
