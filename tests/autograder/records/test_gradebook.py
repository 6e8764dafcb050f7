"""Scores merged into the class gradebook."""

from __future__ import annotations


def test_a_forged_score_is_clamped_to_the_cells_points():
    from autograder.records.gradebook import clamp

    assert (clamp(1e9, 2.0), clamp(-1.0, 2.0), clamp(None, 2.0)) == (2.0, 0.0, None)
