"""n8n agent calls with and without memory, checked against the fact sheet read in nodes-langchain 2.41.1.

The vectors come from the checked facts (prompt layout, write-on-answer, tool storage
since 2.3.0, orphan clean-up) and from ``../shared/reference/peers.md`` (the window);
for conversations without tools the arrays must equal :mod:`windowmem.replay`'s.
"""

from __future__ import annotations

import pytest

from windowmem.calls.agent_calls import (
    Part,
    agent_runs,
    call_array,
    cleanup_orphaned_messages,
    describe_call,
    model_calls,
)
from windowmem.calls.memory_writes import (
    saved_messages,
    saved_messages_before_2_3,
)
from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.messages import Role, assistant, interactions, system, tool, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.replay import turn_view


def chat_of(turns: int, with_system: bool = True):
    head = [system("S")] if with_system else []
    return head + [m for t in range(1, turns + 1) for m in (user(f"u{t}"), assistant(f"a{t}"))]


def contents(messages):
    return [m.content for m in messages]


class TestWithoutMemory:
    def test_every_call_sends_the_system_message_and_the_input_only(self):
        marta = load_example("marta")
        for run in agent_runs(marta):
            (call,) = run.calls
            assert call.messages == (
                marta.system_message,
                marta.interactions[run.turn - 1].messages[0],
            )
            assert run.saved == () and run.stored_after == 0 and run.session_id is None

    def test_no_system_message_option_sends_the_input_alone(self):
        # agent typeVersion >= 1.9 without the System Message option
        calls = model_calls(chat_of(3, with_system=False))
        assert [contents(c.messages) for c in calls] == [["u1"], ["u2"], ["u3"]]

    def test_a_tool_run_adds_its_own_steps_to_later_calls_only(self):
        runs = agent_runs(load_example("tool_use"))
        first, second = runs[0].calls
        assert [m.role for m in first.messages] == [Role.SYSTEM, Role.USER]
        assert [m.role for m in second.messages] == [
            Role.SYSTEM,
            Role.USER,
            Role.ASSISTANT,
            Role.TOOL,
        ]
        assert second.part(Part.MEMORY) == () and first.reply is second.messages[2]
        # turn 3 asks for two tools at once: n8n 2.41.1 (AI Agent 3.1) hands them back as one
        # assistant message per call, each before its result (recording "parallel-tools")
        assert [m.role for m in runs[2].calls[1].part(Part.THIS_RUN)] == [
            Role.ASSISTANT,
            Role.TOOL,
            Role.ASSISTANT,
            Role.TOOL,
        ]
        # AI Agent 2.2 sends the model's one message with both calls, then both results
        v22 = agent_runs(load_example("tool_use"), agent_version=2.2)
        assert [m.role for m in v22[2].calls[1].part(Part.THIS_RUN)] == [
            Role.ASSISTANT,
            Role.TOOL,
            Role.TOOL,
        ]


class TestWithMemory:
    @pytest.mark.parametrize("k", [0, 1, 2, 3, 5, 10])
    def test_the_window_goes_between_system_message_and_input_as_replay_says(self, k):
        marta = load_example("marta")
        for run in agent_runs(marta, N8nSimpleMemory(k)):
            expected = turn_view(marta, N8nSimpleMemory(k), run.turn).sent
            assert run.calls[0].messages == expected

    def test_peers_vector_seven_turns_window_five(self):
        runs = agent_runs(chat_of(7), N8nSimpleMemory(5))
        assert contents(runs[6].calls[0].part(Part.MEMORY)) == [
            f"{r}{t}" for t in range(2, 7) for r in "ua"
        ]
        assert runs[6].calls[0].memory_turns == (2, 3, 4, 5, 6)
        assert runs[6].stored_after == 14  # storage keeps every message

    def test_no_answer_no_write(self):
        # turn 2 fails at the model call, turn 3 answers with empty text
        chat = [user("u1"), assistant("a1"), user("u2"), user("u3"), assistant(""), user("u4")]
        runs = agent_runs(chat, N8nSimpleMemory(5))
        assert [r.answered for r in runs] == [True, False, False, False]
        assert [r.stored_after for r in runs] == [2, 2, 2, 2]
        assert contents(runs[3].calls[0].messages) == ["u1", "a1", "u4"]

    def test_a_run_stopped_at_a_tool_call_writes_nothing(self):
        chat = [user("u1"), assistant("", ["c1"]), tool("r1", "c1"), user("u2")]
        runs = agent_runs(chat, N8nSimpleMemory(5))
        assert len(runs[0].calls) == 2 and runs[0].calls[1].reply is None
        assert runs[0].saved == () and contents(runs[1].calls[0].messages) == ["u2"]

    def test_a_new_session_id_per_message_forgets_everything(self):
        ids = [f"chat-{t}" for t in range(1, 8)]
        runs = agent_runs(chat_of(7), N8nSimpleMemory(5), session_ids=ids)
        assert all(run.calls[0].part(Part.MEMORY) == () for run in runs)
        assert [r.session_id for r in runs] == ids and {r.stored_after for r in runs} == {2}

    def test_one_session_id_repeated_is_one_memory(self):
        runs = agent_runs(chat_of(3), N8nSimpleMemory(5), session_ids=["a", "b", "a"])
        assert runs[2].calls[0].memory_turns == (1,)


class TestToolStorage:
    def test_one_tool_turn_is_four_messages(self):
        # fact sheet B4 run: H:u1 | A:[](call) | T:[{"r":1}] | A:a1
        chat = [user("u1"), assistant("", ["c1"]), tool('[{"r":1}]', "c1"), assistant("a1")]
        (run,) = agent_runs(chat, N8nSimpleMemory(5))
        assert [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in run.saved] == [
            (Role.USER, "u1", (), None),
            (Role.ASSISTANT, "", ("c1",), None),
            (Role.TOOL, '[{"r":1}]', (), "c1"),
            (Role.ASSISTANT, "a1", (), None),
        ]

    def test_three_parallel_tools_are_eight_messages(self):
        calls = assistant("", ["c1", "c2", "c3"])
        run = [calls, tool("r1", "c1"), tool("r2", "c2"), tool("r3", "c3")]
        saved = saved_messages(user("u"), run, assistant("a"))
        assert [
            m.role.value[0] + (m.tool_calls[0] if m.tool_calls else m.content) for m in saved
        ] == ["uu", "ac1", "tr1", "ac2", "tr2", "ac3", "tr3", "aa"]

    def test_two_rounds_store_only_the_last(self):
        # n8n 2.41.1 saves steps.slice(previousStepsCount): recording "two-tool-rounds"
        chat = [
            user("u"), assistant("", ["c1"]), tool("r1", "c1"),
            assistant("", ["c2"]), tool("r2", "c2"), assistant("a"),
        ]  # fmt: skip
        (run,) = agent_runs(chat, N8nSimpleMemory(5))
        assert [m.tool_calls or m.tool_call_id or m.content for m in run.saved] == [
            "u", ("c2",), "c2", "a",
        ]  # fmt: skip
        assert [m.tool_calls for m in run.calls[2].part(Part.THIS_RUN) if m.calls_tool] == [
            ("c1",), ("c2",),
        ]  # fmt: skip

    def test_agent_2_2_stores_the_question_and_the_answer(self):
        chat = [user("u"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a")]
        (run,) = agent_runs(chat, N8nSimpleMemory(5), agent_version=2.2)
        assert [m.content for m in run.saved] == ["u", "a"]

    def test_an_unmodelled_agent_version_is_refused(self):
        with pytest.raises(WindowMemError, match="typeVersion 3.0 is not modelled"):
            agent_runs([user("u")], agent_version=3.0)

    def test_results_without_ids_answer_calls_in_order(self):
        saved = saved_messages(user("u"), [assistant("", ["x"]), tool("rx")], assistant("a"))
        assert saved[2].tool_call_id == "x" and saved[2].content == "rx"

    def test_a_call_without_a_result_is_refused(self):
        with pytest.raises(WindowMemError, match="no result"):
            saved_messages(user("u"), [assistant("", ["x"])], assistant("a"))

    def test_the_window_cut_inside_a_tool_turn_is_cleaned(self):
        # peers.md: k=2 over [u1, ai(call), tool, a1, u2, a2] loads [tool, a1, u2, a2]; sent [a1, u2, a2]
        chat = [
            user("u1"),
            assistant("", ["c1"]),
            tool("r", "c1"),
            assistant("a1"),
            user("u2"),
            assistant("a2"),
            user("u3"),
        ]
        runs = agent_runs(chat, N8nSimpleMemory(2))
        assert contents(runs[2].calls[0].part(Part.MEMORY)) == ["a1", "u2", "a2"]


class TestCleanup:
    call = assistant("", ["c1"])

    @pytest.mark.parametrize(
        "window, expected",
        [
            ([tool("r", "c1"), assistant("a1"), user("u2"), assistant("a2")], ["a1", "u2", "a2"]),
            ([tool("r", "c1"), call, user("u")], ["u"]),
            ([user("u"), assistant("a"), user("u2"), call], ["u", "a", "u2"]),
            ([user("u"), call, tool("r", "c1")], ["u", "", "r"]),  # answered call at the end stays
            ([user("u"), assistant("a"), tool("r")], ["u", "a"]),  # results with no call before
            ([tool("r"), tool("r2")], []),
            ([], []),
        ],
    )
    def test_fact_sheet_vectors(self, window, expected):
        assert contents(cleanup_orphaned_messages(window)) == expected

    def test_inner_exchanges_are_left_alone(self):
        window = [user("u"), self.call, tool("r", "c1"), assistant("a")]
        assert cleanup_orphaned_messages(window) == tuple(window)


def test_call_array_is_the_prompt_order():
    s, h, u, step = system("S"), [user("u1"), assistant("a1")], user("u2"), [assistant("", ["c"])]
    assert call_array(s, h, u, step) == (s, *h, u, *step)


@pytest.mark.parametrize(
    "chat, message",
    [
        ([assistant("Welcome!"), user("hi")], "opens with an assistant"),
        ([user("u"), tool("r")], "before any assistant"),
        ([user("u"), assistant("a"), assistant("b")], "follow the agent's answer"),
    ],
)
def test_malformed_runs_are_explained(chat, message):
    with pytest.raises(WindowMemError, match=message):
        agent_runs(chat)


def test_session_ids_are_checked():
    with pytest.raises(WindowMemError, match="one session id"):
        agent_runs(chat_of(2), N8nSimpleMemory(5), session_ids=["a"])
    with pytest.raises(WindowMemError, match="need a memory"):
        agent_runs(chat_of(2), session_ids=["a", "b"])
    with pytest.raises(WindowMemError, match="Conversation or a list"):
        agent_runs("u: hi")


class TestBefore23:
    def test_tool_use_is_folded_into_the_answer_text(self):
        # fact sheet B4, nodes-langchain 2.2.0: `[Used tools: ${toolContext}] ${output}`,
        # toolContext = "Tool: <tool>, Input: <json>, Result: <observation>" joined by "; "
        steps = [
            ("track_order", {"order_number": "#6023"}, '[{"status":"in transit"}]'),
            ("calc", "2+2", "4"),
        ]
        saved = saved_messages_before_2_3(user("u"), steps, assistant("Done."))
        assert [m.role for m in saved] == [Role.USER, Role.ASSISTANT]
        assert saved[1].content == (
            '[Used tools: Tool: track_order, Input: {"order_number":"#6023"}, '
            'Result: [{"status":"in transit"}]; Tool: calc, Input: "2+2", Result: 4] Done.'
        )

    def test_no_tools_and_no_answer(self):
        assert contents(saved_messages_before_2_3(user("u"), [], assistant("a"))) == ["u", "a"]
        assert saved_messages_before_2_3(user("u"), [("t", {}, "r")], None) == ()


def test_describe_call_shows_sources_and_tool_links():
    calls = model_calls(load_example("tool_use"), N8nSimpleMemory(5))
    text = describe_call(calls[2])  # turn 2's first call: turn 1 (with its tool) from memory
    assert "memory · turn 1" in text and "[asks for call_track_1]" in text
    assert "[result of call_track_1]" in text and text.splitlines()[-1].strip().startswith("user")


# ---------------------------------------------------------------- properties, on random chats

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.strategies import PROPERTY_SETTINGS, conversations  # noqa: E402


def answered(messages):
    """The chat with every run ending in an answer that has text (the replay's assumption)."""
    out = [m for m in messages if m.role is Role.SYSTEM][:1]
    for turn in interactions(messages):
        replies = [
            assistant(m.content or "ok") if m.role is Role.ASSISTANT and not m.tool_calls else m
            for m in turn.messages
        ]
        if replies[-1].role is not Role.ASSISTANT or replies[-1].tool_calls:
            replies.append(assistant("ok"))
        out += replies
    return out


@PROPERTY_SETTINGS
@given(conversations(tools=False, mid_chat_system=False), st.integers(0, 6))
def test_without_tools_the_arrays_are_replays(chat, k):
    chat = answered(chat)
    for run in agent_runs(chat, N8nSimpleMemory(k)):
        assert run.calls[0].messages == turn_view(chat, N8nSimpleMemory(k), run.turn).sent


@PROPERTY_SETTINGS
@given(conversations(mid_chat_system=False), st.integers(0, 6))
def test_with_tools_memory_is_clean_and_written_only_on_answers(chat, k):
    stored = 0
    for off, on in zip(agent_runs(chat), agent_runs(chat, N8nSimpleMemory(k))):
        for call in off.calls:
            assert call.part(Part.MEMORY) == ()
        for call in on.calls:
            memory = call.part(Part.MEMORY)
            assert len(memory) <= (2 * k if k else stored)
            if memory:
                assert memory[0].role is not Role.TOOL
                assert not (
                    memory[0].calls_tool and (len(memory) < 2 or memory[1].role is not Role.TOOL)
                )
            assert call.part(Part.INPUT)[0].role is Role.USER
        # Only the last model round's steps are stored: those the final call sends beyond
        # what the call before it sent (n8n 2.41.1).
        sent = [len(c.part(Part.THIS_RUN)) for c in on.calls]
        last_round = sent[-1] - sent[-2] if len(sent) > 1 else 0
        expected = 2 + last_round if on.answer is not None and on.answer.content else 0
        assert len(on.saved) == expected
        stored += len(on.saved)
        assert on.stored_after == stored
