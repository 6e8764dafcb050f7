"""JavaScript's way with numbers and slices, reproduced: the ECMAScript rules, case by case."""

from __future__ import annotations

import pytest

from windowmem.javascript import js_number_text, js_slice_start


@pytest.mark.parametrize(
    ("length", "start", "expected"),
    [(6, -0.0, 0), (6, -3, 3), (6, -3.9, 3), (6, 2.7, 2), (6, 7, 6), (6, -7, 0), (0, -2, 0)],
)
def test_js_slice_start_follows_ecmascript(length, start, expected):
    assert js_slice_start(length, start) == expected


@pytest.mark.parametrize(
    "number, javascript",
    [  # what String(x) prints in JavaScript (ECMAScript Number::toString)
        (7.0, "7"),
        (-2.0, "-2"),
        (-0.0, "0"),
        (123.456, "123.456"),
        (0.1 + 0.2, "0.30000000000000004"),
        (0.00001, "0.00001"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-10, "1.5e-10"),
        (1e16, "10000000000000000"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (2.0**53, "9007199254740992"),
    ],
)
def test_js_number_text_follows_ecmascript(number: float, javascript: str) -> None:
    assert js_number_text(number) == javascript
