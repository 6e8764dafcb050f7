"""Where lesson 6 finds the reference corpus, and the figures it quotes from the chapter."""

from __future__ import annotations

from windowmem.budget.published import PUBLISHED, REFERENCE_CORPUS, reference_corpus


def fake_corpus(root):
    corpus = root / REFERENCE_CORPUS
    corpus.parent.mkdir(parents=True)
    corpus.write_text("{}")
    return corpus


def test_the_corpus_is_found_beside_any_parent_of_the_start(tmp_path, monkeypatch):
    monkeypatch.delenv("WINDOWMEM_SHARED", raising=False)
    corpus = fake_corpus(tmp_path)
    start = tmp_path / "repo" / "course"
    start.mkdir(parents=True)
    assert reference_corpus(start) == corpus
    assert reference_corpus(str(start)) == corpus


def test_windowmem_shared_wins_and_a_missing_corpus_is_none(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    corpus = fake_corpus(elsewhere)
    monkeypatch.setenv("WINDOWMEM_SHARED", str(elsewhere / "shared"))
    assert reference_corpus(tmp_path) == corpus
    monkeypatch.setenv("WINDOWMEM_SHARED", str(tmp_path / "nothing"))
    assert reference_corpus(elsewhere) is None


def test_the_quoted_figures_are_the_chapter_s():
    # ALGORITHM.md, "Published figures", typed here independently of the module.
    shown = {key: (f.answered, f.input_tokens) for key, f in PUBLISHED.items()}
    assert shown == {
        ("unbounded", "perfect"): (12, 26616),
        ("truncate", "perfect"): (5, 18094),
        ("compact", "perfect"): (12, 16768),
        ("retrieve", "perfect"): (12, 39175),
        ("compact", "lossy"): (7, None),
    }
