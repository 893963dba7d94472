"""Entry point of the frozen app: the same `main` as the `searchapp` command (cli/entry.py; no arguments: the window)."""

import multiprocessing
import sys

from searchapp.cli.entry import main

if __name__ == "__main__":
    # A large sync reads ahead in a spawned worker process (library/sync/read_ahead.py). In a frozen app that
    # worker is this executable again: freeze_support() turns it into the worker instead of a second window.
    multiprocessing.freeze_support()
    sys.exit(main())
