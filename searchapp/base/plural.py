"""A count with its noun, singular or plural as the count says: "1 passage", "2 passages".

One way for every line the command line prints: written out at each place, the index summary had forgotten it
and said "1 passages written" (a newcomer), beside a "1 file scanned" three words before it."""

from __future__ import annotations

from typing import Optional

__all__ = ["counted", "members_noun", "scanned_counts", "entry_counts"]


def counted(n: int, noun: str, many: Optional[str] = None, grouped: bool = False) -> str:
    """`n` and `noun`, or its plural (`many`; by default `noun` + "s") unless `n` is 1. `grouped`: thousands
    separated ("2,561 files"), as the window writes numbers (the command line does not)."""
    return (f"{n:,}" if grouped else str(n)) + f" {noun if n == 1 else many or noun + 's'}"


def members_noun(n: int, grouped: bool = False) -> str:
    """What people read for `n` members (decision 0163): "163 items in archives and mail"; `grouped` as counted's."""
    return counted(n, "item", grouped=grouped) + " in archives and mail"


def scanned_counts(scanned: int, members: int, grouped: bool = False) -> str:
    """What a sync met, files and members apart (decision 0163): "9 files and 3 items in archives and mail"."""
    return counted(scanned - members, "file", grouped=grouped) + (
        f" and {members_noun(members, grouped)}" if members else "")


def entry_counts(entries: int, members: int, grouped: bool = False) -> str:
    """`entries` of which `members` are members, files and members apart as scanned_counts says them, the files
    only where there are some: "56 files and 173 items in archives and mail", "3 items in archives and mail",
    "1 file" (the entries not indexed: a sync's header, `status` and the window's list)."""
    files = entries - members
    return scanned_counts(entries, members, grouped) if files or not members else members_noun(members, grouped)
