"""The one line both command-line clients of the warm index (cli/entry.py, commands/search.py) say on stderr when
it could not be used for a reason worth saying; light (the thin entry point imports it)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["say_warm_note"]


def say_warm_note(note: Optional[str]) -> None:
    if note:
        from ..base.terminal import printable

        print(f"searchapp: note: warm index: {printable(note)}; searching directly", file=sys.stderr)
