"""What the pipeline raises when it cannot grade at all (as opposed to one student failing)."""


class GradingSetupError(Exception):
    """The assignment, the submissions folder or the course could not be set up; says how to fix it."""
