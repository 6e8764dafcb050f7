"""windowmem.chat_price: a chat of a given shape, billed as the prices module bills a real one."""

from decimal import Decimal

import pytest

from windowmem.chat_price import chat_bill
from windowmem.errors import PolicyError
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
