"""Which file of a group of exact copies reads as the original, and what the group is called after.

File managers, browsers and mail programs name a copy after its original with a mark: `report (1).pdf`,
`report - Copy.pdf`, `report copy 2.pdf`, `report (another copy).pdf`, `Copy of report.pdf`. A group named after
whichever copy sorted first (`pep-0008 (1).rst`) made copies look like the original; the name without its mark is
what a person looks for. Only names are read: no file is opened or stat'ed on the GUI thread.
"""

from __future__ import annotations

import os
import re

from ..base.member_paths import display_name

__all__ = ["copy_mark_removed", "original_first", "group_name"]

_STEM_MARKS = [re.compile(p, re.IGNORECASE) for p in (  # the longer marks first: "- Copy (2)" before "(2)"
    r"\s*-\s*copy(\s*\(\d+\))?$",  # report - Copy, report - Copy (2): Windows
    r"\s*\(\d+\)$",  # report (1): browsers, file managers
    r"\s+copy(\s+\d+)?$",  # report copy, report copy 2: macOS
    r"\s*\((another |\d+(st|nd|rd|th) )?copy\)$",  # report (copy), (another copy), (3rd copy): GNOME
    r"[_-]copy\d*$",  # report_copy, report-copy2
    r"^copy( \(\d+\))? of\s+",  # Copy of report, Copy (2) of report: older Windows
)]


def copy_mark_removed(name: str) -> str:
    """`name` without one copy mark: "pep-0008 (1).rst" -> "pep-0008.rst"; a name without one is returned as is."""
    stem, ext = os.path.splitext(name)
    if not stem:  # ".bashrc": all name, no extension
        stem, ext = name, ""
    for mark in _STEM_MARKS:
        bare = mark.sub("", stem, count=1)
        if bare != stem and bare.strip():
            return bare + ext
    return name


def original_first(paths: list[str]) -> list[str]:
    """The group in the order shown: a file whose name carries no copy mark first (the shortest name among
    several), then the copies by name."""
    def key(path: str) -> tuple[bool, int, str]:
        name = display_name(path)
        return copy_mark_removed(name) != name, len(name), path

    return sorted(paths, key=key)


def group_name(paths: list[str]) -> str:
    """What a group of copies is called: its original's name, or the name its copies were made from."""
    return copy_mark_removed(display_name(original_first(paths)[0]))
