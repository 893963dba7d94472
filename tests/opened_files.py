"""The paths this process opens while a block runs, seen by an audit hook (Python's own "open" events): how a test
proves a file was read once, or never, without timing anything."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator


@contextlib.contextmanager
def files_opened() -> Iterator[list[str]]:
    """Yields the list the block's opens are appended to (each path as opened, once an open)."""
    opened: list[str] = []
    recording = [True]

    def hook(event: str, args: tuple) -> None:
        if recording[0] and event == "open" and isinstance(args[0], (str, os.PathLike)):
            opened.append(os.fspath(args[0]))

    sys.addaudithook(hook)  # audit hooks cannot be removed: this one goes quiet after the block
    try:
        yield opened
    finally:
        recording[0] = False
