"""The judge: hidden tests run in the grader's own process, never in the student's kernel.

The student's kernel runs the student's notebook with only the visible checks. The judge
then runs each test cell whole, here, reaching the student's functions and values only
through :mod:`~autograder.judge.channel` (plain data both ways), and writes its verdicts
into the test cells' outputs, where nbgrader reads the scores.
"""
