"""Whether a query's in: places are places of the library: a typo'd folder (`in:~/Documnets`) filters every file
out, and "no results" alone read as "nothing matches".

A place is the library's when one of its folders (roots) is at it, under it or above it: only then can a file of
the library lie there. A place inside an indexed folder that holds no match is no typo to point out, so nothing
is said of it; nor of a place that names a file (`in:~/notes/todo.txt`) inside one. Decided by the roots (a
folder whose first sync has not committed a file yet is still a place of the library) and, for a place inside one
of them, by what the library holds there, then by the disk (a stat within availability's wait).
"""

from __future__ import annotations

import os
from typing import Callable, Optional, Sequence

from ...ingest.fsnames import is_within
from ..query.field_values import field_value
from .availability import MISSING, why_unavailable

__all__ = ["unplaced", "place_text"]


def unplaced(typed: Sequence[str], roots: Sequence[str],
             mapped: Callable[[str], Sequence[str]] = lambda folder: (folder,),
             holds: Optional[Callable[[str], bool]] = None) -> list[str]:
    """The values of `typed` (in: values as the query wrote them) at which no folder of `roots` is, under which
    none lies and above which none is. `mapped`: a place made absolute -> the places it stands for in the library
    (a shared library: this desktop's mount point and the other machines' folders it maps to). `holds(place)`:
    whether the library has an entry at or under a place inside one of its folders; with it, such a place that is
    not on disk and holds nothing of the library is one too (a typo inside an indexed folder:
    `in:~/home/Noets`)."""
    out = []
    for value in typed:
        places = mapped(os.path.abspath(os.path.expanduser(value)))  # as filters_of reads it
        if not any(is_within(p, r) or is_within(r, p) for p in places for r in roots):
            out.append(value)
        elif holds is not None and not any(holds(p) or _on_disk(p, roots) for p in places):
            out.append(value)
    return out


def _on_disk(place: str, roots: Sequence[str]) -> bool:
    """Whether `place` is there on disk, asked within availability's wait: a plain stat on a drive that stopped
    answering hung the search (the library is asked first: a place holding its files is never asked here). One
    that does not answer, or cannot be read, is taken as there: no typo to point out."""
    return why_unavailable([place], lambda: roots)[place] != MISSING


def place_text(values: Sequence[str]) -> Optional[str]:
    """The notice for the in: values no folder of the library is at (unplaced), or None when there are none."""
    if not values:
        return None
    named = ", ".join(f"in:{field_value(v)}" for v in values)
    them = "it" if len(values) == 1 else "them"
    return f"{named}: no folder of the library is there or under {them} (check the path)"
