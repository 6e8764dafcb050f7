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


def test_an_unknown_role_is_refused_with_the_roles_that_exist():
    with pytest.raises(ValueError, match="has no colour; use one of"):
        store_load_svg("t", [Row("r", (Box("x", "robot"),))])
