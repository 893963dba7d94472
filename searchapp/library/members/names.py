"""A member named by a part of its name, as a person types it: a mail's number alone (`box.mbox › 24` for its
"24: Re: the deposit"), the start of a name, a part of one. A person cannot type a member's whole name (a subject,
a path deep inside an archive) to ask about it (`explain`, `similar`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...base.member_paths import MEMBER_SEP, member_order, split_member

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["members_like", "members_said", "MEMBERS_SAID"]

MEMBERS_SAID = 5  # the members like a name typed that are named, the rest counted


def members_like(store: Store, container: str, typed: str) -> list[str]:
    """The stored keys of the members of `container` (a file of one of the library's folders) that `typed` names
    in part, in their container's order: those its number names, else those whose name starts with it, else those
    holding it (case aside); its own members (a mailbox's messages) before theirs (their attachments)."""
    row = next((r for r in store.roots()
                if container == r.path or container.startswith(r.path.rstrip(os.sep) + os.sep)), None)
    want = typed.strip().casefold()
    if row is None or not want:
        return []
    names: dict[str, str] = {}
    for key in store.files_under(row.id, container):
        outer, member = split_member(key)
        if outer == container and member is not None:
            names[member] = key
    own = {m: k for m, k in names.items() if MEMBER_SEP not in m}
    for among in (own, names):
        for test in (lambda n: n.split(":", 1)[0].strip() == want,  # a message's number
                     lambda n: n.startswith(want), lambda n: want in n):
            found = [k for m, k in among.items() if test(m.casefold())]
            if found:
                return sorted(found, key=member_order)
    return []


def members_said(like: list[str]) -> str:
    """"no member named exactly so; members like it: “10: …”; “11: …” and 3 more": where a part typed names
    several."""
    shown = "; ".join(f"“{split_member(k)[1]}”" for k in like[:MEMBERS_SAID])
    more = f" and {len(like) - MEMBERS_SAID:,} more" if len(like) > MEMBERS_SAID else ""
    return f"no member named exactly so; members like it: {shown}{more}"
