"""The input bill: C_in = Σ_t |W_t|, checked against the definition and the unbounded chat.

The seed's per-call figures are in ``tests/test_seed_examples.py``, the closed form of a
uniform n8n chat in ``tests/policies/n8n/test_simple_memory.py``, the tables in
``tests/test_frames.py``.
"""

from __future__ import annotations

from hypothesis import given

from tests.strategies import PROPERTY_SETTINGS, conversations
from windowmem.cost import tokens_per_call, unbounded_tokens_per_call
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.tokens import count_words


@PROPERTY_SETTINGS
@given(conversations(max_turns=8, mid_chat_system=False))
def test_unbounded_equals_n8n_window_0(messages):
    assert unbounded_tokens_per_call(messages, count_words) == tokens_per_call(
        messages, N8nSimpleMemory(0), count_words
    )
