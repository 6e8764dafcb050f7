"""windowmem.chat_price: a chat of a given shape, billed as the prices module bills a real one."""

from decimal import Decimal

import pytest

from windowmem.chat_price import chat_bill
from windowmem.errors import PolicyError
from windowmem.n8n_recorded import load_recording
from windowmem.prices import OPENAI_CACHE, price_of


def test_three_turns_priced_by_hand():
    # System 2,000, question 50, reply 150. Call t sends the System Message, the kept turns and
    # the question; OpenAI serves the prefix shared with the call before, from 1,024 tokens in
    # steps of 128.
    gpt = price_of("gpt-5.4-mini")
    for window, expected in (
        (0, [(2050, 0), (2250, 2048), (2450, 2176)]),  # each call starts with the last one
        (1, [(2050, 0), (2250, 2048), (2250, 1920)]),  # turn 3 slid: the System Message only
    ):
        bill = chat_bill(
            system_tokens=2000,
            question_tokens=50,
            reply_tokens=150,
            turns=3,
            window=window,
            model=gpt,
        )
        assert [(c.input, c.cached) for c in bill.calls] == expected
        assert [c.output for c in bill.calls] == [150] * 3
        by_hand = sum(
            (Decimal(i - c) * gpt.input + Decimal(c) * gpt.cached_input + 150 * gpt.output)
            / 1_000_000
            for i, c in expected
        )
        assert bill.dollars == by_hand


def test_a_short_system_message_is_never_cached_alone():
    bill = chat_bill(
        system_tokens=800,
        question_tokens=20,
        reply_tokens=40,
        turns=30,
        window=2,
        model="gpt-5.4-mini",
    )
    assert bill.total("cached") == 0 and OPENAI_CACHE.cacheable(800 + 3 * 60) == 0


#: A chat of a shape the two error tests vary.
SHAPE = dict(system_tokens=1000, question_tokens=50, reply_tokens=150, turns=5, window=5)


@pytest.mark.parametrize(
    "field, value", [("turns", 0), ("window", -1), ("reply_tokens", 2.5), ("question_tokens", "50")]
)
def test_bad_numbers_say_which_and_what_to_give(field, value):
    with pytest.raises(PolicyError, match=f"{field} must be a whole number"):
        chat_bill(model="gpt-5.4-mini", **{**SHAPE, field: value})


def test_an_unknown_model_names_the_known_ones():
    with pytest.raises(PolicyError, match="gpt-5.4-mini"):
        chat_bill(model="gpt-9", **SHAPE)


def test_one_tool_call_a_turn_priced_by_hand():
    # System 2,000, question 50, one tool call (20 tokens, the first call's output), its result
    # 100, reply 150. Each turn makes two model calls: the question, then the question with the
    # call and its result. At window 1, turn 2 loads turn 1's last two stored messages (result,
    # reply); n8n drops the result without its call, so only the reply is sent.
    gpt = price_of("gpt-5.4-mini")
    shape = dict(system_tokens=2000, question_tokens=50, reply_tokens=150, turns=2, model=gpt)
    for window, expected in (
        (0, [(2050, 0, 20), (2170, 2048, 150), (2370, 2048, 20), (2490, 2304, 150)]),
        (1, [(2050, 0, 20), (2170, 2048, 150), (2200, 1920, 20), (2320, 2176, 150)]),
    ):
        bill = chat_bill(window=window, tool_calls=1, **shape)
        assert [(c.input, c.cached, c.output) for c in bill.calls] == expected
        assert [c.turn for c in bill.calls] == [1, 1, 2, 2]
        by_hand = sum(
            (Decimal(i - c) * gpt.input + Decimal(c) * gpt.cached_input + Decimal(o) * gpt.output)
            / 1_000_000
            for i, c, o in expected
        )
        assert bill.dollars == by_hand


def test_two_tool_calls_cut_the_window_as_n8n_did():
    # The recorded n8n 2.41.1 run (AI Agent 3.1, window 2): a turn whose reply asked two tools
    # left turn 4's first call with the System Message, the second call, its result, the reply
    # and the new question; the first result was dropped with its call outside the window.
    recorded = load_recording("lesson3-tool-use").runs[3].requests[0]
    assert [m.role.value for m in recorded] == ["system", "assistant", "tool", "assistant", "user"]
    tools = dict(tool_calls=2, tool_result_tokens=100, tool_call_tokens=20)
    bill = chat_bill(
        **{**SHAPE, "system_tokens": 2000, "turns": 4, "window": 2}, **tools, model="gpt-5.4-mini"
    )
    turn_4_first = next(c for c in bill.calls if c.turn == 4)
    assert turn_4_first.input == 2000 + 20 + 100 + 150 + 50
    assert turn_4_first.output == 2 * 20 and len(bill.calls) == 2 * 4


def test_long_pauses_pay_every_input_token_in_full():
    gpt = price_of("gpt-5.4-mini")
    shape = dict(system_tokens=2000, question_tokens=50, reply_tokens=150, turns=3, window=0)
    cached = chat_bill(model=gpt, **shape)
    paused = chat_bill(model=gpt, long_pauses=True, **shape)
    assert cached.total("cached") > 0 and paused.total("cached") == 0
    assert [c.input for c in paused.calls] == [2050, 2250, 2450]
    by_hand = (Decimal(2050 + 2250 + 2450) * gpt.input + 3 * 150 * gpt.output) / 1_000_000
    assert paused.dollars == by_hand > cached.dollars


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("tool_calls", -1, "tool_calls must be a whole number"),
        ("tool_result_tokens", 0, "tool_result_tokens must be a whole number"),
        ("long_pauses", "yes", "long_pauses must be True or False"),
    ],
)
def test_bad_tool_and_pause_settings_say_what_to_give(field, value, message):
    with pytest.raises(PolicyError, match=message):
        chat_bill(model="gpt-5.4-mini", **{**SHAPE, field: value})
