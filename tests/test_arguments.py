"""The CLI's argparse types: whole numbers, with a floor or not."""

from __future__ import annotations

import argparse

import pytest

from windowmem.arguments import at_least, whole_number


@pytest.mark.parametrize("text, expected", [("5", 5), ("0", 0), ("-1", -1), (" 12 ", 12)])
def test_whole_number_accepts_integers(text, expected):
    assert whole_number(text) == expected


@pytest.mark.parametrize("text", ["2.5", "abc", "", "1e3", "٥", "１２", "1_000"])
def test_whole_number_refuses_what_is_not_an_integer(text):
    with pytest.raises(argparse.ArgumentTypeError, match="must be a whole number"):
        whole_number(text)


def test_at_least_names_the_floor():
    assert at_least(0)("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="must be at least 1, got 0"):
        at_least(1)("0")
    with pytest.raises(argparse.ArgumentTypeError, match="must be a whole number"):
        at_least(1)("x")
