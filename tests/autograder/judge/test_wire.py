"""The judge's wire format: plain data crosses as itself, nothing else does."""

from __future__ import annotations

import json

import pytest

from autograder.judge import wire


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -7,
        2.5,
        "",
        "Valentina's order #3310",
        [1, [2, [3]]],
        (1, "a"),
        {"a": [1, 2], 3: (4, 5), (1, 2): None},
        {1, 2, 3},
        frozenset({"x"}),
        [[], (), {}],
    ],
)
def test_plain_values_cross_as_themselves(value):
    back = wire.loads(wire.dumps(value))
    assert back == value
    assert type(back) is type(value)


def test_bool_stays_bool_and_int_stays_int():
    back = wire.loads(wire.dumps([True, 1, 0, False]))
    assert [type(v) for v in back] == [bool, int, int, bool]


def test_a_list_subclass_with_its_own_eq_crosses_as_opaque():
    class Anything(list):
        def __eq__(self, other):
            return True

    back = wire.loads(wire.dumps([Anything([1])]))
    assert isinstance(back[0], wire.Opaque)
    assert back[0] != [1] and not (back[0] == [1]) and back[0].type_name == "Anything"


def test_a_generator_and_an_instance_cross_as_opaque():
    back = wire.loads(wire.dumps({"g": (i for i in range(3)), "o": object()}))
    assert all(isinstance(v, wire.Opaque) for v in back.values())


def test_extra_tags_only_what_it_is_given():
    class Box:
        def __init__(self, n):
            self.n = n

    text = wire.dumps([Box(3)], extra=lambda v: {"n": v.n} if isinstance(v, Box) else None)
    assert wire.loads(text, extra=lambda data: ("box", data["n"])) == [("box", 3)]
    with pytest.raises(wire.WireError):
        wire.loads(text)  # no reader for the tag


@pytest.mark.parametrize(
    "data",
    [
        {"plain": "object"},
        {"~": "nonsense"},
        {"~": "tuple"},
        {"~": "dict", "pairs": [[1]]},
        {"~": "set", "items": [[1]]},
        {"~": "dict", "pairs": [[[1], 2]]},
    ],
)
def test_bad_data_is_refused_with_wire_error(data):
    with pytest.raises(wire.WireError):
        wire.loads(json.dumps(data))


def test_depth_and_size_are_bounded_both_ways():
    deep: list = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.WireError):
        wire.dumps(deep)
    with pytest.raises(wire.WireError):
        wire.dumps(list(range(wire.MAX_ITEMS + 1)))
    with pytest.raises(wire.WireError):
        wire.loads("[" * 10_000 + "]" * 10_000)
    with pytest.raises(wire.WireError):
        wire.loads("1" * (wire.MAX_CHARS + 1))
