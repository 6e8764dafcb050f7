"""Intake: what the students hand in, found and checked before anything runs.

``submissions`` reads nbgrader's submitted layout, ``lms_zip`` turns an LMS download into
it, ``exchange`` releases, collects and returns through nbgrader's exchange, and
``validate`` is the learner's own check before handing in.
"""
