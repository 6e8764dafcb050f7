"""The explorer's model of one chat through each store: what it must always say."""

from __future__ import annotations

import pytest

from windowmem.outlive.store_scenarios import (
    EVENTS,
    MARTA_TURNS,
    STORES,
    play_scenario,
    trims_on_write,
)


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("event", EVENTS)
def test_every_combination_plays_six_calls_each_ending_in_its_question(store, workers, event):
    calls = play_scenario(store, workers, event)
    assert [c.number for c in calls] == list(range(1, len(MARTA_TURNS) + 1))
    for call in calls:
        assert call.sent[-1].content == MARTA_TURNS[call.number - 1][0]
        if trims_on_write(store):
            assert len(call.stored_after) <= 4
        else:
            assert len(call.sent) - 1 <= 4  # a window of 2 interactions


def test_only_simple_memory_loses_the_chat_at_a_restart():
    for store in STORES:
        sent = len(play_scenario(store, 1, "the agent restarts")[3].sent) - 1
        assert (sent == 0) == store.startswith("Simple Memory"), store


def test_an_hour_is_lost_by_simple_memory_and_redis_only():
    lost = {s for s in STORES if len(play_scenario(s, 1, "an hour passes")[3].sent) == 1}
    assert lost == {"Simple Memory (in-process)", "n8n Redis list (sessionTTL 3600)"}


def test_two_workers_split_only_the_in_process_store():
    for store in STORES:
        calls = play_scenario(store, 2, "nothing")
        split = len(calls[1].sent) == 1  # worker 2's first call sees nothing of turn 1
        assert split == store.startswith("Simple Memory")


def test_bad_settings_are_refused():
    for bad in (("nowhere", 1, "nothing"), (STORES[0], 3, "nothing"), (STORES[0], 1, "a flood")):
        with pytest.raises(ValueError):
            play_scenario(*bad)  # type: ignore[arg-type]
