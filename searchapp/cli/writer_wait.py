"""How a command that writes waits for another process writing the same library (the window embedding, another
`searchapp index`): it waits its turn, saying for whom, or with --no-wait refuses at once (exit 3). See
docs/decisions/0101-a-second-writer-waits-its-turn.md; a writer in its meaning pass lets it in between two batches
(docs/decisions/0105-a-long-writer-steps-aside-between-batches.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from ..base.terminal import printable

if TYPE_CHECKING:
    from ..base.progress import CancelToken
    from ..library.resources.lock import Holder
    from .library_protocol import WritingLibrary

__all__ = ["add_wait_option", "wait_turn"]


def add_wait_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-wait", action="store_true",
                        help="when another searchapp process (the window, another command) is updating the library, "
                             "exit at once (code 3) instead of waiting for it to finish")


def wait_turn(lib: WritingLibrary, args: argparse.Namespace, cancel: Optional[CancelToken]) -> None:
    """Set how `lib`'s writes wait for another process: until it is done (told on stderr, Ctrl+C stops), or, with
    --no-wait, not at all."""
    from ..library.resources.lock import REMIND_EVERY, WriterWait

    if getattr(args, "no_wait", False):
        lib.writer_wait = WriterWait(0, hint=" (--no-wait: not waiting for it)")
        return

    def told(holder: Holder, waited: float) -> None:
        if waited < REMIND_EVERY and holder.yields:  # in its meaning pass: it lets this in between two batches
            print(printable(f"searchapp: waiting for {holder} to finish its current batch (seconds): it lets this "
                            "update in, then goes on embedding (Ctrl+C stops; --no-wait refuses at once)"),
                  file=sys.stderr, flush=True)
        elif waited < REMIND_EVERY:
            print(printable(f"searchapp: waiting for {holder} to finish updating the library; this goes on when it "
                            "has (Ctrl+C stops; --no-wait refuses at once)"), file=sys.stderr, flush=True)
        else:
            print(printable(f"searchapp: still waiting for {holder} ({waited / 60:.0f} min)"), file=sys.stderr,
                  flush=True)

    lib.writer_wait = WriterWait(None, told, cancel)
