"""Names in the order a person counts them: `orig(2).pdf` before `orig(10).pdf`, `header9.xml` before
`header10.xml` (a newcomer's `duplicates` listed orig(10) … orig(19), then orig(2)).

A run of digits compares by its number, not its characters: by its length less leading zeros, then its digits, so
that no run, however long, is turned into an int (Python refuses a str of over 4,300 digits). Names equal so far
("01" and "1") fall back to the text itself, so the order is total and the same each time.
"""

from __future__ import annotations

import re

__all__ = ["natural_key"]

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[object, ...], str]:
    """A sort key of `text` that orders its digit runs by number (module doc)."""
    # re.split with a group alternates text and digit runs, text first and last: equal positions compare alike.
    parts = tuple((len(s.lstrip("0")), s.lstrip("0")) if i % 2 else s for i, s in enumerate(_DIGITS.split(text)))
    return parts, text
