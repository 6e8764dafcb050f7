"""The timeline drawing: where it puts spans and marks, what it refuses, and lesson 4's three."""

import json
from pathlib import Path

import pytest

from tests.conftest import load_script
from windowmem.explorer.timeline_diagram import LABEL_W, PLOT_W, Lane, Mark, Span, timeline_svg

REPO = Path(__file__).resolve().parents[2]
TICKS = [(0, "0 s"), (10, "10 s")]


def test_a_mark_halfway_along_the_axis_is_drawn_halfway_across_the_plot():
    svg = timeline_svg("t", [Lane("A", marks=(Mark(5, "half", "user"),))], TICKS)
    assert f'x1="{LABEL_W + PLOT_W / 2}"' in svg


def test_a_span_is_as_wide_as_its_share_of_the_axis():
    svg = timeline_svg("t", [Lane("A", (Span(0, 2.5, "quarter", "assistant"),))], TICKS)
    assert f'x="{float(LABEL_W)}" y="' in svg and f'width="{PLOT_W / 4}"' in svg


@pytest.mark.parametrize(
    ("lanes", "ticks", "message"),
    [
        ([Lane("A", (Span(0, 1, "s", "pink"),))], TICKS, "kind 'pink' has no colour"),
        ([Lane("A", (Span(0, 11, "s", "user"),))], TICKS, "off the axis 0-10"),
        ([Lane("A", marks=(Mark(-1, "m", "user"),))], TICKS, "off the axis 0-10"),
        ([], [(0, "0 s")], "at least two axis ticks"),
        ([], [(5, "5"), (0, "0")], "must rise"),
    ],
)
def test_bad_input_is_refused_with_what_to_do(lanes, ticks, message):
    with pytest.raises(ValueError, match=message):
        timeline_svg("t", lanes, ticks)


def _draw_diagrams():
    return load_script("draw_diagrams")


def test_lesson_4_s_race_is_drawn_in_seconds_with_a_writing_first():
    """Issue 34's fourth reading: the race in seconds (scripts/draw_diagrams.RACE_SECONDS), A
    answering first; self-check 3 flips the timings, so the picture does not answer it."""
    svg = _draw_diagrams().lesson4_race()
    # Both runs load (0 s, 2 s) before either writes (6 s, 10 s): neither sees the other.
    for label in (
        "0 s: loads u1 a1",
        "2 s: loads u1 a1",
        "6 s: writes qA aA",
        "10 s: writes qB aB",
    ):
        assert label in svg, label
    assert svg.index("6 s: writes qA aA") < svg.index("10 s: writes qB aB")
    assert "qA aA is run A's question and answer; A writes first" in svg.replace("&#x27;", "'")


def test_lesson_4_s_ttl_keeps_the_key_until_an_hour_after_the_last_saved_run():
    svg = _draw_diagrams().lesson4_ttl()
    assert "kept until 11:20" in svg and ">gone<" in svg
    assert svg.count("clock restarts") == 2  # the two saved runs, not the page load or failure


def test_lesson_1_s_idle_hour_is_counted_on_marta_s_key_alone():
    """Self-check 3's worked answer: Lucía's run (another key) leaves Marta's hour running from
    her own run at minute 40. Her hour ends at minute 100, her history expires, and n8n deletes it at the
    next run (her return, at minute 110), before it loads: the picture and the answer agree."""
    svg = _draw_diagrams().lesson1_idle_hour()
    for label in (
        "40 min: asks again",
        "80 min: writes",
        "110 min: returns; her run deletes it, gets 0",
    ):
        assert label in svg, label
    assert "kept: 60 min from her last run" in svg and ">expired<" in svg and ">deleted<" not in svg
    assert "expires at minute 100; the next run, her return, deletes it first." in svg
    # Self-check 3's worked answer gives the same two minutes.
    lesson = (REPO / "course" / "01_scope_and_storage.ipynb").read_text(encoding="utf-8")
    answer = " ".join("".join(c["source"]) for c in json.loads(lesson)["cells"]).split()
    assert (
        "Marta's hour ended at minute 100, so her history expired. The next run, her return at minute 110,"
        in " ".join(answer)
    )


def test_lesson_4_s_race_behind_the_lock_turns_b_away_and_stores_only_a():
    """The thirteenth reading: the race of lesson4_race again, behind the lock."""
    from html import unescape

    svg = unescape(_draw_diagrams().lesson4_race_locked())
    for label in (
        "0 s: lock 1, loads u1 a1",
        "2 s: lock 2, One moment",
        "6 s: writes qA aA, Release",
    ):
        assert label in svg, label
    assert "qB" not in svg and "only A's question and answer are stored" in svg


def test_no_mark_s_tick_runs_through_a_label():
    """The thirteenth reading saw lesson 4's 30 s tick cross "crashes 3 s in": a mark whose label
    sits on the second line kept its tick down to it, through the first line's labels. Every
    tick now ends above the first line of labels (a label's glyphs rise about 9 px)."""
    import re

    marks = tuple(Mark(at, f"mark at {at} with a long label", "user") for at in (0, 3, 6))
    svg = timeline_svg("t", [Lane("A", marks=marks)], TICKS)
    ticks = [float(y) for y in re.findall(r'y2="([\d.]+)" stroke="[^"]+" stroke-width="3"', svg)]
    labels = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" text-anchor', svg)]
    assert len(ticks) == 3 and len(labels) >= 3
    assert max(ticks) < min(labels) - 9
