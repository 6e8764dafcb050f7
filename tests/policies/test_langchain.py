"""LangChain BufferWindowMemory in JavaScript and Python: the peers.md runs and their edges."""

from __future__ import annotations

import pytest

from tests.strategies import chat, contents, turns
from windowmem.errors import PolicyError
from windowmem.policies import LangChainJsBufferWindow, LangChainPyBufferWindow, N8nSimpleMemory


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (0, "u1 a1 u2 a2 u3 a3"),  # slice(-0) is the whole array
        (-1, "u2 a2 u3 a3"),  # slice(2): all but the first two
        (1.5, "a2 u3 a3"),  # slice(-3)
        (1, "u3 a3"),
        (5, "u1 a1 u2 a2 u3 a3"),
        (1.25, "u3 a3"),  # slice(-2.5) truncates to slice(-2)
        (-0.25, "u1 a1 u2 a2 u3 a3"),  # slice(0.5) truncates to slice(0)
        (-4, ""),  # slice(8) starts past the end
    ],
)
def test_js_window_is_slice_minus_2k(k, expected):
    assert contents(LangChainJsBufferWindow(k).window(turns(3))) == expected.split()


def test_js_odd_history_k1_loads_a2_u3():
    assert contents(LangChainJsBufferWindow(1).window(chat("[u1,a1,u2,a2,u3]"))) == ["a2", "u3"]


def test_js_default_is_k5_and_matches_n8n():
    history = turns(7)
    assert LangChainJsBufferWindow().size == 5
    assert LangChainJsBufferWindow().window(history) == N8nSimpleMemory().window(history)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "2", True, None])
def test_js_rejects_sizes_that_are_not_finite_numbers(bad):
    with pytest.raises(PolicyError, match="langchain-js"):
        LangChainJsBufferWindow(bad)


def test_py_k5_seven_turns_loads_u3_to_a7():
    assert contents(LangChainPyBufferWindow(5).window(turns(7))) == contents(turns(7, first=3))


def test_py_k3_five_turns_loads_u3_to_a5():
    assert contents(LangChainPyBufferWindow(3).window(turns(5))) == contents(turns(5, first=3))


@pytest.mark.parametrize("k", [0, -1, -7])
def test_py_k_zero_or_negative_loads_nothing(k):
    assert LangChainPyBufferWindow(k).window(turns(4)) == ()


def test_py_and_js_differ_only_for_k_at_most_zero():
    history = turns(4)
    for k in range(1, 6):
        assert LangChainPyBufferWindow(k).window(history) == LangChainJsBufferWindow(k).window(
            history
        )
    assert LangChainJsBufferWindow(0).window(history) == history
    assert LangChainPyBufferWindow(0).window(history) == ()


def test_py_default_is_k5_and_rejects_fractions():
    assert LangChainPyBufferWindow().size == 5
    with pytest.raises(PolicyError, match="whole number"):
        LangChainPyBufferWindow(1.5)  # type: ignore[arg-type]


def test_both_store_everything():
    from windowmem.policies import Memory

    memory = Memory(LangChainPyBufferWindow(1))
    memory.add(*turns(5))
    assert len(memory.stored) == 10 and len(memory.load()) == 2
