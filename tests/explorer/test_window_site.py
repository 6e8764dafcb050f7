"""The window explorer's states for the website: every control setting, stored once, read back right."""

from __future__ import annotations

import json

import pytest

from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_site import conversation_states, runs
from windowmem.explorer.window_view import window_view


def _unrun(flat: list[int]) -> tuple[int, ...]:
    return tuple(
        n for first, count in zip(flat[::2], flat[1::2]) for n in range(first, first + count)
    )


class TestRuns:
    def test_consecutive_numbers_make_one_run(self):
        assert runs([4, 5, 6, 7]) == [4, 4]

    def test_gaps_start_new_runs(self):
        assert runs([1, 3, 4, 9]) == [1, 1, 3, 2, 9, 1]

    def test_nothing_is_no_runs(self):
        assert runs([]) == []


@pytest.fixture(scope="module")
def tool_use():
    return ReplayCache(load_example("tool_use"))


@pytest.fixture(scope="module")
def data(tool_use):
    return conversation_states(tool_use, max_window=6)


class TestConversationStates:
    def test_every_window_lists_every_turn(self, data, tool_use):
        assert len(data["windows"]) == 7
        assert all(len(turns) == tool_use.conversation.turn_count for turns in data["windows"])

    def test_each_state_reads_back_as_the_view_of_that_setting(self, data, tool_use):
        for window, turns in enumerate(data["windows"]):
            for turn, index in enumerate(turns, start=1):
                view = window_view(tool_use, window, turn)
                visible, partial, sent, in_window, tokens, bill = data["states"][index]
                assert _unrun(visible) == view.visible_turns
                partial_marks = tuple(m.number for m in view.timeline if m.status == "partial")
                assert _unrun(partial) == partial_marks
                rows = [data["messages"][i] for i in _unrun(sent)]
                assert [(r[0], r[1]) for r in rows] == [
                    (m.role.value, m.content) for m in view.sent
                ]
                assert [r[2] for r in rows] == list(view.sent_turns)
                assert (in_window, tokens, bill) == (
                    view.messages_in_window,
                    view.tokens_this_call,
                    view.running_bill,
                )

    def test_the_tool_chat_has_a_partly_loaded_turn_somewhere(self, data):
        # Otherwise the partial runs above would be checked only as empty.
        assert any(state[1] for state in data["states"])

    def test_identical_states_are_stored_once(self, data):
        texts = [json.dumps(state) for state in data["states"]]
        assert len(texts) == len(set(texts))
        settings = sum(len(turns) for turns in data["windows"])
        assert len(data["states"]) < settings

    def test_the_fact_can_be_found_in_each_turns_messages(self, data):
        fact = ANCHOR_FACTS["tool_use"]
        said = [
            turn
            for turn, ids in enumerate(data["turns"], start=1)
            if any(fact in data["messages"][i][1] for i in ids)
        ]
        view = window_view(ReplayCache(load_example("tool_use")), 0, 1, fact)
        assert tuple(said) == view.fact_turns

    def test_previews_are_the_timelines(self, data, tool_use):
        view = window_view(tool_use, 2, 1)
        assert data["previews"] == [m.preview for m in view.timeline]
        assert data["compact"] is False


def test_the_explorer_exports_where_its_controls_stand():
    from windowmem.explorer.window_widgets import OWN, WindowExplorer

    explorer = WindowExplorer(
        {"marta": load_example("marta"), "empanadas": load_example("empanadas")},
        start="marta",
        window=3,
        turn=4,
        fact="#6023",
        max_window=8,
        facts=ANCHOR_FACTS,
    )
    data = explorer.site_data()
    assert (data["start"], data["window"], data["turn"], data["fact"]) == ("marta", 3, 4, "#6023")
    assert data["max_window"] == 8 and data["own"] == OWN
    assert list(data["conversations"]) == ["marta", "empanadas"]
    assert all(len(c["windows"]) == 9 for c in data["conversations"].values())
