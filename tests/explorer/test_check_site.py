"""A lesson's self-checks exported for the website: the book's own lines, keyed by the answers' keys."""

from __future__ import annotations

import pytest

from windowmem.explorer import check_site as site
from windowmem.explorer.self_check import CheckBook, Expectation


@pytest.fixture(scope="module")
def book() -> CheckBook:
    def compute():
        return {"1a": (2, 3, 4), "1b": 11, "1c": "window", "1d": False}

    return CheckBook(
        3,
        [
            Expectation("1a", compute, hint="count turns", mistakes={(1, 2, 3): "one too early"}),
            Expectation("1b", compute, hint="count messages", mistakes={22: "both sessions"}),
            Expectation("1c", compute, hint="which layer?", mistakes={"scope": "the key is right"}),
            Expectation("1d", compute, hint="look at the store", why="it is kept"),
        ],
    )


class TestSiteAnswer:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("[2, 3, 4]", [2, 3, 4]),
            ("2, 3, 4", (2, 3, 4)),
            ("(7)", 7),
            ("'scope'", "scope"),
            ("  window ", "window"),
            ("True", True),
            ("1,725", (1, 725)),
            ("", None),
            ("   ", None),
        ],
    )
    def test_reads_a_literal_or_else_the_text(self, text, value):
        assert site.site_answer(text) == value and type(site.site_answer(text)) is type(value)


class TestKeys:
    def test_fnv1a_is_the_published_32_bit_hash(self):
        # FNV-1a test vectors: "" and "a" and "foobar" (ASCII units hash as bytes do).
        assert (site.fnv1a(""), site.fnv1a("a"), site.fnv1a("foobar")) == (
            "811c9dc5",
            "e40c292c",
            "bf9cf968",
        )

    def test_fold_leaves_out_case_spaces_a_trailing_period_and_a_leading_the(self):
        assert site.fold("  The   SAME.. ") == "same"

    @pytest.mark.parametrize(
        ("value", "kind"),
        [
            (True, "bool"),
            (0, "number"),
            (2.5, "number"),
            ("x", "text"),
            ([1], "numbers"),
            (("a",), "texts"),
        ],
    )
    def test_kinds(self, value, kind):
        assert site.kind_of(value) == kind

    def test_a_dict_is_no_kind_of_answer(self):
        with pytest.raises(TypeError, match="must be a bool, a number, text or a list"):
            site.kind_of({"a": 1})

    def test_a_number_is_one_key_however_written(self):
        assert site.answer_key(4, "number", {}) == site.answer_key(4.0, "number", {}) == "n4"

    def test_a_bool_is_not_a_number(self):
        assert (
            site.answer_key(True, "number", {}) is None and site.answer_key(1, "bool", {}) is None
        )

    def test_text_is_folded_only_where_the_book_forgives_it(self):
        assert site.answer_key("Window.", "text", {"fold": False}) == "sWindow."
        assert site.answer_key("Window.", "text", {"fold": True}) == "swindow"

    def test_a_list_of_the_wrong_kind_has_no_key(self):
        assert site.answer_key(["a"], "numbers", {}) is None
        assert site.answer_key(range(2, 4), "numbers", {}) == site.answer_key((2, 3), "numbers", {})


class TestCheckData:
    def test_forms_the_book_does_not_forgive_are_not_forgiven(self, book):
        # This book compares values as they are (windowmem.explorer.self_check.same_answer).
        forms = site.forgiven_forms(book, "1c", {})
        assert forms == {"fold": book.feedback("1c", "  WINDOW. ") == book.feedback("1c", "window")}

    def test_each_foreseen_answer_has_the_books_line(self, book):
        data = site.check_data(book, "1a", {})
        assert data["kind"] == "numbers"
        assert data["answers"] == {
            site.fnv1a("l[n2,n3,n4]"): book.feedback("1a", (2, 3, 4)),
            site.fnv1a("l[n1,n2,n3]"): book.feedback("1a", (1, 2, 3)),
        }
        assert data["unanswered"] == book.feedback("1a", None)
        assert data["hint"] == "1a: not yet: count turns."

    def test_the_answer_is_not_in_the_data_as_text(self, book):
        data = site.check_data(book, "1c", {})
        assert "swindow" not in str(data["answers"]) and "window" not in data["answers"]

    def test_a_yes_or_no_check_gives_the_hint_for_the_answer_nobody_foresaw(self, book):
        data = site.check_data(book, "1d", {})
        assert data["answers"] == {site.fnv1a("bFalse"): "1d: correct: it is kept."}
        assert data["hint"] == book.feedback("1d", True) == "1d: not yet: look at the store."
        assert data["form"] == book.feedback("1d", "maybe")

    def test_the_book_lists_every_check(self, book):
        data = site.book_data(book)
        assert list(data["checks"]) == ["1a", "1b", "1c", "1d"]
        assert data["checks"]["1b"]["answers"][site.fnv1a("n22")] == "1b: not yet: both sessions."
