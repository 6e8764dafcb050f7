"""Our model of LlamaIndex ``Memory`` against llama-index-core's, with a word tokenizer (no download).

Random conversations are written in random batches (``aput`` for one message,
``aput_messages`` for several, as a ``FunctionAgent`` writes a turn's replies); after every
write the real memory's active queue (what ``get()`` returns) and its archived messages
must be what our memory stores and what our policy says it flushed.
"""

from __future__ import annotations

import importlib.metadata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import event_loop
from tests.policies.model_calls import numbered
from tests.strategies import PROPERTY_SETTINGS, chat, conversations, message_lists, turns
from windowmem.messages import Message, Role
from windowmem.policies.base import Memory
from windowmem.policies.llamaindex_memory import LlamaIndexMemory, function_agent_counter

memory_module = pytest.importorskip("llama_index.core.memory")
llm_types = pytest.importorskip("llama_index.core.base.llms.types")
sql_store = pytest.importorskip("llama_index.core.storage.chat_store.sql")
llama_driver = pytest.importorskip("tests.policies.llamaindex_driver")
with_replies = pytest.importorskip("tests.policies.langgraph_driver").with_replies

VERSION = importlib.metadata.version("llama-index-core")


def split_words(text: str) -> list[str]:
    """A tokenizer for LlamaIndex that needs no vocabulary: one token per word."""
    return text.split()


def to_llama(message: Message):
    return llm_types.ChatMessage(role=message.role.value, content=message.content)


def pairs(messages) -> list[tuple[str, str]]:
    return [(str(getattr(m.role, "value", m.role)), m.content) for m in messages]


@st.composite
def batches(draw, messages: tuple[Message, ...]) -> list[tuple[Message, ...]]:
    """*messages* cut into consecutive writes of one to four messages."""
    out, start = [], 0
    while start < len(messages):
        size = draw(st.integers(1, 4))
        out.append(messages[start : start + size])
        start += size
    return out


def check(writes, policy: LlamaIndexMemory, make_real) -> None:
    """Write *writes* to our memory and to the one *make_real* builds, comparing after each."""

    async def compare() -> None:
        # One event loop for the real memory's whole life: its SQL store is bound to it.
        real = make_real()
        ours = Memory(policy)
        archived: list[Message] = []
        for batch in writes:
            archived.extend(policy.flushed(ours.stored, batch))
            sent = ours.load_with(batch)  # aput(message) then aget(), as an agent opens a turn
            ours.add(*batch)
            if len(batch) == 1:
                await real.aput(to_llama(batch[0]))
                assert pairs(await real.aget()) == pairs(sent)
            else:
                await real.aput_messages([to_llama(m) for m in batch])
            assert pairs(await real.aget()) == pairs(ours.load())
            gone = await real.aget_all(status=sql_store.MessageStatus.ARCHIVED)
            assert pairs(gone) == pairs(archived)
        engine = real.sql_store._async_engine  # made at the first write, if any
        if engine is not None:
            await engine.dispose()  # close it in this loop, not at exit

    event_loop.run(compare())


@settings(parent=PROPERTY_SETTINGS, max_examples=80)
@given(
    data=st.data(),
    messages=st.one_of(conversations(), message_lists()),
    limit=st.integers(1, 40),
    ratio=st.sampled_from([0.7, 0.5, 1.0, 0.3]),
    flush=st.one_of(st.none(), st.integers(1, 50)),
    from_defaults=st.booleans(),
)
def test_memory_flushes_as_llama_index_does(data, messages, limit, ratio, flush, from_defaults):
    writes = data.draw(batches(messages))
    options = {"token_limit": limit, "tokenizer_fn": split_words, "chat_history_token_ratio": ratio}
    if flush is not None:
        options["token_flush_size"] = flush
    build = memory_module.Memory.from_defaults if from_defaults else memory_module.Memory
    policy = LlamaIndexMemory(
        limit,
        chat_history_token_ratio=ratio,
        token_flush_size=flush if flush is not None or from_defaults else None,
        from_defaults=from_defaults,
    )
    assert policy.flush == build(**options).token_flush_size
    check(writes, policy, lambda: build(**options))


# --- named vectors (llama-index-core 0.14.25) -------------------------------------------


def test_version_is_the_one_the_vectors_were_run_on():
    """A newer release may change these rules: re-run the vectors and update the model."""
    assert VERSION.startswith("0.14.")


def test_defaults_keep_21000_tokens_before_cutting():
    """``Memory.from_defaults()``: token_limit 30000 x ratio 0.7, flushed 3000 at a time."""

    def make_real():
        return memory_module.Memory.from_defaults(tokenizer_fn=split_words)

    policy = LlamaIndexMemory()
    real = make_real()
    assert (real.token_limit, real.token_flush_size, policy.threshold) == (30000, 3000, 21000)
    check([(m,) for m in turns(30)], policy, make_real)
    assert len(policy.window(turns(30))) == 60


def test_a_small_limit_keeps_whole_turns():
    """token_limit 10: past 7 words the oldest turns go, and the queue starts on a user."""
    history = chat("u1 c1 r1 a1 u2 a2 u3 c3 r3 a3 u4 a4")
    policy = LlamaIndexMemory(10)
    check(
        [(m,) for m in history],
        policy,
        lambda: memory_module.Memory.from_defaults(token_limit=10, tokenizer_fn=split_words),
    )
    assert [m.content for m in policy.window(history)] == ["u3", "c3", "r3", "a3", "u4", "a4"]
    assert policy.window(history)[0].role is Role.USER


def test_the_flush_size_depends_on_the_constructor():
    """``from_defaults(token_limit=100)`` flushes 70 tokens, ``Memory(token_limit=100)`` 10."""
    made = memory_module.Memory.from_defaults(token_limit=100, tokenizer_fn=split_words)
    built = memory_module.Memory(token_limit=100, tokenizer_fn=split_words)
    assert (made.token_flush_size, built.token_flush_size) == (70, 10)
    ours = LlamaIndexMemory(100), LlamaIndexMemory(100, token_flush_size=None, from_defaults=False)
    assert [p.flush for p in ours] == [70, 10]


# --- a real FunctionAgent over the Memory ----------------------------------------------


# llama-index's workflows inspect pydantic models, which warns thousands of times per run.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(
    messages=conversations(mid_chat_system=False),
    limit=st.integers(1, 60),
    flush=st.one_of(st.none(), st.integers(1, 30)),
)
def test_a_function_agent_sends_what_our_memory_holds(messages, limit, flush):
    history = numbered(with_replies(messages))
    options = {} if flush is None else {"token_flush_size": flush}

    def make_memory():
        return memory_module.Memory.from_defaults(
            token_limit=limit, tokenizer_fn=split_words, **options
        )

    policy = LlamaIndexMemory(
        limit,
        token_flush_size=3000 if flush is None else flush,
        counter=function_agent_counter(),
    )
    assert llama_driver.play(history, make_memory) == llama_driver.expected_calls(history, policy)
