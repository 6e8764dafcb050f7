"""The window explorer's pure view, its HTML, the typed-conversation parser, and its widget wiring.

Expectations come from outside the code under test: the lesson seed's worked example
(Marta, window 5, seven turns; the Empanadas del Sur exercise) and the plain arithmetic
of n8n's rule (turn t sees turns max(1, t-k) .. t-1; k = 0 sees everything).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from windowmem.conversation import Conversation
from windowmem.errors import ConversationFormatError, WindowMemError
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.self_check import self_check
from windowmem.explorer.view import (
    CURRENT,
    EVICTED,
    LATER,
    PARTIAL,
    VISIBLE,
    ReplayCache,
    conversation_from_text,
    explorer_view,
    render_error,
    render_html,
)
from windowmem.messages import assistant, system, tool, user
from windowmem.tokens import count_messages, count_words

#: The seed's table: what the buffer holds when each of Marta's turns is answered (window 5).
MARTA_BY_HAND = {
    1: (),
    2: (1,),
    3: (1, 2),
    4: (1, 2, 3),
    5: (1, 2, 3, 4),
    6: (1, 2, 3, 4, 5),
    7: (2, 3, 4, 5, 6),
}


@pytest.fixture(scope="module")
def marta() -> Conversation:
    return load_example("marta")


def view_of(conversation, window, turn, fact="", counter=count_words):
    return explorer_view(ReplayCache(conversation, counter), window, turn, fact)


class TestWorkedExample:
    @pytest.mark.parametrize("turn", sorted(MARTA_BY_HAND))
    def test_visible_turns_match_the_seed_table(self, marta, turn):
        view = view_of(marta, 5, turn)
        assert view.visible_turns == MARTA_BY_HAND[turn]
        assert view.evicted_turns == tuple(
            t for t in range(1, turn) if t not in MARTA_BY_HAND[turn]
        )

    def test_turn_7_array_is_system_then_turns_2_to_6_then_the_question(self, marta):
        view = view_of(marta, 5, 7, fact="#6023")
        # The seed's array: the system message, five user/assistant pairs, the new question.
        assert view.sent_turns == (None, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7)
        assert [m.role.value for m in view.sent] == ["system"] + ["user", "assistant"] * 5 + [
            "user"
        ]
        assert view.sent[1].content == "Do you ship to Medellín?"
        assert view.sent[-1].content.startswith("To recap: what was the order number")
        assert view.messages_in_window == 10 and view.interactions_in_window == 5
        assert view.fact_visible is False and view.fact_turns == (1,)

    def test_turn_6_still_sees_the_order_and_window_10_keeps_it(self, marta):
        assert view_of(marta, 5, 6, fact="#6023").fact_visible is True
        at_10 = view_of(marta, 10, 7, fact="#6023")
        assert at_10.fact_visible is True and at_10.evicted_turns == ()

    def test_bill_in_messages_is_the_sum_of_array_lengths(self, marta):
        # Turn t sends the system message, min(t-1, 5) pairs and the new message.
        per_call = [1 + 2 * min(t - 1, 5) + 1 for t in range(1, 8)]
        for turn in range(1, 8):
            view = view_of(marta, 5, turn, counter=count_messages)
            assert view.tokens_this_call == per_call[turn - 1] == len(view.sent)
            assert view.running_bill == sum(per_call[:turn])

    def test_timeline_marks_each_turn_from_the_answered_turns_point_of_view(self, marta):
        assert [m.status for m in view_of(marta, 5, 7).timeline] == [EVICTED] + [VISIBLE] * 5 + [
            CURRENT
        ]
        assert [m.status for m in view_of(marta, 5, 3).timeline] == [VISIBLE, VISIBLE, CURRENT] + [
            LATER
        ] * 4
        assert view_of(marta, 5, 1).timeline[0].preview == "user: Hi, I'm Marta, my order is #6023."

    def test_empanadas_exercise(self):
        view = view_of(load_example("empanadas"), 3, 5, fact=ANCHOR_FACTS["empanadas"])
        assert view.visible_turns == (2, 3, 4) and view.fact_visible is False


def plain_chat(turns: int):
    return [system("S")] + [
        m for t in range(1, turns + 1) for m in (user(f"u{t}"), assistant(f"a{t}"))
    ]


@settings(max_examples=200, deadline=None)
@given(turns=st.integers(1, 25), window=st.integers(0, 12), data=st.data())
def test_view_follows_n8n_arithmetic(turns, window, data):
    """On plain question/reply turns, the view shows turns max(1, t-k)..t-1 (k = 0: all)."""
    turn = data.draw(st.integers(1, turns))
    view = view_of(plain_chat(turns), window, turn, counter=count_messages)
    first = 1 if window == 0 else max(1, turn - window)
    assert view.visible_turns == tuple(range(first, turn))
    assert set(view.visible_turns) | set(view.evicted_turns) == set(range(1, turn))
    assert view.messages_in_window == 2 * len(view.visible_turns)
    statuses = [m.status for m in view.timeline]
    assert statuses.count(CURRENT) == 1 and statuses.count(LATER) == turns - turn
    assert statuses.count(VISIBLE) == len(view.visible_turns)


def test_a_turn_cut_by_a_tool_exchange_is_marked_partial():
    # n8n counts messages: window 1 loads the last 2, which cuts turn 1's four messages.
    chat = [user("q1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1"), user("q2")]
    view = view_of(chat, 1, 2)
    assert [m.content for m in view.sent] == ["r1", "a1", "q2"]
    assert [m.status for m in view.timeline] == [PARTIAL, CURRENT]


class TestHtml:
    def test_shows_the_visible_turns_and_fact_verdict(self, marta):
        page = render_html(view_of(marta, 5, 7, fact="#6023"), "Qwen tokens")
        assert re.search(r'class="wm-visible-turns">2–6<', page)
        assert re.search(r'class="wm-evicted-turns">1<', page)
        assert 'still stores them): turn <b class="wm-evicted-turns">' in page  # one turn: "turn"
        assert 'turns <b class="wm-visible-turns">2–6' in page
        assert 'data-fact-visible="false"' in page and 'data-window="5" data-turn="7"' in page
        assert "Qwen tokens this call" in page

    def test_escapes_message_text(self):
        page = render_html(
            view_of([user("<script>alert(1)</script>"), assistant("ok"), user("next")], 5, 2)
        )
        assert "<script>alert" not in page and "&lt;script&gt;" in page

    def test_highlights_the_fact_only_where_it_appears(self, marta):
        page = render_html(view_of(marta, 10, 7, fact="#6023"))
        assert (
            len(re.findall(r'<mark class="wm-hit"[^>]*>#6023</mark>', page)) == 2
        )  # Marta's message and the reply

    def test_no_fact_asks_for_one(self, marta):
        view = view_of(marta, 5, 7, fact="   ")
        assert view.fact_visible is None and "Type a fact" in render_html(view)

    def test_error_pane_escapes_and_shows_the_message(self):
        assert "line 1 &lt;x&gt;" in render_error("line 1 <x>")


class TestTurnRange:
    def test_out_of_range_turn_says_which_turns_exist(self, marta):
        with pytest.raises(WindowMemError, match="pick a turn from 1 to 7"):
            view_of(marta, 5, 8)

    def test_conversation_without_turns_is_refused(self):
        with pytest.raises(WindowMemError, match="no turns"):
            view_of([system("only a system message")], 5, 1)


class TestTypedConversation:
    def test_lines_with_roles_and_continuations(self):
        chat = conversation_from_text(
            "system: Be kind\n\nuser: Hi\nsecond line\nAI: Hello\nhuman: Bye"
        )
        assert [(m.role.value, m.content) for m in chat.messages] == [
            ("system", "Be kind"),
            ("user", "Hi\nsecond line"),
            ("assistant", "Hello"),
            ("user", "Bye"),
        ]

    def test_json_in_the_file_format(self):
        text = json.dumps({"title": "t", "messages": [{"role": "user", "content": "a: b"}]})
        chat = conversation_from_text(text)
        assert chat.title == "t" and chat.messages[0].content == "a: b"

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("", "empty"),
            ("hello there", "line 1 does not start with a role"),
            ("system: only rules", "no user message"),
            ('[{"role": "user"}]', "no content"),
            ("{not json", "not valid JSON"),
        ],
    )
    def test_bad_text_says_what_to_fix(self, text, message):
        with pytest.raises(ConversationFormatError, match=message):
            conversation_from_text(text)


def test_replay_cache_computes_each_window_once(marta):
    cache = ReplayCache(marta, count_words)
    assert cache.views(5) is cache.views(5) and cache.views(5) is not cache.views(6)


def test_self_check_explains_a_foreseen_mistake_and_hints_at_the_rest():
    mistakes = {(1, 2, 3): "that was the window one turn earlier", 10: "count both messages"}
    assert self_check("x", [1, 2, 3], (2, 3, 4), hint="h", mistakes=mistakes) == (
        "x: not yet: that was the window one turn earlier."
    )
    assert self_check("x", [9], (2, 3, 4), hint="h", mistakes=mistakes) == "x: not yet: h."
    assert self_check("x", (2, 3, 4), (2, 3, 4), mistakes=mistakes) == "x: correct."
    # a foreseen wrong bool does not catch 1, and an uncomparable answer is simply wrong
    assert self_check("x", 1, False, hint="h", mistakes={True: "no"}) == "x: not yet: h."
    assert self_check("x", object(), 3, hint="h").endswith("not yet: h.")


def test_self_check_wants_a_bool_for_yes_no_questions():
    assert self_check("x", 1, True).endswith("not yet.")
    assert self_check("x", True, True).endswith("correct.")
    assert self_check("x", [2, 3], (2, 3)).endswith("correct.")


class TestWidgets:
    """The widget layer without a browser: controls in, the pure view's HTML out."""

    @pytest.fixture
    def explorer(self, marta):
        from windowmem.explorer.widgets import WindowExplorer

        return WindowExplorer(
            {"marta": marta, "empanadas": load_example("empanadas")},
            start="marta",
            window=5,
            turn=7,
            fact="#6023",
            facts=ANCHOR_FACTS,
        )

    def test_starts_on_the_worked_example(self, explorer, marta):
        view = explorer_view(ReplayCache(marta), 5, 7, "#6023", title="marta")
        assert explorer.output.value == render_html(view, "Qwen tokens")
        assert explorer.snapshot_html().endswith(explorer.output.value)

    def test_sliders_and_fact_change_the_view(self, explorer):
        explorer.window.value = 10
        assert 'data-fact-visible="true"' in explorer.output.value
        explorer.turn.value = 3
        assert 'class="wm-visible-turns">1–2<' in explorer.output.value
        explorer.fact.value = "Medellín"
        assert "&ldquo;Medellín&rdquo; (said in turn 2)" in explorer.output.value

    def test_switching_conversation_clamps_the_turn(self, explorer):
        explorer.conversation.value = "empanadas"
        assert (explorer.turn.max, explorer.turn.value) == (5, 5)
        assert 'data-turn="5"' in explorer.output.value
        assert (
            explorer.fact.value == "Carlos Ruiz"
            and 'data-fact-visible="true"' in explorer.output.value
        )

    def test_typed_conversation_and_its_errors(self, explorer):
        from windowmem.explorer.widgets import OWN

        explorer.conversation.value = OWN
        assert "type or paste a conversation" in explorer.output.value
        explorer.own_text.value = "oops"
        assert "line 1 does not start with a role" in explorer.output.value
        explorer.own_text.value = "user: a\nassistant: b\nuser: c"
        assert explorer.turn.max == 2 and 'data-turn="2"' in explorer.output.value
