"""Corpus loading and validation, and the shipped help-centre corpus."""

from __future__ import annotations

import json
import re

import pytest

from windowmem.budget import Corpus, CorpusFormatError, help_centre, load_corpus, prepare
from windowmem.budget.corpus import HELP_CENTRE, corpus_from_dict

GOOD = {
    "articles": [{"title": "Stores", "text": "The store in Bogotá is in Zona T."}],
    "questions": [
        {
            "article": 0,
            "question": "Where is the store?",
            "answer": "Zona T",
            "start": 26,
            "end": 32,
        }
    ],
}


class TestHelpCentre:
    def test_every_answer_is_its_exact_span(self):
        corpus = help_centre()
        for question in corpus.questions:
            text = corpus.articles[question.article].text
            assert text[question.start : question.end] == question.answer

    def test_six_articles_of_a_few_hundred_words_with_three_questions_each(self):
        corpus = help_centre()
        assert [a.title for a in corpus.articles] == [
            "Shipping and delivery",
            "Payments",
            "Returns and exchanges",
            "Warranty",
            "Our stores",
            "Orders and your account",
        ]
        assert all(250 <= len(article.text.split()) <= 500 for article in corpus.articles)
        assert corpus.article_question_counts() == (3, 3, 3, 3, 3, 3)

    def test_the_seed_facts_are_answers(self):
        # The TuTienda facts of the window-buffer lesson's worked example.
        answers = {q.answer for q in help_centre().questions}
        assert {
            "between 3 and 5 business days from when we receive the item",
            "6 months from delivery",
        } <= answers
        assert any("Zona T" in answer for answer in answers)

    def test_a_full_task_of_two_questions_per_article(self):
        prepared = prepare(help_centre())
        assert len(prepared.task) == 12
        assert prepared.task_articles() == (2, 2, 2, 2, 2, 2)

    def test_loaded_by_name(self):
        assert load_corpus(HELP_CENTRE) == help_centre()


class TestLoading:
    def test_json_file(self, tmp_path):
        path = tmp_path / "mini.json"
        path.write_text(json.dumps(GOOD), encoding="utf-8")
        corpus = load_corpus(path)
        assert isinstance(corpus, Corpus) and corpus.name == "mini"
        assert corpus.questions[0].answer == "Zona T"

    def test_folder_with_articles_named_by_stem(self, tmp_path):
        (tmp_path / "01_stores.txt").write_text(
            "Stores\n\nOpen on Sundays from 11 a.m.\n", encoding="utf-8"
        )
        (tmp_path / "02_pay.txt").write_text("Payments\n\nWe take cards.\n", encoding="utf-8")
        questions = [
            {
                "article": "02_pay",
                "question": "What do you take?",
                "answer": "cards",
                "start": 18,
                "end": 23,
            }
        ]
        (tmp_path / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
        corpus = load_corpus(tmp_path)
        assert [a.title for a in corpus.articles] == ["Stores", "Payments"]
        assert corpus.questions[0].article == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("articles"), "articles: must be a non-empty list"),
        (lambda d: d.update(questions=[]), "questions: must be a non-empty list"),
        (
            lambda d: d["articles"][0].update(text=""),
            "articles[0].text: must be a non-empty string",
        ),
        (lambda d: d["articles"][0].update(text="Cafe\u0301 open."), "not in Unicode NFC form"),
        (lambda d: d["questions"][0].update(article=3), "must name one of the 1 articles"),
        (
            lambda d: d["questions"][0].update(start="26"),
            "questions[0].start: must be a whole number",
        ),
        (lambda d: d["questions"][0].update(end=99), "is outside article 0"),
        (lambda d: d["questions"][0].update(start=25), "not the answer 'Zona T'; fix the span"),
        (
            lambda d: d["questions"][0].pop("question"),
            "questions[0].question: must be a non-empty string",
        ),
    ],
)
def test_bad_corpus_says_what_is_wrong(change, message):
    data = json.loads(json.dumps(GOOD))
    change(data)
    with pytest.raises(CorpusFormatError, match=re.escape(message)):
        corpus_from_dict(data)


def test_unreadable_and_missing_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="not valid JSON"):
        load_corpus(broken)
    with pytest.raises(CorpusFormatError, match="no such file or folder"):
        load_corpus(tmp_path / "absent.json")
    with pytest.raises(CorpusFormatError, match="holds no .txt articles"):
        load_corpus(tmp_path)
