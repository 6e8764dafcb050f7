"""``python -m autograder``: see :mod:`autograder.cli`."""

from autograder.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
