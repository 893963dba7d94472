"""Entry point of the frozen app: the same `main` as the `searchapp` command (no arguments: the window)."""

import sys

from searchapp.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
