"""A corpus for the budget task: articles, and questions whose answers are character spans.

Two shapes are read. A JSON file like the reference task's ``corpus.json``::

    {"articles": [{"title": "...", "text": "..."}],
     "questions": [{"article": 0, "question": "...", "answer": "...", "start": 175, "end": 194}]}

or a folder holding one ``.txt`` file per article (in file-name order; the first line is
the title) and a ``questions.json`` list whose ``article`` is a file's stem or index.
Spans are ``[start, end)`` in the article's text and must spell the answer exactly.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from windowmem.errors import WindowMemError

#: The name that selects the course's own corpus (``--corpus help-centre``).
HELP_CENTRE = "help-centre"


class CorpusFormatError(WindowMemError):
    """A corpus file or folder does not have the documented shape."""


@dataclass(frozen=True)
class Article:
    """One document of the corpus."""

    title: str
    text: str


@dataclass(frozen=True)
class Question:
    """A question about one article, answered by ``text[start:end]`` of that article."""

    article: int
    question: str
    answer: str
    start: int
    end: int


@dataclass(frozen=True)
class Corpus:
    """Articles and questions; a question's id is its index in ``questions``."""

    name: str
    articles: tuple[Article, ...]
    questions: tuple[Question, ...]

    def article_question_counts(self) -> tuple[int, ...]:
        """How many questions each article has, in article order.

        >>> help_centre().article_question_counts()
        (3, 3, 3, 3, 3, 3)
        """
        counts = [0] * len(self.articles)
        for question in self.questions:
            counts[question.article] += 1
        return tuple(counts)


def _need(condition: bool, where: str, problem: str) -> None:
    if not condition:
        raise CorpusFormatError(f"{where}: {problem}")


def _text_field(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or value.strip() == "":
        raise CorpusFormatError(f"{where}.{key}: must be a non-empty string")
    return value


def _int_field(entry: Mapping[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise CorpusFormatError(f"{where}.{key}: must be a whole number, got {value!r}")
    return value


def _article(entry: object, index: int) -> Article:
    where = f"articles[{index}]"
    _need(isinstance(entry, Mapping), where, "must be an object with a 'text'")
    assert isinstance(entry, Mapping)
    text = _text_field(entry, "text", where)
    # Spans index the text as given, while tokens are counted on its NFC form: they must agree.
    _need(
        unicodedata.is_normalized("NFC", text),
        f"{where}.text",
        "is not in Unicode NFC form; normalise it and recompute the answer spans",
    )
    title = entry.get("title", f"Article {index}")
    _need(isinstance(title, str), f"{where}.title", "must be a string")
    return Article(title, text)


def _question(
    entry: object, index: int, articles: Sequence[Article], article_ids: Mapping[str, int]
) -> Question:
    where = f"questions[{index}]"
    _need(
        isinstance(entry, Mapping),
        where,
        "must be an object with article, question, answer, start and end",
    )
    assert isinstance(entry, Mapping)
    reference = entry.get("article")
    if isinstance(reference, str) and reference in article_ids:
        article = article_ids[reference]
    else:
        article = _int_field(entry, "article", where)
        _need(
            0 <= article < len(articles),
            f"{where}.article",
            f"must name one of the {len(articles)} articles, got {reference!r}",
        )
    question = _text_field(entry, "question", where)
    answer = _text_field(entry, "answer", where)
    start, end = _int_field(entry, "start", where), _int_field(entry, "end", where)
    text = articles[article].text
    _need(
        0 <= start < end <= len(text),
        where,
        f"span [{start}, {end}) is outside article {article} ({len(text)} characters)",
    )
    _need(
        text[start:end] == answer,
        where,
        f"text[{start}:{end}] is {text[start:end]!r}, not the answer {answer!r}; fix the span",
    )
    return Question(article, question, answer, start, end)


def corpus_from_dict(
    data: object, name: str = "corpus", article_ids: Mapping[str, int] | None = None
) -> Corpus:
    """Validate *data* (the parsed JSON shape) and build a :class:`Corpus` from it.

    >>> corpus_from_dict({"articles": [{"text": "Ships in 2 days."}],
    ...                   "questions": [{"article": 0, "question": "How fast?", "answer": "2 days", "start": 9, "end": 15}]})
    Corpus(name='corpus', articles=(Article(title='Article 0', text='Ships in 2 days.'),), questions=(Question(article=0, question='How fast?', answer='2 days', start=9, end=15),))
    """
    _need(isinstance(data, Mapping), name, "must be a JSON object with 'articles' and 'questions'")
    assert isinstance(data, Mapping)
    raw_articles, raw_questions = data.get("articles"), data.get("questions")
    _need(
        isinstance(raw_articles, list) and len(raw_articles) > 0,
        f"{name}.articles",
        "must be a non-empty list",
    )
    _need(
        isinstance(raw_questions, list) and len(raw_questions) > 0,
        f"{name}.questions",
        "must be a non-empty list",
    )
    assert isinstance(raw_articles, list) and isinstance(raw_questions, list)
    articles = tuple(_article(entry, i) for i, entry in enumerate(raw_articles))
    questions = tuple(
        _question(entry, i, articles, article_ids or {}) for i, entry in enumerate(raw_questions)
    )
    return Corpus(name, articles, questions)


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise CorpusFormatError(f"{path}: cannot read it ({error})") from None
    except json.JSONDecodeError as error:
        raise CorpusFormatError(
            f"{path}: not valid JSON ({error.msg} at line {error.lineno})"
        ) from None


def _load_folder(folder: Path) -> Corpus:
    texts = sorted(folder.glob("*.txt"))
    _need(len(texts) > 0, str(folder), "holds no .txt articles")
    articles = []
    for path in texts:
        text = path.read_text(encoding="utf-8")
        articles.append({"title": text.split("\n", 1)[0].strip(), "text": text})
    questions = (
        _read_json(folder / "questions.json") if (folder / "questions.json").exists() else None
    )
    _need(
        isinstance(questions, list),
        str(folder / "questions.json"),
        "must exist and hold a JSON list of questions",
    )
    ids = {path.stem: index for index, path in enumerate(texts)}
    return corpus_from_dict({"articles": articles, "questions": questions}, folder.name, ids)


def load_corpus(path: str | Path) -> Corpus:
    """The corpus in the JSON file or folder at *path*, or the shipped one for ``help-centre``."""
    if str(path) == HELP_CENTRE:
        return help_centre()
    location = Path(path)
    if location.is_dir():
        return _load_folder(location)
    _need(
        location.is_file(),
        str(location),
        "no such file or folder; give a corpus JSON file, a folder, or 'help-centre'",
    )
    return corpus_from_dict(_read_json(location), location.stem)


def help_centre_folder() -> Path:
    """Where the shipped help-centre corpus lives: one ``.txt`` per article and ``questions.json``."""
    return Path(str(files("windowmem") / "data" / "help_centre"))


@lru_cache(maxsize=1)
def help_centre() -> Corpus:
    """The course's own corpus: six TuTienda help-centre articles and their questions."""
    corpus = _load_folder(help_centre_folder())
    return Corpus(HELP_CENTRE, corpus.articles, corpus.questions)
