"""How JavaScript does two things Python does differently: print a number, slice an array.

n8n and LangChain JS are JavaScript: a session id ``4.0`` becomes the text ``"4"`` and
``messages.slice(-0)`` is the whole array. The models that must agree with them use
these two helpers, and nothing else here knows about any product.

>>> js_number_text(4.0), js_slice_start(5, -0.0)
('4', 0)
"""

from __future__ import annotations

import math
from decimal import Decimal


def js_number_text(number: float) -> str:
    """*number* as JavaScript's ``String(number)`` writes it (ECMAScript Number::toString).

    Both languages print the shortest digits that read back as the same float; they
    differ in where they switch to exponent notation and how they write the exponent.

    >>> [js_number_text(x) for x in (7.0, 0.00001, 1e-7, 1e21, 2.5e-3)]
    ['7', '0.00001', '1e-7', '1e+21', '0.0025']
    """
    if number == 0:
        return "0"  # JavaScript prints -0 as "0" too
    sign = "-" if number < 0 else ""
    shortest = Decimal(repr(abs(number))).normalize()
    digits = "".join(map(str, shortest.as_tuple().digits))
    k = len(digits)
    exponent = shortest.as_tuple().exponent
    assert isinstance(exponent, int)  # a finite float never normalises to NaN or infinity
    n = k + exponent  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        exponent = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"
    return sign + text


def js_slice_start(length: int, start: float) -> int:
    """Where JavaScript's ``array.slice(start)`` begins on an array of *length* items.

    ``start`` is truncated toward zero; a negative start counts from the end and is
    clamped at 0; a start past the end gives an empty slice.

    >>> js_slice_start(5, -3), js_slice_start(5, -0.0), js_slice_start(5, 2), js_slice_start(5, -9)
    (2, 0, 2, 0)
    """
    relative = math.trunc(start)
    if relative < 0:
        return max(length + relative, 0)
    return min(relative, length)
