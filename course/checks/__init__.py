"""The lessons' self-checks, one module per lesson, out of the lessons' reading path.

A lesson's setup cell imports ``check`` from ``checks.lessonNN``; each check cell is one
call, ``check("3a", answer)``. The module computes every expected value with windowmem and
holds the hint, the feedback for each foreseen mistake and, for a right answer, the reason.
"""
