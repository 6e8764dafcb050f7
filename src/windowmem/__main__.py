"""Run the command line: ``python -m windowmem replay FILE --policy n8n --size 5``."""

import sys

from windowmem.cli import main

if __name__ == "__main__":
    sys.exit(main())
