"""The store-against-load drawing: well-formed SVG, faded boxes for what is not sent, a clear error for a bad role."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from windowmem.explorer.store_load_diagram import Box, Row, store_load_svg


def test_the_drawing_is_svg_with_a_box_per_message_and_fades_what_is_not_sent():
    svg = store_load_svg(
        "t", [Row("stored", (Box("u1", "user"), Box("a1", "assistant", solid=False)))], "note"
    )
    root = ET.fromstring(svg)
    rects = [e for e in root if e.tag.endswith("rect")]
    assert len(rects) == 3  # the background and two messages
    assert rects[1].get("fill-opacity") is None and rects[2].get("fill-opacity") == "0.15"
    assert "note" in svg and "u1" in svg


def test_each_line_of_the_note_is_a_line_of_its_own_and_makes_room():
    row = [Row("stored", (Box("u1", "user"),))]
    one, two = store_load_svg("t", row, "first"), store_load_svg("t", row, "first\nsecond")
    notes = [
        e for e in ET.fromstring(two) if e.tag.endswith("text") and e.text in ("first", "second")
    ]
    assert [e.text for e in notes] == ["first", "second"]
    assert int(notes[1].get("y")) - int(notes[0].get("y")) == 15
    height = int(ET.fromstring(one).get("height"))
    assert int(ET.fromstring(two).get("height")) == height + 15
    assert int(notes[1].get("y")) == height + 15 - 8  # the last line sits as a lone line does


def test_an_unknown_role_is_refused_with_the_roles_that_exist():
    with pytest.raises(ValueError, match="has no colour; use one of"):
        store_load_svg("t", [Row("r", (Box("x", "robot"),))])
